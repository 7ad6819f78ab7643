#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the benchmark initramfs (scripts/bench/bench.sh; busybox sh).  Runs
# /perf-bench once and powers off.  Kernel command line knobs:
#   bench.reps=N      repetitions per metric (perf-bench -r, default 7)
#   bench.scale=F     iteration count scale (perf-bench -s, default 1)
#   bench.settle=MS   idle time before each repetition (perf-bench -z, default 20)
#   bench.only=a,b    run only these metrics (default all)
# Console protocol (parsed by scripts/bench/bench-report.py): perf-bench's
# @@BENCH* lines, framed by
#   @@BENCH-INIT kernel=<release> cpus=<n> uptime=<s>
#   @@BENCH-EXIT <perf-bench exit status>
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /tmp

reps=7 scale=1 settle=20 only=
for arg in $(cat /proc/cmdline); do
	case $arg in
	bench.reps=*)	reps=${arg#*=} ;;
	bench.scale=*)	scale=${arg#*=} ;;
	bench.settle=*)	settle=${arg#*=} ;;
	bench.only=*)	only=$(echo "${arg#*=}" | tr , ' ') ;;
	esac
done

echo "@@BENCH-INIT kernel=$(uname -r) cpus=$(grep -c '^processor' /proc/cpuinfo) uptime=$(cut -d' ' -f1 /proc/uptime)"
cd /tmp
# shellcheck disable=SC2086
/perf-bench -r "$reps" -s "$scale" -z "$settle" $only
echo "@@BENCH-EXIT $?"
dmesg | grep -E 'WARNING:|BUG:|Oops|general protection|Kernel panic|soft lockup|rcu: INFO' |
	head -n 5 | sed 's/^/@@BENCH-DMESG /'
sync
poweroff -f
