#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pmu-stock-cache.sh key|hit|get RESULT|put RESULT
#
# The PMU model's tests on the stock lean kernel (make test's
# pmu-model results, PMU_KERNEL=stock-bench) check the model and the
# tests' expected values against upstream's drivers; they do not depend
# on our subsystem at all. Their boots run under icount, so their logs
# are a function of their inputs alone (run-tests.sh's repeat check
# shows it, byte for byte). The inputs: the harness and the model
# (tracked files outside our subsystem and its selftests), the installed
# packages (the Debian kernel source, compilers, QEMU's source, busybox,
# perf) and the knobs that change the run. This script keys a result
# file on all of them, in ~/.cache/perf-harness, so that a clean clone
# that changes none of them reuses a passing result instead of building
# the stock kernel and booting it twice (about 10 minutes on 2 cores).
#
#   key         print the key
#   hit         print 1 if a result for the key is cached (and caching on)
#   get RESULT  copy the cached result to RESULT
#   put RESULT  cache RESULT, unless it has a FAIL line
#
# PMU_STOCK_CACHE=0 turns the cache off (hit prints nothing, put stores
# nothing).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${XDG_CACHE_HOME:-$HOME/.cache}/perf-harness

key() {
	{
		# everything tracked but our subsystem, its selftests, the
		# benchmark program and the documentation
		git -C "$ROOT" ls-files -s -- . \
			':!kernel/events' ':!arch/x86/events' ':!include/linux' \
			':!tools/testing/selftests' ':!tools/testing/perf-bench' \
			':!Documentation' ':!*.md' ':!README*' ':!.gitignore'
		# uncommitted changes to those files count too
		git -C "$ROOT" diff HEAD -- . ':!kernel/events' \
			':!arch/x86/events' ':!include/linux' ':!tools/testing/selftests' \
			':!tools/testing/perf-bench' ':!Documentation' ':!*.md'
		dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null || true
		uname -m
		echo "cpus=${PMU_CPUS:-} smps=${PMU_SMPS:-} skip=${PMU_SKIP:-}"
		echo "repeat=${PMU_TEST_REPEAT:-0} append=${APPEND:-}"
	} | sha256sum | cut -c1-32
}

on() { [ "${PMU_STOCK_CACHE:-1}" != 0 ]; }

case ${1:-} in
key)	key ;;
hit)	if on && [ -s "$DIR/pmu-stock-$(key).result" ]; then echo 1; fi ;;
get)	cp "$DIR/pmu-stock-$(key).result" "${2:?RESULT}" ;;
put)	res=${2:?RESULT}
	on || exit 0
	[ -s "$res" ] || exit 0
	! grep -q '^FAIL' "$res" || exit 0
	mkdir -p "$DIR"
	cp "$res" "$DIR/pmu-stock-$(key).result.tmp"
	mv "$DIR/pmu-stock-$(key).result.tmp" "$DIR/pmu-stock-$(key).result" ;;
*)	echo "usage: pmu-stock-cache.sh key|hit|get RESULT|put RESULT" >&2
	exit 2 ;;
esac
