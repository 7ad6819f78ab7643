#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The branch trace store's clients (0021): the intel_bts PMU's sysfs
# (type and perf_event_mux_interval_ms, nothing else, as 6.12's),
# "perf record -e intel_bts//u" on pmu-loop (see pmu-loop.S: N - 1
# taken jnz to dec, each one branch in perf script's output, and perf
# report's branches all on pmu_loop_jnz), and gdb's "record btrace bts"
# on pmu-btrace (main > outer > leaf x3 > done): its function-call
# history, and its instruction history: every recorded instruction
# once, numbered 1 to the count "info record" gives, leaf entered three
# times and done once; that count is the one gdb's own single-stepping
# recorder ("record full") logs over the same stretch.
N=100000
DEC=@loop:pmu_loop_dec@
JNZ=@loop:pmu_loop_jnz@
JNZ=$(printf %x $JNZ) DEC=$(printf %x $DEC)
dir=$(dirname "$0")
d=/sys/bus/event_source/devices/intel_bts
fail=0
ok() { # STATUS WHAT
	if [ "$1" = 0 ]; then echo "ok $2"; else echo "not ok $2"; fail=1; fi
}

if ! grep -q GenuineIntel /proc/cpuinfo; then
	[ ! -e $d ]
	ok $? "no intel_bts on AMD"
	exit $fail
fi
[ -d $d ]
ok $? "intel_bts is registered"
files=$(cd $d && find . -type f | grep -v -e '^./power/' -e '^./uevent$' |
	sort | tr '\n' ' ')
[ "$files" = "./perf_event_mux_interval_ms ./type " ]
ok $? "intel_bts's files: $files"
[ "$(cat $d/perf_event_mux_interval_ms)" = 4 ]
ok $? "perf_event_mux_interval_ms: 4"

# a drain of thousands of records: no rate lowered for later tests
. /usr/bin/pmu-rate.sh
rate_lift
cd /tmp || exit 1
perf record -q -e intel_bts//u --per-thread -o bts.data -- "$dir/pmu-loop" \
	> rec.out 2>&1
ok $? "perf record -e intel_bts//u pmu-loop"
sed 's/^/# /' rec.out | head -n 5
perf script -i bts.data --itrace=b -F ip,addr 2>/dev/null |
	grep -v 'trace error' > script.out
n=$(grep -c -i -E "^ *$JNZ *=> *$DEC *\$" script.out)
echo "# $(wc -l < script.out) branches, $n from jnz to dec"
head -n 3 script.out | sed 's/^/# script: /'
# perf's decoder makes one branch less of them, on stock as on ours
[ "$n" = $((N - 2)) ]
ok $? "perf script: the loop's $((N - 1)) taken branches but one ($n)"
perf report -i bts.data --stdio -F overhead,sym 2>/dev/null |
	grep -v '^#' | grep -v '^$' | head -n 2 > report.out
sed 's/^/# report: /' report.out
head -n 1 report.out | grep -q '100.00%.*pmu_loop_jnz'
ok $? "perf report: the branches are pmu_loop_jnz's"

# gdb: trace outer() and done()
gdb -nx -batch -ex 'break outer' -ex run -ex 'record btrace bts' \
	-ex 'break main' -ex 'finish' -ex 'next' \
	-ex 'record function-call-history /c' \
	-ex 'set record instruction-history-size unlimited' \
	-ex 'record instruction-history 1,100000' \
	-ex 'info record' -ex kill "$dir/pmu-btrace" > gdb.out 2>&1
sed 's/^/# gdb: /' gdb.out | tail -n 20
grep -q 'Recording format: Branch Trace Store' gdb.out
ok $? "gdb: record btrace bts"
hist=$(awk 'NF == 2 && $1 ~ /^[0-9]+$/ { print $2 }' gdb.out | tr '\n' ' ')
[ "$hist" = "outer leaf outer leaf outer leaf outer main done " ]
ok $? "gdb: function-call-history: $hist"
# "N\t   0x... <fn+off>:\tinsn": their numbers, and the function entries
awk '$1 ~ /^[0-9]+$/ && $2 ~ /^0x/ { print $1 }' gdb.out > insn.out
rec=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' gdb.out)
first=$(head -n 1 insn.out) last=$(tail -n 1 insn.out)
lines=$(wc -l < insn.out)
echo "# instruction-history: $lines lines, $first to $last; recorded: $rec"
[ -n "$rec" ] && [ "$rec" -gt 20 ] && [ "$first" = 1 ] &&
	[ "$last" = "$rec" ] && [ "$lines" = "$rec" ]
ok $? "gdb: instruction-history: instructions 1 to $rec, each once"
n=$(grep -c '<leaf+0>:' gdb.out) m=$(grep -c '<done+0>:' gdb.out)
[ "$n" = 3 ] && [ "$m" = 1 ]
ok $? "gdb: instruction-history: leaf entered $n times, done $m"
gdb -nx -batch -ex 'break outer' -ex run -ex 'record full' \
	-ex 'break main' -ex 'finish' -ex 'next' -ex 'info record' \
	-ex kill "$dir/pmu-btrace" > full.out 2>&1
full=$(sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p' full.out)
[ -n "$rec" ] && [ "$rec" = "$full" ]
ok $? "gdb: btrace recorded $rec instructions, record full $full"
rate_restore
exit $fail
