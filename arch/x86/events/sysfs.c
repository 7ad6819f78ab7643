// SPDX-License-Identifier: GPL-2.0-only
/*
 * Helpers for the sysfs attributes of the x86 PMUs
 * (/sys/bus/event_source/devices/<pmu>/{format,events}/).
 */

#include <linux/device.h>
#include <linux/sysfs.h>

#include "perf_event.h"

/**
 * x86_pmu_str_show - show() of a struct x86_pmu_str_attr
 * @dev: the PMU's device
 * @attr: the attribute, embedded in a struct x86_pmu_str_attr
 * @page: the sysfs buffer
 *
 * Return: the number of bytes written to @page.
 */
ssize_t x86_pmu_str_show(struct device *dev, struct device_attribute *attr,
			 char *page)
{
	struct x86_pmu_str_attr *sa =
		container_of(attr, struct x86_pmu_str_attr, attr);

	return sysfs_emit(page, "%s\n", sa->str);
}
