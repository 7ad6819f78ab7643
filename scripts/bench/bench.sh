#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh [OURS_BZIMAGE [STOCK_BZIMAGE]]
#
# Run tools/testing/perf-bench in our kernel and in the stock kernel
# (default: the lean kernels build/obj-bench and build/obj-stock-bench,
# built by "make bench-kernel stock-bench") and print one table:
# metric, ours, stock, ours/stock.  Exit status 1 if a metric failed or
# is missing in either kernel (or a boot crashed or timed out).
#
# Both kernels boot with identical QEMU settings: those of scripts/guest/boot.sh
# (TCG, 2G, SMP 2 as 2 sockets) on the TCG PMU model's QEMU and CPU
# (build/pmu-qemu, -cpu Skylake-PMU,intel-pt=on: hardware counters, so that the PMI
# path is measured too; "make pmu-qemu"), or without it on the system's
# QEMU with -cpu max (pmi_sample then fails), plus deterministic virtual
# time:
#   -icount shift=0,sleep=off -seed 1 -rtc clock=vm,base=2024-01-01T00:00:00
# so one guest nanosecond is one guest instruction and the numbers repeat
# from run to run, whatever the host load.  icount rules out multi-threaded
# TCG, hence our own QEMU command line here instead of boot.sh's.
#
# Environment:
#   BENCH_REPS=7        repetitions per metric (the median is reported)
#   BENCH_SCALE=1       scales every metric's iteration count
#   BENCH_SETTLE=20     guest ms of idle before each repetition
#   BENCH_METRICS=      space-separated subset (perf-bench -l lists them)
#   BENCH_PARALLEL=1    boot both kernels at once (0: one after the other)
#   BENCH_TIMEOUT=600   seconds per boot
#   QUIET=1             don't echo the guests' @@BENCH lines
#   BENCH_QEMU, BENCH_CPU  the QEMU binary and -cpu model (defaults above)
#   BENCH_VENDOR=intel  the PMU model's CPU: intel (Skylake-PMU,intel-pt=on;
#                       logs build/logs/bench-*.log, table bench.txt) or
#                       amd (EPYC-PMU; build/logs/bench-amd-*.log, bench-amd.txt)
#   BENCH_SMPS="4 8"    CPU counts of the extra boots that run syswide_stat
#                       (and its floor) once more; empty: none
# Outputs: build/initramfs-bench.cpio.gz, build/perf-bench/perf-bench,
# build/logs/bench-{ours,stock}[-smpC].log (serial logs), build/logs/bench.txt
# (the table).  Runs under build/.bench.lock.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
BZ=arch/x86/boot/bzImage
ours=$(readlink -m "${1:-$B/obj-bench/$BZ}")
stock=$(readlink -m "${2:-$B/obj-stock-bench/$BZ}")
REPS=${BENCH_REPS:-7}
SCALE=${BENCH_SCALE:-1}
SETTLE=${BENCH_SETTLE:-20}
METRICS=${BENCH_METRICS:-}
PARALLEL=${BENCH_PARALLEL:-1}
TIMEOUT=${BENCH_TIMEOUT:-600}
# the vendor's model CPU and where its logs and table go
case ${BENCH_VENDOR:-intel} in
intel)	VENDOR_CPU=Skylake-PMU,intel-pt=on L=$B/logs/bench ;;
amd)	VENDOR_CPU=EPYC-PMU L=$B/logs/bench-amd ;;
*)	echo "bench.sh: BENCH_VENDOR is intel or amd" >&2; exit 2 ;;
esac

for k in "$ours" "$stock"; do
	[ -f "$k" ] || { echo "bench.sh: no kernel $k (make bench-kernel stock-bench)" >&2; exit 1; }
done

# One benchmark run at a time per checkout (shared outputs).
if [ "${BENCH_LOCKED:-}" != 1 ]; then
	mkdir -p "$B"
	flock -n "$B/.bench.lock" true ||
		echo "  WAIT    build/.bench.lock (another make bench is running)"
	BENCH_LOCKED=1 exec flock "$B/.bench.lock" "$0" "$@"
fi

start=$(date +%s)

# ---- the benchmark program and its initramfs ------------------------------
MAKEFLAGS= make -s --no-print-directory -C "$ROOT/tools/testing/perf-bench" \
	OUTPUT="$B/perf-bench"

# a pipe into grep -q would fail under pipefail if perf-bench got SIGPIPE
known=$("$B/perf-bench/perf-bench" -l)
for m in $METRICS; do
	grep -q "^$m " <<<"$known" ||
		{ echo "bench.sh: unknown metric '$m' (perf-bench -l lists them)" >&2; exit 2; }
done

initrd=$B/initramfs-bench.cpio.gz
stage=$(mktemp -d "$B/.initramfs-bench.XXXXXX")
# shellcheck source=scripts/guest/bins.sh
. "$ROOT/scripts/guest/bins.sh"

# pack OUT: the staging directory as OUT, byte-identical from run to run
# (fixed mtimes, no gzip timestamp): the guest then boots into the same
# memory layout
pack() {
	(
		cd "$stage"
		find . -exec touch -h -d @1704067200 {} +
		find . -print0 | LC_ALL=C sort -z |
			cpio --null -o -H newc --owner=0:0 --quiet \
				--renumber-inodes --ignore-devno | gzip -n -6 > "$1.tmp.$$"
	)
	mv "$1.tmp.$$" "$1"
	echo "  INITRD  ${1#"$ROOT"/} ($(du -k "$1" | cut -f1) KiB)"
}
pids=()
cleanup() {
	rm -rf "$stage" "$initrd.tmp.$$"
	for p in ${pids[@]+"${pids[@]}"}; do kill "$p" 2>/dev/null || true; done
}
trap cleanup EXIT
(
	cd "$stage"
	chmod 755 .
	mkdir -p bin sbin usr/bin usr/sbin proc sys dev tmp
	cp /bin/busybox bin/busybox
	for a in $(bin/busybox --list-full); do
		[ -e "$a" ] || ln -s /bin/busybox "$a"
	done
	install -m 755 "$ROOT/scripts/bench/bench-init.sh" init
	install -m 755 "$B/perf-bench/perf-bench" perf-bench
	mknod -m 600 dev/console c 5 1
	mknod -m 666 dev/null c 1 3
)
pack "$initrd"

# The tool boot's initramfs: the same plus Debian's perf and tcc with
# their shared libraries, for the user-visible overhead rows (tool_*).
# A boot of its own, so that the other rows boot the small image.
tool_initrd=$B/initramfs-bench-tool.cpio.gz
want_tool=
if [ -z "$METRICS" ] || [[ " $METRICS " == *" tool_"* ]]; then
	want_tool=1
fi
if [ -n "$want_tool" ]; then
	(
		cd "$stage"
		copy_bin "$(debian_perf)" usr/bin/perf
		if [ -x /usr/bin/tcc ]; then
			copy_bin /usr/bin/tcc usr/bin/tcc
		fi
	)
	pack "$tool_initrd"
fi

# ---- boots -----------------------------------------------------------------
# the PMU model's QEMU (built without default devices: -nodefaults, and
# its firmware from the system's packages) when there is one
QEMU_MODEL=()
if [ -z "${BENCH_QEMU:-}" ] && [ -x "$B/pmu-qemu/qemu-system-x86_64" ]; then
	QEMU_BIN=$B/pmu-qemu/qemu-system-x86_64
	QEMU_CPU=${BENCH_CPU:-$VENDOR_CPU}
	QEMU_MODEL=(-nodefaults -L /usr/share/seabios -L /usr/share/qemu)
else
	QEMU_BIN=${BENCH_QEMU:-qemu-system-x86_64}
	QEMU_CPU=${BENCH_CPU:-max}
fi
echo "  QEMU    ${QEMU_BIN#"$ROOT"/} -cpu $QEMU_CPU"
append="bench.reps=$REPS bench.scale=$SCALE bench.settle=$SETTLE"
[ -n "$METRICS" ] && append="$append bench.only=$(echo $METRICS | tr ' ' ,)"

# boot NAME KERNEL LOG [CPUS [APPEND [INITRD]]]: serial console to LOG, its
# @@BENCH lines echoed
boot() {
	local name=$1 kernel=$2 log=$3 cpus=${4:-2} app=${5:-$append} rd=${6:-$initrd}
	local t0=$SECONDS rc
	echo "  BENCH   $name: booting ${kernel#"$ROOT"/} ($cpus CPUs)"
	set +e
	timeout --foreground -k 10 "$TIMEOUT" "$QEMU_BIN" "${QEMU_MODEL[@]}" \
		-accel tcg,thread=single -cpu "$QEMU_CPU" -m 2G \
		-smp "$cpus,sockets=$cpus,cores=1,threads=1" \
		-icount shift=0,sleep=off -seed 1 \
		-rtc clock=vm,base=2024-01-01T00:00:00 \
		-kernel "$kernel" -initrd "$rd" \
		-append "console=ttyS0 loglevel=7 panic=-1 nokaslr norandmaps $app" \
		-no-reboot -nic none -display none -monitor none -serial stdio \
		</dev/null 2>&1 | tee "$log" | {
			if [ -n "${QUIET:-}" ]; then
				cat >/dev/null
			else
				grep --line-buffered -aE '^@@BENCH(-FAIL)? ' |
					sed -u -e 's/\r$//' -e "s/^/  [$name] /"
			fi
			true
		}
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		echo "@@BENCH-HOST-TIMEOUT ${TIMEOUT}s" >> "$log"
	fi
	echo "  BENCH   $name: done in $((SECONDS - t0))s (qemu rc=$rc)"
}

# boots NAME-SUFFIX CPUS APPEND [INITRD]: both kernels, at once unless
# BENCH_PARALLEL=0
boots() {
	local sfx=$1 cpus=$2 app=$3 rd=${4:-$initrd}
	if [ "$PARALLEL" = 1 ]; then
		boot "ours$sfx" "$ours" "$L-ours$sfx.log" "$cpus" "$app" "$rd" & pids+=($!)
		boot "stock$sfx" "$stock" "$L-stock$sfx.log" "$cpus" "$app" "$rd" & pids+=($!)
		wait "${pids[@]}"
		pids=()
	else
		boot "ours$sfx" "$ours" "$L-ours$sfx.log" "$cpus" "$app" "$rd"
		boot "stock$sfx" "$stock" "$L-stock$sfx.log" "$cpus" "$app" "$rd"
	fi
}

mkdir -p "$B/logs"
rm -f "$L"-ours*.log "$L"-stock*.log
boots "" 2 "$append"
ours_logs=$L-ours.log
stock_logs=$L-stock.log
# The CPU-count scale rows (syswide_*) once more on bigger machines,
# each with the getppid() floor of its own boot.
sys=
for m in syswide_stat syswide_record; do
	if [ -z "$METRICS" ] || [[ " $METRICS " == *" $m "* ]]; then
		sys+=,$m
	fi
done
if [ -n "$sys" ]; then
	for c in ${BENCH_SMPS-4 8}; do
		boots "-smp$c" "$c" "bench.reps=$REPS bench.scale=$SCALE bench.settle=$SETTLE bench.only=null_syscall$sys"
		ours_logs+=,$L-ours-smp$c.log
		stock_logs+=,$L-stock-smp$c.log
	done
fi

if [ -n "$want_tool" ]; then
	tools=$("$B/perf-bench/perf-bench" -l | awk '$1 ~ /^tool_/ { print $1 }')
	if [ -n "$METRICS" ]; then
		tools=$(for m in $METRICS; do [[ $m == tool_* ]] && echo "$m"; done)
	fi
	boots "-tool" 2 "bench.reps=$REPS bench.scale=$SCALE bench.settle=$SETTLE bench.only=$(echo $tools | tr ' ' ,)" "$tool_initrd"
	ours_logs+=,$L-ours-tool.log
	stock_logs+=,$L-stock-tool.log
fi

rc=0
python3 "$ROOT/scripts/bench/bench-report.py" --out "$L.txt" \
	"$ours_logs" "$stock_logs" || rc=$?
echo "  BENCH   total $(( $(date +%s) - start ))s; serial logs ${L#"$ROOT"/}-{ours,stock}*.log, table ${L#"$ROOT"/}.txt"
exit $rc
