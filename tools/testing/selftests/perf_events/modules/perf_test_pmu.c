// SPDX-License-Identifier: GPL-2.0
/*
 * A device PMU driver for the selftests (device_pmu.c), built out of tree
 * as a module: it uses the driver API that uncore, iommu, idxd and
 * nvdimm PMUs use, so that a test can check what the core does for them.
 *
 * Two PMUs, each with four counters and no interrupt:
 *   perf_test_sys  system-wide scope (the core picks its reading CPU and
 *                  shows it in cpumask);
 *   perf_test_mig  no scope: the driver reads on any CPU and moves its
 *                  events away from a CPU going offline itself, with
 *                  perf_pmu_migrate_context(), showing its own cpumask.
 * Events (config): 1 "cpu" reads as 1 + the CPU the counter is on;
 * 2 "starts" counts how often the counter was started.
 *
 * Parameter "took" (write "COUNT NS"): reports COUNT PMU interrupts of
 * NS nanoseconds each to perf_sample_event_took() on the writer's CPU,
 * as a driver's interrupt handler does, so that sysctl.c can check how
 * the core lowers perf_event_max_sample_rate.
 */
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/moduleparam.h>

#define TEST_PMU_COUNTERS	4

enum { TEST_EV_CPU = 1, TEST_EV_STARTS = 2 };

struct test_pmu {
	struct pmu		pmu;
	const char		*name;
	cpumask_t		reader;	/* perf_test_mig only */
};

static int test_pmu_event_init(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling;
	int n = 1;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (event->attr.config != TEST_EV_CPU &&
	    event->attr.config != TEST_EV_STARTS)
		return -EINVAL;
	if (event->cpu < 0)
		return -EINVAL;
	/* the group must fit the counters */
	if (leader != event) {
		n += leader->pmu == event->pmu;
		for_each_sibling_event(sibling, leader)
			n += sibling->pmu == event->pmu;
	}
	return n > TEST_PMU_COUNTERS ? -EINVAL : 0;
}

static void test_pmu_read(struct perf_event *event)
{
	if (event->attr.config == TEST_EV_CPU)
		local64_set(&event->count, smp_processor_id() + 1);
}

static void test_pmu_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
	if (event->attr.config == TEST_EV_STARTS)
		local64_inc(&event->count);
	test_pmu_read(event);
}

static void test_pmu_stop(struct perf_event *event, int flags)
{
	if (!event->hw.state)
		test_pmu_read(event);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int test_pmu_add(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		test_pmu_start(event, flags);
	return 0;
}

static void test_pmu_del(struct perf_event *event, int flags)
{
	test_pmu_stop(event, flags);
}

PMU_FORMAT_ATTR(event, "config:0-7");

static struct attribute *test_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group test_format_group = {
	.name	= "format",
	.attrs	= test_format_attrs,
};

PMU_EVENT_ATTR_STRING(cpu, test_ev_cpu, "event=0x1");
PMU_EVENT_ATTR_STRING(starts, test_ev_starts, "event=0x2");

static struct attribute *test_event_attrs[] = {
	&test_ev_cpu.attr.attr,
	&test_ev_starts.attr.attr,
	NULL,
};

static const struct attribute_group test_event_group = {
	.name	= "events",
	.attrs	= test_event_attrs,
};

static const struct attribute_group *test_sys_groups[] = {
	&test_format_group,
	&test_event_group,
	NULL,
};

static struct test_pmu test_mig;

static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return cpumap_print_to_pagebuf(true, buf, &test_mig.reader);
}
static DEVICE_ATTR_RO(cpumask);

static struct attribute *test_mig_attrs[] = {
	&dev_attr_cpumask.attr,
	NULL,
};

static const struct attribute_group test_mig_group = {
	.attrs	= test_mig_attrs,
};

static const struct attribute_group *test_mig_groups[] = {
	&test_format_group,
	&test_event_group,
	&test_mig_group,
	NULL,
};

#define TEST_PMU_INIT(_groups, _scope) {				\
	.module		= THIS_MODULE,					\
	.task_ctx_nr	= perf_invalid_context,				\
	.capabilities	= PERF_PMU_CAP_NO_INTERRUPT |			\
			  PERF_PMU_CAP_NO_EXCLUDE,			\
	.attr_groups	= _groups,					\
	.scope		= _scope,					\
	.event_init	= test_pmu_event_init,				\
	.add		= test_pmu_add,					\
	.del		= test_pmu_del,					\
	.start		= test_pmu_start,				\
	.stop		= test_pmu_stop,				\
	.read		= test_pmu_read,				\
}

static struct test_pmu test_sys = {
	.pmu	= TEST_PMU_INIT(test_sys_groups, PERF_PMU_SCOPE_SYS_WIDE),
	.name	= "perf_test_sys",
};

static struct test_pmu test_mig = {
	.pmu	= TEST_PMU_INIT(test_mig_groups, PERF_PMU_SCOPE_NONE),
	.name	= "perf_test_mig",
};

static enum cpuhp_state test_hp_state;

/* like an uncore driver: its events leave a CPU going offline */
static int test_mig_cpu_offline(unsigned int cpu)
{
	unsigned int target = cpumask_any_but(cpu_online_mask, cpu);

	if (target < nr_cpu_ids)
		perf_pmu_migrate_context(&test_mig.pmu, cpu, target);
	return 0;
}

/* not built against stock 6.12, which does not export the function */
#ifndef PERF_TEST_STOCK
static int test_took_set(const char *val, const struct kernel_param *kp)
{
	unsigned int count, i;
	unsigned long long ns;

	if (sscanf(val, "%u %llu", &count, &ns) != 2 || count > 100000)
		return -EINVAL;
	/* one CPU's running average, as from its interrupt handler */
	preempt_disable();
	for (i = 0; i < count; i++)
		perf_sample_event_took(ns);
	preempt_enable();
	return 0;
}

static const struct kernel_param_ops test_took_ops = {
	.set	= test_took_set,
};
module_param_cb(took, &test_took_ops, NULL, 0200);
MODULE_PARM_DESC(took, "COUNT NS: COUNT interrupts of NS ns each, on this CPU");
#endif

static int __init perf_test_pmu_init(void)
{
	int err;

	cpumask_copy(&test_mig.reader, cpu_online_mask);
	err = perf_pmu_register(&test_sys.pmu, test_sys.name, -1);
	if (err)
		return err;
	err = perf_pmu_register(&test_mig.pmu, test_mig.name, -1);
	if (err)
		goto sys;
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perf/test_pmu:online",
				NULL, test_mig_cpu_offline);
	if (err < 0)
		goto mig;
	test_hp_state = err;
	return 0;
mig:
	perf_pmu_unregister(&test_mig.pmu);
sys:
	perf_pmu_unregister(&test_sys.pmu);
	return err;
}

static void __exit perf_test_pmu_exit(void)
{
	cpuhp_remove_state(test_hp_state);
	perf_pmu_unregister(&test_mig.pmu);
	perf_pmu_unregister(&test_sys.pmu);
}

module_init(perf_test_pmu_init);
module_exit(perf_test_pmu_exit);
MODULE_DESCRIPTION("perf selftests: a device PMU using the driver API");
MODULE_LICENSE("GPL");
