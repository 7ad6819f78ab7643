# SPDX-License-Identifier: GPL-2.0
#
# slots.sh: sourced by boot.sh and the PMU model's run-tests.sh. With
# BOOT_SLOTS=DIR set, work started side by side (make test's boots, and
# the model's build of its guest programs) shares the host's CPUs: one
# slot, a lock file in DIR, per CPU. slots_take N waits until it holds N
# slots (at most the CPU count); the locks are inherited by the children
# started after it (QEMU) and go when the last holder exits or
# slots_drop closes them. Without BOOT_SLOTS both are no-ops.

slots_held=()

slots_take() {
	local need=$1 ncpu i fd waited
	[ -n "${BOOT_SLOTS:-}" ] || return 0
	ncpu=$(nproc)
	[ "$need" -le "$ncpu" ] || need=$ncpu
	mkdir -p "$BOOT_SLOTS"
	waited=$(date +%s)
	while :; do
		slots_held=()
		for ((i = 0; i < ncpu && ${#slots_held[@]} < need; i++)); do
			exec {fd}>"$BOOT_SLOTS/slot$i"
			if flock -n "$fd"; then
				slots_held+=("$fd")
			else
				exec {fd}>&-
			fi
		done
		[ "${#slots_held[@]}" -lt "$need" ] || break
		slots_drop
		sleep 1
	done
	waited=$(( $(date +%s) - waited ))
	[ "$waited" -lt 2 ] ||
		echo "  SLOTS   waited ${waited}s for $need of $ncpu host CPUs"
}

slots_drop() {
	local fd
	for fd in "${slots_held[@]}"; do
		exec {fd}>&-
	done
	slots_held=()
}
