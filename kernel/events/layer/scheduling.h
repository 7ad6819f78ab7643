/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduling layer of the perf core (sched.c): events and groups put
 * on and off their PMUs, contexts scheduled in and out, rotation, the
 * dozing of clock-only contexts, and ctx->lock itself (perf_ctx_lock()),
 * which settles a dozing context. The functions below take a context
 * whose lock is held, IRQs off, unless they say otherwise.
 */
#ifndef _KERNEL_EVENTS_LAYER_SCHEDULING_H
#define _KERNEL_EVENTS_LAYER_SCHEDULING_H

#include "records.h"

/* hw.interrupts of an event that overflowed too often in its tick */
#define PERF_THROTTLED		(~0ULL)

void perf_event_set_group_state(struct perf_event *event,
				enum perf_event_state state);

/*
 * An event's new state, its times accounted up to now under the old one
 * (a leader with members: theirs too, perf_event_set_group_state())
 */
static __always_inline void perf_event_set_state(struct perf_event *event,
						 enum perf_event_state state)
{
	if (unlikely(!list_empty(&event->sibling_list))) {
		perf_event_set_group_state(event, state);
		return;
	}
	perf_event_update_times(event);
	event->state = state;
}
struct pmu *perf_group_pmu(struct perf_event *leader);
int perf_group_sched_in(struct perf_event_context *ctx,
			struct perf_event *leader);
void perf_group_sched_out(struct perf_event_context *ctx,
			  struct perf_event *leader);
void perf_event_sched_out(struct perf_event_context *ctx,
			  struct perf_event *event);
int perf_event_sched_in(struct perf_event_context *ctx,
			struct perf_event *event);
void perf_ctx_sched_in(struct perf_event_context *ctx);

/**
 * perf_flexible_sched_in - offer one flexible group its PMU, in a walk
 * @ctx: the group's context
 * @leader: the group's leader
 * @full: the walk's state: the PMU a group of the walk did not fit on
 *	(NULL at the start)
 *
 * As in 6.12, once a hardware group does not fit, the walk offers that
 * PMU no more groups: they wait for rotation, and a walk over many
 * groups costs one failed attempt, not one per group.
 */
static __always_inline void perf_flexible_sched_in(struct perf_event_context *ctx,
						   struct perf_event *leader,
						   struct pmu **full)
{
	if (leader->pmu == *full)
		return;
	if (perf_group_sched_in(ctx, leader) && !is_software_event(leader))
		*full = leader->pmu;
}
void perf_ctx_sched_in_pinned(struct perf_event_context *ctx,
			      struct perf_event *leader);
void perf_ctx_sched_out(struct perf_event_context *ctx);
void perf_ctx_settle(struct perf_event_context *ctx);

/*
 * May @event stay on while its task is switched out (a dozing context)?
 * A clock that only counts (cpu-clock or task-clock: no period, no timer,
 * not pinned or exclusive, any CPU, no cgroup) needs nothing of the CPU
 * it was on: stopped and restarted at the same instants, it gives what
 * taking it off and putting it back gives. A buffer can come later;
 * perf_ctx_doze() looks for one. Inline: every open and close asks.
 */
static inline bool perf_event_dozy(struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;

	return perf_event_is_swclock(event) &&
	       !is_sampling_event(event) && !attr->pinned &&
	       !attr->exclusive && event->cpu == -1 &&
	       !perf_event_is_cgroup(event);
}

/* ctx->lock held: a dozing context gets its events off first */
static inline void perf_ctx_settle_if_dozing(struct perf_event_context *ctx)
{
	if (unlikely(ctx->dozing))
		perf_ctx_settle(ctx);
}

/*
 * ctx->lock, taken to look at or change a context's lists and states: a
 * dozing context is settled first, so that past these nothing sees one.
 * Only the switch hooks (hooks.c), which put a context to doze and wake
 * it, the swap protocol (swap.c), which holds two contexts' locks at
 * once, and the side-band records (records.c, below scheduling, for
 * whose readers a dozing context holds nothing) take the lock by hand; a
 * CPU context nested in a task context's lock (SINGLE_DEPTH_NESTING)
 * does too.
 */
static inline void perf_ctx_lock(struct perf_event_context *ctx)
{
	raw_spin_lock(&ctx->lock);
	perf_ctx_settle_if_dozing(ctx);
}

static inline void perf_ctx_unlock(struct perf_event_context *ctx)
{
	raw_spin_unlock(&ctx->lock);
}

static inline void perf_ctx_lock_irq(struct perf_event_context *ctx)
{
	raw_spin_lock_irq(&ctx->lock);
	perf_ctx_settle_if_dozing(ctx);
}

static inline void perf_ctx_unlock_irq(struct perf_event_context *ctx)
{
	raw_spin_unlock_irq(&ctx->lock);
}

#define perf_ctx_lock_irqsave(ctx, flags)			\
	do {							\
		raw_spin_lock_irqsave(&(ctx)->lock, flags);	\
		perf_ctx_settle_if_dozing(ctx);				\
	} while (0)

static inline void perf_ctx_unlock_irqrestore(struct perf_event_context *ctx,
					      unsigned long flags)
{
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
}
void perf_ctx_resched(struct perf_event_context *ctx);
void perf_ctx_activate_here(struct perf_event_context *ctx);
void perf_ctx_activate(struct perf_event_context *ctx, u64 now);
void perf_ctx_rotate_tick(struct perf_event_context *ctx);
void perf_cpu_ctx_online(void);
void perf_cpu_ctx_offline(void);
bool perf_event_filter_match(struct perf_event *event);

/*
 * The task of active @ctx switches: its PMU that asked for it keeps what
 * it needs (sched_in false: before the events leave the PMU, true: after
 * they came back). ctx->lock held, IRQs off.
 */
static inline void perf_ctx_sched_task(struct perf_event_context *ctx,
				       bool sched_in)
{
	if (ctx->nr_sched_cb && ctx->sched_cb_pmu->sched_task)
		ctx->sched_cb_pmu->sched_task(ctx, sched_in);
}

#endif /* _KERNEL_EVENTS_LAYER_SCHEDULING_H */
