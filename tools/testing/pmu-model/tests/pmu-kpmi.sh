#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Kernel-mode sampling with a short period: perf record -e instructions:k
# -c 1009 -a over pmu-sys (10000 getppid calls). The counters must be
# off while the PMI handler runs, as in 6.12: otherwise a kernel event
# counts the handler's own instructions, wraps again before the NMI
# returns, and every sample lands on the instruction the first PMI hit,
# over and over (an NMI storm at one IP: 32 samples, all on one
# instruction of native_sched_clock, before the fix). Expects at least
# 100 samples on at least 20 instructions, none holding more than a
# quarter of them. A lowered perf_event_max_sample_rate must come with
# the kernel's "interrupt took too long" message.
dir=$(dirname "$0")
data=/tmp/pmu-kpmi.data
rate=/proc/sys/kernel/perf_event_max_sample_rate
fail=0

# earlier tests' long PMIs may have lowered the rate: start from the default
old_rate=$(cat $rate)
echo 100000 > $rate
msg='perf: interrupt took too long ([0-9]* > [0-9]*), lowering kernel.perf_event_max_sample_rate to [0-9]*$'
before=$(dmesg | grep -c "$msg")
perf record -q -e instructions:k -c 1009 -a -o $data -- "$dir/pmu-sys" \
	> /dev/null 2>&1 || { echo "not ok perf record"; echo "$old_rate" > $rate; exit 1; }
new_rate=$(cat $rate)
echo "$old_rate" > $rate
# a lowered rate is announced, as 6.12 does, with the average and the limit
after=$(dmesg | grep -c "$msg")
if [ "$new_rate" -lt 100000 ] && [ "$after" -le "$before" ]; then
	echo "not ok the rate went down to $new_rate without the kernel saying so"
	fail=1
else
	echo "ok rate $new_rate, $((after - before)) messages"
fi
perf script -i $data -F ip 2>/dev/null > $data.ips
n=$(wc -l < $data.ips)
distinct=$(sort -u $data.ips | wc -l)
top=$(sort $data.ips | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
echo "# $n samples, $distinct distinct IPs, the most common one ${top:-0} times"
# how many depends on the rate the kernel lowers itself to (perf:
# interrupt took too long): stock took 292 to 1269 in the same boot
# config; the storm gave 32
if [ "$n" -ge 100 ]; then
	echo "ok samples: $n"
else
	echo "not ok samples: $n, expected at least 100"
	fail=1
fi
# The storm is one IP; a kernel that throttles hard clusters its samples
# after each tick's restart (ours: 35 IPs of 600 in the full suite, where
# earlier tests left the rate low; stock: 283 of 292), which is not this
# bug.
if [ "$distinct" -ge 20 ] && [ $((${top:-0} * 4)) -le "$n" ]; then
	echo "ok spread: $distinct IPs, the top one ${top:-0} of $n"
else
	echo "not ok spread: $distinct IPs, the top one ${top:-0} of $n"
	fail=1
fi
rm -f $data $data.ips
exit $fail
