#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmu-kvm.sh: KVM's modules load into the kernel and register with perf.
#
# The modules are those the kernel under test built (run-tests.sh puts
# them in /tests/modules). irqbypass and kvm load on both models; on the
# AMD model (SVM, which QEMU's TCG emulates) kvm-amd loads, /dev/kvm
# appears and pmu-kvm (/usr/bin) runs a guest under sampling events. The Intel
# model has no VMX (TCG does not emulate it): kvm-intel must refuse for
# that reason alone, with no unresolved symbol.
fails=0
ok() { echo "ok $*"; }
nok() { echo "not ok $*"; fails=$((fails + 1)); }
M=/tests/modules

for m in irqbypass kvm; do
	if insmod $M/$m.ko; then ok "insmod $m"; else nok "insmod $m"; fi
done
if grep -q AuthenticAMD /proc/cpuinfo; then
	if insmod $M/kvm-amd.ko; then ok "insmod kvm-amd"; else nok "insmod kvm-amd"; fi
	[ -c /dev/kvm ] && ok "/dev/kvm" || nok "/dev/kvm"
	pmu-kvm || fails=$((fails + 1))
	rmmod kvm_amd && ok "rmmod kvm_amd" || nok "rmmod kvm_amd"
else
	if insmod $M/kvm-intel.ko 2>/dev/null; then
		nok "kvm-intel loaded on a CPU without VMX"
	else
		ok "kvm-intel refuses (no VMX under TCG)"
	fi
fi
if dmesg | grep -q "Unknown symbol"; then
	dmesg | grep "Unknown symbol"
	nok "every symbol the KVM modules use resolves"
else
	ok "every symbol the KVM modules use resolves"
fi
rmmod kvm && ok "rmmod kvm" || nok "rmmod kvm"
[ $fails = 0 ]
