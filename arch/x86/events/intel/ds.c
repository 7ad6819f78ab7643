// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel debug store (DS) area: where the CPU writes BTS and PEBS records
 * (Intel SDM vol. 3, "Debug Store (DS) Mechanism").
 *
 * The per-CPU DS management area must exist whether or not BTS/PEBS are
 * used: arch/x86/mm/cpu_entry_area.c maps each CPU's copy into the CPU
 * entry area, which the user-space page tables map too (PTI): the CPU
 * writes PEBS records by linear address in whatever context the counter
 * overflowed, user space included. So the PEBS buffers live there as
 * well, in each CPU's cpu_debug_buffers window, which that code left
 * unmapped for us.
 *
 * The buffers (PEBS_BUFFER_SIZE a CPU) are allocated, for every possible
 * CPU, when the first PEBS event is created and freed after the last one
 * is destroyed. IA32_DS_AREA itself points at the CPU's area from the
 * CPU's bring-up on: with no buffer the PEBS fields are zero, and no
 * counter is enabled for PEBS.
 */

#include <linux/gfp.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>

#include <asm/cpu_entry_area.h>
#include <asm/intel_ds.h>
#include <asm/msr.h>
#include <asm/tlbflush.h>

#include "../perf_event.h"

DEFINE_PER_CPU_PAGE_ALIGNED(struct debug_store, cpu_debug_store);

static DEFINE_MUTEX(intel_ds_mutex);
static int intel_ds_users;
static bool intel_ds_on __read_mostly;
/* the pages behind each CPU's mapped PEBS buffer */
static DEFINE_PER_CPU(struct page *, intel_pebs_pages);

static void *intel_pebs_cea(int cpu)
{
	return &get_cpu_entry_area(cpu)->cpu_debug_buffers.pebs_buffer;
}

static void intel_ds_area_write(void)
{
	wrmsrl(MSR_IA32_DS_AREA,
	       (unsigned long)&get_cpu_entry_area(smp_processor_id())->cpu_debug_store);
}

/**
 * intel_ds_cpu_init - point this CPU's IA32_DS_AREA at its DS area
 *
 * At the bring-up of each CPU, when the driver uses PEBS.
 */
void intel_ds_cpu_init(void)
{
	if (intel_ds_on)
		intel_ds_area_write();
}

/**
 * perf_restore_debug_store - reprogram IA32_DS_AREA after resume
 *
 * Called on each CPU as it resumes from suspend, which cleared the MSR.
 */
void perf_restore_debug_store(void)
{
	intel_ds_cpu_init();
}

static void intel_pebs_unmap(int cpu)
{
	struct debug_store *ds = per_cpu_ptr(&cpu_debug_store, cpu);
	struct page *pages = per_cpu(intel_pebs_pages, cpu);
	unsigned long cea = (unsigned long)intel_pebs_cea(cpu);
	int i;

	if (!pages)
		return;
	memset(ds, 0, offsetof(struct debug_store, pebs_event_reset));
	for (i = 0; i < PEBS_BUFFER_SIZE; i += PAGE_SIZE)
		cea_set_pte((void *)(cea + i), 0, PAGE_NONE);
	flush_tlb_kernel_range(cea, cea + PEBS_BUFFER_SIZE);
	__free_pages(pages, get_order(PEBS_BUFFER_SIZE));
	per_cpu(intel_pebs_pages, cpu) = NULL;
}

static int intel_pebs_map(int cpu, unsigned int record)
{
	struct debug_store *ds = per_cpu_ptr(&cpu_debug_store, cpu);
	unsigned long cea = (unsigned long)intel_pebs_cea(cpu);
	struct page *pages;
	int i;

	pages = alloc_pages_node(cpu_to_node(cpu), GFP_KERNEL | __GFP_ZERO,
				 get_order(PEBS_BUFFER_SIZE));
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < PEBS_BUFFER_SIZE; i += PAGE_SIZE)
		cea_set_pte((void *)(cea + i), page_to_phys(pages) + i,
			    PAGE_KERNEL);
	per_cpu(intel_pebs_pages, cpu) = pages;
	ds->pebs_buffer_base = cea;
	ds->pebs_index = cea;
	ds->pebs_absolute_maximum = cea + (PEBS_BUFFER_SIZE / record) * record;
	/* one record, one PMI, until pebs.c finds only large events here */
	ds->pebs_interrupt_threshold = cea + record;
	return 0;
}

/**
 * intel_ds_get - the PEBS buffers of every CPU, for a new PEBS event
 * @record: the size of a PEBS record
 *
 * Process context; pairs with intel_ds_put().
 *
 * Return: 0, or -ENOMEM.
 */
int intel_ds_get(unsigned int record)
{
	int cpu, err = 0;

	mutex_lock(&intel_ds_mutex);
	if (intel_ds_users++)
		goto out;
	for_each_possible_cpu(cpu) {
		err = intel_pebs_map(cpu, record);
		if (err)
			break;
	}
	if (err) {
		for_each_possible_cpu(cpu)
			intel_pebs_unmap(cpu);
		intel_ds_users--;
	}
out:
	mutex_unlock(&intel_ds_mutex);
	return err;
}

/**
 * intel_ds_put - a PEBS event is gone: the last frees the buffers
 *
 * No counter is enabled for PEBS once the last PEBS event is destroyed,
 * so no CPU writes to the buffers any more.
 */
void intel_ds_put(void)
{
	int cpu;

	mutex_lock(&intel_ds_mutex);
	if (!--intel_ds_users) {
		for_each_possible_cpu(cpu)
			intel_pebs_unmap(cpu);
	}
	mutex_unlock(&intel_ds_mutex);
}

/**
 * intel_ds_init - the driver will use PEBS: each CPU's bring-up programs
 * IA32_DS_AREA (intel_ds_cpu_init()), the boot CPU's included
 */
void __init intel_ds_init(void)
{
	intel_ds_on = true;
}
