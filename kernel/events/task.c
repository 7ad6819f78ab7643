// SPDX-License-Identifier: GPL-2.0
/*
 * Events and the life of a task: inheritance at fork, folding children's
 * counts back into their parents at exit, enable_on_exec at exec, and the
 * prctl that switches a task's own events on and off.
 *
 * All of it runs in process context and may sleep. The exiting (or
 * exec'ing) task is current, so its context is switched out locally.
 */
#include <linux/sched/task.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "layer/entry.h"

/* @task's context with a reference, or NULL if it has none. */
static struct perf_event_context *perf_task_ctx_get(struct task_struct *task)
{
	struct perf_event_context *ctx;

	mutex_lock(&task->perf_event_mutex);
	ctx = task->perf_event_ctxp;
	if (ctx)
		perf_ctx_get(ctx);
	mutex_unlock(&task->perf_event_mutex);
	return ctx;
}

/* The original event a chain of inheritance started from. */
static struct perf_event *perf_event_origin(struct perf_event *event)
{
	return event->parent ? event->parent : event;
}

/*
 * Create the child's copy of one event. The copy counts for the origin
 * event, holds a reference on it, and starts in the state the parent is
 * in, so a disabled event is inherited disabled.
 */
static struct perf_event *
perf_inherit_event(struct perf_event *parent_event,
		   struct task_struct *child,
		   struct perf_event_context *child_ctx,
		   struct perf_event *child_leader)
{
	struct perf_event *origin = perf_event_origin(parent_event);
	struct perf_event *child_event;
	int err;

	child_event = perf_event_alloc(&parent_event->attr, parent_event->cpu,
				       child, child_leader, origin,
				       origin->overflow_handler,
				       origin->overflow_handler_context, -1);
	if (IS_ERR(child_event))
		return child_event;
	/* the copy's reference on its origin: perf_event_free() drops it */
	perf_event_hold(origin);
	err = perf_addr_filters_inherit(child_event, parent_event);
	if (!err)
		err = perf_ctx_prepare_task_data(child_ctx, child_event);
	if (err) {
		perf_event_free(child_event);
		return ERR_PTR(err);
	}

	if (parent_event->state >= PERF_EVENT_STATE_INACTIVE)
		child_event->state = PERF_EVENT_STATE_INACTIVE;
	else
		child_event->state = PERF_EVENT_STATE_OFF;
	child_event->hw.sample_period = parent_event->hw.sample_period;
	/* a frequency event goes on from its parent's period, not a guess */
	if (parent_event->attr.freq) {
		child_event->hw.last_period = parent_event->hw.sample_period;
		local64_set(&child_event->hw.period_left,
			    parent_event->hw.sample_period);
	}
	child_event->ctx = child_ctx;

	/* the child is not running yet: no IPI needed */
	perf_ctx_lock_irq(child_ctx);
	perf_ctx_add_event_locked(child_ctx, child_event);
	perf_ctx_unlock_irq(child_ctx);
	perf_ctx_get(child_ctx);

	mutex_lock(&origin->child_mutex);
	list_add_tail(&child_event->child_entry, &origin->child_list);
	mutex_unlock(&origin->child_mutex);
	return child_event;
}

static int perf_inherit_group(struct perf_event *leader,
			      struct task_struct *child,
			      struct perf_event_context *child_ctx)
{
	struct perf_event *child_leader, *sibling, *child_sibling;

	child_leader = perf_inherit_event(leader, child, child_ctx, NULL);
	if (IS_ERR(child_leader))
		return PTR_ERR(child_leader);

	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		child_sibling = perf_inherit_event(sibling, child, child_ctx,
						   child_leader);
		if (IS_ERR(child_sibling))
			return PTR_ERR(child_sibling);
	}
	return 0;
}

static bool perf_group_inherits(struct perf_event *leader, u64 clone_flags)
{
	if (!leader->attr.inherit)
		return false;
	if (leader->attr.inherit_thread && !(clone_flags & CLONE_THREAD))
		return false;
	return leader->state != PERF_EVENT_STATE_EXIT &&
	       leader->state != PERF_EVENT_STATE_DEAD;
}

static int perf_inherit_list(struct list_head *groups,
			     struct task_struct *child,
			     struct perf_event_context **child_ctx,
			     u64 clone_flags)
{
	struct perf_event *leader;
	int err;

	list_for_each_entry(leader, groups, group_entry) {
		if (!perf_group_inherits(leader, clone_flags))
			continue;
		if (!*child_ctx) {
			*child_ctx = perf_ctx_alloc(child, -1);
			if (!*child_ctx)
				return -ENOMEM;
			child->perf_event_ctxp = *child_ctx;
		}
		err = perf_inherit_group(leader, child, *child_ctx);
		if (err)
			return err;
	}
	return 0;
}

/**
 * perf_event_init_task - set up a new task's perf state at fork
 * @child: the new task, not yet running
 * @clone_flags: the clone flags, for inherit_thread
 *
 * Copies every inheritable group of the parent (current) into a new
 * context of the child. On failure it undoes what it made itself
 * (copy_process() calls perf_event_free_task() only for later steps).
 *
 * Return: 0, or -ENOMEM (or a PMU's error for an event's copy).
 */
int perf_event_init_task(struct task_struct *child, u64 clone_flags)
{
	struct perf_event_context *parent_ctx, *child_ctx = NULL;
	int err;

	child->perf_event_ctxp = NULL;
	mutex_init(&child->perf_event_mutex);
	INIT_LIST_HEAD(&child->perf_event_list);
	memset(child->perf_recursion, 0, sizeof(child->perf_recursion));

	parent_ctx = perf_task_ctx_get(current);
	if (!parent_ctx)
		return 0;

	mutex_lock(&parent_ctx->mutex);
	/* the walk sleeps; multiplexing must not reorder the list under it */
	perf_ctx_lock_irq(parent_ctx);
	parent_ctx->rotate_disable = true;
	perf_ctx_unlock_irq(parent_ctx);
	err = perf_inherit_list(&parent_ctx->pinned_groups, child, &child_ctx,
				clone_flags);
	if (!err)
		err = perf_inherit_list(&parent_ctx->flexible_groups, child,
					&child_ctx, clone_flags);
	if (!err)
		perf_ctx_clone_mark(parent_ctx, child_ctx);
	perf_ctx_lock_irq(parent_ctx);
	parent_ctx->rotate_disable = false;
	perf_ctx_unlock_irq(parent_ctx);
	mutex_unlock(&parent_ctx->mutex);
	perf_ctx_put(parent_ctx);
	/*
	 * copy_process() skips perf_event_free_task() when this step
	 * fails: the copies made so far (on their origins' child lists,
	 * pinning the child) go now, before the child is freed.
	 */
	if (err)
		perf_event_free_task(child);
	return err;
}

/*
 * Give an inherited event's count and times to its origin and free it.
 * The child context is dead and inactive; its mutex is held.
 */
static void perf_event_fold_child(struct perf_event *child)
{
	struct perf_event *origin = child->parent;

	mutex_lock(&origin->child_mutex);
	atomic64_add(local64_read(&child->count) +
		     atomic64_read(&child->child_count), &origin->child_count);
	atomic64_add(child->total_time_enabled,
		     &origin->child_total_time_enabled);
	atomic64_add(child->total_time_running,
		     &origin->child_total_time_running);
	list_del_init(&child->child_entry);
	mutex_unlock(&origin->child_mutex);
	wake_up_all(&origin->waitq);
}

/*
 * An event that no longer follows its task, already off the context's
 * lists (ctx->mutex held): an inherited copy folds into its origin and
 * goes; the task's own event keeps its fd with a final count and hangs up.
 */
static void perf_event_detach_from_task(struct perf_event_context *ctx,
					struct perf_event *event)
{
	if (event->parent) {
		perf_event_fold_child(event);
		perf_event_put(event);
		perf_ctx_put(ctx);	/* the child's reference */
		return;
	}
	WRITE_ONCE(event->state, PERF_EVENT_STATE_EXIT);
	wake_up_all(&event->waitq);
}

static int __perf_ctx_kill(struct perf_event_context *ctx, void *info)
{
	struct perf_event *event;

	perf_ctx_sched_out(ctx);
	ctx->dead = true;
	list_for_each_entry(event, &ctx->event_list, event_entry)
		perf_event_update_times(event);
	return 0;
}

/*
 * Tear down a context whose task is gone (or about to run a setuid
 * program): inherited events are folded into their origins and freed;
 * the task's own events stay with their fds in the EXIT state, their
 * counts final.
 */
static void perf_ctx_teardown(struct perf_event_context *ctx)
{
	struct perf_event *event, *tmp;

	mutex_lock(&ctx->mutex);
	perf_ctx_call(ctx, __perf_ctx_kill, NULL);

	list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry) {
		perf_ctx_lock_irq(ctx);
		/* inherited copies go; the originals keep their groups */
		if (event->parent)
			perf_ctx_del_event_locked(ctx, event);
		else
			perf_ctx_unlink_event_locked(ctx, event);
		perf_ctx_unlock_irq(ctx);
		perf_event_detach_from_task(ctx, event);
	}
	mutex_unlock(&ctx->mutex);
}

/**
 * perf_event_exit_task - the task's events stop following it
 * @task: current, exiting or exec'ing a program with new credentials
 */
void perf_event_exit_task(struct task_struct *task)
{
	struct perf_event_context *ctx;

	if (task->flags & PF_EXITING)
		perf_event_task_exit_record(task);
	/* the task's own events go to the EXIT state, not a lent context's */
	perf_ctx_unswap(task);
	ctx = perf_task_ctx_get(task);
	if (!ctx)
		return;

	/*
	 * Kill the context before unhooking it from the task, so the
	 * scheduler switches it out until then and never in after.
	 */
	perf_ctx_teardown(ctx);

	mutex_lock(&task->perf_event_mutex);
	if (task->perf_event_ctxp == ctx) {
		RCU_INIT_POINTER(task->perf_event_ctxp, NULL);
		perf_ctx_put(ctx);	/* the task's reference */
	}
	mutex_unlock(&task->perf_event_mutex);
	perf_ctx_put(ctx);
}

/**
 * perf_event_free_task - undo perf_event_init_task() of a failed fork
 * @task: the child of the failed fork
 */
void perf_event_free_task(struct task_struct *task)
{
	struct perf_event_context *ctx = task->perf_event_ctxp;

	if (!ctx)
		return;
	RCU_INIT_POINTER(task->perf_event_ctxp, NULL);
	perf_ctx_teardown(ctx);
	/*
	 * The task is freed without an RCU grace period or a look at its
	 * refcount: wait until a close that raced with the failed fork has
	 * dropped the child events and context, which pin the task.
	 */
	wait_var_event(&ctx->refcount, refcount_read(&ctx->refcount) == 1);
	perf_ctx_put(ctx);
}

/**
 * perf_event_delayed_put - last check when the task_struct goes
 * @task: the task being freed
 *
 * Runs from an RCU callback; by now exit has torn everything down.
 */
void perf_event_delayed_put(struct task_struct *task)
{
	WARN_ON_ONCE(rcu_access_pointer(task->perf_event_ctxp));
}

static int __perf_enable_on_exec(struct perf_event_context *ctx, void *info)
{
	struct perf_event *event;

	perf_ctx_update_time(ctx);
	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (!event->attr.enable_on_exec)
			continue;
		/*
		 * The first exec uses the flag up, whatever the state: an
		 * event enabled by hand before it and disabled after is
		 * not enabled again by a later exec (as 6.12). OFF and
		 * ERROR go on.
		 */
		event->attr.enable_on_exec = 0;
		perf_event_enable_locked(ctx, event);
	}
	return 0;
}

/*
 * remove_on_exec: the event stops following the task at exec. Its own
 * fd keeps the final count (EXIT state); an inherited copy folds into its
 * origin and goes.
 */
static void perf_remove_on_exec(struct perf_event_context *ctx)
{
	struct perf_event *event, *tmp;

	mutex_lock(&ctx->mutex);
	list_for_each_entry_safe(event, tmp, &ctx->event_list, event_entry) {
		if (!event->attr.remove_on_exec)
			continue;
		/* a copy's own final values, while its task is still there */
		if (event->parent && event->attr.inherit_stat)
			perf_event_read_record(event);
		perf_remove_event(event);
		perf_event_detach_from_task(ctx, event);
	}
	mutex_unlock(&ctx->mutex);
}

/**
 * perf_event_exec - current has exec'd a new program
 *
 * Events opened disabled with enable_on_exec start counting now, and
 * those opened with remove_on_exec stop following the task.
 */
void perf_event_exec(void)
{
	struct perf_event_context *ctx;

	/* enable_on_exec and remove_on_exec act on current's own events */
	perf_ctx_unswap(current);
	ctx = perf_task_ctx_get(current);
	if (!ctx)
		return;

	perf_addr_filters_exec(current);
	perf_remove_on_exec(ctx);
	mutex_lock(&ctx->mutex);
	perf_ctx_call(ctx, __perf_enable_on_exec, NULL);
	mutex_unlock(&ctx->mutex);
	perf_ctx_put(ctx);
}

/**
 * perf_event_mmap - a new mapping (mm/mmap.c)
 * @vma: the mapping
 *
 * The address filters on its file take their range, then the events
 * that asked for them get MMAP records.
 */
void perf_event_mmap(struct vm_area_struct *vma)
{
	perf_addr_filters_mmap(vma);
	perf_mmap_record(vma);
}

/* prctl(PR_TASK_PERF_EVENTS_*): every event current opened, wherever. */
static int perf_event_task_apply(bool enable)
{
	struct perf_event *event;

	mutex_lock(&current->perf_event_mutex);
	list_for_each_entry(event, &current->perf_event_list, owner_entry) {
		if (enable)
			perf_event_ctl_enable(event, false);
		else
			perf_event_ctl_disable(event, false);
	}
	mutex_unlock(&current->perf_event_mutex);
	return 0;
}

/**
 * perf_event_task_enable - prctl(PR_TASK_PERF_EVENTS_ENABLE)
 */
int perf_event_task_enable(void)
{
	return perf_event_task_apply(true);
}

/**
 * perf_event_task_disable - prctl(PR_TASK_PERF_EVENTS_DISABLE)
 */
int perf_event_task_disable(void)
{
	return perf_event_task_apply(false);
}
