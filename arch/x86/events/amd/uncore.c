// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD uncore counters of family 17h and later, as two PMUs:
 *
 *   amd_df  the data fabric's counters, one set per package
 *           (CPUID 0x80000001 ECX.PerfCtrExtNB): MSR_F15H_NB_PERF_CTL/CTR
 *           + 2i, 4 of them, or as many as CPUID 0x80000022 EBX.NumPerfCtrNB
 *           says with PerfMonV2
 *   amd_l3  the L3 cache's counters, one set per L3, shared by the cores
 *           of its complex (CPUID 0x80000001 ECX.PerfCtrExtLLC):
 *           MSR_F16H_L2I_PERF_CTL/CTR + 2i, 6 of them
 *
 * The counters are 48 bits wide, count every privilege level of every
 * core of their domain and interrupt nothing: events are per CPU and
 * counting only. A control register has the core counters' event select,
 * unit mask and enable bit; the DF's event select and unit mask are wider
 * with PerfMonV2, and the L3's has filters for the cores, threads and
 * slices whose requests count (asm/perf_event.h, AMD64_L3_*).
 *
 * One online CPU of each domain reads its counters: its designated CPU,
 * which the PMU's sysfs cpumask lists. An event opened on another CPU of
 * the domain is moved to it, so that only one CPU ever touches a domain's
 * counters and only one context holds its events; counters are then
 * handed out in pmu::add() without a lock. When the designated CPU goes
 * offline another CPU of the domain takes over and the events move with
 * it (perf_pmu_migrate_context()). A per-CPU hrtimer reads the active
 * counters every minute, far inside the shortest wrap of 48 bits.
 */

#define pr_fmt(fmt)	"amd_uncore: " fmt

#include <linux/bitops.h>
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/topology.h>

#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#define UNC_MAX_COUNTERS	16
#define UNC_L3_COUNTERS		6
#define UNC_CTR_BITS		48
#define UNC_POLL_MS		60000
/* RDPMC reads the DF's counters from index 6 and the L3's from 10 */
#define UNC_DF_RDPMC		6
#define UNC_L3_RDPMC		10

/* the L3 filter fields of family 17h (slices, threads) and 19h */
#define UNC_L3_F17H_FILTERS	(AMD64_L3_SLICE_MASK | AMD64_L3_THREAD_MASK)
#define UNC_L3_F19H_FILTERS	(AMD64_L3_COREID_MASK | \
				 AMD64_L3_EN_ALL_SLICES | \
				 AMD64_L3_EN_ALL_CORES | \
				 AMD64_L3_SLICEID_MASK | \
				 AMD64_L3_F19H_THREAD_MASK)

/* the counters of one domain and the CPU that reads them */
struct unc_dom {
	u32			id;
	int			cpu;		/* designated, -1: none online */
	cpumask_t		online;		/* its online CPUs */
	struct perf_event	*slot[UNC_MAX_COUNTERS];
};

struct unc_pmu {
	struct pmu		pmu;
	const char		*name;
	int			counters;
	u32			ctl_msr;	/* counter i: ctl_msr + 2i, + 2i + 1 */
	u32			rdpmc_base;	/* and RDPMC rdpmc_base + i */
	u64			event_mask;	/* the select and unit mask bits */
	u64			filter_mask;	/* the L3's filters, 0 for the DF */
	u64			filter_all;	/* ... those that count all of it */
	u32			(*dom_id)(unsigned int cpu);
	struct unc_dom * __percpu *dom;	/* each CPU's domain, kept offline */
	cpumask_t		designated;	/* sysfs cpumask */
	bool			registered;
};

/* the active events of each CPU, read by the poll timer */
struct unc_cpu {
	struct list_head	active;
	struct hrtimer		poll;
};
static DEFINE_PER_CPU(struct unc_cpu, unc_cpu);

static struct unc_pmu unc_df, unc_l3;

static struct unc_pmu *to_unc(struct pmu *pmu)
{
	return container_of(pmu, struct unc_pmu, pmu);
}

static u32 unc_df_id(unsigned int cpu)
{
	return topology_logical_package_id(cpu);
}

static u32 unc_l3_id(unsigned int cpu)
{
	return per_cpu_llc_id(cpu);
}

static u64 unc_read_counter(struct hw_perf_event *hwc)
{
	u64 val;

	if (hwc->event_base_rdpmc < 0)
		rdmsrl(hwc->event_base, val);
	else
		rdpmcl(hwc->event_base_rdpmc, val);
	return val;
}

/*
 * Add what the counter advanced since the last read: the 48-bit
 * difference, sign-extended, so that a counter someone moved back
 * through the MSR takes the count back by as much, as in 6.12.
 */
static void unc_update(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	unsigned int shift = 64 - UNC_CTR_BITS;
	u64 prev, now;

	do {
		prev = local64_read(&hwc->prev_count);
		now = unc_read_counter(hwc);
	} while (local64_cmpxchg(&hwc->prev_count, prev, now) != prev);

	local64_add((s64)((now - prev) << shift) >> shift, &event->count);
}

static enum hrtimer_restart unc_poll(struct hrtimer *timer)
{
	struct unc_cpu *uc = container_of(timer, struct unc_cpu, poll);
	struct perf_event *event;

	if (list_empty(&uc->active))
		return HRTIMER_NORESTART;
	list_for_each_entry(event, &uc->active, active_entry)
		unc_update(event);
	hrtimer_forward_now(timer, ms_to_ktime(UNC_POLL_MS));
	return HRTIMER_RESTART;
}

static void unc_start(struct perf_event *event, int flags)
{
	struct unc_cpu *uc = this_cpu_ptr(&unc_cpu);
	struct hw_perf_event *hwc = &event->hw;

	if (!(hwc->state & PERF_HES_STOPPED))
		return;
	/* the counter goes on from the event's last reading */
	wrmsrl(hwc->event_base, local64_read(&hwc->prev_count));
	hwc->state = 0;
	wrmsrl(hwc->config_base, hwc->config | ARCH_PERFMON_EVENTSEL_ENABLE);
	if (list_empty(&uc->active))
		hrtimer_start(&uc->poll, ms_to_ktime(UNC_POLL_MS),
			      HRTIMER_MODE_REL_PINNED_HARD);
	list_add_tail(&event->active_entry, &uc->active);
}

static void unc_stop(struct perf_event *event, int flags)
{
	struct unc_cpu *uc = this_cpu_ptr(&unc_cpu);
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->state & PERF_HES_STOPPED)
		return;
	wrmsrl(hwc->config_base, hwc->config);
	unc_update(event);
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	list_del_init(&event->active_entry);
	if (list_empty(&uc->active))
		hrtimer_try_to_cancel(&uc->poll);
}

/* on the domain's designated CPU, IRQs off: nothing else takes a slot */
static int unc_add(struct perf_event *event, int flags)
{
	struct unc_pmu *up = to_unc(event->pmu);
	struct unc_dom *dom = *this_cpu_ptr(up->dom);
	struct hw_perf_event *hwc = &event->hw;
	int i;

	/*
	 * Only the designated CPU hands out the domain's counters: an event
	 * left on another CPU of the domain (one that went offline with it
	 * and came back second) does not run there.
	 */
	if (!dom || READ_ONCE(dom->cpu) != smp_processor_id())
		return -ENODEV;
	for (i = 0; i < up->counters; i++) {
		if (!dom->slot[i])
			break;
	}
	if (i == up->counters)
		return -EBUSY;
	dom->slot[i] = event;
	hwc->idx = i;
	hwc->config_base = up->ctl_msr + 2 * i;
	hwc->event_base = up->ctl_msr + 2 * i + 1;
	/* RDPMC has the first four DF counters (PerfMonV2 may have more) */
	hwc->event_base_rdpmc = up == &unc_df && i >= AMD64_NUM_COUNTERS_NB ?
				-1 : up->rdpmc_base + i;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		unc_start(event, flags);
	return 0;
}

static void unc_del(struct perf_event *event, int flags)
{
	struct unc_pmu *up = to_unc(event->pmu);
	struct unc_dom *dom = *this_cpu_ptr(up->dom);
	struct hw_perf_event *hwc = &event->hw;

	unc_stop(event, PERF_EF_UPDATE);
	if (dom && hwc->idx >= 0 && dom->slot[hwc->idx] == event)
		dom->slot[hwc->idx] = NULL;
	hwc->idx = -1;
}

static void unc_read(struct perf_event *event)
{
	if (!(event->hw.state & PERF_HES_STOPPED))
		unc_update(event);
}

/*
 * The L3's filters: a config that names threads (a thread mask) chooses
 * the cores, threads and slices itself; one that names none counts the
 * whole L3 (every slice, core and thread), as 6.12's does. Family 17h
 * has a slice mask and an 8-bit thread mask instead.
 */
static u64 unc_l3_filters(const struct unc_pmu *up, u64 config)
{
	if (config & up->filter_mask & AMD64_L3_THREAD_MASK)
		return config & up->filter_mask;
	return up->filter_all;
}

/*
 * Bits of the config outside the PMU's fields are dropped, not refused,
 * and config1/config2 are ignored: 6.12's ABI for these PMUs. Sampling
 * and the exclude bits are refused by the core (PERF_PMU_CAP_NO_*).
 */
static int unc_event_init(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 config = event->attr.config;
	struct unc_pmu *up;
	struct unc_dom *dom;
	int cpu;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	/* a domain's counters are shared: an event is per CPU */
	if (event->cpu < 0)
		return -EINVAL;
	up = to_unc(event->pmu);
	dom = *per_cpu_ptr(up->dom, event->cpu);
	cpu = dom ? READ_ONCE(dom->cpu) : -1;
	if (cpu < 0)
		return -ENODEV;

	hwc->config = config & up->event_mask;
	if (up->filter_mask)
		hwc->config |= unc_l3_filters(up, config);
	hwc->idx = -1;
	hwc->state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	/* a new event's counter starts from 0 */
	local64_set(&hwc->prev_count, 0);
	INIT_LIST_HEAD(&event->active_entry);
	/* the domain's counters are read on its designated CPU */
	event->cpu = cpu;
	return 0;
}

static ssize_t cpumask_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct pmu *pmu = dev_get_drvdata(dev);

	return cpumap_print_to_pagebuf(true, buf, &to_unc(pmu)->designated);
}
static DEVICE_ATTR_RO(cpumask);

static struct attribute *unc_attrs[] = {
	&dev_attr_cpumask.attr,
	NULL,
};

static const struct attribute_group unc_attr_group = {
	.attrs = unc_attrs,
};

/* sysfs format/: the bits tools may set, which differ by family */
PMU_STR_ATTR(format_attr_df_event_f17h, "event", "config:0-7,32-35");
PMU_STR_ATTR(format_attr_df_event_v2, "event", "config:0-7,32-37");
PMU_STR_ATTR(format_attr_df_umask_f17h, "umask", "config:8-15");
PMU_STR_ATTR(format_attr_df_umask_v2, "umask", "config:8-15,24-27");
PMU_STR_ATTR(format_attr_l3_event, "event", "config:0-7");
PMU_STR_ATTR(format_attr_l3_umask, "umask", "config:8-15");
PMU_STR_ATTR(format_attr_l3_slicemask, "slicemask", "config:48-51");
PMU_STR_ATTR(format_attr_l3_threadmask_f17h, "threadmask", "config:56-63");
PMU_STR_ATTR(format_attr_l3_coreid, "coreid", "config:42-44");
PMU_STR_ATTR(format_attr_l3_enallslices, "enallslices", "config:46");
PMU_STR_ATTR(format_attr_l3_enallcores, "enallcores", "config:47");
PMU_STR_ATTR(format_attr_l3_sliceid, "sliceid", "config:48-50");
PMU_STR_ATTR(format_attr_l3_threadmask_f19h, "threadmask", "config:56-57");

static struct attribute *unc_df_f17h_formats[] = {
	&format_attr_df_event_f17h.attr.attr,
	&format_attr_df_umask_f17h.attr.attr,
	NULL,
};

static struct attribute *unc_df_v2_formats[] = {
	&format_attr_df_event_v2.attr.attr,
	&format_attr_df_umask_v2.attr.attr,
	NULL,
};

static struct attribute *unc_l3_f17h_formats[] = {
	&format_attr_l3_event.attr.attr,
	&format_attr_l3_umask.attr.attr,
	&format_attr_l3_slicemask.attr.attr,
	&format_attr_l3_threadmask_f17h.attr.attr,
	NULL,
};

static struct attribute *unc_l3_f19h_formats[] = {
	&format_attr_l3_event.attr.attr,
	&format_attr_l3_umask.attr.attr,
	&format_attr_l3_coreid.attr.attr,
	&format_attr_l3_enallslices.attr.attr,
	&format_attr_l3_enallcores.attr.attr,
	&format_attr_l3_sliceid.attr.attr,
	&format_attr_l3_threadmask_f19h.attr.attr,
	NULL,
};

/* a PMU's groups: the cpumask and its family's format/ */
struct unc_sysfs {
	struct attribute_group	format_group;
	const struct attribute_group *groups[3];
};

static struct unc_sysfs unc_df_sysfs, unc_l3_sysfs;

#define UNC_PMU(_name)							\
	.name	= _name,						\
	.pmu	= {							\
		.module		= THIS_MODULE,				\
		.task_ctx_nr	= perf_invalid_context,			\
		.event_init	= unc_event_init,			\
		.add		= unc_add,				\
		.del		= unc_del,				\
		.start		= unc_start,				\
		.stop		= unc_stop,				\
		.read		= unc_read,				\
		.capabilities	= PERF_PMU_CAP_NO_EXCLUDE |		\
				  PERF_PMU_CAP_NO_INTERRUPT,		\
	}

static struct unc_pmu unc_df = {
	UNC_PMU("amd_df"),
	.ctl_msr	= MSR_F15H_NB_PERF_CTL,
	.rdpmc_base	= UNC_DF_RDPMC,
	.dom_id		= unc_df_id,
};

static struct unc_pmu unc_l3 = {
	UNC_PMU("amd_l3"),
	.ctl_msr	= MSR_F16H_L2I_PERF_CTL,
	.rdpmc_base	= UNC_L3_RDPMC,
	.counters	= UNC_L3_COUNTERS,
	/* the 12-bit event select passes, as the core counters' */
	.event_mask	= AMD64_RAW_EVENT_MASK_NB,
	.dom_id		= unc_l3_id,
};

static struct unc_pmu *const unc_pmus[] = { &unc_df, &unc_l3 };

/* the domain of @id that @cpu or another CPU already has, if any */
static struct unc_dom *unc_find_dom(struct unc_pmu *up, unsigned int cpu,
				    u32 id)
{
	struct unc_dom *dom = *per_cpu_ptr(up->dom, cpu);
	unsigned int other;

	if (dom && dom->id == id)
		return dom;
	for_each_possible_cpu(other) {
		dom = *per_cpu_ptr(up->dom, other);
		if (dom && dom->id == id)
			return dom;
	}
	return NULL;
}

/*
 * @cpu comes online: it joins its domains, and reads those no CPU reads.
 * The new domains are allocated first, so that a failure changes nothing.
 */
static int unc_cpu_online(unsigned int cpu)
{
	struct unc_dom *dom[ARRAY_SIZE(unc_pmus)] = { }, *fresh;
	unsigned long made = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(unc_pmus); i++) {
		struct unc_pmu *up = unc_pmus[i];
		u32 id;

		if (!up->registered)
			continue;
		id = up->dom_id(cpu);
		dom[i] = unc_find_dom(up, cpu, id);
		if (dom[i])
			continue;
		fresh = kzalloc_node(sizeof(*fresh), GFP_KERNEL,
				     cpu_to_node(cpu));
		if (!fresh)
			goto nomem;
		fresh->id = id;
		fresh->cpu = -1;
		dom[i] = fresh;
		__set_bit(i, &made);
	}
	for (i = 0; i < ARRAY_SIZE(unc_pmus); i++) {
		struct unc_pmu *up = unc_pmus[i];

		if (!dom[i])
			continue;
		*per_cpu_ptr(up->dom, cpu) = dom[i];
		cpumask_set_cpu(cpu, &dom[i]->online);
		if (dom[i]->cpu < 0) {
			WRITE_ONCE(dom[i]->cpu, cpu);
			cpumask_set_cpu(cpu, &up->designated);
		}
	}
	return 0;

nomem:
	for_each_set_bit(i, &made, ARRAY_SIZE(unc_pmus))
		kfree(dom[i]);
	return -ENOMEM;
}

/* @cpu goes offline: another CPU of its domains takes over their events */
static int unc_cpu_offline(unsigned int cpu)
{
	unsigned int i, target;

	for (i = 0; i < ARRAY_SIZE(unc_pmus); i++) {
		struct unc_pmu *up = unc_pmus[i];
		struct unc_dom *dom = *per_cpu_ptr(up->dom, cpu);

		if (!up->registered || !dom)
			continue;
		cpumask_clear_cpu(cpu, &dom->online);
		if (dom->cpu != cpu)
			continue;
		cpumask_clear_cpu(cpu, &up->designated);
		target = cpumask_any(&dom->online);
		if (target >= nr_cpu_ids) {
			/* its events stay on @cpu, which turns them off */
			WRITE_ONCE(dom->cpu, -1);
			continue;
		}
		WRITE_ONCE(dom->cpu, target);
		cpumask_set_cpu(target, &up->designated);
		perf_pmu_migrate_context(&up->pmu, cpu, target);
	}
	return 0;
}

static void unc_free_doms(struct unc_pmu *up)
{
	unsigned int cpu, other;

	if (!up->dom)
		return;
	/* a domain is shared: free it once, through its last CPU */
	for_each_possible_cpu(cpu) {
		struct unc_dom *dom = *per_cpu_ptr(up->dom, cpu);

		if (!dom)
			continue;
		for_each_possible_cpu(other) {
			if (other > cpu && *per_cpu_ptr(up->dom, other) == dom)
				break;
		}
		if (other >= nr_cpu_ids)
			kfree(dom);
	}
	free_percpu(up->dom);
	up->dom = NULL;
}

static int __init unc_pmu_setup(struct unc_pmu *up, struct unc_sysfs *s,
				struct attribute **formats)
{
	up->dom = alloc_percpu(struct unc_dom *);
	if (!up->dom)
		return -ENOMEM;
	s->format_group.name = "format";
	s->format_group.attrs = formats;
	s->groups[0] = &unc_attr_group;
	s->groups[1] = &s->format_group;
	up->pmu.attr_groups = s->groups;
	up->registered = true;
	return 0;
}

static int __init unc_pmu_register(struct unc_pmu *up)
{
	int err;

	if (!up->registered)
		return 0;
	err = perf_pmu_register(&up->pmu, up->name, -1);
	if (err) {
		pr_warn("%s not registered: %d\n", up->name, err);
		up->registered = false;
		return err;
	}
	pr_info("%d %s counters detected\n", up->counters, up->name);
	return 0;
}

static int __init amd_uncore_init(void)
{
	bool v2 = boot_cpu_has(X86_FEATURE_PERFMON_V2);
	unsigned int cpu;
	int err;

	/*
	 * The L3 domains come from CPUID 0x8000001D, which TOPOEXT
	 * enumerates; without it 6.12 registers neither PMU, nor do we.
	 */
	if (boot_cpu_data.x86_vendor != X86_VENDOR_AMD ||
	    boot_cpu_data.x86 < 0x17 || !boot_cpu_has(X86_FEATURE_TOPOEXT))
		return -ENODEV;

	if (boot_cpu_has(X86_FEATURE_PERFCTR_NB)) {
		union cpuid_0x80000022_ebx ebx;

		unc_df.counters = AMD64_NUM_COUNTERS_NB;
		unc_df.event_mask = AMD64_RAW_EVENT_MASK_NB;
		if (v2) {
			ebx.full = cpuid_ebx(EXT_PERFMON_DEBUG_FEATURES);
			unc_df.counters = min_t(int, ebx.split.num_df_pmc,
						UNC_MAX_COUNTERS);
			unc_df.event_mask = AMD64_PERFMON_V2_RAW_EVENT_MASK_NB;
		}
		if (unc_df.counters) {
			err = unc_pmu_setup(&unc_df, &unc_df_sysfs, v2 ?
					    unc_df_v2_formats :
					    unc_df_f17h_formats);
			if (err)
				goto fail;
		}
	}
	if (boot_cpu_has(X86_FEATURE_PERFCTR_LLC)) {
		bool f19h = boot_cpu_data.x86 >= 0x19;

		unc_l3.filter_mask = f19h ? UNC_L3_F19H_FILTERS :
					    UNC_L3_F17H_FILTERS;
		/* family 17h: every slice and thread bit; 19h: the enables */
		unc_l3.filter_all = f19h ? AMD64_L3_EN_ALL_SLICES |
					   AMD64_L3_EN_ALL_CORES |
					   AMD64_L3_F19H_THREAD_MASK :
					   UNC_L3_F17H_FILTERS;
		err = unc_pmu_setup(&unc_l3, &unc_l3_sysfs, f19h ?
				    unc_l3_f19h_formats : unc_l3_f17h_formats);
		if (err)
			goto fail;
	}
	if (!unc_df.registered && !unc_l3.registered)
		return -ENODEV;

	for_each_possible_cpu(cpu) {
		struct unc_cpu *uc = per_cpu_ptr(&unc_cpu, cpu);

		INIT_LIST_HEAD(&uc->active);
		/* hard: it walks the list add/del change with IRQs off */
		hrtimer_init(&uc->poll, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		uc->poll.function = unc_poll;
	}
	/* the domains first, so that a registered PMU has its cpumask */
	err = cpuhp_setup_state(CPUHP_AP_PERF_X86_AMD_UNCORE_ONLINE,
				"perf/x86/amd/uncore:online",
				unc_cpu_online, unc_cpu_offline);
	if (err)
		goto fail;
	unc_pmu_register(&unc_df);
	unc_pmu_register(&unc_l3);
	if (!unc_df.registered && !unc_l3.registered) {
		cpuhp_remove_state(CPUHP_AP_PERF_X86_AMD_UNCORE_ONLINE);
		err = -ENODEV;
		goto fail;
	}
	return 0;

fail:
	unc_free_doms(&unc_df);
	unc_free_doms(&unc_l3);
	return err;
}
module_init(amd_uncore_init);

static void __exit amd_uncore_exit(void)
{
	unsigned int cpu;

	if (unc_df.registered)
		perf_pmu_unregister(&unc_df.pmu);
	if (unc_l3.registered)
		perf_pmu_unregister(&unc_l3.pmu);
	cpuhp_remove_state(CPUHP_AP_PERF_X86_AMD_UNCORE_ONLINE);
	/* no event is left (each held the module), so neither is a timer */
	for_each_possible_cpu(cpu)
		hrtimer_cancel(&per_cpu(unc_cpu, cpu).poll);
	unc_free_doms(&unc_df);
	unc_free_doms(&unc_l3);
}
module_exit(amd_uncore_exit);

MODULE_DESCRIPTION("AMD L3 and data fabric counters as the amd_l3 and amd_df PMUs");
MODULE_LICENSE("GPL");
