// SPDX-License-Identifier: GPL-2.0-only
/*
 * The x86 "cpu" PMU (type PERF_TYPE_RAW): hardware counters, whichever
 * vendor's. The vendor driver describes its counters in a struct
 * x86_pmu_ops; this file does what is common to all of them:
 *
 * - event_init: PERF_TYPE_HARDWARE through the vendor's event map,
 *   PERF_TYPE_HW_CACHE through its cache tables, PERF_TYPE_RAW masked
 *   to its raw mask (the bits outside are dropped, not refused, as by
 *   the stock 6.12 kernel), then the vendor's own checks; the
 *   privilege bits from
 *   exclude_user/exclude_kernel; the interrupt bit always, so that a
 *   counting event's counter is refreshed before it can wrap.
 * - add/del: a counter index per event, the first free one the vendor's
 *   constraint allows (fixed counters first: they cost no general one),
 *   and the extra register it needs (offcore response), which events
 *   on the CPU's core share while they want the same value. Neither
 *   free fails the add; the core then multiplexes.
 * - counting: the counter is loaded with -left (left = what remains of
 *   the period) and counts up; an update adds the distance it moved,
 *   sign-extended from the counter width, to event->count.
 * - the PMI arrives as an NMI; the vendor's handle_irq finds the
 *   counters that overflowed and hands each to x86_pmu_overflow().
 * - its other jobs have files of their own: the branch stack users
 *   (branch_stack.c), rdpmc and the control page (userpage.c), and its
 *   sysfs files (sysfs.c).
 *
 * Everything runs on the event's CPU with IRQs off (the core calls add,
 * del, start, stop and read under ctx->lock) or in the NMI.
 */

#define pr_fmt(fmt)	"Performance Events: " fmt

#include <linux/bitops.h>
#include <linux/cpuhotplug.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/static_call.h>

#include <asm/apic.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>
#include <asm/perf_regs.h>
#include <asm/timer.h>
#include <asm/tsc.h>

#include "perf_event.h"

DEFINE_PER_CPU(struct cpu_hw_events, cpu_hw_events);
DEFINE_PER_CPU(struct x86_cpu_type *, x86_this_type);
int x86_nr_types __read_mostly;

const struct x86_pmu_ops *x86_ops __read_mostly;

/*
 * A raw counter value sign-extended from the counter's width. The
 * control page's offset is count - prev_count and user space adds the
 * sign-extended rdpmc value to it (pmc_width), so prev_count is kept in
 * the same sign-extended form for the sum to be the count.
 */
static inline u64 x86_counter_sext(struct hw_perf_event *hwc, u64 raw)
{
	int shift = 64 - x86_counter_bits(hwc);

	return (u64)((s64)(raw << shift) >> shift);
}

/**
 * __x86_perf_event_update - add what the counter counted since the last update
 * @event: an event on a counter of this CPU
 *
 * Safe against the NMI: the previous raw value is swapped with cmpxchg,
 * so an update that races with the PMI's counts each event once.
 *
 * Return: the counter value read, sign-extended from its width.
 */
static __always_inline u64 __x86_perf_event_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	int shift = 64 - x86_counter_bits(hwc);
	u64 prev, now;
	s64 delta;

	/*
	 * Intel's BTS (no counter: its drain counts) and top-down events (no
	 * other vendor has counters this high); a sampling slots event
	 * counts as any other
	 */
	if (unlikely(hwc->idx >= INTEL_PMC_IDX_FIXED_SLOTS)) {
		if (hwc->idx == INTEL_PMC_IDX_FIXED_BTS)
			return 0;
		if (is_topdown_idx(hwc->idx) && !is_sampling_event(event))
			return x86_ops->intel.td_update(event);
	}
	prev = local64_read(&hwc->prev_count);
	do {
		rdpmcl(hwc->event_base_rdpmc, now);
		now = x86_counter_sext(hwc, now);
	} while (!local64_try_cmpxchg(&hwc->prev_count, &prev, now));

	delta = (s64)((now << shift) - (prev << shift)) >> shift;
	local64_add(delta, &event->count);
	local64_sub(delta, &hwc->period_left);
	return now;
}

/**
 * x86_perf_event_update - __x86_perf_event_update(), out of line
 * @event: an event on a counter of this CPU
 *
 * Return: the counter value read, sign-extended from its width.
 */
u64 x86_perf_event_update(struct perf_event *event)
{
	return __x86_perf_event_update(event);
}

/**
 * __x86_perf_event_set_period - load the counter with the rest of the period
 * @event: an event on a counter of this CPU
 *
 * Return: true if the period had run out (an overflow to report): the
 * next period then starts, and hwc->last_period is the one that ended.
 */
static __always_inline bool __x86_perf_event_set_period(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	s64 period = hwc->sample_period;
	bool overflow = false;
	u64 mask;

	if (unlikely(hwc->idx >= INTEL_PMC_IDX_FIXED_SLOTS)) {
		if (hwc->idx == INTEL_PMC_IDX_FIXED_BTS)
			return false;
		if (is_topdown_idx(hwc->idx) && !is_sampling_event(event)) {
			x86_ops->intel.td_start(event);
			return false;
		}
	}
	if (unlikely(left <= -period)) {
		left = period;
		overflow = true;
	} else if (unlikely(left <= 0)) {
		left += period;
		overflow = true;
	}
	if (overflow) {
		local64_set(&hwc->period_left, left);
		hwc->last_period = period;
	}
	/* a counter only interrupts when it wraps: at most half its range */
	if (left > (s64)x86_ops->max_period)
		left = x86_ops->max_period;
	/*
	 * Never less than 2: a period of 1 takes every other event, as on
	 * the stock kernel (and a PMI per instruction would starve the CPU).
	 */
	if (left < 2)
		left = 2;

	mask = GENMASK_ULL(x86_counter_bits(hwc) - 1, 0);
	local64_set(&hwc->prev_count, (u64)-left);
	wrmsrl(hwc->event_base, (u64)-left & mask);
	/* the offset a self-monitoring reader adds to rdpmc just moved */
	perf_event_update_userpage_reload(event);
	return overflow;
}

/**
 * x86_perf_event_set_period - __x86_perf_event_set_period(), out of line
 * @event: an event on a counter of this CPU
 *
 * Return: true if the period had run out.
 */
bool x86_perf_event_set_period(struct perf_event *event)
{
	return __x86_perf_event_set_period(event);
}

static void x86_pmu_start(struct perf_event *event, int flags)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct hw_perf_event *hwc = &event->hw;

	if (WARN_ON_ONCE(hwc->idx < 0))
		return;
	if (flags & PERF_EF_RELOAD)
		x86_perf_event_set_period(event);
	hwc->state = 0;
	cpuc->active |= BIT_ULL(hwc->idx);
	x86_ops->enable(event);
	perf_event_update_userpage(event);
}

static void x86_pmu_stop(struct perf_event *event, int flags)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->idx >= 0 && (cpuc->active & BIT_ULL(hwc->idx))) {
		x86_ops->disable(event);
		cpuc->active &= ~BIT_ULL(hwc->idx);
		hwc->state |= PERF_HES_STOPPED;
	}
	if ((flags & PERF_EF_UPDATE) && !(hwc->state & PERF_HES_UPTODATE)) {
		x86_perf_event_update(event);
		hwc->state |= PERF_HES_UPTODATE;
	}
}

/* the counter @event gets when @used are taken: fixed first; -1 if none */
static int x86_pick_counter(struct perf_event *event, u64 used)
{
	u64 free = x86_ops->constraint(event, event->hw.config) & ~used;

	if (!free)
		return -1;
	if (free >> INTEL_PMC_IDX_FIXED)
		return INTEL_PMC_IDX_FIXED + __ffs64(free >> INTEL_PMC_IDX_FIXED);
	return __ffs64(free);
}

/*
 * Add @event to a trial schedule of @used counters. Returns false if it
 * does not fit. The extra registers are not counted: a group whose
 * members want more values of an extra register than it can hold opens,
 * as on the stock kernel, and never gets on.
 */
static bool x86_group_take(struct perf_event *event, u64 *used)
{
	int idx;

	if (!is_x86_cpu_event(event))
		return true;
	idx = x86_pick_counter(event, *used);
	if (idx < 0)
		return false;
	*used |= BIT_ULL(idx);
	return true;
}

/*
 * Whether the "cpu" events of @leader's group and then @event fit the
 * counters at once.
 */
static bool x86_group_schedulable(struct perf_event *leader,
				  struct perf_event *event)
{
	struct perf_event *sibling;
	u64 used = 0;

	if (!x86_group_take(leader, &used))
		return false;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		if (!x86_group_take(sibling, &used))
			return false;
	}
	return x86_group_take(event, &used);
}

/*
 * Whether @event and the other "cpu" events of its group fit the
 * counters at once: a group that never can would never count, so
 * perf_event_open() refuses it (EINVAL), as the stock kernel does.
 *
 * event_init runs before the core takes any lock of the group's
 * context, while other members may be closed: the sibling list is
 * walked under the lock the core changes it under. The leader itself
 * is held by the group fd (or the inherit code).
 */
static bool x86_group_fits(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;
	struct perf_event_context *ctx;
	unsigned long flags;
	bool fits;

	if (leader == event)
		return true;
	ctx = perf_event_group_lock(leader, &flags);
	fits = x86_group_schedulable(leader, event);
	perf_event_group_unlock(ctx, flags);
	return fits;
}

static int x86_pmu_add(struct perf_event *event, int flags)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct hw_perf_event *hwc = &event->hw;
	int idx;

	idx = x86_pick_counter(event, cpuc->used);
	if (idx < 0)
		return -EAGAIN;

	if (has_branch_stack(event) && !x86_lbr_fits(cpuc, event))
		return -EAGAIN;
	/* last: nothing to undo if it fails */
	if (x86_ops->intel.extra_claim && x86_ops->intel.extra_claim(event))
		return -EAGAIN;

	if (has_branch_stack(event))
		x86_lbr_add(cpuc, event);
	/* what it holds is its new user's; x86_pmu_del() marks it again */
	cpuc->dirty &= ~BIT_ULL(idx);
	cpuc->used |= BIT_ULL(idx);
	cpuc->events[idx] = event;
	hwc->idx = idx;
	x86_ops->counter(idx, &hwc->event_base, &hwc->event_base_rdpmc,
			 &hwc->flags);
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		x86_pmu_start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

static void x86_pmu_del(struct perf_event *event, int flags)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct hw_perf_event *hwc = &event->hw;

	x86_pmu_stop(event, PERF_EF_UPDATE);
	if (hwc->idx >= 0) {
		cpuc->events[hwc->idx] = NULL;
		cpuc->used &= ~BIT_ULL(hwc->idx);
		/* it keeps the count: see perf_clear_dirty_counters() */
		if (hwc->event_base)
			cpuc->dirty |= BIT_ULL(hwc->idx);
		if (has_branch_stack(event))
			x86_lbr_del(cpuc, event);
		if (x86_ops->intel.extra_put)
			x86_ops->intel.extra_put(event);
	}
	hwc->idx = -1;
	perf_event_update_userpage(event);
}

static void x86_pmu_read(struct perf_event *event)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	/* records not drained yet hold reloads the counter does not show */
	if (event->attr.precise_ip && x86_ops->intel.pebs_flush)
		x86_ops->intel.pebs_flush();
	x86_perf_event_update(event);
}

/**
 * x86_pmu_overflow - a counter of @event wrapped: update, reload, report
 * @event: the event on that counter
 * @regs: the registers the PMI interrupted
 *
 * Called by the vendor's handle_irq in the NMI. A counting event only
 * gets its counter reloaded; a sampling event whose period ran out is
 * reported to the core, and stopped if the core says so (throttling,
 * the REFRESH limit).
 *
 * Return: true if a period ran out.
 */
bool x86_pmu_overflow(struct perf_event *event, struct pt_regs *regs)
{
	/* perf_sample_data_init() sets what is read without a sample_flags bit */
	struct perf_sample_data data __uninitialized;

	/* inline: the PMI's one path through both (pmi_sample) */
	__x86_perf_event_update(event);
	if (!__x86_perf_event_set_period(event))
		return false;
	if (!is_sampling_event(event))
		return true;

	perf_sample_data_init(&data, 0, event->hw.last_period);
	x86_pmu_report(event, &data, regs);
	return true;
}

/**
 * x86_pmu_report - hand a sample of @event to the core, in the PMI
 * @event: the event whose period ran out
 * @data: what the driver filled of it
 * @regs: the registers it reports
 *
 * Adds the branch stack the PMI read; stops the event if the core says
 * so (throttling, the REFRESH limit).
 */
void x86_pmu_report(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs)
{
	x86_pmu_add_branches(event, data);
	if (perf_event_overflow(event, data, regs))
		x86_pmu_stop(event, 0);
}

/**
 * x86_pmu_report_more - another sample of @event from the same interrupt
 * @event: an event that x86_pmu_report() already reported in it
 * @data: the sample
 * @regs: its registers
 *
 * The records of one PEBS drain, as in 6.12: only the first of an event
 * counts against the sample rate limit; the others are written as they
 * are, unless the event has more to do at an overflow (a handler, a BPF
 * program, SIGTRAP, a REFRESH limit), when each is an overflow.
 */
void x86_pmu_report_more(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs)
{
	if (event->overflow_handler || READ_ONCE(event->prog) ||
	    event->attr.sigtrap || atomic_read(&event->event_limit)) {
		x86_pmu_report(event, data, regs);
		return;
	}
	x86_pmu_add_branches(event, data);
	perf_event_output(event, data, regs);
}

/**
 * x86_perf_event_reloaded - count a wrap that the hardware reloaded
 * @event: an event on a counter of this CPU
 * @period: the counter was reloaded with minus this (PEBS)
 *
 * Counts the events up to the wrap; the next update counts from the
 * reload. The caller updates the control page once it has counted all
 * the wraps it knows of.
 */
void x86_perf_event_reloaded(struct perf_event *event, u64 period)
{
	struct hw_perf_event *hwc = &event->hw;

	local64_sub(local64_read(&hwc->prev_count), &event->count);
	local64_set(&hwc->prev_count, -(s64)period);
	local64_set(&hwc->period_left, period);
	/* what the core's frequency adjustment counts the sample as */
	hwc->last_period = period;
}

static int x86_pmu_no_pmi(struct pt_regs *regs)
{
	return 0;
}

struct x86_pmu_pmi x86_pmu __read_mostly = {
	.handle_irq	= x86_pmu_no_pmi,
};

/*
 * What perf_sample_event_took() is told a PMI took. Where sched_clock()
 * is the TSC's and the TSC runs at a constant rate, the handler is timed
 * by the TSC itself: two rdtsc and one scaling, where two sched_clock()
 * calls were about a twentieth of a sample's whole cost (benchmarks.rst).
 * The NMI does not move to another CPU, so the two reads are one TSC's.
 */
static DEFINE_STATIC_KEY_FALSE(x86_pmi_tsc_timed);

static __always_inline u64 x86_pmi_clock(void)
{
	if (static_branch_likely(&x86_pmi_tsc_timed))
		return rdtsc();
	return sched_clock();
}

static __always_inline u64 x86_pmi_took(u64 start)
{
	s64 cycles;

	if (!static_branch_likely(&x86_pmi_tsc_timed))
		return sched_clock() - start;
	cycles = rdtsc() - start;
	/* a TSC written backwards would make the division fault */
	if (unlikely(cycles < 0))
		return 0;
	return mul_u64_u32_div(cycles, NSEC_PER_MSEC, READ_ONCE(tsc_khz));
}

static void __init x86_pmi_timing_init(void)
{
	/* tsc_khz stays nonzero once known: a recalibration refines it */
	if (boot_cpu_has(X86_FEATURE_CONSTANT_TSC) && tsc_khz >= 1000 &&
	    using_native_sched_clock())
		static_branch_enable(&x86_pmi_tsc_timed);
}

static int x86_pmu_nmi(unsigned int cmd, struct pt_regs *regs)
{
	bool timed = perf_sample_time_limited();
	u64 start = timed ? x86_pmi_clock() : 0;
	int handled;

	handled = x86_ops->handle_irq(regs);
	this_cpu_write(x86_lbr_valid, false);
	if (handled && timed)
		perf_sample_event_took(x86_pmi_took(start));
	return handled ? NMI_HANDLED : NMI_DONE;
}

/*
 * PERF_TYPE_HW_CACHE: config is cache | op << 8 | result << 16; the
 * vendor's tables give the raw config and its extra register value.
 */
static int x86_cache_event(struct x86_cpu_type *type, u64 attr_config,
			   u64 *config, u64 *config1)
{
	unsigned int cache = attr_config & 0xff;
	unsigned int op = (attr_config >> 8) & 0xff;
	unsigned int result = (attr_config >> 16) & 0xff;
	u64 val;

	if (cache >= PERF_COUNT_HW_CACHE_MAX ||
	    op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	if (!type->cache_events)
		return -ENOENT;
	/* the indices come from user space */
	cache = array_index_nospec(cache, PERF_COUNT_HW_CACHE_MAX);
	op = array_index_nospec(op, PERF_COUNT_HW_CACHE_OP_MAX);
	result = array_index_nospec(result, PERF_COUNT_HW_CACHE_RESULT_MAX);

	val = (*type->cache_events)[cache][op][result];
	if (!val)
		return -ENOENT;
	if (val == X86_CACHE_INVALID)
		return -EINVAL;
	*config = val;
	*config1 = type->cache_extra ?
		   (*type->cache_extra)[cache][op][result] : 0;
	return 0;
}

/*
 * The first period of a frequency-mode event, before any rate is known:
 * 1, or where the vendor guesses (x86_ops->intel.freq_guess), how many
 * events a second it counts over the frequency, rounded up, less one. The
 * guesses are 6.12's on Intel, as its first counter values show: 5e8
 * for the cycle and instruction events, 1.25e8 for branches, 2.5e7 for
 * the cache events, 256000 for a raw one (AMD starts at 1).
 */
static u64 x86_freq_first_period(const struct perf_event_attr *attr)
{
	u64 rate = 256000;

	if (!x86_ops->intel.freq_guess)
		return 1;

	if (attr->type == PERF_TYPE_HW_CACHE) {
		rate = 25000000;
	} else if (attr->type == PERF_TYPE_HARDWARE) {
		switch (attr->config & PERF_HW_EVENT_MASK) {
		case PERF_COUNT_HW_CACHE_REFERENCES:
		case PERF_COUNT_HW_CACHE_MISSES:
			rate = 25000000;
			break;
		case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:
		case PERF_COUNT_HW_BRANCH_MISSES:
			rate = 125000000;
			break;
		default:
			rate = 500000000;
			break;
		}
	}
	return max_t(u64, div64_u64(rate - 1, attr->sample_freq), 1);
}

/* give back what the event's init took (hw.holds) */
static void x86_pmu_event_destroy(struct perf_event *event)
{
	if (event->hw.holds & X86_HOLDS_BRANCH)
		x86_excl_put(X86_EXCL_BRANCH);
	if (x86_ops->release)
		x86_ops->release(event);
	event->hw.holds = 0;
}

static int x86_pmu_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	struct hw_perf_event *hwc = &event->hw;
	u64 config, config1 = 0;
	int err;

	/*
	 * Hybrid: a CPU of the other kind of core has no counters of this
	 * PMU (6.12: ENOENT)
	 */
	if (x86_nr_types > 1 && event->cpu >= 0 &&
	    !cpumask_test_cpu(event->cpu, &x86_event_type(event)->cpus))
		return -ENOENT;

	/* from here on a failure gives back what was taken (hw.holds) */
	hwc->holds = 0;
	event->destroy = x86_pmu_event_destroy;

	/*
	 * As 6.12: a precise event the counters cannot take is handed on
	 * (AMD: to IBS) before its config and registers are looked at;
	 * one they can take must sample (PEBS), checked before its config
	 * is looked up.
	 */
	if (attr->precise_ip > x86_ops->max_precise &&
	    x86_ops->amd.forward_precise)
		return x86_ops->amd.forward_precise(event);
	if (attr->precise_ip && attr->precise_ip <= x86_ops->max_precise &&
	    !is_sampling_event(event))
		return -EINVAL;

	/*
	 * config1 is the vendor's to check (extra registers); config2 is
	 * ignored, as by the stock drivers. XMM registers are only in the
	 * records of adaptive PEBS: never a user register, an interrupted
	 * one of a precise event only (the sample's registers must then be
	 * a record's, in a struct x86_perf_regs).
	 */
	if ((attr->sample_regs_user & PERF_REG_EXTENDED_MASK) ||
	    ((attr->sample_regs_intr & PERF_REG_EXTENDED_MASK) &&
	     (!x86_ops->intel.pebs_xmm || !attr->precise_ip)))
		return -EINVAL;

	/* a raw event of a hybrid CPU's Atom names the Atom's own type */
	switch (x86_raw_event(event) ? PERF_TYPE_RAW : attr->type) {
	case PERF_TYPE_HARDWARE:
		/* config[63:32] named this PMU, or no registered one */
		if ((attr->config & PERF_HW_EVENT_MASK) >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		config = x86_ops->event_map(attr->config & PERF_HW_EVENT_MASK);
		if (!config)
			return -ENOENT;
		break;
	case PERF_TYPE_HW_CACHE:
		err = x86_cache_event(x86_event_type(event), attr->config,
				      &config, &config1);
		if (err)
			return err;
		break;
	case PERF_TYPE_RAW:
		config = attr->config & x86_ops->raw_mask;
		config1 = attr->config1;
		break;
	default:
		return -ENOENT;
	}
	if (attr->precise_ip > x86_ops->max_precise)
		return -EOPNOTSUPP;
	if (x86_ops->event_check) {
		err = x86_ops->event_check(event, config);
		if (err)
			return err;
	}
	/* the branch stack before @hw_config: 6.12's order of errnos */
	if (has_branch_stack(event)) {
		if (!x86_ops->lbr || !x86_event_type(event)->lbr_nr)
			return -EOPNOTSUPP;
		err = x86_ops->lbr->select(event, &hwc->branch_reg_config);
		if (err)
			return err;
		/* not beside intel_bts events (the legacy BTS took it) */
		if (!(hwc->holds & X86_HOLDS_BRANCH)) {
			err = x86_excl_get(X86_EXCL_BRANCH);
			if (err)
				return err;
			hwc->holds |= X86_HOLDS_BRANCH;
		}
		/* the task's call stack is kept while it is switched out */
		if ((attr->branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
		    (event->attach_state & PERF_ATTACH_TASK) &&
		    x86_ops->lbr->state_u64)
			event->attach_state |= PERF_ATTACH_SCHED_CB;
	}
	hwc->extra_reg_config = 0;
	if (x86_ops->hw_config) {
		err = x86_ops->hw_config(event, &config, config1);
		if (err)
			return err;
	}
	if (!x86_ops->constraint(event, config))
		return -EINVAL;

	if (!attr->exclude_user)
		config |= ARCH_PERFMON_EVENTSEL_USR;
	if (!attr->exclude_kernel)
		config |= ARCH_PERFMON_EVENTSEL_OS;
	config |= ARCH_PERFMON_EVENTSEL_INT;
	hwc->config = config;
	hwc->idx = -1;
	if (!x86_group_fits(event))
		return -EINVAL;

	if (!is_sampling_event(event)) {
		hwc->sample_period = x86_ops->max_period;
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	} else if (attr->freq && !hwc->sample_period) {
		/* the core's frequency adjustment moves it from here */
		hwc->sample_period = x86_freq_first_period(attr);
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
	}
	return 0;
}

/* PERF_EVENT_IOC_PERIOD: the vendor may refuse some periods */
static int x86_pmu_check_period(struct perf_event *event, u64 value)
{
	return x86_ops->check_period ? x86_ops->check_period(event, value) : 0;
}

/* the core's brackets around several adds or deletes on this CPU */
static void x86_pmu_disable_all(struct pmu *pmu)
{
	if (x86_ops->hold)
		x86_ops->hold(true);
}

static void x86_pmu_enable_all(struct pmu *pmu)
{
	if (x86_ops->hold)
		x86_ops->hold(false);
}

/* the PMU of each kind of core: all the same but for name, type and CPUs */
static const struct pmu x86_pmu_template __initconst = {
	.task_ctx_nr	= perf_hw_context,
	/* x86_pmu_add() starts the counter: no hold needed around it */
	.capabilities	= PERF_PMU_CAP_ADD_UNHELD,
	.pmu_enable	= x86_pmu_enable_all,
	.pmu_disable	= x86_pmu_disable_all,
	.event_init	= x86_pmu_event_init,
	.event_mapped	= x86_pmu_event_mapped,
	.event_unmapped	= x86_pmu_event_unmapped,
	.event_idx	= x86_pmu_event_idx,
	.add		= x86_pmu_add,
	.del		= x86_pmu_del,
	.start		= x86_pmu_start,
	.stop		= x86_pmu_stop,
	.read		= x86_pmu_read,
	.sched_task	= x86_lbr_sched_task,
	.check_period	= x86_pmu_check_period,
};

struct x86_cpu_type x86_types[X86_TYPES_MAX] __read_mostly;

/* this CPU's kind of core, and the CPUs of that kind: it comes up */
static void x86_this_type_set(void)
{
	struct x86_cpu_type *type = &x86_types[0];

	if (x86_nr_types > 1 && x86_ops->cpu_type)
		type = &x86_types[x86_ops->cpu_type()];
	this_cpu_write(x86_this_type, type);
	cpumask_set_cpu(smp_processor_id(), &type->cpus);
	/*
	 * the first CPU of its kind reads what CPUID and the MSRs say of
	 * it; CPUs reach their STARTING step one at a time
	 */
	if (!type->probed) {
		type->lbr_nr = x86_ops->lbr ? x86_ops->lbr->nr : 0;
		if (x86_ops->type_probe)
			x86_ops->type_probe(type);
		type->probed = true;
	}
}

/**
 * x86_pmu_cpu_reset - stop and clear this CPU's counters
 *
 * At bring-up of each CPU (perf_events_lapic_init()): firmware or a
 * previous kernel may have left counters running.
 */
void x86_pmu_cpu_reset(void)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);

	x86_this_type_set();
	x86_ops->cpu_reset();
	/* and whatever the counters hold goes before a task may rdpmc */
	cpuc->dirty = x86_this_cntr_mask();
}

/* a CPU going down: the PMU of its kind no longer takes its events */
static int x86_pmu_cpu_dying(unsigned int cpu)
{
	struct x86_cpu_type *type = per_cpu(x86_this_type, cpu);

	if (type)
		cpumask_clear_cpu(cpu, &type->cpus);
	return 0;
}

/* the counter indices of @num_gp general and @num_fixed fixed counters */
static u64 x86_cntr_mask(int num_gp, int num_fixed)
{
	u64 mask = GENMASK_ULL(num_gp - 1, 0);

	if (num_fixed)
		mask |= GENMASK_ULL(num_fixed - 1, 0) << INTEL_PMC_IDX_FIXED;
	return mask;
}

/* a kind of core's PMU: its sysfs groups, capabilities and type */
static int __init x86_type_register(const struct x86_pmu_ops *ops,
				    struct x86_cpu_type *type, int pmu_type)
{
	int err;

	type->pmu = x86_pmu_template;
	type->cntr_mask = x86_cntr_mask(type->num_gp, type->num_fixed);
	err = x86_pmu_sysfs_init(ops, type);
	if (err)
		return err;
	type->pmu.attr_groups = type->groups;
	if (ops->intel.pebs_xmm)
		type->pmu.capabilities |= PERF_PMU_CAP_EXTENDED_REGS;
	if (ops->lbr && ops->lbr->state_u64)
		type->pmu.task_ctx_size = x86_lbr_task_size(ops->lbr);
	if (x86_nr_types > 1) {
		/* PERF_PMU_TYPE_SHIFT: a generic event may name it */
		type->pmu.capabilities |= PERF_PMU_CAP_EXTENDED_HW_TYPE;
		type->pmu.supported_cpus = &type->cpus;
	}
	return perf_pmu_register(&type->pmu, type->name, pmu_type);
}

/**
 * x86_pmu_event_map - the raw config of a PERF_COUNT_HW_* event, or 0
 * @hw_event: the PERF_COUNT_HW_* index
 */
u64 x86_pmu_event_map(int hw_event)
{
	if (hw_event < 0 || hw_event >= PERF_COUNT_HW_MAX)
		return 0;
	return x86_ops->event_map(hw_event);
}

/**
 * x86_pmu_lbr - the branch stack of the registered driver
 *
 * Return: NULL without a driver or without branch stack.
 */
const struct x86_lbr_ops *x86_pmu_lbr(void)
{
	return x86_ops ? x86_ops->lbr : NULL;
}

/**
 * x86_pmu_register - register the "cpu" PMU for a vendor driver
 * @ops: the vendor's description of its counters
 *
 * Called once at boot, on the boot CPU, before the others come up: they
 * reset their counters and route the PMI from perf_events_lapic_init().
 *
 * Return: 0 or a negative errno.
 */
int __init x86_pmu_register(const struct x86_pmu_ops *ops)
{
	int err, i;

	x86_ops = ops;
	/* one kind of core unless the vendor described two (hybrid) */
	if (!x86_nr_types) {
		x86_nr_types = 1;
		x86_types[0].name = "cpu";
		x86_types[0].num_gp = x86_pmu_hw.num_counters_gp;
		x86_types[0].num_fixed = x86_pmu_hw.num_counters_fixed;
		x86_types[0].cache_events = ops->cache_events;
		x86_types[0].cache_extra = ops->cache_extra;
		x86_types[0].attr_groups = ops->attr_groups;
	}

	x86_pmi_timing_init();
	err = register_nmi_handler(NMI_LOCAL, x86_pmu_nmi, 0, "PMI");
	if (err)
		return err;
	/* the first is PERF_TYPE_RAW, the other (Atom) gets a dynamic type */
	for (i = 0; i < x86_nr_types; i++) {
		err = x86_type_register(ops, &x86_types[i],
					i ? -1 : PERF_TYPE_RAW);
		if (err) {
			while (--i >= 0)
				perf_pmu_unregister(&x86_types[i].pmu);
			unregister_nmi_handler(NMI_LOCAL, "PMI");
			return err;
		}
	}
	/*
	 * which PMU loses a CPU that goes down (hybrid); one coming up
	 * joins its kind's at its reset (perf_events_lapic_init())
	 */
	if (x86_nr_types > 1)
		cpuhp_setup_state_nocalls(CPUHP_AP_PERF_X86_STARTING,
					  "perf/x86:starting", NULL,
					  x86_pmu_cpu_dying);
	x86_pmu_hw.registered = true;
	x86_pmu.handle_irq = ops->handle_irq;
	if (ops->lbr)
		static_call_update(perf_snapshot_branch_stack,
				   x86_lbr_snapshot);
	/* the boot CPU's APIC was set up before there was a driver */
	perf_events_lapic_init();
	return 0;
}
