// SPDX-License-Identifier: GPL-2.0
/*
 * What happens when an event overflows: the period bookkeeping of events
 * the kernel counts itself, throttling, the event limit of REFRESH,
 * signals (sigtrap and SIGIO) and handing the sample to the handler.
 */
#include "internal.h"

/**
 * perf_event_overflow - an event passed the end of its sample period
 * @event: the event
 * @data: the sample, started with perf_sample_data_init()
 * @regs: the registers of the interrupted context
 *
 * May run in NMI context. Returns 1 when the PMU should stop the event
 * (throttled or the REFRESH limit reached), 0 otherwise.
 */
int perf_event_overflow(struct perf_event *event,
			struct perf_sample_data *data, struct pt_regs *regs)
{
	if (event->overflow_handler)
		event->overflow_handler(event, data, regs);
	return 0;
}

/**
 * perf_swevent_hit - count @nr occurrences of a kernel-counted event
 *
 * For a sampling event, each time the period runs out this reports an
 * overflow with @data, which the caller started with
 * perf_sample_data_init(). Runs in any context; preemption off.
 */
void perf_swevent_hit(struct perf_event *event, u64 nr,
		      struct perf_sample_data *data, struct pt_regs *regs)
{
	local64_add(nr, &event->count);
}
