// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "cpu" PMU's files in sysfs: format/ (the common fields and the
 * vendor's), the vendor's events/ and other groups, caps/, and the
 * rdpmc file (userpage.c).
 */

#include <linux/device.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include "perf_event.h"

/* format/: the event select is the vendor's, the rest is common */
static ssize_t event_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	return sysfs_emit(page, "%s\n", x86_ops->format_event);
}
static DEVICE_ATTR_RO(event);

PMU_STR_ATTR(x86_format_umask, "umask", "config:8-15");
PMU_STR_ATTR(x86_format_edge, "edge", "config:18");
PMU_STR_ATTR(x86_format_inv, "inv", "config:23");
PMU_STR_ATTR(x86_format_cmask, "cmask", "config:24-31");

/* the common fields, then the vendor's (x86_pmu_register()) */
#define X86_FORMAT_COMMON	5
#define X86_FORMAT_MAX		16

static struct attribute *x86_format_attrs[X86_FORMAT_MAX + 1] = {
	&dev_attr_event.attr,
	&x86_format_umask.attr.attr,
	&x86_format_edge.attr.attr,
	&x86_format_inv.attr.attr,
	&x86_format_cmask.attr.attr,
};

static umode_t x86_format_visible(struct kobject *kobj, struct attribute *attr,
				  int i)
{
	if (i < X86_FORMAT_COMMON || !x86_ops->format_visible)
		return attr->mode;
	return x86_ops->format_visible(kobj, attr, i - X86_FORMAT_COMMON);
}

static const struct attribute_group x86_format_group = {
	.name		= "format",
	.attrs		= x86_format_attrs,
	.is_visible	= x86_format_visible,
};

/* caps/: what perf reads to know the PMU */
static ssize_t pmu_name_show(struct device *dev, struct device_attribute *attr,
			     char *page)
{
	return sysfs_emit(page, "%s\n", x86_ops->pmu_name);
}
static DEVICE_ATTR_RO(pmu_name);

static ssize_t max_precise_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", x86_ops->max_precise);
}
static DEVICE_ATTR_RO(max_precise);

/* the depth of the branch stack */
static ssize_t branches_show(struct device *dev, struct device_attribute *attr,
			     char *page)
{
	return sysfs_emit(page, "%d\n", x86_ops->lbr->nr);
}
static DEVICE_ATTR_RO(branches);

static struct attribute *x86_caps_attrs[] = {
	&dev_attr_pmu_name.attr,
	&dev_attr_max_precise.attr,
	&dev_attr_branches.attr,
	NULL,
};

static umode_t x86_caps_visible(struct kobject *kobj, struct attribute *attr,
				int i)
{
	if (attr == &dev_attr_pmu_name.attr && !x86_ops->pmu_name)
		return 0;
	if (attr == &dev_attr_branches.attr && !x86_ops->lbr)
		return 0;
	return attr->mode;
}

static const struct attribute_group x86_caps_group = {
	.name		= "caps",
	.attrs		= x86_caps_attrs,
	.is_visible	= x86_caps_visible,
};

#define X86_PMU_MAX_GROUPS	8

static const struct attribute_group *x86_attr_groups[X86_PMU_MAX_GROUPS];

/**
 * x86_pmu_sysfs_init - the attribute groups of the "cpu" PMU
 * @ops: the vendor driver being registered
 *
 * Return: the NULL-terminated groups, or an ERR_PTR() when the vendor has
 * more than they have room for.
 */
const struct attribute_group ** __init
x86_pmu_sysfs_init(const struct x86_pmu_ops *ops)
{
	int i, n = 0;

	for (i = 0; ops->format_attrs && ops->format_attrs[i]; i++) {
		if (X86_FORMAT_COMMON + i >= X86_FORMAT_MAX)
			return ERR_PTR(-EINVAL);
		x86_format_attrs[X86_FORMAT_COMMON + i] = ops->format_attrs[i];
	}
	x86_attr_groups[n++] = &x86_format_group;
	for (i = 0; ops->attr_groups && ops->attr_groups[i]; i++) {
		if (n >= X86_PMU_MAX_GROUPS - 3)
			return ERR_PTR(-EINVAL);
		x86_attr_groups[n++] = ops->attr_groups[i];
	}
	x86_attr_groups[n++] = &x86_caps_group;
	x86_attr_groups[n++] = &x86_rdpmc_group;
	return x86_attr_groups;
}
