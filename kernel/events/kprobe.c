// SPDX-License-Identifier: GPL-2.0
/*
 * The kprobe PMU (dynamic type, /sys/bus/event_source/devices/kprobe):
 * perf_event_open() itself creates a kprobe, or a kretprobe with the
 * format's "retprobe" bit (config:0), at kprobe_func + probe_offset (or
 * at kprobe_addr when kprobe_func is 0), and the probe goes when the
 * event is freed. The tracing side builds the probe as a local trace
 * event (perf_kprobe_init()); from then on the event is a tracepoint
 * event in all but its PMU, counted and sampled by the tracepoint code.
 *
 * The uprobe PMU, its user-space twin, is in uprobe_pmu.c.
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/trace_events.h>

#include "layer/pmus.h"

#define PERF_KPROBE_RETPROBE	BIT_ULL(0)

PMU_FORMAT_ATTR(retprobe, "config:0");

static struct attribute *perf_kprobe_format_attrs[] = {
	&format_attr_retprobe.attr,
	NULL,
};

static const struct attribute_group perf_kprobe_format_group = {
	.name	= "format",
	.attrs	= perf_kprobe_format_attrs,
};

static const struct attribute_group *perf_kprobe_attr_groups[] = {
	&perf_kprobe_format_group,
	NULL,
};

static struct pmu perf_kprobe_pmu;

/* after the probe is gone, when no hit can be reading the filter */
static void perf_kprobe_event_destroy(struct perf_event *event)
{
	perf_kprobe_destroy(event);
	ftrace_profile_free_filter(event);
}

static int perf_kprobe_event_init(struct perf_event *event)
{
	int err;

	if (event->attr.type != perf_kprobe_pmu.type)
		return -ENOENT;
	/* a probe anywhere in the kernel is not for the unprivileged */
	if (!perfmon_capable())
		return -EACCES;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;

	/* as 6.12's probe PMUs do, config bits other than retprobe are ignored */
	err = perf_kprobe_init(event,
			       event->attr.config & PERF_KPROBE_RETPROBE);
	if (err)
		return err;
	event->event_caps |= PERF_EV_CAP_SOFTWARE;
	event->destroy = perf_kprobe_event_destroy;
	return 0;
}

static struct pmu perf_kprobe_pmu = {
	.event_init	= perf_kprobe_event_init,
	.attr_groups	= perf_kprobe_attr_groups,
};

int __init perf_kprobe_register(void)
{
	perf_tp_pmu_ops(&perf_kprobe_pmu);
	return perf_pmu_register(&perf_kprobe_pmu, "kprobe", -1);
}
