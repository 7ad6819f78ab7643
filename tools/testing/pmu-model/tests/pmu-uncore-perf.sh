#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The AMD L3 and data-fabric PMUs through the guest's perf (pmu-model.rst,
# 0016), as the stock 6.12 kernel shows them on the EPYC-PMU model: perf
# stat -a of amd_l3 lookups (event=0x04,umask=0xff) and amd_df DRAM
# requests (event=0x07,umask=0x38) over "pmu-uncore sweep 0", 20 sweeps
# of 16 MiB on CPU 0, each line an L3 miss: both count at least its
# 20 x 262144 lines and at most two sweeps' worth more (the kernel's
# zeroing of the 16 MiB, exec, perf's own work); per CPU (-A) CPU 0 holds
# them; the same through perf's Zen names (l3_cache_accesses, l3_misses,
# dram_channel_data_controller_0); perf stat -C 1 sees another L3 domain
# (the tests' machine gives each vCPU its own socket; with CPU 1 in CPU
# 0's L3 domain and package, cpumask "0", -A shows CPU 0 alone and -C 1
# counts the sweep); perf record is refused. Prints ("#") the outputs
# and perf list's uncore events. Also the boot log's two amd_uncore
# lines (4 amd_df counters, 6 amd_l3 counters).
dir=$(dirname "$0")
fail=0
grep -q AuthenticAMD /proc/cpuinfo || { echo "ok # SKIP amd_l3 and amd_df are AMD's"; exit 0; }

ok() { # CONDITION-STATUS WHAT
	if [ "$1" = 0 ]; then echo "ok $2"; else echo "not ok $2"; fail=1; fi
}
run() {
	echo "# \$ $*"
	"$@" > /tmp/unc.out 2>&1
	st=$?
	sed 's/^/#   /' /tmp/unc.out
	return $st
}
# the count of EVENT in perf stat -x';' output (-A: of CPU)
val() { # EVENT [CPU]
	awk -F';' -v ev="$1" -v cpu="$2" '
		cpu == "" && $3 == ev { print $1; exit }
		cpu != "" && $1 == cpu && $4 == ev { print $2; exit }' /tmp/unc.out
}
in_range() { # WHAT VALUE LO HI
	[ -n "$2" ] && [ "$2" -ge "$3" ] 2>/dev/null && [ "$2" -le "$4" ]
	ok $? "$1: ${2:-none} in [$3, $4]"
}

# the boot log (the test runner clears dmesg: /dev/kmsg keeps it)
"$dir/pmu-uncore" kmsg | grep -E 'amd_uncore' > /tmp/unc.kmsg
sed 's/^/# boot log: /' /tmp/unc.kmsg
for l in "amd_uncore: 4 amd_df counters detected" \
	 "amd_uncore: 6 amd_l3 counters detected"; do
	grep -qF "$l" /tmp/unc.kmsg
	ok $? "boot log: $l"
done

n=$((20 * 262144))
hi=$((n + 2 * 262144))
l3=amd_l3/event=0x04,umask=0xff/
df=amd_df/event=0x07,umask=0x38/
echo "# $(perf --version)"
echo "# perf list | grep -E 'l3_|dram_channel':"
perf list 2>&1 | grep -E '^ +(l3_|dram_channel)' | sed 's/^/#   /'

run perf stat -a -x';' -e $l3,$df -- "$dir/pmu-uncore" sweep 0
ok $? "perf stat -a -e $l3,$df"
in_range "perf stat -a: $l3" "$(val $l3)" $n $hi
in_range "perf stat -a: $df" "$(val $df)" $n $hi

run perf stat -a -A -x';' -e $l3,$df -- "$dir/pmu-uncore" sweep 0
ok $? "perf stat -a -A -e $l3,$df"
in_range "perf stat -a -A: $l3 on CPU0" "$(val $l3 CPU0)" $n $hi
in_range "perf stat -a -A: $df on CPU0" "$(val $df CPU0)" $n $hi
shared=0
[ "$(cat /sys/bus/event_source/devices/amd_l3/cpumask)" = 0 ] && shared=1
if [ $shared = 0 ]; then
	in_range "perf stat -a -A: $l3 on CPU1 (its own L3)" "$(val $l3 CPU1)" 0 65536
	in_range "perf stat -a -A: $df on CPU1 (its own package)" "$(val $df CPU1)" 0 65536
else
	[ -z "$(val $l3 CPU1)" ]
	ok $? "perf stat -a -A: no CPU1 line (CPU 0 has its L3 domain)"
fi

run perf stat -a -x';' -e l3_cache_accesses,l3_misses,dram_channel_data_controller_0 -- "$dir/pmu-uncore" sweep 0
ok $? "perf stat -a -e l3_cache_accesses,l3_misses,dram_channel_data_controller_0"
for e in l3_cache_accesses l3_misses dram_channel_data_controller_0; do
	in_range "perf stat -a: $e" "$(val $e)" $n $hi
done

run perf stat -C 1 -x';' -e $l3 -- "$dir/pmu-uncore" sweep 0
ok $? "perf stat -C 1 -e $l3"
if [ $shared = 0 ]; then
	in_range "perf stat -C 1: $l3 (CPU 1's own L3)" "$(val $l3)" 0 65536
else
	in_range "perf stat -C 1: $l3 (CPU 0's L3 domain)" "$(val $l3)" $n $hi
fi

# the human-readable form, for the record
run perf stat -a -e $l3,$df -- "$dir/pmu-uncore" sweep 0

run perf record -a -o /tmp/unc.data -e $l3 -- "$dir/pmu-uncore" sweep 0
st=$?
grep -q "doesn't support sampling" /tmp/unc.out
ok $((! st || $?)) "perf record -e $l3 fails: the PMU does not sample"
exit $fail
