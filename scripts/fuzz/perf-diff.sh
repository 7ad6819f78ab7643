#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-diff.sh OURS-KERNEL STOCK-KERNEL BASE-INITRD: make diff.
#
# The differential check: perf_fuzz diff (random attrs, the same on
# every kernel, see tools/testing/selftests/perf_events/perf_fuzz.c) for
# each seed of DIFF_SEEDS (default "1 2 3"), DIFF_N attrs each (default
# 3000), as root and as uid 1000 at each perf_event_paranoid of
# DIFF_PARANOID (default "-1 0 1 2 3"), on both kernels in the same
# QEMU. Prints the table of lines that differ (context, seed, attr
# index, ours, stock), then "N differences"; exit 1 if any.
# "perf_fuzz show SEED I" prints attr I (it runs on the host too).
# DIFF_CPU=Skylake-PMU|Icelake-PMU|EPYC-PMU|...: both kernels boot on the
# TCG PMU model (build/pmu-qemu) with that CPU, so that the attrs include
# the hardware PMUs' types and formats (perf_fuzz draws from sysfs);
# logs build/logs/diff-<cpu>/. The PMUs the two guests list must match,
# or the draws would differ: that is checked first. A kernel report in
# either guest's log fails the run.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
ours=$1 stock=$2 base=$3
SEEDS=${DIFF_SEEDS:-1 2 3}
N=${DIFF_N:-3000}
PARANOID=${DIFF_PARANOID:--1 0 1 2 3}
DIFF_CPU=${DIFF_CPU:-}
out=$B/logs/diff${DIFF_CPU:+-$(echo "$DIFF_CPU" | tr -c 'A-Za-z0-9\n' - | tr A-Z a-z)}
mkdir -p "$out"
model=()
if [ -n "$DIFF_CPU" ]; then
	model=(CPU="$DIFF_CPU" QEMU="$B/pmu-qemu/qemu-system-x86_64"
	       QEMU_NODEFAULTS=1
	       QEMU_EXTRA="-L /usr/share/seabios -L /usr/share/qemu")
	[ -x "$B/pmu-qemu/qemu-system-x86_64" ] ||
		{ echo "perf-diff.sh: no build/pmu-qemu (make pmu-qemu)" >&2; exit 1; }
fi

cmd="cd /tmp; chmod 777 /tmp
echo @@DIFF-PMUS \$(ls /sys/bus/event_source/devices | tr '\\n' ' ')
for s in $SEEDS; do
	echo 2 > /proc/sys/kernel/perf_event_paranoid
	echo @@DIFF root \$s
	/tests/perf_fuzz diff \$s $N
	for p in $PARANOID; do
		echo \$p > /proc/sys/kernel/perf_event_paranoid
		echo @@DIFF user-p\$p \$s
		runas 1000 1000 /tests/perf_fuzz diff \$s $N
	done
done
echo @@DIFF-END"
REPORT_RE='WARNING:|BUG:|kernel BUG at|KASAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|soft lockup|hard LOCKUP|Oops|general protection fault|refcount_t:|list_add corruption|list_del corruption|UBSAN|sleeping function called from invalid context|Kernel panic'
initrd=$B/initramfs-diff$$.cpio
trap 'rm -f "$initrd" "${initrd%.cpio}.list"' EXIT
"$ROOT/scripts/guest/mkinitramfs.sh" -o "$initrd" -b "$base" -c "$cmd"

for k in ours stock; do
	kernel=$ours
	[ $k = stock ] && kernel=$stock
	env ${model[@]+"${model[@]}"} SMP=2 QUIET=1 QEMU_TIMEOUT=${DIFF_TIMEOUT:-1800} "$ROOT/scripts/guest/boot.sh" \
		"$kernel" "$initrd" cmd > "$out/$k.log" 2>&1 || true
	grep -a -q '@@DIFF-END' "$out/$k.log" ||
		{ echo "FAIL diff: the $k kernel did not finish (see $out/$k.log)"; exit 1; }
	grep -a -m1 '^@@DIFF-PMUS' "$out/$k.log" | tr -d '\r' > "$out/$k.pmus"
	# a kernel report fails the run: an oopsed guest answers nothing
	if grep -a -E "$REPORT_RE" "$out/$k.log" | grep -v 'RCU lockdep checking' > /dev/null; then
		echo "FAIL diff: kernel report on the $k kernel (see $out/$k.log):"
		grep -a -E -m1 -A20 "$REPORT_RE" "$out/$k.log"
		exit 1
	fi
	# "<context> <seed> <index> <answer>" per attr
	tr -d '\r' < "$out/$k.log" | awk '
		/^@@DIFF-END/ { exit }
		/^@@DIFF / { ctx = $2; seed = $3; next }
		ctx != "" && /^[0-9]+ (open|leader)=/ { i = $1; $1 = ""; print ctx, seed, i, substr($0, 2) }
	' > "$out/$k.txt"
done

if ! cmp -s "$out/ours.pmus" "$out/stock.pmus"; then
	echo "FAIL diff: the kernels list different PMUs (the draws would differ):"
	diff "$out/ours.pmus" "$out/stock.pmus" || true
	exit 1
fi
python3 - "$out/ours.txt" "$out/stock.txt" <<'PY'
import sys
def load(p):
    d = {}
    for line in open(p):
        ctx, seed, i, ans = line.rstrip('\n').split(' ', 3)
        d[(ctx, seed, int(i))] = ans
    return d
ours, stock = load(sys.argv[1]), load(sys.argv[2])
keys = sorted(set(ours) | set(stock), key=lambda k: (k[1], k[0], k[2]))
diffs = [k for k in keys if ours.get(k) != stock.get(k)]
print("  DIFF    %d answers compared" % len(keys))
if diffs:
    print("%-10s %-5s %-6s | %-40s | %s" % ("context", "seed", "attr", "ours", "stock"))
for k in diffs:
    print("%-10s %-5s %-6d | %-40s | %s" % (k[0], k[1], k[2], ours.get(k, "-"), stock.get(k, "-")))
print("%d differences" % len(diffs))
sys.exit(1 if diffs else 0)
PY
