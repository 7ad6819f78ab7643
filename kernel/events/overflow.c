// SPDX-License-Identifier: GPL-2.0
/*
 * What happens when an event overflows: the period bookkeeping of events
 * the kernel counts itself, throttling, frequency mode, the event limit
 * of REFRESH, signals (sigtrap and SIGIO) and handing the sample to the
 * handler.
 *
 * An overflow may come in NMI context, so nothing here takes a lock or
 * sleeps; what needs either (disabling the event, waking readers,
 * sending a signal) is deferred to the event's irq_work, or for sigtrap
 * to task work that runs before the task returns to user space.
 */
#include <linux/sched/signal.h>
#include <linux/task_work.h>

#include "layer/overflow.h"

/* bumped at every tick: events count their interrupts per sequence */
static DEFINE_PER_CPU(u64, perf_throttle_seq);
static DEFINE_PER_CPU(int, perf_throttled_here);
/* events in frequency mode, whose period the tick adjusts */
static atomic_t perf_nr_freq_events;

static void perf_freq_set_period(struct perf_event *event, u64 nsec,
				 u64 count);

static void perf_pending_irq(struct irq_work *work)
{
	struct perf_event *event = container_of(work, struct perf_event,
						pending_irq);

	/*
	 * The disable is for the CPU where the event runs; work sent here
	 * from a CPU going offline leaves an event still on that CPU alone.
	 */
	if (READ_ONCE(event->pending_disable) &&
	    (event->oncpu == -1 || event->oncpu == smp_processor_id())) {
		WRITE_ONCE(event->pending_disable, 0);
		perf_event_disable_local(event);
	}
	if (READ_ONCE(event->pending_wakeup)) {
		/* an overflow says why; a buffer wakeup means data to read */
		int kill = event->pending_kill ?: POLL_IN;

		WRITE_ONCE(event->pending_wakeup, 0);
		perf_buffer_wakeup(event);
		wake_up_all(&event->waitq);
		kill_fasync(&event->fasync, SIGIO, kill);
		event->pending_kill = 0;
	}
}

/*
 * The work is off the task's list when it runs. Once pending_sigtrap is
 * clear, an overflow (IRQ or NMI on this CPU) may queue it again with a
 * reference of its own, so it is cleared exactly once, after the address
 * is read and never again: clearing it while the work is queued anew let
 * a third overflow add the queued callback a second time, a loop in the
 * task's work list that dropped the event's references until it was
 * freed under its running hrtimer.
 */
static void perf_sigtrap_work(struct callback_head *head)
{
	struct perf_event *event = container_of(head, struct perf_event,
						pending_task);
	unsigned long addr = READ_ONCE(event->pending_addr);

	barrier();
	WRITE_ONCE(event->pending_sigtrap, 0);
	if (!(current->flags & PF_EXITING))
		send_sig_perf((void __user *)addr, event->attr.type,
			      event->attr.sig_data);
	perf_event_put(event);
}

/**
 * perf_event_wakeup_init - prepare an event's deferred work
 * @event: the new event
 */
void perf_event_wakeup_init(struct perf_event *event)
{
	init_irq_work(&event->pending_irq, perf_pending_irq);
	init_task_work(&event->pending_task, perf_sigtrap_work);
	if (event->attr.freq && event->attr.sample_freq)
		atomic_inc(&perf_nr_freq_events);
}

/**
 * perf_event_sigtrap_cancel - the event goes away: finish its deferred work
 * @event: the event being freed
 */
void perf_event_sigtrap_cancel(struct perf_event *event)
{
	irq_work_sync(&event->pending_irq);
	if (event->attr.freq && event->attr.sample_freq)
		atomic_dec(&perf_nr_freq_events);
}

/*
 * A synchronous SIGTRAP to the task that caused the overflow, before it
 * runs another user instruction. Only the monitored task gets one: the
 * overflow of an event counting some other task sends nothing.
 */
static noinline void perf_event_queue_sigtrap(struct perf_event *event,
					      struct perf_sample_data *data)
{
	struct perf_event_context *ctx = event->ctx;
	int mode = in_nmi() ? TWA_NMI_CURRENT : TWA_RESUME;

	if (!ctx || ctx->task != current || (current->flags & PF_EXITING))
		return;
	/* an NMI may overflow the same event within this very check */
	if (cmpxchg(&event->pending_sigtrap, 0, 1))
		return;
	if (!refcount_inc_not_zero(&event->refcount)) {
		WRITE_ONCE(event->pending_sigtrap, 0);
		return;
	}
	event->pending_addr = (data->sample_flags & PERF_SAMPLE_ADDR) ?
			      data->addr : 0;
	if (task_work_add(current, &event->pending_task, mode)) {
		WRITE_ONCE(event->pending_sigtrap, 0);
		/* cannot drop the last reference here: it never is */
		refcount_dec(&event->refcount);
	}
}

/*
 * Counts the overflow against the rate limit; with @may_throttle false
 * it is counted but never throttles (see perf_swevent_hit()).
 */
static __always_inline int perf_event_count_interrupt(struct perf_event *event,
						      bool may_throttle)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 seq = __this_cpu_read(perf_throttle_seq);

	if (hwc->interrupts == PERF_THROTTLED)
		return 1;
	/* frequency mode: the period just done took this long */
	if (event->attr.freq && event->attr.sample_freq &&
	    !perf_event_is_swclock(event)) {
		u64 now = perf_clock();
		s64 delta = now - hwc->freq_time_stamp;

		hwc->freq_time_stamp = now;
		if (delta > 0 && delta < 2 * TICK_NSEC)
			perf_freq_set_period(event, delta, hwc->last_period);
	}
	if (hwc->interrupts_seq != seq) {
		hwc->interrupts_seq = seq;
		hwc->interrupts = 0;
	}
	/*
	 * As in 6.12, the overflow that reaches the limit throttles: at
	 * most perf_max_samples_per_tick() samples a tick, that one's too.
	 */
	if (++hwc->interrupts < perf_max_samples_per_tick() || !may_throttle)
		return 0;
	hwc->interrupts = PERF_THROTTLED;
	__this_cpu_inc(perf_throttled_here);
	perf_log_throttle(event, false);
	return 1;
}

/**
 * perf_event_account_interrupt - count an overflow against the rate limit
 * @event: the event that overflowed
 *
 * An event that overflows more than perf_event_max_sample_rate allows in
 * one tick is throttled: a THROTTLE record is written and 1 returned, and
 * the PMU must stop it. The tick restarts it.
 */
int perf_event_account_interrupt(struct perf_event *event)
{
	return perf_event_count_interrupt(event, true);
}
EXPORT_SYMBOL_GPL(perf_event_account_interrupt);

/**
 * perf_event_unthrottle_late - restart a throttled kernel-counted event
 * @event: a throttled kernel-counted event
 *
 * The tick restarts only events live at the tick; one whose task was
 * switched out then is restarted by its next occurrence in a later tick.
 * Returns true when @event may sample again.
 */
bool perf_event_unthrottle_late(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->interrupts_seq == __this_cpu_read(perf_throttle_seq))
		return false;
	hwc->interrupts = 0;
	perf_log_throttle(event, true);
	return true;
}

static __always_inline int
__perf_event_overflow_one(struct perf_event *event, struct perf_sample_data *data,
			  struct pt_regs *regs, bool may_throttle)
{
	int ret;

	ret = perf_event_count_interrupt(event, may_throttle);

	/*
	 * A BPF program decides whether the overflow happened at all: when
	 * it says no, there is no sample, signal or REFRESH countdown.
	 */
	if (unlikely(READ_ONCE(event->prog)) &&
	    !perf_event_bpf_overflow(event, data, regs))
		return ret;

	event->pending_kill = POLL_IN;
	if (atomic_read(&event->event_limit) &&
	    atomic_dec_and_test(&event->event_limit)) {
		ret = 1;
		event->pending_kill = POLL_HUP;
		perf_event_disable_inatomic(event);
	}

	if (event->attr.sigtrap)
		perf_event_queue_sigtrap(event, data);

	if (event->overflow_handler)
		event->overflow_handler(event, data, regs);
	else
		perf_event_output(event, data, regs);

	/* SIGIO on every overflow for an owner that asked for it */
	if (READ_ONCE(event->fasync) && event->pending_kill) {
		WRITE_ONCE(event->pending_wakeup, 1);
		perf_event_queue_pending(event);
	}
	return ret;
}

/* the kernel-counted events' overflows (perf_swevent_hit()) */
static noinline int perf_event_overflow_one(struct perf_event *event,
					    struct perf_sample_data *data,
					    struct pt_regs *regs,
					    bool may_throttle)
{
	return __perf_event_overflow_one(event, data, regs, may_throttle);
}

/**
 * perf_event_overflow - an event passed the end of its sample period
 * @event: the event
 * @data: the sample, started with perf_sample_data_init()
 * @regs: the registers of the interrupted context
 *
 * May run in NMI context. Returns 1 when the PMU should stop the event
 * (throttled or the REFRESH limit reached), 0 otherwise.
 */
int perf_event_overflow(struct perf_event *event,
			struct perf_sample_data *data, struct pt_regs *regs)
{
	/* inline: the PMI's overflow, one call less (pmi_sample) */
	return __perf_event_overflow_one(event, data, regs, true);
}
EXPORT_SYMBOL_GPL(perf_event_overflow);

/**
 * perf_swevent_hit - count @nr occurrences of a kernel-counted event
 * @event: the event
 * @nr: the number of occurrences
 * @data: the sample data for an overflow
 * @regs: the registers at the hit, or NULL: no sample
 *
 * For a sampling event, each time the period runs out this reports an
 * overflow with @data, which the caller started with
 * perf_sample_data_init(). Runs in any context; preemption off.
 *
 * As in 6.12, the rate limit throttles only the second and later
 * overflows of one hit: an event that overflows once per hit (a
 * breakpoint or tracepoint with a period of 1, a sigtrap) gives every
 * overflow, whatever perf_event_max_sample_rate says.
 */
void perf_swevent_hit(struct perf_event *event, u64 nr,
		      struct perf_sample_data *data, struct pt_regs *regs)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 period, overflows, i;
	s64 left;

	local64_add(nr, &event->count);
	if (!is_sampling_event(event) || !regs)
		return;
	if (unlikely(hwc->interrupts == PERF_THROTTLED) &&
	    !perf_event_unthrottle_late(event))
		return;

	/*
	 * ABI: with PERF_SAMPLE_PERIOD in a fixed-period sample, each hit
	 * is its own sample carrying its weight @nr, so that the periods
	 * add up to the count.
	 */
	if ((event->attr.sample_type & PERF_SAMPLE_PERIOD) &&
	    !event->attr.freq) {
		data->period = nr;
		hwc->last_period = nr;
		perf_event_overflow_one(event, data, regs, false);
		return;
	}

	left = local64_sub_return(nr, &hwc->period_left);
	if (left > 0)
		return;

	period = hwc->sample_period ? hwc->sample_period : 1;
	hwc->last_period = period;
	data->period = period;
	/* one overflow, as a period of 1 always has: no division, no loop */
	if (likely(-left < (s64)period)) {
		local64_add(period, &hwc->period_left);
		perf_event_overflow_one(event, data, regs, false);
		return;
	}
	overflows = div64_u64(-left, period) + 1;
	local64_add(overflows * period, &hwc->period_left);
	for (i = 0; i < overflows; i++) {
		data->period = period;
		if (perf_event_overflow_one(event, data, regs, i > 0))
			break;
	}
}

/*
 * Frequency mode: @count events took @nsec, so the period that gives
 * attr.sample_freq samples a second is count / nsec / freq. Smoothed,
 * so that one odd interval does not swing it.
 */
static void perf_freq_set_period(struct perf_event *event, u64 nsec,
				 u64 count)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 period, delta;

	period = div64_u64(count * NSEC_PER_SEC,
			   nsec * event->attr.sample_freq);
	if (!period)
		period = 1;
	/* an eighth of the way there, rounded toward zero (as 6.12) */
	delta = (period - (s64)hwc->sample_period) / 8;
	period = hwc->sample_period + delta;
	if (period < 1)
		period = 1;
	hwc->sample_period = period;
}

/* At the tick: the count of the last tick says how fast events come. */
static void perf_adjust_freq(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 count, delta;

	if (event->oncpu != smp_processor_id() || perf_event_is_swclock(event))
		return;

	event->pmu->read(event);
	count = local64_read(&event->count);
	delta = count - hwc->freq_count_stamp;
	hwc->freq_count_stamp = count;
	if (!delta)
		return;

	perf_freq_set_period(event, TICK_NSEC, delta);
	if (local64_read(&hwc->period_left) > 8 * (s64)hwc->sample_period) {
		local64_set(&hwc->period_left, hwc->sample_period);
		if (!is_software_event(event)) {
			event->pmu->stop(event, PERF_EF_UPDATE);
			event->pmu->start(event, PERF_EF_RELOAD);
		}
	}
}

static void perf_event_unthrottle(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->interrupts != PERF_THROTTLED)
		return;
	hwc->interrupts = 0;
	perf_log_throttle(event, true);
	/* kernel-counted events never stop; PMUs stop throttled counters */
	if (event->state == PERF_EVENT_STATE_ACTIVE &&
	    event->oncpu == smp_processor_id() &&
	    (hwc->state & PERF_HES_STOPPED))
		event->pmu->start(event, 0);
}

/* The tick's work for one live context, with ctx->lock held. */
static void perf_event_tick_ctx(struct perf_event_context *ctx, bool throttled)
{
	struct perf_event *event;

	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (event->state != PERF_EVENT_STATE_ACTIVE)
			continue;
		if (throttled)
			perf_event_unthrottle(event);
		if (event->attr.freq && event->attr.sample_freq)
			perf_adjust_freq(event);
	}
}

/**
 * perf_event_throttle_tick - start a new throttling period on this CPU
 * @cpuctx: this CPU's perf context
 *
 * Restarts the events throttled in the period that ended and adjusts
 * the periods of frequency-mode events, in the CPU's context and the
 * task context live here. From the tick, IRQs off.
 */
void perf_event_throttle_tick(struct perf_cpu_context *cpuctx)
{
	bool throttled = __this_cpu_read(perf_throttled_here);
	struct perf_event_context *ctx;

	__this_cpu_inc(perf_throttle_seq);
	if (!throttled && !atomic_read(&perf_nr_freq_events))
		return;
	__this_cpu_write(perf_throttled_here, 0);

	perf_ctx_lock(&cpuctx->ctx);
	perf_event_tick_ctx(&cpuctx->ctx, throttled);
	perf_ctx_unlock(&cpuctx->ctx);

	ctx = cpuctx->task_ctx;
	if (ctx) {
		perf_ctx_lock(ctx);
		if (ctx->is_active && ctx->active_cpu == smp_processor_id())
			perf_event_tick_ctx(ctx, throttled);
		perf_ctx_unlock(ctx);
	}
}
