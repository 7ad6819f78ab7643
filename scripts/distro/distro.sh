#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# distro.sh ours|stock [check|deb]: build Debian's own amd64 kernel config (package
# linux-config-6.12, config.amd64_none_amd64) on our tree (ours, into
# build/obj-distro) or on the unmodified base tree (stock, into
# build/obj-distro-stock), bzImage and every module, then boot it on
# QEMU with the harness initramfs running a perf demo (perf stat, perf
# record/report, the "cpu" PMU on the TCG PMU model when it is built).
#
# The config is Debian's exactly, but for what a source tree cannot have:
# Debian's signing certificates (the build makes its own key) and
# LOCALVERSION. Long on 2 cores (hours the first time; ccache keeps the
# second short): not part of "make test". Prints the build time. As root,
# stock is built inside a private mount namespace that binds the base tree
# and its object directory over ours, so the same paths go to the compiler
# and ccache serves what our subsystem does not change (95% of the objects).
#
# "check" compiles, with the same config, only what talks to the perf
# subsystem (scripts/distro/distro-users.sh lists it: the core kernel directories
# and every other object that uses our interfaces), without linking, and
# reports the objects that fail: an hour instead of many, to run after a
# change of include/linux/perf_event.h or of what we export.
#
# "deb" builds the same kernel into installable packages with the tree's
# own bindeb-pkg (linux-image-<release> and linux-headers-<release>, the
# release 6.12.N-distro-ours or -distro-stock, so that the version says
# whose perf it has), into build/deb/distro-<kind> (lean-<kind> with
# DISTRO_CONFIG=lean), instead of booting it: make
# debian-image installs them into a Debian 12 system. The debug-info
# package is left out (pkg.linux-upstream.nokerneldbg): Debian ships it
# apart, and the kernel's BTF, which bpftrace and the bcc tools read, is
# in vmlinux and the modules either way.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
JOBS=${JOBS:-3}
kind=${1:?ours or stock}
mode=${2:-build}

[ "${HARNESS_KBUILD_LOCKED:-}" = 1 ] || exec "$ROOT/scripts/host/locked.sh" kbuild "$0" "$@"

mkdir -p "$B/logs"
# DISTRO_CONFIG=lean: x86_64_defconfig, kvm_guest.config, config/base.config
# and scripts/distro/lean.config instead of Debian's config, into
# build/obj-lean[-stock] with the release 6.12.N-lean-<kind>: minutes
# instead of hours, for trying make debian-image's whole path.
# DISTRO_CONFIG=nomod: Debian's config with every module turned off and
# no debug information, into build/obj-nomod[-stock]: all that Debian
# builds in (SLUB hardening, preemption, mitigations, IBT) in about 20
# minutes cold, for the boot's checks (the PEBS sampling one found QEMU's
# cmpxchg16b flags bug, debian.rst) without the hours of the modules
flavour=${DISTRO_CONFIG:-debian}
case $flavour in
debian)	dir=obj-distro tag=distro ;;
nomod)	dir=obj-nomod tag=nomod what=", no modules, no debug information" ;;
lean)	dir=obj-lean tag=lean ;;
*)	echo "distro.sh: DISTRO_CONFIG is debian, nomod or lean" >&2; exit 2 ;;
esac
case $kind in
ours)	obj=$B/$dir src=$B/linux; "$ROOT/scripts/kernel/prepare-tree.sh" ours
	"$ROOT/scripts/kernel/check-tree.sh" ;;
stock)	obj=$B/$dir-stock src=$B/linux-stock
	if [ -z "${DISTRO_STOCK_NS:-}" ]; then
		"$ROOT/scripts/kernel/prepare-tree.sh" stock
		# ccache hashes the paths of the sources: build the base
		# tree where ours is (a private mount namespace binds it
		# there), so that what our subsystem does not touch, most
		# of the kernel, comes from make distro's cache
		if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
			mkdir -p "$B/linux" "$B/$dir" "$obj"
			exec env DISTRO_STOCK_NS=1 unshare -m --propagation private \
				bash -c 'mount --bind "$1/linux-stock" "$1/linux" &&
					 mount --bind "$1/$2-stock" "$1/$2" &&
					 shift 2 && exec "$@"' - "$B" "$dir" "$0" "$@"
		fi
	else
		obj=$B/$dir src=$B/linux
	fi ;;
*)	echo "distro.sh: ours or stock" >&2; exit 2 ;;
esac
deb=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
[ -f "$deb" ] || { echo "distro.sh: no $deb (apt-get install linux-config-6.12)" >&2; exit 1; }

shown=${obj#"$ROOT"/}
[ -z "${DISTRO_STOCK_NS:-}" ] || shown=build/$dir-stock
. "$ROOT/scripts/kernel/kmake.sh"
# bindeb-pkg's debian/rules runs make again without our CC=: ccache as
# "gcc" on PATH keeps the compiler command the same for both, or kbuild
# would build every object again inside the packaging
if [ ${#kmake_cc[@]} -gt 0 ] && [ -x /usr/lib/ccache/gcc ]; then
	kmake_cc=()
	export PATH=/usr/lib/ccache:$PATH
fi

mkdir -p "$obj"
lean_frags=("$src/arch/x86/configs/x86_64_defconfig" "$src/kernel/configs/kvm_guest.config"
	    "$ROOT/config/base.config" "$ROOT/scripts/distro/lean.config")
case $flavour in
debian)	sum=$( { cat "$src/.harness-unpacked"; sha256sum "$deb"; echo config-2; } | sha256sum) ;;
nomod)	sum=$( { cat "$src/.harness-unpacked"; sha256sum "$deb"; echo nomod-1; } | sha256sum) ;;
lean)	sum=$( { cat "$src/.harness-unpacked" "${lean_frags[@]}"; echo lean-1; } | sha256sum) ;;
esac
if [ "$(cat "$obj/.harness-config" 2>/dev/null)" != "$sum" ]; then
	if [ "$flavour" = lean ]; then
		echo "  CONFIG  $shown: x86_64_defconfig + kvm_guest + base + lean"
		rm -f "$obj/.config"
		(cd "$obj" && "$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
			"${lean_frags[@]}") > "$obj/merge_config.log" 2>&1 ||
			{ cat "$obj/merge_config.log"; exit 1; }
		"$src/scripts/config" --file "$obj/.config" \
			--set-str LOCALVERSION "-$tag-$kind" --disable LOCALVERSION_AUTO
		kmake olddefconfig
		# base.config's DEBUG_INFO_NONE gives way to lean's BTF
		"$ROOT/scripts/kernel/check-config.sh" "$obj/.config" \
			"$ROOT/scripts/distro/lean.config"
	else
		echo "  CONFIG  $shown: Debian's config.amd64_none_amd64${what:-}"
		xzcat "$deb" > "$obj/.config"
		if [ "$flavour" = nomod ]; then
			sed -i -E 's/^(CONFIG_[A-Z0-9_]+)=m$/# \1 is not set/' "$obj/.config"
			"$src/scripts/config" --file "$obj/.config" \
				--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT \
				--disable DEBUG_INFO_DWARF4 --disable DEBUG_INFO_DWARF5 \
				--enable DEBUG_INFO_NONE
		fi
		# Debian signs its modules after the build, with its own
		# key; ours are signed at modules_install with the key the
		# build makes and builds in (MODULE_SIG_ALL), so that, as on
		# Debian, loading them neither taints nor warns
		"$src/scripts/config" --file "$obj/.config" \
			--set-str SYSTEM_TRUSTED_KEYS "" \
			--set-str SYSTEM_REVOCATION_KEYS "" \
			--set-str MODULE_SIG_KEY "certs/signing_key.pem" \
			--enable MODULE_SIG_ALL \
			--set-str LOCALVERSION "-$tag-$kind"
		kmake olddefconfig
		# what Debian turns on must still be on after olddefconfig
		# (not checked for nomod: many of its =y options are those of
		# drivers that are modules)
		missing=
		[ "$flavour" = nomod ] ||
		missing=$(xzcat "$deb" | grep -E '^CONFIG_[A-Z0-9_]+=[ym]$' |
			  grep -vxFf "$obj/.config" | grep -v '^CONFIG_LOCALVERSION' || true)
		if [ -n "$missing" ]; then
			echo "distro.sh: options of Debian's config lost on our tree:" >&2
			echo "$missing" >&2
			exit 1
		fi
	fi
	echo "$sum" > "$obj/.harness-config"
fi

if [ "$mode" = check ]; then
	log=$B/logs/distro-check-$kind.log
	mkdir -p "$B/logs"
	targets=$("$ROOT/scripts/distro/distro-users.sh" "$src" "$obj/.config")
	echo "  CHECK   $shown: $(echo "$targets" | wc -w) targets (Debian's config, -j$JOBS, log: ${log#"$ROOT"/})"
	start=$(date +%s)
	rc=0
	kmake -k -j"$JOBS" prepare > "$log" 2>&1 || rc=$?
	[ $rc = 0 ] || { tail -20 "$log" >&2; echo "distro.sh: prepare failed" >&2; exit 1; }
	# shellcheck disable=SC2086
	kmake -k -j"$JOBS" $targets >> "$log" 2>&1 || rc=$?
	secs=$(( $(date +%s) - start ))
	failed=$(grep -oE '\[[^]]*scripts/Makefile.build:[0-9]+: [^]]+\.o\]' "$log" |
		 sed -E 's/.*: ([^]]+)\]/\1/' | sort -u || true)
	if [ $rc != 0 ]; then
		grep -E 'error:' "$log" | sort -u | head -40 >&2 || true
		echo "distro.sh: check of the $kind tree failed in ${secs}s; objects:" >&2
		echo "${failed:-(see $log)}" >&2
		exit 1
	fi
	echo "  DISTRO  $kind: every perf user compiles with Debian's config (${secs}s)"
	exit 0
fi

echo "  KBUILD  $shown: bzImage modules ($flavour config, -j$JOBS)"
start=$(date +%s)
kmake -j"$JOBS" bzImage modules
secs=$(( $(date +%s) - start ))
echo "  KBUILD  $shown: done in ${secs}s"
echo "$secs" > "$obj/.harness-build-seconds"

if [ "$mode" = deb ]; then
	# bindeb-pkg's debian/rules calls debhelper's dh_* tools
	command -v dh_builddeb >/dev/null || {
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debhelper >/dev/null
	}
	out=$B/deb/$tag-$kind
	release=$(kmake -s kernelrelease)
	echo "  DEB     $shown: linux-image-$release, linux-headers-$release"
	start=$(date +%s)
	# dpkg-buildpackage leaves the packages beside the object directory
	rm -f "$B"/*_*.deb "$B"/*_*.buildinfo "$B"/*_*.changes
	DEB_BUILD_PROFILES=pkg.linux-upstream.nokerneldbg \
		kmake -j"$JOBS" bindeb-pkg KDEB_COMPRESS=xz > "$B/logs/deb-$tag-$kind.log" 2>&1 ||
		{ tail -30 "$B/logs/deb-$tag-$kind.log" >&2; echo "distro.sh: bindeb-pkg failed" >&2; exit 1; }
	rm -rf "$out"
	mkdir -p "$out"
	mv "$B"/*_*.deb "$B"/*_*.buildinfo "$B"/*_*.changes "$out"/
	echo "  DEB     $kind: packaged in $(( $(date +%s) - start ))s, build ${secs}s:"
	ls -l "$out"/*.deb | awk '{ print "          " $5, $NF }'
	exit 0
fi
nmods=$(find "$obj" -name '*.ko' | wc -l)
echo "  DISTRO  $kind: $nmods modules, bzImage $(stat -c %s "$obj/arch/x86/boot/bzImage") bytes"

# Boot it: the test initramfs running a perf demo, on the PMU model when
# it is built (hardware events), else on plain QEMU (software events).
# On the model, system-wide PEBS sampling with callchains over a fork
# loop too: the vCPU stops at each sampled instruction, which is how
# QEMU 7.2's cmpxchg16b flags bug showed (debian.rst). Either way the
# kernel log must have no line that fails a test (/init's REPORT_RE and
# BENIGN_RE, guest-init.sh) but a CPU bug's notice ("RETBleed: WARNING:
# ...", under Debian's mitigations), as perf-eco.sh counts them.
model=()
if [ -x "$B/pmu-qemu/qemu-system-x86_64" ]; then
	model=(CPU=Skylake-PMU QEMU="$B/pmu-qemu/qemu-system-x86_64"
	       ICOUNT=shift=0,sleep=off QEMU_NODEFAULTS=1
	       QEMU_EXTRA="-L /usr/share/seabios -L /usr/share/qemu")
fi
demo='uname -r; grep -c . /proc/modules || true
perf stat -e task-clock,context-switches,page-faults,cycles,instructions -- ls / > /dev/null
perf record -q -o /tmp/p.data -F 999 -g -- sh -c "i=0; while [ \$i -lt 100000 ]; do i=\$((i+1)); done"
perf report -i /tmp/p.data --stdio --sort comm,dso 2>/dev/null | grep -v "^#" | grep -v "^$" | head -8
ls /sys/bus/event_source/devices/'
[ ${#model[@]} = 0 ] || demo+='
forks() { i=0; while [ $i -lt $1 ]; do /bin/true; i=$((i+1)); done; }
forks 100000 & bg=$!
perf record -q -a -g -c 50000 -e cycles:P -o /tmp/pebs.data -- sh -c "i=0; while [ \$i -lt 1500 ]; do /bin/true; i=\$((i+1)); done" &&
	echo "pebs record: ok"
kill $bg
perf report -i /tmp/pebs.data --stdio -q --sort comm 2>/dev/null | head -4'
demo+='
re() { sed -n "s/^$1=.\(.*\).\$/\1/p" /init; }
echo "splats: $(dmesg | grep -E "$(re REPORT_RE)" | grep -v -E "$(re BENIGN_RE)" |
	grep -c -v -E "^\[ *[0-9.]+\] [A-Za-z][A-Za-z0-9 ]*: WARNING: ")"'
initrd=$B/initramfs-distro-$kind.cpio
"$ROOT/scripts/host/locked.sh" test "$ROOT/scripts/guest/mkinitramfs.sh" -o "$initrd" \
	-b "$B/initramfs-test.cpio" -c "$demo"
log=$B/logs/distro-$kind.log
mkdir -p "$B/logs"
# cmd mode is the console on stdout: the log is what it printed
rc=0
env "${model[@]}" SMP=2 QEMU_TIMEOUT=900 "$ROOT/scripts/guest/boot.sh" \
	"$obj/arch/x86/boot/bzImage" "$initrd" cmd > "$log" 2>&1 < /dev/null || rc=$?
demo_out=$(tr -d '\r' < "$log" | sed -n '/^@@CMD /,/^@@CMD-EXIT/p')
echo "$demo_out"
grep -q "^@@CMD-EXIT 0" <<<"$demo_out" || { echo "distro.sh: the $kind kernel did not run the demo to the end (qemu rc=$rc, see $log)" >&2; exit 1; }
grep -q "^splats: 0$" <<<"$demo_out" || { echo "distro.sh: the $kind kernel logged an oops, BUG, WARNING or fault (see $log)" >&2; exit 1; }
[ ${#model[@]} = 0 ] || grep -q "^pebs record: ok$" <<<"$demo_out" ||
	{ echo "distro.sh: PEBS sampling failed on the $kind kernel (see $log)" >&2; exit 1; }
echo "  DISTRO  $kind: booted; built in ${secs}s (log: ${log#"$ROOT"/})"
