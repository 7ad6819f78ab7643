// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD core PMU: detection of the core performance counter extensions
 * (X86_FEATURE_PERFCTR_CORE, and PerfMonV2). The driver is perfmon.c.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/init.h>

#include <asm/cpufeature.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#include "../perf_event.h"

/* PerfCtr0..5 with the core extensions (AMD APM vol. 2) */
#define AMD_CORE_NUM_COUNTERS	6
#define AMD_CORE_COUNTER_BITS	48

/**
 * amd_pmu_detect - look for the AMD core performance counters
 * @hw: filled with the number and width of the counters
 *
 * Only CPUs with the core extensions are taken; CPUs without them
 * (and emulators, which do not report them) get -ENODEV.
 *
 * Return: 0 if found, -ENODEV otherwise.
 */
int __init amd_pmu_detect(struct x86_pmu_hw *hw)
{
	union cpuid_0x80000022_ebx ebx;

	if (!boot_cpu_has(X86_FEATURE_PERFCTR_CORE))
		return -ENODEV;

	hw->name		= "AMD core PMU";
	hw->version		= 1;
	hw->num_counters_gp	= AMD_CORE_NUM_COUNTERS;
	hw->cntval_bits		= AMD_CORE_COUNTER_BITS;

	/* PerfMonV2 enumerates the number of core counters. */
	if (boot_cpu_has(X86_FEATURE_PERFMON_V2)) {
		ebx.full = cpuid_ebx(0x80000022);
		hw->version = 2;
		if (ebx.split.num_core_pmc)
			hw->num_counters_gp = ebx.split.num_core_pmc;
	}

	return 0;
}
