// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hybrid Intel CPUs (Alder Lake and Raptor Lake): two kinds of core
 * with PMUs of their own, as stock 6.12 has them. CPUID.07H:EDX[15]
 * says the part is hybrid; leaf 1AH says, on each CPU, which kind that
 * CPU is (EAX[31:24]: 20H an Atom, 40H a Core).
 *
 * The Core ("cpu_core", PERF_TYPE_RAW) has 8 general-purpose counters
 * and 4 fixed, the fourth counting the top-down slots beside
 * PERF_METRICS with its 8 metrics; the Atom ("cpu_atom", a dynamic
 * type) has what leaf 0AH reports: that leaf enumerates, on both kinds,
 * what both have, so the Core's counters are the model's fact.
 *
 * Each PMU takes the events of its own CPUs (its supported_cpus): a task
 * event of one kind does not count while its task runs on the other,
 * and a CPU event for a CPU of the other kind is refused. The counter
 * code (../pmu.c, core.c) reads the counters of the event's kind or
 * of this CPU's kind (x86_event_type(), x86_this_type).
 */

#include <linux/init.h>
#include <linux/perf_event.h>

#include <asm/cpu.h>
#include <asm/cpufeature.h>

#include "../perf_event.h"

/* CPUID.1AH:EAX[31:24], the kind of core */
#define INTEL_HYBRID_ATOM	0x20

/* the Core's counters (Golden Cove, Raptor Cove) */
#define INTEL_HYBRID_CORE_GP	8
#define INTEL_HYBRID_CORE_FIXED	4

/* events/ of both kinds: ref-cycles is the bus-cycles encoding, as 6.12's */
PMU_STR_ATTR(hy_ref, "ref-cycles", "event=0x3c,umask=0x01");

/* the Core's: perf mem's and the top-down metrics, level 1 and 2 */
PMU_STR_ATTR(hy_core_mem_loads, "mem-loads", "event=0xcd,umask=0x1,ldlat=3");
PMU_STR_ATTR(hy_core_mem_loads_aux, "mem-loads-aux", "event=0x03,umask=0x82");
PMU_STR_ATTR(hy_core_mem_stores, "mem-stores", "event=0xcd,umask=0x2");
PMU_STR_ATTR(hy_core_slots, "slots", "event=0x00,umask=0x4");
PMU_STR_ATTR(hy_core_retiring, "topdown-retiring", "event=0x00,umask=0x80");
PMU_STR_ATTR(hy_core_bad_spec, "topdown-bad-spec", "event=0x00,umask=0x81");
PMU_STR_ATTR(hy_core_fe_bound, "topdown-fe-bound", "event=0x00,umask=0x82");
PMU_STR_ATTR(hy_core_be_bound, "topdown-be-bound", "event=0x00,umask=0x83");
PMU_STR_ATTR(hy_core_heavy_ops, "topdown-heavy-ops", "event=0x00,umask=0x84");
PMU_STR_ATTR(hy_core_br_mispredict, "topdown-br-mispredict",
	     "event=0x00,umask=0x85");
PMU_STR_ATTR(hy_core_fetch_lat, "topdown-fetch-lat", "event=0x00,umask=0x86");
PMU_STR_ATTR(hy_core_mem_bound, "topdown-mem-bound", "event=0x00,umask=0x87");

/* the Atom's: perf mem's, and its top-down events on general counters */
PMU_STR_ATTR(hy_atom_mem_loads, "mem-loads", "event=0xd0,umask=0x5,ldlat=3");
PMU_STR_ATTR(hy_atom_mem_stores, "mem-stores", "event=0xd0,umask=0x6");
PMU_STR_ATTR(hy_atom_fe_bound, "topdown-fe-bound", "event=0x71,umask=0x0");
PMU_STR_ATTR(hy_atom_bad_spec, "topdown-bad-spec", "event=0x73,umask=0x0");
PMU_STR_ATTR(hy_atom_be_bound, "topdown-be-bound", "event=0x74,umask=0x0");
PMU_STR_ATTR(hy_atom_retiring, "topdown-retiring", "event=0xc2,umask=0x0");

/* the architectural events (core.c's first), then ref-cycles, then these */
static struct attribute *hy_core_own[] = {
	&hy_ref.attr.attr,
	&hy_core_mem_loads.attr.attr,
	&hy_core_mem_loads_aux.attr.attr,
	&hy_core_mem_stores.attr.attr,
	&hy_core_slots.attr.attr,
	&hy_core_retiring.attr.attr,
	&hy_core_bad_spec.attr.attr,
	&hy_core_fe_bound.attr.attr,
	&hy_core_be_bound.attr.attr,
	&hy_core_heavy_ops.attr.attr,
	&hy_core_br_mispredict.attr.attr,
	&hy_core_fetch_lat.attr.attr,
	&hy_core_mem_bound.attr.attr,
	NULL,
};

static struct attribute *hy_atom_own[] = {
	&hy_ref.attr.attr,
	&hy_atom_mem_loads.attr.attr,
	&hy_atom_mem_stores.attr.attr,
	&hy_atom_fe_bound.attr.attr,
	&hy_atom_bad_spec.attr.attr,
	&hy_atom_be_bound.attr.attr,
	&hy_atom_retiring.attr.attr,
	NULL,
};

#define HY_EVENTS_MAX	(INTEL_ARCH_EVENT_ATTRS + ARRAY_SIZE(hy_core_own))

static struct attribute *hy_core_attrs[HY_EVENTS_MAX] __ro_after_init;
static struct attribute *hy_atom_attrs[HY_EVENTS_MAX] __ro_after_init;

/*
 * What the kind of core has: the architectural events by CPUID 0AH,
 * perf mem's with PEBS, the Core's top-down metrics with PERF_METRICS
 */
static umode_t hy_event_visible(struct attribute *attr, int i, bool core)
{
	int own = i - INTEL_ARCH_EVENT_ATTRS;

	if (own < 0)
		return intel_arch_event_visible(i) ? attr->mode : 0;
	if (own == 0)
		return attr->mode;
	if (core && own >= 4)
		return intel_td ? attr->mode : 0;
	if (core || own < 3)
		return x86_ops->max_precise ? attr->mode : 0;
	return attr->mode;
}

static umode_t hy_core_visible(struct kobject *kobj, struct attribute *attr,
			       int i)
{
	return hy_event_visible(attr, i, true);
}

static umode_t hy_atom_visible(struct kobject *kobj, struct attribute *attr,
			       int i)
{
	return hy_event_visible(attr, i, false);
}

static const struct attribute_group hy_core_events = {
	.name		= "events",
	.attrs		= hy_core_attrs,
	.is_visible	= hy_core_visible,
};

static const struct attribute_group hy_atom_events = {
	.name		= "events",
	.attrs		= hy_atom_attrs,
	.is_visible	= hy_atom_visible,
};

static const struct attribute_group *hy_core_groups[] = {
	&hy_core_events,
	&intel_smi_group,
	NULL,
};

static const struct attribute_group *hy_atom_groups[] = {
	&hy_atom_events,
	&intel_smi_group,
	NULL,
};

/* the kind of core this CPU is: x86_types[0] the Core, [1] the Atom */
static int intel_hybrid_cpu_type(void)
{
	return get_this_hybrid_cpu_type() == INTEL_HYBRID_ATOM ? 1 : 0;
}

static void __init hy_attrs_fill(struct attribute **to, struct attribute **own)
{
	int i, n = 0;

	for (i = 0; i < INTEL_ARCH_EVENT_ATTRS; i++)
		to[n++] = intel_event_attrs[i];
	for (i = 0; own[i]; i++)
		to[n++] = own[i];
	to[n] = NULL;
}

/**
 * intel_hybrid_init - describe the two kinds of core of a hybrid CPU
 * @ops: the Intel driver's ops, with the model's cache tables (the
 *	Core's; the Atom's are Gracemont's, intel_grt_cache_events); given
 *	the hook that tells the kinds apart
 *
 * Fills x86_types[]. Called on the boot CPU before the PMUs are
 * registered.
 *
 * Return: false when the CPU is not hybrid (one PMU, as elsewhere).
 */
bool __init intel_hybrid_init(struct x86_pmu_ops *ops)
{
	struct x86_cpu_type *core = &x86_types[0], *atom = &x86_types[1];

	if (!boot_cpu_has(X86_FEATURE_HYBRID_CPU))
		return false;

	hy_attrs_fill(hy_core_attrs, hy_core_own);
	hy_attrs_fill(hy_atom_attrs, hy_atom_own);

	core->name = "cpu_core";
	core->num_gp = max(x86_pmu_hw.num_counters_gp, INTEL_HYBRID_CORE_GP);
	core->num_fixed = max(x86_pmu_hw.num_counters_fixed,
			      INTEL_HYBRID_CORE_FIXED);
	core->cache_events = ops->cache_events;
	core->cache_extra = ops->cache_extra;
	core->attr_groups = hy_core_groups;

	atom->name = "cpu_atom";
	atom->num_gp = x86_pmu_hw.num_counters_gp;
	atom->num_fixed = x86_pmu_hw.num_counters_fixed;
	atom->cache_events = &intel_grt_cache_events;
	atom->cache_extra = &intel_grt_cache_extra;
	atom->attr_groups = hy_atom_groups;

	x86_nr_types = 2;
	ops->cpu_type = intel_hybrid_cpu_type;
	return true;
}
