// SPDX-License-Identifier: GPL-2.0
/*
 * The PMU registry: type numbers, finding the PMU for an attr, and the
 * sysfs view under /sys/bus/event_source/devices/<pmu>/.
 *
 * The fixed ABI types (software, tracepoint, breakpoint, and the x86
 * "cpu" PMU on PERF_TYPE_RAW) keep their numbers; every other PMU gets a
 * dynamic type from PERF_TYPE_MAX up, published in sysfs.
 *
 * PMUs register early (perf_event_init() runs before the driver core);
 * their devices are created once the bus exists.
 */
#include <linux/idr.h>
#include <linux/module.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/perf_regs.h>

#include "layer/object.h"

/*
 * default multiplexing interval, as /sys/.../perf_event_mux_interval_ms;
 * the option is ours (kernel/events/Kconfig), sourced from the x86
 * drivers' Kconfig: other arches have no entry point of ours into theirs
 */
#ifdef CONFIG_PERF_EVENTS_MUX_INTERVAL_MS
#define PERF_MUX_INTERVAL_MS	CONFIG_PERF_EVENTS_MUX_INTERVAL_MS
#else
#define PERF_MUX_INTERVAL_MS	4
#endif

static DEFINE_MUTEX(pmus_lock);
static LIST_HEAD(pmus);
static DEFINE_IDR(pmu_idr);
DEFINE_STATIC_SRCU(pmus_srcu);
static bool pmu_bus_running;

static ssize_t type_show(struct device *dev, struct device_attribute *attr,
			 char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return sysfs_emit(page, "%d\n", pmu->type);
}
static DEVICE_ATTR_RO(type);

static ssize_t perf_event_mux_interval_ms_show(struct device *dev,
					       struct device_attribute *attr,
					       char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return sysfs_emit(page, "%d\n", READ_ONCE(pmu->hrtimer_interval_ms));
}

static ssize_t perf_event_mux_interval_ms_store(struct device *dev,
						struct device_attribute *attr,
						const char *buf, size_t count)
{
	struct pmu *pmu = dev_get_drvdata(dev);
	int ms, err;

	err = kstrtoint(buf, 0, &ms);
	if (err)
		return err;
	if (ms < 1)
		return -EINVAL;
	WRITE_ONCE(pmu->hrtimer_interval_ms, ms);
	return count;
}
static DEVICE_ATTR_RW(perf_event_mux_interval_ms);

static ssize_t nr_addr_filters_show(struct device *dev,
				    struct device_attribute *attr, char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return sysfs_emit(page, "%u\n", pmu->nr_addr_filters);
}
static DEVICE_ATTR_RO(nr_addr_filters);

/*
 * The designated CPUs of each scope (scope.c keeps them, under the hotplug
 * lock): the PMU's sysfs shows them, so they live with the PMU object.
 */
cpumask_t perf_scope_cpus[PERF_PMU_MAX_SCOPE];

/* sysfs cpumask of a scoped PMU: its designated CPUs */
static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *page)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	if (!pmu->scope || pmu->scope >= PERF_PMU_MAX_SCOPE)
		return 0;
	return cpumap_print_to_pagebuf(true, page,
				       &perf_scope_cpus[pmu->scope]);
}
static DEVICE_ATTR_RO(cpumask);

static struct attribute *pmu_dev_attrs[] = {
	&dev_attr_type.attr,
	&dev_attr_perf_event_mux_interval_ms.attr,
	&dev_attr_nr_addr_filters.attr,
	&dev_attr_cpumask.attr,
	NULL,
};

/*
 * nr_addr_filters only where there are filters; cpumask only for a PMU
 * with a scope (other drivers that have one provide their own).
 */
static umode_t pmu_dev_is_visible(struct kobject *kobj, struct attribute *a,
				  int n)
{
	struct device *dev = kobj_to_dev(kobj);
	struct pmu *pmu = dev_get_drvdata(dev);

	if (n == 2 && !pmu->nr_addr_filters)
		return 0;
	if (n == 3 && !pmu->scope)
		return 0;
	return a->mode;
}

/**
 * perf_event_sysfs_show - show() of a PMU_EVENT_ATTR_STRING() file
 * @dev: the PMU's device
 * @attr: the attribute, in a struct perf_pmu_events_attr
 * @page: the sysfs buffer
 *
 * Return: the bytes written: the event string and a newline, or nothing
 * for an attribute without a string.
 */
ssize_t perf_event_sysfs_show(struct device *dev,
			      struct device_attribute *attr, char *page)
{
	struct perf_pmu_events_attr *pa =
		container_of(attr, struct perf_pmu_events_attr, attr);

	if (!pa->event_str)
		return 0;
	return sysfs_emit(page, "%s\n", pa->event_str);
}
EXPORT_SYMBOL_GPL(perf_event_sysfs_show);

static const struct attribute_group pmu_dev_attr_group = {
	.is_visible	= pmu_dev_is_visible,
	.attrs		= pmu_dev_attrs,
};

static const struct attribute_group *pmu_dev_groups[] = {
	&pmu_dev_attr_group,
	NULL,
};

static const struct bus_type pmu_bus = {
	.name		= "event_source",
	.dev_groups	= pmu_dev_groups,
};

static void pmu_dev_release(struct device *dev)
{
	kfree(dev);
}

static int pmu_dev_alloc(struct pmu *pmu)
{
	int err;

	pmu->dev = kzalloc(sizeof(*pmu->dev), GFP_KERNEL);
	if (!pmu->dev)
		return -ENOMEM;

	device_initialize(pmu->dev);
	dev_set_drvdata(pmu->dev, pmu);
	pmu->dev->groups = pmu->attr_groups;
	pmu->dev->bus = &pmu_bus;
	pmu->dev->parent = pmu->parent;
	pmu->dev->release = pmu_dev_release;

	err = dev_set_name(pmu->dev, "%s", pmu->name);
	if (err)
		goto put;
	err = device_add(pmu->dev);
	if (err)
		goto put;
	if (pmu->attr_update) {
		err = sysfs_update_groups(&pmu->dev->kobj, pmu->attr_update);
		if (err)
			goto del;
	}
	return 0;
del:
	device_del(pmu->dev);
put:
	put_device(pmu->dev);
	pmu->dev = NULL;
	return err;
}

static void pmu_nop(struct pmu *pmu)
{
}

/**
 * perf_pmu_register - make a PMU available to perf_event_open()
 * @pmu: the driver's description, with event_init and the event ops
 * @name: its sysfs name, or NULL to stay out of sysfs
 * @type: a fixed PERF_TYPE_* below PERF_TYPE_MAX, or -1 for a new type
 *
 * May sleep. Returns 0 or a negative errno.
 */
int perf_pmu_register(struct pmu *pmu, const char *name, int type)
{
	int ret;

	pmu->pmu_disable_count = alloc_percpu(int);
	if (!pmu->pmu_disable_count)
		return -ENOMEM;

	mutex_lock(&pmus_lock);
	/* reserve the number now, publish the PMU once it is complete */
	if (type >= 0 && type < PERF_TYPE_MAX)
		ret = idr_alloc(&pmu_idr, NULL, type, type + 1, GFP_KERNEL);
	else
		ret = idr_alloc(&pmu_idr, NULL, PERF_TYPE_MAX, 0, GFP_KERNEL);
	if (ret < 0)
		goto unlock;

	pmu->type = ret;
	pmu->name = name;
	if (!pmu->hrtimer_interval_ms)
		pmu->hrtimer_interval_ms = PERF_MUX_INTERVAL_MS;
	if (!pmu->pmu_enable) {
		pmu->pmu_enable = pmu_nop;
		pmu->pmu_disable = pmu_nop;
		pmu->capabilities |= PERF_PMU_CAP_ADD_UNHELD;
	}

	if (pmu_bus_running && name) {
		ret = pmu_dev_alloc(pmu);
		if (ret) {
			idr_remove(&pmu_idr, pmu->type);
			goto unlock;
		}
	}
	idr_replace(&pmu_idr, pmu, pmu->type);
	list_add_tail_rcu(&pmu->entry, &pmus);
	ret = 0;
unlock:
	mutex_unlock(&pmus_lock);
	if (ret)
		free_percpu(pmu->pmu_disable_count);
	return ret;
}
EXPORT_SYMBOL_GPL(perf_pmu_register);

/**
 * perf_pmu_unregister - withdraw a PMU; no event of it may remain
 * @pmu: the PMU
 */
void perf_pmu_unregister(struct pmu *pmu)
{
	mutex_lock(&pmus_lock);
	list_del_rcu(&pmu->entry);
	idr_remove(&pmu_idr, pmu->type);
	mutex_unlock(&pmus_lock);

	synchronize_srcu(&pmus_srcu);

	if (pmu->dev) {
		device_del(pmu->dev);
		put_device(pmu->dev);
		pmu->dev = NULL;
	}
	free_percpu(pmu->pmu_disable_count);
}
EXPORT_SYMBOL_GPL(perf_pmu_unregister);

/**
 * perf_pmu_disable - stop a PMU on this CPU while several changes are made
 * @pmu: the PMU
 *
 * Nests; the PMU restarts at the matching perf_pmu_enable().
 */
void perf_pmu_disable(struct pmu *pmu)
{
	int *count = this_cpu_ptr(pmu->pmu_disable_count);

	if (!(*count)++)
		pmu->pmu_disable(pmu);
}
EXPORT_SYMBOL_GPL(perf_pmu_disable);

void perf_pmu_enable(struct pmu *pmu)
{
	int *count = this_cpu_ptr(pmu->pmu_disable_count);

	if (!--(*count))
		pmu->pmu_enable(pmu);
}
EXPORT_SYMBOL_GPL(perf_pmu_enable);

/*
 * Registers beyond the general-purpose ones (x86's XMM) exist only in a
 * PMU's own sample records (PEBS); reading them from a plain pt_regs
 * would run off its end.
 */
static bool perf_event_has_extended_regs(struct perf_event *event)
{
	return (event->attr.sample_regs_user |
		event->attr.sample_regs_intr) & PERF_REG_EXTENDED_MASK;
}


/*
 * An exclusive PMU's events are either all task events or all CPU
 * events (6.12: EBUSY for one of the other kind). Its count is held
 * from the event's init to its free.
 */
static int perf_pmu_exclusive_get(struct perf_event *event)
{
	atomic_t *cnt = &event->pmu->exclusive_cnt;
	bool ok;

	if (event->attach_state & PERF_ATTACH_TASK)
		ok = atomic_inc_unless_negative(cnt);
	else
		ok = atomic_dec_unless_positive(cnt);
	if (!ok)
		return -EBUSY;
	event->attach_state |= PERF_ATTACH_EXCLUSIVE;
	return 0;
}

/**
 * perf_pmu_exclusive_put - @event leaves its exclusive PMU's count
 * @event: an event being freed
 */
void perf_pmu_exclusive_put(struct perf_event *event)
{
	if (!(event->attach_state & PERF_ATTACH_EXCLUSIVE))
		return;
	if (event->attach_state & PERF_ATTACH_TASK)
		atomic_dec(&event->pmu->exclusive_cnt);
	else
		atomic_inc(&event->pmu->exclusive_cnt);
	event->attach_state &= ~PERF_ATTACH_EXCLUSIVE;
}

/**
 * perf_pmu_exclusive_installable - may @event join @ctx?
 * @event: an event of an exclusive PMU
 * @ctx: the context, its mutex held
 *
 * A task's context may hold one such event per CPU, as in 6.12: perf
 * record traces a task with an event on each CPU (cpu != -1), and only
 * the one of the CPU the task runs on is ever on.
 *
 * Return: false when an event of the same PMU that can be on the same
 * CPU (the same one, or any: cpu == -1) is in @ctx already.
 */
bool perf_pmu_exclusive_installable(struct perf_event *event,
				    struct perf_event_context *ctx)
{
	struct perf_event *other;

	lockdep_assert_held(&ctx->mutex);
	list_for_each_entry(other, &ctx->event_list, event_entry) {
		if (other == event || other->pmu != event->pmu)
			continue;
		if (other->cpu == event->cpu || other->cpu == -1 ||
		    event->cpu == -1)
			return false;
	}
	return true;
}

/*
 * Offer the event to one PMU. -ENOENT means "not mine". Its event_init
 * may hand the event to another PMU of the same driver by setting
 * event->pmu (the software PMU's clocks run on the clock PMUs), one with
 * the same module and capabilities, so what follows holds for both.
 */
static int perf_pmu_try(struct pmu *pmu, struct perf_event *event)
{
	int err;

	if (!try_module_get(pmu->module))
		return -ENODEV;

	event->pmu = pmu;
	err = pmu->event_init(event);
	/*
	 * What the PMU's capabilities rule out, in 6.12's order: the
	 * extended registers (asked for, sampled or not), then what it
	 * cannot count at all, then sampling
	 */
	if (!err && !(pmu->capabilities & PERF_PMU_CAP_EXTENDED_REGS) &&
	    perf_event_has_extended_regs(event))
		err = -EOPNOTSUPP;
	/* device PMUs without task context count CPU-wide only */
	if (!err && pmu->task_ctx_nr == perf_invalid_context &&
	    (event->attach_state & PERF_ATTACH_TASK))
		err = -EINVAL;
	if (!err && (pmu->capabilities & PERF_PMU_CAP_NO_EXCLUDE) &&
	    (event->attr.exclude_user || event->attr.exclude_kernel ||
	     event->attr.exclude_hv || event->attr.exclude_idle ||
	     event->attr.exclude_host || event->attr.exclude_guest))
		err = -EINVAL;
	/* a PMU that cannot interrupt cannot sample */
	if (!err && (pmu->capabilities & PERF_PMU_CAP_NO_INTERRUPT) &&
	    is_sampling_event(event))
		err = -EOPNOTSUPP;
	/*
	 * A software-context PMU's event is a software event to the group
	 * rules, as in 6.12: hardware events may join a group it leads
	 * (breakpoints, the AUX tracers leading their aux_output members)
	 */
	if (!err && event->pmu->task_ctx_nr == perf_sw_context)
		event->event_caps |= PERF_EV_CAP_SOFTWARE;
	if (!err && is_exclusive_pmu(pmu))
		err = perf_pmu_exclusive_get(event);
	if (err) {
		if (event->destroy) {
			event->destroy(event);
			event->destroy = NULL;
		}
		event->pmu = NULL;
		module_put(pmu->module);
	}
	return err;
}

/**
 * perf_pmu_find - bind an event to the PMU its attr names
 * @event: the new event
 *
 * A type with a registered PMU goes to that PMU. The generic hardware
 * types may name a PMU in config[63:32] (hybrid systems): one that is
 * registered gets the event; otherwise they, and PERF_TYPE_RAW where no
 * PMU registered that type, go to whichever PMU accepts them. Returns the
 * PMU with a module
 * reference, or ERR_PTR(-ENOENT) when none takes the event.
 */
struct pmu *perf_pmu_find(struct perf_event *event)
{
	u32 type = event->attr.type;
	struct pmu *pmu;
	int idx, err = -ENOENT;
	bool generic_hw = type == PERF_TYPE_HARDWARE ||
			  type == PERF_TYPE_HW_CACHE;
	/*
	 * PERF_TYPE_RAW belongs to the CPU's PMU: x86's registers that
	 * number, others (arm64's arm_pmu) take a dynamic type and are
	 * offered raw events like the generic ones
	 */
	bool offered = generic_hw || type == PERF_TYPE_RAW;

	idx = srcu_read_lock(&pmus_srcu);

	/*
	 * A PMU named there takes the event or refuses it (6.12: the
	 * software PMU's type gives ENOENT); a type no PMU has is ignored.
	 */
	if (generic_hw && (event->attr.config >> PERF_PMU_TYPE_SHIFT)) {
		pmu = idr_find(&pmu_idr,
			       event->attr.config >> PERF_PMU_TYPE_SHIFT);
		if (pmu) {
			/*
			 * Not forwarded: 6.12 gives AMD's precise cycles
			 * named so ENOENT, not IBS
			 */
			err = perf_pmu_try(pmu, event);
			goto out;
		}
	}

	pmu = idr_find(&pmu_idr, type);
	if (pmu) {
		err = perf_pmu_try(pmu, event);
		goto forward;
	}

	if (!offered)
		goto out;

	list_for_each_entry_rcu(pmu, &pmus, entry,
				srcu_read_lock_held(&pmus_srcu)) {
		err = perf_pmu_try(pmu, event);
		if (err != -ENOENT || event->attr.type != type)
			goto forward;
	}
	err = -ENOENT;
	goto out;
forward:
	/*
	 * A driver that leaves the event to another PMU (AMD's precise
	 * events go to IBS) names that PMU's type in attr.type and answers
	 * -ENOENT. Once only: the PMU it names takes the event or not.
	 */
	if (err == -ENOENT && event->attr.type != type) {
		pmu = idr_find(&pmu_idr, event->attr.type);
		err = pmu ? perf_pmu_try(pmu, event) : -ENOENT;
	}
out:
	srcu_read_unlock(&pmus_srcu, idx);
	if (err)
		return ERR_PTR(err);
	return event->pmu;
}

/* The driver core is up: create the bus and the PMUs' devices. */
static int __init perf_pmu_bus_init(void)
{
	struct pmu *pmu;
	int err;

	mutex_lock(&pmus_lock);
	err = bus_register(&pmu_bus);
	if (err)
		goto unlock;

	list_for_each_entry(pmu, &pmus, entry) {
		if (!pmu->name || pmu->type < 0)
			continue;
		err = pmu_dev_alloc(pmu);
		if (err)
			pr_warn("perf: sysfs for PMU %s: %d\n", pmu->name, err);
	}
	pmu_bus_running = true;
	err = 0;
unlock:
	mutex_unlock(&pmus_lock);
	return err;
}
device_initcall(perf_pmu_bus_init);

/*
 * sysrq-p's PMU dump, for the arches whose driver has none (arm64: its
 * driver is drivers/perf/arm_pmuv3.c, which prints nothing there).
 */
void __weak perf_event_print_debug(void)
{
}
