#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pmu-watchdog.sh: the NMI hard-lockup detector runs on a perf event.
#
# The model boots with nmi_watchdog=0 (the other tests count on every
# counter); this test turns the detector on, as it is by default:
# - /proc/sys/kernel/nmi_watchdog reads 1, and the watchdog says it
#   "Permanently consumes one hw-PMU counter";
# - the counter is taken: a group of cycles events that fits the PMU with
#   the watchdog off is "<not counted>" with it on, and perf stat prints
#   its hint to disable the NMI watchdog;
# - a module that spins with interrupts off for 6 s (watchdog_thresh 1,
#   so an NMI every ~1.3 s) gets "Watchdog detected hard LOCKUP" on its
#   CPU: only the counter's NMI can see it.
# Then the watchdog is turned off again.
fails=0
ok() { echo "ok $*"; }
nok() { echo "not ok $*"; fails=$((fails + 1)); }
W=/proc/sys/kernel/nmi_watchdog
T=/proc/sys/kernel/watchdog_thresh

# the largest group of cycles events the PMU counts (at most 12)
group() { # N: "{cycles,...}" of N events
	g=cycles i=1
	while [ $i -lt "$1" ]; do g="$g,cycles"; i=$((i + 1)); done
	echo "{$g}"
}
counted() { # N: is a group of N counted?
	! perf stat -e "$(group "$1")" true 2>&1 | grep -q "not counted"
}
n=1
while [ $n -lt 12 ] && counted $((n + 1)); do n=$((n + 1)); done
echo "a group of up to $n cycles events is counted with the watchdog off"

echo 1 > $W
[ "$(cat $W)" = 1 ] && ok "nmi_watchdog reads 1" || nok "nmi_watchdog reads 1"
dmesg | grep -q "Permanently consumes one hw-PMU counter" &&
	ok "the watchdog took a counter" || nok "the watchdog took a counter"
out=$(perf stat -e "$(group $n)" true 2>&1)
echo "$out" | grep -q "not counted" &&
	ok "the same group is not counted with the watchdog on" ||
	nok "the same group is not counted with the watchdog on"
echo "$out" | grep -q "disabling the NMI watchdog" &&
	ok "perf stat names the NMI watchdog" ||
	{ echo "$out"; nok "perf stat names the NMI watchdog"; }

echo 1 > $T
# the report this provokes: for the guest's init and the host's parser
echo "hard LOCKUP" > /tmp/.expect-report
echo "@@EXPECT-REPORT hard LOCKUP"
insmod /tests/modules/pmu_lockup.ko seconds=6
dmesg | grep -q "Watchdog detected hard LOCKUP on cpu" &&
	ok "the watchdog detected the hard lockup" ||
	nok "the watchdog detected the hard lockup"
rmmod pmu_lockup
echo 10 > $T
echo 0 > $W
[ "$(cat $W)" = 0 ] && ok "nmi_watchdog off again" || nok "nmi_watchdog off again"
counted $n && ok "the group is counted again" || nok "the group is counted again"
[ $fails = 0 ]
