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

# copy_bin_root ROOT SRC DEST: SRC, a binary of another arch unpacked
# under ROOT (scripts/arm64/deps.sh), with the shared libraries its ELF
# headers name, found under ROOT's library directories and copied to the
# same paths in the image (ldd cannot run a foreign binary)
copy_bin_root() {
	local root=$1 todo=$2 f lib d found
	rm -f "$3"
	cp "$root/$2" "$3"
	# the dynamic loader is named by path
	d=$(readelf -l "$root/$2" | sed -n 's/.*interpreter: \(.*\)]$/\1/p')
	[ -z "$d" ] || { mkdir -p ".$(dirname "$d")"; cp -L "$root$d" ".$d"; }
	while [ -n "$todo" ]; do
		f=${todo%% *}
		todo=${todo#"$f"}; todo=${todo# }
		for lib in $(readelf -d "$root/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			found=
			for d in lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu lib usr/lib; do
				[ -e "$root/$d/$lib" ] || continue
				found=$d/$lib
				break
			done
			[ -n "$found" ] || { echo "copy_bin_root: $2: no $lib under $root" >&2; return 1; }
			[ -e "./$found" ] && continue
			mkdir -p "./$(dirname "$found")"
			cp -L "$root/$found" "./$found"
			todo="$todo $found"
		done
		todo=${todo# }
	done
}
