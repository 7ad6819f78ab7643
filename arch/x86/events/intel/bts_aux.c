// SPDX-License-Identifier: GPL-2.0-only
/*
 * The intel_bts PMU: the branch trace store (bts.c) writing its 24-byte
 * records {from, to, flags} straight into an event's AUX area, which
 * perf's intel_bts decoder reads ("perf record -e intel_bts//").
 *
 * The area's pages are mapped once more, virtually contiguous, when it
 * is set up: the CPU stores records by linear address, from the BTS
 * base up, and need not care how the core allocated the pages. While
 * the event runs, an output handle is open on the area; the BTS fields
 * of this CPU's DS area cover the room the handle gives, up to the end
 * of the area, in whole records:
 *
 * - with a writable area the CPU stops at the absolute maximum (BTINT),
 *   and the PMI at the interrupt threshold ends the handle and opens the
 *   next one. A stretch that reaches the end of the area skips the bytes
 *   there that hold no whole record, so every record stays at a multiple
 *   of 24 bytes from the area's start. A full area stops the trace, and
 *   the stretch's PERF_RECORD_AUX says TRUNCATED;
 * - with a read-only area (overwrite, a snapshot) the CPU stores around
 *   the whole area in circles, no PMI, and the stop publishes where the
 *   newest record ends; the next start goes on from there.
 *
 * With PTI the CPU could not store into the area from user space (the
 * user page tables map no kernel memory but the CPU entry area), so, as
 * in 6.12, there is no intel_bts then.
 */

#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include <asm/cpufeature.h>
#include <asm/intel_ds.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

/**
 * struct bts_aux_buf - an AUX area as the BTS sees it
 * @vaddr: its pages, mapped contiguously
 * @size: its size in bytes
 * @overwrite: a read-only (snapshot) area
 */
struct bts_aux_buf {
	void		*vaddr;
	unsigned long	size;
	bool		overwrite;
};

/**
 * struct bts_aux_cpu - this CPU's intel_bts event
 * @handle: the output handle open while the event traces
 * @base: the offset in the area where the stretch's records start
 *
 * intel_bts_aux_tracing says the handle is open and DEBUGCTL stores.
 */
struct bts_aux_cpu {
	struct perf_output_handle	handle;
	unsigned long			base;
};

static DEFINE_PER_CPU(struct bts_aux_cpu, bts_aux_cpu);
DEFINE_PER_CPU(bool, intel_bts_aux_tracing);
static struct pmu bts_aux_pmu;

static void *bts_aux_setup(struct perf_event *event, void **pages,
			   int nr_pages, bool overwrite)
{
	struct bts_aux_buf *buf;
	struct page **pp;
	int i;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	pp = kmalloc_array(nr_pages, sizeof(*pp), GFP_KERNEL);
	if (!buf || !pp)
		goto fail;
	for (i = 0; i < nr_pages; i++)
		pp[i] = virt_to_page(pages[i]);
	buf->vaddr = vmap(pp, nr_pages, VM_MAP, PAGE_KERNEL);
	if (!buf->vaddr)
		goto fail;
	kfree(pp);
	buf->size = (unsigned long)nr_pages << PAGE_SHIFT;
	buf->overwrite = overwrite;
	return buf;
fail:
	kfree(pp);
	kfree(buf);
	return NULL;
}

static void bts_aux_free(void *priv)
{
	struct bts_aux_buf *buf = priv;

	vunmap(buf->vaddr);
	kfree(buf);
}

/*
 * Open a handle and point the BTS at the room it gives. Returns false
 * when there is no area or no room: the event is not tracing then.
 */
static bool bts_aux_begin(struct perf_event *event)
{
	struct bts_aux_cpu *bc = this_cpu_ptr(&bts_aux_cpu);
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	const unsigned int rec = sizeof(struct bts_record);
	unsigned long off, room, end, index = 0;
	struct bts_aux_buf *buf;

	buf = perf_aux_output_begin(&bc->handle, event);
	if (!buf)
		return false;
	if (buf->overwrite) {
		/* the whole circle, on from where the newest record ends */
		off = 0;
		room = buf->size / rec * rec;
		index = bc->handle.head % room;
		index -= index % rec;
	} else {
		off = bc->handle.head & (buf->size - 1);
		end = buf->size / rec * rec;
		/* the end of the area holds no whole record: on from 0 */
		if (off >= end) {
			if (perf_aux_output_skip(&bc->handle, buf->size - off))
				goto full;
			off = 0;
		}
		room = min(bc->handle.size, end - off) / rec * rec;
		if (room < rec)
			goto full;
	}
	bc->base = off;
	ds->bts_buffer_base = (unsigned long)buf->vaddr + off;
	ds->bts_index = ds->bts_buffer_base + index;
	ds->bts_absolute_maximum = ds->bts_buffer_base + room;
	/*
	 * overwrite: no interrupt at all (circular); else one as the room
	 * runs out, or at its end when it is only a few records
	 */
	if (buf->overwrite)
		ds->bts_interrupt_threshold = ds->bts_absolute_maximum + rec;
	else if (room > 2 * BTS_PMI_SLACK * rec)
		ds->bts_interrupt_threshold = ds->bts_absolute_maximum -
					      BTS_PMI_SLACK * rec;
	else
		ds->bts_interrupt_threshold = ds->bts_absolute_maximum;
	barrier();
	this_cpu_write(intel_bts_aux_tracing, true);
	intel_bts_start_hw(intel_bts_debugctl(event) |
			   (buf->overwrite ? 0 : DEBUGCTLMSR_BTINT));
	return true;
full:
	/* the last stretch said TRUNCATED: no record for nothing */
	perf_aux_output_end(&bc->handle, 0);
	return false;
}

/*
 * Stop storing and publish the records of the stretch. Returns true when
 * it filled the area: the trace stops there (TRUNCATED).
 */
static bool bts_aux_end(void)
{
	struct bts_aux_cpu *bc = this_cpu_ptr(&bts_aux_cpu);
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct bts_aux_buf *buf = perf_get_aux(&bc->handle);
	unsigned long written;
	bool full = false;

	/* the PMI leaves the handle alone from here on */
	this_cpu_write(intel_bts_aux_tracing, false);
	barrier();
	intel_bts_stop_hw();
	written = ds->bts_index - ds->bts_buffer_base;
	if (buf->overwrite) {
		/* the newest record ends at the index; the area is the data */
		bc->handle.head = written;
		perf_aux_output_end(&bc->handle, buf->size);
		return false;
	}
	if (written >= ds->bts_absolute_maximum - ds->bts_buffer_base &&
	    bc->handle.size - written < sizeof(struct bts_record)) {
		perf_aux_output_flag(&bc->handle, PERF_AUX_FLAG_TRUNCATED);
		full = true;
	}
	perf_aux_output_end(&bc->handle, written);
	return full;
}

static void bts_aux_start(struct perf_event *event, int flags)
{
	event->hw.state = bts_aux_begin(event) ? 0 : PERF_HES_STOPPED;
}

static void bts_aux_stop(struct perf_event *event, int flags)
{
	if (this_cpu_read(intel_bts_aux_tracing))
		bts_aux_end();
	event->hw.state = PERF_HES_STOPPED;
}

/*
 * Without room to store into (no AUX area yet, or a full one) the event
 * does not go on the CPU, as in 6.12: a flexible one waits for its next
 * chance, a pinned one goes into error.
 */
static int bts_aux_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START) {
		bts_aux_start(event, 0);
		if (event->hw.state & PERF_HES_STOPPED)
			return -EINVAL;
	}
	return 0;
}

static void bts_aux_del(struct perf_event *event, int flags)
{
	bts_aux_stop(event, PERF_EF_UPDATE);
}

static void bts_aux_read(struct perf_event *event)
{
}

/**
 * intel_bts_aux_pmi - the PMI: the room of this CPU's stretch runs out
 *
 * Return: 1 if the stretch was past its threshold (the next one is
 * opened), else 0.
 */
int intel_bts_aux_pmi(void)
{
	struct bts_aux_cpu *bc = this_cpu_ptr(&bts_aux_cpu);
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct perf_event *event;

	if (!this_cpu_read(intel_bts_aux_tracing) ||
	    ds->bts_index < ds->bts_interrupt_threshold)
		return 0;
	event = bc->handle.event;
	if (bts_aux_end() || !bts_aux_begin(event))
		event->hw.state = PERF_HES_STOPPED;
	return 1;
}

static void bts_aux_destroy(struct perf_event *event)
{
	x86_excl_put(X86_EXCL_TRACE);
}

/*
 * Any config, any sample_period, the kernel too: 6.12 checks nothing,
 * but that no branch stack or legacy BTS event exists (EBUSY)
 */
static int bts_aux_event_init(struct perf_event *event)
{
	int err;

	if (event->attr.type != bts_aux_pmu.type)
		return -ENOENT;
	/*
	 * The records' sources include kernel addresses (the return of
	 * every system call and interrupt), whatever the attr excludes:
	 * the privilege of kernel tracing first, as in 6.12
	 */
	err = perf_allow_kernel();
	if (err)
		return err;
	err = x86_excl_get(X86_EXCL_TRACE);
	if (err)
		return err;
	event->destroy = bts_aux_destroy;
	return 0;
}

static struct pmu bts_aux_pmu = {
	.task_ctx_nr	= perf_sw_context,
	.capabilities	= PERF_PMU_CAP_AUX_NO_SG | PERF_PMU_CAP_ITRACE |
			  PERF_PMU_CAP_EXCLUSIVE,
	.event_init	= bts_aux_event_init,
	.add		= bts_aux_add,
	.del		= bts_aux_del,
	.start		= bts_aux_start,
	.stop		= bts_aux_stop,
	.read		= bts_aux_read,
	.setup_aux	= bts_aux_setup,
	.free_aux	= bts_aux_free,
};

/*
 * intel_bts where the Intel driver took the CPU and it has BTS with a
 * 64-bit DS area (bts.c), without PTI. An arch initcall: after the
 * driver's early one, before the device initcalls' PMUs (its type
 * number is the first dynamic one, as in 6.12).
 */
static int __init bts_aux_init(void)
{
	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL ||
	    !x86_pmu_hw.registered || !boot_cpu_has(X86_FEATURE_BTS) ||
	    !boot_cpu_has(X86_FEATURE_DTES64) ||
	    boot_cpu_has(X86_FEATURE_PTI))
		return -ENODEV;
	return perf_pmu_register(&bts_aux_pmu, "intel_bts", -1);
}
arch_initcall(bts_aux_init);
