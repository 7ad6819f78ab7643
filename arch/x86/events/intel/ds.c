// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel debug store (DS) area: where the CPU writes BTS and PEBS records
 * (Intel SDM vol. 3, "Debug Store (DS) Mechanism").
 *
 * The per-CPU DS management area must exist whether or not BTS/PEBS are
 * used: arch/x86/mm/cpu_entry_area.c maps each CPU's copy into the CPU
 * entry area, which the user-space page tables map too (PTI): the CPU
 * writes BTS and PEBS records by linear address in whatever context the
 * branch was taken or the counter overflowed, user space included. So
 * the buffers live there as well, in each CPU's cpu_debug_buffers
 * window, which that code left unmapped for us.
 *
 * Each kind of buffer (PEBS_BUFFER_SIZE and BTS_BUFFER_SIZE a CPU) is
 * allocated, for every possible CPU, when the first event of its kind
 * is created and freed after the last one is destroyed. IA32_DS_AREA
 * itself points at the CPU's area from the CPU's bring-up on: with no
 * buffer the fields are zero, and no counter is enabled for PEBS nor
 * DEBUGCTL for BTS.
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
static int intel_ds_bts_users;
static bool intel_ds_on __read_mostly;
/* the pages behind each CPU's mapped PEBS and BTS buffers */
static DEFINE_PER_CPU(struct page *, intel_pebs_pages);
static DEFINE_PER_CPU(struct page *, intel_bts_pages);

static void *intel_pebs_cea(int cpu)
{
	return &get_cpu_entry_area(cpu)->cpu_debug_buffers.pebs_buffer;
}

static void *intel_bts_cea(int cpu)
{
	return &get_cpu_entry_area(cpu)->cpu_debug_buffers.bts_buffer;
}

/* back @size bytes of the CPU entry area at @cea with new zeroed pages */
static int intel_ds_buf_map(int cpu, void *cea, size_t size,
			    struct page **slot)
{
	struct page *pages;
	size_t i;

	pages = alloc_pages_node(cpu_to_node(cpu), GFP_KERNEL | __GFP_ZERO,
				 get_order(size));
	if (!pages)
		return -ENOMEM;
	for (i = 0; i < size; i += PAGE_SIZE)
		cea_set_pte(cea + i, page_to_phys(pages) + i, PAGE_KERNEL);
	*slot = pages;
	return 0;
}

static void intel_ds_buf_unmap(void *cea, size_t size, struct page **slot)
{
	unsigned long start = (unsigned long)cea;
	size_t i;

	if (!*slot)
		return;
	for (i = 0; i < size; i += PAGE_SIZE)
		cea_set_pte(cea + i, 0, PAGE_NONE);
	flush_tlb_kernel_range(start, start + size);
	__free_pages(*slot, get_order(size));
	*slot = NULL;
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

	if (!per_cpu(intel_pebs_pages, cpu))
		return;
	ds->pebs_buffer_base = 0;
	ds->pebs_index = 0;
	ds->pebs_absolute_maximum = 0;
	ds->pebs_interrupt_threshold = 0;
	intel_ds_buf_unmap(intel_pebs_cea(cpu), PEBS_BUFFER_SIZE,
			   per_cpu_ptr(&intel_pebs_pages, cpu));
}

static int intel_pebs_map(int cpu, unsigned int record)
{
	struct debug_store *ds = per_cpu_ptr(&cpu_debug_store, cpu);
	unsigned long cea = (unsigned long)intel_pebs_cea(cpu);
	int err;

	err = intel_ds_buf_map(cpu, intel_pebs_cea(cpu), PEBS_BUFFER_SIZE,
			       per_cpu_ptr(&intel_pebs_pages, cpu));
	if (err)
		return err;
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
 * intel_ds_bts_buffer - this CPU's branch trace store buffer
 *
 * Mapped between intel_ds_bts_get() and intel_ds_bts_put().
 *
 * Return: its address, where the CPU may store BTS records in any
 * context; it is BTS_BUFFER_SIZE bytes long.
 */
void *intel_ds_bts_buffer(void)
{
	return intel_bts_cea(smp_processor_id());
}

/**
 * intel_ds_bts_get - the BTS buffers of every CPU, for a new BTS event
 *
 * Process context; pairs with intel_ds_bts_put().
 *
 * Return: 0, or -ENOMEM.
 */
int intel_ds_bts_get(void)
{
	int cpu, err = 0;

	mutex_lock(&intel_ds_mutex);
	if (intel_ds_bts_users++)
		goto out;
	for_each_possible_cpu(cpu) {
		err = intel_ds_buf_map(cpu, intel_bts_cea(cpu), BTS_BUFFER_SIZE,
				       per_cpu_ptr(&intel_bts_pages, cpu));
		if (err)
			break;
	}
	if (err) {
		for_each_possible_cpu(cpu)
			intel_ds_buf_unmap(intel_bts_cea(cpu), BTS_BUFFER_SIZE,
					   per_cpu_ptr(&intel_bts_pages, cpu));
		intel_ds_bts_users--;
	}
out:
	mutex_unlock(&intel_ds_mutex);
	return err;
}

/**
 * intel_ds_bts_put - a BTS event is gone: the last frees the buffers
 *
 * DEBUGCTL stores no more records once its event is off its CPU.
 */
void intel_ds_bts_put(void)
{
	int cpu;

	mutex_lock(&intel_ds_mutex);
	if (!--intel_ds_bts_users) {
		for_each_possible_cpu(cpu)
			intel_ds_buf_unmap(intel_bts_cea(cpu), BTS_BUFFER_SIZE,
					   per_cpu_ptr(&intel_bts_pages, cpu));
	}
	mutex_unlock(&intel_ds_mutex);
}

/**
 * intel_ds_init - the driver will use PEBS or BTS: each CPU's bring-up
 * programs IA32_DS_AREA (intel_ds_cpu_init()), the boot CPU's included
 */
void __init intel_ds_init(void)
{
	intel_ds_on = true;
}
