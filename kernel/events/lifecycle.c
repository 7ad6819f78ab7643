// SPDX-License-Identifier: GPL-2.0
/*
 * An event's life: allocation from an attr (binding to a PMU, the AUX
 * checks, the header sizes, the cgroup, the callchain buffers and the
 * clock, in 6.12's order of errors), joining its context (with the group
 * rules), release and freeing; and the in-kernel counter API on them
 * (perf_event_create_kernel_counter(), perf_event_release_kernel()), which
 * the syscall, the fd's release and hw_breakpoint use alike.
 *
 * An entry point: everything an event takes on the way in comes from the
 * layers below, and goes back on the way out. An event is freed in two
 * steps: the last reference drop (process context, may sleep) releases
 * the PMU and static keys; the memory itself goes after an RCU grace
 * period, because the software event hooks may still be walking a
 * per-CPU list that held the event.
 */
#include <linux/slab.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/security.h>

#include "layer/entry.h"

static atomic64_t perf_event_next_id;
/**
 * perf_event_alloc - create an event from a validated attr
 * @attr: the event's configuration, already checked by the syscall layer
 * @cpu: the CPU it counts on, or -1
 * @task: the task it follows, or NULL for a CPU event
 * @group_leader: its group's leader, or NULL to lead its own group
 * @parent: the event it is inherited from, or NULL
 * @handler: overflow handler of an in-kernel user, or NULL
 * @context: passed to @handler
 * @cgroup_fd: the fd of a cgroup event's cgroup directory, or -1
 *
 * May sleep. Returns the event with one reference, or an ERR_PTR.
 */
struct perf_event *perf_event_alloc(struct perf_event_attr *attr, int cpu,
				    struct task_struct *task,
				    struct perf_event *group_leader,
				    struct perf_event *parent,
				    perf_overflow_handler_t handler,
				    void *context, int cgroup_fd)
{
	struct perf_event *event;
	int err;

	event = kzalloc(sizeof(*event), GFP_KERNEL);
	if (!event)
		return ERR_PTR(-ENOMEM);

	INIT_LIST_HEAD(&event->event_entry);
	INIT_LIST_HEAD(&event->group_entry);
#ifdef CONFIG_CGROUP_PERF
	INIT_LIST_HEAD(&event->cgrp_entry);
#endif
	INIT_LIST_HEAD(&event->sibling_list);
	INIT_LIST_HEAD(&event->sibling_entry);
	INIT_LIST_HEAD(&event->active_entry);
	INIT_LIST_HEAD(&event->child_list);
	INIT_LIST_HEAD(&event->owner_entry);
	INIT_LIST_HEAD(&event->rb_entry);
	INIT_HLIST_NODE(&event->hlist_entry);
	mutex_init(&event->child_mutex);
	mutex_init(&event->mmap_mutex);
	init_waitqueue_head(&event->waitq);
	refcount_set(&event->refcount, 1);
	event->rb_detach_gp = get_completed_synchronize_rcu();

	event->attr = *attr;
	event->cpu = cpu;
	event->oncpu = -1;
	event->group_leader = group_leader ? group_leader : event;
	event->parent = parent;
	event->hw.target = task;
	event->ns = get_pid_ns(task_active_pid_ns(current));
	event->id = atomic64_inc_return(&perf_event_next_id);
	event->overflow_handler = handler;
	event->overflow_handler_context = context;
	atomic_set(&event->event_limit, 0);

	if (attr->disabled)
		event->state = PERF_EVENT_STATE_OFF;
	else
		event->state = PERF_EVENT_STATE_INACTIVE;

	if (!attr->freq)
		event->hw.sample_period = attr->sample_period;
	event->hw.last_period = event->hw.sample_period;
	local64_set(&event->hw.period_left, event->hw.sample_period);

	if (task) {
		get_task_struct(task);
		event->attach_state |= PERF_ATTACH_TASK;
	}

	event->pmu = perf_pmu_find(event);
	if (IS_ERR(event->pmu)) {
		err = PTR_ERR(event->pmu);
		event->pmu = NULL;
		goto err_task;
	}

	/*
	 * Steering an AUX area (aux_output, and pausing or resuming it on
	 * overflow) takes a PMU that offers it; none of ours does.
	 */
	if (event->attr.aux_output &&
	    (!(event->pmu->capabilities & PERF_PMU_CAP_AUX_OUTPUT) ||
	     event->attr.aux_pause || event->attr.aux_resume)) {
		err = -EOPNOTSUPP;
		goto err_pmu;
	}
	if (event->attr.aux_pause && event->attr.aux_resume) {
		err = -EINVAL;
		goto err_pmu;
	}
	if (event->attr.aux_start_paused &&
	    !(event->pmu->capabilities & PERF_PMU_CAP_AUX_PAUSE)) {
		err = -EOPNOTSUPP;
		goto err_pmu;
	}
	/* pause and resume act on the AUX event leading the group: none */
	if (event->attr.aux_pause || event->attr.aux_resume) {
		err = -EINVAL;
		goto err_pmu;
	}


	err = security_perf_event_alloc(event);
	if (err)
		goto err_pmu;

	perf_event_header_sizes(event);
	perf_event_wakeup_init(event);
	perf_sb_account(event, 1);
	/* a bad cgroup fd is answered before the callchain and the clock */
	if (cgroup_fd != -1) {
		err = perf_cgroup_connect(event, cgroup_fd, group_leader);
		if (err) {
			perf_event_free(event);
			return ERR_PTR(err);
		}
	}
	if (event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) {
		err = perf_callchain_get(event);
		if (err) {
			perf_event_free(event);
			return ERR_PTR(err);
		}
		event->attach_state |= PERF_ATTACH_CALLCHAIN;
	}
	/* the clock is checked last, as 6.12 does, after the callchain */
	err = perf_event_set_clock(event);
	if (err) {
		perf_event_free(event);
		return ERR_PTR(err);
	}
	if (parent)
		perf_event_inherit_bpf_prog(event, parent);
	return event;

err_pmu:
	if (event->destroy)
		event->destroy(event);
	perf_pmu_exclusive_put(event);
	module_put(event->pmu->module);
err_task:
	if (task)
		put_task_struct(task);
	put_pid_ns(event->ns);
	kfree(event);
	return ERR_PTR(err);
}

static void perf_event_free_rcu(struct rcu_head *head)
{
	kfree(container_of(head, struct perf_event, rcu_head));
}

/**
 * perf_event_free - release everything an unlinked event holds
 * @event: the event
 *
 * The event must be off every context list. Process context only.
 */
void perf_event_free(struct perf_event *event)
{
	/* fully constructed events only: see perf_event_alloc() */
	perf_event_release_buffer(event);
	perf_event_sigtrap_cancel(event);
	perf_sb_account(event, -1);
	/* only what was taken: an alloc can fail before or in the get */
	if (event->attach_state & PERF_ATTACH_CALLCHAIN)
		perf_callchain_put(event);
	/* a tracing event's program leaves its trace event before it goes */
	if (IS_ENABLED(CONFIG_BPF_SYSCALL))
		perf_event_free_bpf_prog(event);
	if (event->destroy)
		event->destroy(event);
	perf_addr_filters_free(event);
	security_perf_event_free(event);
	perf_cgroup_detach(event);
	if (event->pmu) {
		perf_pmu_exclusive_put(event);
		module_put(event->pmu->module);
	}
	if (event->hw.target)
		put_task_struct(event->hw.target);
	if (event->parent)
		perf_event_put(event->parent);
	put_pid_ns(event->ns);
	call_rcu(&event->rcu_head, perf_event_free_rcu);
}

/*
 * A group's read (and a PERF_SAMPLE_READ sample of it) grows with every
 * member; beyond this the u16 size of a sample record could wrap.
 */
#define PERF_GROUP_READ_MAX	(16 * 1024)

static bool perf_read_too_big(struct perf_event *member, int nr)
{
	return perf_read_format_size(member->attr.read_format, nr) >
	       PERF_GROUP_READ_MAX;
}

/* Would the read of any member outgrow the limit with @nr members? */
static bool perf_group_too_big(struct perf_event *event,
			       struct perf_event *leader, int nr)
{
	struct perf_event *sibling;

	if (perf_read_too_big(event, nr) || perf_read_too_big(leader, nr))
		return true;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		if (perf_read_too_big(sibling, nr))
			return true;
	return false;
}

static int perf_check_group(struct perf_event *event,
			    struct perf_event *leader,
			    struct perf_event_context *ctx)
{
	struct perf_event *sibling;

	if (!perf_event_is_group_leader(leader))
		return -EINVAL;
	/*
	 * A leader that stopped following its task (exit, remove_on_exec)
	 * is off the context's lists: a member joining it would never be
	 * scheduled with it, or out again when the task goes.
	 */
	if (leader->state == PERF_EVENT_STATE_EXIT)
		return -ENODEV;
	if (leader->ctx != ctx || leader->cpu != event->cpu)
		return -EINVAL;
	/* one clock for the times of all the group's records */
	if (leader->clock != event->clock)
		return -EINVAL;
	if (event->attr.pinned || event->attr.exclusive)
		return -EINVAL;
	if (perf_group_too_big(event, leader, leader->nr_siblings + 2))
		return -E2BIG;
	if (is_software_event(event))
		return 0;
	if (!is_software_event(leader) && leader->pmu != event->pmu)
		return -EINVAL;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		if (!is_software_event(sibling) && sibling->pmu != event->pmu)
			return -EINVAL;
	}
	return 0;
}

/**
 * perf_open_context - the context a new event for (@task, @cpu) joins
 * @task: the task it follows, or NULL
 * @cpu: its CPU (any CPU's number for a task event)
 *
 * An event on @task counts @task: a context lent to another task at a
 * switch (Documentation/perf-core/ctx-swap.rst) comes home first.
 * Returns the context with a reference, or an ERR_PTR.
 */
struct perf_event_context *perf_open_context(struct task_struct *task,
						    int cpu)
{
	if (task)
		perf_ctx_unswap(task);
	return perf_find_get_context(task, cpu);
}

/**
 * perf_event_attach - put a new event into its context
 * @event: the event
 * @leader: the group it joins (its rules are checked here), or NULL
 * @task: the task it follows, or NULL
 * @ctx: from perf_open_context(); its reference passes to the event, or
 *	is dropped on failure
 *
 * The context found for @task may have been lent away since
 * (perf_ctx_pin_home()): then it is looked up again.
 */
int perf_event_attach(struct perf_event *event,
			     struct perf_event *leader,
			     struct task_struct *task,
			     struct perf_event_context *ctx)
{
	int err = 0;

	for (;;) {
		mutex_lock(&ctx->mutex);
		if (!task || perf_ctx_pin_home(ctx, task))
			break;
		mutex_unlock(&ctx->mutex);
		perf_ctx_put(ctx);
		ctx = perf_open_context(task, event->cpu);
		if (IS_ERR(ctx))
			return PTR_ERR(ctx);
	}
	if (leader)
		err = perf_check_group(event, leader, ctx);
	/* one event of an exclusive PMU a context and CPU (6.12: EBUSY) */
	if (!err && is_exclusive_pmu(event->pmu) &&
	    !perf_pmu_exclusive_installable(event, ctx))
		err = -EBUSY;
	if (!err)
		err = perf_install_event(ctx, event);
	mutex_unlock(&ctx->mutex);
	if (err)
		perf_ctx_put(ctx);
	return err;
}

/* the owner's list (PR_TASK_PERF_EVENTS_*) lets go of @event */
static void perf_event_clear_owner(struct perf_event *event)
{
	struct task_struct *owner = event->owner;

	if (!owner)
		return;
	mutex_lock(&owner->perf_event_mutex);
	list_del_init(&event->owner_entry);
	mutex_unlock(&owner->perf_event_mutex);
	event->owner = NULL;
	put_task_struct(owner);
}

/*
 * Remove the children an event passed on by inheritance from the contexts
 * of the tasks that still run them. Lock order: the child's ctx->mutex,
 * then the parent's child_mutex, as at exit.
 */
static void perf_event_remove_children(struct perf_event *event)
{
	struct perf_event_context *cctx;
	struct perf_event *child;

	mutex_lock(&event->child_mutex);
	while (!list_empty(&event->child_list)) {
		child = list_first_entry(&event->child_list, struct perf_event,
					 child_entry);
		cctx = child->ctx;
		perf_ctx_get(cctx);
		perf_event_hold(child);
		mutex_unlock(&event->child_mutex);

		mutex_lock(&cctx->mutex);
		mutex_lock(&event->child_mutex);
		if (!list_empty(&child->child_entry)) {
			list_del_init(&child->child_entry);
			mutex_unlock(&event->child_mutex);
			perf_remove_event(child);
			perf_ctx_put(cctx);	/* the child's own */
			perf_event_put(child);	/* the context's */
		} else {
			/* its task exited and folded it meanwhile */
			mutex_unlock(&event->child_mutex);
		}
		mutex_unlock(&cctx->mutex);
		perf_event_put(child);
		perf_ctx_put(cctx);
		mutex_lock(&event->child_mutex);
	}
	mutex_unlock(&event->child_mutex);
}

/**
 * perf_event_release_kernel - tear down an event and drop its fd's reference
 * @event: the event
 *
 * For in-kernel users, and the fd's release. May sleep.
 */
int perf_event_release_kernel(struct perf_event *event)
{
	struct perf_event_context *ctx;

	perf_event_clear_owner(event);
	ctx = perf_event_ctx_lock(event);
	if (ctx) {
		perf_remove_event(event);
		mutex_unlock(&ctx->mutex);
	}
	perf_event_remove_children(event);
	if (ctx)
		perf_ctx_put(ctx);
	perf_event_put(event);
	return 0;
}
EXPORT_SYMBOL_GPL(perf_event_release_kernel);

/**
 * perf_event_create_kernel_counter - an event for an in-kernel user
 * @attr: the configuration; not checked against user access rules
 * @cpu: the CPU to count on, or -1 with @task
 * @task: the task to follow, or NULL for a CPU event
 * @overflow_handler: called on each overflow of a sampling event
 * @context: for @overflow_handler
 *
 * Returns the event, or an ERR_PTR. Release with
 * perf_event_release_kernel().
 */
struct perf_event *
perf_event_create_kernel_counter(struct perf_event_attr *attr, int cpu,
				 struct task_struct *task,
				 perf_overflow_handler_t overflow_handler,
				 void *context)
{
	struct perf_event_context *ctx;
	struct perf_event *event;
	int err;

	if (!task && (cpu < 0 || cpu >= nr_cpu_ids))
		return ERR_PTR(-EINVAL);

	event = perf_event_alloc(attr, cpu, task, NULL, NULL,
				 overflow_handler, context, -1);
	if (IS_ERR(event))
		return event;

	ctx = perf_open_context(task, event->cpu == -1 ? 0 : event->cpu);
	if (IS_ERR(ctx)) {
		perf_event_put(event);
		return ERR_CAST(ctx);
	}

	err = perf_event_attach(event, NULL, task, ctx);
	if (err) {
		perf_event_put(event);
		return ERR_PTR(err);
	}
	return event;
}
EXPORT_SYMBOL_GPL(perf_event_create_kernel_counter);
