/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PMUs layer of the perf core (swevent.c tracepoint.c kprobe.c
 * uprobe_pmu.c): the PMUs the core itself provides, whose hits go
 * through the overflow layer.
 */
#ifndef _KERNEL_EVENTS_LAYER_PMUS_H
#define _KERNEL_EVENTS_LAYER_PMUS_H

#include "overflow.h"

/* Does exclude_user/exclude_kernel drop a hit at the privilege of @regs? */
static inline bool perf_hit_priv_excluded(struct perf_event *event,
					  struct pt_regs *regs)
{
	if (!regs)
		return false;
	return user_mode(regs) ? event->attr.exclude_user
			       : event->attr.exclude_kernel;
}

/**
 * perf_hit_excluded - whether a kernel-counted event ignores this hit
 * @event: the event hit
 * @regs: where it happened, if known
 *
 * A stopped event counts nothing; exclude_user/exclude_kernel drop hits
 * by the privilege level of @regs. The one test of every software-path
 * PMU (software events, tracepoints, breakpoints), which add their own.
 */
static inline bool perf_hit_excluded(struct perf_event *event,
				     struct pt_regs *regs)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return true;
	return perf_hit_priv_excluded(event, regs);
}

/* swevent.c */
int perf_swevent_register(void);

/* tracepoint.c */
#ifdef CONFIG_EVENT_TRACING
void perf_tp_pmu_ops(struct pmu *pmu);
int perf_tracepoint_register(void);
int perf_tracepoint_set_filter(struct perf_event *event, void __user *arg);
#else
static inline int perf_tracepoint_register(void) { return 0; }
static inline int perf_tracepoint_set_filter(struct perf_event *event,
					     void __user *arg)
{
	return -EINVAL;
}
#endif

/* kprobe.c */
#ifdef CONFIG_KPROBE_EVENTS
int perf_kprobe_register(void);
#else
static inline int perf_kprobe_register(void) { return 0; }
#endif

/* uprobe_pmu.c */
#ifdef CONFIG_UPROBE_EVENTS
int perf_uprobe_register(void);
#else
static inline int perf_uprobe_register(void) { return 0; }
#endif

#endif /* _KERNEL_EVENTS_LAYER_PMUS_H */
