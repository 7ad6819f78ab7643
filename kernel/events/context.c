// SPDX-License-Identifier: GPL-2.0
/*
 * Contexts: creating and finding them, and running a function on the CPU
 * where a context is live.
 *
 * A context's event lists and states are changed only under ctx->lock,
 * and only on the CPU where the context is active (or anywhere when it is
 * not active). perf_ctx_call() finds that CPU and sends an IPI there;
 * because the scheduler takes ctx->lock to switch a task context in or
 * out, the called function sees a stable answer to "is it active here".
 * If the task moved in between, the call is retried.
 */
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sched/task.h>
#include <linux/sched/signal.h>
#include <linux/wait_bit.h>

#include "layer/contexts.h"

static void perf_ctx_init(struct perf_event_context *ctx,
			  struct task_struct *task, int cpu)
{
	raw_spin_lock_init(&ctx->lock);
	mutex_init(&ctx->mutex);
	INIT_LIST_HEAD(&ctx->event_list);
	INIT_LIST_HEAD(&ctx->pinned_groups);
	INIT_LIST_HEAD(&ctx->flexible_groups);
	refcount_set(&ctx->refcount, 1);
	ctx->task = task;
	ctx->home = task;
	ctx->cpu = cpu;
	ctx->active_cpu = -1;
	ctx->last_rotation = jiffies;
}

/**
 * perf_ctx_alloc - a new, empty context for @task (or CPU @cpu)
 * @task: the task it is for, or NULL for a CPU context
 * @cpu: the CPU of a CPU context, -1 for a task's
 */
struct perf_event_context *perf_ctx_alloc(struct task_struct *task, int cpu)
{
	struct perf_event_context *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return NULL;
	perf_ctx_init(ctx, task, cpu);
	if (task) {
		get_task_struct(task);
		static_branch_inc(&perf_sched_events);
	}
	return ctx;
}

void perf_ctx_get(struct perf_event_context *ctx)
{
	refcount_inc(&ctx->refcount);
}

static void perf_ctx_free_rcu(struct rcu_head *head)
{
	struct perf_event_context *ctx;

	ctx = container_of(head, struct perf_event_context, rcu_head);
	kfree(ctx->task_data);
	kfree(ctx);
}

/*
 * The scheduler reads task->perf_event_ctxp without locks, so the memory
 * stays until an RCU grace period has passed. The last put runs in
 * process context: it drops a static key, which sleeps.
 */
void perf_ctx_put(struct perf_event_context *ctx)
{
	/* read while ours holds it: another put may free it after ours */
	bool task_ctx = ctx->task;

	if (!refcount_dec_and_test(&ctx->refcount)) {
		/*
		 * perf_event_free_task() may wait for the last user of a task
		 * context. Not a CPU context's: scope.c drops those under a
		 * raw ctx->lock, where the wait queue's lock may not nest.
		 */
		if (task_ctx)
			wake_up_var(&ctx->refcount);
		return;
	}
	/* CPU contexts are static and never reach zero */
	if (WARN_ON_ONCE(!ctx->task))
		return;
	WARN_ON_ONCE(ctx->is_active);
	put_task_struct(ctx->home);
	static_branch_dec(&perf_sched_events);
	call_rcu(&ctx->rcu_head, perf_ctx_free_rcu);
}

/*
 * CPU contexts' mutexes are a lock class of their own. Device PMU drivers
 * (and scope.c) move events between CPU contexts from CPU hotplug
 * callbacks, under the hotplug lock; task contexts' mutexes are held
 * where an event's init or destroy takes event_mutex, which nests the
 * hotplug lock inside (tracepoint registration). One class for both
 * would be a cycle to lockdep; no code holds a CPU context's mutex
 * around anything that takes the hotplug lock.
 */
static struct lock_class_key perf_cpu_ctx_mutex_key;

void __init perf_cpu_contexts_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct perf_cpu_context *cpuctx = per_cpu_ptr(&perf_cpu_context,
							      cpu);

		perf_ctx_init(&cpuctx->ctx, NULL, cpu);
		lockdep_set_class(&cpuctx->ctx.mutex, &perf_cpu_ctx_mutex_key);
	}
}

/**
 * perf_find_get_context - the context an event for (@task, @cpu) joins
 * @task: the task monitored, or NULL for a CPU-wide event
 * @cpu: the CPU, for a CPU-wide event
 *
 * Creates the task's context on first use. Returns it with a reference
 * held, or an ERR_PTR: -ESRCH when the task is exiting, -ENODEV for an
 * offline CPU. The open path takes the task's own context home first
 * (perf_open_context()).
 */
struct perf_event_context *perf_find_get_context(struct task_struct *task,
						 int cpu)
{
	struct perf_event_context *ctx, *new = NULL;

	if (!task) {
		struct perf_cpu_context *cpuctx;

		cpuctx = per_cpu_ptr(&perf_cpu_context, cpu);
		if (!cpu_online(cpu))
			return ERR_PTR(-ENODEV);
		perf_ctx_get(&cpuctx->ctx);
		return &cpuctx->ctx;
	}

	new = perf_ctx_alloc(task, -1);
	if (!new)
		return ERR_PTR(-ENOMEM);

	mutex_lock(&task->perf_event_mutex);
	if (task->flags & PF_EXITING) {
		ctx = ERR_PTR(-ESRCH);
	} else if (task->perf_event_ctxp) {
		ctx = task->perf_event_ctxp;
		perf_ctx_get(ctx);
	} else {
		ctx = new;
		new = NULL;
		perf_ctx_get(ctx);	/* the task's reference */
		rcu_assign_pointer(task->perf_event_ctxp, ctx);
	}
	mutex_unlock(&task->perf_event_mutex);

	if (new) {
		/* lost the race to create it, or the task is exiting */
		refcount_set(&new->refcount, 1);
		perf_ctx_put(new);
	}
	return ctx;
}

struct perf_remote_call {
	struct perf_event_context	*ctx;
	perf_ctx_fn			fn;
	void				*info;
	int				ret;
	bool				moved;
};

/*
 * ctx->lock held, IRQs off: is @ctx live on this CPU? A task context
 * whose task runs here but that is not active (the task was switched in
 * while its context was empty, or did not exist yet) is activated now,
 * as the scheduler would have.
 */
static __always_inline bool perf_ctx_live_here(struct perf_event_context *ctx)
{
	if (!ctx->is_active && ctx->task == current && !ctx->dead &&
	    !ctx->frozen)
		perf_ctx_activate_here(ctx);
	return ctx->is_active && ctx->active_cpu == smp_processor_id();
}

static void perf_remote_call_fn(void *data)
{
	struct perf_remote_call *rc = data;
	struct perf_event_context *ctx = rc->ctx;

	perf_ctx_lock(ctx);
	if (perf_ctx_live_here(ctx))
		rc->ret = rc->fn(ctx, rc->info);
	else if (!ctx->is_active && ctx->frozen)
		rc->ret = rc->fn(ctx, rc->info);	/* live nowhere */
	else
		rc->moved = true;
	perf_ctx_unlock(ctx);
}

/**
 * perf_ctx_call - run @fn on @ctx where it is live, with ctx->lock held
 * @ctx: the context
 * @fn: the function to run
 * @info: passed to @fn
 *
 * @fn runs with IRQs off: on the CPU where the context is active, or on
 * this CPU if the context is not active anywhere. The context of a task
 * that is running is made active first, so @fn can start events at once.
 * Must be called from process context; the caller normally holds
 * ctx->mutex.
 */
int perf_ctx_call(struct perf_event_context *ctx, perf_ctx_fn fn, void *info)
{
	struct perf_remote_call rc = { .ctx = ctx, .fn = fn, .info = info };
	int cpu;

	for (;;) {
		perf_ctx_lock_irq(ctx);
		/*
		 * Live on this CPU (the common case: a task reading or
		 * enabling its own events): with ctx->lock held and IRQs
		 * off it cannot be switched out, so run @fn right here
		 * rather than through a self-IPI that would take the lock
		 * again.
		 */
		if (perf_ctx_live_here(ctx)) {
			rc.ret = fn(ctx, info);
			perf_ctx_unlock_irq(ctx);
			return rc.ret;
		}
		if (ctx->is_active) {
			cpu = ctx->active_cpu;
		} else if (ctx->task && !ctx->dead && !ctx->frozen &&
			   task_curr(ctx->task)) {
			cpu = task_cpu(ctx->task);
		} else {
			rc.ret = fn(ctx, info);
			perf_ctx_unlock_irq(ctx);
			return rc.ret;
		}
		perf_ctx_unlock_irq(ctx);

		rc.moved = false;
		if (smp_call_function_single(cpu, perf_remote_call_fn, &rc, 1))
			rc.moved = true;
		if (!rc.moved)
			return rc.ret;
		cond_resched();
	}
}

static bool perf_event_is_cpu_tp(struct perf_event *event)
{
	return event->attr.type == PERF_TYPE_TRACEPOINT && event->cpu != -1;
}

/* Take an event off ctx->event_list and out of the counts. */
static void perf_ctx_list_del(struct perf_event_context *ctx,
			      struct perf_event *event)
{
	list_del_init(&event->event_entry);
	ctx->nr_events--;
	if (event->hw.flags & PERF_EVENT_FLAG_USER_READ_CNT)
		ctx->nr_user--;
	if (perf_event_dozy(event))
		ctx->nr_dozy--;
	if (event->attach_state & PERF_ATTACH_SCHED_CB)
		ctx->nr_sched_cb--;
	perf_ctx_unclone(ctx);
	if (perf_event_is_cgroup(event))
		perf_cgroup_event_link(ctx, -1);
	if (perf_event_is_cpu_tp(event))
		ctx->nr_cpu_tp--;
}

/*
 * The PMUs of a hybrid CPU's kinds of core (x86 cpu_core and cpu_atom)
 * keep one state per task for the one branch stack of whatever CPU runs
 * it: the same sched_task() and data serve both, called once a switch
 */
static bool perf_task_data_shared(struct pmu *a, struct pmu *b)
{
	return a == b || (a->sched_task == b->sched_task &&
			  a->task_ctx_size == b->task_ctx_size);
}

/**
 * perf_ctx_prepare_task_data - room for the PMU's data before @event joins
 * @ctx: the task context @event is about to join
 * @event: the event; a PMU's event_init set PERF_ATTACH_SCHED_CB on it
 *	if it wants sched_task() at each switch of the task
 *
 * Allocates task_ctx_size bytes once per context, before ctx->lock is
 * taken (the joining happens with interrupts off). One PMU per context
 * keeps such data: the CPU's (or the CPU's kinds of core, sharing it).
 * Called with ctx->mutex held, or on a context no one else sees yet
 * (fork).
 *
 * Return: 0, -ENOMEM, or -EBUSY if another PMU's data is there.
 */
int perf_ctx_prepare_task_data(struct perf_event_context *ctx,
			       struct perf_event *event)
{
	struct pmu *pmu = event->pmu;
	void *data;

	if (!(event->attach_state & PERF_ATTACH_SCHED_CB))
		return 0;
	if (ctx->task_data)
		return perf_task_data_shared(ctx->sched_cb_pmu, pmu) ? 0 : -EBUSY;
	data = kzalloc(pmu->task_ctx_size, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	perf_ctx_lock_irq(ctx);
	ctx->sched_cb_pmu = pmu;
	ctx->task_data = data;
	perf_ctx_unlock_irq(ctx);
	return 0;
}

/**
 * perf_ctx_task_data - the data a PMU keeps in a task context
 * @ctx: the context passed to the PMU's sched_task()
 *
 * Return: the pmu->task_ctx_size bytes, zeroed when the first event that
 * asked for them joined; NULL for none.
 */
void *perf_ctx_task_data(struct perf_event_context *ctx)
{
	return ctx->task_data;
}

struct perf_event_context *perf_cpu_task_ctx(void)
{
	lockdep_assert_irqs_disabled();
	return this_cpu_ptr(&perf_cpu_context)->task_ctx;
}

/* Link an event into a context's lists. ctx->lock held. */
void perf_ctx_add_event_locked(struct perf_event_context *ctx,
			       struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;

	lockdep_assert_held(&ctx->lock);

	if (perf_event_is_cgroup(event)) {
		perf_cgroup_event_link(ctx, 1);
		event->tstamp = perf_cgroup_time(event);
	} else {
		event->tstamp = perf_ctx_time_now(ctx);
	}
	list_add_tail(&event->event_entry, &ctx->event_list);
	ctx->nr_events++;
	if (event->hw.flags & PERF_EVENT_FLAG_USER_READ_CNT)
		ctx->nr_user++;
	if (perf_event_dozy(event))
		ctx->nr_dozy++;
	if (event->attach_state & PERF_ATTACH_SCHED_CB) {
		/* perf_ctx_prepare_task_data() made room for it */
		ctx->nr_sched_cb++;
		ctx->sched_cb_pmu = event->pmu;
	}
	perf_ctx_unclone(ctx);
	if (perf_event_is_cpu_tp(event))
		ctx->nr_cpu_tp++;

	if (leader == event) {
		if (event->attr.pinned)
			list_add_tail(&event->group_entry, &ctx->pinned_groups);
		else
			list_add_tail(&event->group_entry,
				      &ctx->flexible_groups);
		if (perf_event_is_cgroup(event))
			perf_cgroup_group_link(event);
	} else {
		list_add_tail(&event->sibling_entry, &leader->sibling_list);
		leader->nr_siblings++;
	}
}

/*
 * Take an event of a dead context off the context's lists, leaving its
 * group as it is: its fd still reads the group, with final counts, until
 * it is closed. ctx->lock held.
 */
void perf_ctx_unlink_event_locked(struct perf_event_context *ctx,
				  struct perf_event *event)
{
	lockdep_assert_held(&ctx->lock);
	perf_ctx_list_del(ctx, event);
	if (perf_event_is_group_leader(event)) {
		list_del_init(&event->group_entry);
		if (perf_event_is_cgroup(event))
			perf_cgroup_group_unlink(event);
	}
}

/* Break an unlinked event out of its group, when its fd is closed. */
static void perf_event_group_detach(struct perf_event_context *ctx,
				    struct perf_event *event)
{
	struct perf_event *sibling, *tmp;

	perf_ctx_lock_irq(ctx);
	if (perf_event_is_group_leader(event)) {
		list_for_each_entry_safe(sibling, tmp, &event->sibling_list,
					 sibling_entry) {
			list_del_init(&sibling->sibling_entry);
			/* its times so far follow the old leader's state */
			perf_event_update_times(sibling);
			sibling->group_leader = sibling;
			/*
			 * One that counts only as a member (Intel's top-down
			 * metrics) is done: the error state, read gives 0
			 */
			if (sibling->event_caps & PERF_EV_CAP_SIBLING) {
				perf_event_sched_out(ctx, sibling);
				perf_event_set_state(sibling,
						     PERF_EVENT_STATE_ERROR);
			}
		}
		event->nr_siblings = 0;
	} else {
		list_del_init(&event->sibling_entry);
		event->group_leader->nr_siblings--;
		perf_event_update_times(event);
		event->group_leader = event;
	}
	perf_ctx_unlock_irq(ctx);
}

/* Unlink an event (already off the PMU). ctx->lock held. */
void perf_ctx_del_event_locked(struct perf_event_context *ctx,
			       struct perf_event *event)
{
	struct perf_event *sibling, *tmp;

	lockdep_assert_held(&ctx->lock);

	perf_ctx_list_del(ctx, event);

	if (perf_event_is_group_leader(event)) {
		list_del_init(&event->group_entry);
		if (perf_event_is_cgroup(event))
			perf_cgroup_group_unlink(event);
		/*
		 * The siblings of a removed leader become singleton groups,
		 * as they would if they had been opened alone.
		 */
		list_for_each_entry_safe(sibling, tmp, &event->sibling_list,
					 sibling_entry) {
			list_del_init(&sibling->sibling_entry);
			/* its times so far follow the old leader's state */
			perf_event_update_times(sibling);
			sibling->group_leader = sibling;
			/*
			 * One that counts only as a member (Intel's top-down
			 * metrics) is done: the error state, read gives 0
			 */
			if (sibling->event_caps & PERF_EV_CAP_SIBLING) {
				perf_event_sched_out(ctx, sibling);
				perf_event_set_state(sibling,
						     PERF_EVENT_STATE_ERROR);
			}
			if (sibling->attr.pinned)
				list_add_tail(&sibling->group_entry,
					      &ctx->pinned_groups);
			else
				list_add_tail(&sibling->group_entry,
					      &ctx->flexible_groups);
			if (perf_event_is_cgroup(sibling))
				perf_cgroup_group_link(sibling);
		}
		event->nr_siblings = 0;
	} else {
		list_del_init(&event->sibling_entry);
		event->group_leader->nr_siblings--;
		perf_event_update_times(event);
		/* out of the group for good: a later detach must not recount */
		event->group_leader = event;
	}
	/*
	 * No flexible group left, nothing waits for a rotation: a need (and
	 * its interval) noted for events now gone must not rotate the next
	 * ones at that interval
	 */
	if (list_empty(&ctx->flexible_groups))
		ctx->rotate_necessary = false;
}

/**
 * perf_event_ctx_lock - lock the context @event is in, and return it
 * @event: the event
 *
 * An event of a CPU-wide device PMU may move to another CPU's context
 * (perf_pmu_migrate_context()), which changes event->ctx under both
 * contexts' mutexes: whoever reads it to take the mutex must check it
 * again once holding it. Contexts an event may move between are static
 * (per CPU), so the stale one is safe to lock. Returns NULL for an event
 * that never joined a context.
 */
struct perf_event_context *perf_event_ctx_lock(struct perf_event *event)
{
	struct perf_event_context *ctx;

	for (;;) {
		ctx = READ_ONCE(event->ctx);
		if (!ctx)
			return NULL;
		mutex_lock(&ctx->mutex);
		if (ctx == READ_ONCE(event->ctx))
			return ctx;
		mutex_unlock(&ctx->mutex);
	}
}

static int __perf_install_event(struct perf_event_context *ctx, void *info)
{
	struct perf_event *event = info;
	struct perf_event *leader = event->group_leader;

	if (ctx->dead)
		return -ESRCH;
	/* perf_ctx_pin_home() kept it from being lent since the lookup */
	if (WARN_ON_ONCE(ctx->task != ctx->home))
		return -EAGAIN;
	/*
	 * A CPU on its way down has turned its events off for good; one
	 * opened after that (cpu_online() holds until the CPU is torn down)
	 * does not join them, as the CPU's context takes none in 6.12.
	 */
	if (!ctx->task &&
	    !container_of(ctx, struct perf_cpu_context, ctx)->online)
		return -ENODEV;

	perf_ctx_update_time(ctx);
	perf_ctx_add_event_locked(ctx, event);

	if (!ctx->is_active || event->state != PERF_EVENT_STATE_INACTIVE)
		return 0;

	if (leader == event) {
		if (event->attr.pinned)
			perf_ctx_sched_in_pinned(ctx, event);
		else
			perf_group_sched_in(ctx, event);
	} else if (leader->state == PERF_EVENT_STATE_ACTIVE) {
		/* a sibling joining a live group goes straight on */
		perf_event_sched_in(ctx, event);
	}
	return 0;
}

/**
 * perf_install_event - add @event to @ctx and start it if it should run
 * @ctx: the context, with a reference held by the caller
 * @event: the new event
 *
 * Takes ownership of the caller's context reference on success.
 * ctx->mutex must be held. Returns -ESRCH if the task has exited.
 */
int perf_install_event(struct perf_event_context *ctx,
		       struct perf_event *event)
{
	int err;

	lockdep_assert_held(&ctx->mutex);
	err = perf_ctx_prepare_task_data(ctx, event);
	if (err)
		return err;
	event->ctx = ctx;
	err = perf_ctx_call(ctx, __perf_install_event, event);
	if (err)
		event->ctx = NULL;
	return err;
}

static int __perf_remove_event(struct perf_event_context *ctx, void *info)
{
	struct perf_event *event = info;
	bool promotes = perf_event_is_group_leader(event) && event->nr_siblings;

	perf_ctx_update_time(ctx);
	if (perf_event_is_group_leader(event))
		perf_group_sched_out(ctx, event);
	else
		perf_event_sched_out(ctx, event);
	perf_event_update_times(event);
	perf_ctx_del_event_locked(ctx, event);
	/* a removed leader's siblings carry on as groups of their own */
	if (promotes && ctx->is_active)
		perf_ctx_sched_in(ctx);
	return 0;
}

/**
 * perf_remove_event - take @event off its context
 * @event: the event
 *
 * ctx->mutex must be held. The event keeps its count and times, and its
 * context reference, which the caller drops.
 */
void perf_remove_event(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;

	lockdep_assert_held(&ctx->mutex);
	if (list_empty(&event->event_entry)) {
		perf_event_group_detach(ctx, event);
		return;
	}
	perf_ctx_call(ctx, __perf_remove_event, event);
}
