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
void perf_output_read(struct perf_output_handle *handle,
		      struct perf_event *event);

/**
 * perf_read_format_size - bytes a read() in @format returns for @nr members
 * @format: a read_format (PERF_FORMAT_* bits)
 * @nr: the number of events read
 *
 * @nr counts the whole group for PERF_FORMAT_GROUP, and is 1 otherwise.
 * Inline: every read() asks, before its fast path decides anything.
 */
static inline size_t perf_read_format_size(u64 format, int nr)
{
	size_t entry = sizeof(u64);
	size_t size = 0;

	if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		size += sizeof(u64);
	if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		size += sizeof(u64);
	if (format & PERF_FORMAT_ID)
		entry += sizeof(u64);
	if (format & PERF_FORMAT_LOST)
		entry += sizeof(u64);
	if (format & PERF_FORMAT_GROUP)
		size += sizeof(u64);
	else
		nr = 1;
	return size + nr * entry;
}

/**
 * perf_read_size - bytes a read() of @event returns
 * @event: the event
 *
 * From the sizes perf_event_header_sizes() packed into read_size: a read
 * with no sibling in the low byte, what each sibling adds in the high.
 */
static inline size_t perf_read_size(struct perf_event *event)
{
	u16 packed = event->read_size;

	return (packed & 0xff) +
	       (packed >> 8) * event->group_leader->nr_siblings;
}

/* @event's own count, with that of its children that exited */
static inline u64 perf_event_own_count(struct perf_event *event)
{
	return local64_read(&event->count) + atomic64_read(&event->child_count);
}

/* is @event->count always current (PERF_PMU_CAP_COUNTS_IN_PLACE)? */
static inline bool perf_event_counts_in_place(struct perf_event *event)
{
	return event->pmu->capabilities & PERF_PMU_CAP_COUNTS_IN_PLACE;
}

/* the id user space knows an event by: inherited copies use the origin's */
static inline u64 perf_primary_id(struct perf_event *event)
{
	return event->parent ? event->parent->id : event->id;
}

#endif /* _KERNEL_EVENTS_LAYER_OUTPUT_H */
