#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Intel PT's clients on the model's PT (0022, intel-pt=on): the intel_pt
# PMU's sysfs (caps/ from CPUID leaf 14H as the model sets it, format/
# as 6.12's), and, with Debian's perf decoding the model's packets:
# - "perf record -e intel_pt//u" on pmu-loop (see pmu-loop.S): perf
#   script --itrace=i1i gives every instruction of it, 2N + 4, in order:
#   _start, then dec/jnz N times, then the exit sequence; --itrace=b
#   gives the N - 1 taken jnz to dec and no trace error; with perf
#   record's default events, one a CPU, the loop from its second PSB;
# - an address filter ("--filter 'filter pmu_loop_dec / 4 @ pmu-loop'"):
#   the loop traced from the first branch into the range on;
# - kernel tracing ("-e intel_pt//k") of pmu-sys2's three system calls
#   (two getppid, exit): three TIP.PGE at entry_SYSCALL_64, each tracing
#   the kernel until it returns to user space (TIP.PGD);
# - snapshot mode ("perf record -Se" into a 16 KiB area, the snapshot
#   taken at the end): the newest trace only, decoding to the loop's
#   last instructions, the exit sequence last, with no trace error;
# - perf report's call graph (--itrace=i1ig) of pmu-btrace: leaf called
#   from outer from main;
# - PERF_SAMPLE_AUX ("perf record --aux-sample" with an instructions
#   event in PT's group): one sample a 50000 instructions, each with
#   trace that decodes to pmu-loop's own instructions;
# - gdb's "record btrace pt" on pmu-btrace: its function-call history
#   and the count of instructions, the one "record full" logs.
N=100000
DEC=@loop:pmu_loop_dec@
JNZ=@loop:pmu_loop_jnz@
JNZ=$(printf %x $JNZ) DEC=$(printf %x $DEC)
dir=$(dirname "$0")
d=/sys/bus/event_source/devices/intel_pt
fail=0
ok() { # STATUS WHAT
	if [ "$1" = 0 ]; then echo "ok $2"; else echo "not ok $2"; fail=1; fi
}

# only where the CPU has PT (the alr boot's intel-pt=on)
if ! grep -q -w intel_pt /proc/cpuinfo; then
	[ ! -e $d ]
	ok $? "no intel_pt without PT in CPUID"
	exit $fail
fi
[ -d $d ]
ok $? "intel_pt is registered"
caps=$(cd $d/caps && for f in *; do printf '%s=%s ' $f "$(cat $f)"; done)
echo "# caps: $caps"
[ "$caps" = "cr3_filtering=1 cycle_thresholds=0 event_trace=0 \
ip_filtering=1 max_subleaf=1 mtc=0 mtc_periods=0 num_address_ranges=2 \
output_subsys=0 payloads_lip=0 power_event_trace=0 psb_cyc=0 \
psb_periods=0 ptwrite=0 single_range_output=1 tnt_disable=0 \
topa_multiple_entries=1 topa_output=1 " ]
ok $? "intel_pt's caps"
fmt=$(cd $d/format && for f in *; do printf '%s=%s ' $f "$(cat $f)"; done)
[ "$fmt" = "branch=config:13 cyc=config:1 cyc_thresh=config:19-22 \
event=config:31 fup_on_ptw=config:5 mtc=config:9 mtc_period=config:14-17 \
noretcomp=config:11 notnt=config:55 psb_period=config:24-27 pt=config:0 \
ptw=config:12 pwr_evt=config:4 tsc=config:10 " ]
ok $? "intel_pt's format"
[ "$(cat $d/nr_addr_filters)" = 2 ]
ok $? "nr_addr_filters: $(cat $d/nr_addr_filters)"

# a decode of thousands of packets: no rate lowered for later tests
. /usr/bin/pmu-rate.sh
rate_lift
cd /tmp || exit 1

perf record -q -e intel_pt//u --per-thread -o pt.data -- "$dir/pmu-loop" \
	> rec.out 2>&1
ok $? "perf record -e intel_pt//u pmu-loop"
sed 's/^/# /' rec.out | head -n 5
perf script -i pt.data --itrace=i1i -F ip > insn.out 2> insn.err
n=$(wc -l < insn.out)
echo "# $n instructions"
# the loop's instructions, one line each, in the order pmu-loop.S says
awk -v dec=$DEC -v jnz=$JNZ -v n=$N '
	{ $1 = $1 }
	NR == 1 { ok = ($0 == "401000"); next }
	NR <= 2 * n + 1 { if ($0 != ((NR % 2) ? jnz : dec)) bad++; next }
	{ tail = tail " " $0 }
	END { print (ok && !bad && NR == 2 * n + 4) ? "ok" : "bad " bad, tail }
' insn.out > order.out
sed 's/^/# /' order.out
grep -q '^ok' order.out
ok $? "perf script --itrace=i1i: the 2N + 4 = $((2 * N + 4)) instructions in order ($n)"
perf script -i pt.data --itrace=be -F ip,addr > br.out 2>&1
t=$(grep -c -i -E "^ *$JNZ *=> *$DEC *\$" br.out)
e=$(grep -c -i 'error' br.out)
echo "# $(wc -l < br.out) branch lines, $t jnz to dec, $e errors"
[ "$t" = $((N - 1)) ] && [ "$e" = 0 ]
ok $? "perf script --itrace=be: the N - 1 taken jnz ($t), no trace error ($e)"

# perf record's default: the task traced by an event on each CPU (one
# exclusive PMU's events in one context, one a CPU). The decoder orders
# the trace by time against the side band: with no MTC (the model's
# CPUID) the first PSB's TSC, from the enable at the exec, is all it has
# until the next PSB, before the MMAP of pmu-loop, so it decodes from
# the second PSB on (stock the same): the loop's last part, its end
perf record -q -e intel_pt//u -o cpus.data -- "$dir/pmu-loop" > crec.out 2>&1
ok $? "perf record -e intel_pt//u pmu-loop (an event a CPU)"
sed 's/^/# /' crec.out | head -n 5
perf script -i cpus.data --itrace=i1i -F ip 2>/dev/null | tr -d ' ' > cpus.out
c=$(grep -c . cpus.out)
last=$(tail -n 4 cpus.out | tr '\n' ' ')
bad=$(head -n $((c - 3)) cpus.out | grep -v -c -E "^($DEC|$JNZ)\$")
echo "# an event a CPU: $c instructions, the last: $last, $bad not the loop's"
[ "$c" -gt "$N" ] && [ "$bad" = 0 ] && [ "$last" = "$JNZ 401009 40100e 401010 " ]
ok $? "an event a CPU: the loop's dec and jnz, then its exit ($c)"

# an address filter on pmu-loop's dec and jnz (its file offsets): the
# model's FilterEn changes at branches, so tracing starts at the first
# jnz's target (dec and jnz N - 1 times) and ends at the exit syscall,
# after the 3 instructions that follow the loop
perf record -q -e intel_pt//u --filter "filter pmu_loop_dec / 4 @ $dir/pmu-loop" \
	--per-thread -o f.data -- "$dir/pmu-loop" > frec.out 2>&1
ok $? "perf record --filter 'filter pmu_loop_dec / 4 @ pmu-loop'"
sed 's/^/# /' frec.out | head -n 5
perf script -i f.data --itrace=i1ie -F ip > f.out 2>&1
f=$(grep -c . f.out)
e=$(grep -c -i error f.out)
ips=$(tr -d ' ' < f.out | sort | uniq -c | tr -s ' \n' ' ')
echo "# filter: $f instructions, $e errors: $ips"
[ "$e" = 0 ] && [ "$f" = $((2 * N + 1)) ] &&
	[ "$ips" = " $((N - 1)) $DEC $((N - 1)) $JNZ 1 401009 1 40100e 1 401010 " ]
ok $? "filter: dec and jnz N - 1 times, then the exit ($f), no trace error"

# kernel tracing: pmu-sys2's 2 getppid and exit enter at entry_SYSCALL_64
entry=$(awk '$3 == "entry_SYSCALL_64" { print $1; exit }' /proc/kallsyms |
	sed 's/^0*//')
perf record -q -e intel_pt//k --per-thread -o k.data -- "$dir/pmu-sys2" \
	> krec.out 2>&1
ok $? "perf record -e intel_pt//k pmu-sys2"
perf script -i k.data -D 2>/dev/null | grep -E ' (TIP|TIP.PGE|TIP.PGD|FUP) ' > kd.out
pge=$(grep -c -i "TIP.PGE 0x$entry\$" kd.out)
user=$(grep -E ' (TIP|TIP.PGE|FUP) 0x' kd.out | grep -v -c ' 0xffff')
echo "# $(wc -l < kd.out) IP packets, $pge TIP.PGE at entry_SYSCALL_64 ($entry), $user with user addresses"
grep -c "TIP.PGD" kd.out | sed 's/^/# TIP.PGD: /'
[ "$pge" = 3 ] && [ "$user" = 0 ]
ok $? "intel_pt//k: 3 system calls traced from entry_SYSCALL_64, no user address"

# snapshot mode: a 16 KiB area holds the newest trace of the loop
perf record -q -e intel_pt//u -Se -m ,16K --per-thread -o snap.data \
	-- "$dir/pmu-loop" > srec.out 2>&1
ok $? "perf record -Se -m ,16K -e intel_pt//u pmu-loop"
sed 's/^/# /' srec.out | head -n 5
perf script -i snap.data --itrace=i1ie -F ip > snap.out 2>&1
s=$(grep -c . snap.out)
e=$(grep -c -i error snap.out)
last=$(tail -n 4 snap.out | tr -s ' \n' ' ')
echo "# snapshot: $s instructions, $e errors, the last: $last"
[ "$s" -gt 1000 ] && [ "$s" -lt $((2 * N)) ] && [ "$e" = 0 ] &&
	[ "$last" = " $JNZ 401009 40100e 401010 " ]
ok $? "snapshot: the loop's end only, no trace error"

# perf report's call graph from the trace (--itrace=g): each instruction
# of leaf() a sample whose chain is leaf < outer < main
perf record -q -e intel_pt//u --per-thread -o cg.data -- "$dir/pmu-btrace" \
	> cgrec.out 2>&1
ok $? "perf record -e intel_pt//u pmu-btrace"
perf report -i cg.data --itrace=i1ig --stdio --no-children -S leaf -F sym -g graph,0 \
	2> /dev/null | awk '/\[\.\] leaf/ { on = 1; next } /\[\.\]/ { on = 0 }
		on && !/^#/ { gsub(/[-|]/, ""); if (NF) print $1 }' > cg.out
chain=$(head -n 3 cg.out | tr '\n' ' ')
echo "# leaf's chain: $(tr '\n' ' ' < cg.out)"
[ "$chain" = "leaf outer main " ]
ok $? "perf report --itrace=i1ig: leaf's call chain: $chain"

# PERF_SAMPLE_AUX: instructions samples carrying the newest 8 KiB of trace
perf record -q --aux-sample=8192 -e '{intel_pt//u,instructions:u}' -c 50000 \
	--per-thread -o as.data -- "$dir/pmu-loop" > asrec.out 2>&1
ok $? "perf record --aux-sample=8192 -e '{intel_pt//u,instructions:u}'"
sed 's/^/# /' asrec.out | head -n 5
n=$(perf script -i as.data -D 2>/dev/null | grep -c "PERF_RECORD_SAMPLE")
perf script -i as.data --itrace=i1ie -F ip > as.out 2>&1
e=$(grep -c -i error as.out)
other=$(tr -d ' ' < as.out | grep -v -c -E "^(401000|$DEC|$JNZ|401009|40100e|401010)\$")
echo "# aux-sample: $n samples, decoded: $(grep -c . as.out) lines, $e errors, $other not pmu-loop's"
[ "$n" = 4 ] && [ "$e" = 0 ] && [ "$other" = 0 ] && [ -s as.out ]
ok $? "aux-sample: 4 samples (2N + 4 instructions, period 50000) whose trace decodes to pmu-loop's instructions"

# gdb: trace outer() and done() with PT
gdb -nx -batch -ex 'break outer' -ex run -ex 'record btrace pt' \
	-ex 'break main' -ex 'finish' -ex 'next' \
	-ex 'record function-call-history /c' \
	-ex 'info record' -ex kill "$dir/pmu-btrace" > gdb.out 2>&1
sed 's/^/# gdb: /' gdb.out | tail -n 16
grep -q 'Recording format: Intel Processor Trace' gdb.out
ok $? "gdb: record btrace pt"
hist=$(awk 'NF == 2 && $1 ~ /^[0-9]+$/ { print $2 }' gdb.out | tr '\n' ' ')
[ "$hist" = "outer leaf outer leaf outer leaf outer main done " ]
ok $? "gdb: function-call-history: $hist"
rec=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' gdb.out)
gdb -nx -batch -ex 'break outer' -ex run -ex 'record full' \
	-ex 'break main' -ex 'finish' -ex 'next' -ex 'info record' \
	-ex kill "$dir/pmu-btrace" > full.out 2>&1
full=$(sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p' full.out)
[ -n "$rec" ] && [ "$rec" = "$full" ]
ok $? "gdb: btrace pt recorded $rec instructions, record full $full"
rate_restore
exit $fail
