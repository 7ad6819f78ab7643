# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the initramfs builders (scripts/guest/mkinitramfs.sh,
# scripts/bench/bench.sh), run in the image's staging directory.

# copy_bin SRC DEST: a dynamic binary and the shared libraries it needs
copy_bin() {
	# never through a busybox applet link of the same name (groups,
	# strace, ...): cp would follow it and overwrite the host's busybox
	rm -f "$2"
	cp "$1" "$2"
	for lib in $(ldd "$1" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		mkdir -p ".$(dirname "$lib")"
		cp -L "$lib" ".$lib"
	done
}

# debian_perf: the path of Debian's perf binary (/usr/bin/perf may be a
# wrapper script for perf_<ver>), or nothing
debian_perf() {
	local perf=/usr/bin/perf

	if [ "$(head -c 4 "$perf" | tr -d '\0')" != $'\x7fELF' ]; then
		perf=$(ls /usr/bin/perf_[0-9]* 2>/dev/null | sort -V | tail -n 1)
	fi
	[ -n "$perf" ] && [ -x "$perf" ] && echo "$perf"
}
