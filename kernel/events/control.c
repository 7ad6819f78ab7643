// SPDX-License-Identifier: GPL-2.0
/*
 * Turning events on and off, resetting them and changing their period:
 * the work behind the ENABLE, DISABLE, RESET and PERIOD ioctls, prctl,
 * enable_on_exec and the in-kernel API.
 *
 * Each operation applies to one event, or with PERF_IOC_FLAG_GROUP to its
 * whole group, and always to the children the event passed on by
 * inheritance. The state change itself runs under ctx->lock on the CPU
 * where the context is live (perf_ctx_call()).
 */
#include "layer/counting.h"

/**
 * perf_event_enable_locked - move an event from OFF (or ERROR) to enabled
 * @ctx: the event's context, whose lock is held
 * @event: the event
 *
 * ctx->lock held, on the context's CPU, context time already updated.
 * Starts it if its group is live.
 */
void perf_event_enable_locked(struct perf_event_context *ctx,
			      struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;

	lockdep_assert_held(&ctx->lock);

	if (event->state >= PERF_EVENT_STATE_INACTIVE ||
	    event->state <= PERF_EVENT_STATE_EXIT)
		return;

	perf_event_set_state(event, PERF_EVENT_STATE_INACTIVE);
	if (!ctx->is_active)
		return;

	if (leader == event && event->attr.pinned)
		perf_ctx_sched_in_pinned(ctx, event);
	else if (leader == event)
		perf_group_sched_in(ctx, event);
	else if (leader->state == PERF_EVENT_STATE_ACTIVE)
		perf_event_sched_in(ctx, event);
}

static int __perf_event_enable(struct perf_event_context *ctx, void *info)
{
	struct perf_event *event = info;

	perf_event_enable_locked(ctx, event);
	/* self-monitoring readers see the times and index it has now */
	if (rcu_access_pointer(event->rb))
		perf_event_update_userpage(event);
	return 0;
}

static int __perf_event_disable(struct perf_event_context *ctx, void *info)
{
	struct perf_event *event = info;

	if (event->state < PERF_EVENT_STATE_INACTIVE)
		return 0;

	if (perf_event_is_group_leader(event))
		perf_group_sched_out(ctx, event);
	else
		perf_event_sched_out(ctx, event);
	perf_event_set_state(event, PERF_EVENT_STATE_OFF);
	if (rcu_access_pointer(event->rb))
		perf_event_update_userpage(event);
	/* a leader off stops its members' times too: their pages say so */
	if (perf_event_is_group_leader(event)) {
		struct perf_event *sibling;

		for_each_sibling_event(sibling, event)
			if (rcu_access_pointer(sibling->rb))
				perf_event_update_userpage(sibling);
	}
	return 0;
}

static int __perf_event_reset(struct perf_event_context *ctx, void *info)
{
	struct perf_event *event = info;

	/* fold the hardware's delta in first, so it is not counted later */
	if (event->state == PERF_EVENT_STATE_ACTIVE)
		event->pmu->read(event);
	local64_set(&event->count, 0);
	/* the offset that self-monitoring adds to rdpmc starts again too */
	perf_event_update_userpage(event);
	return 0;
}

struct perf_group_op {
	struct perf_event	*event;
	perf_ctx_fn		fn;
	bool			group;
};

/*
 * One operation on an event or its whole group, under one ctx->lock and
 * one context-time update, so every member switches at the same instant
 * and the members' times stay equal. Siblings go first: enabling them
 * before the leader lets the leader take the whole group on at once.
 */
static int __perf_group_op(struct perf_event_context *ctx, void *info)
{
	struct perf_group_op *op = info;
	struct perf_event *leader = op->event->group_leader;
	struct perf_event *sibling;
	struct pmu *hw = NULL;
	int ret;

	perf_ctx_update_time(ctx);
	perf_ctx_unclone(ctx);
	if (!op->group)
		return op->fn(ctx, op->event);

	/*
	 * A group that is on stays held while its members go off (or on)
	 * one by one: they all stop (or start) at the PMU's restart, the
	 * same instruction for each
	 */
	if (leader->state == PERF_EVENT_STATE_ACTIVE &&
	    !list_empty(&leader->sibling_list)) {
		hw = perf_group_pmu(leader);
		perf_pmu_disable(hw);
	}
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		op->fn(ctx, sibling);
	ret = op->fn(ctx, leader);
	if (hw)
		perf_pmu_enable(hw);
	return ret;
}

/*
 * Apply @fn to the children @event passed on by inheritance. @event is an
 * fd's event (never a copy) and its context's mutex is held: with no
 * child now, none can appear meanwhile (a first copy comes only from a
 * fork that holds this context's mutex, and further ones from copies),
 * so an empty list needs no child_mutex.
 */
static noinline void __perf_event_apply_children(struct perf_event *event,
						 perf_ctx_fn fn)
{
	struct perf_group_op op = { .fn = fn };

	mutex_lock(&event->child_mutex);
	list_for_each_entry(op.event, &event->child_list, child_entry)
		perf_ctx_call(op.event->ctx, __perf_group_op, &op);
	mutex_unlock(&event->child_mutex);
}

/* most events have no children: the test inline, the walk out of line */
static __always_inline void perf_event_apply_children(struct perf_event *event,
						      perf_ctx_fn fn)
{
	lockdep_assert_held(&event->ctx->mutex);
	if (!list_empty(&event->child_list))
		__perf_event_apply_children(event, fn);
}

/* The event, or with @group every member of its group, and their children. */
static int perf_event_apply_group(struct perf_event *event, bool group,
				  perf_ctx_fn fn)
{
	struct perf_group_op op = { .event = event, .fn = fn, .group = group };
	struct perf_event_context *ctx;
	struct perf_event *leader, *sibling;

	ctx = perf_event_ctx_lock(event);
	perf_ctx_call(ctx, __perf_group_op, &op);
	if (!group) {
		perf_event_apply_children(event, fn);
	} else {
		leader = event->group_leader;
		perf_event_apply_children(leader, fn);
		list_for_each_entry(sibling, &leader->sibling_list,
				    sibling_entry)
			perf_event_apply_children(sibling, fn);
	}
	mutex_unlock(&ctx->mutex);
	return 0;
}

int perf_event_ctl_enable(struct perf_event *event, bool group)
{
	return perf_event_apply_group(event, group, __perf_event_enable);
}

int perf_event_ctl_disable(struct perf_event *event, bool group)
{
	return perf_event_apply_group(event, group, __perf_event_disable);
}

int perf_event_ctl_reset(struct perf_event *event, bool group)
{
	return perf_event_apply_group(event, group, __perf_event_reset);
}

struct perf_period_op {
	struct perf_event	*event;
	u64			value;
};

/*
 * Each event has its own copy of the attr, an inherited child too: the
 * new value goes into each, so a child forked later inherits it as well.
 */
static int __perf_event_period(struct perf_event_context *ctx, void *info)
{
	struct perf_period_op *op = info;
	struct perf_event *event = op->event;
	bool active = event->state == PERF_EVENT_STATE_ACTIVE;

	perf_ctx_unclone(ctx);
	/* sample_freq in frequency mode: the tick adjusts the period to it */
	event->attr.sample_period = op->value;
	if (event->attr.freq)
		return 0;

	if (active)
		event->pmu->stop(event, PERF_EF_UPDATE);
	event->hw.sample_period = op->value;
	/* the new period starts now */
	local64_set(&event->hw.period_left, op->value);
	if (active)
		event->pmu->start(event, PERF_EF_RELOAD);
	perf_event_update_userpage(event);
	return 0;
}

/**
 * perf_event_ctl_period - set a new sample period (or frequency)
 * @event: a sampling event
 * @value: the new period, or frequency when attr.freq is set
 *
 * Only sampling events have one. In frequency mode the value is a rate
 * bounded by perf_event_max_sample_rate.
 */
int perf_event_ctl_period(struct perf_event *event, u64 value)
{
	struct perf_period_op op = { .value = value };
	struct perf_event_context *ctx;
	int err;

	if (!is_sampling_event(event))
		return -EINVAL;
	if (!value)
		return -EINVAL;
	if (event->attr.freq) {
		if (value > sysctl_perf_event_sample_rate)
			return -EINVAL;
	} else if (value & (1ULL << 63)) {
		return -EINVAL;
	}

	if (event->pmu->check_period) {
		err = event->pmu->check_period(event, value);
		if (err)
			return -EINVAL;
	}

	ctx = perf_event_ctx_lock(event);
	op.event = event;
	perf_ctx_call(ctx, __perf_event_period, &op);
	mutex_lock(&event->child_mutex);
	list_for_each_entry(op.event, &event->child_list, child_entry)
		perf_ctx_call(op.event->ctx, __perf_event_period, &op);
	mutex_unlock(&event->child_mutex);
	mutex_unlock(&ctx->mutex);
	return 0;
}

/**
 * perf_event_group_lock - keep @leader's sibling list as it is
 * @leader: a group leader, attached to its context
 * @flags: where to keep the IRQ state
 *
 * For a PMU's event_init, which runs before the core holds any lock of
 * the group's context and may want to look at the other members: the
 * core links and unlinks siblings under ctx->lock. Nothing may sleep
 * until perf_event_group_unlock(). The lock is perf_ctx_lock()'s, which
 * settles the leader's context if it dozes (harmless: its next switch in
 * activates it the usual way).
 *
 * Return: the context locked, to pass to perf_event_group_unlock(); NULL
 * (nothing locked) for a leader in no context.
 */
struct perf_event_context *perf_event_group_lock(struct perf_event *leader,
						 unsigned long *flags)
{
	struct perf_event_context *ctx;

	/* a CPU-wide group may move to another CPU's context meanwhile */
	for (;;) {
		ctx = READ_ONCE(leader->ctx);
		if (!ctx)
			return NULL;
		perf_ctx_lock_irqsave(ctx, *flags);
		if (ctx == READ_ONCE(leader->ctx))
			return ctx;
		perf_ctx_unlock_irqrestore(ctx, *flags);
	}
}

void perf_event_group_unlock(struct perf_event_context *ctx,
			     unsigned long flags)
{
	if (ctx)
		perf_ctx_unlock_irqrestore(ctx, flags);
}

/**
 * perf_event_enable - enable an in-kernel event
 * @event: the event
 */
void perf_event_enable(struct perf_event *event)
{
	perf_event_ctl_enable(event, false);
}
EXPORT_SYMBOL_GPL(perf_event_enable);

/**
 * perf_event_disable - disable an in-kernel event; may sleep
 * @event: the event
 */
void perf_event_disable(struct perf_event *event)
{
	perf_event_ctl_disable(event, false);
}
EXPORT_SYMBOL_GPL(perf_event_disable);

/**
 * perf_event_disable_local - disable an event of this CPU's live context
 * @event: the event
 *
 * For callers already on the right CPU with IRQs off (overflow handlers).
 */
void perf_event_disable_local(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;
	unsigned long flags;

	perf_ctx_lock_irqsave(ctx, flags);
	/*
	 * A tracepoint hit about another task (tracepoint.c) overflows an
	 * event on no PMU, whose context may be live on another CPU: its
	 * clock is that CPU's to advance.
	 */
	if (ctx->active_cpu == smp_processor_id())
		perf_ctx_update_time(ctx);
	__perf_event_disable(ctx, event);
	perf_ctx_unlock_irqrestore(ctx, flags);
}

/**
 * perf_event_period - change the period of an in-kernel sampling event
 * @event: the event
 * @value: the new period (or frequency)
 */
int perf_event_period(struct perf_event *event, u64 value)
{
	return perf_event_ctl_period(event, value);
}
EXPORT_SYMBOL_GPL(perf_event_period);
