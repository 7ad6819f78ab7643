#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf mem on the Skylake model (PEBS, pmu-model.rst): "pmu-pebs sweep"
# loads from and then stores to 1 MiB, a line at a time, four times
# each. perf mem record -t load samples mem-loads with ldlat=30 (every
# 200th, user space only): the model's L1D and L2 hits (4 and 14 cycles) are under the
# threshold; its L3 hits (42) and memory loads (200: the first sweep,
# "L3 miss") are above. -t store samples mem-stores: the sweep's stores
# all miss the L1D (1 MiB, a line each). perf mem report must put the
# samples on the loop's access (pebs_ld_insn / pebs_st_insn) with those
# sources, as on the stock kernel. The sample rate limit is lifted
# meanwhile (a debug kernel's earlier PMIs lower it).
dir=$(dirname "$0")
fail=0
grep -q GenuineIntel /proc/cpuinfo || { echo "ok # SKIP PEBS is Intel's"; exit 0; }
. /usr/bin/pmu-rate.sh
rate_lift

# has REPORT a line of symbol SYM with memory access ACCESS?
has() {
	if grep -E "$2 .*\[\.\] $3" "$1" > /dev/null; then
		echo "ok $4: $3 with $2"
	else
		echo "not ok $4: no line of $3 with $2"
		fail=1
	fi
}

for t in load store; do
	perf mem -t $t record -c 200 --all-user -o /tmp/mem.$t -- \
		"$dir/pmu-pebs" sweep \
		> /tmp/mem.$t.out 2>&1 || { cat /tmp/mem.$t.out; fail=1; }
	perf mem -t $t report -i /tmp/mem.$t --stdio --sort=mem,sym \
		> /tmp/mem.$t.rep 2>/dev/null || fail=1
	grep -v '^#' /tmp/mem.$t.rep | grep -v '^$' | head -8 | sed 's/^/# /'
done
has /tmp/mem.load.rep "L3 (or L3 )?hit" pebs_ld_insn "perf mem -t load"
has /tmp/mem.load.rep "L3 miss" pebs_ld_insn "perf mem -t load"
has /tmp/mem.store.rep "L1 (or N/A )?miss" pebs_st_insn "perf mem -t store"
rate_restore
exit $fail
