// SPDX-License-Identifier: GPL-2.0
/*
 * PMUs whose counters count for a group of CPUs (a core, a package, the
 * whole system: struct pmu::scope), and moving a PMU's CPU-wide events
 * from one CPU to another.
 *
 * One online CPU of each domain reads such a PMU for the domain: its
 * "designated" CPU, shown in the PMU's sysfs cpumask, where tools open
 * their one event per domain (an event opened on another CPU of the
 * domain counts there, as in 6.12). When the designated CPU goes offline
 * another CPU of the domain takes over, and the events move with it
 * (perf_pmu_migrate_context(), which drivers with their own hotplug
 * handling call too).
 */
#include <linux/cpu.h>
#include <linux/topology.h>
#include <linux/device.h>

#include "layer/counting.h"

static const struct cpumask *perf_scope_domain(unsigned int scope, int cpu)
{
	switch (scope) {
	case PERF_PMU_SCOPE_CORE:
		return topology_sibling_cpumask(cpu);
	case PERF_PMU_SCOPE_DIE:
		return topology_die_cpumask(cpu);
	case PERF_PMU_SCOPE_CLUSTER:
		return topology_cluster_cpumask(cpu);
	case PERF_PMU_SCOPE_PKG:
		return topology_core_cpumask(cpu);
	case PERF_PMU_SCOPE_SYS_WIDE:
		return cpu_online_mask;
	}
	return NULL;
}

/**
 * perf_scope_shared - do @cpu and @other share a domain of @pmu's scope?
 * @pmu: the PMU
 * @cpu: a CPU
 * @other: another CPU
 *
 * The counters of a scoped PMU are the domain's, so any CPU of it reads
 * them as well as the one an event is bound to. IRQs off or NMI: the
 * topology masks are only read.
 */
bool perf_scope_shared(struct pmu *pmu, int cpu, int other)
{
	const struct cpumask *domain;

	if (pmu->scope == PERF_PMU_SCOPE_NONE ||
	    pmu->scope >= PERF_PMU_MAX_SCOPE || cpu < 0 || other < 0)
		return false;
	domain = perf_scope_domain(pmu->scope, other);
	return domain && cpumask_test_cpu(cpu, domain);
}

/**
 * perf_scope_cpu_online - @cpu is up: it reads for domains without a reader
 * @cpu: the CPU
 */
void perf_scope_cpu_online(unsigned int cpu)
{
	const struct cpumask *domain;
	unsigned int scope;

	for (scope = PERF_PMU_SCOPE_NONE + 1; scope < PERF_PMU_MAX_SCOPE;
	     scope++) {
		domain = perf_scope_domain(scope, cpu);
		if (!domain || cpumask_intersects(&perf_scope_cpus[scope],
						  domain))
			continue;
		cpumask_set_cpu(cpu, &perf_scope_cpus[scope]);
	}
}

/*
 * The boot CPU's hotplug callback runs before the topology is known, and
 * the other CPUs' may have run before it: once SMP is up (and before any
 * driver has an event), pick the reading CPUs again, lowest first.
 */
static int __init perf_scope_init(void)
{
	unsigned int cpu, scope;

	cpus_read_lock();
	for (scope = 0; scope < PERF_PMU_MAX_SCOPE; scope++)
		cpumask_clear(&perf_scope_cpus[scope]);
	for_each_online_cpu(cpu)
		perf_scope_cpu_online(cpu);
	cpus_read_unlock();
	return 0;
}
subsys_initcall(perf_scope_init);

/**
 * perf_scope_cpu_offline - @cpu goes down: hand its domains to another CPU
 * @cpu: the CPU
 *
 * Called on @cpu from its hotplug thread, before its context stops, while
 * its topology still stands. Events of a domain with no CPU left stay
 * where they are, and are turned off with @cpu's other events.
 */
void perf_scope_cpu_offline(unsigned int cpu)
{
	const struct cpumask *domain;
	unsigned int scope, target;

	for (scope = PERF_PMU_SCOPE_NONE + 1; scope < PERF_PMU_MAX_SCOPE;
	     scope++) {
		if (!cpumask_test_and_clear_cpu(cpu, &perf_scope_cpus[scope]))
			continue;
		domain = perf_scope_domain(scope, cpu);
		target = cpumask_any_and_but(domain, cpu_online_mask, cpu);
		if (target >= nr_cpu_ids)
			continue;
		cpumask_set_cpu(target, &perf_scope_cpus[scope]);
		perf_pmu_migrate_scope(scope, cpu, target);
	}
}

/* Take a group off its context whole: members stay in sibling_list. */
static int __perf_group_unlink(struct perf_event_context *ctx, void *info)
{
	struct perf_event *leader = info, *sibling;

	perf_ctx_update_time(ctx);
	perf_group_sched_out(ctx, leader);
	perf_event_update_times(leader);
	for_each_sibling_event(sibling, leader) {
		perf_event_update_times(sibling);
		perf_ctx_unlink_event_locked(ctx, sibling);
	}
	perf_ctx_unlink_event_locked(ctx, leader);
	return 0;
}

struct perf_group_move {
	struct perf_event	*leader;
	int			cpu;
};

/* Move an event's ctx and cpu: under the new context's lock. */
static void perf_event_move(struct perf_event_context *ctx,
			    struct perf_event *event, int cpu)
{
	struct perf_event_context *old = event->ctx;

	WRITE_ONCE(event->cpu, cpu);
	WRITE_ONCE(event->ctx, ctx);
	perf_ctx_get(ctx);
	perf_ctx_put(old);	/* a CPU context: never the last */
}

/*
 * Put an unlinked group into @ctx, in its order, and start it. Its
 * members' ctx and cpu change here, under the new context's lock, so
 * that a reader under that lock sees them with the new context's times.
 */
static int __perf_group_link(struct perf_event_context *ctx, void *info)
{
	struct perf_group_move *move = info;
	struct perf_event *leader = move->leader, *sibling, *tmp;
	LIST_HEAD(members);

	perf_ctx_update_time(ctx);
	list_splice_init(&leader->sibling_list, &members);
	leader->nr_siblings = 0;
	perf_event_move(ctx, leader, move->cpu);
	perf_ctx_add_event_locked(ctx, leader);
	list_for_each_entry_safe(sibling, tmp, &members, sibling_entry) {
		list_del_init(&sibling->sibling_entry);
		perf_event_move(ctx, sibling, move->cpu);
		perf_ctx_add_event_locked(ctx, sibling);
	}
	if (!ctx->is_active || leader->state != PERF_EVENT_STATE_INACTIVE)
		return 0;
	if (leader->attr.pinned)
		perf_ctx_sched_in_pinned(ctx, leader);
	else
		perf_group_sched_in(ctx, leader);
	return 0;
}

/* Has the group a member of @pmu, or with !@pmu, of a PMU of @scope? */
static bool perf_group_moves(struct perf_event *leader, struct pmu *pmu,
			     unsigned int scope)
{
	struct perf_event *sibling;

	if (pmu ? leader->pmu == pmu : leader->pmu->scope == scope)
		return true;
	for_each_sibling_event(sibling, leader) {
		if (pmu ? sibling->pmu == pmu : sibling->pmu->scope == scope)
			return true;
	}
	return false;
}

/* A group in @ctx with an event of @pmu, or (with !pmu) of @scope. */
static struct perf_event *perf_migrating_group(struct perf_event_context *ctx,
					       struct pmu *pmu,
					       unsigned int scope)
{
	struct list_head *lists[] = { &ctx->pinned_groups,
				      &ctx->flexible_groups };
	struct perf_event *leader;
	int i;

	for (i = 0; i < ARRAY_SIZE(lists); i++) {
		list_for_each_entry(leader, lists[i], group_entry) {
			if (perf_group_moves(leader, pmu, scope))
				return leader;
		}
	}
	return NULL;
}

/* Move the groups perf_migrating_group() picks, ctx mutexes held. */
static void perf_migrate_groups(struct perf_event_context *src,
				struct perf_event_context *dst,
				struct pmu *pmu, unsigned int scope, int dst_cpu)
{
	struct perf_group_move move = { .cpu = dst_cpu };

	while ((move.leader = perf_migrating_group(src, pmu, scope))) {
		perf_ctx_call(src, __perf_group_unlink, move.leader);
		perf_ctx_call(dst, __perf_group_link, &move);
	}
}

static void perf_migrate(struct pmu *pmu, unsigned int scope, int src_cpu,
			 int dst_cpu)
{
	struct perf_event_context *src, *dst;

	if (src_cpu == dst_cpu)
		return;
	src = &per_cpu_ptr(&perf_cpu_context, src_cpu)->ctx;
	dst = &per_cpu_ptr(&perf_cpu_context, dst_cpu)->ctx;
	/* one class of mutex: take them in CPU order */
	if (src_cpu < dst_cpu) {
		mutex_lock(&src->mutex);
		mutex_lock_nested(&dst->mutex, SINGLE_DEPTH_NESTING);
	} else {
		mutex_lock(&dst->mutex);
		mutex_lock_nested(&src->mutex, SINGLE_DEPTH_NESTING);
	}
	perf_migrate_groups(src, dst, pmu, scope, dst_cpu);
	mutex_unlock(&src->mutex);
	mutex_unlock(&dst->mutex);
}

/**
 * perf_pmu_migrate_context - move @pmu's CPU-wide events to another CPU
 * @pmu: the PMU whose events move (with the whole of their groups)
 * @src_cpu: the CPU they are on
 * @dst_cpu: the CPU they go to, online
 *
 * For uncore-style PMUs whose reading CPU goes offline. The events keep
 * their counts and times; they run on @dst_cpu from now on. May sleep.
 */
void perf_pmu_migrate_context(struct pmu *pmu, int src_cpu, int dst_cpu)
{
	perf_migrate(pmu, PERF_PMU_SCOPE_NONE, src_cpu, dst_cpu);
}
EXPORT_SYMBOL_GPL(perf_pmu_migrate_context);

/* Every PMU of @scope moves from @src_cpu to @dst_cpu. */
void perf_pmu_migrate_scope(unsigned int scope, int src_cpu, int dst_cpu)
{
	perf_migrate(NULL, scope, src_cpu, dst_cpu);
}
