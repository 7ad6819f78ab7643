#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf c2c on the Skylake model (PEBS, pmu-model.rst): "pmu-pebs sweep"
# loads from 1 MiB a line at a time four times, then stores to it four
# times. perf c2c record samples mem-loads with ldlat=30 and mem-stores,
# every 200th, in user space, with the data address, source and weight;
# perf c2c report --stats sorts each sample by its data source. The
# model makes every number exact, the same on the stock kernel and ours:
# the first load sweep misses the L3 ("Loads - Miss": Skylake's source
# has no DRAM detail) and the other three hit it, all above the
# threshold, and with the program's cold start-up loads they give 328
# load samples, 82 + 246; every sweep store misses the L1D (1 MiB, a
# line each), 328 samples, and the program's other stores hit it (9).
# One node, one task: no HITM, no remote access, no shared line. perf
# c2c report needs the node topology (CONFIG_NUMA). The sample rate
# limit is lifted meanwhile.
dir=$(dirname "$0")
fail=0
grep -q GenuineIntel /proc/cpuinfo || { echo "ok # SKIP PEBS is Intel's"; exit 0; }
. /usr/bin/pmu-rate.sh
rate_lift

perf c2c record -u -- -c 200 -o /tmp/c2c.data "$dir/pmu-pebs" sweep \
	> /tmp/c2c.out 2>&1 || fail=1
sed 's/^/# /' /tmp/c2c.out
perf c2c report -i /tmp/c2c.data --stats > /tmp/c2c.stats 2>&1 || fail=1
sed 's/^/# /' /tmp/c2c.stats

# the count of report line NAME must be WANT
want() {
	got=$(sed -n "s/^ *$1 *: *\([0-9][0-9]*\) *$/\1/p" /tmp/c2c.stats |
	      head -1)
	if [ "$got" = "$2" ]; then
		echo "ok perf c2c: $1 $2"
	else
		echo "not ok perf c2c: $1 ${got:-missing}, want $2"
		fail=1
	fi
}
want "Total records" 665
want "Load Operations" 328
want "Loads - Miss" 82
want "Load L1D hit" 0
want "Load L2D hit" 0
want "Load LLC hit" 246
want "Load Local HITM" 0
want "Load Local DRAM" 0
want "Store Operations" 337
want "Store L1D Hit" 9
want "Store L1D Miss" 328
want "Unable to parse data source" 0
want "Total Shared Cache Lines" 0
rate_restore
exit $fail
