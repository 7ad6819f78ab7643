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
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$ROOT/build
ours=$1 stock=$2 base=$3
SEEDS=${DIFF_SEEDS:-1 2 3}
N=${DIFF_N:-3000}
PARANOID=${DIFF_PARANOID:--1 0 1 2 3}
out=$B/logs/diff
mkdir -p "$out"

cmd="cd /tmp; chmod 777 /tmp
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
initrd=$B/initramfs-diff.cpio.gz
"$ROOT/scripts/mkinitramfs.sh" -o "$initrd" -b "$base" -c "$cmd"

for k in ours stock; do
	kernel=$ours
	[ $k = stock ] && kernel=$stock
	SMP=2 QUIET=1 QEMU_TIMEOUT=${DIFF_TIMEOUT:-1800} "$ROOT/scripts/boot.sh" \
		"$kernel" "$initrd" cmd > "$out/$k.log" 2>&1 || true
	grep -a -q '@@DIFF-END' "$out/$k.log" ||
		{ echo "FAIL diff: the $k kernel did not finish (see $out/$k.log)"; exit 1; }
	# "<context> <seed> <index> <answer>" per attr
	tr -d '\r' < "$out/$k.log" | awk '
		/^@@DIFF-END/ { exit }
		/^@@DIFF / { ctx = $2; seed = $3; next }
		ctx != "" && /^[0-9]+ (open|leader)=/ { i = $1; $1 = ""; print ctx, seed, i, substr($0, 2) }
	' > "$out/$k.txt"
done

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
