// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel architectural performance monitoring, version 2 and later
 * (Intel SDM vol. 3, "Architectural Performance Monitoring"): the
 * general-purpose counters (IA32_PERFEVTSELx / IA32_PMCx), the fixed
 * counters (IA32_FIXED_CTR_CTRL / IA32_FIXED_CTRx) and the global
 * control, status and overflow-reset registers, as a struct
 * x86_pmu_ops for the "cpu" PMU of ../pmu.c.
 *
 * Only architectural events are named (CPUID leaf 0xA says which exist);
 * anything else is a raw event select. On the models this driver knows
 * (Skylake, Ice Lake, Sapphire Rapids) also the generic cache events
 * (cache.c; Skylake's and Ice Lake's), PEBS, the extra
 * registers of the offcore response, load latency and front-end events
 * (extra.c) and the counter that
 * INST_RETIRED.PREC_DIST is limited to. Fixed counter i counts one event
 * only: 0 instructions retired, 1 core cycles, 2 reference cycles (the
 * pseudo event select 0x0300, which no general counter can count).
 *
 * A counter counts while its enable bit (EN in its PERFEVTSEL, or its
 * nibble of FIXED_CTR_CTRL) and its bit of GLOBAL_CTRL are both set;
 * GLOBAL_CTRL is kept in a per-CPU copy so that enabling a counter is
 * two MSR writes and no read.
 *
 * Also the detection of architectural performance monitoring (CPUID
 * leaf 0xA: intel_pmu_detect()), which ../core.c calls for any version.
 */

#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>

#include <asm/apic.h>
#include <asm/cpu_device_id.h>
#include <asm/cpufeature.h>
#include <asm/intel-family.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

/* PERF_CAPABILITIES */
#define INTEL_LBR_FORMAT	0x3fULL
#define INTEL_LBR_FORMAT_INFO	5
#define INTEL_FW_WRITES		BIT_ULL(13)
/*
 * what the driver sets once for every kind of core: the LBR and PEBS
 * formats, full-width writes, PEBS_BASELINE (not PERF_METRICS, bit 15,
 * which is each kind's own: the top-down flag of its x86_cpu_type)
 */
#define INTEL_CAPS_SHARED	(GENMASK_ULL(11, 0) | INTEL_FW_WRITES | \
				 BIT_ULL(14))
#define INTEL_REF_CYCLES	0x0300		/* pseudo event: fixed 2 */
#define INTEL_MAX_STATUS_LOOPS	16
/* INST_RETIRED.PREC_DIST counts on general counter 1 only */
#define INTEL_PREC_DIST		0x01c0
#define INTEL_EVENT_UMASK	(ARCH_PERFMON_EVENTSEL_EVENT | \
				 ARCH_PERFMON_EVENTSEL_UMASK)
/*
 * BR_INST_RETIRED.ALL_BRANCHES with a period of 1: what 6.12 takes for
 * branch tracing (BTS, bts.c)
 */
#define INTEL_BTS_EVENT		0x00c4
/* hwc->config_base of such an event */
#define INTEL_BTS_MARK		(~0UL)

/* config bits that make an event something a fixed counter cannot count */
#define INTEL_FIXED_EXCLUDES	(ARCH_PERFMON_EVENTSEL_EDGE |		\
				 ARCH_PERFMON_EVENTSEL_INV |		\
				 ARCH_PERFMON_EVENTSEL_CMASK)

/* this CPU's GLOBAL_CTRL and FIXED_CTR_CTRL: a bit changes without a rdmsr */
static DEFINE_PER_CPU(u64, intel_global_ctrl);
/*
 * Counters of exclude_host events (counting only in guests) and of
 * exclude_guest events (only on the host): GLOBAL_CTRL holds the host's
 * view, KVM switches to the guest's at VM entry (perf_guest_get_msrs()).
 */
static DEFINE_PER_CPU(u64, intel_guest_only);
static DEFINE_PER_CPU(u64, intel_host_only);
/* in the PMI: GLOBAL_CTRL stays 0 until it ends (intel_handle_irq()) */
static DEFINE_PER_CPU(bool, intel_in_pmi);
/*
 * held by the core (intel_hold()): GLOBAL_CTRL stays 0 until released;
 * a depth, as the PMUs of a hybrid CPU's two kinds of core share it
 */
static DEFINE_PER_CPU(int, intel_held);
static DEFINE_PER_CPU(struct perf_guest_switch_msr, intel_guest_msrs[2]);
static DEFINE_PER_CPU(u64, intel_fixed_ctrl);
static bool intel_fw_writes __read_mostly;
/* a model whose event list this driver has (Skylake) */
static bool intel_skl __ro_after_init;
/* ... Ice Lake's */
static bool intel_icl __ro_after_init;
/*
 * a model whose extra registers (offcore response, load latency, front
 * end) this driver knows: Skylake's, Ice Lake's and Sapphire Rapids' are
 * the same
 */
static bool intel_extra __ro_after_init;
/*
 * Intel PT and the branch hardware's users (LBRs, BTS) work side by side:
 * the models this driver knows, Skylake on, as in 6.12
 */
bool intel_lbr_pt_coexist __ro_after_init;
/* ... and PEBS (pebs.c), adaptive or not */
static bool intel_pebs __ro_after_init;
static bool intel_pebs_adaptive __ro_after_init;
/*
 * caps/pmu_name, which perf reads: the microarchitecture where it is
 * known, "generic_arch_v<version>" elsewhere.
 */
static char intel_pmu_name[24] __ro_after_init;

/*
 * The microarchitectures whose events this driver knows: caps/pmu_name,
 * the generic cache events, and the model-specific quirks (the PEBS
 * PREC_DIST constraints, the pc format bit) keyed by @family.
 */
enum intel_family { INTEL_FAM_SKL, INTEL_FAM_ICL, INTEL_FAM_SPR,
		    INTEL_FAM_ADL };

struct intel_model {
	const char			*name;
	enum intel_family		family;
	const x86_cache_table_t		*cache_events;
	const x86_cache_table_t		*cache_extra;
	void				(*cache_init)(void);
};

static const struct intel_model intel_model_skl __initconst = {
	.name		= "skylake",
	.family		= INTEL_FAM_SKL,
	.cache_events	= &intel_skl_cache_events,
	.cache_extra	= &intel_skl_cache_extra,
};

static const struct intel_model intel_model_icl __initconst = {
	.name		= "icelake",
	.family		= INTEL_FAM_ICL,
	.cache_events	= &intel_icl_cache_events,
	.cache_extra	= &intel_skl_cache_extra,
	.cache_init	= intel_icl_cache_init,
};

static const struct intel_model intel_model_spr __initconst = {
	.name		= "sapphire_rapids",
	.family		= INTEL_FAM_SPR,
	.cache_events	= &intel_spr_cache_events,
	.cache_extra	= &intel_spr_cache_extra,
};

/* hybrid.c: two kinds of core; the Core's cache events are Golden Cove's */
static const struct intel_model intel_model_adl __initconst = {
	.name		= "alderlake_hybrid",
	.family		= INTEL_FAM_ADL,
	.cache_events	= &intel_spr_cache_events,
	.cache_extra	= &intel_spr_cache_extra,
};

static const struct x86_cpu_id intel_models[] __initconst = {
	X86_MATCH_VFM(INTEL_SKYLAKE_L,		&intel_model_skl),
	X86_MATCH_VFM(INTEL_SKYLAKE,		&intel_model_skl),
	X86_MATCH_VFM(INTEL_SKYLAKE_X,		&intel_model_skl),
	X86_MATCH_VFM(INTEL_KABYLAKE_L,		&intel_model_skl),
	X86_MATCH_VFM(INTEL_KABYLAKE,		&intel_model_skl),
	X86_MATCH_VFM(INTEL_COMETLAKE_L,	&intel_model_skl),
	X86_MATCH_VFM(INTEL_COMETLAKE,		&intel_model_skl),
	X86_MATCH_VFM(INTEL_ICELAKE_L,		&intel_model_icl),
	X86_MATCH_VFM(INTEL_ICELAKE,		&intel_model_icl),
	X86_MATCH_VFM(INTEL_ICELAKE_X,		&intel_model_icl),
	X86_MATCH_VFM(INTEL_ICELAKE_D,		&intel_model_icl),
	X86_MATCH_VFM(INTEL_SAPPHIRERAPIDS_X,	&intel_model_spr),
	X86_MATCH_VFM(INTEL_EMERALDRAPIDS_X,	&intel_model_spr),
	X86_MATCH_VFM(INTEL_ALDERLAKE,		&intel_model_adl),
	X86_MATCH_VFM(INTEL_ALDERLAKE_L,	&intel_model_adl),
	X86_MATCH_VFM(INTEL_RAPTORLAKE,		&intel_model_adl),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_P,	&intel_model_adl),
	X86_MATCH_VFM(INTEL_RAPTORLAKE_S,	&intel_model_adl),
	{}
};

/*
 * The architectural events, in CPUID.0AH:EBX bit order (a set bit: not
 * available), with the generic event each one is.
 */
static const struct {
	int	hw;
	u64	config;
} intel_arch_events[] = {
	{ PERF_COUNT_HW_CPU_CYCLES,		0x003c },
	{ PERF_COUNT_HW_INSTRUCTIONS,		0x00c0 },
	{ PERF_COUNT_HW_BUS_CYCLES,		0x013c },
	{ PERF_COUNT_HW_CACHE_REFERENCES,	0x4f2e },
	{ PERF_COUNT_HW_CACHE_MISSES,		0x412e },
	{ PERF_COUNT_HW_BRANCH_INSTRUCTIONS,	0x00c4 },
	{ PERF_COUNT_HW_BRANCH_MISSES,		0x00c5 },
};

static u64 intel_event_map(int hw_event)
{
	int i;

	if (hw_event == PERF_COUNT_HW_REF_CPU_CYCLES)
		return x86_pmu_hw.num_counters_fixed > 2 ? INTEL_REF_CYCLES : 0;

	for (i = 0; i < ARRAY_SIZE(intel_arch_events); i++) {
		if (intel_arch_events[i].hw != hw_event)
			continue;
		if (i < x86_pmu_hw.events_mask_len &&
		    (x86_pmu_hw.events_mask & BIT(i)))
			return 0;
		return intel_arch_events[i].config;
	}
	return 0;
}

static u64 intel_constraint(struct perf_event *event, u64 config)
{
	const struct x86_cpu_type *type = x86_event_type(event);
	u64 gp = type->cntr_mask & GENMASK_ULL(INTEL_PMC_IDX_FIXED - 1, 0);
	u64 sel = config & INTEL_ARCH_EVENT_MASK;
	int fixed = -1;

	/* a BTS event whose period was changed counts on a counter (6.12) */
	if (unlikely(event->hw.config_base == INTEL_BTS_MARK) &&
	    event->hw.sample_period == 1)
		return BIT_ULL(INTEL_PMC_IDX_FIXED_BTS);
	if (unlikely(type->td)) {
		u64 td = intel_td_constraint(event, config);

		if (td)
			return td;
	}
	/*
	 * PEBS: a general counter; PREC_DIST's unit mask counter 1. An
	 * adaptive PEBS counts on any counter the event has.
	 */
	if (event->attr.precise_ip && !intel_pebs_adaptive)
		return (config & INTEL_EVENT_UMASK) == INTEL_PREC_DIST ?
		       BIT_ULL(1) : gp;

	if (!(config & INTEL_FIXED_EXCLUDES)) {
		if (sel == 0x00c0)
			fixed = 0;
		else if (sel == 0x003c)
			fixed = 1;
		else if (sel == INTEL_REF_CYCLES)
			fixed = 2;
	}
	if (sel == INTEL_REF_CYCLES)
		gp = 0;
	if (intel_skl && (config & INTEL_EVENT_UMASK) == INTEL_PREC_DIST)
		gp &= BIT_ULL(1);
	/* Ice Lake's INST_RETIRED.PREC_DIST is fixed counter 0's alone */
	if (intel_icl && (config & INTEL_EVENT_UMASK) == INTEL_PREC_DIST &&
	    !(config & INTEL_FIXED_EXCLUDES))
		return BIT_ULL(X86_PMU_FIXED(0));
	if (fixed >= 0 && fixed < type->num_fixed)
		gp |= BIT_ULL(X86_PMU_FIXED(fixed));
	return gp;
}

static void intel_counter(int idx, unsigned long *msr, int *rdpmc, int *bits)
{
	/*
	 * no counter behind it: pmu.c reads and loads none; the control
	 * page's index is 1 all the same, as in 6.12
	 */
	if (idx == INTEL_PMC_IDX_FIXED_BTS) {
		*msr = 0;
		*rdpmc = 0;
		*bits = 64;
		return;
	}
	if (idx >= INTEL_PMC_IDX_METRIC_BASE) {
		intel_td_counter(idx, msr, rdpmc, bits);
		return;
	}
	if (idx >= INTEL_PMC_IDX_FIXED) {
		idx -= INTEL_PMC_IDX_FIXED;
		*msr = MSR_CORE_PERF_FIXED_CTR0 + idx;
		*rdpmc = INTEL_PMC_FIXED_RDPMC_BASE | idx;
		*bits = x86_pmu_hw.cntval_bits_fixed;
		return;
	}
	/* the full-width aliases take all bits; the legacy ones sign-extend */
	*msr = (intel_fw_writes ? MSR_IA32_PMC0 : MSR_ARCH_PERFMON_PERFCTR0) +
	       idx;
	*rdpmc = idx;
	*bits = x86_pmu_hw.cntval_bits;
}

/*
 * Write the host's view of the copy to GLOBAL_CTRL, unless a PMI or the
 * core's hold keeps the counters off (they write it when they end)
 */
static void intel_global_ctrl_write(void)
{
	if (this_cpu_read(intel_in_pmi) || this_cpu_read(intel_held))
		return;
	wrmsrl(MSR_CORE_PERF_GLOBAL_CTRL, this_cpu_read(intel_global_ctrl) &
	       ~this_cpu_read(intel_guest_only));
}

static void intel_global_ctrl_set(struct perf_event *event, bool on)
{
	u64 *ctrl = this_cpu_ptr(&intel_global_ctrl);
	u64 *guest_only = this_cpu_ptr(&intel_guest_only);
	u64 *host_only = this_cpu_ptr(&intel_host_only);
	u64 bit = BIT_ULL(event->hw.idx);

	/* the metric events share one enable bit */
	if (event->hw.idx >= INTEL_PMC_IDX_METRIC_BASE) {
		if (!on && (this_cpu_ptr(&cpu_hw_events)->active &
			    INTEL_TD_METRIC_IDX_MASK & ~bit))
			return;
		bit = BIT_ULL(GLOBAL_CTRL_EN_PERF_METRICS);
	}
	*ctrl &= ~bit;
	*guest_only &= ~bit;
	*host_only &= ~bit;
	if (on) {
		*ctrl |= bit;
		if (event->attr.exclude_host)
			*guest_only |= bit;
		if (event->attr.exclude_guest)
			*host_only |= bit;
	}
	intel_global_ctrl_write();
}

/*
 * All counters off (@on) or back to the copy, in one GLOBAL_CTRL write:
 * a group's members start and stop together. A PMI that comes while
 * held leaves GLOBAL_CTRL at 0.
 */
static void intel_hold(bool on)
{
	int held = this_cpu_read(intel_held) + (on ? 1 : -1);

	if (WARN_ON_ONCE(held < 0))
		held = 0;
	this_cpu_write(intel_held, held);
	if (on && !this_cpu_read(intel_in_pmi))
		wrmsrl(MSR_CORE_PERF_GLOBAL_CTRL, 0);
	else
		intel_global_ctrl_write();
}

/**
 * perf_guest_get_msrs - PMU MSRs to switch on VM entry and exit
 * @nr: set to the number of entries returned
 * @data: KVM's struct kvm_pmu of the vCPU being entered
 *
 * Called by KVM (VMX) with IRQs off before each VM entry. In the guest,
 * GLOBAL_CTRL enables the host's counters that count guests too and the
 * counters of exclude_host events (KVM's own for the guest's PMU); on
 * the host, everything but those. PEBS is off in the guest, and so are
 * the host's PEBS counters: the CPU would write their records through
 * the guest's page tables.
 *
 * Return: the MSRs with their host and guest values, for the VMX
 * MSR-load lists; NULL when the driver is not in use.
 */
struct perf_guest_switch_msr *perf_guest_get_msrs(int *nr, void *data)
{
	struct perf_guest_switch_msr *m = *this_cpu_ptr(&intel_guest_msrs);
	u64 ctrl = this_cpu_read(intel_global_ctrl);
	u64 pebs = intel_pebs_enabled();
	u64 pebs_counters = this_cpu_read(intel_pebs_counters);

	*nr = 0;
	if (!x86_pmu_hw.registered)
		return NULL;
	m[0].msr = MSR_CORE_PERF_GLOBAL_CTRL;
	m[0].host = ctrl & ~this_cpu_read(intel_guest_only);
	m[0].guest = ctrl & ~this_cpu_read(intel_host_only) & ~pebs_counters;
	*nr = 1;
	if (intel_pebs) {
		m[1].msr = MSR_IA32_PEBS_ENABLE;
		m[1].host = pebs;
		m[1].guest = 0;
		*nr = 2;
	}
	return m;
}
EXPORT_SYMBOL_GPL(perf_guest_get_msrs);

/*
 * FIXED_CTR_CTRL bits of fixed counter @i: OS, USR, PMI, AnyThread and
 * adaptive PEBS records as the event select @config has them
 */
static void intel_fixed_ctrl_set(int i, u64 config)
{
	u64 mask = 0xfULL | ICL_FIXED_0_ADAPTIVE;
	u64 old, ctrl, bits = 0;

	if (config & ARCH_PERFMON_EVENTSEL_OS)
		bits |= INTEL_FIXED_0_KERNEL;
	if (config & ARCH_PERFMON_EVENTSEL_USR)
		bits |= INTEL_FIXED_0_USER;
	if (config & ARCH_PERFMON_EVENTSEL_INT)
		bits |= INTEL_FIXED_0_ENABLE_PMI;
	if (config & ARCH_PERFMON_EVENTSEL_ANY)
		bits |= INTEL_FIXED_0_ANYTHREAD;
	if (config & ICL_EVENTSEL_ADAPTIVE)
		bits |= ICL_FIXED_0_ADAPTIVE;

	old = this_cpu_read(intel_fixed_ctrl);
	ctrl = old & ~(mask << (i * INTEL_FIXED_BITS_STRIDE));
	ctrl |= bits << (i * INTEL_FIXED_BITS_STRIDE);
	if (ctrl == old)
		return;
	this_cpu_write(intel_fixed_ctrl, ctrl);
	wrmsrl(MSR_CORE_PERF_FIXED_CTR_CTRL, ctrl);
}

/*
 * Records still in the PEBS buffer (a large PEBS event's, a PMI lost
 * while LVTPC was masked, or not come yet) go out as samples before a
 * PEBS event leaves its counter (not to whichever event gets the counter
 * next; and a task's at its switch), or its count is read. All counters
 * are held off meanwhile, so that none writes a record under the drain.
 * The PMI's own drain takes care of those of the events it stops
 * (throttling).
 */
static void intel_pebs_flush(void)
{
	bool held = this_cpu_read(intel_held);

	if (this_cpu_read(intel_in_pmi) || !intel_pebs_pending())
		return;
	if (!held)
		intel_hold(true);
	intel_pebs_drain(NULL);
	if (!held)
		intel_hold(false);
}

static void intel_enable(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	/* DEBUGCTL's, not GLOBAL_CTRL's */
	if (unlikely(hwc->idx == INTEL_PMC_IDX_FIXED_BTS)) {
		intel_bts_enable(event);
		return;
	}
	if (hwc->idx >= INTEL_PMC_IDX_METRIC_BASE) {
		/* nothing of its own to program */
	} else if (hwc->idx >= INTEL_PMC_IDX_FIXED) {
		u64 config = hwc->config;

		if (event->attr.precise_ip) {
			intel_pebs_flush();
			config = intel_pebs_enable(event);
		}
		intel_fixed_ctrl_set(hwc->idx - INTEL_PMC_IDX_FIXED, config);
	} else {
		u64 config = hwc->config;

		if (intel_extra)
			intel_extra_enable(event);
		/*
		 * records already written go out first: the new event may
		 * change their layout and the buffer's threshold
		 */
		if (event->attr.precise_ip) {
			intel_pebs_flush();
			config = intel_pebs_enable(event);
		}
		wrmsrl(MSR_ARCH_PERFMON_EVENTSEL0 + hwc->idx,
		       config | ARCH_PERFMON_EVENTSEL_ENABLE);
	}
	intel_global_ctrl_set(event, true);
}

static void intel_disable(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (unlikely(hwc->idx == INTEL_PMC_IDX_FIXED_BTS)) {
		intel_bts_disable(event);
		return;
	}
	intel_global_ctrl_set(event, false);
	if (hwc->idx >= INTEL_PMC_IDX_METRIC_BASE) {
		/* nothing of its own to program */
	} else if (hwc->idx >= INTEL_PMC_IDX_FIXED) {
		intel_fixed_ctrl_set(hwc->idx - INTEL_PMC_IDX_FIXED, 0);
		if (event->attr.precise_ip) {
			intel_pebs_flush();
			intel_pebs_disable(event);
		}
	} else {
		wrmsrl(MSR_ARCH_PERFMON_EVENTSEL0 + hwc->idx, hwc->config);
		/* its records first, while its PEBS_ENABLE bit claims them */
		if (event->attr.precise_ip) {
			intel_pebs_flush();
			intel_pebs_disable(event);
		}
	}
}

static bool intel_is_bts(struct perf_event *event, u64 config, u64 period)
{
	return (config & INTEL_EVENT_UMASK) == INTEL_BTS_EVENT &&
	       !event->attr.freq && period == 1;
}

/*
 * What 6.12 refuses of a new event before its branch stack and the
 * checks of intel_hw_config(): BTS where the CPU has none, and
 * aux_output, which steers PEBS records (to Intel PT) and so needs a
 * precise event.
 */
static int intel_event_check(struct perf_event *event, u64 config)
{
	event->hw.config_base = 0;
	if (intel_is_bts(event, config, event->attr.sample_period)) {
		int err = intel_bts_config(event);

		if (err)
			return err;
		event->hw.config_base = INTEL_BTS_MARK;
	}
	if (event->attr.aux_output && !event->attr.precise_ip)
		return -EINVAL;
	return 0;
}

/*
 * nor does an event become BTS by its period, nor take period 1 again
 * (6.12: EINVAL for every period that would make it BTS); a BTS event
 * given another period counts as an ordinary one
 */
static int intel_check_period(struct perf_event *event, u64 value)
{
	return intel_is_bts(event, event->hw.config, value) ? -EINVAL : 0;
}

/* what intel_pebs_config() and intel_bts_config() took */
static void intel_release(struct perf_event *event)
{
	if (event->hw.holds & X86_HOLDS_PEBS)
		intel_ds_put();
	if (event->hw.holds & X86_HOLDS_BTS)
		intel_ds_bts_put();
}

/*
 * The vendor checks of a new event (pmu.c dropped the raw bits outside
 * X86_RAW_EVENT_MASK): AnyThread, which counts the other hardware
 * thread of the core too and so needs the right to watch every CPU,
 * exists from version 3; the events with an extra register take its
 * value from config1.
 */
static int intel_hw_config(struct perf_event *event, u64 *config, u64 config1)
{
	int err;

	if (x86_raw_event(event) &&
	    (event->attr.config & ARCH_PERFMON_EVENTSEL_ANY)) {
		if (x86_pmu_hw.version < 3)
			return -EINVAL;
		err = perf_allow_cpu();
		if (err)
			return err;
		*config |= ARCH_PERFMON_EVENTSEL_ANY;
	}
	err = intel_td_config(event, *config);
	if (err)
		return err;
	if (event->attr.precise_ip) {
		err = intel_pebs_config(event, config);
		if (err)
			return err;
	}
	if (intel_extra)
		return intel_extra_config(event, *config, config1);
	return 0;
}

/* this CPU's counters' status bits */
static u64 intel_counter_bits(void)
{
	const struct x86_cpu_type *type = this_cpu_read(x86_this_type);

	return type->cntr_mask |
	       (type->td ? BIT_ULL(GLOBAL_STATUS_PERF_METRICS_OVF_BIT) : 0);
}

/* the status bits of the top-down registers */
#define INTEL_TD_STATUS	(BIT_ULL(INTEL_PMC_IDX_FIXED_SLOTS) | \
			 BIT_ULL(GLOBAL_STATUS_PERF_METRICS_OVF_BIT))

/*
 * The PMI: every counter whose GLOBAL_STATUS bit is set wrapped. The
 * counters are off (GLOBAL_CTRL 0) while it runs, as in 6.12: a kernel
 * event would otherwise count the handler's own instructions, and with a
 * short period wrap again before the NMI returns, over and over, every
 * sample on the instruction the first PMI hit. The status is
 * acknowledged before the counters are handled and read until it stays
 * clear. The APIC masked LVTPC when it delivered the PMI; unmasking it
 * comes after the counters are back on.
 */
static int intel_handle_irq(struct pt_regs *regs)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	u64 status, counters = intel_counter_bits(), pebs, bits;
	int loops = 0, handled = 0, bit;

	this_cpu_write(intel_in_pmi, true);
	pebs = this_cpu_read(intel_pebs_counters);
	wrmsrl(MSR_CORE_PERF_GLOBAL_CTRL, 0);
	/* no status bit: a BTS buffer past its threshold raised it */
	if (unlikely(cpuc->active & BIT_ULL(INTEL_PMC_IDX_FIXED_BTS)))
		handled += intel_bts_pmi(regs);
	if (unlikely(this_cpu_read(intel_bts_aux_tracing)))
		handled += intel_bts_aux_pmi();
	rdmsrl(MSR_CORE_PERF_GLOBAL_STATUS, status);
	/* frozen since the PMI: read before the acknowledgement thaws it */
	if (status)
		x86_pmu_lbr_read();
	while (status && loops++ < INTEL_MAX_STATUS_LOOPS) {
		wrmsrl(MSR_CORE_PERF_GLOBAL_OVF_CTRL, status);
		if (status & GLOBAL_STATUS_BUFFER_OVF) {
			handled++;
			intel_pebs_drain(regs);
		}
		/* a ToPA region marked INT filled: the guest's or ours */
		if (status & GLOBAL_STATUS_TRACE_TOPAPMI) {
			handled++;
			if (!perf_guest_handle_intel_pt_intr())
				intel_pt_interrupt();
		}
		if (unlikely(intel_td && (status & INTEL_TD_STATUS))) {
			u64 td = intel_td_pmi(status);

			handled += !!td;
			status &= ~td;
		}
		/*
		 * A PEBS counter's own overflow bit (a record the buffer
		 * had no room for) is no sample: its event's samples are
		 * records, with their registers
		 */
		if (unlikely(status & pebs)) {
			handled++;
			status &= ~pebs;
		}
		bits = status & counters;
		x86_for_each_bit(bit, bits) {
			handled++;
			if (cpuc->active & BIT_ULL(bit))
				x86_pmu_overflow(cpuc->events[bit], regs);
		}
		rdmsrl(MSR_CORE_PERF_GLOBAL_STATUS, status);
	}
	/* what the handler started and stopped (throttling) is in the copy */
	this_cpu_write(intel_in_pmi, false);
	intel_global_ctrl_write();
	if (handled)
		apic_write(APIC_LVTPC, APIC_DM_NMI);
	return handled;
}

/* this CPU's counters only: another kind of core's are a #GP here */
static void intel_cpu_reset(void)
{
	const struct x86_cpu_type *type = this_cpu_read(x86_this_type);
	const struct x86_lbr_ops *lbr;
	int i;

	wrmsrl(MSR_CORE_PERF_GLOBAL_CTRL, 0);
	this_cpu_write(intel_global_ctrl, 0);
	this_cpu_write(intel_guest_only, 0);
	this_cpu_write(intel_host_only, 0);
	for (i = 0; i < type->num_gp; i++)
		wrmsrl(MSR_ARCH_PERFMON_EVENTSEL0 + i, 0);
	this_cpu_write(intel_fixed_ctrl, 0);
	if (type->num_fixed)
		wrmsrl(MSR_CORE_PERF_FIXED_CTR_CTRL, 0);
	intel_pebs_cpu_reset();
	intel_bts_cpu_reset();
	intel_smi_cpu_reset();
	/* what firmware or a kexec left there is no task's to read */
	if (type->td)
		wrmsrl(MSR_PERF_METRICS, 0);
	/* nor does a kexec leave the branch stack recording (CPUs up later) */
	lbr = x86_pmu_lbr();
	if (lbr)
		lbr->disable();
	wrmsrl(MSR_CORE_PERF_GLOBAL_OVF_CTRL, intel_counter_bits());
}

/* events/ of the "cpu" PMU */
PMU_STR_ATTR(intel_ev_cycles, "cpu-cycles", "event=0x3c");
PMU_STR_ATTR(intel_ev_insns, "instructions", "event=0xc0");
PMU_STR_ATTR(intel_ev_bus, "bus-cycles", "event=0x3c,umask=0x01");
PMU_STR_ATTR(intel_ev_cref, "cache-references", "event=0x2e,umask=0x4f");
PMU_STR_ATTR(intel_ev_cmiss, "cache-misses", "event=0x2e,umask=0x41");
PMU_STR_ATTR(intel_ev_br, "branch-instructions", "event=0xc4");
PMU_STR_ATTR(intel_ev_brmiss, "branch-misses", "event=0xc5");
PMU_STR_ATTR(intel_ev_ref, "ref-cycles", "event=0x00,umask=0x03");

/*
 * The events of the top-down method (Intel's optimization manual,
 * "Top-down Microarchitecture Analysis") on a core with 4 issue slots a
 * cycle, as perf's topdown metrics use them.
 */
PMU_STR_ATTR(intel_ev_td_total, "topdown-total-slots",
		 "event=0x3c,umask=0x0");
PMU_STR_ATTR(intel_ev_td_total_scale, "topdown-total-slots.scale", "4");
PMU_STR_ATTR(intel_ev_td_issued, "topdown-slots-issued",
		 "event=0xe,umask=0x1");
PMU_STR_ATTR(intel_ev_td_retired, "topdown-slots-retired",
		 "event=0xc2,umask=0x2");
PMU_STR_ATTR(intel_ev_td_fetch, "topdown-fetch-bubbles",
		 "event=0x9c,umask=0x1");
PMU_STR_ATTR(intel_ev_td_recovery, "topdown-recovery-bubbles",
		 "event=0xd,umask=0x1,cmask=1");
PMU_STR_ATTR(intel_ev_td_recovery_scale, "topdown-recovery-bubbles.scale",
		 "4");
/* the hardware top-down metrics (intel/topdown.c) */
PMU_STR_ATTR(intel_ev_slots, "slots", "event=0x00,umask=0x4");
PMU_STR_ATTR(intel_ev_td_retiring, "topdown-retiring",
		 "event=0x00,umask=0x80");
PMU_STR_ATTR(intel_ev_td_bad_spec, "topdown-bad-spec",
		 "event=0x00,umask=0x81");
PMU_STR_ATTR(intel_ev_td_fe_bound, "topdown-fe-bound",
		 "event=0x00,umask=0x82");
PMU_STR_ATTR(intel_ev_td_be_bound, "topdown-be-bound",
		 "event=0x00,umask=0x83");
/* the events of perf mem: with PEBS only */
PMU_STR_ATTR(intel_ev_mem_loads, "mem-loads", "event=0xcd,umask=0x1,ldlat=3");
PMU_STR_ATTR(intel_ev_mem_stores, "mem-stores", "event=0xd0,umask=0x82");

/*
 * in intel_arch_events[] order, then ref-cycles, then the top-down ones,
 * those of perf mem and, last, the hardware top-down metrics
 */
struct attribute *intel_event_attrs[] = {
	&intel_ev_cycles.attr.attr,
	&intel_ev_insns.attr.attr,
	&intel_ev_bus.attr.attr,
	&intel_ev_cref.attr.attr,
	&intel_ev_cmiss.attr.attr,
	&intel_ev_br.attr.attr,
	&intel_ev_brmiss.attr.attr,
	&intel_ev_ref.attr.attr,
	&intel_ev_td_total.attr.attr,
	&intel_ev_td_total_scale.attr.attr,
	&intel_ev_td_issued.attr.attr,
	&intel_ev_td_retired.attr.attr,
	&intel_ev_td_fetch.attr.attr,
	&intel_ev_td_recovery.attr.attr,
	&intel_ev_td_recovery_scale.attr.attr,
	&intel_ev_mem_loads.attr.attr,
	&intel_ev_mem_stores.attr.attr,
	&intel_ev_slots.attr.attr,
	&intel_ev_td_retiring.attr.attr,
	&intel_ev_td_bad_spec.attr.attr,
	&intel_ev_td_fe_bound.attr.attr,
	&intel_ev_td_be_bound.attr.attr,
	NULL,
};

/**
 * intel_arch_event_visible - the CPU has the architectural event @i
 * @i: its index in intel_event_attrs[], below INTEL_ARCH_EVENT_ATTRS
 */
bool intel_arch_event_visible(int i)
{
	return intel_event_map(intel_arch_events[i].hw);
}

/* only the events this CPU has */
static umode_t intel_event_visible(struct kobject *kobj, struct attribute *attr,
				   int i)
{
	if (attr == &intel_ev_mem_loads.attr.attr ||
	    attr == &intel_ev_mem_stores.attr.attr)
		return intel_pebs ? attr->mode : 0;
	if (i >= ARRAY_SIZE(intel_event_attrs) - 6)
		return intel_td ? attr->mode : 0;
	if (i > ARRAY_SIZE(intel_arch_events))
		return intel_skl ? attr->mode : 0;
	if (i == ARRAY_SIZE(intel_arch_events))
		return intel_event_map(PERF_COUNT_HW_REF_CPU_CYCLES) ?
		       attr->mode : 0;
	return intel_arch_event_visible(i) ? attr->mode : 0;
}

static const struct attribute_group intel_events_group = {
	.name		= "events",
	.attrs		= intel_event_attrs,
	.is_visible	= intel_event_visible,
};

/* format/ beyond the event select fields that sysfs.c has */
PMU_STR_ATTR(intel_format_pc, "pc", "config:19");
PMU_STR_ATTR(intel_format_any, "any", "config:21");
PMU_STR_ATTR(intel_format_offcore_rsp, "offcore_rsp", "config1:0-63");
PMU_STR_ATTR(intel_format_ldlat, "ldlat", "config1:0-15");
PMU_STR_ATTR(intel_format_frontend, "frontend", "config1:0-23");

static struct attribute *intel_format_attrs[] = {
	&intel_format_pc.attr.attr,
	&intel_format_any.attr.attr,
	&intel_format_offcore_rsp.attr.attr,
	&intel_format_ldlat.attr.attr,
	&intel_format_frontend.attr.attr,
	NULL,
};

static umode_t intel_format_visible(struct kobject *kobj,
				    struct attribute *attr, int i)
{
	if (attr == &intel_format_any.attr.attr)
		return x86_pmu_hw.version >= 3 &&
		       !x86_pmu_hw.anythread_deprecated ? attr->mode : 0;
	if (attr == &intel_format_pc.attr.attr)
		return attr->mode;
	/* the front-end events are the big cores' (6.12's cpu_atom has none) */
	if (attr == &intel_format_frontend.attr.attr && x86_nr_types > 1 &&
	    dev_get_drvdata(kobj_to_dev(kobj)) != &x86_types[0].pmu)
		return 0;
	return intel_extra ? attr->mode : 0;
}

static const struct attribute_group *intel_attr_groups[] = {
	&intel_events_group,
	&intel_smi_group,
	NULL,
};

/* the architectural LBRs are the branch stack (each kind has a depth) */
static bool intel_albr __ro_after_init;

/* this CPU's IA32_PERF_CAPABILITIES, 0 where it has none */
static u64 intel_read_caps(void)
{
	u64 caps;

	if (!boot_cpu_has(X86_FEATURE_PDCM) ||
	    rdmsrl_safe(MSR_IA32_PERF_CAPABILITIES, &caps))
		return 0;
	return caps;
}

/*
 * The first CPU of a kind of core: its own PERF_CAPABILITIES and LBR
 * depth. A hybrid CPU's Atom may report other values than the boot CPU
 * (a Core), which the driver read at init; where they differ in what it
 * set for both kinds, it says so.
 */
static void intel_type_probe(struct x86_cpu_type *type)
{
	u64 caps = intel_read_caps();

	type->caps = caps;
	if (intel_albr)
		type->lbr_nr = intel_arch_lbr_depth();
	if (type != &x86_types[0] && x86_types[0].probed &&
	    ((caps ^ x86_types[0].caps) & INTEL_CAPS_SHARED))
		pr_warn("perf: %s: PERF_CAPABILITIES %#llx, %s's %#llx: the driver uses %s's\n",
			type->name, caps, x86_types[0].name,
			x86_types[0].caps, x86_types[0].name);
}

static struct x86_pmu_ops intel_ops __ro_after_init = {
	.pmu_name	= intel_pmu_name,
	.raw_mask	= X86_RAW_EVENT_MASK,
	.format_event	= "config:0-7",
	.event_map	= intel_event_map,
	.event_check	= intel_event_check,
	.check_period	= intel_check_period,
	.hw_config	= intel_hw_config,
	.format_attrs	= intel_format_attrs,
	.format_visible	= intel_format_visible,
	.constraint	= intel_constraint,
	.counter	= intel_counter,
	.enable		= intel_enable,
	.disable	= intel_disable,
	.handle_irq	= intel_handle_irq,
	.hold		= intel_hold,
	.cpu_reset	= intel_cpu_reset,
	.type_probe	= intel_type_probe,
	.release	= intel_release,
	.attr_groups	= intel_attr_groups,
	/* 6.12's Intel driver starts frequency events from a rate guess */
	.intel.freq_guess = true,
};

/**
 * intel_pmu_detect - look for Intel architectural performance monitoring
 * @hw: filled with what CPUID leaf 0xA enumerates
 *
 * Return: 0 if the CPU reports arch perfmon version 1 or later, -ENODEV
 * otherwise (e.g. under emulators, which report version 0).
 */
int __init intel_pmu_detect(struct x86_pmu_hw *hw)
{
	union cpuid10_eax eax;
	union cpuid10_ebx ebx;
	union cpuid10_edx edx;
	unsigned int ecx;

	if (boot_cpu_data.cpuid_level < 0xa)
		return -ENODEV;

	cpuid(0xa, &eax.full, &ebx.full, &ecx, &edx.full);
	if (eax.split.version_id < 1 || !eax.split.num_counters)
		return -ENODEV;

	hw->name		= "Intel arch perfmon";
	hw->version		= eax.split.version_id;
	hw->num_counters_gp	= eax.split.num_counters;
	hw->cntval_bits		= eax.split.bit_width;
	hw->events_mask		= ebx.full;
	hw->events_mask_len	= eax.split.mask_length;

	/* Fixed counters are enumerated from version 2 on. */
	if (hw->version >= 2) {
		hw->num_counters_fixed	= edx.split.num_counters_fixed;
		hw->cntval_bits_fixed	= edx.split.bit_width_fixed;
		hw->anythread_deprecated = edx.split.anythread_deprecated;
	}
	/* From version 5, ECX also lists fixed counters by bit. */
	if (hw->version >= 5 && fls(ecx) > hw->num_counters_fixed)
		hw->num_counters_fixed = fls(ecx);

	return 0;
}

/**
 * intel_pmu_init - the Intel arch perfmon driver, for what detection found
 *
 * Version 2 is the first with the global control and status registers,
 * which this driver relies on; version 1 stays without driver.
 *
 * Return: 0 when the "cpu" PMU is registered, a negative errno if not.
 */
int __init intel_pmu_init(void)
{
	const struct x86_lbr_ops *lbr;
	const struct x86_cpu_id *id;
	bool spr = false, hybrid = false;
	u64 caps;

	if (x86_pmu_hw.version < 2 || !x86_pmu_hw.num_counters_gp)
		return -ENODEV;
	if (x86_pmu_hw.num_counters_gp > INTEL_PMC_IDX_FIXED)
		x86_pmu_hw.num_counters_gp = INTEL_PMC_IDX_FIXED;

	caps = intel_read_caps();
	intel_fw_writes = caps & INTEL_FW_WRITES;

	/* legacy counter writes sign-extend bit 31 */
	intel_ops.max_period = intel_fw_writes ?
		GENMASK_ULL(x86_pmu_hw.cntval_bits - 2, 0) :
		GENMASK_ULL(30, 0);
	id = x86_match_cpu(intel_models);
	if (id) {
		const struct intel_model *m = (const void *)id->driver_data;

		strscpy(intel_pmu_name, m->name);
		intel_lbr_pt_coexist = true;
		intel_skl = m->family == INTEL_FAM_SKL;
		intel_icl = m->family == INTEL_FAM_ICL;
		/* Golden Cove's offcore events are Sapphire Rapids' */
		spr = m->family == INTEL_FAM_SPR || m->family == INTEL_FAM_ADL;
		if (m->cache_init)
			m->cache_init();
		intel_ops.cache_events = m->cache_events;
		intel_ops.cache_extra = m->cache_extra;
		hybrid = m->family == INTEL_FAM_ADL &&
			 intel_hybrid_init(&intel_ops);
		intel_extra = true;
		intel_ops.intel.extra_claim = intel_extra_claim;
		intel_ops.intel.extra_put = intel_extra_put;
		intel_extra_init(spr, hybrid);
		/*
		 * the Skylake (and Ice Lake) LBRs: 32 deep, LIP + LBR_INFO;
		 * a hybrid part's are architectural or none (as 6.12's)
		 */
		if ((caps & INTEL_LBR_FORMAT) == INTEL_LBR_FORMAT_INFO &&
		    m->family != INTEL_FAM_ADL)
			intel_ops.lbr = &intel_lbr_skylake;
		intel_ops.max_precise = intel_pebs_init(caps);
		intel_pebs = intel_ops.max_precise > 0;
		if (intel_pebs)
			intel_ops.intel.pebs_flush = intel_pebs_flush;
		/* the XMM registers are in adaptive records */
		intel_pebs_adaptive = intel_pebs &&
				      intel_pebs_is_adaptive();
		intel_ops.intel.pebs_xmm = intel_pebs_adaptive;
	} else {
		snprintf(intel_pmu_name, sizeof(intel_pmu_name),
			 "generic_arch_v%d", x86_pmu_hw.version);
	}

	intel_bts_init();
	/* architectural: whatever the model */
	lbr = intel_arch_lbr_init(caps);
	if (lbr) {
		intel_ops.lbr = lbr;
		intel_albr = true;
	}
	/* the big cores' fixed counter 3; a hybrid Core's level 2 metrics */
	if (intel_td_init(caps, hybrid ? x86_types[0].num_fixed :
				 x86_pmu_hw.num_counters_fixed,
			  hybrid ? 8 : 4)) {
		intel_ops.intel.td_update = intel_td_update;
		intel_ops.intel.td_start = intel_td_start;
	}
	x86_types[0].td = intel_td;
	/* each CPU's counters are reset as it comes up (x86_pmu_cpu_reset()) */
	return x86_pmu_register(&intel_ops);
}
