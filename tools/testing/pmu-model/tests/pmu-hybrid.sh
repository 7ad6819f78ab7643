#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The perf tool on the hybrid model (AlderLake-PMU, 0023: CPU 0 a Core,
# CPU 1 an Atom), the same on the stock kernel and ours. pmu-loop runs
# 100000 dec/jnz iterations in user space: 200000 instructions and a
# few more.
# - perf stat of a generic event prints a line per PMU;
# - events named per PMU count on their own kind only: a run pinned to
#   the Atom leaves cpu_core's "<not counted>";
# - perf record samples per PMU;
# - perf stat --topdown on the Core prints its metrics;
# - the sysfs files of both PMUs, every one with its contents, as 6.12
#   has them on the model.
dir=$(dirname "$0")
fail=0
[ -d /sys/bus/event_source/devices/cpu_atom ] ||
	{ echo "ok # SKIP not a hybrid CPU"; exit 0; }

ok() {
	if [ "$2" = "$3" ]; then
		echo "ok $1: $2"
	else
		echo "not ok $1: ${2:-nothing}, want $3"
		fail=1
	fi
}

# perf stat -x, lines: value,unit,event,...
perf stat -x, -o /tmp/hy.csv -e instructions:u -- taskset -c 1 "$dir/pmu-loop" \
	> /dev/null 2>&1 || fail=1
sed 's/^/# /' /tmp/hy.csv
ok "perf stat -e instructions: a line per PMU" \
	"$(awk -F, 'NF > 3 { print $3 }' /tmp/hy.csv | sort | tr '\n' ' ')" \
	"cpu_atom/instructions:u/ cpu_core/instructions:u/ "

# all of it on the Atom: the Core's event never counts
taskset -c 1 perf stat -x, -o /tmp/hy2.csv \
	-e cpu_core/instructions/u,cpu_atom/instructions/u -- "$dir/pmu-loop" \
	> /dev/null 2>&1 || fail=1
sed 's/^/# /' /tmp/hy2.csv
ok "pinned to the Atom: cpu_core/instructions/u" \
	"$(awk -F, '$3 ~ /cpu_core/ { print $1 }' /tmp/hy2.csv)" "<not counted>"
n=$(awk -F, '$3 ~ /cpu_atom/ { print $1 }' /tmp/hy2.csv)
ok "pinned to the Atom: cpu_atom/instructions/u counts the loop" \
	"$([ "${n:-0}" -ge 200000 ] 2>/dev/null && [ "$n" -lt 210000 ] && echo yes)" yes

taskset -c 0 perf stat -x, -o /tmp/hy3.csv \
	-e cpu_core/instructions/u,cpu_atom/instructions/u -- "$dir/pmu-loop" \
	> /dev/null 2>&1 || fail=1
sed 's/^/# /' /tmp/hy3.csv
ok "pinned to the Core: cpu_atom/instructions/u" \
	"$(awk -F, '$3 ~ /cpu_atom/ { print $1 }' /tmp/hy3.csv)" "<not counted>"
n=$(awk -F, '$3 ~ /cpu_core/ { print $1 }' /tmp/hy3.csv)
ok "pinned to the Core: cpu_core/instructions/u counts the loop" \
	"$([ "${n:-0}" -ge 200000 ] 2>/dev/null && [ "$n" -lt 210000 ] && echo yes)" yes

# system-wide: both PMUs' lines
perf stat -a -x, -o /tmp/hy4.csv -e cycles -- sleep 0.1 > /dev/null 2>&1 ||
	fail=1
sed 's/^/# /' /tmp/hy4.csv
ok "perf stat -a -e cycles: both PMUs counted" \
	"$(awk -F, 'NF > 3 && $1 ~ /^[0-9]+$/ && $1 > 0 { print $3 }' /tmp/hy4.csv | sort | tr '\n' ' ')" \
	"cpu_atom/cycles/ cpu_core/cycles/ "

# perf record on each PMU: samples of the loop
for p in cpu_core:0 cpu_atom:1; do
	pmu=${p%:*} cpu=${p#*:}
	rm -f /tmp/hy.data
	taskset -c "$cpu" perf record -q -o /tmp/hy.data -c 10007 \
		-e "$pmu/instructions/u" -- "$dir/pmu-loop" > /dev/null 2>&1 ||
		fail=1
	n=$(perf report -i /tmp/hy.data --stdio -D 2>/dev/null |
		grep -c 'PERF_RECORD_SAMPLE')
	# 200000 and a few instructions at a period of 10007: 19 samples
	ok "perf record -e $pmu/instructions/u on CPU $cpu: samples" "$n" 19
done

# and precise (PEBS) on each: the records' samples
for p in cpu_core:0 cpu_atom:1; do
	pmu=${p%:*} cpu=${p#*:}
	rm -f /tmp/hy.data
	taskset -c "$cpu" perf record -q -o /tmp/hy.data -c 10007 \
		-e "$pmu/instructions/upp" -- "$dir/pmu-loop" > /dev/null 2>&1 ||
		fail=1
	n=$(perf report -i /tmp/hy.data --stdio -D 2>/dev/null |
		grep -c 'PERF_RECORD_SAMPLE')
	ok "perf record -e $pmu/instructions/upp on CPU $cpu: samples" "$n" 19
done

# the Core's top-down metrics
perf stat --topdown -o /tmp/hy.td -- taskset -c 0 "$dir/pmu-loop" \
	> /dev/null 2>&1 || fail=1
sed 's/^/# /' /tmp/hy.td
ok "perf stat --topdown on the Core: percentages printed" \
	"$([ "$(grep -o '[0-9.]*%' /tmp/hy.td | wc -l)" -ge 4 ] && echo yes)" yes

# freeze_on_smi: DEBUGCTL's FREEZE_WHILE_SMM on every CPU, 1 from boot
for p in cpu_core cpu_atom; do
	f=/sys/bus/event_source/devices/$p/freeze_on_smi
	r=$(cat $f)
	echo 0 > $f && r="$r $(cat $f)"
	echo 2 > $f 2>/dev/null || r="$r refused"
	echo 1 > $f && r="$r $(cat $f)"
	ok "$p/freeze_on_smi: 1, cleared, 2 refused, set" "$r" "1 0 refused 1"
done

# a CPU going down leaves its kind's PMU; back up, it returns
echo 0 > /sys/devices/system/cpu/cpu1/online
r="$(cat /sys/bus/event_source/devices/cpu_atom/cpus)"
echo 1 > /sys/devices/system/cpu/cpu1/online
r="${r:-none} $(cat /sys/bus/event_source/devices/cpu_atom/cpus)"
ok "cpu_atom/cpus with CPU 1 off, then on" "$r" "none 1"
n=$(taskset -c 1 perf stat -x, -e cpu_atom/instructions/u -- "$dir/pmu-loop" 2>&1 >/dev/null |
	awk -F, '$3 ~ /cpu_atom/ { print $1 }')
ok "CPU 1 back: cpu_atom/instructions/u counts the loop" \
	"$([ "${n:-0}" -ge 200000 ] 2>/dev/null && [ "$n" -lt 210000 ] && echo yes)" yes

# every sysfs file of both PMUs, as 6.12 has them
for p in cpu_core cpu_atom; do
	d=/sys/bus/event_source/devices/$p
	for f in $d/cpus $d/caps/* $d/events/* $d/format/*; do
		[ -f "$f" ] && echo "$p/${f#$d/}: $(cat "$f")"
	done
done > /tmp/hy.sysfs
cat > /tmp/hy.want <<'END'
cpu_core/cpus: 0
cpu_core/caps/branches: 32
cpu_core/caps/max_precise: 3
cpu_core/caps/pmu_name: alderlake_hybrid
cpu_core/events/branch-instructions: event=0xc4
cpu_core/events/branch-misses: event=0xc5
cpu_core/events/bus-cycles: event=0x3c,umask=0x01
cpu_core/events/cache-misses: event=0x2e,umask=0x41
cpu_core/events/cache-references: event=0x2e,umask=0x4f
cpu_core/events/cpu-cycles: event=0x3c
cpu_core/events/instructions: event=0xc0
cpu_core/events/mem-loads: event=0xcd,umask=0x1,ldlat=3
cpu_core/events/mem-loads-aux: event=0x03,umask=0x82
cpu_core/events/mem-stores: event=0xcd,umask=0x2
cpu_core/events/ref-cycles: event=0x3c,umask=0x01
cpu_core/events/slots: event=0x00,umask=0x4
cpu_core/events/topdown-bad-spec: event=0x00,umask=0x81
cpu_core/events/topdown-be-bound: event=0x00,umask=0x83
cpu_core/events/topdown-br-mispredict: event=0x00,umask=0x85
cpu_core/events/topdown-fe-bound: event=0x00,umask=0x82
cpu_core/events/topdown-fetch-lat: event=0x00,umask=0x86
cpu_core/events/topdown-heavy-ops: event=0x00,umask=0x84
cpu_core/events/topdown-mem-bound: event=0x00,umask=0x87
cpu_core/events/topdown-retiring: event=0x00,umask=0x80
cpu_core/format/cmask: config:24-31
cpu_core/format/edge: config:18
cpu_core/format/event: config:0-7
cpu_core/format/frontend: config1:0-23
cpu_core/format/inv: config:23
cpu_core/format/ldlat: config1:0-15
cpu_core/format/offcore_rsp: config1:0-63
cpu_core/format/pc: config:19
cpu_core/format/umask: config:8-15
cpu_atom/cpus: 1
cpu_atom/caps/branches: 32
cpu_atom/caps/max_precise: 3
cpu_atom/caps/pmu_name: alderlake_hybrid
cpu_atom/events/branch-instructions: event=0xc4
cpu_atom/events/branch-misses: event=0xc5
cpu_atom/events/bus-cycles: event=0x3c,umask=0x01
cpu_atom/events/cache-misses: event=0x2e,umask=0x41
cpu_atom/events/cache-references: event=0x2e,umask=0x4f
cpu_atom/events/cpu-cycles: event=0x3c
cpu_atom/events/instructions: event=0xc0
cpu_atom/events/mem-loads: event=0xd0,umask=0x5,ldlat=3
cpu_atom/events/mem-stores: event=0xd0,umask=0x6
cpu_atom/events/ref-cycles: event=0x3c,umask=0x01
cpu_atom/events/topdown-bad-spec: event=0x73,umask=0x0
cpu_atom/events/topdown-be-bound: event=0x74,umask=0x0
cpu_atom/events/topdown-fe-bound: event=0x71,umask=0x0
cpu_atom/events/topdown-retiring: event=0xc2,umask=0x0
cpu_atom/format/cmask: config:24-31
cpu_atom/format/edge: config:18
cpu_atom/format/event: config:0-7
cpu_atom/format/inv: config:23
cpu_atom/format/ldlat: config1:0-15
cpu_atom/format/offcore_rsp: config1:0-63
cpu_atom/format/pc: config:19
cpu_atom/format/umask: config:8-15
END
if diff /tmp/hy.want /tmp/hy.sysfs > /tmp/hy.diff; then
	echo "ok sysfs of cpu_core and cpu_atom: every file as 6.12's"
else
	sed 's/^/# /' /tmp/hy.diff
	echo "not ok sysfs of cpu_core and cpu_atom: every file as 6.12's"
	fail=1
fi
exit $fail
