/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry layer of the perf core (lifecycle.c hooks.c cgroup_hooks.c
 * task.c hw_breakpoint.c fops.c syscall.c init.c): what the rest of the
 * kernel and user space call. Nothing below calls up here except
 * perf_event_free() (object.h says why).
 */
#ifndef _KERNEL_EVENTS_LAYER_ENTRY_H
#define _KERNEL_EVENTS_LAYER_ENTRY_H

#include "pmus.h"

/* lifecycle.c: an event's life */
struct perf_event *perf_event_alloc(struct perf_event_attr *attr, int cpu,
				    struct task_struct *task,
				    struct perf_event *group_leader,
				    struct perf_event *parent,
				    perf_overflow_handler_t handler,
				    void *context, int cgroup_fd);
struct perf_event_context *perf_open_context(struct task_struct *task,
					     int cpu);
int perf_event_attach(struct perf_event *event, struct perf_event *leader,
		      struct task_struct *task,
		      struct perf_event_context *ctx);

/* cgroup_hooks.c */
#ifdef CONFIG_CGROUP_PERF
void __perf_cgroup_sched_in(struct task_struct *task);
int perf_cgroup_connect(struct perf_event *event, int fd,
			struct perf_event *leader);

/* the scheduler hook's part: inline, as most CPUs have no cgroup event */
static inline void perf_cgroup_sched_in(struct task_struct *task)
{
	if (READ_ONCE(this_cpu_ptr(&perf_cpu_context)->nr_cgroups))
		__perf_cgroup_sched_in(task);
}
#else
static inline void perf_cgroup_sched_in(struct task_struct *task) { }
static inline int perf_cgroup_connect(struct perf_event *event, int fd,
				      struct perf_event *leader)
{
	return -EINVAL;
}
#endif

/* fops.c */
int perf_event_set_output(struct perf_event *event, struct perf_event *output);

/* syscall.c */
extern const struct file_operations perf_fops;

/* hw_breakpoint.c */
int perf_breakpoint_init(void);

#endif /* _KERNEL_EVENTS_LAYER_ENTRY_H */
