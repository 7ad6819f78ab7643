#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# perf-eco: the Debian image's checks, run by perf-eco.service once the
# system is up, in the booted kernel, as a user of a Debian 12 machine
# would use perf: Debian's perf, bpftrace and the bcc tools, on a known
# workload (ecomark) wherever a tool can be asked for an exact answer.
#
# Results go to the second serial port (/dev/ttyS1; debian-boot.sh
# keeps it in a file), one line each, compared between kernels on the
# host by debian-compare.sh:
#   @@R SECTION NAME PASS|FAIL|SKIP DETAIL
#   @@T NUMBER RESULT DESCRIPTION     (one line per perf test result)
#   @@END
# The kernel command line's perfeco=SECTION,... picks sections (boot,
# bpftrace, bcc, perf, perftest); plain perfeco runs them all.
set -u
# job control: the tools started in the background keep SIGINT (a
# non-interactive shell would start them with it ignored), which is how
# they are told to print their counts and end
set -m
OUT=/dev/ttyS1
[ -w "$OUT" ] || OUT=/dev/console
exec 3> "$OUT"
W=/tmp/perf-eco
rm -rf "$W"
mkdir -p "$W"
cd "$W" || exit 1
M=/usr/local/bin/ecomark
# the bcc tools are Python: their output to a file must not wait in a
# buffer, or a tool's header (which says it is attached) comes too late
export PYTHONUNBUFFERED=1
REL=$(uname -r)

sections=$(sed -n 's/.*perfeco=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')
[ -n "$sections" ] || sections="boot bpftrace bcc perf perftest"
want() { case " $sections " in *" $1 "*) return 0 ;; esac; return 1; }

res() {	# res SECTION NAME RESULT DETAIL...
	local s=$1 n=$2 r=$3
	shift 3
	echo "@@R $s $n $r $(echo "$*" | tr '\n' ' ' | cut -c1-200)" >&3
	echo "perf-eco: $s $n $r"
}

# expect SECTION NAME FILE REGEX: PASS with the first matching line
expect() {
	local line
	line=$(grep -m1 -E -- "$4" "$3")
	if [ -n "$line" ]; then
		res "$1" "$2" PASS "$line"
	else
		res "$1" "$2" FAIL "no /$4/: $(grep -v '^$' "$3" | tail -3)"
	fi
}

# wait_for FILE REGEX SECS: until a tool in the background says it is ready
wait_for() {
	local i
	for ((i = 0; i < $3 * 2; i++)); do
		grep -qE -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.5
	done
	return 1
}

# a tool that runs until interrupted: start it, wait for its header,
# run the workload, interrupt it
# bg_tool SECTION NAME READY_REGEX EXPECT_REGEX WORKLOAD -- TOOL ARGS...
bg_tool() {
	local s=$1 n=$2 ready=$3 exp=$4 work=$5 pid
	shift 6
	"$@" > "$W/$n.out" 2>&1 &
	pid=$!
	if ! wait_for "$W/$n.out" "$ready" 180; then
		kill -INT $pid 2>/dev/null
		sleep 2
		kill -KILL $pid 2>/dev/null
		wait $pid 2>/dev/null
		res "$s" "$n" FAIL "not ready: $(tail -3 "$W/$n.out")"
		return
	fi
	sleep 1
	eval "$work"
	sleep 2
	kill -INT $pid 2>/dev/null
	for ((i = 0; i < 60; i++)); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.5
	done
	kill -KILL $pid 2>/dev/null
	wait $pid 2>/dev/null
	expect "$s" "$n" "$W/$n.out" "$exp"
}

echo "@@START $REL $(nproc) cpus" >&3

# ---- the system came up --------------------------------------------------
if want boot; then
	res boot release PASS "$REL"
	if [ "$(systemctl is-active multi-user.target)" = active ]; then
		res boot multi-user PASS "multi-user.target active"
	else
		res boot multi-user FAIL "$(systemctl is-active multi-user.target)"
	fi
	failed=$(systemctl --failed --plain --no-legend | awk '{ print $1 }')
	if [ -z "$failed" ]; then
		res boot units PASS "no failed unit"
	else
		res boot units FAIL "$failed"
	fi
	journalctl -k -b --no-pager > "$W/kernel.log" 2>&1
	# a CPU bug's notice ("RETBleed: WARNING: ...", under Debian's
	# mitigations on the model's Skylake) is not a splat
	bad=$(grep -E 'WARNING:|BUG:|Oops|KASAN|lockdep|Call Trace|general protection|possible circular|suspicious RCU' "$W/kernel.log" |
	      grep -vE 'kernel: [A-Za-z][A-Za-z0-9 ]*: WARNING: ')
	if [ -z "$bad" ]; then
		res boot journal-k PASS "$(wc -l < "$W/kernel.log") kernel lines, none bad"
	else
		res boot journal-k FAIL "$bad"
	fi
fi

# ---- bpftrace: kprobes, tracepoints, uprobes, profile, interval ---------
if want bpftrace; then
	bt() {	# bt NAME EXPECT_REGEX PROGRAM [-c CMD]
		local n=$1 exp=$2
		shift 2
		timeout 300 bpftrace "$@" > "$W/bt-$n.out" 2>&1
		expect bpftrace "$n" "$W/bt-$n.out" "$exp"
	}
	bt uprobe '^@calls: 1000$' \
		-e "uprobe:$M:eco_marker_fn { @calls = count(); }" -c "$M calls 1000"
	bt uretprobe '^@rets: 1000$' \
		-e "uretprobe:$M:eco_marker_fn { @rets = count(); }" -c "$M calls 1000"
	bt tracepoint '^@n: 1000$' \
		-e 'tracepoint:syscalls:sys_enter_getppid /pid == cpid/ { @n = count(); }' \
		-c "$M calls 1000"
	bt kprobe '^@n: 1000$' \
		-e 'kprobe:__x64_sys_getppid /pid == cpid/ { @n = count(); }' \
		-c "$M calls 1000"
	bt kretprobe '^@n: 1000$' \
		-e 'kretprobe:__x64_sys_getppid /pid == cpid/ { @n = count(); }' \
		-c "$M calls 1000"
	bt profile '^@samples: ([2-9][0-9]{2}|1[5-9][0-9])$' \
		-e 'profile:hz:99 /pid == cpid/ { @samples = count(); }' -c "$M burn 3"
	bt interval '^@ticks: 10$' \
		-e 'interval:ms:100 { @ticks++; if (@ticks == 10) { exit(); } }'
	bt kstack 'ecoburn' \
		-e 'profile:hz:99 /pid == cpid/ { @[comm, kstack(2)] = count(); }' -c "$M burn 2"
	bt software '^@faults: [1-9]' \
		-e 'software:page-faults:1 /pid == cpid/ { @faults = count(); }' -c "$M calls 10"
fi

# ---- the bcc tools (Debian names them *-bpfcc) ---------------------------
if want bcc; then
	echo eco > "$W/eco-open-marker"
	bg_tool bcc execsnoop '^PCOMM' 'ecomark' "$M calls 1" -- execsnoop-bpfcc
	bg_tool bcc opensnoop '^PID' 'eco-open-marker' "$M open $W/eco-open-marker 3" -- \
		opensnoop-bpfcc
	# trace: a kprobe's argument (AT_FDCWD), and a uprobe's
	bg_tool bcc trace-kprobe '^PID' 'ecomark +do_sys_openat2 +dfd=-100' \
		"$M open $W/eco-open-marker 3" -- trace-bpfcc 'do_sys_openat2 "dfd=%d", arg1'
	# (not its user-space path, "%s", arg2: Debian's trace-bpfcc prints
	# it empty on 6.12, on stock as on ours)
	bg_tool bcc trace-uprobe '^PID' 'ecomark +eco_marker_fn +i=4$' "$M calls 5" -- \
		trace-bpfcc "p:$M:eco_marker_fn \"i=%d\", arg1"
	bg_tool bcc funccount 'Tracing' '^vfs_read +[1-9]' "head -c 100000 /dev/zero | cat > /dev/null" -- \
		funccount-bpfcc vfs_read
	bg_tool bcc stackcount 'Tracing' '^ +vfs_read$' "head -c 100000 /dev/zero | cat > /dev/null" -- \
		stackcount-bpfcc vfs_read
	# the sampling and histogram tools run for a fixed time: the
	# workload runs all along
	$M burn 900 & burn=$!
	$M sleep 900 & slp=$!
	timeout 200 profile-bpfcc -F 99 -f 8 > "$W/profile.out" 2>&1
	expect bcc profile "$W/profile.out" '^ecoburn;.* [1-9][0-9]*$'
	timeout 200 offcputime-bpfcc -f 8 > "$W/offcputime.out" 2>&1
	expect bcc offcputime "$W/offcputime.out" '^ecosleep;.* [1-9][0-9]*$'
	timeout 200 runqlat-bpfcc 8 1 > "$W/runqlat.out" 2>&1
	expect bcc runqlat "$W/runqlat.out" '^ +[0-9]+ -> [0-9]+ +: [1-9][0-9]* +\|'
	timeout 200 cpudist-bpfcc 8 1 > "$W/cpudist.out" 2>&1
	expect bcc cpudist "$W/cpudist.out" '^ +[0-9]+ -> [0-9]+ +: [1-9][0-9]* +\|'
	timeout 200 llcstat-bpfcc 8 > "$W/llcstat.out" 2>&1
	if grep -q 'Failed to attach to a hardware event' "$W/llcstat.out"; then
		res bcc llcstat SKIP "no hardware cache events: $(grep -m1 Failed "$W/llcstat.out")"
	else
		expect bcc llcstat "$W/llcstat.out" 'Total References: [1-9]'
	fi
	kill $burn $slp 2>/dev/null
	wait $burn $slp 2>/dev/null
fi

# ---- perf: a kernel build of a few files, recorded system-wide ----------
if want perf; then
	rm -rf "$W/ecomod"
	cp -r /usr/local/share/ecomod "$W/ecomod"
	perf record -q -a -g -o "$W/kbuild.data" -- \
		make -C "/lib/modules/$REL/build" M="$W/ecomod" modules > "$W/kbuild.out" 2>&1
	if [ -f "$W/ecomod/ecomod.ko" ]; then
		res perf record-kbuild PASS "ecomod.ko built against linux-headers-$REL under perf record -a -g"
	else
		res perf record-kbuild FAIL "$(tail -3 "$W/kbuild.out")"
	fi
	if insmod "$W/ecomod/ecomod.ko" 2> "$W/insmod.out" && rmmod ecomod; then
		grep -q 'ecomod: loaded, table sum 87' <<<"$(dmesg)" &&
			res perf module-load PASS "$(dmesg | grep -m1 'ecomod: loaded')" ||
			res perf module-load FAIL "no load message"
	else
		res perf module-load FAIL "$(cat "$W/insmod.out")"
	fi
	perf report -i "$W/kbuild.data" --stdio --no-children --sort comm -g none > "$W/report.out" 2>&1
	expect perf report-comm "$W/report.out" '^ +[0-9.]+% +cc1 *$'
	perf report -i "$W/kbuild.data" --stdio --no-children --sort sym -g caller > "$W/report-g.out" 2>&1
	expect perf report-callchain "$W/report-g.out" '--[0-9.]+%--|---[a-z_]'
	perf script -i "$W/kbuild.data" -F comm,ip,sym > "$W/script.out" 2>&1
	frames=$(grep -cE '^\s+[0-9a-f]+ ' "$W/script.out")
	if [ "$frames" -gt 100 ]; then
		res perf script-frames PASS "$frames callchain frames"
	else
		res perf script-frames FAIL "$frames callchain frames: $(tail -2 "$W/script.out")"
	fi
	$M burn 30 & burn=$!
	timeout -s INT 15 perf top --stdio -d 3 -E 20 > "$W/top.out" 2>&1
	kill $burn 2>/dev/null
	wait $burn 2>/dev/null
	expect perf top "$W/top.out" '%.*ecoburn|ecomark.*%|%.*\[\.\]'
	perf stat -x, -e task-clock,context-switches,page-faults,instructions:u -- $M calls 100000 \
		> /dev/null 2> "$W/stat.out"
	expect perf stat "$W/stat.out" '^[0-9.]+,msec,task-clock'
	# perf stat's own count of a software event is exact
	perf stat -x, -e syscalls:sys_enter_getppid -- $M calls 12345 > /dev/null 2> "$W/stat-tp.out"
	expect perf stat-tracepoint "$W/stat-tp.out" '^12345,,syscalls:sys_enter_getppid'
	perf probe -q -x $M eco_marker_fn > "$W/probe.out" 2>&1
	perf stat -x, -e probe_ecomark:eco_marker_fn -- $M calls 777 > /dev/null 2> "$W/stat-probe.out"
	perf probe -q -d 'probe_ecomark:*' > /dev/null 2>&1
	expect perf probe-uprobe "$W/stat-probe.out" '^777,,probe_ecomark:eco_marker_fn'
fi

# ---- Debian's perf test suite, every test on its own --------------------
if want perftest; then
	perf test list 2>&1 | sed -n 's/^ *\([0-9]\+\): .*/\1/p' > "$W/perftest.list"
	while read -r t; do
		timeout -k 5 300 perf test "$t" > "$W/pt.out" 2>&1
		rc=$?
		if [ $rc = 124 ] || [ $rc = 137 ]; then
			echo "@@T $t TIMEOUT $(grep -m1 -E "^ *$t:" "$W/pt.out" | cut -d: -f2-)" >&3
		fi
		grep -E '^ *[0-9]+(\.[0-9]+)?: .*: (Ok|FAILED!|Skip.*)$' "$W/pt.out" |
		sed -E 's/^ *([0-9.]+): (.*[^ ]) *: (Ok|FAILED!|Skip)(.*)$/@@T \1 \3 \2/; s/ FAILED! / FAILED /' >&3
	done < "$W/perftest.list"
fi

echo "@@END" >&3
