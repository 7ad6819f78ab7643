// SPDX-License-Identifier: GPL-2.0-only
/*
 * Branch tracing with the branch trace store (Intel SDM vol. 3, "Branch
 * Trace Store (BTS)"): a branch-instructions event with a period of 1
 * (what gdb's "record btrace bts" opens) samples every taken branch.
 * The hardware counter cannot do that, so 6.12 serves such an event with
 * BTS, and so do we: DEBUGCTL.TR|BTS make the CPU store a 24-byte record
 * {from, to, flags} for each taken branch into this CPU's BTS buffer
 * (ds.c), BTS_OFF_OS leaves out the branches into the kernel, and BTINT
 * raises a PMI once the records reach the interrupt threshold. Each
 * record becomes a sample, ip = from and addr = to, when the PMI or the
 * event's stop drains the buffer. As in 6.12: only user branches (an
 * event that would see the kernel's is refused), the returns from the
 * kernel left out too, no precise_ip, and the event's count stays 0.
 *
 * The event takes the pseudo counter INTEL_PMC_IDX_FIXED_BTS: one a CPU,
 * outside GLOBAL_CTRL, no counter to read (its control page says rdpmc
 * index 1 all the same, as 6.12's). The AUX PMU intel_bts (bts_aux.c)
 * uses the same hardware: while one's event is on a CPU, the other's
 * cannot be added there.
 */

#include <linux/percpu.h>
#include <linux/perf_event.h>

#include <asm/cpufeature.h>
#include <asm/debugreg.h>
#include <asm/intel_ds.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

/* the DEBUGCTL bits a BTS user sets */
#define BTS_DEBUGCTL	(DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS | DEBUGCTLMSR_BTINT | \
			 DEBUGCTLMSR_BTS_OFF_OS | DEBUGCTLMSR_BTS_OFF_USR)

/* the sample types one prepared sample serves for a whole drain */
#define BTS_BATCH_TYPES	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | \
			 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |		\
			 PERF_SAMPLE_PERIOD | PERF_SAMPLE_IDENTIFIER)

static bool bts_on __ro_after_init;
/* a stop drains this CPU's buffer: the PMI keeps off it meanwhile */
static DEFINE_PER_CPU(bool, bts_draining);

/**
 * intel_bts_debugctl - the DEBUGCTL bits that trace @event's branches
 * @event: an event of the legacy BTS path or of intel_bts
 *
 * Return: TR, BTS, and a BTS_OFF bit for each privilege level excluded.
 */
u64 intel_bts_debugctl(struct perf_event *event)
{
	u64 ctl = DEBUGCTLMSR_TR | DEBUGCTLMSR_BTS;

	if (event->attr.exclude_kernel)
		ctl |= DEBUGCTLMSR_BTS_OFF_OS;
	if (event->attr.exclude_user)
		ctl |= DEBUGCTLMSR_BTS_OFF_USR;
	return ctl;
}

/**
 * intel_bts_stop_hw - stop storing branch records on this CPU
 *
 * Return: the BTS bits DEBUGCTL had, for intel_bts_start_hw().
 */
u64 intel_bts_stop_hw(void)
{
	u64 ctl = get_debugctlmsr();

	if (ctl & BTS_DEBUGCTL)
		update_debugctlmsr(ctl & ~BTS_DEBUGCTL);
	return ctl & BTS_DEBUGCTL;
}

/**
 * intel_bts_start_hw - store branch records with @bits
 * @bits: DEBUGCTL's BTS bits, as intel_bts_debugctl() or
 *	intel_bts_stop_hw() gave them
 */
void intel_bts_start_hw(u64 bits)
{
	u64 ctl = get_debugctlmsr();

	update_debugctlmsr((ctl & ~BTS_DEBUGCTL) | bits);
}

/**
 * intel_bts_config - set up a branch-instructions event of period 1
 * @event: the new event
 *
 * Return: 0; -EOPNOTSUPP without BTS, for an event that traces the
 * kernel, or a precise one; -EBUSY while intel_bts events exist;
 * -ENOMEM. What it took is in hw.holds.
 */
int intel_bts_config(struct perf_event *event)
{
	int err;

	if (!bts_on || !event->attr.exclude_kernel || event->attr.precise_ip)
		return -EOPNOTSUPP;
	err = x86_excl_get(X86_EXCL_BRANCH);
	if (err)
		return err;
	event->hw.holds |= X86_HOLDS_BRANCH;
	err = intel_ds_bts_get();
	if (err)
		return err;
	event->hw.holds |= X86_HOLDS_BTS;
	return 0;
}

/* a branch record's sample: addr = to, the registers' ip = from */
static __always_inline void bts_sample_start(struct perf_sample_data *data,
					     struct pt_regs *regs,
					     const struct bts_record *r)
{
	perf_sample_data_init(data, 0, 1);
	data->addr = r->to;
	data->sample_flags |= PERF_SAMPLE_ADDR;
	regs->ip = r->from;
	x86_regs_mode_from_ip(regs);
}

/* a branch from or into the kernel: BTS_OFF_OS keeps only the latter out */
static __always_inline bool bts_kernel(const struct bts_record *r)
{
	return (s64)(r->from | r->to) < 0;
}

/*
 * One sample per record, each through the whole output path: for the
 * sample types whose payload depends on more than ip and addr
 */
static void bts_output_each(struct perf_event *event, struct bts_record *r,
			    struct bts_record *top, struct pt_regs *regs)
{
	struct perf_sample_data data __uninitialized;

	for (; r < top; r++) {
		if (bts_kernel(r))
			continue;
		bts_sample_start(&data, regs, r);
		perf_event_output(event, &data, regs);
	}
}

/*
 * The user branches among the records from @r to @top as samples of
 * @event, in one reservation of the ring buffer: the sample is prepared
 * once, and only its ip and addr differ from record to record.
 */
static void bts_output(struct perf_event *event, struct bts_record *r,
		       struct bts_record *top, struct pt_regs *regs)
{
	struct perf_sample_data data __uninitialized;
	struct perf_event_header header;
	struct perf_output_handle handle;
	struct bts_record *p;
	unsigned int n = 0;

	if (event->attr.sample_type & ~BTS_BATCH_TYPES) {
		bts_output_each(event, r, top, regs);
		return;
	}
	for (p = r; p < top; p++)
		n += !bts_kernel(p);
	if (!n)
		return;
	while (bts_kernel(r))
		r++;
	bts_sample_start(&data, regs, r);
	perf_prepare_sample(&data, event, regs);
	perf_prepare_header(&header, &data, event, regs);
	if (perf_output_begin(&handle, &data, event, header.size * n))
		return;
	for (; r < top; r++) {
		if (bts_kernel(r))
			continue;
		data.ip = r->from;
		data.addr = r->to;
		perf_output_sample(&handle, &header, &data, event);
	}
	perf_output_end(&handle);
}

/*
 * Turn the records of this CPU's buffer into samples of its BTS event
 * and empty it. Storing is off meanwhile (the caller's job).
 */
static void bts_drain(struct perf_event *event, struct pt_regs *iregs)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	struct bts_record *base = (void *)(unsigned long)ds->bts_buffer_base;
	struct bts_record *top = (void *)(unsigned long)ds->bts_index;
	struct pt_regs regs;

	if (top <= base)
		return;
	if (top > base + BTS_BUFFER_SIZE / sizeof(*base))
		top = base + BTS_BUFFER_SIZE / sizeof(*base);
	ds->bts_index = ds->bts_buffer_base;
	if (iregs)
		regs = *iregs;
	else
		memset(&regs, 0, sizeof(regs));
	bts_output(event, base, top, &regs);
}

/**
 * intel_bts_enable - start tracing @event's branches on this CPU
 * @event: a BTS event, on INTEL_PMC_IDX_FIXED_BTS
 */
void intel_bts_enable(struct perf_event *event)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	unsigned long base = (unsigned long)intel_ds_bts_buffer();
	unsigned long max = base + BTS_BUFFER_SIZE / sizeof(struct bts_record) *
			    sizeof(struct bts_record);

	ds->bts_buffer_base = base;
	ds->bts_index = base;
	ds->bts_absolute_maximum = max;
	ds->bts_interrupt_threshold = max - BTS_PMI_SLACK * sizeof(struct bts_record);
	intel_bts_start_hw(intel_bts_debugctl(event) | DEBUGCTLMSR_BTINT);
}

/**
 * intel_bts_disable - stop tracing @event, its records out as samples
 * @event: a BTS event, on INTEL_PMC_IDX_FIXED_BTS
 */
void intel_bts_disable(struct perf_event *event)
{
	this_cpu_write(bts_draining, true);
	barrier();
	intel_bts_stop_hw();
	bts_drain(event, NULL);
	barrier();
	this_cpu_write(bts_draining, false);
}

/**
 * intel_bts_pmi - drain this CPU's BTS event in the PMI
 * @regs: the registers the PMI interrupted
 *
 * BTS has no status bit: a buffer past its threshold is what raised the
 * PMI. The records are drained whenever there are any, storing stopped
 * meanwhile (the drain's own branches would be stored otherwise).
 *
 * Return: 1 if the buffer was past its threshold, else 0.
 */
int intel_bts_pmi(struct pt_regs *regs)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct perf_event *event = cpuc->events[INTEL_PMC_IDX_FIXED_BTS];
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	bool full;
	u64 bits;

	if (!(cpuc->active & BIT_ULL(INTEL_PMC_IDX_FIXED_BTS)))
		return 0;
	full = ds->bts_index >= ds->bts_interrupt_threshold;
	/* the stop's drain, interrupted, has the buffer (and takes these) */
	if (this_cpu_read(bts_draining))
		return full;
	bits = intel_bts_stop_hw();
	bts_drain(event, regs);
	intel_bts_start_hw(bits);
	return full;
}

/**
 * intel_bts_cpu_reset - no branch store left on by firmware or kexec
 */
void intel_bts_cpu_reset(void)
{
	if (bts_on)
		intel_bts_stop_hw();
}

/**
 * intel_bts_init - use the branch trace store if the CPU has it (BTS
 * and a 64-bit DS area)
 */
void __init intel_bts_init(void)
{
	if (!boot_cpu_has(X86_FEATURE_BTS) ||
	    !boot_cpu_has(X86_FEATURE_DTES64))
		return;
	bts_on = true;
	intel_ds_init();
}
