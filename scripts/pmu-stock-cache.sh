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
# A cold machine has no ~/.cache: the result for the committed inputs
# also lives in the repository (tools/testing/pmu-model/stock-results,
# written by "save" once a stop's harness, model and tests are final),
# keyed the same way. The packages in the key are the ones the build and
# the boots use (the harness's and the model's dependencies, the
# toolchain, QEMU), not everything installed, so that a fresh machine
# with the same Debian archive computes the same key. (The model's own
# build dependencies are left out: its deps.sh installs them between the
# two lookups of one make test, and the QEMU source version is keyed by
# qemu-system-x86's.)
#
#   key         print the key
#   hit         print 1 if a result for the key is cached (and caching on)
#   get RESULT  copy the cached result to RESULT
#   put RESULT  cache RESULT, unless it has a FAIL line
#   save        copy the cached result for the key into the repository
#
# PMU_STOCK_CACHE=0 turns the cache off (hit prints nothing, put stores
# nothing).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=${XDG_CACHE_HOME:-$HOME/.cache}/perf-harness
REPO_DIR=$ROOT/tools/testing/pmu-model/stock-results
# what the stock run is made of, beyond the tracked files
PKG_RE='^(linux-source-6\.12|linux-config-6\.12|qemu-system-x86|qemu-system-data|seabios|busybox-static|gcc|gcc-12|cpp-12|binutils|binutils-x86-64-linux-gnu|libc6|libc6-dev|make|bc|flex|bison|libelf1|libelf-dev|libssl-dev|cpio|linux-perf|dwarves|perl|kmod|gdb-minimal|bpftrace|systemtap-sdt-dev|papi-tools|libpapi7\.1|libpfm4|libpfm4-dev|clang|clang-14|llvm-14|libbpf1|libbpf-dev|python3)$'

NOT_KEYED=(':!kernel/events' ':!arch/x86/events' ':!include/linux'
	':!tools/testing/selftests' ':!tools/testing/perf-bench'
	':!Documentation' ':!*.md' ':!README*' ':!.gitignore' ':!.ci'
	':!tools/testing/pmu-model/stock-results'
	':!scripts/bench-init.sh' ':!scripts/bench-report.py'
	':!scripts/bench.sh' ':!scripts/checkpatch.sh'
	':!scripts/distro-users.sh' ':!scripts/distro.sh' ':!scripts/fuzz.sh'
	':!scripts/perf-diff.sh' ':!scripts/perf-options.py'
	':!scripts/quick-test.sh' ':!scripts/run-tests.sh')

key() {
	{
		# everything tracked but our subsystem, its selftests, the
		# benchmark program and the documentation, and the harness
		# scripts the stock model run never calls
		git -C "$ROOT" ls-files -s -- . "${NOT_KEYED[@]}"
		# uncommitted changes to those files count too
		git -C "$ROOT" diff HEAD -- . "${NOT_KEYED[@]}"
		dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null |
			awk -v re="$PKG_RE" '$1 ~ re' | sort || true
		uname -m
		echo "cpus=${PMU_CPUS:-} smps=${PMU_SMPS:-} skip=${PMU_SKIP:-}"
		echo "repeat=${PMU_TEST_REPEAT:-0} append=${APPEND:-}"
	} | sha256sum | cut -c1-32
}

on() { [ "${PMU_STOCK_CACHE:-1}" != 0 ]; }

# the cached result for the key: ~/.cache first, then the repository's
cached() {
	local k
	k=$(key)
	for f in "$DIR/pmu-stock-$k.result" "$REPO_DIR/pmu-stock-$k.result"; do
		[ -s "$f" ] && { echo "$f"; return; }
	done
	true
}

case ${1:-} in
key)	key ;;
hit)	if on && [ -n "$(cached)" ]; then echo 1; fi ;;
get)	cp "$(cached)" "${2:?RESULT}" ;;
save)	f=$DIR/pmu-stock-$(key).result
	[ -s "$f" ] || { echo "pmu-stock-cache.sh: no cached result for $(key)" >&2; exit 1; }
	mkdir -p "$REPO_DIR"
	rm -f "$REPO_DIR"/pmu-stock-*.result
	cp "$f" "$REPO_DIR/"
	echo "  SAVED   ${REPO_DIR#"$ROOT"/}/${f##*/}" ;;
put)	res=${2:?RESULT}
	on || exit 0
	[ -s "$res" ] || exit 0
	! grep -q '^FAIL' "$res" || exit 0
	mkdir -p "$DIR"
	cp "$res" "$DIR/pmu-stock-$(key).result.tmp"
	mv "$DIR/pmu-stock-$(key).result.tmp" "$DIR/pmu-stock-$(key).result" ;;
*)	echo "usage: pmu-stock-cache.sh key|hit|get RESULT|put RESULT|save" >&2
	exit 2 ;;
esac
