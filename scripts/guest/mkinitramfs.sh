#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh -o OUT.cpio [-t LIST:BINDIR]... [-u BINDIR:NAME]... [-x BIN]... [-B] [-a arm64]
# mkinitramfs.sh -o OUT.cpio -b BASE.cpio -c COMMAND
#
# Second form: OUT = BASE plus /etc/ptest-cmd containing COMMAND (the
# guest's ptest=cmd mode runs it instead of the interactive shell).
#
# Build the guest initramfs: busybox-static with its applet links, /init
# (scripts/guest/guest-init.sh), root + unprivileged "tester" (uid/gid 1000),
# runas, Debian's perf and gdb with their shared libraries, and the tests:
#   -t LIST:BINDIR  every entry "<binary> <root|user> [timeout]" of LIST,
#                   binary taken from BINDIR, installed as /tests/<binary>
#   -u BINDIR:NAME[:ARGS]  upstream selftest BINDIR/NAME as
#                   /tests/upstream/NAME, run as root with a 120s timeout
#                   (result upstream:NAME); with ARGS (e.g. harness
#                   filters "-T test") through a wrapper that passes them
#   -x BIN          a host binary (with its shared libraries) as /usr/bin/BIN
#   -m KO           a test module, as /tests/modules/<name>.ko
#   -B              Debian's bpftrace (with LLVM and clang: about 190 MiB
#                   more) and the uapi headers its tracepoint structs
#                   include
#   -a arm64        an arm64 image (make arm64-test): Debian's arm64
#                   busybox-static, perf and gdb and runas from build/arm64
#                   (made by scripts/arm64/deps.sh and arm64.mk)
# The image is not compressed: the KASAN test kernels under TCG inflate
# gzip at ~15 MB/s (22 s of every boot for the 300 MiB test image), and
# copy an uncompressed one in 7 s. QEMU loads the file; a second form's
# archive is appended to BASE (the kernel reads concatenated archives).
# The merged list is /tests/tests.list and is also written to OUT's
# sibling OUT-without-.cpio + ".list" for the host-side parser.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/build
out= lists=() ups=() extras=() mods=() base= cmd= bpftrace= arch=
while getopts o:t:u:b:c:x:m:Ba: opt; do
	case $opt in
	o) out=$(readlink -m "$OPTARG") ;;
	b) base=$(readlink -m "$OPTARG") ;;
	c) cmd=$OPTARG ;;
	t) lists+=("$(readlink -m "${OPTARG%%:*}"):$(readlink -m "${OPTARG#*:}")") ;;
	u) ups+=("$(readlink -m "${OPTARG%%:*}"):${OPTARG#*:}") ;;
	x) extras+=("$OPTARG") ;;
	m) mods+=("$(readlink -m "$OPTARG")") ;;
	B) bpftrace=1 ;;
	a) arch=$OPTARG ;;
	*) exit 2 ;;
	esac
done
[ -n "$out" ] || { echo "mkinitramfs.sh: -o OUT missing" >&2; exit 2; }

stage=$(mktemp -d "$B/.initramfs.XXXXXX")
trap 'rm -rf "$stage" "$out.tmp.$$"' EXIT
chmod 755 "$stage"
cd "$stage"

if [ -n "$base" ]; then
	mkdir etc
	printf '%s\n' "$cmd" > etc/ptest-cmd
	{ cat "$base"; printf 'etc\netc/ptest-cmd\n' |
		cpio -o -H newc --owner=0:0 --quiet; } > "$out.tmp.$$"
	mv "$out.tmp.$$" "$out"
	cp "${base%.cpio}.list" "${out%.cpio}.list"
	exit 0
fi
mkdir -p bin sbin usr/bin usr/sbin etc root tmp proc sys dev tests \
	 lib/x86_64-linux-gnu lib64
chmod 1777 tmp
chmod 700 root

# busybox and its applets (the arm64 package is the same busybox 1.35
# build as the host's, with the same applets: the host's lists them)
bb=/bin/busybox runas=$B/runas
case $arch in
'')	;;
arm64)	bb=$B/arm64/root/bin/busybox runas=$B/arm64/runas ;;
*)	echo "mkinitramfs.sh: unknown arch '$arch'" >&2; exit 2 ;;
esac
[ -x "$bb" ] || { echo "mkinitramfs.sh: no $bb (make deps)" >&2; exit 1; }
cp "$bb" bin/busybox
for a in $(/bin/busybox --list-full); do
	[ -e "$a" ] || ln -s /bin/busybox "$a"
done

install -m 755 "$ROOT/scripts/guest/guest-init.sh" init
install -m 755 "$runas" usr/bin/runas

cat > etc/passwd <<'PW'
root:x:0:0:root:/root:/bin/sh
tester:x:1000:1000:tester:/tmp:/bin/sh
PW
cat > etc/group <<'GR'
root:x:0:
tester:x:1000:
GR
echo ptest > etc/hostname
mknod -m 600 dev/console c 5 1
mknod -m 666 dev/null c 1 3

# Debian's perf
# shellcheck source=scripts/guest/bins.sh
. "$ROOT/scripts/guest/bins.sh"
if [ -z "$arch" ]; then
	perf=$(debian_perf) || { echo "mkinitramfs.sh: no perf binary (make deps)" >&2; exit 1; }
	copy_bin "$perf" usr/bin/perf

	# gdb (Debian's gdb-minimal, or gdb) for the hardware watchpoint test
	[ -x /usr/bin/gdb ] || { echo "mkinitramfs.sh: no /usr/bin/gdb (make deps)" >&2; exit 1; }
	copy_bin /usr/bin/gdb usr/bin/gdb
else
	copy_bin_root "$B/$arch/root" usr/bin/perf usr/bin/perf
	copy_bin_root "$B/$arch/root" usr/bin/gdb usr/bin/gdb
fi
if [ -n "$bpftrace" ]; then
	[ -x /usr/bin/bpftrace ] || { echo "mkinitramfs.sh: no /usr/bin/bpftrace (make deps)" >&2; exit 1; }
	copy_bin /usr/bin/bpftrace usr/bin/bpftrace
	# bpftrace's clang builds a tracepoint's args struct on <linux/types.h>
	hdrs=$(echo '#include <linux/types.h>' | cpp -M -x c - | tr ' \\' '\n\n' |
	       grep '^/usr/include/.*/' || true)
	[ -n "$hdrs" ] || { echo "mkinitramfs.sh: no <linux/types.h> (make deps)" >&2; exit 1; }
	for h in $hdrs; do
		mkdir -p ".$(dirname "$h")"
		cp -L "$h" ".$h"
	done
fi
for x in "${extras[@]}"; do
	copy_bin "$x" "usr/bin/${x##*/}"
done

# tests
: > tests/tests.list
for ko in ${mods[@]+"${mods[@]}"}; do
	[ -f "$ko" ] || { echo "mkinitramfs.sh: no module $ko" >&2; exit 1; }
	mkdir -p tests/modules
	install -m 644 "$ko" tests/modules/
done
for spec in ${lists[@]+"${lists[@]}"}; do
	list=${spec%%:*} bindir=${spec#*:}
	[ -f "$list" ] || { echo "mkinitramfs.sh: no test list $list" >&2; exit 1; }
	while read -r bin who to only _; do
		case $bin in ''|'#'*) continue ;; esac
		case $who in root|user) ;; *)
			echo "mkinitramfs.sh: $list: '$bin': 2nd field must be root or user" >&2
			exit 1 ;;
		esac
		[ -f "$bindir/$bin" ] || { echo "mkinitramfs.sh: test binary $bindir/$bin missing" >&2; exit 1; }
		mkdir -p "tests/$(dirname "$bin")"
		install -m 755 "$bindir/$bin" "tests/$bin"
		case $only in ''|cpus=[0-9]*) ;; *)
			echo "mkinitramfs.sh: $list: '$bin': 4th field must be cpus=N" >&2
			exit 1 ;;
		esac
		echo "$bin $who ${to:-60} $only" >> tests/tests.list
	done < "$list"
done
for spec in ${ups[@]+"${ups[@]}"}; do
	bindir=${spec%%:*} name=${spec#*:} args=
	case $name in *:*) args=${name#*:} name=${name%%:*} ;; esac
	mkdir -p tests/upstream
	if [ -n "$args" ]; then
		install -m 755 "$bindir/$name" "tests/upstream/.$name.bin"
		printf '#!/bin/sh\nexec /tests/upstream/.%s.bin %s "$@"\n' \
			"$name" "$args" > "tests/upstream/$name"
		chmod 755 "tests/upstream/$name"
	else
		install -m 755 "$bindir/$name" "tests/upstream/$name"
	fi
	echo "upstream/$name root 120" >> tests/tests.list
done

mkdir -p "$(dirname "$out")"
find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet > "$out.tmp.$$"
cp tests/tests.list "${out%.cpio}.list.tmp.$$"
mv "${out%.cpio}.list.tmp.$$" "${out%.cpio}.list"
mv "$out.tmp.$$" "$out"
echo "  INITRD  ${out#"$ROOT"/} ($(du -k "$out" | cut -f1) KiB, $(grep -c . tests/tests.list || true) tests)"
