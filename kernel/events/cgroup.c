// SPDX-License-Identifier: GPL-2.0
/*
 * The perf_event cgroup controller and cgroup events.
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
 * running is handed over by an IPI to its CPU.
 *
 * Everything here runs under the CPU context's lock with IRQs off, on
 * that CPU, but for opening and freeing events and the controller's
 * callbacks.
 */
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "internal.h"

/* one CPU's clock of a cgroup */
struct perf_cgroup_clock {
	u64	time;
	u64	timestamp;
	bool	active;
};

struct perf_cgroup {
	struct cgroup_subsys_state	css;
	struct perf_cgroup_clock __percpu *clock;
};

static struct perf_cgroup *css_perf(struct cgroup_subsys_state *css)
{
	return css ? container_of(css, struct perf_cgroup, css) : NULL;
}

static struct perf_cgroup *perf_cgroup_of(struct task_struct *task)
{
	return css_perf(task_css_check(task, perf_event_cgrp_id, true));
}

static struct perf_cgroup *perf_cgroup_parent(struct perf_cgroup *cgrp)
{
	return css_perf(cgrp->css.parent);
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

	for (; cgrp; cgrp = perf_cgroup_parent(cgrp)) {
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

	for (; cgrp; cgrp = perf_cgroup_parent(cgrp)) {
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

/*
 * The task now current here is in @next: hand the CPU context's cgroup
 * groups over. ctx->lock held, IRQs off.
 */
static void perf_cgroup_switch(struct perf_cpu_context *cpuctx,
			       struct perf_cgroup *next)
{
	struct perf_event_context *ctx = &cpuctx->ctx;
	struct perf_event *leader;

	/* not live (CPU going down): the clocks stopped with it */
	if (!ctx->is_active)
		return;
	perf_ctx_update_time(ctx);
	list_for_each_entry(leader, &ctx->pinned_groups, group_entry)
		if (leader->cgrp)
			perf_group_sched_out(ctx, leader);
	list_for_each_entry(leader, &ctx->flexible_groups, group_entry)
		if (leader->cgrp)
			perf_group_sched_out(ctx, leader);
	perf_cgroup_set(cpuctx, next, ctx->timestamp);
	perf_ctx_sched_in(ctx);
}

/**
 * __perf_cgroup_sched_in - @task is now current on this CPU
 * @task: the task
 *
 * Called from the scheduler hook with IRQs off, before @task's own
 * context goes in; and from the IPI that follows a running task into
 * another cgroup.
 */
void __perf_cgroup_sched_in(struct task_struct *task)
{
	struct perf_cpu_context *cpuctx = this_cpu_ptr(&perf_cpu_context);
	struct perf_cgroup *next;

	if (!READ_ONCE(cpuctx->nr_cgroups))
		return;
	next = perf_cgroup_of(task);
	if (next == cpuctx->cgrp)
		return;
	raw_spin_lock(&cpuctx->ctx.lock);
	if (cpuctx->nr_cgroups)
		perf_cgroup_switch(cpuctx, next);
	raw_spin_unlock(&cpuctx->ctx.lock);
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
 * perf_cgroup_connect - make @event a cgroup event
 * @event: a new event, bound to a CPU, not yet installed
 * @fd: a directory of a cgroup hierarchy that has the perf_event
 *	controller (cgroup v2: any)
 * @leader: the group it joins, or NULL
 *
 * Return: 0, -EBADF for a bad fd, -EINVAL when @fd is not such a
 * directory, @leader watches another cgroup or @event's PMU has no task
 * context.
 */
int perf_cgroup_connect(struct perf_event *event, int fd,
			struct perf_event *leader)
{
	CLASS(fd, f)(fd);
	struct cgroup_subsys_state *css;

	/*
	 * A PMU without task context counts a die or package shared with
	 * other CPUs, whatever task runs on this one: no cgroup to follow.
	 * Before the fd, as 6.12 answers this ahead of a bad fd.
	 */
	if (event->pmu->task_ctx_nr == perf_invalid_context)
		return -EINVAL;
	if (fd_empty(f))
		return -EBADF;
	css = css_tryget_online_from_dir(fd_file(f)->f_path.dentry,
					 &perf_event_cgrp_subsys);
	if (IS_ERR(css))
		return PTR_ERR(css);
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
 * perf_cgroup_sample_id - PERF_SAMPLE_CGROUP of a sample taken now
 *
 * The id of the perf_event cgroup of the current task.
 */
u64 perf_cgroup_sample_id(void)
{
	return cgroup_id(task_css_check(current, perf_event_cgrp_id,
					true)->cgroup);
}

static struct cgroup_subsys_state *
perf_cgroup_css_alloc(struct cgroup_subsys_state *parent)
{
	struct perf_cgroup *cgrp = kzalloc(sizeof(*cgrp), GFP_KERNEL);

	if (!cgrp)
		return ERR_PTR(-ENOMEM);
	cgrp->clock = alloc_percpu(struct perf_cgroup_clock);
	if (!cgrp->clock) {
		kfree(cgrp);
		return ERR_PTR(-ENOMEM);
	}
	return &cgrp->css;
}

static void perf_cgroup_css_free(struct cgroup_subsys_state *css)
{
	struct perf_cgroup *cgrp = css_perf(css);

	free_percpu(cgrp->clock);
	kfree(cgrp);
}

static int perf_cgroup_css_online(struct cgroup_subsys_state *css)
{
	perf_event_cgroup_record(css->cgroup);
	return 0;
}

static void perf_cgroup_resync(void *info)
{
	struct task_struct *task = info;

	if (task == current)
		perf_cgroup_sched_in(task);
}

/*
 * Tasks moved into another cgroup: a running one is handed over on its
 * CPU now; the others are at their next switch in.
 */
static void perf_cgroup_attach(struct cgroup_taskset *tset)
{
	struct cgroup_subsys_state *css;
	struct task_struct *task;

	cgroup_taskset_for_each(task, css, tset) {
		if (task_curr(task))
			smp_call_function_single(task_cpu(task),
						 perf_cgroup_resync, task, 1);
	}
}

struct cgroup_subsys perf_event_cgrp_subsys = {
	.css_alloc	= perf_cgroup_css_alloc,
	.css_free	= perf_cgroup_css_free,
	.css_online	= perf_cgroup_css_online,
	.attach		= perf_cgroup_attach,
	/* on cgroup v2 without being enabled in subtree_control */
	.implicit_on_dfl = true,
	.threaded	= true,
};
