#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the test initramfs (busybox sh).  Mode from the kernel command
# line:
#   ptest=run  run every test of /tests/tests.list, print @@ markers, power off
#              (with ptest_only=a,b only the tests a and b of it)
#   ptest=cmd  run /etc/ptest-cmd if present (then power off), otherwise a
#              perf stat demo followed by an interactive shell on the console
#
# Console protocol (parsed by scripts/test/parse-results.py):
#   @@INIT uptime=<s> cpus=<n>
#   @@BEGIN <name>
#   ...test output (kselftest TAP)...
#   @@RESULT <PASS|FAIL> <name> <reason>
#   @@DMESG <line>            (dmesg excerpt, only on a kernel report)
#   @@DONE
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-vt100}
umask 022

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /tmp
if [ -d /sys/kernel/debug ]; then
	mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
fi
if [ -d /sys/kernel/tracing ]; then
	mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
fi
# Debian's kernels boot with perf_event_paranoid 3 (unprivileged users
# get no perf at all); the tests run at 6.12's default of 2, as a Debian
# user who wants perf sets it. The boot value is kept for the test of it.
cat /proc/sys/kernel/perf_event_paranoid > /run-paranoid 2>/dev/null
echo 2 > /proc/sys/kernel/perf_event_paranoid 2>/dev/null
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up 2>/dev/null
hostname ptest

mode=
only=
for arg in $(cat /proc/cmdline); do
	case $arg in
	ptest=*) mode=${arg#ptest=} ;;
	ptest_only=*) only=$(echo "${arg#ptest_only=}" | tr , ' ') ;;
	esac
done

# Seconds since boot, in hundredths.
now_cs() {
	read -r up _ < /proc/uptime
	echo "${up%.*}${up#*.}" | sed 's/^0*//;s/^$/0/'
}

cpus=$(grep -c '^processor' /proc/cpuinfo)
echo "@@INIT uptime=$(cut -d' ' -f1 /proc/uptime) cpus=$cpus kernel=$(uname -r)"

# Kernel log lines that fail a test.
REPORT_RE='WARNING:|BUG:|kernel BUG at|KASAN|lockdep|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|rcu_sched self-detected stall|rcu: INFO|soft lockup|hard LOCKUP|Oops|general protection fault|refcount_t:|list_add corruption|list_del corruption|UBSAN|sleeping function called from invalid context|blocked for more than|Kernel panic'
# Boot-time messages that merely mention a pattern.
BENIGN_RE='RCU lockdep checking is enabled'

run_one() {
	bin=$1 who=$2 to=${3:-60}
	# Result name: the binary ("/" -> ":"), plus ":user" when unprivileged.
	name=$(echo "$bin" | tr / :)
	[ "$who" = user ] && name=$name:user

	case $who in
	root) pre= ;;
	user) pre="runas 1000 1000" ;;
	*)
		echo "@@BEGIN $name"
		echo "@@RESULT FAIL $name bad-tests.list-entry:'$who'"
		return ;;
	esac
	if [ ! -x "/tests/$bin" ]; then
		echo "@@BEGIN $name"
		echo "@@RESULT FAIL $name missing-binary"
		return
	fi

	dmesg -c >/dev/null
	rm -f /tmp/.expect-report
	echo "@@BEGIN $name"
	t0=$(now_cs)
	# New session => own process group whose id is $!.
	( cd /tmp && exec setsid timeout -s KILL "$to" $pre "/tests/$bin" ) </dev/null &
	pid=$!
	wait $pid
	rc=$?
	t1=$(now_cs)
	# Kill whatever the test left behind in its process group.
	kill -KILL -- "-$pid" 2>/dev/null
	kmsg=$(dmesg -c)

	el=$(( (t1 - t0) / 100 ))
	if [ $rc -eq 0 ]; then
		res=PASS reason="exit=0,${el}s"
	elif [ $rc -eq 4 ]; then
		res=PASS reason="skip(exit=4),${el}s"
	elif [ $rc -eq 137 ] && [ $(( t1 - t0 )) -ge $(( to * 100 - 100 )) ]; then
		res=FAIL reason="timeout-after-${to}s"
	elif [ $rc -gt 128 ]; then
		res=FAIL reason="killed-by-signal-$((rc - 128)),${el}s"
	else
		res=FAIL reason="exit=$rc,${el}s"
	fi
	# a test that provokes a report on purpose names it in this file (and
	# with @@EXPECT-REPORT on the console for the host's parser)
	expect=$(cat /tmp/.expect-report 2>/dev/null)
	bad=$(echo "$kmsg" | grep -E "$REPORT_RE" | grep -v -E "$BENIGN_RE" |
	      { if [ -n "$expect" ]; then grep -v -F "$expect"; else cat; fi; } |
	      head -n 1 | sed 's/^\[[ 0-9.]*\] *//' | sed 's/[^ -~]//g' | cut -c1-120)
	if [ -n "$bad" ]; then
		res=FAIL reason="kernel report: $bad ($reason)"
	fi
	echo "@@RESULT $res $name $reason"
	if [ -n "$bad" ]; then
		echo "$kmsg" | head -n 200 | sed 's/^/@@DMESG /'
	fi
}

run_tests() {
	list=/tests/tests.list
	[ -f $list ] || { echo "@@ERROR no $list"; return; }
	# Read the list up front: tests must not inherit it as stdin.
	grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' $list > /tmp/.tests.list
	# ptest_only=a,b: only those of the list (the others are not reported)
	if [ -n "$only" ]; then
		awk -v only=" $only " 'index(only, " " $1 " ")' /tmp/.tests.list > /tmp/.tests.only
		mv /tmp/.tests.only /tmp/.tests.list
	fi
	n=0
	while read -r bin who to only _; do
		# cpus=N: the test runs only in the boot with N CPUs
		[ -z "$only" ] || [ "$only" = "cpus=$cpus" ] || continue
		n=$((n + 1))
		eval "t_$n=\"\$bin \$who \$to\""
	done < /tmp/.tests.list
	i=1
	while [ $i -le $n ]; do
		eval "run_one \$t_$i"
		i=$((i + 1))
	done
}

case $mode in
run)
	run_tests
	sync
	echo "@@DONE"
	;;
*)
	if [ -f /etc/ptest-cmd ]; then
		echo "@@CMD $(cat /etc/ptest-cmd)"
		cd /root
		sh /etc/ptest-cmd </dev/console
		echo "@@CMD-EXIT $?"
	else
		echo
		echo "== perf stat demo: $(perf --version 2>&1)"
		(cd /root && perf stat -e task-clock,page-faults,context-switches,cpu-migrations \
			-- sh -c 'ls -R /usr /lib >/dev/null')
		echo
		echo "== tests: /tests/tests.list; run one with e.g. /tests/<name>"
		echo "== user 'tester' (uid 1000): runas 1000 1000 <cmd>; exit the shell to power off"
		cd /root
		setsid cttyhack sh -l
	fi
	;;
esac
sync
poweroff -f
