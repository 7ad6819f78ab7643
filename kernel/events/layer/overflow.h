/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The overflow layer of the perf core (overflow.c bpf.c): what a counter
 * overflow or a software hit does (samples, signals, throttling,
 * wakeups), and BPF programs attached to events.
 */
#ifndef _KERNEL_EVENTS_LAYER_OVERFLOW_H
#define _KERNEL_EVENTS_LAYER_OVERFLOW_H

#include "counting.h"

/* overflow.c */
void perf_event_wakeup_init(struct perf_event *event);
void perf_event_sigtrap_cancel(struct perf_event *event);
void perf_event_throttle_tick(struct perf_cpu_context *cpuctx);
bool perf_event_unthrottle_late(struct perf_event *event);
void perf_swevent_hit(struct perf_event *event, u64 nr,
		      struct perf_sample_data *data, struct pt_regs *regs);

/* bpf.c: BPF programs on events */
#ifdef CONFIG_BPF_SYSCALL
int perf_event_ioctl_set_bpf(struct perf_event *event, u32 fd);
int perf_event_ioctl_query_bpf(struct perf_event *event, void __user *info);
void perf_event_inherit_bpf_prog(struct perf_event *child,
				 struct perf_event *parent);
bool perf_event_bpf_overflow(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs);
#else
static inline int perf_event_ioctl_set_bpf(struct perf_event *event, u32 fd)
{
	return -EOPNOTSUPP;
}
static inline int perf_event_ioctl_query_bpf(struct perf_event *event,
					     void __user *info)
{
	return -EOPNOTSUPP;
}
static inline void perf_event_inherit_bpf_prog(struct perf_event *child,
					       struct perf_event *parent) { }
static inline bool perf_event_bpf_overflow(struct perf_event *event,
					   struct perf_sample_data *data,
					   struct pt_regs *regs)
{
	return true;
}
#endif
/* in bpf.c; callers test IS_ENABLED(CONFIG_BPF_SYSCALL) */
void perf_event_free_bpf_prog(struct perf_event *event);

#endif /* _KERNEL_EVENTS_LAYER_OVERFLOW_H */
