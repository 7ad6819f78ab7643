// SPDX-License-Identifier: GPL-2.0
/*
 * The uprobe PMU (dynamic type, /sys/bus/event_source/devices/uprobe):
 * perf_event_open() itself creates a uprobe, or a uretprobe with the
 * format's "retprobe" bit (config:0), at probe_offset (config2) of the
 * file named by uprobe_path (config1), with an SDT semaphore at
 * ref_ctr_offset (config:32-63) when not 0; the probe goes when the event
 * is freed. As for kprobes (kprobe.c), the tracing side builds the probe
 * as a local trace event (perf_uprobe_init()), and from then on the
 * event is a tracepoint event in all but its PMU. The probes themselves
 * are the uprobes core's (uprobes/).
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/trace_events.h>

#include "layer/pmus.h"

#define PERF_UPROBE_RETPROBE		BIT_ULL(0)
#define PERF_UPROBE_REF_CTR_SHIFT	32

PMU_FORMAT_ATTR(retprobe, "config:0");
PMU_FORMAT_ATTR(ref_ctr_offset, "config:32-63");

static struct attribute *perf_uprobe_format_attrs[] = {
	&format_attr_retprobe.attr,
	&format_attr_ref_ctr_offset.attr,
	NULL,
};

static const struct attribute_group perf_uprobe_format_group = {
	.name	= "format",
	.attrs	= perf_uprobe_format_attrs,
};

static const struct attribute_group *perf_uprobe_attr_groups[] = {
	&perf_uprobe_format_group,
	NULL,
};

static struct pmu perf_uprobe_pmu;

/* after the probe is gone, when no hit can be reading the filter */
static void perf_uprobe_event_destroy(struct perf_event *event)
{
	perf_uprobe_destroy(event);
	ftrace_profile_free_filter(event);
}

static int perf_uprobe_event_init(struct perf_event *event)
{
	unsigned long ref_ctr_offset;
	int err;

	if (event->attr.type != perf_uprobe_pmu.type)
		return -ENOENT;
	/* a probe in any process's text is not for the unprivileged */
	if (!perfmon_capable())
		return -EACCES;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;

	ref_ctr_offset = event->attr.config >> PERF_UPROBE_REF_CTR_SHIFT;
	err = perf_uprobe_init(event, ref_ctr_offset,
			       event->attr.config & PERF_UPROBE_RETPROBE);
	if (err)
		return err;
	event->event_caps |= PERF_EV_CAP_SOFTWARE;
	event->destroy = perf_uprobe_event_destroy;
	return 0;
}

static struct pmu perf_uprobe_pmu = {
	.event_init	= perf_uprobe_event_init,
	.attr_groups	= perf_uprobe_attr_groups,
};

int __init perf_uprobe_register(void)
{
	perf_tp_pmu_ops(&perf_uprobe_pmu);
	return perf_pmu_register(&perf_uprobe_pmu, "uprobe", -1);
}
