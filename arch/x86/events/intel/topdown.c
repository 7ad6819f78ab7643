// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hardware top-down metrics (Ice Lake on): fixed counter 3 counts the
 * pipeline's issue slots (TOPDOWN.SLOTS) and IA32_PERF_METRICS holds,
 * as 8-bit fractions of 0xff, how those slots split into retiring, bad
 * speculation, frontend bound and backend bound, since software last
 * cleared both registers (Intel SDM vol. 3, "Performance Metrics").
 *
 * The ABI (tools/perf/Documentation/topdown.txt): "slots" is the pseudo
 * event 0x0400 on fixed counter 3 and leads a group; the metric events
 * are the pseudo events 0x8000-0x8300, counting members of that group,
 * read with the group. A metric event's count is its share of the
 * slots: each update multiplies the slots counted since the last one by
 * the metric's fraction, adds that to the metric and the slots to the
 * leader, and clears both registers, so that the fractions keep their
 * precision. rdpmc reads the metrics register as index 1 << 29.
 *
 * The metric events sit on pseudo counter indices
 * INTEL_PMC_IDX_METRIC_BASE + n, which are never programmed: they share
 * fixed counter 3 with the slots event, and GLOBAL_CTRL has one enable
 * bit (48) for them all.
 */

#include <linux/math64.h>
#include <linux/perf_event.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

#define TD_SLOTS_IDX		INTEL_PMC_IDX_FIXED_SLOTS

bool intel_td __ro_after_init;
/* the metrics PERF_METRICS has: 4 (level 1), or 8 with level 2 */
static int intel_td_metrics __ro_after_init;

/* an update in progress on this CPU: the PMI leaves it the registers */
static DEFINE_PER_CPU(bool, intel_td_busy);

/**
 * intel_td_init - whether the big cores have the top-down metrics
 * @caps: IA32_PERF_CAPABILITIES (0 without)
 * @num_fixed: their fixed counters
 * @metrics: how many metrics PERF_METRICS holds (4 or 8)
 *
 * Return: true when fixed counter 3 and PERF_METRICS exist.
 */
bool __init intel_td_init(u64 caps, int num_fixed, int metrics)
{
	intel_td = num_fixed > 3 && (caps & BIT_ULL(PERF_CAP_METRICS_IDX));
	intel_td_metrics = metrics;
	return intel_td;
}

/* the metric (0-3, or 0-7 with level 2) of a pseudo config, or -1 */
static int intel_td_metric(u64 config)
{
	u64 code = config & INTEL_ARCH_EVENT_MASK;

	if (code < INTEL_TD_METRIC_RETIRING ||
	    code >= INTEL_TD_METRIC_RETIRING + (intel_td_metrics << 8) ||
	    (code & 0xff))
		return -1;
	return (code - INTEL_TD_METRIC_RETIRING) >> 8;
}

static bool intel_td_is_slots(u64 config)
{
	return (config & INTEL_ARCH_EVENT_MASK) == INTEL_TD_SLOTS;
}

/* @leader is a counting slots event of @event's PMU, as a metric's must be */
static bool intel_td_counting_slots(struct perf_event *event,
				    struct perf_event *leader)
{
	return leader != event && leader->pmu == event->pmu &&
	       x86_raw_event(leader) &&
	       intel_td_is_slots(leader->attr.config) &&
	       !is_sampling_event(leader);
}

/**
 * intel_td_constraint - the counter a top-down config goes on
 * @event: the event
 * @config: its raw config
 *
 * A metric event whose group lost its slots leader (closed: the members
 * become groups of their own) gets no counter: the registers it would
 * read may be a sampling slots event's. Called only for an event of a
 * kind of core that has the metrics (x86_cpu_type.td).
 *
 * Return: fixed counter 3 for slots, the metric's pseudo index for a
 * metric event in a counting slots group, 0 otherwise.
 */
u64 intel_td_constraint(struct perf_event *event, u64 config)
{
	int m;

	if (intel_td_is_slots(config))
		return BIT_ULL(TD_SLOTS_IDX);
	m = intel_td_metric(config);
	if (m < 0 || !intel_td_counting_slots(event, event->group_leader))
		return 0;
	return BIT_ULL(INTEL_PMC_IDX_METRIC_BASE + m);
}

/**
 * intel_td_config - the checks of a top-down event at open
 * @event: the new event
 * @config: its raw config
 *
 * A metric event counts only as a member of a group led by a counting
 * slots event, and only as part of the group's read; nothing samples on
 * the metrics. A slots event may sample: it then has fixed counter 3
 * to itself (no metric can join it), and counts and samples as any
 * fixed counter does. The leader's check is on its config: the group's
 * other members may be anything.
 *
 * Return: 0, or -EINVAL.
 */
int intel_td_config(struct perf_event *event, u64 config)
{
	struct perf_event *leader = event->group_leader;

	/* not on a hybrid CPU's Atom: its metrics are ordinary events */
	if (!x86_event_type(event)->td)
		return 0;
	if (intel_td_metric(config) < 0)
		return 0;
	if (is_sampling_event(event) ||
	    !intel_td_counting_slots(event, leader) ||
	    !(event->attr.read_format & PERF_FORMAT_GROUP))
		return -EINVAL;
	/* its leader closed, it is done (the core's error state) */
	event->event_caps |= PERF_EV_CAP_SIBLING;
	return 0;
}

/**
 * intel_td_counter - the registers of a top-down counter index
 * @idx: TD_SLOTS_IDX or a metric's pseudo index
 * @msr: what holds its count
 * @rdpmc: its RDPMC index
 * @bits: the width of that value
 */
void intel_td_counter(int idx, unsigned long *msr, int *rdpmc, int *bits)
{
	if (idx == TD_SLOTS_IDX) {
		*msr = MSR_CORE_PERF_FIXED_CTR3;
		*rdpmc = INTEL_PMC_FIXED_RDPMC_BASE | 3;
		*bits = x86_pmu_hw.cntval_bits_fixed;
		return;
	}
	*msr = MSR_PERF_METRICS;
	*rdpmc = INTEL_PMC_FIXED_RDPMC_METRICS;
	*bits = 64;
}

/* @metrics' share of @slots for metric @m, as the fraction says */
static u64 intel_td_share(u64 slots, u64 metrics, int m)
{
	return mul_u64_u32_div(slots, (metrics >> (8 * m)) & 0xff, 0xff);
}

/*
 * Count what fixed counter 3 and PERF_METRICS hold since the last
 * update into the slots event and the metric events counting on this
 * CPU (and @event, which may be being stopped), then clear both. A
 * wrap of the slots counter (@wrapped, from the PMI) adds its range.
 */
static void intel_td_count(struct perf_event *event, bool wrapped)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct perf_event *on_slots = cpuc->events[TD_SLOTS_IDX];
	u64 mask, slots, metrics;
	int idx;

	/* a sampling slots event's counter is its own (no metric with it) */
	if (on_slots && is_sampling_event(on_slots))
		return;
	rdmsrl(MSR_CORE_PERF_FIXED_CTR3, slots);
	rdmsrl(MSR_PERF_METRICS, metrics);
	if (wrapped)
		slots += BIT_ULL(x86_pmu_hw.cntval_bits_fixed);

	mask = cpuc->active & (INTEL_TD_METRIC_IDX_MASK | BIT_ULL(TD_SLOTS_IDX));
	if (event)
		mask |= BIT_ULL(event->hw.idx);
	for_each_set_bit(idx, (unsigned long *)&mask, X86_PMC_IDX_MAX) {
		struct perf_event *e = cpuc->events[idx];

		if (!e)
			continue;
		if (idx == TD_SLOTS_IDX)
			local64_add(slots, &e->count);
		else
			local64_add(intel_td_share(slots, metrics,
						   idx - INTEL_PMC_IDX_METRIC_BASE),
				    &e->count);
	}
	wrmsrl(MSR_CORE_PERF_FIXED_CTR3, 0);
	wrmsrl(MSR_PERF_METRICS, 0);
	/* a self-reader's rdpmc now starts from 0 again */
	for_each_set_bit(idx, (unsigned long *)&mask, X86_PMC_IDX_MAX)
		if (cpuc->events[idx])
			perf_event_update_userpage(cpuc->events[idx]);
}

/**
 * intel_td_update - bring the counts of this CPU's top-down events up to date
 * @event: the top-down event being read or stopped
 *
 * One update counts for all the CPU's top-down events: they share the
 * registers, which it clears. With IRQs off; a PMI coming in the middle
 * leaves the registers to this update.
 *
 * Return: 0, what a cleared counter holds.
 */
u64 intel_td_update(struct perf_event *event)
{
	bool *busy = this_cpu_ptr(&intel_td_busy);

	if (*busy)
		return 0;
	*busy = true;
	barrier();
	intel_td_count(event, false);
	barrier();
	*busy = false;
	return 0;
}

/**
 * intel_td_start - a top-down event starts: its counts start from here
 * @event: the event
 *
 * The slots event starts the registers from 0; a metric event counts
 * from the next update, which the slots event of its group brackets.
 */
void intel_td_start(struct perf_event *event)
{
	if (event->hw.idx != TD_SLOTS_IDX)
		return;
	wrmsrl(MSR_CORE_PERF_FIXED_CTR3, 0);
	wrmsrl(MSR_PERF_METRICS, 0);
}

/**
 * intel_td_pmi - the PMI found the slots counter or PERF_METRICS overflowed
 * @status: GLOBAL_STATUS
 *
 * Counts what the registers hold (the slots counter's range for its
 * wrap) and clears them. A sampling slots event's wrap is an overflow
 * like any other counter's: left to the caller.
 *
 * Return: the status bits handled here.
 */
u64 intel_td_pmi(u64 status)
{
	struct perf_event *slots = this_cpu_ptr(&cpu_hw_events)->events[TD_SLOTS_IDX];
	u64 mine = status & BIT_ULL(GLOBAL_STATUS_PERF_METRICS_OVF_BIT);

	if (!slots || !is_sampling_event(slots))
		mine |= status & BIT_ULL(TD_SLOTS_IDX);
	if (mine && !this_cpu_read(intel_td_busy))
		intel_td_count(NULL, mine & BIT_ULL(TD_SLOTS_IDX));
	return mine;
}
