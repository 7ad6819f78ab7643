// SPDX-License-Identifier: GPL-2.0-only
/*
 * The intel_pt PMU's callbacks and its PMI: Intel Processor Trace
 * writing its packets into an event's AUX area through ToPA tables
 * (pt_topa.c), which perf's intel_pt decoder reads ("perf record -e
 * intel_pt//").
 *
 * The event's config bits are IA32_RTIT_CTL bits at their own places
 * (perf-intel-pt.txt's config terms), but bit 0, "pt": without it
 * BranchEn is on, as before the "branch" term existed; with it BranchEn
 * is what "branch" says. The privilege bits come from exclude_kernel
 * and exclude_user; FabricEn and CR3 filtering stay off.
 *
 * While the event runs an output handle is open on the area and the
 * CPU traces into the room it gives:
 *
 * - with a writable area the stretch ends at the last region that fits
 *   in the room (STOP), and INT marks that region, the one before it
 *   and the one of the reader's wakeup point. The PMI (GLOBAL_STATUS
 *   bit 55, from the Intel driver's handler) ends the handle with what
 *   the output registers say was written and opens the next one, with
 *   the room the reader freed meanwhile. A stretch that filled its room
 *   (RTIT_STATUS.Stopped: the reader did not keep up) or hit an
 *   operational error (RTIT_STATUS.Error: the packets after it are
 *   lost) says TRUNCATED, and the trace stays off until the next start;
 * - with a read-only area (overwrite, a snapshot) the CPU goes around
 *   it, no PMI, and the stop publishes where the newest byte ends; the
 *   next start goes on from there.
 *
 * The output registers, STATUS and the tables change only while
 * RTIT_CTL.TraceEn is clear (the CPU faults a write to them otherwise),
 * so every path clears it first.
 *
 * On a CPU that cannot trace in VMX operation (IA32_VMX_MISC[14] clear)
 * KVM's VMXON stops the trace of this CPU (its handle stays open, the
 * stretch has a gap) and VMXOFF resumes it.
 *
 * Everything runs on the event's CPU with IRQs off, or in the PMI. The
 * per-CPU "tracing" flag says whether a handle is open and the PMI may
 * act on it; it is cleared before the trace stops, so a PMI that comes
 * meanwhile leaves the handle to the stop path.
 *
 * Address filters (the core's, perf_event_addr_ranges()) become the
 * ADDRn_A/B ranges, "filter" with ADDRn_CFG 1 (FilterEn), "stop" with 2
 * (TraceStop); ranges only (a start or stop without a size:
 * EOPNOTSUPP). The start reads them into this CPU's copy when they
 * changed; the PMI, which cannot take the core's lock, reuses the copy.
 * A filter on a file that is not mapped now traces nothing (a FilterEn
 * range [0, 0]) or stops nothing.
 *
 * A sample of another event of its group may carry the newest trace
 * (PERF_SAMPLE_AUX, perf record --aux-sample): snapshot_aux() stops the
 * trace for a moment to read where it is, copies the bytes before that
 * point out of the area, and starts it again.
 *
 * TODO: aux_output (PEBS records into the trace) needs the "cpu" PMU's
 * aux_output_match() and the PEBS output-to-PT setup.
 */

#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/topology.h>

#include <asm/intel_pt.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"
#include "pt.h"

/* config bit 0, "pt": BranchEn follows "branch" (TraceEn in RTIT_CTL) */
#define PT_CONFIG_PT		BIT_ULL(0)
/* the config bits every CPU with PT has */
#define PT_CONFIG_ALWAYS	(PT_CONFIG_PT | RTIT_CTL_TSC_EN | \
				 RTIT_CTL_DISRETC | RTIT_CTL_BRANCH_EN)

/* the address ranges PT has at most (CPUID.(EAX=14H,ECX=1):EAX[2:0]) */
#define PT_ADDR_MAX		4
#define PT_ADDR_CFG_FILTER	1
#define PT_ADDR_CFG_STOP	2

/**
 * struct pt_filters - an event's address ranges as this CPU programs them
 * @event: whose (NULL: none read yet)
 * @gen: the generation read (hw.addr_filters_gen)
 * @cfg: the ADDRn_CFG fields, at their place in RTIT_CTL
 * @a: ADDRn_A
 * @b: ADDRn_B
 */
struct pt_filters {
	struct perf_event	*event;
	unsigned long		gen;
	u64			cfg;
	u64			a[PT_ADDR_MAX];
	u64			b[PT_ADDR_MAX];
};

/**
 * struct pt_cpu - this CPU's intel_pt event
 * @handle: the output handle open while the event traces
 * @off: the byte of the area the stretch started at
 * @len: the most the stretch may write (to its STOP region's end)
 * @ctl: the event's RTIT_CTL, without TraceEn
 * @tracing: the handle is open (the PMI may end it)
 * @vmx_on: VMX operation is on and the CPU cannot trace meanwhile
 * @filters: the event's address ranges
 */
struct pt_cpu {
	struct perf_output_handle	handle;
	struct pt_filters		filters;
	unsigned long			off;
	unsigned long			len;
	u64				ctl;
	bool				tracing;
	bool				vmx_on;
};

static DEFINE_PER_CPU(struct pt_cpu, pt_cpu);

static void *pt_setup_aux(struct perf_event *event, void **pages,
			  int nr_pages, bool overwrite)
{
	int node = event->cpu == -1 ? NUMA_NO_NODE : cpu_to_node(event->cpu);

	return pt_topa_alloc(node, pages, nr_pages, overwrite,
			     intel_pt_validate_hw_cap(PT_CAP_topa_multiple_entries));
}

static void pt_free_aux(void *priv)
{
	pt_topa_free(priv);
}

/*
 * Open a handle and start the trace at its head. Returns false when
 * there is no area, no room or not one whole region of room: the event
 * is not tracing then.
 */
static bool pt_begin(struct perf_event *event)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpu);
	struct pt_topa_span sp;
	struct pt_topa *tp;

	tp = perf_aux_output_begin(&pc->handle, event);
	if (!tp)
		return false;
	pt_topa_seek(tp, pc->handle.head, &sp);
	if (!pt_topa_overwrite(tp) &&
	    !pt_topa_bound(tp, &sp, pc->handle.size,
			   (long)(pc->handle.wakeup - pc->handle.head))) {
		/*
		 * the reader left less than the rest of this region: the
		 * CPU would overwrite unread data before it could stop, so
		 * the trace stops here and has a gap; one record says so
		 * (the stretch that filled the room, or this one), not
		 * every start until the reader catches up
		 */
		if (!pt_topa_gap(tp, true))
			perf_aux_output_flag(&pc->handle,
					     PERF_AUX_FLAG_TRUNCATED);
		perf_aux_output_end(&pc->handle, 0);
		return false;
	}
	pt_topa_gap(tp, false);
	pc->off = sp.off;
	pc->len = sp.len;
	pc->ctl = event->hw.config;
	/* whatever left TraceEn set, the writes below would fault */
	wrmsrl(MSR_IA32_RTIT_CTL, 0);
	if (pc->filters.event == event && pc->filters.cfg) {
		int i;

		for (i = 0; i < pt_pmu.nr_addr_filters; i++) {
			wrmsrl(MSR_IA32_RTIT_ADDR0_A + 2 * i, pc->filters.a[i]);
			wrmsrl(MSR_IA32_RTIT_ADDR0_B + 2 * i, pc->filters.b[i]);
		}
		pc->ctl |= pc->filters.cfg;
	}
	wrmsrl(MSR_IA32_RTIT_OUTPUT_BASE, sp.base);
	wrmsrl(MSR_IA32_RTIT_OUTPUT_MASK, sp.ptrs);
	wrmsrl(MSR_IA32_RTIT_STATUS, 0);
	barrier();
	WRITE_ONCE(pc->tracing, true);
	barrier();
	if (!READ_ONCE(pc->vmx_on))
		wrmsrl(MSR_IA32_RTIT_CTL, pc->ctl | RTIT_CTL_TRACEEN);
	return true;
}

/*
 * Clear TraceEn (the output registers are exact only then) and return
 * the byte of the area the CPU writes next
 */
static unsigned long pt_halt_pos(struct pt_cpu *pc, struct pt_topa *tp)
{
	u64 base, ptrs;

	wrmsrl(MSR_IA32_RTIT_CTL, pc->ctl);
	rdmsrl(MSR_IA32_RTIT_OUTPUT_BASE, base);
	rdmsrl(MSR_IA32_RTIT_OUTPUT_MASK, ptrs);
	return pt_topa_pos(tp, base, ptrs, pc->off);
}

/*
 * Stop the trace and publish the stretch. Returns true when the trace
 * must stay off: the stretch filled its room or met an error.
 */
static bool pt_end(void)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpu);
	struct pt_topa *tp = perf_get_aux(&pc->handle);
	unsigned long pos, written;
	u64 status;
	bool full;

	/* the PMI leaves the handle alone from here on */
	WRITE_ONCE(pc->tracing, false);
	barrier();
	pos = pt_halt_pos(pc, tp);
	rdmsrl(MSR_IA32_RTIT_STATUS, status);
	if (pt_topa_overwrite(tp)) {
		/* the newest byte ends at pos; the whole area is the data */
		pc->handle.head = pos;
		perf_aux_output_end(&pc->handle, pt_topa_size(tp));
		return false;
	}
	pt_topa_unmark(tp);
	written = min((pos - pc->off) & (pt_topa_size(tp) - 1), pc->len);
	/*
	 * Stopped: the STOP region filled, the reader's room is used up.
	 * Error: the CPU stopped packet generation on an output error, the
	 * rest of the stretch is lost. Either way what follows is missing.
	 */
	full = written == pc->len ||
	       (status & (RTIT_STATUS_STOPPED | RTIT_STATUS_ERROR));
	if (full) {
		perf_aux_output_flag(&pc->handle, PERF_AUX_FLAG_TRUNCATED);
		pt_topa_gap(tp, true);
	}
	perf_aux_output_end(&pc->handle, written);
	return full;
}

/* Read @event's address ranges into this CPU's copy if they changed */
static void pt_filters_sync(struct pt_filters *pf, struct perf_event *event)
{
	struct perf_addr_range r[PT_ADDR_MAX];
	unsigned long gen;
	int i, nr;

	if (!pt_pmu.nr_addr_filters)
		return;
	if (pf->event == event && pf->gen == READ_ONCE(event->hw.addr_filters_gen))
		return;
	nr = perf_event_addr_ranges(event, r, pt_pmu.nr_addr_filters, &gen);
	pf->event = event;
	pf->gen = gen;
	pf->cfg = 0;
	for (i = 0; i < nr; i++) {
		u64 cfg = r[i].action == PERF_ADDR_FILTER_ACTION_FILTER ?
			  PT_ADDR_CFG_FILTER : PT_ADDR_CFG_STOP;

		pf->a[i] = r[i].start;
		pf->b[i] = r[i].start + r[i].size - 1;
		if (!r[i].size) {
			/* a file not mapped now: nothing matches */
			if (cfg == PT_ADDR_CFG_STOP)
				continue;
			pf->a[i] = 0;
			pf->b[i] = 0;
		}
		pf->cfg |= cfg << (RTIT_CTL_ADDR0_OFFSET + 4 * i);
	}
}

static void pt_start(struct perf_event *event, int flags)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpu);

	/* PERF_PMU_CAP_EXCLUSIVE: one event per CPU; this is a bug */
	if (WARN_ON_ONCE(READ_ONCE(pc->tracing))) {
		event->hw.state = PERF_HES_STOPPED;
		return;
	}
	pt_filters_sync(&pc->filters, event);
	event->hw.state = pt_begin(event) ? 0 : PERF_HES_STOPPED;
}

static void pt_stop(struct perf_event *event, int flags)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpu);

	if (READ_ONCE(pc->tracing) && pc->handle.event == event)
		pt_end();
	event->hw.state = PERF_HES_STOPPED;
}

/*
 * Without room to trace into (no AUX area yet, or a full one) the event
 * does not go on the CPU, as intel_bts: a flexible one waits for its
 * next chance, a pinned one goes into error.
 */
static int pt_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
	if (flags & PERF_EF_START) {
		pt_start(event, 0);
		if (event->hw.state & PERF_HES_STOPPED)
			return -EINVAL;
	}
	return 0;
}

static void pt_del(struct perf_event *event, int flags)
{
	pt_stop(event, PERF_EF_UPDATE);
	/* the copy names the event: not one that may reuse its memory */
	this_cpu_ptr(&pt_cpu)->filters.event = NULL;
}

/* the trace is the data: there is no count */
static void pt_read(struct perf_event *event)
{
}

/**
 * intel_pt_interrupt - the ToPA PMI: a region marked INT filled
 *
 * Called by the Intel PMI handler for GLOBAL_STATUS bit 55 (which it
 * acknowledges), in the NMI. Ends this CPU's stretch and opens the next
 * one, unless the area is full.
 */
void intel_pt_interrupt(void)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpu);
	struct perf_event *event;

	/* a stale PMI, or one during start or stop */
	if (!READ_ONCE(pc->tracing))
		return;
	event = pc->handle.event;
	if (pt_end() || !pt_begin(event))
		event->hw.state = PERF_HES_STOPPED;
}

/**
 * pt_pmu_emergency_stop - stop this CPU's trace, nothing else
 *
 * For the crash paths (NMI, other CPUs stopped): the handle stays as it
 * is, only the CPU stops writing to memory.
 */
void pt_pmu_emergency_stop(void)
{
	if (READ_ONCE(this_cpu_ptr(&pt_cpu)->tracing))
		wrmsrl(MSR_IA32_RTIT_CTL, 0);
}

/**
 * pt_pmu_vmx - VMX operation starts (@on) or ends on this CPU
 * @on: true at VMXON
 *
 * For CPUs that cannot trace in VMX operation: the trace is off while
 * it lasts, its handle open; the stretch has a gap.
 */
void pt_pmu_vmx(bool on)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpu);
	unsigned long flags;

	local_irq_save(flags);
	/* before the write: a PMI from here on does not turn it back on */
	WRITE_ONCE(pc->vmx_on, on);
	barrier();
	if (READ_ONCE(pc->tracing))
		wrmsrl(MSR_IA32_RTIT_CTL,
		       pc->ctl | (on ? 0 : RTIT_CTL_TRACEEN));
	barrier();
	/*
	 * A PMI between the test and the write may have ended the stretch
	 * for good: then the write just turned on a trace without handle
	 * (into an area still allocated: its free needs this CPU's IRQs)
	 */
	if (!on && !READ_ONCE(pc->tracing))
		wrmsrl(MSR_IA32_RTIT_CTL, 0);
	local_irq_restore(flags);
}

static void pt_event_destroy(struct perf_event *event)
{
	x86_excl_put(X86_EXCL_PT);
}

/* the config bits this CPU's PT has */
static u64 pt_config_allowed(void)
{
	u64 allowed = PT_CONFIG_ALWAYS;

	if (intel_pt_validate_hw_cap(PT_CAP_psb_cyc))
		allowed |= RTIT_CTL_CYCLEACC | RTIT_CTL_CYC_THRESH |
			   RTIT_CTL_PSB_FREQ;
	if (intel_pt_validate_hw_cap(PT_CAP_mtc))
		allowed |= RTIT_CTL_MTC_EN | RTIT_CTL_MTC_RANGE;
	if (intel_pt_validate_hw_cap(PT_CAP_ptwrite))
		allowed |= RTIT_CTL_PTW_EN | RTIT_CTL_FUP_ON_PTW;
	if (intel_pt_validate_hw_cap(PT_CAP_power_event_trace))
		allowed |= RTIT_CTL_PWR_EVT_EN;
	if (intel_pt_validate_hw_cap(PT_CAP_event_trace))
		allowed |= RTIT_CTL_EVENT_EN;
	if (intel_pt_validate_hw_cap(PT_CAP_tnt_disable))
		allowed |= RTIT_CTL_NOTNT;
	return allowed;
}

/*
 * A frequency or threshold field: 0 is always valid (perf-intel-pt.txt),
 * any other value where the capability's bitmap has its bit.
 */
static bool pt_field_valid(u64 config, u64 field, enum pt_capabilities cap)
{
	unsigned int val = (config & field) >> __ffs64(field);

	return !val || (intel_pt_validate_hw_cap(cap) & BIT(val));
}

/* RTIT_CTL for @event, without TraceEn */
static u64 pt_rtit_ctl(struct perf_event *event)
{
	u64 config = event->attr.config;
	u64 ctl = RTIT_CTL_TOPA |
		  (config & ~(PT_CONFIG_PT | RTIT_CTL_BRANCH_EN));

	if (!(config & PT_CONFIG_PT) || (config & RTIT_CTL_BRANCH_EN))
		ctl |= RTIT_CTL_BRANCH_EN;
	if (!event->attr.exclude_kernel)
		ctl |= RTIT_CTL_OS;
	if (!event->attr.exclude_user)
		ctl |= RTIT_CTL_USR;
	return ctl;
}

/*
 * EINVAL for a config bit this CPU lacks or a field value it does not
 * list; EBUSY beside intel_bts, branch stack and legacy BTS events on
 * models before Skylake (from Skylake on they work side by side). Any
 * sample_period, as intel_bts: the trace has no counter to sample on.
 */
static int pt_event_init(struct perf_event *event)
{
	u64 config = event->attr.config;
	int err;

	if (event->attr.type != pt_pmu.type)
		return -ENOENT;
	if ((config & ~pt_config_allowed()) ||
	    !pt_field_valid(config, RTIT_CTL_MTC_RANGE, PT_CAP_mtc_periods) ||
	    !pt_field_valid(config, RTIT_CTL_CYC_THRESH,
			    PT_CAP_cycle_thresholds) ||
	    !pt_field_valid(config, RTIT_CTL_PSB_FREQ, PT_CAP_psb_periods))
		return -EINVAL;
	if (!intel_lbr_pt_coexist) {
		err = x86_excl_get(X86_EXCL_PT);
		if (err)
			return err;
		event->destroy = pt_event_destroy;
	}
	event->hw.config = pt_rtit_ctl(event);
	return 0;
}

/*
 * PERF_SAMPLE_AUX of a sample of @event's group: up to @size of the
 * newest bytes of this CPU's trace, if @event is what traces here. In
 * the PMI or with IRQs off, on the event's CPU.
 */
static long pt_snapshot_aux(struct perf_event *event,
			    struct perf_output_handle *handle,
			    unsigned long size)
{
	struct pt_cpu *pc = this_cpu_ptr(&pt_cpu);
	unsigned long pos, len;
	struct pt_topa *tp;

	if (!READ_ONCE(pc->tracing) || pc->handle.event != event)
		return 0;
	tp = perf_get_aux(&pc->handle);
	pos = pt_halt_pos(pc, tp);
	len = min(size, pt_topa_size(tp));
	pt_topa_copy(tp, handle, pos - len, len);
	if (!READ_ONCE(pc->vmx_on))
		wrmsrl(MSR_IA32_RTIT_CTL, pc->ctl | RTIT_CTL_TRACEEN);
	return len;
}

/**
 * pt_addr_filters_validate - may PT take these address filters?
 * @r: the filters, as parsed
 * @nr: how many (at most nr_addr_filters)
 *
 * Return: 0, or EOPNOTSUPP for a start (PT has no such action) or a stop
 * without a size: PT's filters are ranges.
 */
int pt_addr_filters_validate(const struct perf_addr_range *r, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (r[i].action == PERF_ADDR_FILTER_ACTION_START || !r[i].size)
			return -EOPNOTSUPP;
	}
	return 0;
}

/* pt.c sets the capabilities and sysfs groups and registers it */
struct pmu pt_pmu = {
	.task_ctx_nr	= perf_sw_context,
	.event_init	= pt_event_init,
	.add		= pt_add,
	.del		= pt_del,
	.start		= pt_start,
	.stop		= pt_stop,
	.read		= pt_read,
	.setup_aux	= pt_setup_aux,
	.free_aux	= pt_free_aux,
	.snapshot_aux	= pt_snapshot_aux,
};
