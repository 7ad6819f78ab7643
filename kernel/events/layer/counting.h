/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counting layer of the perf core (read.c control.c swap.c scope.c
 * addr_filter.c): reading counts, enable/disable/reset/period, the swap
 * of equivalent task contexts, PMUs scoped to a core, die or package,
 * and address filters.
 */
#ifndef _KERNEL_EVENTS_LAYER_COUNTING_H
#define _KERNEL_EVENTS_LAYER_COUNTING_H

#include "contexts.h"

/* read.c */
void perf_event_sync(struct perf_event *event);
u64 perf_event_total(struct perf_event *event, u64 *enabled, u64 *running);
ssize_t perf_event_read_to_user(struct perf_event *event, char __user *buf,
				size_t count);

/* control.c: enable, disable, reset, period */
void perf_event_enable_locked(struct perf_event_context *ctx,
			      struct perf_event *event);
int perf_event_ctl_enable(struct perf_event *event, bool group);
int perf_event_ctl_disable(struct perf_event *event, bool group);
int perf_event_ctl_reset(struct perf_event *event, bool group);
int perf_event_ctl_period(struct perf_event *event, u64 value);

/* addr_filter.c: address filters (PERF_EVENT_IOC_SET_FILTER) */
int perf_addr_filters_set(struct perf_event *event, void __user *arg);
void perf_addr_filters_mmap(struct vm_area_struct *vma);
void perf_addr_filters_exec(struct task_struct *task);
int perf_addr_filters_inherit(struct perf_event *child,
			      struct perf_event *parent);
void perf_addr_filters_free(struct perf_event *event);

/* swap.c */
void perf_ctx_clone_mark(struct perf_event_context *parent_ctx,
			 struct perf_event_context *child_ctx);
bool __perf_ctx_try_swap(struct perf_event_context *ctx,
			 struct task_struct *prev, struct task_struct *next);

/* only a clone (clone_id set) can be equivalent to another context */
static inline bool perf_ctx_try_swap(struct perf_event_context *ctx,
				     struct task_struct *prev,
				     struct task_struct *next)
{
	if (!READ_ONCE(ctx->clone_id))
		return false;
	return __perf_ctx_try_swap(ctx, prev, next);
}
void perf_ctx_unswap(struct task_struct *task);
bool perf_ctx_pin_home(struct perf_event_context *ctx,
		       struct task_struct *task);

/* scope.c: scoped PMUs and event migration */
void perf_scope_cpu_online(unsigned int cpu);
void perf_scope_cpu_offline(unsigned int cpu);
void perf_pmu_migrate_scope(unsigned int scope, int src_cpu, int dst_cpu);
bool perf_scope_shared(struct pmu *pmu, int cpu, int other);

#endif /* _KERNEL_EVENTS_LAYER_COUNTING_H */
