#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The IBS driver as the stock 6.12 kernel shows it on the EPYC-PMU model
# (pmu-model.rst, 0015): checks the boot log's IBS lines, every file of
# ibs_op/ and ibs_fetch/ with its contents, and that perf record puts
# ibs_op, ibs_fetch and cycles:p/pp samples on pmu-loop's loop (cycles:ppp
# refused); prints ("#" lines) the rest for comparison: perf list, the
# facts of "pmu-ibs facts" (open errors, programmed MSRs, sample dumps,
# data sources), perf report, script, evlist, perf mem record/report.
dir=$(dirname "$0")
d=/sys/bus/event_source/devices
fail=0
grep -q AuthenticAMD /proc/cpuinfo || { echo "ok # SKIP IBS is AMD's"; exit 0; }

ok() { # CONDITION-STATUS WHAT
	if [ "$1" = 0 ]; then echo "ok $2"; else echo "not ok $2"; fail=1; fi
}

# the boot log (the test runner clears dmesg: /dev/kmsg keeps it)
"$dir/pmu-ibs" kmsg | grep -i -E 'ibs|LVT offset|eilvt|Firmware Bug' > /tmp/ibs.kmsg
echo "# boot log:"
sed 's/^/#   /' /tmp/ibs.kmsg
for l in "LVT offset 0 assigned for vector 0x400" \
	 "perf: AMD IBS detected (0x000000df)"; do
	grep -qF "$l" /tmp/ibs.kmsg
	ok $? "boot log: $l"
done

list() {
	for p in ibs_fetch ibs_op; do
		echo "$p: $(ls $d/$p/ | tr '\n' ' ')"
		for s in caps format power; do
			echo "$p/$s: $(ls $d/$p/$s/ | tr '\n' ' ')"
		done
		(cd $d/$p && grep -r . . 2>/dev/null | sort | sed "s|^\./|$p/|")
	done
}
expect=$(cat <<'END'
ibs_fetch: caps format perf_event_mux_interval_ms power subsystem type uevent 
ibs_fetch/caps: 
ibs_fetch/format: rand_en 
ibs_fetch/power: autosuspend_delay_ms control runtime_active_time runtime_status runtime_suspended_time 
ibs_fetch/format/rand_en:config:57
ibs_fetch/perf_event_mux_interval_ms:4
ibs_fetch/power/control:auto
ibs_fetch/power/runtime_active_time:0
ibs_fetch/power/runtime_status:unsupported
ibs_fetch/power/runtime_suspended_time:0
ibs_fetch/type:11
ibs_op: caps format perf_event_mux_interval_ms power subsystem type uevent 
ibs_op/caps: 
ibs_op/format: cnt_ctl 
ibs_op/power: autosuspend_delay_ms control runtime_active_time runtime_status runtime_suspended_time 
ibs_op/format/cnt_ctl:config:19
ibs_op/perf_event_mux_interval_ms:4
ibs_op/power/control:auto
ibs_op/power/runtime_active_time:0
ibs_op/power/runtime_status:unsupported
ibs_op/power/runtime_suspended_time:0
ibs_op/type:12
END
)
got=$(list)
echo "$got" | sed 's/^/#   /'
if [ "$got" = "$expect" ]; then
	ok 0 "ibs_op/ and ibs_fetch/: every file and its contents as on the stock kernel"
else
	ok 1 "ibs_op/ and ibs_fetch/ differ from the stock kernel:"
	echo "$expect" > /tmp/ibs.want
	echo "$got" > /tmp/ibs.got
	diff -u /tmp/ibs.want /tmp/ibs.got | sed 's/^/#   /'
fi
echo "# pmus: $(ls $d | tr '\n' ' ')"
echo "# cpuinfo flags: $(grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -E 'ibs|extapic|perfctr' | tr '\n' ' ')"
echo "# $(perf --version)"
echo "# perf list | grep -i ibs:"
perf list 2>&1 | grep -i ibs | sed 's/^/#   /'

"$dir/pmu-ibs" facts

run() {
	echo "# \$ $*"
	"$@" > /tmp/ibs.out 2>&1
	st=$?
	sed 's/^/#   /' /tmp/ibs.out
	return $st
}
# The sample rate limit lifted for the records below: earlier tests' long
# PMIs may have lowered it (to 2500 in a full run on the KASAN kernel),
# and IBS counts the kernel's ops too (exec's, the NMI's), so a lowered
# limit throttles the event before pmu-loop's 200000 instructions run
. /usr/bin/pmu-rate.sh
rate_lift

# perf record's samples on pmu-loop's loop (and how many of them)
loop_samples() { # DATA EVENT
	perf report -i "$1" --stdio --sort sym 2>/dev/null > /tmp/ibs.rep
	n=$(perf script -i "$1" -F ip,sym 2>/dev/null | grep -c -E 'pmu_loop_(dec|jnz)')
	[ "$n" -gt 0 ]
	ok $? "perf record -e $2 -c 100000 pmu-loop: $n samples on the loop"
}
run perf record -e ibs_op// -c 100000 -o /tmp/ibs.op -- "$dir/pmu-loop"
run perf report -i /tmp/ibs.op --stdio
loop_samples /tmp/ibs.op ibs_op//
run perf script -i /tmp/ibs.op -F comm,tid,ip,sym
run sh -c "perf report -D -i /tmp/ibs.op | grep -A14 -m3 PERF_RECORD_SAMPLE"
run perf evlist -v -i /tmp/ibs.op
run perf record -e ibs_op/cnt_ctl=1/ -c 100000 -o /tmp/ibs.op1 -- "$dir/pmu-loop"
run perf report -i /tmp/ibs.op1 --stdio
run perf record -e ibs_fetch// -c 100000 -o /tmp/ibs.fetch -- "$dir/pmu-loop"
run perf report -i /tmp/ibs.fetch --stdio
loop_samples /tmp/ibs.fetch ibs_fetch//
run sh -c "perf report -D -i /tmp/ibs.fetch | grep -A10 -m2 PERF_RECORD_SAMPLE"
run perf record -a -e ibs_op// -c 100000 -o /tmp/ibs.opa -- "$dir/pmu-loop"
run perf report -i /tmp/ibs.opa --stdio --sort comm,sym
run perf stat -e ibs_op// -- "$dir/pmu-loop"
for ev in cycles:p cycles:pp; do
	run perf record -e $ev -c 100000 -o /tmp/ibs.cyc -- "$dir/pmu-loop"
	run perf evlist -v -i /tmp/ibs.cyc
	run perf report -i /tmp/ibs.cyc --stdio
	loop_samples /tmp/ibs.cyc $ev
done
run perf record -e cycles:ppp -c 100000 -o /tmp/ibs.cyc -- "$dir/pmu-loop"
ok $((! $?)) "perf record -e cycles:ppp fails"
run perf mem record -o /tmp/ibs.mem -- "$dir/pmu-ibs" sweep
run perf evlist -v -i /tmp/ibs.mem
run perf mem report -i /tmp/ibs.mem --stdio
run perf mem report -D -i /tmp/ibs.mem
run perf mem record -c 1000 -o /tmp/ibs.mem2 -- "$dir/pmu-ibs" sweep
run perf mem report -i /tmp/ibs.mem2 --stdio --sort=mem,sym
run perf mem -t load record -o /tmp/ibs.meml -- "$dir/pmu-ibs" sweep
run perf mem -t store record -o /tmp/ibs.mems -- "$dir/pmu-ibs" sweep
rate_restore
exit $fail
