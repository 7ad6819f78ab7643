#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf stat on pmu-loop (see pmu-loop.S): exact user-mode counts of the
# cycles, instructions, reference cycles (Intel only), branches and branch
# misses of a loop of N iterations on the TCG PMU model (2 cycles and 3
# reference cycles per instruction), once alone and then two loops at once
# on the two CPUs (each count stays its own).
N=100000
dir=$(dirname "$0")
fail=0

# count FILE EVENT: the value of EVENT in perf stat -x, output FILE
count() {
	awk -F, -v e="$2" '$3 == e { print $1 }' "$1"
}

# expect FILE EVENT VALUE
expect() {
	got=$(count "$1" "$2")
	if [ "$got" = "$3" ]; then
		echo "ok $2 = $got"
	else
		echo "not ok $2 = '$got', expected $3"
		fail=1
	fi
}

insns=$((2 * N + 4))
ref=
grep -q GenuineIntel /proc/cpuinfo && ref=ref-cycles:u,
stat() {
	perf stat -x, -o "$1" \
		-e cycles:u,instructions:u,${ref}branches:u,branch-misses:u \
		-- "$dir/pmu-loop" || fail=1
}

check() {
	cat "$1"
	expect "$1" instructions:u $insns
	expect "$1" cycles:u $((2 * insns))
	[ -z "$ref" ] || expect "$1" ref-cycles:u $((3 * insns))
	expect "$1" branches:u $N
	expect "$1" branch-misses:u 1
}

echo "# one loop"
stat /tmp/stat.0
check /tmp/stat.0

echo "# two loops at once"
stat /tmp/stat.1 &
p1=$!
stat /tmp/stat.2 &
p2=$!
wait $p1 $p2
check /tmp/stat.1
check /tmp/stat.2

echo "# REP string instructions retire once (pmu-rep.S)"
perf stat -x, -o /tmp/stat.rep -e instructions:u,branches:u -- "$dir/pmu-rep" || fail=1
cat /tmp/stat.rep
expect /tmp/stat.rep instructions:u 12
expect /tmp/stat.rep branches:u 0

# kernel + user: not known, but repeatable from boot to boot (icount)
perf stat -x, -o /tmp/stat.k -e cycles,instructions,branches -- "$dir/pmu-loop"
echo "@@PMU-COUNTS $(awk -F, '/^[0-9]/ { printf "%s=%s ", $3, $1 }' /tmp/stat.k)"
exit $fail
