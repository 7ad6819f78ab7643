#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-boot.sh FLAVOUR KIND [plain|model] [shell]
#
# Boot build/debian/FLAVOUR.ext4 (debian-image.sh) under QEMU from the
# kernel and initrd that its package installed in /boot:
# vmlinuz-6.12.N-FLAVOUR-KIND (KIND ours or stock). The disk is opened
# with snapshot=on, so every boot starts from the same installed system.
#
# "plain" boots Debian's QEMU (-cpu max: no hardware PMU); "model" the PMU
# model's QEMU (make pmu-qemu) as a Skylake with its PMU (MODEL_CPU).
# Without "shell", the command line says perfeco=$PERFECO and the image's
# perf-eco.service runs the checks and powers off: their results, from
# the guest's second serial port, go to build/logs/debian-FLAVOUR-KIND-
# HOW.results, the console to .console beside it. With "shell", the
# console is on the terminal (log in as root, no password; Ctrl-A X
# quits).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
flavour=${1:?FLAVOUR (distro or lean)} kind=${2:?ours or stock}
how=${3:-plain} shell=${4:-}
D=$B/debian
img=$D/$flavour.ext4
[ -f "$img" ] || { echo "debian-boot.sh: no $img (make debian-image)" >&2; exit 1; }
rel=$(basename "$(ls -d "$D/$flavour"/lib/modules/*-"$kind")")
kernel=$D/$flavour/boot/vmlinuz-$rel initrd=$D/$flavour/boot/initrd.img-$rel

case $how in
plain)	qemu=(qemu-system-x86_64 -accel tcg,thread=multi -cpu max) disk=virtio ;;
model)	[ -x "$B/pmu-qemu/qemu-system-x86_64" ] ||
		{ echo "debian-boot.sh: no build/pmu-qemu (make pmu-qemu)" >&2; exit 1; }
	# the model counts only under -icount (one TCG thread for the
	# vCPUs); sleep=off: an idle guest's clock jumps ahead, as the
	# harness's model boots do (scripts/guest/boot.sh's ICOUNT)
	qemu=("$B/pmu-qemu/qemu-system-x86_64" -accel tcg,thread=single
	      -icount shift=0,sleep=off
	      -cpu "${MODEL_CPU:-Skylake-PMU}" -nodefaults
	      -L /usr/share/seabios -L /usr/share/qemu)
	# the model's QEMU is built without virtio: the board's IDE disk
	disk=ide ;;
*)	echo "debian-boot.sh: plain or model" >&2; exit 2 ;;
esac
SMP=${SMP:-2}
qemu+=(-m "${MEM:-4G}" -smp "$SMP" -no-reboot -nic none
       -kernel "$kernel" -initrd "$initrd"
       -drive "file=$img,if=$disk,format=raw,snapshot=on")
# by label (debian-image.sh's mkfs): vda on virtio, sda on IDE
append="root=LABEL=perf-debian rw console=ttyS0 panic=-1"

if [ -n "$shell" ]; then
	exec "${qemu[@]}" -display none -serial mon:stdio -append "$append"
fi

mkdir -p "$B/logs"
out=$B/logs/debian-$flavour-$kind-$how
rm -f "$out.results" "$out.console"
echo "  BOOT    debian/$flavour.ext4: $rel, $how QEMU, smp=$SMP, perfeco=${PERFECO:-all}"
start=$(date +%s)
rc=0
timeout -k 10 "${DEBIAN_BOOT_TIMEOUT:-5400}" "${qemu[@]}" -display none -monitor none \
	-serial "file:$out.console" -serial "file:$out.results" \
	-append "$append perfeco${PERFECO:+=$PERFECO}" < /dev/null || rc=$?
secs=$(( $(date +%s) - start ))
echo "  BOOT    $rel: done in ${secs}s (qemu rc=$rc), results in ${out#"$ROOT"/}.results"
tr -d '\r' < "$out.results" > "$out.results.tmp" && mv "$out.results.tmp" "$out.results"
if ! grep -q '^@@END' "$out.results"; then
	echo "debian-boot.sh: the checks did not finish; the console's end:" >&2
	tr -d '\r' < "$out.console" | tail -25 >&2
	exit 1
fi
echo "$secs" > "$out.seconds"
