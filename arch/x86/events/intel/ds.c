// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel debug store (DS) area: where the CPU writes BTS and PEBS records.
 *
 * The per-CPU DS management area must exist whether or not BTS/PEBS are
 * used: arch/x86/mm/cpu_entry_area.c maps each CPU's copy into the CPU
 * entry area (so that it is also mapped while running user space with
 * PTI). It stays zero until a driver programs IA32_DS_AREA with it.
 */

#include <linux/percpu.h>
#include <linux/perf_event.h>

#include <asm/intel_ds.h>

DEFINE_PER_CPU_PAGE_ALIGNED(struct debug_store, cpu_debug_store);

/**
 * perf_restore_debug_store - reprogram IA32_DS_AREA after resume
 *
 * Called on each CPU as it resumes from suspend. The drivers of this
 * tree use neither BTS nor PEBS, so IA32_DS_AREA is never programmed and
 * there is nothing to restore; a PEBS driver sets it here again.
 */
void perf_restore_debug_store(void)
{
}
