// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduling events onto PMUs: groups as a unit, pinned before flexible,
 * the error state of a pinned group that does not fit, rotation of
 * flexible groups for multiplexing, and the time_enabled/time_running
 * bookkeeping that makes multiplexed counts scalable.
 *
 * Everything here runs with ctx->lock held and IRQs off, on the CPU where
 * the context is (or is becoming) active.
 *
 * The times an event's state change accounts (time.c) are brought up to
 * the context's clock first.
 */
#include <linux/smp.h>
#include <linux/sched.h>

#include "layer/scheduling.h"


void perf_event_set_group_state(struct perf_event *event,
				enum perf_event_state state)
{
	struct perf_event *sibling;

	perf_event_update_times(event);
	/*
	 * A leader turning off or on stops or starts its members' enabled
	 * time (perf_event_effective_state()): account theirs up to now
	 * under the old state first.
	 */
	if (perf_event_is_group_leader(event) &&
	    (event->state <= PERF_EVENT_STATE_OFF) !=
	    (state <= PERF_EVENT_STATE_OFF)) {
		for_each_sibling_event(sibling, event)
			perf_event_update_times(sibling);
	}
	event->state = state;
}

/* May the event count on this CPU at all? */
bool perf_event_filter_match(struct perf_event *event)
{
	struct pmu *pmu = event->pmu;
	int cpu = smp_processor_id();

	if (event->cpu != -1 && event->cpu != cpu)
		return false;
	if (pmu->supported_cpus && !cpumask_test_cpu(cpu, pmu->supported_cpus))
		return false;
	if (pmu->filter && pmu->filter(pmu, cpu))
		return false;
	if (perf_event_is_cgroup(event) && !perf_cgroup_match(event))
		return false;
	return true;
}

/*
 * perf_event_filter_match() without the call for the common event: any
 * CPU, a PMU of every CPU, no cgroup
 */
static __always_inline bool perf_event_may_count_here(struct perf_event *event)
{
	struct pmu *pmu = event->pmu;

	if (likely(event->cpu == -1 && !pmu->supported_cpus && !pmu->filter &&
		   !perf_event_is_cgroup(event)))
		return true;
	return perf_event_filter_match(event);
}

static bool perf_group_is_software(struct perf_event *leader)
{
	struct perf_event *sibling;

	if (!is_software_event(leader))
		return false;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		if (!is_software_event(sibling))
			return false;
	return true;
}

/*
 * The PMU a group's counting hardware belongs to: the leader's, or for
 * a software leader with hardware members theirs
 */
struct pmu *perf_group_pmu(struct perf_event *leader)
{
	struct perf_event *sibling;

	if (!is_software_event(leader))
		return leader->pmu;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		if (!is_software_event(sibling))
			return sibling->pmu;
	return leader->pmu;
}

/*
 * An event going on or off its PMU: its times up to now under the old
 * state, then the new one. ACTIVE and INACTIVE are both above OFF, so a
 * leader's members keep their effective state (perf_event_set_state()).
 */
static __always_inline void perf_event_flip_state(struct perf_event_context *ctx,
						  struct perf_event *event,
						  enum perf_event_state state)
{
	u64 now;

	if (perf_event_is_cgroup(event))
		now = perf_cgroup_time(event);
	else
		now = perf_ctx_time_now(ctx);
	perf_event_update_times_at(event, perf_event_effective_state(event),
				   now);
	event->state = state;
}

/*
 * add() and del() under a hold of the PMU unless it says it needs none
 * (PERF_PMU_CAP_ADD_UNHELD): 6.12's drivers start and stop counting at
 * the pmu_enable() that ends it. A group's hold nests around these.
 */
static __always_inline int perf_pmu_add(struct perf_event *event)
{
	struct pmu *pmu = event->pmu;
	int err;

	if (likely(pmu->capabilities & PERF_PMU_CAP_ADD_UNHELD))
		return pmu->add(event, PERF_EF_START);
	perf_pmu_disable(pmu);
	err = pmu->add(event, PERF_EF_START);
	perf_pmu_enable(pmu);
	return err;
}

static __always_inline void perf_pmu_del(struct perf_event *event)
{
	struct pmu *pmu = event->pmu;

	if (likely(pmu->capabilities & PERF_PMU_CAP_ADD_UNHELD)) {
		pmu->del(event, 0);
		return;
	}
	perf_pmu_disable(pmu);
	pmu->del(event, 0);
	perf_pmu_enable(pmu);
}

/* perf_event_sched_in() of an INACTIVE event that may count here */
static __always_inline int __perf_event_sched_in(struct perf_event_context *ctx,
				 struct perf_event *event)
{
	int err;

	perf_event_flip_state(ctx, event, PERF_EVENT_STATE_ACTIVE);
	event->oncpu = smp_processor_id();
	/*
	 * The tick restarts only the throttled events on a PMU at the time:
	 * one whose context was off then would stay throttled for good (its
	 * next overflow would stop it again). As in 6.12, it samples again
	 * from this schedule-in, which starts it.
	 */
	if (unlikely(event->hw.interrupts == PERF_THROTTLED)) {
		event->hw.interrupts = 0;
		perf_log_throttle(event, true);
	}
	/* a tracer's stream says whose trace follows before it starts */
	if (unlikely(event->pmu->capabilities & PERF_PMU_CAP_ITRACE))
		perf_log_itrace_start(event);
	err = perf_pmu_add(event);
	if (unlikely(err)) {
		/* never ran: no running time to account */
		event->state = PERF_EVENT_STATE_INACTIVE;
		event->oncpu = -1;
		return err;
	}
	ctx->nr_active++;
	if (!is_software_event(event))
		ctx->nr_active_hw++;
	if (rcu_access_pointer(event->rb))
		perf_event_update_userpage(event);
	return 0;
}

/**
 * perf_event_sched_in - put one event on its PMU
 * @ctx: the event's context
 * @event: the event
 *
 * Returns 0 when the event is now counting or has no reason to (not
 * enabled, wrong CPU), or the PMU's error when it did not fit.
 */
int perf_event_sched_in(struct perf_event_context *ctx,
			struct perf_event *event)
{
	lockdep_assert_held(&ctx->lock);
	if (event->state != PERF_EVENT_STATE_INACTIVE)
		return 0;
	if (!perf_event_may_count_here(event))
		return 0;
	return __perf_event_sched_in(ctx, event);
}

static __always_inline void __perf_event_sched_out(struct perf_event_context *ctx,
						   struct perf_event *event)
{
	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return;

	perf_pmu_del(event);
	perf_event_flip_state(ctx, event, PERF_EVENT_STATE_INACTIVE);
	event->oncpu = -1;
	ctx->nr_active--;
	if (!is_software_event(event))
		ctx->nr_active_hw--;
	if (rcu_access_pointer(event->rb))
		perf_event_update_userpage(event);
}

void perf_event_sched_out(struct perf_event_context *ctx,
			  struct perf_event *event)
{
	lockdep_assert_held(&ctx->lock);
	__perf_event_sched_out(ctx, event);
}

/* A flexible group of @pmu did not fit: multiplex at @pmu's interval. */
static void perf_ctx_need_rotation(struct perf_event_context *ctx,
				   struct pmu *pmu)
{
	int ms = READ_ONCE(pmu->hrtimer_interval_ms);

	if (!ctx->rotate_necessary) {
		ctx->rotate_ms = ms;
		/*
		 * A clock older than the interval (a context idle, or not
		 * current at the ticks, since) starts again now, so the
		 * first rotation comes a full interval after the need.
		 */
		if (time_after(jiffies, ctx->last_rotation +
			       msecs_to_jiffies(ms)))
			ctx->last_rotation = jiffies;
	} else if (ms < ctx->rotate_ms) {
		ctx->rotate_ms = ms;
	}
	ctx->rotate_necessary = true;
}

/**
 * perf_group_sched_in - put a group on the PMU, all or nothing
 * @ctx: the group's context
 * @leader: the group leader
 *
 * A PMU that offers transactions checks the whole group at commit; for
 * the others each add() is checked as it comes. On failure every member
 * is taken off again; a pinned group then goes to the error state, where
 * it stays until enabled again, and a flexible one waits for rotation.
 */
int perf_group_sched_in(struct perf_event_context *ctx,
			struct perf_event *leader)
{
	struct pmu *pmu = leader->pmu, *hw = NULL;
	struct perf_event *sibling, *failed = NULL;
	bool hold = !list_empty(&leader->sibling_list);
	bool software;
	int err;

	lockdep_assert_held(&ctx->lock);

	if (leader->state != PERF_EVENT_STATE_INACTIVE)
		return 0;
	if (!perf_event_may_count_here(leader))
		return 0;

	/*
	 * An exclusive group has the context's hardware to itself: it goes
	 * on only when no other hardware event is on, and keeps the others
	 * off. Software-only groups cost no hardware and always go on.
	 */
	software = hold ? perf_group_is_software(leader) :
			  is_software_event(leader);
	if (!software && (ctx->exclusive_leader ||
			  (leader->attr.exclusive && ctx->nr_active_hw))) {
		err = -EBUSY;
		goto fail_busy;
	}

	/*
	 * The PMU is held while the members go on, so that they all start
	 * counting at its restart, at the same instruction, as on the
	 * stock kernel (an event alone needs no hold: a context switch
	 * puts every group on, and the hold costs the PMU's registers)
	 */
	if (hold) {
		hw = perf_group_pmu(leader);
		perf_pmu_disable(hw);
	}
	if (pmu->start_txn)
		pmu->start_txn(pmu, PERF_PMU_TXN_ADD);

	err = __perf_event_sched_in(ctx, leader);
	if (err)
		goto fail_leader;

	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		err = perf_event_sched_in(ctx, sibling);
		if (err) {
			failed = sibling;
			goto fail_siblings;
		}
	}

	if (pmu->commit_txn) {
		err = pmu->commit_txn(pmu);
		if (err)
			goto fail_siblings;
	}
	if (hold)
		perf_pmu_enable(hw);
	if (leader->attr.exclusive && !software)
		ctx->exclusive_leader = leader;
	return 0;

fail_siblings:
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		if (sibling == failed)
			break;
		perf_event_sched_out(ctx, sibling);
	}
	perf_event_sched_out(ctx, leader);
fail_leader:
	if (pmu->cancel_txn)
		pmu->cancel_txn(pmu);
	if (hold)
		perf_pmu_enable(hw);
fail_busy:
	if (leader->attr.pinned)
		perf_event_set_state(leader, PERF_EVENT_STATE_ERROR);
	else
		perf_ctx_need_rotation(ctx, pmu);
	return err;
}

static __always_inline void __perf_group_sched_out(struct perf_event_context *ctx,
						   struct perf_event *leader)
{
	bool hold = leader->state == PERF_EVENT_STATE_ACTIVE &&
		    !list_empty(&leader->sibling_list);
	struct pmu *hw = hold ? perf_group_pmu(leader) : NULL;
	struct perf_event *sibling;

	if (ctx->exclusive_leader == leader)
		ctx->exclusive_leader = NULL;
	/*
	 * All members stop at once, as they started; a group that is not
	 * on, or an event alone, costs no hold (a context switch walks
	 * every group)
	 */
	if (hold)
		perf_pmu_disable(hw);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		__perf_event_sched_out(ctx, sibling);
	__perf_event_sched_out(ctx, leader);
	if (hold)
		perf_pmu_enable(hw);
}

void perf_group_sched_out(struct perf_event_context *ctx,
			  struct perf_event *leader)
{
	lockdep_assert_held(&ctx->lock);
	__perf_group_sched_out(ctx, leader);
}

/*
 * Schedule in every group that is enabled but not on the PMU: pinned
 * groups first, because they must always count, then flexible ones in
 * list order (rotation changes the order).
 */
static __always_inline void __perf_ctx_sched_in(struct perf_event_context *ctx)
{
	struct perf_event *leader;
	struct pmu *full = NULL;

	list_for_each_entry(leader, &ctx->pinned_groups, group_entry)
		perf_group_sched_in(ctx, leader);
	list_for_each_entry(leader, &ctx->flexible_groups, group_entry)
		perf_flexible_sched_in(ctx, leader, &full);
}

void perf_ctx_sched_in(struct perf_event_context *ctx)
{
	lockdep_assert_held(&ctx->lock);
	__perf_ctx_sched_in(ctx);
}

/*
 * The order in which a CPU's counters are handed out: the CPU's pinned
 * groups, the task's pinned groups, the CPU's flexible groups, the
 * task's flexible groups. A task context coming in with pinned groups
 * (or gaining one) first takes the CPU's flexible groups off, so they
 * cannot push its pinned groups into the error state. @ctx is the active
 * task context of this CPU; its lock is held, the CPU context's is taken
 * inside it.
 */
static void perf_task_ctx_repack(struct perf_event_context *ctx)
{
	struct perf_event_context *cctx = this_cpu_ptr(&perf_cpu_context.ctx);
	struct perf_event *leader;
	struct pmu *full = NULL;

	if (list_empty(&ctx->pinned_groups)) {
		__perf_ctx_sched_in(ctx);
		return;
	}
	raw_spin_lock_nested(&cctx->lock, SINGLE_DEPTH_NESTING);
	/* no counter of this CPU's to free: the usual order does */
	if (!cctx->is_active || !cctx->nr_active_hw ||
	    list_empty(&cctx->flexible_groups)) {
		perf_ctx_unlock(cctx);
		perf_ctx_sched_in(ctx);
		return;
	}
	perf_ctx_update_time(cctx);
	list_for_each_entry(leader, &cctx->flexible_groups, group_entry)
		perf_group_sched_out(cctx, leader);
	list_for_each_entry(leader, &ctx->flexible_groups, group_entry)
		perf_group_sched_out(ctx, leader);
	list_for_each_entry(leader, &ctx->pinned_groups, group_entry)
		perf_group_sched_in(ctx, leader);
	cctx->rotate_necessary = false;
	list_for_each_entry(leader, &cctx->flexible_groups, group_entry)
		perf_flexible_sched_in(cctx, leader, &full);
	perf_ctx_unlock(cctx);
	ctx->rotate_necessary = false;
	full = NULL;
	list_for_each_entry(leader, &ctx->flexible_groups, group_entry)
		perf_flexible_sched_in(ctx, leader, &full);
}

/**
 * perf_ctx_sched_in_pinned - a pinned group joined active @ctx
 * @ctx: the context
 * @leader: the leader of the pinned group
 *
 * For a task context, the CPU's flexible groups make room first.
 */
void perf_ctx_sched_in_pinned(struct perf_event_context *ctx,
			      struct perf_event *leader)
{
	lockdep_assert_held(&ctx->lock);
	if (ctx->task)
		perf_task_ctx_repack(ctx);
	else
		perf_group_sched_in(ctx, leader);
}

/* Make @ctx active on this CPU as of @now and schedule its events in. */
void perf_ctx_activate(struct perf_event_context *ctx, u64 now)
{
	lockdep_assert_held(&ctx->lock);
	ctx->is_active = true;
	ctx->active_cpu = smp_processor_id();
	ctx->timestamp = now;
	perf_swclock_set(ctx->timestamp);
	if (ctx->task) {
		this_cpu_write(perf_cpu_context.task_ctx, ctx);
		perf_task_ctx_repack(ctx);
	} else {
		perf_cgroup_ctx_activate(ctx, true);
		perf_ctx_sched_in(ctx);
	}
	perf_swclock_set(0);
}

/*
 * Every group of @ctx off its PMU, the clocks stopped at ctx->timestamp
 * (perf_swclock_now, restored after)
 */
static __always_inline void perf_ctx_groups_out(struct perf_event_context *ctx)
{
	u64 saved = perf_swclock_set(ctx->timestamp);
	struct perf_event *leader;

	list_for_each_entry(leader, &ctx->pinned_groups, group_entry)
		__perf_group_sched_out(ctx, leader);
	list_for_each_entry(leader, &ctx->flexible_groups, group_entry)
		__perf_group_sched_out(ctx, leader);
	perf_swclock_set(saved);
}

/* Take every group of @ctx off the PMUs and stop its clock. */
void perf_ctx_sched_out(struct perf_event_context *ctx)
{
	lockdep_assert_held(&ctx->lock);
	if (!ctx->is_active) {
		perf_ctx_settle_if_dozing(ctx);
		return;
	}
	perf_ctx_update_time(ctx);
	/*
	 * No longer this CPU's task context before its events go: the
	 * pmu_enable() after the last del() sees that (arm_pmuv3 closes
	 * EL0 counter access unless the task switched in has a user-read
	 * event, perf_cpu_task_ctx())
	 */
	if (this_cpu_read(perf_cpu_context.task_ctx) == ctx)
		this_cpu_write(perf_cpu_context.task_ctx, NULL);
	perf_ctx_groups_out(ctx);
	/* the next schedule-in finds out afresh, at the intervals then */
	ctx->rotate_necessary = false;
	ctx->is_active = false;
	ctx->active_cpu = -1;
	if (!ctx->task)
		perf_cgroup_ctx_activate(ctx, false);
}

/* Activate a context on this CPU; used by the IPI path for a running task. */
void perf_ctx_activate_here(struct perf_event_context *ctx)
{
	lockdep_assert_held(&ctx->lock);
	perf_ctx_settle_if_dozing(ctx);
	if (!ctx->is_active)
		perf_ctx_activate(ctx, perf_clock());
}

/*
 * Re-pack the PMUs after a change that may free or need a counter: take
 * the flexible groups off and put everything back in priority order.
 */
void perf_ctx_resched(struct perf_event_context *ctx)
{
	struct perf_event *leader;

	lockdep_assert_held(&ctx->lock);

	if (!ctx->is_active)
		return;
	perf_ctx_update_time(ctx);
	list_for_each_entry(leader, &ctx->flexible_groups, group_entry)
		perf_group_sched_out(ctx, leader);
	ctx->rotate_necessary = false;
	perf_ctx_sched_in(ctx);
}

/*
 * Multiplexing: move the first flexible group to the end, so each group
 * gets its turn on a PMU that cannot hold them all.
 */
static bool perf_ctx_rotate(struct perf_event_context *ctx)
{
	if (!ctx->rotate_necessary || ctx->rotate_disable ||
	    list_empty(&ctx->flexible_groups))
		return false;
	list_rotate_left(&ctx->flexible_groups);
	perf_ctx_resched(ctx);
	return true;
}

/*
 * The tick's look at one context: while nothing needs rotating the
 * clock follows the tick, so the first rotation comes a full interval
 * after the context overcommitted its PMUs.
 */
void perf_ctx_rotate_tick(struct perf_event_context *ctx)
{
	if (!READ_ONCE(ctx->rotate_necessary)) {
		WRITE_ONCE(ctx->last_rotation, jiffies);
		return;
	}
	perf_ctx_lock(ctx);
	if (ctx->is_active && ctx->active_cpu == smp_processor_id() &&
	    !time_before(jiffies, ctx->last_rotation +
			 msecs_to_jiffies(ctx->rotate_ms)) &&
	    perf_ctx_rotate(ctx))
		ctx->last_rotation = jiffies;
	perf_ctx_unlock(ctx);
}

/**
 * perf_ctx_settle - finish the switch out of a dozing context
 * @ctx: the context, dozing; ctx->lock held, IRQs off, any CPU
 *
 * Takes its events off as the switch out would have, as of the instant
 * its clock stopped, so that the context is simply inactive.
 */
void perf_ctx_settle(struct perf_event_context *ctx)
{
	lockdep_assert_held(&ctx->lock);
	/* the clocks stop where the context's time did (same CPU's clock) */
	perf_ctx_groups_out(ctx);
	ctx->dozing = false;
}

/**
 * perf_cpu_ctx_online - start the CPU context of this CPU
 *
 * Runs on the CPU coming up (or at boot), with IRQs enabled.
 */
void perf_cpu_ctx_online(void)
{
	struct perf_cpu_context *cpuctx;
	unsigned long flags;

	/* early boot calls this with IRQs still off: keep them as they are */
	local_irq_save(flags);
	cpuctx = this_cpu_ptr(&perf_cpu_context);
	perf_ctx_lock(&cpuctx->ctx);
	if (!cpuctx->online) {
		cpuctx->online = true;
		perf_ctx_activate(&cpuctx->ctx, perf_clock());
	}
	perf_ctx_unlock(&cpuctx->ctx);
	local_irq_restore(flags);
}

/* Turn off an event of a CPU going down: its count and times stay. */
static void perf_event_off(struct perf_event *event)
{
	if (event->state < PERF_EVENT_STATE_INACTIVE)
		return;
	perf_event_set_state(event, PERF_EVENT_STATE_OFF);
	perf_event_update_userpage(event);
}

/* the members first: the leader going off stops their enabled time */
static void perf_group_off(struct perf_event *leader)
{
	struct perf_event *sibling;

	for_each_sibling_event(sibling, leader)
		perf_event_off(sibling);
	perf_event_off(leader);
}

/*
 * The CPU goes down: its events stop for good, as in 6.12, where the
 * CPU's context lets go of them: they keep their counts and times, and
 * do not start again when the CPU comes back (an enable does). Events of
 * scoped PMUs have moved to another CPU of their domain before this.
 */
void perf_cpu_ctx_offline(void)
{
	struct perf_cpu_context *cpuctx;
	struct perf_event *leader;
	unsigned long flags;

	local_irq_save(flags);
	cpuctx = this_cpu_ptr(&perf_cpu_context);
	perf_ctx_lock(&cpuctx->ctx);
	perf_ctx_sched_out(&cpuctx->ctx);
	list_for_each_entry(leader, &cpuctx->ctx.pinned_groups, group_entry)
		perf_group_off(leader);
	list_for_each_entry(leader, &cpuctx->ctx.flexible_groups, group_entry)
		perf_group_off(leader);
	cpuctx->online = false;
	perf_ctx_unlock(&cpuctx->ctx);
	local_irq_restore(flags);
}
