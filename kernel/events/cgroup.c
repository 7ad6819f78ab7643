// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup events and the clocks of the perf_event cgroup controller.
 *
 * perf_event_open() with PERF_FLAG_PID_CGROUP takes a cgroup directory's
 * fd for pid and a CPU: the event lives in that CPU's context and counts
 * only while the task running there is in the cgroup or below it. Its
 * times are the cgroup's: time_enabled advances only while the cgroup is
 * active on that CPU, so that a multiplexed cgroup event scales by the
 * cgroup's own time, not the CPU's.
 *
 * Each perf cgroup keeps a clock per CPU that runs while a task of the
 * cgroup or a descendant is current there. The CPU context remembers the
 * cgroup whose chain of clocks is running (cpuctx->cgrp). Only CPUs with
 * cgroup events look at cgroups at all: at each task switch in, when the
 * incoming task's cgroup differs, the cgroup groups of the CPU context
 * are taken off, the clocks handed over at one instant, and the CPU
 * context is scheduled in again (before the task context, which keeps
 * the usual priority order). A task moved to another cgroup while
 * running is handed over by an IPI to its CPU. That switch and the
 * controller's callbacks are entry points (cgroup_hooks.c); this file
 * keeps the clocks and the cgroup of an event, in the time layer, and
 * calls nothing above it.
 *
 * Everything here runs under the CPU context's lock with IRQs off, on
 * that CPU, but for opening and freeing events and the controller's
 * allocation.
 */
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "layer/time.h"

static struct perf_cgroup *css_perf(struct cgroup_subsys_state *css)
{
	return css ? container_of(css, struct perf_cgroup, css) : NULL;
}

static struct perf_cgroup *perf_cgroup_of(struct task_struct *task)
{
	return css_perf(task_css_check(task, perf_event_cgrp_id, true));
}

static struct perf_cpu_context *perf_cpuctx_of(struct perf_event_context *ctx)
{
	return container_of(ctx, struct perf_cpu_context, ctx);
}

/* bring the running clocks of @cgrp and its ancestors to @now */
static void perf_cgroup_clocks_update(struct perf_cgroup *cgrp, int cpu,
				      u64 now)
{
	struct perf_cgroup_clock *c;

	for (; cgrp; cgrp = perf_cgroup_up(cgrp)) {
		c = per_cpu_ptr(cgrp->clock, cpu);
		if (c->active) {
			c->time += now - c->timestamp;
			c->timestamp = now;
		}
	}
}

/* start or stop the clocks of @cgrp and its ancestors at @now */
static void perf_cgroup_clocks_set(struct perf_cgroup *cgrp, int cpu,
				   u64 now, bool on)
{
	struct perf_cgroup_clock *c;

	for (; cgrp; cgrp = perf_cgroup_up(cgrp)) {
		c = per_cpu_ptr(cgrp->clock, cpu);
		if (c->active)
			c->time += now - c->timestamp;
		c->timestamp = now;
		c->active = on;
	}
}

/**
 * perf_cgroup_update_time - a CPU context's clock was brought to @now
 * @ctx: the CPU context
 * @now: its new timestamp
 *
 * The clocks of the cgroups active on its CPU follow, at the same instant,
 * so that a cgroup event and the CPU's other events agree.
 */
void perf_cgroup_update_time(struct perf_event_context *ctx, u64 now)
{
	struct perf_cpu_context *cpuctx = perf_cpuctx_of(ctx);

	if (cpuctx->cgrp)
		perf_cgroup_clocks_update(cpuctx->cgrp, ctx->cpu, now);
}

/* make @next the cgroup running on this CPU; ctx->lock held */
static void perf_cgroup_set(struct perf_cpu_context *cpuctx,
			    struct perf_cgroup *next, u64 now)
{
	int cpu = cpuctx->ctx.cpu;

	if (cpuctx->cgrp)
		perf_cgroup_clocks_set(cpuctx->cgrp, cpu, now, false);
	cpuctx->cgrp = next;
	if (next)
		perf_cgroup_clocks_set(next, cpu, now, true);
}

/**
 * perf_cgroup_time - the clock a cgroup event's times follow
 * @event: a cgroup event
 *
 * As of the last update of its CPU context (ctx->lock held), like
 * perf_ctx_time_now().
 */
u64 perf_cgroup_time(struct perf_event *event)
{
	return per_cpu_ptr(event->cgrp->clock, event->cpu)->time;
}

/**
 * perf_cgroup_time_live - the same, as of now, without locks
 * @event: a cgroup event
 *
 * For samples and the control page (interrupt and NMI context).
 */
u64 perf_cgroup_time_live(struct perf_event *event)
{
	struct perf_cgroup_clock *c = per_cpu_ptr(event->cgrp->clock,
						  event->cpu);
	u64 time = READ_ONCE(c->time);

	if (READ_ONCE(c->active))
		time += perf_clock() - READ_ONCE(c->timestamp);
	return time;
}

/**
 * perf_cgroup_match - may cgroup event @event count on this CPU now?
 * @event: a cgroup event
 *
 * While the current task's cgroup is the event's or below it.
 */
bool perf_cgroup_match(struct perf_event *event)
{
	struct perf_cgroup *cur = this_cpu_ptr(&perf_cpu_context)->cgrp;

	return cur && cgroup_is_descendant(cur->css.cgroup,
					   event->cgrp->css.cgroup);
}

/**
 * perf_cgroup_changes - would @task switch this CPU's cgroup clocks?
 * @cpuctx: this CPU's context
 * @task: the task now current
 *
 * A lockless look, before the lock: the cgroup core may move @task
 * meanwhile, and then sends the resync IPI (cgroup_hooks.c), which looks
 * again; perf_cgroup_set_current() reads @task's cgroup afresh.
 */
bool perf_cgroup_changes(struct perf_cpu_context *cpuctx,
			 struct task_struct *task)
{
	return perf_cgroup_of(task) != cpuctx->cgrp;
}

/**
 * perf_cgroup_set_current - hand this CPU's cgroup clocks to @task's cgroup
 * @cpuctx: this CPU's context, whose lock is held
 * @task: the task now current
 * @now: the instant of the hand-over
 */
void perf_cgroup_set_current(struct perf_cpu_context *cpuctx,
			     struct task_struct *task, u64 now)
{
	lockdep_assert_held(&cpuctx->ctx.lock);
	perf_cgroup_set(cpuctx, perf_cgroup_of(task), now);
}

/**
 * perf_cgroup_ctx_activate - the CPU context of this CPU goes live
 * @ctx: this CPU's CPU context, whose lock is held
 * @on: true when it goes live, false when it stops
 *
 * Or stops (@on false: the CPU goes down), and the clocks of its
 * cgroups with it, at the context's timestamp.
 */
void perf_cgroup_ctx_activate(struct perf_event_context *ctx, bool on)
{
	struct perf_cpu_context *cpuctx = perf_cpuctx_of(ctx);

	if (!cpuctx->nr_cgroups && !cpuctx->cgrp)
		return;
	perf_cgroup_set(cpuctx, on ? perf_cgroup_of(current) : NULL,
			ctx->timestamp);
}

/**
 * perf_cgroup_event_link - a cgroup event joins or leaves a CPU context
 * @ctx: the CPU context, whose lock is held
 * @delta: 1 or -1
 *
 * The first one starts the clocks of the current task's cgroup where the
 * context is live; after the last one the CPU stops looking at cgroups.
 */
void perf_cgroup_event_link(struct perf_event_context *ctx, int delta)
{
	struct perf_cpu_context *cpuctx = perf_cpuctx_of(ctx);

	cpuctx->nr_cgroups += delta;
	if (delta > 0 && cpuctx->nr_cgroups == 1 && ctx->is_active &&
	    ctx->cpu == smp_processor_id())
		perf_cgroup_set(cpuctx, perf_cgroup_of(current), perf_clock());
	else if (!cpuctx->nr_cgroups && cpuctx->cgrp)
		perf_cgroup_set(cpuctx, NULL, perf_clock());
}

/**
 * perf_cgroup_bind - make @event a cgroup event of @css's cgroup
 * @event: a new event, bound to a CPU, not yet installed
 * @css: the perf_event state of the cgroup, with a reference that
 *	passes to @event (or is dropped on failure)
 * @leader: the group it joins, or NULL
 *
 * Return: 0, or -EINVAL when @leader watches another cgroup.
 */
int perf_cgroup_bind(struct perf_event *event, struct cgroup_subsys_state *css,
		     struct perf_event *leader)
{
	if (leader && leader != event && leader->cgrp != css_perf(css)) {
		css_put(css);
		return -EINVAL;
	}
	event->cgrp = css_perf(css);
	/* the scheduler hooks must now run for every task switch */
	static_branch_inc(&perf_sched_events);
	return 0;
}

/**
 * perf_cgroup_detach - @event, being freed, lets go of its cgroup
 * @event: the event being freed
 */
void perf_cgroup_detach(struct perf_event *event)
{
	if (!event->cgrp)
		return;
	css_put(&event->cgrp->css);
	event->cgrp = NULL;
	static_branch_dec(&perf_sched_events);
}

/**
 * perf_cgroup_group_link - a cgroup group joins its CPU context's groups
 * @leader: its leader, a cgroup event, now in the context's group lists
 *
 * The CPU context's lock is held. Its members watch the same cgroup.
 */
void perf_cgroup_group_link(struct perf_event *leader)
{
	struct perf_cgroup_clock *c = per_cpu_ptr(leader->cgrp->clock,
						  leader->cpu);

	list_add_tail(&leader->cgrp_entry,
		      leader->attr.pinned ? &c->pinned : &c->flexible);
}

/**
 * perf_cgroup_group_unlink - a cgroup group leaves its CPU context's groups
 * @leader: its leader, off the context's group lists
 */
void perf_cgroup_group_unlink(struct perf_event *leader)
{
	list_del_init(&leader->cgrp_entry);
}

/**
 * perf_cgroup_sample_id - PERF_SAMPLE_CGROUP of a sample taken now
 *
 * The id of the perf_event cgroup of the current task.
 */
u64 perf_cgroup_sample_id(void)
{
	return cgroup_id(task_css_check(current, perf_event_cgrp_id,
					true)->cgroup);
}

/**
 * perf_cgroup_css_alloc - the controller's state of a new cgroup
 * @parent: its parent's (unused: each cgroup's clocks are its own)
 *
 * Return: the state, or ERR_PTR(-ENOMEM).
 */
struct cgroup_subsys_state *
perf_cgroup_css_alloc(struct cgroup_subsys_state *parent)
{
	struct perf_cgroup *cgrp = kzalloc(sizeof(*cgrp), GFP_KERNEL);
	int cpu;

	if (!cgrp)
		return ERR_PTR(-ENOMEM);
	cgrp->clock = alloc_percpu(struct perf_cgroup_clock);
	if (!cgrp->clock) {
		kfree(cgrp);
		return ERR_PTR(-ENOMEM);
	}
	for_each_possible_cpu(cpu) {
		struct perf_cgroup_clock *c = per_cpu_ptr(cgrp->clock, cpu);

		INIT_LIST_HEAD(&c->pinned);
		INIT_LIST_HEAD(&c->flexible);
	}
	return &cgrp->css;
}

/**
 * perf_cgroup_css_free - free what perf_cgroup_css_alloc() made
 * @css: the state
 */
void perf_cgroup_css_free(struct cgroup_subsys_state *css)
{
	struct perf_cgroup *cgrp = css_perf(css);

	free_percpu(cgrp->clock);
	kfree(cgrp);
}
