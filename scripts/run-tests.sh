#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-tests.sh LABEL KERNEL INITRD "SMPS" [RESULT-FILE...]
#
# Boot KERNEL+INITRD once per CPU count in SMPS (e.g. "2 1") in ptest=run
# mode, logging the serial console to build/logs/LABEL-smpN.log, then parse
# all logs (plus the RESULT-FILEs) into per-test PASS/FAIL lines and the
# final "N passed, N failed" line (also saved in build/logs/LABEL.summary).
# Exit status 1 if anything failed.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
label=$1 kernel=$2 initrd=$3 smps=$4; shift 4
list=${initrd%.cpio.gz}.list
args=()
for n in $smps; do
	log=$ROOT/build/logs/$label-smp$n.log
	rm -f "$log"
	SMP=$n "$ROOT/scripts/boot.sh" "$kernel" "$initrd" run "$log"
	args+=(--boot "smp$n:$n:$list:$log")
done
for r in "$@"; do args+=(--result "$r"); done
echo "  RESULTS serial logs: build/logs/$label-smp*.log"
exec python3 "$ROOT/scripts/parse-results.py" "${args[@]}" \
	--summary "$ROOT/build/logs/$label.summary"
