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
 * - branch stacks: the events of a CPU that sample them share the
 *   vendor's last branch records and so must want the same filter (an
 *   event with another waits, multiplexed); the stack is read once per
 *   PMI, while the hardware holds it frozen, and every sample of that
 *   PMI carries it. Recording starts empty for each set of users, so a
 *   task never sees the branches of the task before it.
 *
 * Everything runs on the event's CPU with IRQs off (the core calls add,
 * del, start, stop and read under ctx->lock) or in the NMI.
 */

#define pr_fmt(fmt)	"Performance Events: " fmt

#include <linux/bitops.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/percpu.h>
#include <linux/sched/clock.h>
#include <linux/static_call.h>
#include <linux/sysfs.h>

#include <asm/apic.h>
#include <asm/mmu_context.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>
#include <asm/perf_regs.h>
#include <asm/timer.h>

#include "perf_event.h"

DEFINE_PER_CPU(struct cpu_hw_events, cpu_hw_events);

/* the branch stack read by this CPU's PMI: struct perf_branch_stack */
static DEFINE_PER_CPU(u64, x86_lbr_buf[X86_LBR_BUF_U64]);
static DEFINE_PER_CPU(bool, x86_lbr_valid);

static const struct x86_pmu_ops *x86_ops __read_mostly;

static struct pmu x86_cpu_pmu;

/*
 * The sysfs "rdpmc" file: 0 no task may use rdpmc, 1 a task may while
 * its mm has a counter of ours mapped, 2 every task may.
 */
enum { X86_RDPMC_NEVER, X86_RDPMC_MAPPED, X86_RDPMC_ALWAYS };
static int x86_rdpmc_mode __read_mostly = X86_RDPMC_MAPPED;
static DEFINE_MUTEX(x86_rdpmc_mutex);

/* hwc->flags holds the width of the event's counter, in bits */
static inline int x86_counter_bits(struct hw_perf_event *hwc)
{
	return hwc->flags;
}

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
 * x86_perf_event_update - add what the counter counted since the last update
 * @event: an event on a counter of this CPU
 *
 * Safe against the NMI: the previous raw value is swapped with cmpxchg,
 * so an update that races with the PMI's counts each event once.
 *
 * Return: the counter value read, sign-extended from its width.
 */
u64 x86_perf_event_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	int shift = 64 - x86_counter_bits(hwc);
	u64 prev, now;
	s64 delta;

	/*
	 * Intel's top-down events (no other vendor has counters this high);
	 * a sampling slots event counts as any other
	 */
	if (unlikely(is_topdown_idx(hwc->idx)) && !is_sampling_event(event))
		return x86_ops->td_update(event);
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
 * x86_perf_event_set_period - load the counter with the rest of the period
 * @event: an event on a counter of this CPU
 *
 * Return: true if the period had run out (an overflow to report): the
 * next period then starts, and hwc->last_period is the one that ended.
 */
bool x86_perf_event_set_period(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);
	s64 period = hwc->sample_period;
	bool overflow = false;
	u64 mask;

	if (unlikely(is_topdown_idx(hwc->idx)) && !is_sampling_event(event)) {
		x86_ops->td_start(event);
		return false;
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
	perf_event_update_userpage(event);
	return overflow;
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

	if (event->pmu != &x86_cpu_pmu)
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

/*
 * A task's call-stack event, whose stack is saved and restored with the
 * task (PERF_ATTACH_SCHED_CB also marks large PEBS events, which need
 * the switch for their records, not for the stack)
 */
static bool x86_lbr_cs_user(struct perf_event *event)
{
	return has_branch_stack(event) &&
	       (event->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
	       (event->attach_state & PERF_ATTACH_SCHED_CB);
}

static int x86_pmu_add(struct perf_event *event, int flags)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct hw_perf_event *hwc = &event->hw;
	int idx;

	idx = x86_pick_counter(event, cpuc->used);
	if (idx < 0)
		return -EAGAIN;

	if (has_branch_stack(event) && cpuc->lbr_users &&
	    (cpuc->lbr_sel != hwc->branch_reg_config ||
	     cpuc->lbr_bst != event->attr.branch_sample_type))
		return -EAGAIN;
	/* last: nothing to undo if it fails */
	if (x86_ops->extra_claim && x86_ops->extra_claim(event))
		return -EAGAIN;

	if (has_branch_stack(event)) {
		if (!cpuc->lbr_users++) {
			cpuc->lbr_sel = hwc->branch_reg_config;
			cpuc->lbr_bst = event->attr.branch_sample_type;
			x86_ops->lbr->reset();
			x86_ops->lbr->enable(cpuc->lbr_sel);
		} else if (event->attach_state & PERF_ATTACH_TASK) {
			/*
			 * A per-task user comes on with its task: the stack
			 * an event of the CPU kept recording holds the
			 * branches of the task before, which are not this
			 * task's to see.
			 */
			x86_ops->lbr->reset();
		}
		if (x86_lbr_cs_user(event)) {
			cpuc->lbr_cs_ctx = event->ctx;
			cpuc->lbr_cs_users++;
		}
	}
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
		cpuc->dirty |= BIT_ULL(hwc->idx);
		if (has_branch_stack(event) && !--cpuc->lbr_users)
			x86_ops->lbr->disable();
		if (x86_lbr_cs_user(event) && !--cpuc->lbr_cs_users)
			cpuc->lbr_cs_ctx = NULL;
		if (x86_ops->extra_put)
			x86_ops->extra_put(event);
	}
	hwc->idx = -1;
	perf_event_update_userpage(event);
}

static void x86_pmu_read(struct perf_event *event)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	/* records not drained yet hold reloads the counter does not show */
	if (event->attr.precise_ip && x86_ops->pebs_flush)
		x86_ops->pebs_flush();
	x86_perf_event_update(event);
}

static bool x86_kernel_addr(u64 addr)
{
	return addr >= TASK_SIZE_MAX;
}

/*
 * Applies to the @n entries of @bs what the hardware filter cannot:
 * without PERF_SAMPLE_BRANCH_KERNEL no record with a kernel address (a
 * return to user space starts in the kernel); the hardware's one "far"
 * kind is split by direction, entries into the kernel (syscall,
 * interrupt) being calls and exits from it (sysret, iret) returns; the
 * NO_FLAGS / NO_CYCLES requests; and the branch types (TYPE_SAVE) the
 * hardware does not record.
 */
static void x86_pmu_lbr_filter(struct perf_branch_stack *bs, int n, u64 bst)
{
	/* in place: an entry kept never moves past one still unread */
	struct perf_branch_entry *e = bs->entries;
	int i, nr = 0;

	for (i = 0; i < n; i++) {
		bool from_k = x86_kernel_addr(e[i].from);
		bool to_k = x86_kernel_addr(e[i].to);

		if (!(bst & PERF_SAMPLE_BRANCH_KERNEL) && (from_k || to_k))
			continue;
		if (!(bst & PERF_SAMPLE_BRANCH_ANY)) {
			if (!from_k && to_k &&
			    !(bst & PERF_SAMPLE_BRANCH_ANY_CALL))
				continue;
			if (from_k && !to_k &&
			    !(bst & PERF_SAMPLE_BRANCH_ANY_RETURN))
				continue;
		}
		if (bst & PERF_SAMPLE_BRANCH_NO_FLAGS) {
			e[i].mispred = 0;
			e[i].predicted = x86_ops->lbr->no_flags_predicted;
			e[i].in_tx = 0;
			e[i].abort = 0;
		}
		if (bst & PERF_SAMPLE_BRANCH_NO_CYCLES)
			e[i].cycles = 0;
		if (bst & PERF_SAMPLE_BRANCH_TYPE_SAVE)
			e[i].type = x86_branch_type(e[i].from, e[i].to);
		e[nr++] = e[i];
	}
	bs->nr = nr;
}

/**
 * x86_pmu_lbr_take - x86_pmu_lbr_read() for a CPU with branch stack users
 * @cpuc: this CPU's state
 *
 * Reads the stack into the buffer the PMI's samples point to, and
 * filters it for the CPU's branch_sample_type.
 */
void x86_pmu_lbr_take(struct cpu_hw_events *cpuc)
{
	struct perf_branch_stack *bs = (void *)this_cpu_ptr(x86_lbr_buf);
	u64 hw_idx;
	int n;

	n = x86_ops->lbr->read(bs->entries, &hw_idx);
	x86_pmu_lbr_filter(bs, n, cpuc->lbr_bst);
	bs->hw_idx = hw_idx;
	this_cpu_write(x86_lbr_valid, true);
}

/**
 * x86_pmu_lbr_decode - a branch stack from records a PEBS record holds
 * @bs: where to build it, with room for X86_LBR_MAX entries
 * @raw: the records, newest first, as the LBR registers hold them
 * @n: their number
 * @bst: the event's branch_sample_type
 *
 * A record never written (both addresses 0) ends the stack, as in the
 * registers.
 */
void x86_pmu_lbr_decode(struct perf_branch_stack *bs,
			const struct lbr_entry *raw, int n, u64 bst)
{
	const struct x86_lbr_ops *ops = x86_ops->lbr;
	int i;

	n = min(n, X86_LBR_MAX);
	for (i = 0; i < n && (raw[i].from || raw[i].to); i++)
		ops->entry(&bs->entries[i], raw[i].from, raw[i].to,
			   raw[i].info);
	x86_pmu_lbr_filter(bs, i, bst);
	bs->hw_idx = ops->record_hw_idx;
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

	x86_perf_event_update(event);
	if (!x86_perf_event_set_period(event))
		return false;
	if (!is_sampling_event(event))
		return true;

	perf_sample_data_init(&data, 0, event->hw.last_period);
	x86_pmu_report(event, &data, regs);
	return true;
}

/* the branch stack the PMI read, unless the sample has its own (PEBS) */
static void x86_pmu_add_branches(struct perf_event *event,
				 struct perf_sample_data *data)
{
	if (has_branch_stack(event) &&
	    !(data->sample_flags & PERF_SAMPLE_BRANCH_STACK) &&
	    this_cpu_read(x86_lbr_valid)) {
		data->br_stack = (void *)this_cpu_ptr(x86_lbr_buf);
		data->sample_flags |= PERF_SAMPLE_BRANCH_STACK;
	}
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

static int x86_pmu_nmi(unsigned int cmd, struct pt_regs *regs)
{
	bool timed = perf_sample_time_limited();
	u64 start = timed ? sched_clock() : 0;
	int handled;

	handled = x86_ops->handle_irq(regs);
	this_cpu_write(x86_lbr_valid, false);
	if (handled && timed)
		perf_sample_event_took(sched_clock() - start);
	return handled ? NMI_HANDLED : NMI_DONE;
}

/*
 * rdpmc in user space: CR4.PCE follows the mm (arch/x86/mm/tlb.c), set
 * while mm->context.perf_rdpmc_allowed is non-zero. Called with the mm's
 * mmap_lock held, so the first mapping and the last unmapping of an mm
 * cannot race each other.
 */
static void x86_pmu_event_mapped(struct perf_event *event,
				 struct mm_struct *mm)
{
	if (atomic_inc_return(&mm->context.perf_rdpmc_allowed) == 1)
		on_each_cpu_mask(mm_cpumask(mm), cr4_update_pce, NULL, 1);
}

static void x86_pmu_event_unmapped(struct perf_event *event,
				   struct mm_struct *mm)
{
	if (atomic_dec_and_test(&mm->context.perf_rdpmc_allowed))
		on_each_cpu_mask(mm_cpumask(mm), cr4_update_pce, NULL, 1);
}

/* the RDPMC index + 1 of a counting event, for the control page */
static int x86_pmu_event_idx(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->idx < 0 || READ_ONCE(x86_rdpmc_mode) == X86_RDPMC_NEVER)
		return 0;
	return hwc->event_base_rdpmc + 1;
}

/*
 * The TSC to perf clock conversion of the control page. The perf clock
 * is local_clock(): while sched_clock is the TSC's and stable, that is
 * __sched_clock_offset + cyc2ns_offset + (tsc * mul) >> shift on every
 * CPU, so user space can turn a TSC read into the clock (time_zero) or
 * into the time since this update (time_offset, for time_enabled and
 * time_running). The TSC is 64 bits wide and never wraps, so the short
 * counter fields (cap_user_time_short) are not needed.
 */
static void x86_userpage_time(struct perf_event *event,
			      struct perf_event_mmap_page *userpg, u64 now)
{
	struct cyc2ns_data data;
	u64 zero;

	userpg->cap_user_time = 0;
	userpg->cap_user_time_zero = 0;
	userpg->cap_user_time_short = 0;
	if (!using_native_sched_clock() || !sched_clock_stable())
		return;

	cyc2ns_read_begin(&data);
	zero = data.cyc2ns_offset + __sched_clock_offset;
	userpg->time_mult = data.cyc2ns_mul;
	userpg->time_shift = data.cyc2ns_shift;
	cyc2ns_read_end();

	userpg->time_offset = zero - now;
	userpg->cap_user_time = 1;
	/* records of an event with its own clockid are not in this clock */
	if (!event->attr.use_clockid) {
		userpg->time_zero = zero;
		userpg->cap_user_time_zero = 1;
	}
}

/**
 * arch_perf_update_userpage - the x86 fields of an event's control page
 * @event: the event whose buffer's control page is being updated
 * @userpg: the control page
 * @now: the perf clock now
 *
 * The TSC conversion for every event; for counters of the "cpu" PMU,
 * which can be read with rdpmc (unless the sysfs rdpmc file says
 * never), cap_user_rdpmc and the counter width.
 */
void arch_perf_update_userpage(struct perf_event *event,
			       struct perf_event_mmap_page *userpg, u64 now)
{
	struct hw_perf_event *hwc = &event->hw;

	x86_userpage_time(event, userpg, now);
	if (event->pmu != &x86_cpu_pmu)
		return;
	userpg->cap_user_rdpmc =
		READ_ONCE(x86_rdpmc_mode) != X86_RDPMC_NEVER;
	userpg->pmc_width = hwc->idx >= 0 ? x86_counter_bits(hwc) :
					    x86_pmu_hw.cntval_bits;
}

/**
 * x86_pmu_clear_dirty - zero this CPU's counters that their users left
 *
 * A counter keeps the count of its last event after that event is taken
 * off; a task allowed rdpmc could read it. Called (IRQs off) before such
 * a task runs: counters given to no event now are zeroed. Those in use
 * hold the counts of events live here, as the stock kernel leaves them.
 */
void x86_pmu_clear_dirty(void)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	u64 dirty = cpuc->dirty & ~cpuc->used;
	unsigned long msr;
	int idx, rdpmc, bits;

	/*
	 * The top-down events share fixed counter 3 and PERF_METRICS: the
	 * registers are cleared once none of them is in use
	 */
	if (cpuc->used & INTEL_PMC_MSK_TOPDOWN)
		dirty &= ~INTEL_PMC_MSK_TOPDOWN;
	if (!dirty)
		return;
	for_each_set_bit(idx, (unsigned long *)&dirty, X86_PMC_IDX_MAX) {
		x86_ops->counter(idx, &msr, &rdpmc, &bits);
		wrmsrl(msr, 0);
	}
	cpuc->dirty &= ~dirty;
}

/*
 * PERF_TYPE_HW_CACHE: config is cache | op << 8 | result << 16; the
 * vendor's tables give the raw config and its extra register value.
 */
static int x86_cache_event(u64 attr_config, u64 *config, u64 *config1)
{
	unsigned int cache = attr_config & 0xff;
	unsigned int op = (attr_config >> 8) & 0xff;
	unsigned int result = (attr_config >> 16) & 0xff;
	u64 val;

	if (cache >= PERF_COUNT_HW_CACHE_MAX ||
	    op >= PERF_COUNT_HW_CACHE_OP_MAX ||
	    result >= PERF_COUNT_HW_CACHE_RESULT_MAX)
		return -EINVAL;
	if (!x86_ops->cache_events)
		return -ENOENT;
	/* the indices come from user space */
	cache = array_index_nospec(cache, PERF_COUNT_HW_CACHE_MAX);
	op = array_index_nospec(op, PERF_COUNT_HW_CACHE_OP_MAX);
	result = array_index_nospec(result, PERF_COUNT_HW_CACHE_RESULT_MAX);

	val = (*x86_ops->cache_events)[cache][op][result];
	if (!val)
		return -ENOENT;
	if (val == X86_CACHE_INVALID)
		return -EINVAL;
	*config = val;
	*config1 = x86_ops->cache_extra ?
		   (*x86_ops->cache_extra)[cache][op][result] : 0;
	return 0;
}

/*
 * The first period of a frequency-mode event, before any rate is known:
 * 1, or where the vendor guesses (x86_ops->freq_guess), how many events
 * a second it counts over the frequency, rounded up, less one. The
 * guesses are 6.12's on Intel, as its first counter values show: 5e8
 * for the cycle and instruction events, 1.25e8 for branches, 2.5e7 for
 * the cache events, 256000 for a raw one (AMD starts at 1).
 */
static u64 x86_freq_first_period(const struct perf_event_attr *attr)
{
	u64 rate = 256000;

	if (!x86_ops->freq_guess)
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

static int x86_pmu_event_init(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	struct hw_perf_event *hwc = &event->hw;
	u64 config, config1 = 0;
	int err;

	/*
	 * As 6.12: a precise event the counters cannot take is handed on
	 * (AMD: to IBS) before its config and registers are looked at;
	 * one they can take must sample (PEBS), checked before its config
	 * is looked up.
	 */
	if (attr->precise_ip > x86_ops->max_precise &&
	    x86_ops->forward_precise)
		return x86_ops->forward_precise(event);
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
	     (!x86_ops->pebs_xmm || !attr->precise_ip)))
		return -EINVAL;

	switch (attr->type) {
	case PERF_TYPE_HARDWARE:
		/* config[63:32] named this PMU, or no registered one */
		if ((attr->config & PERF_HW_EVENT_MASK) >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		config = x86_ops->event_map(attr->config & PERF_HW_EVENT_MASK);
		if (!config)
			return -ENOENT;
		break;
	case PERF_TYPE_HW_CACHE:
		err = x86_cache_event(attr->config, &config, &config1);
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
		if (!x86_ops->lbr)
			return -EOPNOTSUPP;
		err = x86_ops->lbr->select(event, &hwc->branch_reg_config);
		if (err)
			return err;
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

/* what a task context keeps of the LBRs (call-stack mode) */
struct x86_lbr_task {
	bool	valid;
	u64	regs[];
};

/*
 * A task with call-stack branch sampling switches: its stack of calls
 * not yet returned from goes with it, so that after running elsewhere,
 * or after another task used the LBRs here, its samples still show the
 * whole call chain. x86_pmu_add() emptied the stack for it; this puts
 * the task's back. Only a stack recorded for this context's own events
 * is saved, and it is put back only if they are on again at the next
 * switch in: a stack that waited through a disabled or multiplexed
 * spell is stale, and the stack of an event of the CPU is not the
 * task's.
 */
static void x86_pmu_sched_task(struct perf_event_context *ctx, bool sched_in)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct x86_lbr_task *t = perf_ctx_task_data(ctx);
	bool own = cpuc->lbr_cs_ctx == ctx;

	/* large PEBS events want no switch of theirs: nothing kept */
	if (!t || !x86_ops->lbr || !x86_ops->lbr->state_u64)
		return;
	if (!sched_in) {
		t->valid = own;
		if (own)
			x86_ops->lbr->save(t->regs);
		return;
	}
	if (t->valid && own)
		x86_ops->lbr->restore(t->regs);
	t->valid = false;
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

static struct pmu x86_cpu_pmu = {
	.task_ctx_nr	= perf_hw_context,
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
	.sched_task	= x86_pmu_sched_task,
	.check_period	= x86_pmu_check_period,
};

/* format/: the event select is the vendor's, the rest is common */
static ssize_t event_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	return sysfs_emit(page, "%s\n", x86_ops->format_event);
}
static DEVICE_ATTR_RO(event);

PMU_STR_ATTR(x86_format_umask, "umask", "config:8-15");
PMU_STR_ATTR(x86_format_edge, "edge", "config:18");
PMU_STR_ATTR(x86_format_inv, "inv", "config:23");
PMU_STR_ATTR(x86_format_cmask, "cmask", "config:24-31");

/* the common fields, then the vendor's (x86_pmu_register()) */
#define X86_FORMAT_COMMON	5
#define X86_FORMAT_MAX		16

static struct attribute *x86_format_attrs[X86_FORMAT_MAX + 1] = {
	&dev_attr_event.attr,
	&x86_format_umask.attr.attr,
	&x86_format_edge.attr.attr,
	&x86_format_inv.attr.attr,
	&x86_format_cmask.attr.attr,
};

static umode_t x86_format_visible(struct kobject *kobj, struct attribute *attr,
				  int i)
{
	if (i < X86_FORMAT_COMMON || !x86_ops->format_visible)
		return attr->mode;
	return x86_ops->format_visible(kobj, attr, i - X86_FORMAT_COMMON);
}

static const struct attribute_group x86_format_group = {
	.name		= "format",
	.attrs		= x86_format_attrs,
	.is_visible	= x86_format_visible,
};

/* caps/: what perf reads to know the PMU */
static ssize_t pmu_name_show(struct device *dev, struct device_attribute *attr,
			     char *page)
{
	return sysfs_emit(page, "%s\n", x86_ops->pmu_name);
}
static DEVICE_ATTR_RO(pmu_name);

static ssize_t max_precise_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", x86_ops->max_precise);
}
static DEVICE_ATTR_RO(max_precise);

/* the depth of the branch stack */
static ssize_t branches_show(struct device *dev, struct device_attribute *attr,
			     char *page)
{
	return sysfs_emit(page, "%d\n", x86_ops->lbr->nr);
}
static DEVICE_ATTR_RO(branches);

static struct attribute *x86_caps_attrs[] = {
	&dev_attr_pmu_name.attr,
	&dev_attr_max_precise.attr,
	&dev_attr_branches.attr,
	NULL,
};

static umode_t x86_caps_visible(struct kobject *kobj, struct attribute *attr,
				int i)
{
	if (attr == &dev_attr_pmu_name.attr && !x86_ops->pmu_name)
		return 0;
	if (attr == &dev_attr_branches.attr && !x86_ops->lbr)
		return 0;
	return attr->mode;
}

static const struct attribute_group x86_caps_group = {
	.name		= "caps",
	.attrs		= x86_caps_attrs,
	.is_visible	= x86_caps_visible,
};

static ssize_t rdpmc_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(x86_rdpmc_mode));
}

static ssize_t rdpmc_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	unsigned int mode;
	int err;

	err = kstrtouint(buf, 0, &mode);
	if (err)
		return err;
	if (mode > X86_RDPMC_ALWAYS)
		return -EINVAL;

	mutex_lock(&x86_rdpmc_mutex);
	if (mode != x86_rdpmc_mode) {
		if (mode == X86_RDPMC_NEVER)
			static_branch_enable(&rdpmc_never_available_key);
		else if (x86_rdpmc_mode == X86_RDPMC_NEVER)
			static_branch_disable(&rdpmc_never_available_key);
		if (mode == X86_RDPMC_ALWAYS)
			static_branch_enable(&rdpmc_always_available_key);
		else if (x86_rdpmc_mode == X86_RDPMC_ALWAYS)
			static_branch_disable(&rdpmc_always_available_key);
		WRITE_ONCE(x86_rdpmc_mode, mode);
		/* every CPU's CR4.PCE for the mm it runs */
		on_each_cpu(cr4_update_pce, NULL, 1);
	}
	mutex_unlock(&x86_rdpmc_mutex);
	return count;
}
static DEVICE_ATTR_RW(rdpmc);

static struct attribute *x86_pmu_attrs[] = {
	&dev_attr_rdpmc.attr,
	NULL,
};

static const struct attribute_group x86_pmu_group = {
	.attrs	= x86_pmu_attrs,
};

#define X86_PMU_MAX_GROUPS	8

static const struct attribute_group *x86_attr_groups[X86_PMU_MAX_GROUPS];

/**
 * x86_pmu_cpu_reset - stop and clear this CPU's counters
 *
 * At bring-up of each CPU (perf_events_lapic_init()): firmware or a
 * previous kernel may have left counters running.
 */
void x86_pmu_cpu_reset(void)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);

	x86_ops->cpu_reset();
	/* and whatever the counters hold goes before a task may rdpmc */
	cpuc->dirty = GENMASK_ULL(x86_pmu_hw.num_counters_gp - 1, 0);
	if (x86_pmu_hw.num_counters_fixed)
		cpuc->dirty |= GENMASK_ULL(x86_pmu_hw.num_counters_fixed - 1,
					   0) << INTEL_PMC_IDX_FIXED;
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
	int i, n = 0, err;

	x86_ops = ops;
	for (i = 0; ops->format_attrs && ops->format_attrs[i]; i++) {
		if (X86_FORMAT_COMMON + i >= X86_FORMAT_MAX)
			return -EINVAL;
		x86_format_attrs[X86_FORMAT_COMMON + i] = ops->format_attrs[i];
	}
	x86_attr_groups[n++] = &x86_format_group;
	for (i = 0; ops->attr_groups && ops->attr_groups[i]; i++) {
		if (n >= X86_PMU_MAX_GROUPS - 3)
			return -EINVAL;
		x86_attr_groups[n++] = ops->attr_groups[i];
	}
	x86_attr_groups[n++] = &x86_caps_group;
	x86_attr_groups[n++] = &x86_pmu_group;
	x86_cpu_pmu.attr_groups = x86_attr_groups;
	if (ops->pebs_xmm)
		x86_cpu_pmu.capabilities |= PERF_PMU_CAP_EXTENDED_REGS;
	if (ops->lbr && ops->lbr->state_u64)
		x86_cpu_pmu.task_ctx_size =
			struct_size_t(struct x86_lbr_task, regs,
				      ops->lbr->state_u64);

	err = register_nmi_handler(NMI_LOCAL, x86_pmu_nmi, 0, "PMI");
	if (err)
		return err;
	err = perf_pmu_register(&x86_cpu_pmu, "cpu", PERF_TYPE_RAW);
	if (err) {
		unregister_nmi_handler(NMI_LOCAL, "PMI");
		return err;
	}
	x86_pmu_hw.registered = true;
	x86_pmu.handle_irq = ops->handle_irq;
	if (ops->lbr)
		static_call_update(perf_snapshot_branch_stack,
				   x86_lbr_snapshot);
	/* the boot CPU's APIC was set up before there was a driver */
	perf_events_lapic_init();
	return 0;
}
