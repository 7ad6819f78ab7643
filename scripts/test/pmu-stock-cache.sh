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
# written by "save" once a stop's harness, model and tests are final).
# That copy is keyed on the tracked inputs and the knobs alone (repokey),
# with the package versions it was made with beside it
# (pmu-stock-<repokey>.packages): Debian's archive moves on (a libc6 or
# linux-source-6.12 point release), and a fresh machine that installs
# newer packages would otherwise miss it and spend 40 minutes of CI
# building and booting the stock kernel. A hit on the repository's copy
# with other packages says which differ (make pmu-test re-checks on
# them). The packages in the full key are the ones the build and the
# boots use (the harness's and the model's dependencies, the toolchain,
# QEMU), not everything installed. (The model's own build dependencies
# are left out: its qemu-deps.sh installs them between the two lookups of one
# make test, and the QEMU source version is keyed by
# qemu-system-x86's.)
#
#   key         print the key
#   repokey     print the repository copy's key
#   hit         print 1 if a result for the key is cached (and caching on)
#   get RESULT  copy the cached result to RESULT
#   put RESULT  cache RESULT, unless it has a FAIL line
#   save        copy the cached result for the key into the repository
#
# PMU_STOCK_CACHE=0 turns the cache off (hit prints nothing, put stores
# nothing).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DIR=${XDG_CACHE_HOME:-$HOME/.cache}/perf-harness
REPO_DIR=$ROOT/tools/testing/pmu-model/stock-results
# what the stock run is made of, beyond the tracked files
PKG_RE='^(linux-source-6\.12|linux-config-6\.12|qemu-system-x86|qemu-system-data|seabios|busybox-static|gcc|gcc-12|cpp-12|binutils|binutils-x86-64-linux-gnu|libc6|libc6-dev|make|bc|flex|bison|libelf1|libelf-dev|libssl-dev|cpio|linux-perf|dwarves|perl|kmod|gdb-minimal|bpftrace|systemtap-sdt-dev|papi-tools|libpapi7\.1|libpfm4|libpfm4-dev|clang|clang-14|llvm-14|libbpf1|libbpf-dev|python3)$'

NOT_KEYED=(':!kernel/events' ':!arch/x86/events' ':!include/linux'
	':!tools/testing/selftests' ':!tools/testing/perf-bench'
	':!Documentation' ':!*.md' ':!README*' ':!.gitignore' ':!.ci'
	':!tools/testing/pmu-model/stock-results'
	':!tools/testing/pmu-model/patches/series.aarch64'
	':!tools/testing/pmu-model/patches/01*'
	':!scripts/bench' ':!scripts/check' ':!scripts/distro' ':!scripts/fuzz'
	':!scripts/arm64' ':!arm64.mk' ':!distro.mk' ':!config/arm64.config'
	':!scripts/test/quick-test.sh' ':!scripts/test/run-selftests.sh'
	':!scripts/test/pmu-stock-cache.sh')
PERF_SYS_H=tools/testing/selftests/perf_events/perf_sys.h

# the installed versions of the packages the stock run is made of
packages() {
	dpkg-query -W -f '${Package} ${Version}\n' 2>/dev/null |
		awk -v re="$PKG_RE" '$1 ~ re' | sort || true
}

# the tracked inputs and the knobs
inputs() {
	# everything tracked but our subsystem, its selftests, the
	# benchmark program and the documentation, and the harness
	# scripts the stock model run never calls
	git -C "$ROOT" ls-files -s -- . "${NOT_KEYED[@]}"
	# the one selftests header the model's guest programs include
	git -C "$ROOT" ls-files -s -- "$PERF_SYS_H"
	# uncommitted changes to those files count too
	git -C "$ROOT" diff HEAD -- . "${NOT_KEYED[@]}" "$PERF_SYS_H"
	uname -m
	echo "cpus=${PMU_CPUS:-} smps=${PMU_SMPS:-} skip=${PMU_SKIP:-}"
	echo "repeat=${PMU_TEST_REPEAT:-0} append=${APPEND:-}"
}

key() {
	{ inputs; packages; } | sha256sum | cut -c1-32
}

repokey() {
	inputs | sha256sum | cut -c1-32
}

on() { [ "${PMU_STOCK_CACHE:-1}" != 0 ]; }

# the cached result for the key: ~/.cache first, then the repository's
cached() {
	local f
	f=$DIR/pmu-stock-$(key).result
	[ -s "$f" ] && { echo "$f"; return; }
	f=$REPO_DIR/pmu-stock-$(repokey).result
	[ -s "$f" ] && echo "$f"
	true
}

# a repository copy made with other packages: say which (stderr)
package_drift() {
	local f=$1 made=${1%.result}.packages
	case $f in "$REPO_DIR"/*) ;; *) return 0 ;; esac
	[ -f "$made" ] || return 0
	diff "$made" <(packages) | awk '
		/^</ { was[$2] = $3 } /^>/ { now[$2] = $3 }
		END { for (p in now) if (p in was) printf "%s %s -> %s\n", p, was[p], now[p]
		      else printf "%s new %s\n", p, now[p]
		      for (p in was) if (!(p in now)) printf "%s %s gone\n", p, was[p] }' |
		sort | sed 's/^/  PMU     stock results made with other packages: /' >&2
}

case ${1:-} in
key)	key ;;
repokey) repokey ;;
hit)	if on && [ -n "$(cached)" ]; then echo 1; fi ;;
get)	f=$(cached)
	package_drift "$f"
	cp "$f" "${2:?RESULT}" ;;
save)	k=$(key)
	f=$DIR/pmu-stock-$k.result
	[ -s "$f" ] || { echo "pmu-stock-cache.sh: no cached result for $k" >&2; exit 1; }
	mkdir -p "$REPO_DIR"
	rm -f "$REPO_DIR"/pmu-stock-*.result "$REPO_DIR"/pmu-stock-*.packages
	r=$REPO_DIR/pmu-stock-$(repokey)
	cp "$f" "$r.result"
	packages > "$r.packages"
	echo "  SAVED   ${r#"$ROOT"/}.result (.packages)" ;;
put)	res=${2:?RESULT}
	on || exit 0
	[ -s "$res" ] || exit 0
	! grep -q '^FAIL' "$res" || exit 0
	mkdir -p "$DIR"
	f=$DIR/pmu-stock-$(key).result
	cp "$res" "$f.tmp"
	mv "$f.tmp" "$f" ;;
*)	echo "usage: pmu-stock-cache.sh key|repokey|hit|get RESULT|put RESULT|save" >&2
	exit 2 ;;
esac
