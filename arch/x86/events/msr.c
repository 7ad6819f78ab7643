// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "msr" PMU: counters that the CPU runs on its own and that software
 * reads at any time, exposed as perf events.
 *
 *   config  event               source
 *   0       tsc                 time-stamp counter (RDTSC)
 *   1       aperf               IA32_APERF, actual clock cycles in C0
 *   2       mperf               IA32_MPERF, reference clock cycles in C0
 *   3       pperf               MSR_PPERF, productive cycles (Intel,
 *                               Skylake and later: no CPUID bit)
 *   4       smi                 MSR_SMI_COUNT, SMIs taken (Intel, 32 bits)
 *   5       ptsc                performance time-stamp counter (AMD)
 *   6       irperf              instructions retired (AMD)
 *   7       cpu_thermal_margin  degrees C below TjMax (Intel, a snapshot)
 *
 * The config numbers are ABI: they are what events/<name> shows. A
 * counter is listed, and accepted, only if the CPU has it: the CPUID
 * feature bit where there is one, and in any case a read of the MSR that
 * does not fault (under emulators and hypervisors most are missing).
 *
 * Nothing is programmed (freerun.c has the operations). Events cannot
 * sample (no interrupt) nor filter by privilege level (the counters
 * count everything). These counters are per-CPU (per-core for some), so an
 * event counts on whichever CPU it is scheduled.
 */

#define pr_fmt(fmt)	"perf/msr: " fmt

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/init.h>
#include <linux/nospec.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/cpu_device_id.h>
#include <asm/cpufeature.h>
#include <asm/intel-family.h>
#include <asm/msr.h>
#include <asm/processor.h>

#include "perf_event.h"

enum msr_ctr_id {
	MSR_CTR_TSC	= 0,
	MSR_CTR_APERF	= 1,
	MSR_CTR_MPERF	= 2,
	MSR_CTR_PPERF	= 3,
	MSR_CTR_SMI	= 4,
	MSR_CTR_PTSC	= 5,
	MSR_CTR_IRPERF	= 6,
	MSR_CTR_THERM	= 7,
	MSR_CTR_NUM,
};

/* IA32_THERM_STATUS: digital readout, and whether it is valid (SDM) */
#define THERM_STATUS_READOUT	GENMASK_ULL(22, 16)
#define THERM_STATUS_VALID	BIT_ULL(31)

/* sysfs: format/ and events/ */
PMU_STR_ATTR(msr_format_event, "event", "config:0-63");

PMU_STR_ATTR(msr_attr_tsc,		"tsc",		"event=0x00");
PMU_STR_ATTR(msr_attr_aperf,	"aperf",	"event=0x01");
PMU_STR_ATTR(msr_attr_mperf,	"mperf",	"event=0x02");
PMU_STR_ATTR(msr_attr_pperf,	"pperf",	"event=0x03");
PMU_STR_ATTR(msr_attr_smi,		"smi",		"event=0x04");
PMU_STR_ATTR(msr_attr_ptsc,		"ptsc",		"event=0x05");
PMU_STR_ATTR(msr_attr_irperf,	"irperf",	"event=0x06");
PMU_STR_ATTR(msr_attr_therm,	"cpu_thermal_margin", "event=0x07");
PMU_STR_ATTR(msr_attr_therm_snap,	"cpu_thermal_margin.snapshot", "1");
PMU_STR_ATTR(msr_attr_therm_unit,	"cpu_thermal_margin.unit", "C");

static bool msr_have_tsc(void)
{
	return boot_cpu_has(X86_FEATURE_TSC);
}

static bool msr_have_aperfmperf(void)
{
	return boot_cpu_has(X86_FEATURE_APERFMPERF);
}

/*
 * MSR_PPERF has no CPUID bit: the SDM lists it for the Skylake generation
 * and the client and server cores after it
 */
static const struct x86_cpu_id msr_pperf_cpus[] = {
	X86_MATCH_VFM(INTEL_SKYLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_SKYLAKE, NULL),
	X86_MATCH_VFM(INTEL_SKYLAKE_X, NULL),
	X86_MATCH_VFM(INTEL_KABYLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_KABYLAKE, NULL),
	X86_MATCH_VFM(INTEL_COMETLAKE, NULL),
	X86_MATCH_VFM(INTEL_COMETLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_CANNONLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_ICELAKE_X, NULL),
	X86_MATCH_VFM(INTEL_ICELAKE_D, NULL),
	X86_MATCH_VFM(INTEL_ICELAKE, NULL),
	X86_MATCH_VFM(INTEL_ICELAKE_L, NULL),
	X86_MATCH_VFM(INTEL_ROCKETLAKE, NULL),
	X86_MATCH_VFM(INTEL_TIGERLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_TIGERLAKE, NULL),
	X86_MATCH_VFM(INTEL_SAPPHIRERAPIDS_X, NULL),
	X86_MATCH_VFM(INTEL_EMERALDRAPIDS_X, NULL),
	X86_MATCH_VFM(INTEL_GRANITERAPIDS_X, NULL),
	X86_MATCH_VFM(INTEL_GRANITERAPIDS_D, NULL),
	X86_MATCH_VFM(INTEL_ALDERLAKE, NULL),
	X86_MATCH_VFM(INTEL_ALDERLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_RAPTORLAKE, NULL),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_P, NULL),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_S, NULL),
	X86_MATCH_VFM(INTEL_METEORLAKE, NULL),
	X86_MATCH_VFM(INTEL_METEORLAKE_L, NULL),
	X86_MATCH_VFM(INTEL_ARROWLAKE_H, NULL),
	X86_MATCH_VFM(INTEL_ARROWLAKE, NULL),
	X86_MATCH_VFM(INTEL_ARROWLAKE_U, NULL),
	X86_MATCH_VFM(INTEL_LUNARLAKE_M, NULL),
	{}
};

static bool msr_have_pperf(void)
{
	return x86_match_cpu(msr_pperf_cpus);
}

static bool msr_have_smi(void)
{
	return boot_cpu_data.x86_vendor == X86_VENDOR_INTEL &&
	       boot_cpu_data.x86 >= 6;
}

static bool msr_have_ptsc(void)
{
	return boot_cpu_has(X86_FEATURE_PTSC);
}

static bool msr_have_irperf(void)
{
	return boot_cpu_has(X86_FEATURE_IRPERF);
}

static bool msr_have_therm(void)
{
	return boot_cpu_data.x86_vendor == X86_VENDOR_INTEL &&
	       boot_cpu_has(X86_FEATURE_DTHERM);
}

/**
 * struct msr_ctr - one counter of the msr PMU
 * @msr: the MSR to read, 0 for the TSC (read with RDTSC)
 * @width: the counter's width in bits, for wrap-around
 * @snapshot: the MSR holds a reading, not a count: read() reports the
 *	current value instead of accumulating
 * @have: whether the CPU is expected to have the counter; the MSR is then
 *	probed as well
 * @attrs: its files in events/, NULL-terminated
 */
struct msr_ctr {
	u32		msr;
	u8		width;
	bool		snapshot;
	bool		(*have)(void);
	struct attribute *attrs[4];
};

static const struct msr_ctr msr_ctrs[MSR_CTR_NUM] = {
	[MSR_CTR_TSC] = {
		.msr	= 0,
		.width	= 64,
		.have	= msr_have_tsc,
		.attrs	= { &msr_attr_tsc.attr.attr },
	},
	[MSR_CTR_APERF] = {
		.msr	= MSR_IA32_APERF,
		.width	= 64,
		.have	= msr_have_aperfmperf,
		.attrs	= { &msr_attr_aperf.attr.attr },
	},
	[MSR_CTR_MPERF] = {
		.msr	= MSR_IA32_MPERF,
		.width	= 64,
		.have	= msr_have_aperfmperf,
		.attrs	= { &msr_attr_mperf.attr.attr },
	},
	[MSR_CTR_PPERF] = {
		.msr	= MSR_PPERF,
		.width	= 64,
		.have	= msr_have_pperf,
		.attrs	= { &msr_attr_pperf.attr.attr },
	},
	[MSR_CTR_SMI] = {
		.msr	= MSR_SMI_COUNT,
		.width	= 32,
		.have	= msr_have_smi,
		.attrs	= { &msr_attr_smi.attr.attr },
	},
	[MSR_CTR_PTSC] = {
		.msr	= MSR_F15H_PTSC,
		.width	= 64,
		.have	= msr_have_ptsc,
		.attrs	= { &msr_attr_ptsc.attr.attr },
	},
	[MSR_CTR_IRPERF] = {
		.msr	= MSR_F17H_IRPERF,
		.width	= 64,
		.have	= msr_have_irperf,
		.attrs	= { &msr_attr_irperf.attr.attr },
	},
	[MSR_CTR_THERM] = {
		.msr		= MSR_IA32_THERM_STATUS,
		.width		= 64,
		.snapshot	= true,
		.have		= msr_have_therm,
		.attrs		= { &msr_attr_therm.attr.attr,
				    &msr_attr_therm_snap.attr.attr,
				    &msr_attr_therm_unit.attr.attr },
	},
};

/* The counters found at boot, a bit per enum msr_ctr_id; then read-only. */
static unsigned long msr_ctrs_present __ro_after_init;

static bool msr_ctr_present(unsigned int id)
{
	return test_bit(id, &msr_ctrs_present);
}

static struct attribute *msr_format_attrs[] = {
	&msr_format_event.attr.attr,
	NULL,
};

static const struct attribute_group msr_format_group = {
	.name	= "format",
	.attrs	= msr_format_attrs,
};

static struct attribute *msr_events_attrs[] = {
	&msr_attr_tsc.attr.attr,
	&msr_attr_aperf.attr.attr,
	&msr_attr_mperf.attr.attr,
	&msr_attr_pperf.attr.attr,
	&msr_attr_smi.attr.attr,
	&msr_attr_ptsc.attr.attr,
	&msr_attr_irperf.attr.attr,
	&msr_attr_therm.attr.attr,
	&msr_attr_therm_snap.attr.attr,
	&msr_attr_therm_unit.attr.attr,
	NULL,
};

/* List in events/ only the files of the counters this CPU has. */
static umode_t msr_events_is_visible(struct kobject *kobj,
				     struct attribute *attr, int i)
{
	struct attribute * const *a;
	unsigned int id;

	for (id = 0; id < MSR_CTR_NUM; id++) {
		if (!msr_ctr_present(id))
			continue;
		for (a = msr_ctrs[id].attrs; *a; a++) {
			if (*a == attr)
				return attr->mode;
		}
	}
	return 0;
}

static const struct attribute_group msr_events_group = {
	.name		= "events",
	.attrs		= msr_events_attrs,
	.is_visible	= msr_events_is_visible,
};

static const struct attribute_group *msr_attr_groups[] = {
	&msr_format_group,
	&msr_events_group,
	NULL,
};

/* the thermal margin: degrees below TjMax, or -1 without a valid reading */
static bool msr_snapshot(struct perf_event *event, u64 *val)
{
	u64 raw;

	if (!msr_ctrs[event->hw.config].snapshot)
		return false;
	rdmsrl(event->hw.event_base, raw);
	*val = raw & THERM_STATUS_VALID ? FIELD_GET(THERM_STATUS_READOUT, raw)
					: -1ULL;
	return true;
}

static struct x86_freerun_pmu msr_pmu;

static int msr_event_init(struct perf_event *event)
{
	u64 cfg = event->attr.config;

	if (event->attr.type != msr_pmu.pmu.type)
		return -ENOENT;

	/* No interrupt, so no sampling. */
	if (is_sampling_event(event))
		return -EINVAL;

	if (cfg >= MSR_CTR_NUM)
		return -EINVAL;
	cfg = array_index_nospec((unsigned long)cfg, MSR_CTR_NUM);
	if (!msr_ctr_present(cfg))
		return -EINVAL;

	/*
	 * Free-running: no counter to compete for, so the event groups and
	 * schedules as a software event does (a member of a hardware group,
	 * or the leader of one), as 6.12's software-context msr PMU.
	 */
	event->event_caps |= PERF_EV_CAP_SOFTWARE;
	event->hw.config = cfg;
	event->hw.event_base = msr_ctrs[cfg].msr;
	event->hw.config_base = msr_ctrs[cfg].width;
	event->hw.idx = -1;
	/* nothing to read before add() has set prev_count */
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	return 0;
}

static struct x86_freerun_pmu msr_pmu = {
	.pmu = {
		.task_ctx_nr	= perf_sw_context,
		.attr_groups	= msr_attr_groups,
		.event_init	= msr_event_init,
		.add		= x86_freerun_add,
		.del		= x86_freerun_del,
		.start		= x86_freerun_start,
		.stop		= x86_freerun_stop,
		.read		= x86_freerun_read,
		.capabilities	= PERF_PMU_CAP_NO_INTERRUPT |
				  PERF_PMU_CAP_NO_EXCLUDE,
	},
	.snapshot	= msr_snapshot,
};

static bool __init msr_ctr_probe(const struct msr_ctr *ctr)
{
	u64 val;

	if (!ctr->have())
		return false;

	return !ctr->msr || !rdmsrl_safe(ctr->msr, &val);
}

static int __init msr_pmu_init(void)
{
	unsigned int id;
	int err;

	for (id = 0; id < MSR_CTR_NUM; id++) {
		if (msr_ctr_probe(&msr_ctrs[id]))
			__set_bit(id, &msr_ctrs_present);
	}

	if (!msr_ctrs_present) {
		pr_info("no counters, not registering\n");
		return 0;
	}

	err = perf_pmu_register(&msr_pmu.pmu, "msr", -1);
	if (err)
		pr_warn("registration failed: %d\n", err);
	return 0;
}
device_initcall(msr_pmu_init);
