// SPDX-License-Identifier: GPL-2.0-only
/*
 * Free-running counters: counters that the CPU runs on its own and that
 * software reads at any time (the TSC, APERF/MPERF, C-state residency,
 * ...). The msr and cstate PMUs share these operations.
 *
 * Nothing is programmed: add() and start() remember the current value in
 * hw.prev_count and read() adds what the counter advanced since. The
 * event's driver sets, in event_init():
 *   hw.event_base   the MSR to read, 0 for the TSC (RDTSC)
 *   hw.config_base  the counter's width in bits (0: 64)
 * and, for a register that holds a reading rather than a count, the
 * x86_freerun_pmu's snapshot() decodes it into the event's value.
 */

#include <linux/export.h>
#include <linux/perf_event.h>

#include <asm/msr.h>

#include "perf_event.h"

static u64 x86_freerun_raw(struct hw_perf_event *hwc)
{
	u64 val;

	if (!hwc->event_base)
		return rdtsc_ordered();

	rdmsrl(hwc->event_base, val);
	return val;
}

/* Bring event->count up to date; IRQs off, on the CPU the event runs on. */
static void x86_freerun_update(struct perf_event *event)
{
	struct x86_freerun_pmu *fp = container_of(event->pmu,
						  struct x86_freerun_pmu, pmu);
	struct hw_perf_event *hwc = &event->hw;
	unsigned int shift = hwc->config_base ? 64 - hwc->config_base : 0;
	u64 prev, now, delta;

	if (fp->snapshot && fp->snapshot(event, &now)) {
		local64_set(&event->count, now);
		return;
	}

	/* An NMI may read the event meanwhile: claim [prev, now] atomically. */
	do {
		prev = local64_read(&hwc->prev_count);
		now = x86_freerun_raw(hwc);
	} while (local64_cmpxchg(&hwc->prev_count, prev, now) != prev);

	/* Modulo the counter's width, so that a wrap-around counts right. */
	delta = ((now << shift) - (prev << shift)) >> shift;
	local64_add(delta, &event->count);
}

/**
 * x86_freerun_start - pmu::start of a free-running counter
 * @event: the event
 * @flags: PERF_EF_* flags (unused: the counter is never reloaded)
 */
void x86_freerun_start(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	local64_set(&hwc->prev_count, x86_freerun_raw(hwc));
	hwc->state = 0;
}
EXPORT_SYMBOL_GPL(x86_freerun_start);

/**
 * x86_freerun_stop - pmu::stop of a free-running counter
 * @event: the event
 * @flags: PERF_EF_UPDATE to bring the count up to date
 */
void x86_freerun_stop(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	if (flags & PERF_EF_UPDATE) {
		x86_freerun_update(event);
		hwc->state |= PERF_HES_UPTODATE;
	}
	hwc->state |= PERF_HES_STOPPED;
}
EXPORT_SYMBOL_GPL(x86_freerun_stop);

/**
 * x86_freerun_add - pmu::add of a free-running counter
 * @event: the event
 * @flags: PERF_EF_START to start it at once
 *
 * Return: 0; a free-running counter is always there to read.
 */
int x86_freerun_add(struct perf_event *event, int flags)
{
	struct hw_perf_event *hwc = &event->hw;

	local64_set(&hwc->prev_count, x86_freerun_raw(hwc));
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		x86_freerun_start(event, flags);
	return 0;
}
EXPORT_SYMBOL_GPL(x86_freerun_add);

/**
 * x86_freerun_del - pmu::del of a free-running counter
 * @event: the event
 * @flags: PERF_EF_* flags (unused)
 */
void x86_freerun_del(struct perf_event *event, int flags)
{
	x86_freerun_stop(event, PERF_EF_UPDATE);
}
EXPORT_SYMBOL_GPL(x86_freerun_del);

/**
 * x86_freerun_read - pmu::read of a free-running counter
 * @event: the event, on this CPU
 */
void x86_freerun_read(struct perf_event *event)
{
	/* A stopped event was brought up to date when it stopped. */
	if (event->hw.state & PERF_HES_STOPPED)
		return;
	x86_freerun_update(event);
}
EXPORT_SYMBOL_GPL(x86_freerun_read);
