/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The time layer of the perf core (time.c cgroup.c): clocks, context and
 * event times, the control page, and cgroup events' clocks. Below
 * scheduling, which reads the times it sets.
 */
#ifndef _KERNEL_EVENTS_LAYER_TIME_H
#define _KERNEL_EVENTS_LAYER_TIME_H

#include <linux/cgroup-defs.h>
#include <linux/percpu.h>

#include "object.h"

/* the clock of event times */
static inline u64 perf_clock(void)
{
	return local_clock();
}

/* time.c */
DECLARE_PER_CPU(u64, perf_swclock_now);

/*
 * The clock events started, stopped or read from here on take @now as
 * the present (a context's time was just taken at @now): returns the
 * instant set before, for the caller to put back.
 */
static inline u64 perf_swclock_set(u64 now)
{
	u64 saved = __this_cpu_read(perf_swclock_now);

	__this_cpu_write(perf_swclock_now, now);
	return saved;
}
int perf_event_set_clock(struct perf_event *event);

/*
 * The context time as of its last update. Every operation under
 * ctx->lock updates it once first, so all events touched by one
 * operation see the same instant and a group's members keep equal times.
 */
static inline u64 perf_ctx_time_now(struct perf_event_context *ctx)
{
	return ctx->time;
}
void perf_ctx_update_time(struct perf_event_context *ctx);
/*
 * The state an event's times follow: a group member counts no time,
 * enabled or running, while its leader is off (or in error), whatever its
 * own state, as in 6.12: a member's time_enabled is the time its group
 * was enabled.
 */
static inline enum perf_event_state
perf_event_effective_state(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;
	enum perf_event_state lstate;

	/* lockless readers (NMI, the control page) too: one load each */
	if (leader && leader != event) {
		lstate = READ_ONCE(leader->state);
		if (lstate <= PERF_EVENT_STATE_OFF)
			return lstate;
	}
	return READ_ONCE(event->state);
}

void perf_event_update_times(struct perf_event *event);

/* perf_event_update_times() of an event in @state as of context time @now */
static inline void perf_event_update_times_at(struct perf_event *event,
					      enum perf_event_state state,
					      u64 now)
{
	u64 delta = now - event->tstamp;

	event->tstamp = now;
	if (state >= PERF_EVENT_STATE_INACTIVE)
		event->total_time_enabled += delta;
	if (state == PERF_EVENT_STATE_ACTIVE)
		event->total_time_running += delta;
}
void perf_event_times_now(struct perf_event *event, u64 *enabled,
			  u64 *running);
void perf_event_times_at(struct perf_event *event, u64 clock, u64 *enabled,
			 u64 *running);

/* cgroup.c: cgroup events (PERF_FLAG_PID_CGROUP), their clocks */
#ifdef CONFIG_CGROUP_PERF
void perf_cgroup_update_time(struct perf_event_context *ctx, u64 now);
u64 perf_cgroup_time(struct perf_event *event);
u64 perf_cgroup_time_live(struct perf_event *event);
bool perf_cgroup_match(struct perf_event *event);
bool perf_cgroup_changes(struct perf_cpu_context *cpuctx,
			 struct task_struct *task);
void perf_cgroup_set_current(struct perf_cpu_context *cpuctx,
			     struct task_struct *task, u64 now);
struct cgroup_subsys_state *
perf_cgroup_css_alloc(struct cgroup_subsys_state *parent);
void perf_cgroup_css_free(struct cgroup_subsys_state *css);
int perf_cgroup_bind(struct perf_event *event, struct cgroup_subsys_state *css,
		     struct perf_event *leader);
void perf_cgroup_ctx_activate(struct perf_event_context *ctx, bool on);
void perf_cgroup_event_link(struct perf_event_context *ctx, int delta);
void perf_cgroup_detach(struct perf_event *event);
u64 perf_cgroup_sample_id(void);
void perf_cgroup_group_link(struct perf_event *leader);
void perf_cgroup_group_unlink(struct perf_event *leader);

/*
 * One CPU's clock of a cgroup, and the groups that watch the cgroup on
 * that CPU (their leaders, in the CPU context's lists too), so that a
 * cgroup switch touches only the two cgroups' chains (cgroup_hooks.c)
 */
struct perf_cgroup_clock {
	u64			time;
	u64			timestamp;
	bool			active;
	struct list_head	pinned;
	struct list_head	flexible;
};

struct perf_cgroup {
	struct cgroup_subsys_state	css;
	struct perf_cgroup_clock __percpu *clock;
};

/* the parent of @cgrp (whose groups count in @cgrp too), NULL at the root */
static inline struct perf_cgroup *perf_cgroup_up(struct perf_cgroup *cgrp)
{
	struct cgroup_subsys_state *parent = cgrp->css.parent;

	return parent ? container_of(parent, struct perf_cgroup, css) : NULL;
}

/*
 * The leaders of the pinned or flexible groups that watch @cgrp in the
 * CPU context of @cpu (its lock held), linked by cgrp_entry
 */
static inline struct list_head *perf_cgroup_groups(struct perf_cgroup *cgrp,
						   int cpu, bool pinned)
{
	struct perf_cgroup_clock *c = per_cpu_ptr(cgrp->clock, cpu);

	return pinned ? &c->pinned : &c->flexible;
}

static inline bool perf_event_is_cgroup(struct perf_event *event)
{
	return event->cgrp;
}
#else
static inline void perf_cgroup_update_time(struct perf_event_context *ctx,
					   u64 now) { }
static inline u64 perf_cgroup_time(struct perf_event *event) { return 0; }
static inline u64 perf_cgroup_time_live(struct perf_event *event)
{
	return 0;
}
static inline bool perf_cgroup_match(struct perf_event *event)
{
	return true;
}
static inline void perf_cgroup_ctx_activate(struct perf_event_context *ctx,
					    bool on) { }
static inline void perf_cgroup_event_link(struct perf_event_context *ctx,
					  int delta) { }
static inline void perf_cgroup_detach(struct perf_event *event) { }
static inline u64 perf_cgroup_sample_id(void) { return 0; }
static inline void perf_cgroup_group_link(struct perf_event *leader) { }
static inline void perf_cgroup_group_unlink(struct perf_event *leader) { }

static inline bool perf_event_is_cgroup(struct perf_event *event)
{
	return false;
}
#endif

#endif /* _KERNEL_EVENTS_LAYER_TIME_H */
