// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cstate_core and cstate_pkg PMUs: Intel's C-state residency
 * counters, the time a core (or the whole package) spent in each of its
 * idle states, counted at the TSC's rate.
 *
 *   config  cstate_core          cstate_pkg
 *   0       c1-residency  0x660  c2-residency   0x60d
 *   1       c3-residency  0x3fc  c3-residency   0x3f8
 *   2       c6-residency  0x3fd  c6-residency   0x3f9
 *   3       c7-residency  0x3fe  c7-residency   0x3fa
 *   4                            c8-residency   0x630
 *   5                            c9-residency   0x631
 *   6                            c10-residency  0x632
 *
 * The config numbers are ABI (events/<name> shows them). Which counters
 * a CPU has is known only by its model (the SDM's model-specific MSR
 * tables; cstate_models below), and a counter is listed only if its MSR
 * reads without a fault. Under a hypervisor (CPUID's hypervisor bit) the
 * MSRs say nothing about the host's idle states, and neither PMU is
 * registered, as in 6.12.
 *
 * The counters are 64 bits wide and free-running (freerun.c reads them).
 * Events count per CPU only (a core's or package's counter is read on one
 * CPU of it: the PMUs' scope), never sample and cannot filter by
 * privilege level. config1 and config2 are ignored.
 */

#define pr_fmt(fmt)	"perf/cstate: " fmt

#include <linux/bitops.h>
#include <linux/init.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/cpu_device_id.h>
#include <asm/cpufeature.h>
#include <asm/intel-family.h>
#include <asm/msr.h>

#include "perf_event.h"

enum { CS_C1, CS_C3, CS_C6, CS_C7, CORE_NR };
enum { PS_C2, PS_C3, PS_C6, PS_C7, PS_C8, PS_C9, PS_C10, PKG_NR };

static const u32 core_msrs[CORE_NR] = {
	[CS_C1] = MSR_CORE_C1_RES,
	[CS_C3] = MSR_CORE_C3_RESIDENCY,
	[CS_C6] = MSR_CORE_C6_RESIDENCY,
	[CS_C7] = MSR_CORE_C7_RESIDENCY,
};

/* Silvermont keeps package C6 elsewhere: set at init (cstate_model) */
static u32 pkg_msrs[PKG_NR] __ro_after_init = {
	[PS_C2]  = MSR_PKG_C2_RESIDENCY,
	[PS_C3]  = MSR_PKG_C3_RESIDENCY,
	[PS_C6]  = MSR_PKG_C6_RESIDENCY,
	[PS_C7]  = MSR_PKG_C7_RESIDENCY,
	[PS_C8]  = MSR_PKG_C8_RESIDENCY,
	[PS_C9]  = MSR_PKG_C9_RESIDENCY,
	[PS_C10] = MSR_PKG_C10_RESIDENCY,
};

/**
 * struct cstate_model - the residency counters of a CPU model
 * @core: bit N: cstate_core config N exists
 * @pkg: bit N: cstate_pkg config N exists
 * @atom_pkg_c6: package C6 is MSR_ATOM_PKG_C6_RESIDENCY (Silvermont)
 */
struct cstate_model {
	unsigned long	core;
	unsigned long	pkg;
	bool		atom_pkg_c6;
};

#define C(x)	BIT(CS_##x)
#define P(x)	BIT(PS_##x)

static const struct cstate_model nhm_cstates = {
	.core	= C(C3) | C(C6),
	.pkg	= P(C3) | P(C6) | P(C7),
};

static const struct cstate_model snb_cstates = {
	.core	= C(C3) | C(C6) | C(C7),
	.pkg	= P(C2) | P(C3) | P(C6) | P(C7),
};

/* the low-power client parts add the deep package states */
static const struct cstate_model hsw_ult_cstates = {
	.core	= C(C3) | C(C6) | C(C7),
	.pkg	= P(C2) | P(C3) | P(C6) | P(C7) | P(C8) | P(C9) | P(C10),
};

static const struct cstate_model hsx_cstates = {
	.core	= C(C3) | C(C6),
	.pkg	= P(C2) | P(C3) | P(C6),
};

static const struct cstate_model skx_cstates = {
	.core	= C(C6),
	.pkg	= P(C2) | P(C6),
};

static const struct cstate_model icx_cstates = {
	.core	= C(C1) | C(C6),
	.pkg	= P(C2) | P(C6),
};

static const struct cstate_model icl_cstates = {
	.core	= C(C6) | C(C7),
	.pkg	= P(C2) | P(C3) | P(C6) | P(C7) | P(C8) | P(C9) | P(C10),
};

static const struct cstate_model adl_cstates = {
	.core	= C(C1) | C(C6) | C(C7),
	.pkg	= P(C2) | P(C3) | P(C6) | P(C7) | P(C8) | P(C9) | P(C10),
};

static const struct cstate_model slm_cstates = {
	.core		= C(C1) | C(C6),
	.pkg		= P(C6),
	.atom_pkg_c6	= true,
};

static const struct cstate_model amt_cstates = {
	.core	= C(C1) | C(C6),
	.pkg	= P(C6),
};

static const struct cstate_model knl_cstates = {
	.core	= C(C6),
	.pkg	= P(C2) | P(C3) | P(C6),
};

static const struct cstate_model srf_cstates = {
	.core	= C(C1) | C(C6),
	.pkg	= P(C2) | P(C6),
};

static const struct cstate_model glm_cstates = {
	.core	= C(C1) | C(C3) | C(C6),
	.pkg	= P(C2) | P(C3) | P(C6) | P(C10),
};

static const struct cstate_model tnt_d_cstates = {
	.core	= C(C1) | C(C6),
	.pkg	= P(C2) | P(C6),
};

#undef C
#undef P

static const struct x86_cpu_id cstate_models[] = {
	X86_MATCH_VFM(INTEL_NEHALEM,		&nhm_cstates),
	X86_MATCH_VFM(INTEL_NEHALEM_EP,		&nhm_cstates),
	X86_MATCH_VFM(INTEL_NEHALEM_EX,		&nhm_cstates),
	X86_MATCH_VFM(INTEL_WESTMERE,		&nhm_cstates),
	X86_MATCH_VFM(INTEL_WESTMERE_EP,	&nhm_cstates),
	X86_MATCH_VFM(INTEL_WESTMERE_EX,	&nhm_cstates),

	X86_MATCH_VFM(INTEL_SANDYBRIDGE,	&snb_cstates),
	X86_MATCH_VFM(INTEL_SANDYBRIDGE_X,	&snb_cstates),
	X86_MATCH_VFM(INTEL_IVYBRIDGE,		&snb_cstates),
	X86_MATCH_VFM(INTEL_IVYBRIDGE_X,	&snb_cstates),
	X86_MATCH_VFM(INTEL_HASWELL,		&snb_cstates),
	X86_MATCH_VFM(INTEL_HASWELL_G,		&snb_cstates),
	X86_MATCH_VFM(INTEL_HASWELL_L,		&hsw_ult_cstates),
	X86_MATCH_VFM(INTEL_HASWELL_X,		&hsx_cstates),
	X86_MATCH_VFM(INTEL_BROADWELL,		&snb_cstates),
	X86_MATCH_VFM(INTEL_BROADWELL_G,	&snb_cstates),
	X86_MATCH_VFM(INTEL_BROADWELL_D,	&hsx_cstates),
	X86_MATCH_VFM(INTEL_BROADWELL_X,	&hsx_cstates),

	X86_MATCH_VFM(INTEL_SKYLAKE,		&snb_cstates),
	X86_MATCH_VFM(INTEL_SKYLAKE_L,		&hsw_ult_cstates),
	X86_MATCH_VFM(INTEL_SKYLAKE_X,		&skx_cstates),
	X86_MATCH_VFM(INTEL_KABYLAKE,		&snb_cstates),
	X86_MATCH_VFM(INTEL_KABYLAKE_L,		&hsw_ult_cstates),
	X86_MATCH_VFM(INTEL_COMETLAKE,		&snb_cstates),
	X86_MATCH_VFM(INTEL_COMETLAKE_L,	&hsw_ult_cstates),
	X86_MATCH_VFM(INTEL_CANNONLAKE_L,	&hsw_ult_cstates),

	X86_MATCH_VFM(INTEL_ICELAKE,		&icl_cstates),
	X86_MATCH_VFM(INTEL_ICELAKE_L,		&icl_cstates),
	X86_MATCH_VFM(INTEL_TIGERLAKE,		&icl_cstates),
	X86_MATCH_VFM(INTEL_TIGERLAKE_L,	&icl_cstates),
	X86_MATCH_VFM(INTEL_ROCKETLAKE,		&icl_cstates),
	X86_MATCH_VFM(INTEL_ICELAKE_X,		&icx_cstates),
	X86_MATCH_VFM(INTEL_ICELAKE_D,		&icx_cstates),
	X86_MATCH_VFM(INTEL_SAPPHIRERAPIDS_X,	&icx_cstates),
	X86_MATCH_VFM(INTEL_EMERALDRAPIDS_X,	&icx_cstates),
	X86_MATCH_VFM(INTEL_GRANITERAPIDS_X,	&icx_cstates),
	X86_MATCH_VFM(INTEL_GRANITERAPIDS_D,	&icx_cstates),

	X86_MATCH_VFM(INTEL_ALDERLAKE,		&adl_cstates),
	X86_MATCH_VFM(INTEL_ALDERLAKE_L,	&adl_cstates),
	X86_MATCH_VFM(INTEL_RAPTORLAKE,		&adl_cstates),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_P,	&adl_cstates),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_S,	&adl_cstates),
	X86_MATCH_VFM(INTEL_METEORLAKE,		&adl_cstates),
	X86_MATCH_VFM(INTEL_METEORLAKE_L,	&adl_cstates),
	X86_MATCH_VFM(INTEL_ARROWLAKE,		&adl_cstates),
	X86_MATCH_VFM(INTEL_ARROWLAKE_H,	&adl_cstates),
	X86_MATCH_VFM(INTEL_ARROWLAKE_U,	&adl_cstates),
	X86_MATCH_VFM(INTEL_LUNARLAKE_M,	&adl_cstates),
	X86_MATCH_VFM(INTEL_ATOM_GRACEMONT,	&adl_cstates),

	X86_MATCH_VFM(INTEL_XEON_PHI_KNL,	&knl_cstates),
	X86_MATCH_VFM(INTEL_XEON_PHI_KNM,	&knl_cstates),

	X86_MATCH_VFM(INTEL_ATOM_SILVERMONT,	&slm_cstates),
	X86_MATCH_VFM(INTEL_ATOM_SILVERMONT_D,	&slm_cstates),
	X86_MATCH_VFM(INTEL_ATOM_AIRMONT,	&amt_cstates),
	X86_MATCH_VFM(INTEL_ATOM_GOLDMONT,	&glm_cstates),
	X86_MATCH_VFM(INTEL_ATOM_GOLDMONT_D,	&glm_cstates),
	X86_MATCH_VFM(INTEL_ATOM_GOLDMONT_PLUS,	&glm_cstates),
	X86_MATCH_VFM(INTEL_ATOM_TREMONT_D,	&tnt_d_cstates),
	X86_MATCH_VFM(INTEL_ATOM_TREMONT,	&glm_cstates),
	X86_MATCH_VFM(INTEL_ATOM_TREMONT_L,	&glm_cstates),
	X86_MATCH_VFM(INTEL_ATOM_CRESTMONT,	&srf_cstates),
	X86_MATCH_VFM(INTEL_ATOM_CRESTMONT_X,	&srf_cstates),
	{}
};
MODULE_DEVICE_TABLE(x86cpu, cstate_models);

PMU_FORMAT_ATTR(event, "config:0-63");

static struct attribute *cstate_format_attrs[] = {
	&format_attr_event.attr,
	NULL,
};

static const struct attribute_group cstate_format_group = {
	.name	= "format",
	.attrs	= cstate_format_attrs,
};

PMU_EVENT_ATTR_STRING(c1-residency, core_c1, "event=0x00")
PMU_EVENT_ATTR_STRING(c3-residency, core_c3, "event=0x01")
PMU_EVENT_ATTR_STRING(c6-residency, core_c6, "event=0x02")
PMU_EVENT_ATTR_STRING(c7-residency, core_c7, "event=0x03")

PMU_EVENT_ATTR_STRING(c2-residency, pkg_c2, "event=0x00")
PMU_EVENT_ATTR_STRING(c3-residency, pkg_c3, "event=0x01")
PMU_EVENT_ATTR_STRING(c6-residency, pkg_c6, "event=0x02")
PMU_EVENT_ATTR_STRING(c7-residency, pkg_c7, "event=0x03")
PMU_EVENT_ATTR_STRING(c8-residency, pkg_c8, "event=0x04")
PMU_EVENT_ATTR_STRING(c9-residency, pkg_c9, "event=0x05")
PMU_EVENT_ATTR_STRING(c10-residency, pkg_c10, "event=0x06")

/* in config order: the is_visible() callbacks index them by config */
static struct attribute *core_event_attrs[CORE_NR + 1] = {
	&core_c1.attr.attr, &core_c3.attr.attr,
	&core_c6.attr.attr, &core_c7.attr.attr,
	NULL,
};

static struct attribute *pkg_event_attrs[PKG_NR + 1] = {
	&pkg_c2.attr.attr, &pkg_c3.attr.attr, &pkg_c6.attr.attr,
	&pkg_c7.attr.attr, &pkg_c8.attr.attr, &pkg_c9.attr.attr,
	&pkg_c10.attr.attr,
	NULL,
};

/* the counters found at boot, a bit per config; then read-only */
static unsigned long core_present __ro_after_init;
static unsigned long pkg_present __ro_after_init;

static umode_t core_event_visible(struct kobject *kobj, struct attribute *a,
				  int i)
{
	return test_bit(i, &core_present) ? a->mode : 0;
}

static umode_t pkg_event_visible(struct kobject *kobj, struct attribute *a,
				 int i)
{
	return test_bit(i, &pkg_present) ? a->mode : 0;
}

static const struct attribute_group core_events_group = {
	.name		= "events",
	.attrs		= core_event_attrs,
	.is_visible	= core_event_visible,
};

static const struct attribute_group pkg_events_group = {
	.name		= "events",
	.attrs		= pkg_event_attrs,
	.is_visible	= pkg_event_visible,
};

static const struct attribute_group *core_attr_groups[] = {
	&cstate_format_group,
	&core_events_group,
	NULL,
};

static const struct attribute_group *pkg_attr_groups[] = {
	&cstate_format_group,
	&pkg_events_group,
	NULL,
};

static int cstate_event_init(struct perf_event *event);

#define CSTATE_PMU(_groups, _scope) {					\
	.pmu = {							\
		.module		= THIS_MODULE,				\
		.attr_groups	= _groups,				\
		.task_ctx_nr	= perf_invalid_context,			\
		.event_init	= cstate_event_init,			\
		.add		= x86_freerun_add,			\
		.del		= x86_freerun_del,			\
		.start		= x86_freerun_start,			\
		.stop		= x86_freerun_stop,			\
		.read		= x86_freerun_read,			\
		.capabilities	= PERF_PMU_CAP_NO_INTERRUPT |		\
				  PERF_PMU_CAP_NO_EXCLUDE,		\
		.scope		= _scope,				\
	},								\
}

static struct x86_freerun_pmu core_pmu =
	CSTATE_PMU(core_attr_groups, PERF_PMU_SCOPE_CORE);
static struct x86_freerun_pmu pkg_pmu =
	CSTATE_PMU(pkg_attr_groups, PERF_PMU_SCOPE_PKG);

static int cstate_event_init(struct perf_event *event)
{
	u64 cfg = event->attr.config;
	const unsigned long *present;
	const u32 *msrs;
	unsigned int nr;

	/* by the PMU asked, not by type: an unregistered twin has none */
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (event->pmu == &core_pmu.pmu) {
		present = &core_present;
		msrs = core_msrs;
		nr = CORE_NR;
	} else {
		present = &pkg_present;
		msrs = pkg_msrs;
		nr = PKG_NR;
	}
	/* counting only, on a CPU: the counters interrupt nothing */
	if (is_sampling_event(event) || event->cpu < 0)
		return -EINVAL;
	if (cfg >= nr)
		return -EINVAL;
	cfg = array_index_nospec((unsigned long)cfg, nr);
	if (!test_bit(cfg, present))
		return -EINVAL;
	event->hw.config = cfg;
	event->hw.event_base = msrs[cfg];
	event->hw.config_base = 64;
	event->hw.idx = -1;
	/* nothing to read before add() has set prev_count */
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	return 0;
}

static unsigned long __init cstate_probe(unsigned long mask, const u32 *msrs,
					 unsigned int nr)
{
	unsigned long present = 0;
	unsigned int i;
	u64 val;

	for_each_set_bit(i, &mask, nr)
		if (!rdmsrl_safe(msrs[i], &val))
			__set_bit(i, &present);
	return present;
}

static int __init cstate_pmu_init(void)
{
	const struct x86_cpu_id *id = x86_match_cpu(cstate_models);
	const struct cstate_model *m;
	int err;

	if (!id || boot_cpu_has(X86_FEATURE_HYPERVISOR))
		return -ENODEV;
	m = (const struct cstate_model *)id->driver_data;
	if (m->atom_pkg_c6)
		pkg_msrs[PS_C6] = MSR_ATOM_PKG_C6_RESIDENCY;
	core_present = cstate_probe(m->core, core_msrs, CORE_NR);
	pkg_present = cstate_probe(m->pkg, pkg_msrs, PKG_NR);

	if (core_present) {
		err = perf_pmu_register(&core_pmu.pmu, "cstate_core", -1);
		if (err) {
			pr_warn("cstate_core: registration failed: %d\n", err);
			core_present = 0;
		}
	}
	if (pkg_present) {
		err = perf_pmu_register(&pkg_pmu.pmu, "cstate_pkg", -1);
		if (err) {
			pr_warn("cstate_pkg: registration failed: %d\n", err);
			pkg_present = 0;
		}
	}
	if (!core_present && !pkg_present)
		return -ENODEV;
	pr_info("core %#lx, package %#lx\n", core_present, pkg_present);
	return 0;
}
module_init(cstate_pmu_init);

static void __exit cstate_pmu_exit(void)
{
	if (core_present)
		perf_pmu_unregister(&core_pmu.pmu);
	if (pkg_present)
		perf_pmu_unregister(&pkg_pmu.pmu);
}
module_exit(cstate_pmu_exit);

MODULE_DESCRIPTION("Intel C-state residency counters as cstate_core/cstate_pkg PMUs");
MODULE_LICENSE("GPL");
