#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf's top-down views on the Ice Lake model (0017, pmu-model.rst),
# through the perf tool, the same on the stock kernel and ours.
# pmu-loop runs 100000 dec/jnz iterations in user space: the model
# counts 10 slots an instruction and PERF_METRICS reads bytes 25, 0, 64
# and 166 over the loop, so the :u group {slots, topdown-*} gives
# 2000040 slots (the loop's 200000 instructions and 4 more) and each
# metric floor(slots x byte / 0xff). perf stat --topdown and
# -M TopdownL1 must print their four level-1 percentages, and slots
# samples: 2000040 slots at a period of 100000 are 20 samples.
dir=$(dirname "$0")
fail=0
grep -q 'model[[:space:]]*: 106$' /proc/cpuinfo ||
	{ echo "ok # SKIP not the Ice Lake model"; exit 0; }

ok() {
	if [ "$2" = "$3" ]; then
		echo "ok $1: $2"
	else
		echo "not ok $1: ${2:-nothing}, want $3"
		fail=1
	fi
}

# the count perf stat printed for EVENT in FILE
count() {
	awk -v ev="$2" '$2 == ev { print $1; exit }' "$1"
}

perf stat -x, -o /tmp/td.csv \
	-e '{slots,topdown-retiring,topdown-bad-spec,topdown-fe-bound,topdown-be-bound}:u' \
	-- "$dir/pmu-loop" > /dev/null 2>&1 || fail=1
sed 's/^/# /' /tmp/td.csv
# CSV: value,unit,event,...
awk -F, 'NF > 3 { print $1, $3 }' /tmp/td.csv > /tmp/td.cnt
ok "slots:u over pmu-loop" "$(count /tmp/td.cnt slots)" 2000040
ok "topdown-retiring:u" "$(count /tmp/td.cnt topdown-retiring)" 196082
ok "topdown-bad-spec:u" "$(count /tmp/td.cnt topdown-bad-spec)" 0
ok "topdown-fe-bound:u" "$(count /tmp/td.cnt topdown-fe-bound)" 501970
ok "topdown-be-bound:u" "$(count /tmp/td.cnt topdown-be-bound)" 1301986

# four percentages, whatever the kernel's share of the run
perf stat --topdown -o /tmp/td.out -- "$dir/pmu-loop" > /dev/null 2>&1 ||
	fail=1
sed 's/^/# /' /tmp/td.out
ok "perf stat --topdown: level-1 percentages" \
	"$(grep -o '[0-9.]*%' /tmp/td.out | wc -l)" 4
perf stat -M TopdownL1 -o /tmp/td.m -- "$dir/pmu-loop" > /dev/null 2>&1 ||
	fail=1
sed 's/^/# /' /tmp/td.m
ok "perf stat -M TopdownL1: tma_ metrics" \
	"$(grep -c -E 'tma_(retiring|bad_speculation|frontend_bound|backend_bound)' /tmp/td.m)" 4

perf record -e slots:u -c 100000 -o /tmp/td.data -- "$dir/pmu-loop" \
	> /dev/null 2>&1 || fail=1
ok "perf record -e slots:u -c 100000: samples" \
	"$(perf report -i /tmp/td.data -D 2>/dev/null | grep -c 'PERF_RECORD_SAMPLE')" 20
exit $fail
