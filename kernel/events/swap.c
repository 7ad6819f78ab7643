// SPDX-License-Identifier: GPL-2.0
/*
 * Equivalent task contexts change hands at a context switch instead of
 * being switched out and in (Documentation/perf-core/ctx-swap.rst).
 *
 * A fork that inherits every event of the parent's context gives both
 * contexts one clone id; any later change to either (an event added or
 * removed, enabled, disabled, a new period, a buffer, a program) clears
 * its id. When a task switches to another whose context has the same id,
 * the two tasks exchange contexts: the one on the PMUs stays there and
 * counts for the incoming task. Counts are read as sums over the
 * inheritance family, so no total changes.
 *
 * Only pairs swap: two contexts at home, or the two of one swapped pair
 * going back. ctx->home is the task a context belongs to, ctx->task the
 * one it counts for. perf_ctx_unswap() gives a task its own context back
 * before exit, exec and a new open act on it.
 */
#include <linux/sched.h>

#include "layer/counting.h"

static atomic64_t perf_clone_ids = ATOMIC64_INIT(0);
/* one unswap at a time: it parks two contexts and moves both pointers */
static DEFINE_MUTEX(perf_unswap_mutex);

/*
 * Events that behave the same whichever task of the family they count
 * for: counting and sampling software events and the CPU's counters.
 * Not those with per-task results (inherit_stat), per-task signals, task
 * filters (tracepoints, probes, breakpoints), per-task hardware state
 * (branch stacks, data a PMU keeps per context), error states (pinned),
 * exclusive PMU use, cgroups, programs or a buffer of their own (a
 * control page describes one task).
 */
static bool perf_event_swappable(struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;

	if (attr->inherit_stat || attr->sigtrap || attr->pinned ||
	    attr->exclusive || has_branch_stack(event) ||
	    (event->attach_state & PERF_ATTACH_SCHED_CB) ||
	    perf_event_is_cgroup(event) || READ_ONCE(event->prog) ||
	    rcu_access_pointer(event->rb))
		return false;
	if (attr->type == PERF_TYPE_SOFTWARE || perf_event_is_swclock(event))
		return true;
	return attr->type != PERF_TYPE_BREAKPOINT &&
	       event->pmu->task_ctx_nr == perf_hw_context;
}

/**
 * perf_ctx_clone_mark - @child_ctx was just inherited from @parent_ctx
 * @parent_ctx: the parent's context
 * @child_ctx: the child's new context, or NULL
 *
 * Fork, with @parent_ctx->mutex held and the child not running yet. The
 * two are equivalent if every event of the parent's context was copied
 * and all of them may count for any task of the family.
 */
void perf_ctx_clone_mark(struct perf_event_context *parent_ctx,
			 struct perf_event_context *child_ctx)
{
	struct perf_event *event;
	u64 id;

	if (!child_ctx || child_ctx->nr_events != parent_ctx->nr_events)
		return;
	list_for_each_entry(event, &parent_ctx->event_list, event_entry)
		if (!perf_event_swappable(event))
			return;

	raw_spin_lock_irq(&parent_ctx->lock);
	id = parent_ctx->clone_id;
	if (!id) {
		id = atomic64_inc_return(&perf_clone_ids);
		parent_ctx->clone_id = id;
	}
	raw_spin_unlock_irq(&parent_ctx->lock);

	raw_spin_lock_irq(&child_ctx->lock);
	child_ctx->clone_id = id;
	raw_spin_unlock_irq(&child_ctx->lock);
}

/* Both locks held: may @ctx (@prev's, active here) go to @next? */
static bool perf_ctx_swap_ok(struct perf_event_context *ctx,
			     struct perf_event_context *other,
			     struct task_struct *prev,
			     struct task_struct *next)
{
	if (!ctx->clone_id || ctx->clone_id != other->clone_id)
		return false;
	if (ctx->parked || other->parked || ctx->dead || other->dead ||
	    other->dozing)
		return false;
	if (!ctx->is_active || ctx->active_cpu != smp_processor_id() ||
	    other->is_active)
		return false;
	if (ctx->task != prev || other->task != next)
		return false;
	/* pairs only: both at home, or a swapped pair going back */
	return (ctx->home == prev && other->home == next) ||
	       (ctx->home == next && other->home == prev);
}

static void perf_ctx_lock_pair(struct perf_event_context *a,
			       struct perf_event_context *b)
{
	if (a > b)
		swap(a, b);
	raw_spin_lock(&a->lock);
	raw_spin_lock_nested(&b->lock, SINGLE_DEPTH_NESTING);
}

static void perf_ctx_unlock_pair(struct perf_event_context *a,
				 struct perf_event_context *b)
{
	raw_spin_unlock(&a->lock);
	raw_spin_unlock(&b->lock);
}

/* Both locks held: @a goes to @b's holder and back. */
static void perf_ctx_exchange(struct perf_event_context *a,
			      struct perf_event_context *b)
{
	struct task_struct *ta = a->task, *tb = b->task;

	rcu_assign_pointer(ta->perf_event_ctxp, b);
	rcu_assign_pointer(tb->perf_event_ctxp, a);
	a->task = tb;
	b->task = ta;
}

/* Test kernels: a context that changes hands holds no event of one task. */
static void perf_ctx_check_lendable(struct perf_event_context *ctx)
{
	struct perf_event *event;

	if (!PERF_CHECKS)
		return;
	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (WARN_ONCE(perf_event_foreign_task(event, NULL),
			      "perf: pid %d's context lent with an event of its own\n",
			      task_pid_nr(ctx->home)))
			return;
	}
}

/**
 * __perf_ctx_try_swap - hand @prev's active context @ctx over to @next
 * @ctx: @prev's context
 * @prev: the task being switched out
 * @next: the task being switched in
 *
 * From __perf_event_task_sched_out(), IRQs off, runqueue lock held.
 * Returns true when @ctx stays on the PMUs, now counting for @next, and
 * @prev holds @next's context (inactive).
 */
bool __perf_ctx_try_swap(struct perf_event_context *ctx,
			 struct task_struct *prev, struct task_struct *next)
{
	struct perf_event_context *other;
	bool swapped = false;
	u64 id = READ_ONCE(ctx->clone_id);

	other = rcu_dereference_raw(next->perf_event_ctxp);
	if (!id || !other || other == ctx || READ_ONCE(other->clone_id) != id)
		return false;

	perf_ctx_lock_pair(ctx, other);
	if (rcu_access_pointer(prev->perf_event_ctxp) == ctx &&
	    rcu_access_pointer(next->perf_event_ctxp) == other &&
	    perf_ctx_swap_ok(ctx, other, prev, next)) {
		perf_ctx_check_lendable(ctx);
		perf_ctx_check_lendable(other);
		perf_ctx_exchange(ctx, other);
		swapped = true;
	}
	perf_ctx_unlock_pair(ctx, other);
	return swapped;
}

struct perf_unswap_op {
	struct perf_event_context	*other;
	bool				done;
};

/*
 * On the CPU where @ctx counts (or anywhere, if it counts nowhere), with
 * ctx->lock held and IRQs off: exchange @ctx with op->other, which must
 * count nowhere, in one step. The task running here keeps counting: it
 * gets the other context, switched on at once. -EBUSY if the other one
 * counts somewhere too, -EAGAIN if its lock is busy (a switch on another
 * CPU looking at the pair: take the locks again in the right order).
 */
static int __perf_ctx_unswap_here(struct perf_event_context *ctx, void *info)
{
	struct perf_unswap_op *op = info;
	struct perf_event_context *other = op->other;
	bool was_active = ctx->is_active;

	/* trylock: perf_ctx_try_swap() takes the pair in address order */
	if (!raw_spin_trylock(&other->lock))
		return -EAGAIN;
	perf_ctx_settle_if_dozing(other);
	if (other->is_active) {
		raw_spin_unlock(&other->lock);
		return -EBUSY;
	}
	if (was_active)
		perf_ctx_sched_out(ctx);
	perf_ctx_exchange(ctx, other);
	ctx->clone_id = 0;
	other->clone_id = 0;
	ctx->parked = other->parked = false;
	ctx->frozen = other->frozen = false;
	raw_spin_unlock(&other->lock);
	/*
	 * The task that runs here now holds @other: on with it before IRQs
	 * come back. Not under @ctx's lock: switching a task context in
	 * nests the CPU context's lock, the one nesting level lockdep has.
	 */
	if (was_active && other->task == current) {
		raw_spin_unlock(&ctx->lock);
		raw_spin_lock(&other->lock);
		perf_ctx_activate_here(other);
		raw_spin_unlock(&other->lock);
		raw_spin_lock(&ctx->lock);
	}
	op->done = true;
	return 0;
}

/* Take a context off its CPU and keep it off: both of a pair count. */
static int __perf_ctx_freeze(struct perf_event_context *ctx, void *info)
{
	perf_ctx_sched_out(ctx);
	ctx->frozen = true;
	return 0;
}

static int __perf_ctx_nop(struct perf_event_context *ctx, void *info)
{
	return 0;
}

static void perf_ctx_set_parked(struct perf_event_context *ctx, bool on)
{
	raw_spin_lock_irq(&ctx->lock);
	ctx->parked = on;
	raw_spin_unlock_irq(&ctx->lock);
}

/*
 * @task holds @held (parked by the caller), whose home is another task
 * that holds @task's own context. Exchange the two where one of them
 * counts, in one step, so that a running holder loses nothing. Only when
 * both holders run, on two CPUs, is @held first taken off (a gap of a
 * few microseconds for @task). Both lose their clone id: the caller is
 * about to change @task's context anyway. perf_unswap_mutex held.
 * Returns false if @task no longer holds @held (the other side's unswap
 * came first).
 */
static bool perf_ctx_unswap_pair(struct task_struct *task,
				 struct perf_event_context *held)
{
	struct perf_unswap_op op = { };
	struct perf_event_context *home;
	int err;

	if (rcu_access_pointer(task->perf_event_ctxp) != held)
		return false;
	rcu_read_lock();
	home = rcu_dereference(held->home->perf_event_ctxp);
	/* pairs only: @task's own context is with @held's home task */
	if (WARN_ON_ONCE(!home || home->home != task || home == held)) {
		rcu_read_unlock();
		raw_spin_lock_irq(&held->lock);
		held->parked = false;
		held->clone_id = 0;
		raw_spin_unlock_irq(&held->lock);
		return true;
	}
	perf_ctx_get(home);
	rcu_read_unlock();
	perf_ctx_set_parked(home, true);

	for (;;) {
		op.other = home;
		err = perf_ctx_call(held, __perf_ctx_unswap_here, &op);
		if (op.done)
			break;
		if (err == -EBUSY) {
			op.other = held;
			err = perf_ctx_call(home, __perf_ctx_unswap_here, &op);
			if (op.done)
				break;
			if (err == -EBUSY)
				perf_ctx_call(held, __perf_ctx_freeze, NULL);
		}
		cond_resched();
	}
	/* after a freeze: the holders' CPUs, if they run, switch them on */
	perf_ctx_call(home, __perf_ctx_nop, NULL);
	perf_ctx_call(held, __perf_ctx_nop, NULL);
	perf_ctx_put(home);
	return true;
}

/**
 * perf_ctx_unswap - give @task its own context back, and keep it
 * @task: the task
 *
 * @task is current, or a task the caller holds a reference on. Called
 * before exit, exec and an open on @task act on its context: after it,
 * task->perf_event_ctxp is the context created for @task, and no switch
 * lends it away again (its clone id is cleared). Process context.
 */
void perf_ctx_unswap(struct task_struct *task)
{
	struct perf_event_context *held;
	bool retry, at_home;

	do {
		retry = false;
		rcu_read_lock();
		held = rcu_dereference(task->perf_event_ctxp);
		/* the common case: never cloned, nothing to do */
		if (!held ||
		    (held->home == task && !READ_ONCE(held->clone_id))) {
			rcu_read_unlock();
			return;
		}
		perf_ctx_get(held);
		rcu_read_unlock();

		raw_spin_lock_irq(&held->lock);
		at_home = held->home == task;
		if (rcu_access_pointer(task->perf_event_ctxp) != held)
			retry = true;		/* a switch swapped it meanwhile */
		else if (at_home)
			held->clone_id = 0;
		else
			held->parked = true;
		raw_spin_unlock_irq(&held->lock);

		if (!retry && !at_home) {
			mutex_lock(&perf_unswap_mutex);
			/* the other side's unswap may have done it already */
			retry = !perf_ctx_unswap_pair(task, held);
			mutex_unlock(&perf_unswap_mutex);
		}
		perf_ctx_put(held);
	} while (retry);
}

/**
 * perf_ctx_pin_home - keep @ctx with @task until an event is installed
 * @ctx: the context perf_find_get_context() found for @task, ctx->mutex held
 * @task: the task the new event follows
 *
 * The lookup gave @task its own context back, but @task runs on: a fork
 * of @task marks its context a clone again, and the switch to the child
 * (at once, for a vfork) lends it to the child, or the lookup read the
 * child's context while @task held it. An event installed then would
 * count the child. Giving @task its context back once more, now under
 * ctx->mutex, holds: only a fork marks a context that already exists,
 * under that mutex (perf_ctx_clone_mark()), and no switch lends a context
 * without a clone id. The install clears the id for good.
 *
 * Return: false if @ctx is not @task's own context: look it up again.
 */
bool perf_ctx_pin_home(struct perf_event_context *ctx, struct task_struct *task)
{
	lockdep_assert_held(&ctx->mutex);
	if (ctx->home != task)
		return false;
	perf_ctx_unswap(task);
	return true;
}
