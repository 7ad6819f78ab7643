#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The "cpu" PMU's format/, events/ and caps/ directories and Intel's
# freeze_on_smi, every file with its contents, exactly as the stock 6.12 kernel has them on the model
# (Skylake-PMU, EPYC-PMU). "pmu-cpu-sysfs.sh dump" prints the listing.
d=/sys/bus/event_source/devices/cpu
list() {
	for f in $d/format/* $d/events/* $d/caps/* $d/freeze_on_smi; do
		[ -f "$f" ] && echo "${f#$d/}: $(cat "$f")"
	done
}
[ "$1" = dump ] && { list; exit 0; }

if grep -q GenuineIntel /proc/cpuinfo; then
	expect=$(cat <<'END'
format/any: config:21
format/cmask: config:24-31
format/edge: config:18
format/event: config:0-7
format/frontend: config1:0-23
format/inv: config:23
format/ldlat: config1:0-15
format/offcore_rsp: config1:0-63
format/pc: config:19
format/umask: config:8-15
events/branch-instructions: event=0xc4
events/branch-misses: event=0xc5
events/bus-cycles: event=0x3c,umask=0x01
events/cache-misses: event=0x2e,umask=0x41
events/cache-references: event=0x2e,umask=0x4f
events/cpu-cycles: event=0x3c
events/instructions: event=0xc0
events/mem-loads: event=0xcd,umask=0x1,ldlat=3
events/mem-stores: event=0xd0,umask=0x82
events/ref-cycles: event=0x00,umask=0x03
events/topdown-fetch-bubbles: event=0x9c,umask=0x1
events/topdown-recovery-bubbles: event=0xd,umask=0x1,cmask=1
events/topdown-recovery-bubbles.scale: 4
events/topdown-slots-issued: event=0xe,umask=0x1
events/topdown-slots-retired: event=0xc2,umask=0x2
events/topdown-total-slots: event=0x3c,umask=0x0
events/topdown-total-slots.scale: 4
caps/branches: 32
caps/max_precise: 3
caps/pmu_name: skylake
freeze_on_smi: 1
END
)
else
	expect=$(cat <<'END'
format/cmask: config:24-31
format/edge: config:18
format/event: config:0-7,32-35
format/inv: config:23
format/umask: config:8-15
events/branch-instructions: event=0xc2
events/branch-misses: event=0xc3
events/cache-misses: event=0x64,umask=0x09
events/cache-references: event=0x60,umask=0xff
events/cpu-cycles: event=0x76
events/instructions: event=0xc0
events/stalled-cycles-frontend: event=0xa9
caps/branches: 16
caps/max_precise: 0
END
)
fi
got=$(list)
if [ "$got" = "$expect" ]; then
	echo "ok the cpu PMU's format/, events/ and caps/ as on the stock kernel"
	echo "$got"
	exit 0
fi
echo "not ok the cpu PMU's sysfs files differ from the stock kernel's (- stock, + this kernel):"
echo "$expect" > /tmp/pmu-sysfs.expect
echo "$got" > /tmp/pmu-sysfs.got
diff -u /tmp/pmu-sysfs.expect /tmp/pmu-sysfs.got
exit 1
