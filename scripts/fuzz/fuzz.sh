#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fuzz.sh KERNEL BASE-INITRD: make fuzz.
#
# Boots KERNEL (KASAN, lockdep, kmemleak: config/fuzz.config) at SMP CPUs
# (default 4) and, for FUZZ_MIN minutes (default 30), runs at once:
#   - Debian's trinity as an unprivileged user on the perf syscalls and
#     the ones around them (perf_event_open, ioctl, read, mmap, munmap,
#     close, prctl, fork, execve), seed FUZZ_SEED; without its socket fd
#     provider, on which trinity 1.9 itself segfaults at startup when
#     most address families are missing (as in our kernels);
#   - perf_fuzz fuzz (tools/testing/selftests/perf_events/perf_fuzz.c):
#     mostly valid random events and operations on them, half the
#     workers unprivileged, with CPU hotplug churn, seeds FUZZ_SEED..+7.
# Then FUZZ_CYCLES open/mmap/munmap/close cycles (100k; 20k on the PMU
# model, whose TCG is slower: 100k did not fit in 15 minutes there) and
# a kmemleak scan.
# FUZZ_KERNEL (ours, stock) names the log: build/logs/fuzz[-stock]-....
# FUZZ_CPU=Skylake-PMU|Icelake-PMU|EPYC-PMU|Icelake-PMU,arch-lbr=on,...
# boots on the TCG PMU model (build/pmu-qemu, make pmu-qemu) with that
# CPU, so that the hardware PMUs' drivers (counters, PEBS, LBR, IBS,
# uncore, RAPL, cstate, msr) are there for perf_fuzz, which picks every
# PMU it finds in sysfs; under -icount (one TCG thread), since the
# model's counters count only there: without it they stay at 0 and no
# overflow, PMI or PEBS drain ever happens. FUZZ_MTTCG=1: without icount
# (the vCPUs on threads of their own, truly parallel; the counters dead).
# Fails (exit 1) on any kernel report on the console, a kmemleak report,
# a fuzzer that did not finish, or a guest that hung or died; prints the
# seeds, the counts and the first report.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
kernel=$1 base=$2
FUZZ_MIN=${FUZZ_MIN:-30}
FUZZ_SEED=${FUZZ_SEED:-$(date +%s)}
SMP=${SMP:-4}
secs=$(( FUZZ_MIN * 60 ))
FUZZ_CPU=${FUZZ_CPU:-}
FUZZ_CYCLES=${FUZZ_CYCLES:-$([ -n "$FUZZ_CPU" ] && echo 20000 || echo 100000)}
tag=${FUZZ_CPU:+-$(echo "$FUZZ_CPU" | tr -c 'A-Za-z0-9\n' - | tr A-Z a-z)}
[ "${FUZZ_KERNEL:-ours}" = ours ] || tag=-$FUZZ_KERNEL$tag
log=$B/logs/fuzz$tag-smp$SMP.log
# Every run boots the model's QEMU: it carries patch 0020, which mends
# the MTTCG race of stale code translations that made both kernels oops
# in text_poke_bp's int3 (fuzzing.rst); Debian's QEMU has the race. A
# plain run (no FUZZ_CPU) asks it for Debian's TCG CPU, "max" with the
# PMU off: its "max" turns the PMU model on, which then hangs before
# the firmware prints anything without -icount.
[ -x "$B/pmu-qemu/qemu-system-x86_64" ] ||
	{ echo "fuzz.sh: no build/pmu-qemu (make pmu-qemu)" >&2; exit 1; }
model=(CPU="${FUZZ_CPU:-max,pmu=off}" QEMU="$B/pmu-qemu/qemu-system-x86_64"
       QEMU_NODEFAULTS=1
       QEMU_EXTRA="-L /usr/share/seabios -L /usr/share/qemu")
[ -z "$FUZZ_CPU" ] || [ "${FUZZ_MTTCG:-0}" = 1 ] || model+=(ICOUNT=shift=0,sleep=off)
initrd=$B/initramfs-fuzz$$.cpio
trap 'rm -f "$initrd" "${initrd%.cpio}.list"' EXIT
mkdir -p "$B/logs"

cmd="cd /tmp
echo @@FUZZ seed=$FUZZ_SEED minutes=$FUZZ_MIN cpus=\$(grep -c ^processor /proc/cpuinfo) model=${FUZZ_CPU:-none}
echo @@FUZZ-PMUS \$(ls /sys/bus/event_source/devices | tr '\\n' ' ')
echo 1 > /proc/sys/kernel/panic_on_warn 2>/dev/null || true
chmod 777 /tmp
runas 1000 1000 timeout -s INT $secs trinity -q -l off -C 2 -s $FUZZ_SEED \
	--disable-fds=sockets \
	-c perf_event_open -c ioctl -c read -c mmap -c munmap -c close \
	-c prctl -c fork -c execve > /tmp/trinity.out 2>&1 &
tpid=\$!
/tests/perf_fuzz fuzz $FUZZ_SEED $secs 8
echo @@FUZZ-PERF rc=\$?
wait \$tpid
echo @@FUZZ-TRINITY rc=\$?
grep -a -E 'Ran [0-9]+ syscalls|syscalls.*succeeded' /tmp/trinity.out | tail -n 3
tail -n 3 /tmp/trinity.out
echo @@FUZZ-CYCLES start at \$(cut -d' ' -f1 /proc/uptime)
/tests/perf_fuzz cycles $FUZZ_CYCLES
echo @@FUZZ-CYCLES rc=\$? cycles=$FUZZ_CYCLES at \$(cut -d' ' -f1 /proc/uptime)
if [ -w /sys/kernel/debug/kmemleak ]; then
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	n=\$(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak)
	echo @@FUZZ-KMEMLEAK leaks=\$n
	head -n 40 /sys/kernel/debug/kmemleak
else
	echo @@FUZZ-KMEMLEAK unavailable
fi
echo @@FUZZ-END"
# FUZZ_MODE=ftrace: no perf and no trinity; ftrace's function tracer
# switched on and off (every function entry patched through int3 and
# back) while CPUs 1.. go offline and online and shells fork on the
# others: the "Oops: int3" question of fuzzing.rst without our code.
# FUZZ_FTRACE_FILTER: the functions patched (set_ftrace_filter globs;
# "*" for all, which under TCG with KASAN and lockdep leaves the guest
# too slow to bring a CPU online in 20 minutes): by default those the
# CPU hotplug path runs, where every sighting's int3 was.
FUZZ_FTRACE_FILTER=${FUZZ_FTRACE_FILTER:-'*cpus_allowed* kthread* *worker* cpuhp_* *smpboot* *_cpu_up* *_cpu_down* *wake_up*'}
if [ "${FUZZ_MODE:-}" = ftrace ]; then
	log=${log%.log}-ftrace.log
	cmd="cd /tmp
echo @@FUZZ seed=none minutes=$FUZZ_MIN cpus=\$(grep -c ^processor /proc/cpuinfo) model=${FUZZ_CPU:-none} mode=ftrace
echo 1 > /proc/sys/kernel/panic_on_warn 2>/dev/null || true
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
T=/sys/kernel/tracing
end=\$(( \$(cut -d. -f1 /proc/uptime) + $secs ))
n=\$(grep -c ^processor /proc/cpuinfo)
(c=0; while [ \$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
	cpu=\$(( 1 + c % (n - 1) ))
	echo 0 > /sys/devices/system/cpu/cpu\$cpu/online && sleep 0.02 &&
		echo 1 > /sys/devices/system/cpu/cpu\$cpu/online && c=\$((c + 1))
	[ \$((c % 200)) != 0 ] || echo @@FUZZ-CHURN cycles=\$c at \$(cut -d' ' -f1 /proc/uptime)
	sleep 0.05
done; echo @@FUZZ-CHURN cycles=\$c) &
for w in 1 2; do (while [ \$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
	cat /proc/[0-9]*/stat > /dev/null 2>&1; ls -R /sys/devices/system/cpu > /dev/null 2>&1
done) & done
set -f; for f in $FUZZ_FTRACE_FILTER; do echo \"\$f\" >> \$T/set_ftrace_filter 2>/dev/null; done; set +f
echo @@FUZZ-FTRACE filter=\$(wc -l < \$T/set_ftrace_filter) of \$(wc -l < \$T/available_filter_functions)
i=0
while [ \$(cut -d. -f1 /proc/uptime) -lt \$end ]; do
	echo function > \$T/current_tracer; sleep 0.05; echo nop > \$T/current_tracer
	i=\$((i + 1))
	[ \$((i % 500)) != 0 ] || echo @@FUZZ-FTRACE toggles=\$i at \$(cut -d' ' -f1 /proc/uptime)
done
echo @@FUZZ-FTRACE toggles=\$i
wait
echo @@FUZZ-END"
fi
"$ROOT/scripts/guest/mkinitramfs.sh" -o "$initrd" -b "$base" -c "$cmd"

start=$(date +%s)
env ${model[@]+"${model[@]}"} SMP=$SMP QUIET=1 QEMU_TIMEOUT=$(( secs + 1800 )) \
	APPEND="${APPEND:-}" "$ROOT/scripts/guest/boot.sh" "$kernel" "$initrd" cmd > "$log" 2>&1 || true
echo "  FUZZ    seed $FUZZ_SEED, $FUZZ_MIN min at smp $SMP${FUZZ_CPU:+ on $FUZZ_CPU}, $(( $(date +%s) - start ))s; log $log"

REPORT_RE='WARNING:|BUG:|kernel BUG at|KASAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|rcu_sched self-detected stall|rcu: INFO|soft lockup|hard LOCKUP|Oops|general protection fault|refcount_t:|list_add corruption|list_del corruption|UBSAN|sleeping function called from invalid context|blocked for more than|Kernel panic'
fail=0
grep -a -E '@@FUZZ|worker seed|hotplug:|cycles:|opened' "$log" || true
if grep -a -E "$REPORT_RE" "$log" | grep -v 'RCU lockdep checking is enabled' > /dev/null; then
	echo "FAIL fuzz: kernel report (seed $FUZZ_SEED):"
	grep -a -E -m1 -A30 "$REPORT_RE" "$log" | grep -v 'RCU lockdep checking'
	fail=1
fi
grep -a -q '@@FUZZ-END' "$log" || { echo "FAIL fuzz: guest did not finish (seed $FUZZ_SEED)"; fail=1; }
if [ "${FUZZ_MODE:-}" != ftrace ]; then
	grep -a -q '@@FUZZ-PERF rc=0' "$log" || { echo "FAIL fuzz: perf_fuzz did not finish cleanly"; fail=1; }
	grep -a -q '@@FUZZ-CYCLES rc=0' "$log" || { echo "FAIL fuzz: open/mmap cycles did not finish"; fail=1; }
fi
if grep -a -q -E '@@FUZZ-KMEMLEAK leaks=[1-9]' "$log"; then
	echo "FAIL fuzz: kmemleak reports leaks"
	fail=1
fi
[ $fail = 0 ] && echo "PASS fuzz: seed $FUZZ_SEED, $FUZZ_MIN min, smp $SMP${FUZZ_CPU:+, $FUZZ_CPU}"
exit $fail
