#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# boot.sh KERNEL INITRD MODE [LOG]
#
# Boot KERNEL with INITRD under QEMU TCG.  MODE is the guest's ptest= mode:
#   run  run /tests/tests.list non-interactively; console to stdout and LOG
#   cmd  interactive console (-nographic; Ctrl-A X quits QEMU)
# Environment: SMP (CPUs, default 2), MEM (default 2G), QEMU_TIMEOUT
# (seconds; default 300 + sum of test timeouts for "run", none for "cmd"),
# APPEND (extra kernel command line), QEMU_EXTRA (extra QEMU arguments),
# QEMU (the QEMU binary, default qemu-system-x86_64), CPU (-cpu model,
# default max), ICOUNT (e.g. "shift=0,sleep=off": deterministic -icount
# with one TCG thread, a fixed seed and a virtual RTC; needed by the PMU
# model of tools/testing/pmu-model, see make pmu-test), QEMU_NODEFAULTS=1
# (-nodefaults: for a QEMU built without the default devices), BOOT_SLOTS
# (a directory: boots that share the host's cores, below), CONSOLE (the
# kernel's console, default ttyS0; arm64's virt machine: ttyAMA0).
set -euo pipefail

kernel=$1 initrd=$2 mode=$3 log=${4:-}
SMP=${SMP:-2}
MEM=${MEM:-2G}
[ -f "$kernel" ] || { echo "boot.sh: no kernel $kernel" >&2; exit 1; }
[ -f "$initrd" ] || { echo "boot.sh: no initramfs $initrd" >&2; exit 1; }

accel=(-accel tcg,thread=multi)
if [ -n "${ICOUNT:-}" ]; then
	accel=(-accel tcg,thread=single -icount "$ICOUNT" -seed 1
	       -rtc clock=vm,base=2024-01-01T00:00:00)
fi
qemu=("${QEMU:-qemu-system-x86_64}" "${accel[@]}" -cpu "${CPU:-max}" -m "$MEM"
      -smp "$SMP,sockets=$SMP,cores=1,threads=1"
      -kernel "$kernel" -initrd "$initrd"
      -append "console=${CONSOLE:-ttyS0} loglevel=7 panic=-1 ptest=$mode ${APPEND:-}"
      -no-reboot -nic none ${QEMU_EXTRA:-})

console=(-nographic)
if [ -n "${QEMU_NODEFAULTS:-}" ]; then
	qemu+=(-nodefaults)
	console=(-display none -serial mon:stdio)
fi

if [ "$mode" != run ]; then
	if [ -n "${QEMU_TIMEOUT:-}" ]; then
		exec timeout --foreground -k 10 "$QEMU_TIMEOUT" "${qemu[@]}" "${console[@]}"
	fi
	exec "${qemu[@]}" "${console[@]}"
fi

list=${initrd%.cpio}.list
if [ -z "${QEMU_TIMEOUT:-}" ]; then
	QEMU_TIMEOUT=300
	if [ -f "$list" ]; then
		QEMU_TIMEOUT=$(awk -v t=300 '!/^#/ && NF { t += ($3 ? $3 : 60) + 5 } END { print t }' "$list")
	fi
fi
log=${log:-/dev/null}
mkdir -p "$(dirname "$log")"

# BOOT_SLOTS=DIR (scripts/host/slots.sh): boots started side by side share the
# host's CPUs. An -icount boot runs its vCPUs on one TCG thread and takes
# one slot; an MTTCG boot takes one per vCPU. A boot waits until it holds
# all it needs, so that no guest's timing suffers from a host with more
# busy threads than CPUs; QEMU inherits the locks, which go with it.
. "$(dirname "$0")/../host/slots.sh"
if [ -n "${ICOUNT:-}" ]; then slots_take 1; else slots_take "$SMP"; fi

echo "  BOOT    ${kernel##*/build/} smp=$SMP timeout=${QEMU_TIMEOUT}s log=$log"
start=$(date +%s)
set +e
if [ -n "${ICOUNT:-}" ] && [ "$log" != /dev/null ]; then
	# Deterministic run: the console goes to a file, which never pushes
	# back on the guest's UART the way a busy pipe can (the host's load
	# would then show in the guest's timing); shown once QEMU is done.
	rm -f "$log"
	timeout -k 10 "$QEMU_TIMEOUT" "${qemu[@]}" -display none -monitor none \
		-serial "file:$log" </dev/null
	rc=$?
	[ -n "${QUIET:-}" ] || cat "$log"
else
	timeout -k 10 "$QEMU_TIMEOUT" "${qemu[@]}" -display none -monitor none \
		-serial stdio </dev/null | tee "$log" | if [ -n "${QUIET:-}" ]; then cat >/dev/null; else cat; fi
	rc=${PIPESTATUS[0]}
fi
set -e
# the host CPU time QEMU used (this shell's children), beside the wall
# time: what is left of the host's cores for other work while it runs
# (times in this shell: a subshell's count of its children starts at 0)
tfile=$(mktemp)
times > "$tfile"
cpu=$(awk 'NR == 2 { n = 0; for (i = 1; i <= 2; i++) {
	split($i, a, /[ms]/); n += a[1] * 60 + a[2] } printf "%d", n }' "$tfile")
rm -f "$tfile"
echo "  BOOT    smp=$SMP finished in $(( $(date +%s) - start ))s, host CPU ${cpu}s (qemu rc=$rc)"
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "  BOOT    smp=$SMP: TIMED OUT after ${QEMU_TIMEOUT}s"
	[ "$log" = /dev/null ] || echo "@@HOST-TIMEOUT ${QEMU_TIMEOUT}s" >> "$log"
fi
exit 0
