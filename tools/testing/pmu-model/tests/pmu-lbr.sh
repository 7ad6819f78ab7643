#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Branch records on the TCG PMU model (Intel: legacy LBR, 32 entries,
# LBR_SELECT filters, call-stack mode; AMD: LbrExtV2, 16 entries, the same
# filters, no call-stack mode), through perf record's branch stacks,
# sampling instructions:u with period P (see pmu-loop.S and pmu-calls.S
# for the instruction streams):
#   -b on pmu-loop: every sample holds D (the depth) records jnz -> dec,
#   predicted; on Intel also with instructions:upp (PEBS samples take
#   the stack the PMI after the record reads);
#   -j any_call,u on pmu-calls: the calls made so far, newest first;
#   -j any_ret,u on pmu-calls: none while f2 loops, f2's return after;
#   far transfers (syscall, sysretq, iretq) on pmu-sys, at the exact
#   addresses (the kernel's from /proc/kallsyms): -j any,u holds D/2 loop
#   branches (the driver drops the other D/2 records, the getppid
#   sysretqs, because their source is in the kernel); with k added the
#   newest record is the sysretq to the instruction after the syscall,
#   and any_call sees the syscall, any_ret the sysretq; with period 1 on
#   pmu-sys2 the first sample has execve's iretq to _start and each later
#   one the PMI's iretq back to where the previous sample was taken;
#   --call-graph lbr (call-stack mode) on pmu-calls: Intel: the calls not
#   yet returned from, newest first (f2's call is gone once f2 returned);
#   AMD: refused (perf record fails).
# A context switch empties the stack (the driver resets it when the task
# comes back, so no other task's branches show): samples after one may
# hold only the newest of the expected records.
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
# pmu-sys: the loop, its syscall and the instruction after it
S_LOOP=@sys:pmu_sys_loop@ S_CALL=@sys:pmu_sys_call@
S_RET=@sys:pmu_sys_ret@ S_JNZ=@sys:pmu_sys_jnz@ S_START=@sys:_start@

# prec ARGS: perf record ARGS, quiet unless it fails: then a "not ok"
# with its exit status (128 + the signal when the workload was killed,
# which perf passes on) and the end of what it printed
prec() {
	perf record "$@" 2>/tmp/lbr.err && return 0
	echo "not ok perf record $*: exit $?"
	tail -5 /tmp/lbr.err | sed 's/^/#   /'
	fail=1
	return 1
}

hex() { printf '0x%x' $(($1)); }

# brstack DATA: one line per sample, "ip: from/to/flag from/to/flag ...";
# the ip is "~ip" once the task was switched out (perf record
# --switch-events), since the driver starts an empty stack when the task
# comes back and the branches before that are gone
brstack() {
	perf script -G -i "$1" -F ip,brstack --show-switch-events 2>/dev/null |
		awk '/PERF_RECORD_SWITCH/ { sw = "~"; next }
		     NF { printf "%s0x%s:", sw, $1
			  for (i = 2; i <= NF; i++) {
				  split($i, f, "/"); printf " %s/%s/%s", f[1], f[2], f[3] }
			  printf "\n" }'
}
REC="prec --switch-events"

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

# expect_stack WHAT IP GOT WANT: GOT is WANT, or after a context switch
# (IP is "~ip") the newest records of WANT, those made since the switch
expect_stack() {
	case $2 in
	"~"*)	case " $4 " in
		" $3 "*) expect "$1" "$3" "$3" ;;
		*) [ -n "$3" ] || { expect "$1" "" ""; return; }
		   expect "$1 (after a context switch, newest of)" "$3" "$4" ;;
		esac ;;
	*)	expect "$1" "$3" "$4" ;;
	esac
}

# the same branch stacks with PEBS samples (Intel; AMD's precise events
# are IBS's, without branch stacks)
evs=instructions:u
grep -q GenuineIntel /proc/cpuinfo && evs="$evs instructions:upp"
for ev in $evs; do
	echo "# perf record -b -e $ev: pmu-loop"
	$REC -b -e $ev -c $P -o /tmp/lbr.b -- "$dir/pmu-loop"
	brstack /tmp/lbr.b > /tmp/lbr.b.txt
	n=$(wc -l < /tmp/lbr.b.txt)
	expect "samples: $n" "$n" $(((2 * 100000 + 4) / P))
	rec="$(hex $JNZ)/$(hex $DEC)/P"
	want=$(i=0; while [ $i -lt $D ]; do printf ' %s' "$rec"; i=$((i + 1)); done)
	k=0
	while read -r ip stack; do
		k=$((k + 1))
		expect_stack "sample $k ($ip): $D x $rec" "$ip" "$stack" "${want# }"
	done < /tmp/lbr.b.txt
done

# pmu-calls: 4N+9 instructions, N = 50000; f2 loops up to #2N+3
N=50000
# Samples k = 1..3 fall in f2's loop, 4..6 in f3's
echo "# perf record -j any_call,u: pmu-calls"
$REC -j any_call,u -e instructions:u -c $P -o /tmp/lbr.c -- "$dir/pmu-calls"
brstack /tmp/lbr.c > /tmp/lbr.c.txt
expect "samples: $(wc -l < /tmp/lbr.c.txt)" "$(wc -l < /tmp/lbr.c.txt)" $(((4 * N + 9) / P))
in_f2="$(hex $B)/$(hex $F2)/P $(hex $A)/$(hex $F1)/P"
in_f3="$(hex $C)/$(hex $F3)/P $in_f2"
k=0
while read -r ip stack; do
	k=$((k + 1))
	if [ $((k * P + 1)) -le $((2 * N + 3)) ]; then want=$in_f2; else want=$in_f3; fi
	expect_stack "sample $k ($ip): calls" "$ip" "$stack" "$want"
done < /tmp/lbr.c.txt

echo "# perf record -j any_ret,u: pmu-calls"
$REC -j any_ret,u -e instructions:u -c $P -o /tmp/lbr.r -- "$dir/pmu-calls"
brstack /tmp/lbr.r > /tmp/lbr.r.txt
expect "samples: $(wc -l < /tmp/lbr.r.txt)" "$(wc -l < /tmp/lbr.r.txt)" $(((4 * N + 9) / P))
R=@calls:pmu_f2_ret@
k=0
while read -r ip stack; do
	k=$((k + 1))
	if [ $((k * P + 1)) -le $((2 * N + 3)) ]; then want=; else want="$(hex $R)/$(hex $C)/P"; fi
	expect_stack "sample $k ($ip): returns" "$ip" "$stack" "$want"
done < /tmp/lbr.r.txt

# Far transfers.  The kernel's entry and exit instructions: syscall
# enters at entry_SYSCALL_64; sysretq (3 bytes) is the last instruction
# before entry_SYSRETQ_end; native_irq_return_iret is the iretq of every
# return to user space through iret (interrupts, exceptions, NMIs, execve)
ksym() { hex 0x$(awk -v s="$1" '$3 == s { print $1; exit }' /proc/kallsyms); }
ENTRY=$(ksym entry_SYSCALL_64)
SYSRETQ=$(hex $(($(ksym entry_SYSRETQ_end) - 3)))
IRETQ=$(ksym native_irq_return_iret)
SYSCALL_REC="$(hex $S_CALL)/$ENTRY/P"
SYSRET_REC="$SYSRETQ/$(hex $S_RET)/P"
LOOP_REC="$(hex $S_JNZ)/$(hex $S_LOOP)/P"
echo "# far: syscall $SYSCALL_REC, sysretq $SYSRET_REC, iretq from $IRETQ"

# user RECORDS...: the records that have a user address (from or to)
user() {
	for r in "$@"; do
		case $r in
		0x[0-9a-f]*/0x[0-9a-f]*/*)
			f=${r%%/*} t=${r#*/}; t=${t%%/*}
			[ ${#f} -lt 18 ] || [ ${#t} -lt 18 ] && printf ' %s' "$r" ;;
		esac
	done
}
# irq RECORD: RECORD is an interrupt's entry from, or its iretq back to,
# the loop's first instruction or the one after the syscall (where
# QEMU's translation blocks start, so where interrupts land)
irq() {
	for a in $(hex $S_LOOP) $(hex $S_RET); do
		case $1 in
		"$IRETQ/$a/P") return 0 ;;
		"$a"/0xffffffff*/P) [ "$1" != "$a/$ENTRY/P" ] && return 0 ;;
		esac
	done
	return 1
}
# only RECORD RECORDS...: RECORDS are RECORD repeated, at least once
only() {
	want=$1; shift
	[ $# -gt 0 ] || return 1
	for r in "$@"; do [ "$r" = "$want" ] || return 1; done
}

# pmu-sys: 4S+4 instructions, S = 10000 getppid calls; with period
# 4000 every sample is on the loop's jnz (instruction #4000k+1)
S=10000 P2=4000
echo "# perf record -j any,u: pmu-sys (far records from the kernel dropped)"
$REC -j any,u -e instructions:u -c $P2 -o /tmp/lbr.s -- "$dir/pmu-sys"
brstack /tmp/lbr.s > /tmp/lbr.s.txt
expect "samples: $(wc -l < /tmp/lbr.s.txt)" "$(wc -l < /tmp/lbr.s.txt)" $(((4 * S + 4) / P2))
want=$(i=0; while [ $i -lt $((D / 2)) ]; do printf ' %s' "$LOOP_REC"; i=$((i + 1)); done)
# A timer interrupt inside a sample's window adds the return from it (a
# record from the kernel, dropped like the sysretqs) and so leaves one
# loop record fewer; under icount whether one falls there depends on
# the build (kernel and initramfs sizes shift the timing). Accept that
# for at most two samples.
short=0
k=0
while read -r ip stack; do
	k=$((k + 1))
	if [ "$stack" = "${want# "$LOOP_REC" }" ] && [ $short -lt 2 ]; then
		short=$((short + 1))
		echo "ok sample $k ($ip): $((D / 2 - 1)) x $LOOP_REC (an interrupt's return, dropped, took an entry)"
		continue
	fi
	expect_stack "sample $k ($ip): $((D / 2)) x $LOOP_REC" "$ip" "$stack" "${want# }"
done < /tmp/lbr.s.txt

# A timer interrupt in a sample's window adds its entry and its iretq
# (the newest record when it came after the last syscall); as above,
# accept that for at most two samples of each run.
for j in any any_call any_ret; do
	echo "# perf record -j $j,u,k: pmu-sys"
	prec -j $j,u,k -e instructions:u -c $P2 -o /tmp/lbr.s -- "$dir/pmu-sys"
	brstack /tmp/lbr.s > /tmp/lbr.s.txt
	expect "samples: $(wc -l < /tmp/lbr.s.txt)" "$(wc -l < /tmp/lbr.s.txt)" $(((4 * S + 4) / P2))
	k=0 short=0
	while read -r ip stack; do
		k=$((k + 1))
		set -- $stack
		u= seen=
		for r in $(user "$@"); do
			if irq "$r" && [ $short -lt 2 ]; then
				seen=1
			else
				u="$u $r"
			fi
		done
		newest=$1
		if [ -n "$seen" ]; then
			# the kernel's records of the interrupt come
			# first: the newest is then the newest user one;
			# in a short stack (AMD's 16) they may be all
			short=$((short + 1))
			echo "ok sample $k ($ip): an interrupt's entry or return (allowed twice)"
			if [ -z "$u" ]; then
				echo "ok sample $k ($ip): the interrupt's records fill the stack"
				continue
			fi
			set -- $u
			newest=$1
			set -- $stack
		fi
		case $j in
		any)	# newest: the sysretq; older: the kernel's path and
			# its syscall
			expect "sample $k ($ip): newest $SYSRET_REC" "$newest" "$SYSRET_REC"
			ok=ok
			for r in $u; do
				[ "$r" = "$SYSRET_REC" ] || [ "$r" = "$SYSCALL_REC" ] ||
					[ "$r" = "$LOOP_REC" ] || ok="$r"
			done
			expect "sample $k ($ip): user records" "$ok" ok ;;
		any_call)
			if only "$SYSCALL_REC" $u; then
				ok=ok
			elif [ -z "$u" ] && [ $# -ge $((D - 2)) ]; then
				# a full stack (less the sysretq and iretq
				# the filter drops) of calls in the kernel
				# since the syscall (a debug kernel's
				# getppid) pushed it out
				ok=ok
			else
				ok="$u"
			fi
			expect "sample $k ($ip): user records: syscalls" "$ok" ok ;;
		any_ret)
			expect "sample $k ($ip): newest $SYSRET_REC" "$newest" "$SYSRET_REC"
			only "$SYSRET_REC" $u && ok=ok || ok="$u"
			expect "sample $k ($ip): user records: sysretqs" "$ok" ok ;;
		esac
	done < /tmp/lbr.s.txt
done

# pmu-sys2 (two getppid calls) sampled every instruction (the driver
# makes that every other one): the first sample's newest return is
# execve's iretq to _start, every later sample has the iretq of the
# previous sample's PMI, back to where that sample was taken
echo "# perf record -j any_ret,u,k -c 1: pmu-sys2"
prec -j any_ret,u,k -e instructions:u -c 1 -o /tmp/lbr.i -- "$dir/pmu-sys2"
brstack /tmp/lbr.i > /tmp/lbr.i.txt
expect "samples: $(wc -l < /tmp/lbr.i.txt)" "$(wc -l < /tmp/lbr.i.txt)" 6
k=0 prev=
while read -r ip stack; do
	k=$((k + 1))
	set -- $stack
	if [ $k = 1 ]; then
		expect "sample 1 ($ip): newest $IRETQ/$(hex $S_START)/P" "$1" "$IRETQ/$(hex $S_START)/P"
	else
		iret=
		for r in "$@"; do
			case $r in "$IRETQ"/*) iret=$r; break ;; esac
		done
		# unless D kernel returns since (a debug kernel's
		# syscall path) pushed it out of the stack
		[ -z "$iret" ] && [ $# -ge $D ] && iret="$IRETQ/${prev%:}/P"
		expect "sample $k ($ip): newest iretq $IRETQ/${prev%:}/P" "$iret" "$IRETQ/${prev%:}/P"
	fi
	prev=$ip
done < /tmp/lbr.i.txt

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
prec --call-graph lbr -e instructions:u -c $P -o /tmp/lbr.d -- "$dir/pmu-calls"
brstack /tmp/lbr.d > /tmp/lbr.d.txt
expect "samples: $(wc -l < /tmp/lbr.d.txt)" "$(wc -l < /tmp/lbr.d.txt)" $(((4 * N + 9) / P))
# legacy call-stack records carry no flags; architectural LBRs (0018)
# keep LBR_INFO's, so the driver reports them predicted
cf=-
grep -qw arch_lbr /proc/cpuinfo && cf=P
in_f2="$(hex $B)/$(hex $F2)/$cf $(hex $A)/$(hex $F1)/$cf"
in_f3="$(hex $C)/$(hex $F3)/$cf $(hex $A)/$(hex $F1)/$cf"
k=0
while read -r ip stack; do
	k=$((k + 1))
	if [ $((k * P + 1)) -le $((2 * N + 3)) ]; then want=$in_f2; else want=$in_f3; fi
	expect "sample $k ($ip): call stack" "$stack" "$want"
done < /tmp/lbr.d.txt
exit $fail
