#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's "perf test" cases whose sampling events are counted by the
# kernel one hit at a time, after the sample rate limit has come down.
#
# On a machine with a PMU, slow PMIs (a debug kernel, or perf test's own
# "Setup struct perf_event_attr" before them) lower
# kernel.perf_event_max_sample_rate, here to 1000 (4 samples a tick at
# HZ 250). That limit throttles PMU interrupts, not an event that the
# kernel counts (a breakpoint, a tracepoint) and that overflows once per
# hit: every hit still gives its overflow, so
# - "Breakpoint overflow sampling" gets one SIGIO per 100 executions,
# - "Read backward ring buffer" one sample per prctl(),
# - "Sigtrap" one SIGTRAP per access to the watched variable,
# and each is Ok, as on a machine without a PMU.
fails=0
R=/proc/sys/kernel/perf_event_max_sample_rate
P=/proc/sys/kernel/perf_cpu_time_max_percent
old_rate=$(cat $R) old_pct=$(cat $P)

# the rate cannot be written while the CPU time limit is off
case $old_pct in 0|100) echo 25 > $P ;; esac
echo 1000 > $R || { echo "not ok perf_event_max_sample_rate = 1000"; exit 1; }
echo "perf_event_max_sample_rate $(cat $R) (was $old_rate)"

for t in "Breakpoint overflow sampling" "Read backward ring buffer" \
	 "Sigtrap"; do
	res=$(perf test "$t" 2>&1 | grep -E "^ *[0-9]+: $t *:" | tail -1)
	case $res in
	*": Ok")
		echo "ok $res" ;;
	*)
		# again, verbose: what it checked
		perf test -v "$t" 2>&1 | tail -15
		echo "not ok $t: ${res:-no result}"
		fails=$((fails + 1)) ;;
	esac
done

echo "$old_pct" > $P
case $old_pct in 0|100) ;; *) echo "$old_rate" > $R ;; esac
[ $fails -eq 0 ]
