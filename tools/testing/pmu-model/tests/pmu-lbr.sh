#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Branch records on the TCG PMU model (Intel: legacy LBR, 32 entries,
# LBR_SELECT filters, call-stack mode; AMD: LbrExtV2, 16 entries, the same
# filters, no call-stack mode), through perf record's branch stacks,
# sampling instructions:u with period P (see pmu-loop.S and pmu-calls.S
# for the instruction streams):
#   -b on pmu-loop: every sample holds D (the depth) records jnz -> dec,
#   predicted;
#   -j any_call,u on pmu-calls: the calls made so far, newest first;
#   -j any_ret,u on pmu-calls: none while f2 loops, f2's return after;
#   --call-graph lbr (call-stack mode) on pmu-calls: Intel: the calls not
#   yet returned from, newest first (f2's call is gone once f2 returned);
#   AMD: refused (perf record fails).
P=30011
dir=$(dirname "$0")
if grep -q GenuineIntel /proc/cpuinfo; then
	D=32
	vendor=intel
else
	D=16
	vendor=amd
fi
echo "# $vendor: $D entries"
fail=0

# Call sites and targets of pmu-calls; loop branch of pmu-loop
A=@calls:pmu_call_a@ F1=@calls:f1@
B=@calls:pmu_call_b@ F2=@calls:f2@
C=@calls:pmu_call_c@ F3=@calls:f3@
F2_LOOP=@calls:pmu_f2_loop@ F3_LOOP=@calls:pmu_f3_loop@
DEC=@loop:pmu_loop_dec@ JNZ=@loop:pmu_loop_jnz@

hex() { printf '0x%x' $(($1)); }

# brstack DATA: one line per sample, "ip: from/to/flag from/to/flag ..."
brstack() {
	perf script -G -i "$1" -F ip,brstack 2>/dev/null |
		awk 'NF { printf "0x%s:", $1
			  for (i = 2; i <= NF; i++) {
				  split($i, f, "/"); printf " %s/%s/%s", f[1], f[2], f[3] }
			  printf "\n" }'
}

# expect WHAT GOT WANT
expect() {
	if [ "$2" = "$3" ]; then
		echo "ok $1"
	else
		echo "not ok $1"
		echo "#   got:  $2"
		echo "#   want: $3"
		fail=1
	fi
}

echo "# perf record -b: pmu-loop"
perf record -q -b -e instructions:u -c $P -o /tmp/lbr.b -- "$dir/pmu-loop" || fail=1
brstack /tmp/lbr.b > /tmp/lbr.b.txt
n=$(wc -l < /tmp/lbr.b.txt)
expect "samples: $n" "$n" $(((2 * 100000 + 4) / P))
rec="$(hex $JNZ)/$(hex $DEC)/P"
want=$(i=0; while [ $i -lt $D ]; do printf ' %s' "$rec"; i=$((i + 1)); done)
k=0
while read -r ip stack; do
	k=$((k + 1))
	expect "sample $k ($ip): $D x $rec" " $stack" "$want"
done < /tmp/lbr.b.txt

# pmu-calls: 4N+9 instructions, N = 50000; f2 loops up to #2N+3
N=50000
# Samples k = 1..3 fall in f2's loop, 4..6 in f3's
echo "# perf record -j any_call,u: pmu-calls"
perf record -q -j any_call,u -e instructions:u -c $P -o /tmp/lbr.c -- "$dir/pmu-calls" || fail=1
brstack /tmp/lbr.c > /tmp/lbr.c.txt
expect "samples: $(wc -l < /tmp/lbr.c.txt)" "$(wc -l < /tmp/lbr.c.txt)" $(((4 * N + 9) / P))
in_f2="$(hex $B)/$(hex $F2)/P $(hex $A)/$(hex $F1)/P"
in_f3="$(hex $C)/$(hex $F3)/P $in_f2"
k=0
while read -r ip stack; do
	k=$((k + 1))
	if [ $((k * P + 1)) -le $((2 * N + 3)) ]; then want=$in_f2; else want=$in_f3; fi
	expect "sample $k ($ip): calls" "$stack" "$want"
done < /tmp/lbr.c.txt

echo "# perf record -j any_ret,u: pmu-calls"
perf record -q -j any_ret,u -e instructions:u -c $P -o /tmp/lbr.r -- "$dir/pmu-calls" || fail=1
brstack /tmp/lbr.r > /tmp/lbr.r.txt
expect "samples: $(wc -l < /tmp/lbr.r.txt)" "$(wc -l < /tmp/lbr.r.txt)" $(((4 * N + 9) / P))
R=@calls:pmu_f2_ret@
k=0
while read -r ip stack; do
	k=$((k + 1))
	if [ $((k * P + 1)) -le $((2 * N + 3)) ]; then want=; else want="$(hex $R)/$(hex $C)/P"; fi
	expect "sample $k ($ip): returns" "$stack" "$want"
done < /tmp/lbr.r.txt

echo "# perf record --call-graph lbr (call-stack mode): pmu-calls"
if [ $vendor = amd ]; then
	if perf record -q --call-graph lbr -e instructions:u -c $P -o /tmp/lbr.d \
		-- "$dir/pmu-calls" 2>/dev/null; then
		echo "not ok call-stack mode refused on AMD"
		fail=1
	else
		echo "ok call-stack mode refused on AMD"
	fi
	exit $fail
fi
perf record -q --call-graph lbr -e instructions:u -c $P -o /tmp/lbr.d -- "$dir/pmu-calls" || fail=1
brstack /tmp/lbr.d > /tmp/lbr.d.txt
expect "samples: $(wc -l < /tmp/lbr.d.txt)" "$(wc -l < /tmp/lbr.d.txt)" $(((4 * N + 9) / P))
in_f2="$(hex $B)/$(hex $F2)/- $(hex $A)/$(hex $F1)/-"
in_f3="$(hex $C)/$(hex $F3)/- $(hex $A)/$(hex $F1)/-"
k=0
while read -r ip stack; do
	k=$((k + 1))
	if [ $((k * P + 1)) -le $((2 * N + 3)) ]; then want=$in_f2; else want=$in_f3; fi
	expect "sample $k ($ip): call stack" "$stack" "$want"
done < /tmp/lbr.d.txt
exit $fail
