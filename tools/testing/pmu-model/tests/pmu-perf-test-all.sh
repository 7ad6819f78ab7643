#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Debian's whole "perf test" sequence, as a user runs it (root, one
# boot, every test in order, so that each runs after what the ones
# before it left behind), compared test for test with what the stock
# kernel gave on the same CPU model: /usr/bin/perf-test-<cpu>.txt, from
# tools/testing/pmu-model/stock-results (a stock run of this script
# writes its lines; see pmu-model.rst). Each test must do at least as
# well as on stock: Ok where stock is Ok, Ok or Skip where stock
# skips; where stock fails (or hangs: TIMEOUT), anything.
#
# Runs on the CPU models that have a stock table and skips the others,
# but Skylake-PMU (GenuineIntel-6-94), which must have one. With
# perf_test_table on the kernel command line it prints the table and
# passes (how the stock table is made: pmu-perf-test-table.sh).
#
# perf 6.1's tests that never reach the kernel's perf code, whose result
# is the same on any kernel (parsers, maps, hists, synthesized records,
# demanglers, decoders, build ids), are not run: their parsing of every
# metric and JSON event takes longer under TCG than all the others
# together (10 "PMU events" alone over ten minutes). The tests that read
# the PMUs' sysfs (6, 9) are run. perf_test_all=full on the kernel
# command line runs them too.
userspace_only=" 7 10 11 12 13 18 19 27 30 31 32 33 34 36 37 38 39 40 43 44
	45 46 47 48 49 52 53 55 56 57 58 59 60 61 62 64 65 66 67 68 69 72 75 76
	79 "
case " $(cat /proc/cmdline) " in
*" perf_test_all=full "*) userspace_only= ;;
esac
# Racy in perf itself, on stock as on ours, so not compared (printed):
# 24 "Number of exit events of a simple workload" retries poll(), which
# returns at once (POLLHUP) from the child's perf exit on, until
# SIGCHLD; under icount's round-robin vCPUs the 1000 retries can run out
# before the child gets to exit_notify(). Stock on EPYC-PMU: Ok in the
# sequence, FAILED ("Failed after retrying 1000 times") run alone; stock
# on Skylake-PMU and Icelake-PMU: FAILED in the sequence.
racy=" 24 "
# perf_test_only=N,M,...: only those (a developer's loop)
only=$(tr ' ' '\n' < /proc/cmdline | sed -n 's/^perf_test_only=//p' | tr , ' ')
cpu=$(awk -F': ' '/^vendor_id/ { v = $2 } /^cpu family/ { f = $2 }
	/^model[ \t]*:/ { m = $2 } END { printf "%s-%d-%d", v, f, m }' \
	/proc/cpuinfo)
exp=/usr/bin/perf-test-$cpu.txt
out=/tmp/perf-test.out
table_mode=
case " $(cat /proc/cmdline) " in *" perf_test_table "*) table_mode=1 ;; esac
if [ -z "$table_mode" ] && [ ! -f "$exp" ]; then
	echo "no stock table for $cpu ($exp)"
	[ "$cpu" = GenuineIntel-6-94 ] && { echo "not ok Skylake-PMU needs one"; exit 1; }
	exit 4
fi

echo "cpu $cpu, perf_event_max_sample_rate $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
# One "perf test N" after the other, in perf test's order: the kernel
# state each leaves behind is there for the next, as in one "perf test"
# run, and a test that hangs is cut (TIMEOUT) without losing the rest.
: > $out
for id in $(perf test list 2>&1 | awk -F: '/^ *[0-9]+: / { print $1 + 0 }'); do
	case "$userspace_only" in *" $id "*) continue ;; esac
	[ -z "$only" ] || case " $only " in *" $id "*) ;; *) continue ;; esac
	timeout -s KILL 300 perf test "$id" > /tmp/perf-test.one 2>&1
	rc=$?
	cat /tmp/perf-test.one >> $out
	grep -E '^ *[0-9]+([.:][0-9]+)?: ' /tmp/perf-test.one
	[ $rc -eq 137 ] && echo " $id: (killed after 300 s) : TIMEOUT" | tee -a $out
done
echo "perf_event_max_sample_rate now $(cat /proc/sys/kernel/perf_event_max_sample_rate)"

# "  4.1: desc  : Ok" -> "4.1 Ok desc"; FAILED! -> FAILED; "Skip (why)"
# -> Skip
awk '
/^ *[0-9]+([.:][0-9]+)?: .*: (Ok|FAILED!|TIMEOUT|Skip.*)$/ {
	id = $1; sub(/:$/, "", id); sub(/:/, ".", id)
	r = $0; sub(/.*: /, "", r)
	if (r ~ /^Skip/) r = "Skip"
	if (r == "FAILED!") r = "FAILED"
	d = $0; sub(/^ *[0-9.:]+: /, "", d); sub(/ *: [^:]*$/, "", d)
	printf "perf-test %s %s %s\n", id, r, d
}' $out > /tmp/perf-test.table
cat /tmp/perf-test.table
n=$(wc -l < /tmp/perf-test.table)
echo "$n results: $(grep -c ' Ok ' /tmp/perf-test.table) Ok," \
	"$(grep -c ' FAILED ' /tmp/perf-test.table) FAILED," \
	"$(grep -c ' Skip ' /tmp/perf-test.table) Skip"

fails=0
# rank: Ok 2, Skip 1, FAILED and TIMEOUT 0; each id of the stock table
# must be here with at least its rank
[ -n "$table_mode" ] || while read -r tag id res desc; do
	[ "$tag" = perf-test ] || continue
	ours=$(awk -v id="$id" '$2 == id { print $3; exit }' /tmp/perf-test.table)
	case "$racy" in *" ${id%%.*} "*)
		echo "ok $id $desc: ${ours:-none} (stock $res; racy, not compared)"
		continue ;;
	esac
	case $res:$ours in
	Ok:Ok|Skip:Ok|Skip:Skip|FAILED:*|TIMEOUT:*)
		echo "ok $id $desc: ${ours:-none} (stock $res)" ;;
	*)
		echo "not ok $id $desc: ${ours:-no result} (stock $res)"
		fails=$((fails + 1)) ;;
	esac
done < "$exp"
# the failures' own words, for the log: every one for a table, else
# those stock does not share; each test once, subtests and all
for id in $(awk '$3 == "FAILED" { print $2 }' /tmp/perf-test.table); do
	[ -z "$table_mode" ] && grep -q "^perf-test $id FAILED" "$exp" &&
		continue
	echo "${id%%.*}"
done | sort -un | while read -r id; do
	echo "--- perf test -v $id"
	perf test -v "$id" 2>&1 | tail -20
done
[ "$fails" -eq 0 ]
