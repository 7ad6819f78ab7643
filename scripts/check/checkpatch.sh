#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh [RESULT-FILE]
#
# Run upstream's scripts/checkpatch.pl (from the unmodified build/linux-stock)
# with --no-tree -f over our C/H files and print a summary.  Without
# RESULT-FILE: exit 1 if checkpatch reported ERRORs.  With RESULT-FILE
# (used by "make test"): always exit 0 and write "PASS checkpatch" or
# "FAIL checkpatch: ..." there (only ERRORs fail; warnings are reported).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
result=${1:-}
# The argument is overwritten: never take a source file for it (running
# "checkpatch.sh some/file.c" once replaced that file with the result)
case $result in
*.c | *.h | *.S | *.sh | *.py | *.rst | Makefile)
	echo "checkpatch.sh: '$result' is a RESULT-FILE (overwritten), not a file to check" >&2
	exit 2 ;;
esac
"$ROOT/scripts/kernel/prepare-tree.sh" stock
cp=$ROOT/build/linux-stock/scripts/checkpatch.pl

cd "$ROOT"
mapfile -t files < <(
	{ find kernel/events arch/x86/events -name '*.[ch]' 2>/dev/null
	  ls include/linux/perf_event.h 2>/dev/null
	  ls tools/testing/selftests/perf_events/*.c 2>/dev/null; } | LC_ALL=C sort)

# one checkpatch.pl a file, on every CPU (a minute on one), then the
# report in file order
outs=$(mktemp -d)
trap 'rm -rf "$outs"' EXIT
export cp outs
printf '%s\0' ${files[@]+"${files[@]}"} | xargs -0 -r -n 4 -P "$(nproc)" sh -c '
	for f; do
		perl "$cp" --no-tree -f --terse --show-types --no-summary "$f" \
			> "$outs/$(printf %s "$f" | tr / %)" 2>&1 || true
	done' sh

errs=0 warns=0 checks=0 bad=()
for f in ${files[@]+"${files[@]}"}; do
	out=$(cat "$outs/$(printf %s "$f" | tr / %)")
	e=$(grep -c ': ERROR:' <<<"$out" || true)
	w=$(grep -c ': WARNING:' <<<"$out" || true)
	c=$(grep -c ': CHECK:' <<<"$out" || true)
	errs=$((errs + e)) warns=$((warns + w)) checks=$((checks + c))
	if [ "$e" != 0 ] || [ "$w" != 0 ]; then
		printf '  %-60s %3d errors %3d warnings\n' "$f" "$e" "$w"
		# sed, not head: head exits after 20 lines and grep, still
		# writing, dies of SIGPIPE, which pipefail makes fatal
		grep -E ': (ERROR|WARNING):' <<<"$out" | sed -n '1,20s/^/      /p'
	fi
	[ "$e" != 0 ] && bad+=("$f")
done
summary="checkpatch: ${#files[@]} files, $errs errors, $warns warnings"
echo "$summary"
if [ -n "$result" ]; then
	mkdir -p "$(dirname "$result")"
	if [ $errs = 0 ]; then
		echo "PASS checkpatch" > "$result"
	else
		echo "FAIL checkpatch: $errs errors in ${bad[*]}" > "$result"
	fi
	exit 0
fi
[ $errs = 0 ]
