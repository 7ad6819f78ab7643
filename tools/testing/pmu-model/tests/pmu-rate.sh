# SPDX-License-Identifier: GPL-2.0
#
# Sourced (as /usr/bin/pmu-rate.sh) by the model's perf scripts that
# sample fast (pmu-mem.sh, pmu-c2c.sh, pmu-ibs-facts.sh): rate_lift
# lifts the sample rate limit (a debug kernel's earlier PMIs lower it)
# for the script's run, rate_restore puts the old limits back.
rate=/proc/sys/kernel/perf_event_max_sample_rate
pct=/proc/sys/kernel/perf_cpu_time_max_percent

rate_lift() {
	old_rate=$(cat $rate) old_pct=$(cat $pct)
	# the rate cannot be written while the time limit is off
	echo 100000 > $rate
	echo 0 > $pct
}

rate_restore() {
	echo "$old_pct" > $pct
	echo "$old_rate" > $rate
}
