// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup hooks: the scheduler switching a CPU to a task of another
 * cgroup, the perf_event controller's callbacks (a cgroup created,
 * tasks moved between cgroups), and an event opened on a cgroup's fd.
 *
 * An entry point: these call scheduling (the CPU context's cgroup groups
 * go off and on) and records (CGROUP). The clocks of the cgroups and the
 * cgroup of an event are cgroup.c's, in the time layer below.
 */
#include <linux/cgroup.h>
#include <linux/file.h>
#include <linux/smp.h>

#include "layer/entry.h"

/*
 * The groups of the cgroups in @cgrp's chain (it and its ancestors: the
 * ones that count while a task of @cgrp runs) off the PMUs, or on:
 * pinned groups before flexible ones, as a full schedule-in would.
 */
static void perf_cgroup_chain_out(struct perf_event_context *ctx,
				  struct perf_cgroup *cgrp)
{
	struct perf_event *leader;
	struct perf_cgroup *c;

	for (c = cgrp; c; c = perf_cgroup_up(c)) {
		list_for_each_entry(leader, perf_cgroup_groups(c, ctx->cpu, true),
				    cgrp_entry)
			perf_group_sched_out(ctx, leader);
		list_for_each_entry(leader, perf_cgroup_groups(c, ctx->cpu, false),
				    cgrp_entry)
			perf_group_sched_out(ctx, leader);
	}
}

static void perf_cgroup_chain_in(struct perf_event_context *ctx,
				 struct perf_cgroup *cgrp)
{
	struct perf_event *leader;
	struct perf_cgroup *c;
	struct pmu *full = NULL;

	for (c = cgrp; c; c = perf_cgroup_up(c))
		list_for_each_entry(leader, perf_cgroup_groups(c, ctx->cpu, true),
				    cgrp_entry)
			perf_group_sched_in(ctx, leader);
	for (c = cgrp; c; c = perf_cgroup_up(c))
		list_for_each_entry(leader, perf_cgroup_groups(c, ctx->cpu, false),
				    cgrp_entry)
			perf_flexible_sched_in(ctx, leader, &full);
}

/*
 * @task, now current here, is in another cgroup: hand the CPU context's
 * cgroup groups over. ctx->lock held, IRQs off.
 *
 * Only the groups that watch the old cgroup's chain can be on, and only
 * those of the new chain can go on, so the switch costs the two chains'
 * groups, not every cgroup group of the CPU (Documentation/perf-core/
 * design.rst, "Cgroup switches"). When the context's flexible groups
 * overcommit its PMUs, the counters freed go in the context's order
 * instead (rotation's order), which walks every group.
 */
static void perf_cgroup_switch(struct perf_cpu_context *cpuctx,
			       struct task_struct *task)
{
	struct perf_event_context *ctx = &cpuctx->ctx;

	/* not live (CPU going down): the clocks stopped with it */
	if (!ctx->is_active)
		return;
	perf_ctx_update_time(ctx);
	perf_cgroup_chain_out(ctx, cpuctx->cgrp);
	perf_cgroup_set_current(cpuctx, task, ctx->timestamp);
	if (ctx->rotate_necessary)
		perf_ctx_sched_in(ctx);
	else
		perf_cgroup_chain_in(ctx, cpuctx->cgrp);
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

	if (!READ_ONCE(cpuctx->nr_cgroups) ||
	    !perf_cgroup_changes(cpuctx, task))
		return;
	perf_ctx_lock(&cpuctx->ctx);
	if (cpuctx->nr_cgroups)
		perf_cgroup_switch(cpuctx, task);
	perf_ctx_unlock(&cpuctx->ctx);
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
	return perf_cgroup_bind(event, css, leader);
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
