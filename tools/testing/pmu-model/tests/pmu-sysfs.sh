#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's Intel driver took the TCG PMU model for a Skylake with the
# hardware events (the boot log itself is checked on the host).
fail=0
caps=/sys/bus/event_source/devices/cpu/caps
name=$(cat $caps/pmu_name 2>/dev/null)
if [ "$name" = skylake ]; then
	echo "ok pmu_name = $name"
else
	echo "not ok pmu_name = '$name', expected skylake"
	fail=1
fi
for e in cpu-cycles instructions ref-cycles branch-instructions branch-misses \
	 cache-references cache-misses; do
	if [ -f /sys/bus/event_source/devices/cpu/events/$e ]; then
		echo "ok event $e: $(cat /sys/bus/event_source/devices/cpu/events/$e)"
	else
		echo "not ok no event $e"
		fail=1
	fi
done
grep -H . $caps/* 2>/dev/null
exit $fail
