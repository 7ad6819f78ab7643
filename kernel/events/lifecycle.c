// SPDX-License-Identifier: GPL-2.0
/*
 * An event's life: allocation from an attr (binding to a PMU, the AUX
 * checks, the header sizes, the cgroup, the callchain buffers and the
 * clock, in 6.12's order of errors) and freeing.
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

#include "internal.h"

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
	security_perf_event_free(event);
	perf_cgroup_detach(event);
	if (event->pmu)
		module_put(event->pmu->module);
	if (event->hw.target)
		put_task_struct(event->hw.target);
	if (event->parent)
		perf_event_put(event->parent);
	put_pid_ns(event->ns);
	call_rcu(&event->rcu_head, perf_event_free_rcu);
}
