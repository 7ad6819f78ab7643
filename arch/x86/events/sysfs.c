// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "cpu" PMU's files in sysfs: format/ (the common fields and the
 * vendor's), the vendor's events/ and other groups, caps/, and the
 * rdpmc file (userpage.c).
 */

#include <linux/cpumask.h>
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

/* the depth of the branch stack of the PMU's kind of core */
static ssize_t branches_show(struct device *dev, struct device_attribute *attr,
			     char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return sysfs_emit(page, "%d\n",
			  container_of(pmu, struct x86_cpu_type, pmu)->lbr_nr);
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

/* hybrid: the CPUs of the PMU's kind of core, which perf opens it on */
static ssize_t cpus_show(struct device *dev, struct device_attribute *attr,
			 char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return cpumap_print_to_pagebuf(true, page, pmu->supported_cpus);
}
static DEVICE_ATTR_RO(cpus);

static struct attribute *x86_hybrid_attrs[] = {
	&dev_attr_cpus.attr,
	NULL,
};

static const struct attribute_group x86_hybrid_group = {
	.attrs		= x86_hybrid_attrs,
};

/**
 * x86_pmu_sysfs_init - the attribute groups of a kind of core's PMU
 * @ops: the vendor driver being registered
 * @type: the kind of core: its groups are filled in (@type->groups)
 *
 * Return: 0, or -EINVAL when the vendor has more than they have room for.
 */
int __init x86_pmu_sysfs_init(const struct x86_pmu_ops *ops,
			      struct x86_cpu_type *type)
{
	const struct attribute_group **groups = type->groups;
	int i, n = 0;

	for (i = 0; ops->format_attrs && ops->format_attrs[i]; i++) {
		if (X86_FORMAT_COMMON + i >= X86_FORMAT_MAX)
			return -EINVAL;
		x86_format_attrs[X86_FORMAT_COMMON + i] = ops->format_attrs[i];
	}
	groups[n++] = &x86_format_group;
	for (i = 0; type->attr_groups && type->attr_groups[i]; i++) {
		if (n >= X86_PMU_MAX_GROUPS - 4)
			return -EINVAL;
		groups[n++] = type->attr_groups[i];
	}
	groups[n++] = &x86_caps_group;
	groups[n++] = &x86_rdpmc_group;
	if (x86_nr_types > 1)
		groups[n++] = &x86_hybrid_group;
	groups[n] = NULL;
	return 0;
}
