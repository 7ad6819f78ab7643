// SPDX-License-Identifier: GPL-2.0
/*
 * The software PMU: events the kernel counts itself.
 *
 * Two kinds, one row each in perf_sw_kinds[]:
 *  - clocks (cpu-clock, task-clock) count nanoseconds while on the PMU;
 *  - hooked events (faults, switches, migrations) are counted where they
 *    happen, by perf_sw_event() in mm, the fault handlers and the
 *    scheduler.
 *
 * Each kind has its own ops table and PMU: the clocks run on the clock
 * PMUs (types 6 and 7), which take the clocks opened through
 * PERF_TYPE_SOFTWARE as well; the software PMU keeps the hooked events.
 *
 * A hooked event on the PMU sits on a per-CPU list for its kind; the hook
 * walks that list under RCU with no lock, from any context including the
 * scheduler with the runqueue lock held, and adds to event->count with
 * local64 operations (the list only holds events of this CPU).
 */
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>

#include <asm/irq_regs.h>

#include "layer/pmus.h"

struct static_key perf_swevent_enabled[PERF_COUNT_SW_MAX];
EXPORT_SYMBOL_GPL(perf_swevent_enabled);

DEFINE_PER_CPU(struct pt_regs, __perf_regs[4]);

static DEFINE_PER_CPU(struct hlist_head, perf_swevent_lists[PERF_COUNT_SW_MAX]);

enum perf_sw_kind {
	PERF_SW_NONE,		/* unknown config: -ENOENT */
	PERF_SW_CLOCK,		/* counts time on the PMU */
	PERF_SW_HOOKED,		/* counted by perf_sw_event() */
	PERF_SW_SILENT,		/* accepted, nothing counts it here */
};

static const enum perf_sw_kind perf_sw_kinds[PERF_COUNT_SW_MAX] = {
	[PERF_COUNT_SW_CPU_CLOCK]		= PERF_SW_CLOCK,
	[PERF_COUNT_SW_TASK_CLOCK]		= PERF_SW_CLOCK,
	[PERF_COUNT_SW_PAGE_FAULTS]		= PERF_SW_HOOKED,
	[PERF_COUNT_SW_CONTEXT_SWITCHES]	= PERF_SW_HOOKED,
	[PERF_COUNT_SW_CPU_MIGRATIONS]		= PERF_SW_HOOKED,
	[PERF_COUNT_SW_PAGE_FAULTS_MIN]		= PERF_SW_HOOKED,
	[PERF_COUNT_SW_PAGE_FAULTS_MAJ]		= PERF_SW_HOOKED,
	[PERF_COUNT_SW_ALIGNMENT_FAULTS]	= PERF_SW_HOOKED,
	[PERF_COUNT_SW_EMULATION_FAULTS]	= PERF_SW_HOOKED,
	[PERF_COUNT_SW_DUMMY]			= PERF_SW_SILENT,
	[PERF_COUNT_SW_BPF_OUTPUT]		= PERF_SW_SILENT,
	[PERF_COUNT_SW_CGROUP_SWITCHES]		= PERF_SW_HOOKED,
};

static enum perf_sw_kind perf_sw_kind(struct perf_event *event)
{
	return perf_sw_kinds[event->attr.config];
}

/* Is this occurrence outside what the event asked to count? */
static bool perf_swevent_excluded(struct perf_event *event,
				  struct pt_regs *regs)
{
	if (perf_hit_excluded(event, regs))
		return true;
	return event->attr.exclude_idle && is_idle_task(current);
}

/**
 * ___perf_sw_event - count a software event; preemption must be off
 * @event_id: the PERF_COUNT_SW_* kind
 * @nr: the number of occurrences
 * @regs: the registers of the hit, for samples
 * @addr: the sample's address (PERF_SAMPLE_ADDR)
 */
void ___perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr)
{
	struct hlist_head *head = this_cpu_ptr(&perf_swevent_lists[event_id]);
	struct perf_event *event;
	/* perf_sample_data_init() sets what is read without a sample_flags bit */
	struct perf_sample_data data __uninitialized;

	rcu_read_lock();
	hlist_for_each_entry_rcu(event, head, hlist_entry) {
		if (perf_swevent_excluded(event, regs))
			continue;
		/* a context lent or installed where it should not be */
		if (PERF_CHECKS)
			WARN_ONCE(perf_event_foreign_task(event, current),
				  "perf: an event of pid %d counted pid %d\n",
				  task_pid_nr(event->hw.target),
				  task_pid_nr(current));
		if (!is_sampling_event(event)) {
			local64_add(nr, &event->count);
			continue;
		}
		perf_sample_data_init(&data, addr, 0);
		perf_swevent_hit(event, nr, &data, regs);
	}
	rcu_read_unlock();
}

/**
 * __perf_sw_event - count a software event from any context
 * @event_id: the PERF_COUNT_SW_* kind
 * @nr: the number of occurrences
 * @regs: the registers of the hit, for samples
 * @addr: the sample's address (PERF_SAMPLE_ADDR)
 */
void __perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr)
{
	preempt_disable_notrace();
	___perf_sw_event(event_id, nr, regs, addr);
	preempt_enable_notrace();
}
EXPORT_SYMBOL_GPL(__perf_sw_event);

static void perf_swevent_destroy(struct perf_event *event)
{
	static_key_slow_dec(&perf_swevent_enabled[event->attr.config]);
}

/*
 * Sampling clocks: an hrtimer per event fires every sample period (in
 * ns) while the event is on the PMU; the remaining time is kept across
 * context switches so a task's samples come every period of its own
 * running time.
 */
#define PERF_SWCLOCK_MIN_NS	10000ULL

static enum hrtimer_restart perf_swclock_timer(struct hrtimer *timer)
{
	struct perf_event *event = container_of(timer, struct perf_event,
						hw.hrtimer);
	struct hw_perf_event *hwc = &event->hw;
	struct perf_sample_data data __uninitialized;
	struct pt_regs *regs;
	u64 period;

	if (event->state != PERF_EVENT_STATE_ACTIVE ||
	    (hwc->state & PERF_HES_STOPPED))
		return HRTIMER_NORESTART;

	event->pmu->read(event);
	regs = get_irq_regs();
	if (regs && !perf_swevent_excluded(event, regs) &&
	    (hwc->interrupts != ~0ULL || perf_event_unthrottle_late(event))) {
		perf_sample_data_init(&data, 0, hwc->last_period);
		perf_event_overflow(event, &data, regs);
	}
	period = max(hwc->sample_period, PERF_SWCLOCK_MIN_NS);
	hrtimer_forward_now(timer, ns_to_ktime(period));
	return HRTIMER_RESTART;
}

static void perf_swclock_timer_start(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left;

	if (!is_sampling_event(event))
		return;
	left = local64_read(&hwc->period_left);
	if (left <= 0 || left > hwc->sample_period)
		left = hwc->sample_period;
	left = max_t(s64, left, PERF_SWCLOCK_MIN_NS);
	hrtimer_start(&hwc->hrtimer, ns_to_ktime(left),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void perf_swclock_timer_stop(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (!is_sampling_event(event))
		return;
	local64_set(&hwc->period_left,
		    ktime_to_ns(hrtimer_get_remaining(&hwc->hrtimer)));
	hrtimer_cancel(&hwc->hrtimer);
}

static void perf_swclock_init(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	event->event_caps |= PERF_EV_CAP_SWCLOCK;
	if (!is_sampling_event(event))
		return;
	/*
	 * A frequency is a period in time: no adjusting needed. The attr
	 * becomes a period event's, as in 6.12: PERF_EVENT_IOC_PERIOD
	 * then takes ns, and inherited copies start from the period.
	 */
	if (event->attr.freq) {
		hwc->sample_period = div64_u64(NSEC_PER_SEC,
					       event->attr.sample_freq);
		hwc->last_period = hwc->sample_period;
		event->attr.sample_period = hwc->sample_period;
		event->attr.freq = 0;
	}
	local64_set(&hwc->period_left, hwc->sample_period);
	hrtimer_init(&hwc->hrtimer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	hwc->hrtimer.function = perf_swclock_timer;
}

static u64 perf_swclock_clock(void)
{
	u64 now = __this_cpu_read(perf_swclock_now);

	return now ? now : local_clock();
}

/*
 * Where a clock starts or stops on its PMU: the instant its context's
 * time was last taken at, if that context is live here. Every operation
 * under ctx->lock takes the time first, and the event's time_running
 * moves from the same instant, so the clock's count and its time running
 * stay equal (as 6.12's task-clock, which counts context time).
 */
static u64 perf_swclock_edge(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;
	u64 now = __this_cpu_read(perf_swclock_now);

	if (now)
		return now;
	if (ctx && ctx->is_active && ctx->active_cpu == smp_processor_id() &&
	    !perf_event_is_cgroup(event))
		return ctx->timestamp;
	return local_clock();
}

/*
 * The clocks: time on the PMU, read from the local clock. @now may be
 * behind prev_count: an NMI that read the event just before the
 * caller's instant came into perf_swclock_now took the clock a little
 * later. That time is counted already; a count never goes back.
 */
static void perf_swclock_add_to(struct perf_event *event, u64 now)
{
	u64 prev;

	do {
		prev = local64_read(&event->hw.prev_count);
		if ((s64)(now - prev) <= 0)
			return;
	} while (local64_cmpxchg(&event->hw.prev_count, prev, now) != prev);
	local64_add(now - prev, &event->count);
}

static void perf_swclock_update(struct perf_event *event)
{
	perf_swclock_add_to(event, perf_swclock_clock());
}

static void perf_swclock_start_at(struct perf_event *event, u64 now)
{
	event->hw.state = 0;
	local64_set(&event->hw.prev_count, now);
	perf_swclock_timer_start(event);
}

static void perf_swclock_stop_at(struct perf_event *event, u64 now)
{
	if (!(event->hw.state & PERF_HES_STOPPED)) {
		perf_swclock_timer_stop(event);
		perf_swclock_add_to(event, now);
	}
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static void perf_swclock_start(struct perf_event *event, int flags)
{
	perf_swclock_start_at(event, perf_swclock_clock());
}

static void perf_swclock_stop(struct perf_event *event, int flags)
{
	perf_swclock_stop_at(event, perf_swclock_clock());
}

static int perf_swclock_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		perf_swclock_start_at(event, perf_swclock_edge(event));
	return 0;
}

static void perf_swclock_del(struct perf_event *event, int flags)
{
	perf_swclock_stop_at(event, perf_swclock_edge(event));
}

static void perf_swclock_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		perf_swclock_update(event);
}

/*
 * Hooked events count where the hook runs, so their ops only put them on
 * and off this CPU's list for their kind. The dummy and bpf-output
 * events go on their lists too: nothing hooks those kinds, so the lists
 * are never walked, and no op has to ask which kind it has.
 */
static void perf_swevent_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void perf_swevent_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int perf_swevent_add(struct perf_event *event, int flags)
{
	struct hlist_head *head;

	head = this_cpu_ptr(&perf_swevent_lists[event->attr.config]);
	hlist_add_head_rcu(&event->hlist_entry, head);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		event->hw.state = 0;
	return 0;
}

static void perf_swevent_del(struct perf_event *event, int flags)
{
	perf_swevent_stop(event, flags);
	hlist_del_rcu(&event->hlist_entry);
}

static void perf_swevent_read(struct perf_event *event)
{
}

/*
 * Two ops tables: the software PMU's for the hooked events, the clocks'
 * for cpu-clock and task-clock. The clocks also have a PMU each with no
 * name, as in 6.12: their types (the first two dynamic ones, 6 and 7)
 * open cpu-clock and task-clock with that config, and every later
 * dynamic type keeps 6.12's number. A clock opened through
 * PERF_TYPE_SOFTWARE runs on its clock's PMU too (the software PMU hands
 * it over in event_init), keeping its attr.type: si_perf_type and the
 * group rules see a software event either way.
 */
static struct pmu perf_swevent_pmu;
static struct pmu perf_cpu_clock_pmu, perf_task_clock_pmu;

static int perf_swevent_event_init(struct perf_event *event)
{
	if (event->attr.type != PERF_TYPE_SOFTWARE)
		return -ENOENT;
	/* no branches to record; refused whatever the config, as by 6.12 */
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	if (event->attr.config >= PERF_COUNT_SW_MAX ||
	    perf_sw_kind(event) == PERF_SW_NONE)
		return -ENOENT;

	event->event_caps |= PERF_EV_CAP_SOFTWARE;
	switch (perf_sw_kind(event)) {
	case PERF_SW_CLOCK:
		event->pmu = event->attr.config == PERF_COUNT_SW_CPU_CLOCK ?
			     &perf_cpu_clock_pmu : &perf_task_clock_pmu;
		perf_swclock_init(event);
		break;
	case PERF_SW_HOOKED:
		static_key_slow_inc(&perf_swevent_enabled[event->attr.config]);
		event->destroy = perf_swevent_destroy;
		break;
	default:
		break;
	}
	return 0;
}

static int perf_swclock_alias_init(struct perf_event *event)
{
	struct pmu *pmu = event->pmu;
	u64 config = pmu == &perf_cpu_clock_pmu ? PERF_COUNT_SW_CPU_CLOCK :
						  PERF_COUNT_SW_TASK_CLOCK;

	if (event->attr.type != pmu->type || event->attr.config != config)
		return -ENOENT;
	/* as through the software PMU's type */
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	event->event_caps |= PERF_EV_CAP_SOFTWARE;
	perf_swclock_init(event);
	return 0;
}

static struct pmu perf_swevent_pmu = {
	.capabilities	= PERF_PMU_CAP_NO_NMI | PERF_PMU_CAP_COUNTS_IN_PLACE,
	.task_ctx_nr	= perf_sw_context,
	.event_init	= perf_swevent_event_init,
	.add		= perf_swevent_add,
	.del		= perf_swevent_del,
	.start		= perf_swevent_start,
	.stop		= perf_swevent_stop,
	.read		= perf_swevent_read,
};

static struct pmu perf_cpu_clock_pmu = {
	.capabilities	= PERF_PMU_CAP_NO_NMI,
	.task_ctx_nr	= perf_sw_context,
	.event_init	= perf_swclock_alias_init,
	.add		= perf_swclock_add,
	.del		= perf_swclock_del,
	.start		= perf_swclock_start,
	.stop		= perf_swclock_stop,
	.read		= perf_swclock_read,
};

int __init perf_swevent_register(void)
{
	int err;

	err = perf_pmu_register(&perf_swevent_pmu, "software",
				PERF_TYPE_SOFTWARE);
	if (err)
		return err;
	perf_task_clock_pmu = perf_cpu_clock_pmu;
	err = perf_pmu_register(&perf_cpu_clock_pmu, NULL, -1);
	if (err)
		return err;
	return perf_pmu_register(&perf_task_clock_pmu, NULL, -1);
}
