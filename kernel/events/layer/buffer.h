/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The buffer layer of the perf core (ring_buffer.c): the ring buffer
 * behind an event's mapping (struct perf_buffer is in object.h), its
 * readers' wakeups, and output redirection.
 */
#ifndef _KERNEL_EVENTS_LAYER_BUFFER_H
#define _KERNEL_EVENTS_LAYER_BUFFER_H

#include "time.h"

struct perf_buffer *perf_buffer_get(struct perf_event *event);
void perf_buffer_put(struct perf_buffer *rb);
int perf_buffer_attach(struct perf_event *event, struct perf_buffer *rb);
void perf_buffer_wakeup(struct perf_event *event);
int perf_buffer_mmap(struct perf_event *event, struct vm_area_struct *vma);
void perf_buffer_mmap_get(struct perf_event *event, struct perf_buffer *rb);
void perf_buffer_mmap_put(struct perf_event *event, struct perf_buffer *rb);
int perf_mmap_charge_check(long pages, long *extra);
void perf_mmap_charge(struct perf_mmap_charge *c, long pages, long extra);
void perf_mmap_uncharge(struct perf_mmap_charge *c);
int perf_buffer_set_output(struct perf_event *event,
			   struct perf_event *output);
int perf_buffer_pause(struct perf_event *event, bool pause);
void perf_event_release_buffer(struct perf_event *event);

#endif /* _KERNEL_EVENTS_LAYER_BUFFER_H */
