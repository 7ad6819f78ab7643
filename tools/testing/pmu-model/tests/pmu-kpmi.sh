#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Kernel-mode sampling with a short period: perf record -e instructions:k
# -c 1009 -a over pmu-sys (10000 getppid calls). The counters must be
# off while the PMI handler runs, as in 6.12: otherwise a kernel event
# counts the handler's own instructions, wraps again before the NMI
# returns, and every sample lands on the instruction the first PMI hit,
# over and over (an NMI storm at one IP). Expects many samples, spread
# over many instructions, none holding more than a fifth of them.
dir=$(dirname "$0")
data=/tmp/pmu-kpmi.data
fail=0

perf record -q -e instructions:k -c 1009 -a -o $data -- "$dir/pmu-sys" \
	> /dev/null 2>&1 || { echo "not ok perf record"; exit 1; }
perf script -i $data -F ip 2>/dev/null > $data.ips
n=$(wc -l < $data.ips)
distinct=$(sort -u $data.ips | wc -l)
top=$(sort $data.ips | uniq -c | sort -rn | awk 'NR == 1 { print $1 }')
echo "# $n samples, $distinct distinct IPs, the most common one ${top:-0} times"
if [ "$n" -ge 1000 ]; then
	echo "ok samples: $n"
else
	echo "not ok samples: $n, expected at least 1000"
	fail=1
fi
if [ "$distinct" -ge 50 ] && [ $((${top:-0} * 5)) -le "$n" ]; then
	echo "ok spread: $distinct IPs, the top one ${top:-0} of $n"
else
	echo "not ok spread: $distinct IPs, the top one ${top:-0} of $n"
	fail=1
fi
rm -f $data $data.ips
exit $fail
