#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-compare.sh FLAVOUR HOW: ours against stock, from the results of
# debian-boot.sh FLAVOUR ours|stock HOW. Prints every check and every
# perf test side by side and exits non-zero where ours does worse than
# stock (a check or test that passes on stock and not on ours; a skip
# counts above a failure, below a pass), or where either run is missing.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
flavour=${1:?FLAVOUR} how=${2:-plain}
L=$ROOT/build/logs/debian-$flavour
for k in ours stock; do
	[ -f "$L-$k-$how.results" ] ||
		{ echo "debian-compare.sh: no ${L#"$ROOT"/}-$k-$how.results" >&2; exit 1; }
done

awk -v how="$how" '
function rank(r) { return r == "PASS" || r == "Ok" ? 2 : (r == "SKIP" || r == "Skip" ? 1 : 0) }
FNR == 1 { k = (FILENAME ~ /-ours-/) ? "ours" : "stock" }
$1 == "@@START" { rel[k] = $2 }
$1 == "@@R" {
	id = $2 " " $3
	if (!(id in seen)) { seen[id] = 1; order[++n] = id }
	r[k, id] = $4
	d = $0; sub(/^@@R [^ ]+ [^ ]+ [^ ]+ ?/, "", d); det[k, id] = d
}
$1 == "@@T" {
	id = $2
	if (!(id in tseen)) { tseen[id] = 1; torder[++tn] = id }
	t[k, id] = $3
	d = $0; sub(/^@@T [^ ]+ [^ ]+ ?/, "", d); tdesc[id] = d
}
END {
	printf "Debian 12 image, %s QEMU: ours %s, stock %s\n\n", how, rel["ours"], rel["stock"]
	printf "%-28s %-6s %-6s  %s\n", "check", "ours", "stock", "ours said"
	bad = 0
	for (i = 1; i <= n; i++) {
		id = order[i]
		o = r["ours", id]; s = r["stock", id]
		if (o == "") o = "-"
		if (s == "") s = "-"
		mark = rank(o) < rank(s) ? "  <-- WORSE" : ""
		if (mark != "") bad++
		printf "%-28s %-6s %-6s  %s%s\n", id, o, s, substr(det["ours", id], 1, 70), mark
	}
	if (tn) {
		for (i = 1; i <= tn; i++) {
			id = torder[i]
			o = t["ours", id]; s = t["stock", id]
			co[o == "" ? "-" : o]++; cs[s == "" ? "-" : s]++
			if (rank(o) < rank(s)) {
				worse = worse sprintf("  %-6s %-8s %-8s %s\n", id, o == "" ? "-" : o, s, tdesc[id])
				bad++
			}
			if (rank(o) > rank(s))
				better = better sprintf("  %-6s %-8s %-8s %s\n", id, o, s == "" ? "-" : s, tdesc[id])
		}
		printf "\nperf test (Debian perf), %d results:\n", tn
		printf "  ours:  %d Ok, %d Skip, %d FAILED, %d TIMEOUT, %d missing\n", co["Ok"], co["Skip"], co["FAILED"], co["TIMEOUT"], co["-"]
		printf "  stock: %d Ok, %d Skip, %d FAILED, %d TIMEOUT, %d missing\n", cs["Ok"], cs["Skip"], cs["FAILED"], cs["TIMEOUT"], cs["-"]
		if (worse != "") printf "worse on ours (test, ours, stock):\n%s", worse
		if (better != "") printf "better on ours (test, ours, stock):\n%s", better
	}
	printf "\n%s\n", bad ? bad " result(s) worse on ours" : "ours is at least stock on every check and test"
	exit bad ? 1 : 0
}' "$L-ours-$how.results" "$L-stock-$how.results"
