#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf record -e instructions:u -c P on pmu-loop (see pmu-loop.S): the
# k-th sample must land on instruction #kP+1, i.e. with P odd alternately
# on pmu_loop_dec (k odd) and pmu_loop_jnz (k even), and there must be
# exactly floor((2N+4)/P) of them.  Then the same with two loops at once.
# DEC and JNZ are the addresses of pmu_loop_dec/jnz, filled in at build.
N=100000
P=10007
DEC=@loop:pmu_loop_dec@
JNZ=@loop:pmu_loop_jnz@
START=@loop:_start@
dir=$(dirname "$0")
fail=0

# Instruction #i (1-based) of pmu-loop, for i <= 2N+1
insn_addr() {
	if [ "$1" = 1 ]; then
		echo $START
	elif [ $(($1 % 2)) = 0 ]; then
		echo $DEC
	else
		echo $JNZ
	fi
}

# check DATA: the samples of one run
check() {
	perf script -i "$1" -F ip 2>/dev/null | awk '{ printf "0x%s\n", $1 }' > "$1.ips"
	n=$(wc -l < "$1.ips")
	want=$(((2 * N + 4) / P))
	if [ "$n" = "$want" ]; then
		echo "ok samples: $n"
	else
		echo "not ok samples: $n, expected $want"
		fail=1
	fi
	k=0 bad=0
	while read -r ip; do
		k=$((k + 1))
		exp=$(insn_addr $((k * P + 1)))
		if [ $((ip)) != $((exp)) ]; then
			echo "not ok sample $k at $ip, expected $exp"
			bad=$((bad + 1))
		fi
	done < "$1.ips"
	if [ $bad = 0 ] && [ $k -gt 0 ]; then
		echo "ok all $k samples on the expected instruction"
	else
		fail=1
	fi
}

rec() {
	perf record -q -e instructions:u -c $P -o "$1" -- "$dir/pmu-loop" 2>&1 ||
		fail=1
}

echo "# one loop"
rec /tmp/rec.0
check /tmp/rec.0

echo "# two loops at once"
rec /tmp/rec.1 &
p1=$!
rec /tmp/rec.2 &
p2=$!
wait $p1 $p2
check /tmp/rec.1
check /tmp/rec.2
exit $fail
