/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output layer of the perf core (output.c): the layout of samples
 * and records, and writing them into a buffer.
 */
#ifndef _KERNEL_EVENTS_LAYER_OUTPUT_H
#define _KERNEL_EVENTS_LAYER_OUTPUT_H

#include "buffer.h"

void perf_event_header_sizes(struct perf_event *event);
void perf_event_header_init(struct perf_event_header *header,
			    struct perf_sample_data *data,
			    struct perf_event *event);
void perf_event_output_id(struct perf_output_handle *handle,
			  struct perf_sample_data *data,
			  struct perf_event *event);
void perf_event_output_lost(struct perf_output_handle *handle, u64 lost);
void perf_output_data_ready(struct perf_event *event, struct perf_buffer *rb);
size_t perf_read_size(struct perf_event *event);
size_t perf_read_format_size(u64 format, int nr);
void perf_output_read(struct perf_output_handle *handle,
		      struct perf_event *event);

/* @event's own count, with that of its children that exited */
static inline u64 perf_event_own_count(struct perf_event *event)
{
	return local64_read(&event->count) + atomic64_read(&event->child_count);
}

/* the id user space knows an event by: inherited copies use the origin's */
static inline u64 perf_primary_id(struct perf_event *event)
{
	return event->parent ? event->parent->id : event->id;
}

#endif /* _KERNEL_EVENTS_LAYER_OUTPUT_H */
