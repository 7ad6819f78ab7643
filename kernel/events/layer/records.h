/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records layer of the perf core (records.c): the side-band records
 * (MMAP, COMM, FORK, EXIT, SWITCH, THROTTLE, CGROUP, ...). Below
 * scheduling, which writes SWITCH and UNTHROTTLE records itself.
 */
#ifndef _KERNEL_EVENTS_LAYER_RECORDS_H
#define _KERNEL_EVENTS_LAYER_RECORDS_H

#include "output.h"

void perf_log_throttle(struct perf_event *event, bool enable);
void __perf_event_switch(struct task_struct *task, struct task_struct *next,
			 bool sched_in);
extern atomic_t perf_nr_switch_events;

/* SWITCH records, if any event wants them: inline, as few do */
static inline void perf_event_switch(struct task_struct *task,
				     struct task_struct *next, bool sched_in)
{
	if (atomic_read(&perf_nr_switch_events))
		__perf_event_switch(task, next, sched_in);
}
void perf_event_task_exit_record(struct task_struct *task);
void perf_event_read_record(struct perf_event *child);
void perf_sb_account(struct perf_event *event, int delta);
#ifdef CONFIG_CGROUP_PERF
void perf_event_cgroup_record(struct cgroup *cgrp);
#endif

#endif /* _KERNEL_EVENTS_LAYER_RECORDS_H */
