#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pmu-perf-test-table.sh KERNEL [CPU...]: Debian's perf test sequence
# (tests/pmu-perf-test-all.sh) on KERNEL booted on each CPU model
# (default Skylake-PMU), its table written to
# stock-results/perf-test-<vendor>-<family>-<model>.txt. Run on the stock
# lean kernel (make stock-bench) it makes the tables that
# pmu-perf-test-all.sh holds our kernel to; on another kernel, with
# TABLE_DIR=DIR, the same tables for comparing by hand.
# PERF_TEST_ALL=full: every test, the userspace-only ones too;
# PERF_TEST_ONLY=N,M: only those. The serial log stays in
# build/logs/perf-test-table-<cpu>.log (perf test -v of each failure).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
kernel=$1; shift
cpus=${*:-Skylake-PMU}
dir=${TABLE_DIR:-$HERE/stock-results}
mkdir -p "$dir"
append="perf_test_table${PERF_TEST_ALL:+ perf_test_all=$PERF_TEST_ALL}"
append+="${PERF_TEST_ONLY:+ perf_test_only=$PERF_TEST_ONLY}"
tag=ptt$$
for cpu in $cpus; do
	PMU_TAG=$tag APPEND="$append" PMU_ONLY=pmu-perf-test-all.sh \
	PMU_ICX_TESTS=pmu-perf-test-all.sh PMU_ALR_TESTS=pmu-perf-test-all.sh \
	PMU_ADL_TESTS=pmu-perf-test-all.sh \
	PMU_CPUS="$cpu" PMU_REPEAT=0 "$HERE/run-tests.sh" "$kernel" |
		grep -E '^(PASS|FAIL) pmu-perf-test-all' || true
done
for log in "$ROOT"/build/logs/pmu-$tag-*-smp*.log; do
	id=$(grep -a -m1 -o '^cpu [A-Za-z]*-[0-9]*-[0-9]*' "$log" | cut -d' ' -f2) ||
		{ echo "no perf test run in $log" >&2; exit 1; }
	grep -a '^perf-test ' "$log" > "$dir/perf-test-$id.txt"
	echo "  TABLE   $dir/perf-test-$id.txt: $(wc -l < "$dir/perf-test-$id.txt") results," \
		"$(grep -c ' Ok ' "$dir/perf-test-$id.txt") Ok," \
		"$(grep -c -E ' (FAILED|TIMEOUT) ' "$dir/perf-test-$id.txt") failed"
	mv "$log" "$ROOT/build/logs/perf-test-table-$id.log"
done
