// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel core PMU: detection of architectural performance monitoring
 * (CPUID leaf 0xA). The driver is perfmon.c.
 */

#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/init.h>

#include <asm/cpufeature.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#include "../perf_event.h"

/**
 * intel_pmu_detect - look for Intel architectural performance monitoring
 * @hw: filled with what CPUID leaf 0xA enumerates
 *
 * Return: 0 if the CPU reports arch perfmon version 1 or later, -ENODEV
 * otherwise (e.g. under emulators, which report version 0).
 */
int __init intel_pmu_detect(struct x86_pmu_hw *hw)
{
	union cpuid10_eax eax;
	union cpuid10_ebx ebx;
	union cpuid10_edx edx;
	unsigned int ecx;

	if (boot_cpu_data.cpuid_level < 0xa)
		return -ENODEV;

	cpuid(0xa, &eax.full, &ebx.full, &ecx, &edx.full);
	if (eax.split.version_id < 1 || !eax.split.num_counters)
		return -ENODEV;

	hw->name		= "Intel arch perfmon";
	hw->version		= eax.split.version_id;
	hw->num_counters_gp	= eax.split.num_counters;
	hw->cntval_bits		= eax.split.bit_width;
	hw->events_mask		= ebx.full;
	hw->events_mask_len	= eax.split.mask_length;

	/* Fixed counters are enumerated from version 2 on. */
	if (hw->version >= 2) {
		hw->num_counters_fixed	= edx.split.num_counters_fixed;
		hw->cntval_bits_fixed	= edx.split.bit_width_fixed;
		hw->anythread_deprecated = edx.split.anythread_deprecated;
	}
	/* From version 5, ECX also lists fixed counters by bit. */
	if (hw->version >= 5 && fls(ecx) > hw->num_counters_fixed)
		hw->num_counters_fixed = fls(ecx);

	return 0;
}
