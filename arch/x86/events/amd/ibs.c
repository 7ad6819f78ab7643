// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD instruction based sampling (IBS): the entry points that other code
 * calls into the IBS driver. There is no IBS driver yet.
 */

#include <linux/errno.h>
#include <linux/export.h>
#include <linux/perf_event.h>

#include <asm/perf_event.h>

/**
 * get_ibs_caps - the IBS capabilities the host's IBS driver supports
 *
 * Return: the IBS_CAPS_* flags (CPUID Fn8000_001B_EAX) of the active IBS
 * driver, 0 while there is none.
 */
u32 get_ibs_caps(void)
{
	return 0;
}
EXPORT_SYMBOL(get_ibs_caps);

/**
 * forward_event_to_ibs - let the IBS PMU take a core PMU event
 * @event: an event of the core PMU that asked for precise sampling
 *
 * Return: -ENOENT: without an IBS PMU the event is not taken.
 */
int forward_event_to_ibs(struct perf_event *event)
{
	return -ENOENT;
}
