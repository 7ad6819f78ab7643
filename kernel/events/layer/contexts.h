/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contexts layer of the perf core (context.c): a context's life,
 * finding a task's or a CPU's, installing and removing events, and
 * calling a function on a context where it is active.
 */
#ifndef _KERNEL_EVENTS_LAYER_CONTEXTS_H
#define _KERNEL_EVENTS_LAYER_CONTEXTS_H

#include "scheduling.h"

typedef int (*perf_ctx_fn)(struct perf_event_context *ctx, void *info);

struct perf_event_context *perf_ctx_alloc(struct task_struct *task, int cpu);
void perf_ctx_get(struct perf_event_context *ctx);
void perf_ctx_put(struct perf_event_context *ctx);
struct perf_event_context *perf_find_get_context(struct task_struct *task,
						 int cpu);
struct perf_event_context *perf_event_ctx_lock(struct perf_event *event);
int perf_ctx_call(struct perf_event_context *ctx, perf_ctx_fn fn, void *info);
int perf_install_event(struct perf_event_context *ctx,
		       struct perf_event *event);
void perf_remove_event(struct perf_event *event);
int perf_ctx_prepare_task_data(struct perf_event_context *ctx,
			       struct perf_event *event);
void perf_ctx_add_event_locked(struct perf_event_context *ctx,
			       struct perf_event *event);
void perf_ctx_del_event_locked(struct perf_event_context *ctx,
			       struct perf_event *event);
void perf_ctx_unlink_event_locked(struct perf_event_context *ctx,
				  struct perf_event *event);
void perf_cpu_contexts_init(void);

#endif /* _KERNEL_EVENTS_LAYER_CONTEXTS_H */
