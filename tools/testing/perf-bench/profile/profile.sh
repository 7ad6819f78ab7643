#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# profile.sh "METRIC..." [OUTDIR]: where the guest kernel's instructions go
# in perf-bench metrics, per function, ours and stock side by side.
#
# Builds (once, into build/pmu-qemu-plugins) the PMU model's QEMU with TCG
# plugins, and the pcprof plugin; runs scripts/bench/bench.sh with only METRIC
# at -s 1 and at -s 3 on the bench kernels (make bench-kernel stock-bench),
# and writes OUTDIR/{ours,stock}.txt (default build/logs/profile): per
# kernel symbol, the instructions and calls of the scale-3 run less the
# scale-1 run, which is twice the metric's own work (the boots cancel:
# icount makes them identical). Not for timings: the plugin changes none
# of the guest's instruction counts, but the model's PEBS records do not
# come out right under it. Needs make pmu-qemu first (its patched source).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../../.." && pwd)
B=$ROOT/build
Q=$B/pmu-qemu-plugins
OUT=$(readlink -m "${2:-$B/logs/profile}")
metrics=${1:?usage: profile.sh \"METRIC...\" [OUTDIR]}

[ -d "$B/pmu-qemu/src" ] || { echo "profile.sh: make pmu-qemu first" >&2; exit 1; }
if [ ! -x "$Q/qemu-system-x86_64" ] ||
   [ "$(cat "$Q/.stamp" 2>/dev/null)" != "$(cat "$B/pmu-qemu/.stamp")" ]; then
	echo "  QEMU    build/pmu-qemu-plugins (TCG plugins on)"
	mkdir -p "$Q/obj"
	rsync -a --delete "$B/pmu-qemu/src/" "$Q/src/"
	if [ ! -f "$Q/obj/build.ninja" ]; then
		cc=()
		command -v ccache >/dev/null && cc=(--cc="ccache gcc")
		(cd "$Q/obj" && "$Q/src/configure" --target-list=x86_64-softmmu \
			--without-default-features --without-default-devices \
			--disable-docs --disable-tools --disable-guest-agent \
			--disable-user --disable-werror --enable-plugins "${cc[@]}" \
			> configure.log 2>&1)
	fi
	(cd "$Q/obj" && nice -n 10 ninja -j2 qemu-system-x86_64 > ninja.log 2>&1)
	cp "$Q/obj/qemu-system-x86_64" "$Q/qemu-system-x86_64"
	cat "$B/pmu-qemu/.stamp" > "$Q/.stamp"
fi
# shellcheck disable=SC2046
gcc -shared -fPIC -O2 -Wall -I"$Q/src/include/qemu" \
	$(pkg-config --cflags glib-2.0) -o "$Q/pcprof.so" "$HERE/pcprof.c" \
	$(pkg-config --libs glib-2.0)

mkdir -p "$OUT"
wrap=$OUT/qemu-wrap.sh
cat > "$wrap" <<EOW
#!/bin/bash
# bench.sh's QEMU, with the plugin writing to a file per kernel and scale
k=""; prev=""
for a in "\$@"; do [ "\$prev" = -kernel ] && k=\$a; prev=\$a; done
case \$k in *stock*) tag=stock ;; *) tag=ours ;; esac
exec "$Q/qemu-system-x86_64" -nodefaults -L /usr/share/seabios -L /usr/share/qemu \\
	-plugin "$Q/pcprof.so,out=$OUT/\$tag.\$PROF_SCALE.out" "\$@"
EOW
chmod +x "$wrap"
for s in 1 3; do
	echo "  PROFILE $metrics at scale $s"
	PROF_SCALE=$s BENCH_QEMU=$wrap BENCH_CPU=${BENCH_CPU:-Skylake-PMU,intel-pt=on} BENCH_SCALE=$s \
		BENCH_METRICS="$metrics" QUIET=1 "$ROOT/scripts/bench/bench.sh" \
		> "$OUT/bench-s$s.txt" 2>&1 || true
done
python3 "$HERE/sym.py" "$B/obj-bench/System.map" "$OUT/ours.1.out" \
	"$OUT/ours.3.out" 80 > "$OUT/ours.txt"
python3 "$HERE/sym.py" "$B/obj-stock-bench/System.map" "$OUT/stock.1.out" \
	"$OUT/stock.3.out" 80 > "$OUT/stock.txt"
echo "  PROFILE ${OUT#"$ROOT"/}/ours.txt, stock.txt (instructions, calls, symbol)"
