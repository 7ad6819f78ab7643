#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's Intel or AMD driver took the TCG PMU model with its
# hardware events (the boot log itself is checked on the host): Intel as
# a Skylake, AMD with the core counters and PerfMonV2.
fail=0
ev=/sys/bus/event_source/devices/cpu/events
caps=/sys/bus/event_source/devices/cpu/caps

ok() { echo "ok $*"; }
notok() { echo "not ok $*"; fail=1; }

events="cpu-cycles instructions branch-instructions branch-misses"
if grep -q GenuineIntel /proc/cpuinfo; then
	name=$(cat $caps/pmu_name 2>/dev/null)
	if [ "$name" = skylake ]; then ok "pmu_name = $name"
	else notok "pmu_name = '$name', expected skylake"; fi
	events="$events ref-cycles cache-references cache-misses"
else
	for f in perfctr_core perfmon_v2; do
		if grep -qw $f /proc/cpuinfo; then ok "cpu flag $f"
		else notok "no cpu flag $f"; fi
	done
fi
for e in $events; do
	if [ -f $ev/$e ]; then ok "event $e: $(cat $ev/$e)"
	else notok "no event $e"; fi
done
grep -H . $caps/* 2>/dev/null
exit $fail
