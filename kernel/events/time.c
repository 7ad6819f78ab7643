// SPDX-License-Identifier: GPL-2.0
/*
 * Time: the clocks a record's times may come from (attr.clockid), a
 * context's clock and its events' enabled and running times, the instant
 * the clock events are brought to (perf_swclock_now), and the control
 * page of a buffer, whose times self-monitoring reads.
 *
 * A context keeps its own clock, ctx->time, which advances only while the
 * context is active. An event remembers the context time of its last
 * update (tstamp) and adds the elapsed context time to its enabled total
 * while enabled and to its running total while on the PMU. So a per-task
 * event's times count the task's own run time, as the ABI wants; a cgroup
 * event's follow its cgroup's clock on its CPU (cgroup.c).
 *
 * Below scheduling: the scheduler, reads, samples and the control page
 * all take times from here, and nothing here calls up.
 */
#include <linux/export.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/sched/clock.h>
#include <linux/timekeeping.h>

#include "layer/time.h"

/*
 * While a whole context goes on or off this CPU (perf_ctx_activate(),
 * perf_ctx_sched_out()), or a read brings its clocks up to its time, the
 * instant its time was just taken at; 0 otherwise. The clock events'
 * pmu ops start, stop and read at that instant, in step with their
 * time_running, without a read of the clock each.
 */
DEFINE_PER_CPU(u64, perf_swclock_now);

static u64 perf_clock_monotonic(void)
{
	return ktime_get_mono_fast_ns();
}

static u64 perf_clock_monotonic_raw(void)
{
	return ktime_get_raw_fast_ns();
}

static u64 perf_clock_realtime(void)
{
	return ktime_get_real_ns();
}

static u64 perf_clock_boottime(void)
{
	return ktime_get_boottime_ns();
}

static u64 perf_clock_tai(void)
{
	return ktime_get_clocktai_ns();
}

/**
 * perf_event_set_clock - the clock of @event's record times (attr.clockid)
 * @event: a new event, bound to its PMU
 *
 * Only the monotonic clocks are read safely from NMI: realtime, boottime
 * and TAI take the timekeeper's sequence lock, on which a PMI that
 * interrupted an update would spin forever.
 *
 * Return: 0, or -EINVAL for another clock, or for one of those three on
 * a PMU that can fire in NMI.
 */
int perf_event_set_clock(struct perf_event *event)
{
	bool nmi_safe = true;

	if (!event->attr.use_clockid) {
		event->clock = perf_clock;
		return 0;
	}

	switch (event->attr.clockid) {
	case CLOCK_MONOTONIC:
		event->clock = perf_clock_monotonic;
		break;
	case CLOCK_MONOTONIC_RAW:
		event->clock = perf_clock_monotonic_raw;
		break;
	case CLOCK_REALTIME:
		event->clock = perf_clock_realtime;
		nmi_safe = false;
		break;
	case CLOCK_BOOTTIME:
		event->clock = perf_clock_boottime;
		nmi_safe = false;
		break;
	case CLOCK_TAI:
		event->clock = perf_clock_tai;
		nmi_safe = false;
		break;
	default:
		return -EINVAL;
	}
	if (!nmi_safe && !(event->pmu->capabilities & PERF_PMU_CAP_NO_NMI))
		return -EINVAL;
	return 0;
}

/**
 * perf_ctx_update_time - bring @ctx's clock (and its CPU's cgroup clocks) to now
 * @ctx: the context, whose lock is held
 */
void perf_ctx_update_time(struct perf_event_context *ctx)
{
	u64 now;

	lockdep_assert_held(&ctx->lock);
	if (!ctx->is_active)
		return;
	now = perf_clock();
	ctx->time += now - ctx->timestamp;
	ctx->timestamp = now;
	if (!ctx->task)
		perf_cgroup_update_time(ctx, now);
}

/**
 * perf_event_update_times - add @event's enabled and running time up to
 *	its context's (or cgroup's) last update
 * @event: the event, whose context's lock is held
 */
void perf_event_update_times(struct perf_event *event)
{
	enum perf_event_state state = perf_event_effective_state(event);
	u64 now;

	if (!event->ctx)
		return;
	/* a cgroup event's times are its cgroup's on that CPU */
	if (perf_event_is_cgroup(event))
		now = perf_cgroup_time(event);
	else
		now = perf_ctx_time_now(event->ctx);
	perf_event_update_times_at(event, state, now);
}

static __always_inline void __perf_event_times(struct perf_event *event,
					       u64 clock, bool have_clock,
					       u64 *enabled, u64 *running)
{
	enum perf_event_state state = perf_event_effective_state(event);
	struct perf_event_context *ctx = event->ctx;
	u64 now, delta = 0;

	*enabled = event->total_time_enabled;
	*running = event->total_time_running;
	if (!ctx || state < PERF_EVENT_STATE_INACTIVE)
		return;
	if (perf_event_is_cgroup(event)) {
		now = perf_cgroup_time_live(event);
	} else {
		now = READ_ONCE(ctx->time);
		if (READ_ONCE(ctx->is_active))
			now += (have_clock ? clock : perf_clock()) -
			       READ_ONCE(ctx->timestamp);
	}
	if ((s64)(now - event->tstamp) > 0)
		delta = now - event->tstamp;
	*enabled += delta;
	if (state == PERF_EVENT_STATE_ACTIVE)
		*running += delta;
}

/**
 * perf_event_times_now - an event's enabled and running times as of now
 * @event: the event
 * @enabled: where its time enabled goes
 * @running: where its time running goes
 *
 * Updates nothing: for samples and the control page, written from
 * interrupt or NMI context where ctx->lock cannot be taken.
 */
void perf_event_times_now(struct perf_event *event, u64 *enabled,
			  u64 *running)
{
	__perf_event_times(event, 0, false, enabled, running);
}

/**
 * perf_event_times_at - perf_event_times_now() as of @clock
 * @event: the event
 * @clock: a perf_clock() value the caller has just read, for its own use
 *	too (the control page's time fields): one clock read, not two
 * @enabled: where its time enabled goes
 * @running: where its time running goes
 */
void perf_event_times_at(struct perf_event *event, u64 clock, u64 *enabled,
			 u64 *running)
{
	__perf_event_times(event, clock, true, enabled, running);
}

/* Overridden by the architecture to publish rdpmc and clock facts. */
void __weak arch_perf_update_userpage(struct perf_event *event,
				      struct perf_event_mmap_page *userpg,
				      u64 now)
{
}

/*
 * What a self-monitoring reader adds to the sign-extended rdpmc value
 * (with no index, the count itself); @up->index is already written
 */
static inline void perf_userpage_set_offset(struct perf_event *event,
					    struct perf_event_mmap_page *up)
{
	up->offset = local64_read(&event->count);
	if (up->index)
		up->offset -= local64_read(&event->hw.prev_count);
}

/**
 * perf_event_update_userpage - refresh the control page of @event's buffer
 * @event: the event
 *
 * Self-monitoring readers retry while @lock changes, so the fields are
 * consistent when they see it stable. Any context.
 */
void perf_event_update_userpage(struct perf_event *event)
{
	struct perf_event_mmap_page *up;
	struct perf_buffer *rb;
	u64 enabled, running, now;

	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (!rb)
		goto out;
	up = rb->user_page;

	now = perf_clock();
	perf_event_times_at(event, now, &enabled, &running);

	preempt_disable();
	++up->lock;
	barrier();
	/* a reload that interrupts this update does a whole one of its own */
	WRITE_ONCE(rb->up_event, NULL);
	barrier();
	up->index = 0;
	if (event->state == PERF_EVENT_STATE_ACTIVE && event->pmu->event_idx)
		up->index = event->pmu->event_idx(event);
	perf_userpage_set_offset(event, up);
	up->time_enabled = enabled;
	up->time_running = running;
	up->cap_bit0_is_deprecated = 1;
	arch_perf_update_userpage(event, up, now);
	if (event->state == PERF_EVENT_STATE_ACTIVE) {
		rb->up_cpu = smp_processor_id();
		rb->up_time = up->cap_user_time;
		barrier();
		WRITE_ONCE(rb->up_event, event);
	}
	barrier();
	++up->lock;
	preempt_enable();
out:
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(perf_event_update_userpage);

/**
 * perf_event_update_userpage_reload - the control page after a reload
 * @event: an active event whose counter was just reloaded, on its CPU
 *	(the PMU's set_period, from the PMI or from pmu::start; a PEBS
 *	drain, after the counters reloaded themselves)
 *
 * The reload moved the offset a self-monitoring reader adds to rdpmc.
 * What else the page says stays true while @event stays where it is:
 * its index, counter width and clock conversion, and with cap_user_time
 * its times, which the reader extrapolates from time_offset as the event
 * runs on. So when the last whole update was @event's, on this CPU,
 * only the offset (and without cap_user_time the times) is rewritten;
 * otherwise this is a whole update. The PMI's page refresh was most of
 * a sample's cost besides its record.
 */
void perf_event_update_userpage_reload(struct perf_event *event)
{
	struct perf_event_mmap_page *up;
	struct perf_buffer *rb;
	u64 enabled, running;

	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (!rb)
		goto out;
	if (READ_ONCE(rb->up_event) != event ||
	    rb->up_cpu != smp_processor_id()) {
		rcu_read_unlock();
		perf_event_update_userpage(event);
		return;
	}
	up = rb->user_page;
	if (!rb->up_time)
		perf_event_times_now(event, &enabled, &running);
	++up->lock;
	barrier();
	perf_userpage_set_offset(event, up);
	if (!rb->up_time) {
		up->time_enabled = enabled;
		up->time_running = running;
	}
	barrier();
	++up->lock;
out:
	rcu_read_unlock();
}
