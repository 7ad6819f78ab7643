/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The records layer of the perf core (records.c, aux.c): the side-band
 * records (MMAP, COMM, FORK, EXIT, SWITCH, THROTTLE, CGROUP, ...) and the
 * AUX area with its records. Below scheduling, which writes SWITCH,
 * UNTHROTTLE and ITRACE_START records itself.
 */
#ifndef _KERNEL_EVENTS_LAYER_RECORDS_H
#define _KERNEL_EVENTS_LAYER_RECORDS_H

#include "output.h"

void perf_log_throttle(struct perf_event *event, bool enable);

/* the kinds of side-band record that events ask for (attr bits) */
enum perf_sb_kind {
	PERF_SB_COMM,
	PERF_SB_MMAP,
	PERF_SB_TASK,
	PERF_SB_SWITCH,
	PERF_SB_NS,
	PERF_SB_KSYMBOL,
	PERF_SB_CGROUP,
	PERF_SB_TEXT_POKE,
	PERF_SB_BPF,
	PERF_SB_NR
};
extern atomic_t perf_sb_nr[PERF_SB_NR];

/* does any event want records of @kind? (the records' fast exit) */
static inline bool perf_sb_wanted(enum perf_sb_kind kind)
{
	return atomic_read(&perf_sb_nr[kind]);
}

void __perf_event_switch(struct task_struct *task, struct task_struct *next,
			 bool sched_in);

/* SWITCH records, if any event wants them: inline, as few do */
static inline void perf_event_switch(struct task_struct *task,
				     struct task_struct *next, bool sched_in)
{
	if (perf_sb_wanted(PERF_SB_SWITCH))
		__perf_event_switch(task, next, sched_in);
}
void perf_event_task_exit_record(struct task_struct *task);
void perf_mmap_record(struct vm_area_struct *vma);
void perf_event_read_record(struct perf_event *child);
void perf_sb_account(struct perf_event *event, int delta);
void perf_sb_write(struct perf_event *event, struct perf_event_header *header,
		   const void *body, unsigned int body_size,
		   const void *tail, unsigned int tail_size);

/* aux.c: the AUX area and the records about AUX streams */
int perf_aux_mmap(struct perf_event *event, struct vm_area_struct *vma);
void perf_log_itrace_start(struct perf_event *event);
int perf_aux_group_check(struct perf_event *event, struct perf_event *leader);
#ifdef CONFIG_CGROUP_PERF
void perf_event_cgroup_record(struct cgroup *cgrp);
#endif

#endif /* _KERNEL_EVENTS_LAYER_RECORDS_H */
