// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's hooks: a task switched out and in (its context goes off
 * and on the PMUs, lent to an equivalent context, or left dozing), and
 * the tick (throttling periods and multiplexing rotation).
 *
 * An entry point: the scheduler calls these, and they call scheduling,
 * swapping, records (SWITCH) and overflow (the throttle tick). All of it
 * runs with IRQs off; the switch hooks with the runqueue lock held, the
 * tick without it.
 */
#include <linux/smp.h>
#include <linux/sched.h>

#include "layer/entry.h"

/*
 * The instant the switch out of this CPU's last context switch took its
 * time at, for the switch in that follows with IRQs still off (0: none).
 * The two tasks' contexts stop and start at one reading of the clock.
 */
struct perf_switch_clock {
	u64			clock;
	struct task_struct	*next;
};
static DEFINE_PER_CPU(struct perf_switch_clock, perf_switch_clock);

/*
 * Switch out of a context whose events are all dozy: stop its clock and
 * leave them on. The clocks' counts stay as they were at their last
 * update; perf_ctx_wake() moves each clock's start by the time asleep,
 * perf_ctx_settle() stops each at the instant the context stopped.
 */
static __always_inline bool perf_ctx_doze(struct perf_event_context *ctx)
{
	struct perf_event *event;

	if (ctx->nr_dozy != ctx->nr_events || !ctx->nr_events ||
	    ctx->clone_id || ctx->dead || ctx->rotate_necessary)
		return false;
	list_for_each_entry(event, &ctx->event_list, event_entry)
		if (event->state == PERF_EVENT_STATE_INACTIVE ||
		    rcu_access_pointer(event->rb))
			return false;
	perf_ctx_update_time(ctx);
	ctx->dozing = true;
	ctx->is_active = false;
	ctx->active_cpu = -1;
	this_cpu_write(perf_cpu_context.task_ctx, NULL);
	return true;
}

/* The dozing context's task is back, on this CPU, at @now. */
static __always_inline void perf_ctx_wake(struct perf_event_context *ctx,
					  u64 now)
{
	u64 asleep = now - ctx->timestamp;
	int cpu = smp_processor_id();
	struct perf_event *event;

	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (event->state != PERF_EVENT_STATE_ACTIVE)
			continue;
		local64_add(asleep, &event->hw.prev_count);
		event->oncpu = cpu;
	}
	ctx->dozing = false;
	ctx->is_active = true;
	ctx->active_cpu = cpu;
	ctx->timestamp = now;
	this_cpu_write(perf_cpu_context.task_ctx, ctx);
}

/**
 * __perf_event_task_sched_out - the scheduler switches @prev out
 * @prev: the task leaving the CPU
 * @next: the task that replaces it
 *
 * Called with the runqueue lock held and IRQs off.
 */
void __perf_event_task_sched_out(struct task_struct *prev,
				 struct task_struct *next)
{
	struct perf_event_context *ctx = rcu_dereference_raw(prev->perf_event_ctxp);

	perf_event_switch(prev, next, false);
	if (!ctx || !ctx->is_active)
		return;
	/* an equivalent context on @next: leave this one on, counting for it */
	if (perf_ctx_try_swap(ctx, prev, next))
		return;

	raw_spin_lock(&ctx->lock);
	if (!perf_ctx_doze(ctx)) {
		perf_ctx_sched_task(ctx, false);
		perf_ctx_sched_out(ctx);
	}
	/* for @next's context: the switch in follows with IRQs still off */
	__this_cpu_write(perf_switch_clock.clock, ctx->timestamp);
	__this_cpu_write(perf_switch_clock.next, next);
	raw_spin_unlock(&ctx->lock);
}

/**
 * __perf_event_task_sched_in - the scheduler has switched @task in
 * @prev: the task that was switched out
 * @task: the task now current
 *
 * Called with the runqueue lock held and IRQs off. A context with no
 * events is left inactive; installing an event activates it through an
 * IPI to the task's CPU.
 */
void __perf_event_task_sched_in(struct task_struct *prev,
				struct task_struct *task)
{
	struct perf_event_context *ctx = rcu_dereference_raw(task->perf_event_ctxp);
	u64 now = __this_cpu_read(perf_switch_clock.clock);

	/* only the stamp of this very switch, taken by its switch out */
	if (now) {
		if (__this_cpu_read(perf_switch_clock.next) != task)
			now = 0;
		__this_cpu_write(perf_switch_clock.clock, 0);
	}
	/* the CPU's cgroup events first: the CPU's groups come first */
	perf_cgroup_sched_in(task);
	if (!ctx)
		goto out;
	/*
	 * Handed over at the switch out (perf_ctx_try_swap()): a context
	 * active on this CPU changes only on this CPU, and IRQs are off
	 */
	if (READ_ONCE(ctx->is_active) &&
	    READ_ONCE(ctx->active_cpu) == smp_processor_id()) {
		WARN_ON_ONCE(ctx->task != task);
		goto out;
	}

	/* nr_events and dead change under the lock: test them there */
	raw_spin_lock(&ctx->lock);
	if (ctx->is_active) {
		WARN_ON_ONCE(1);	/* active on another CPU */
	} else if (ctx->dozing) {
		perf_ctx_wake(ctx, now ?: perf_clock());
	} else if (!ctx->dead && ctx->nr_events && !ctx->frozen) {
		perf_ctx_activate(ctx, now ?: perf_clock());
		perf_ctx_sched_task(ctx, true);
	}
	raw_spin_unlock(&ctx->lock);
out:
	perf_event_switch(task, prev, true);
}

/**
 * perf_event_task_tick - the scheduler tick, with IRQs off
 *
 * Rotates flexible groups that did not all fit, once per multiplexing
 * interval of their PMU (sysfs perf_event_mux_interval_ms).
 */
void perf_event_task_tick(void)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_event_context *ctx;

	lockdep_assert_irqs_disabled();

	/* a new throttling period; restart what the last one stopped */
	perf_event_throttle_tick(cpuctx);

	perf_ctx_rotate_tick(&cpuctx->ctx);
	ctx = cpuctx->task_ctx;
	if (ctx)
		perf_ctx_rotate_tick(ctx);
}
