// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel Processor Trace: its capabilities (CPUID leaf 0x14), which KVM
 * reads too, the intel_pt PMU's sysfs files and registration, and the
 * entry points the rest of the kernel calls (crash, KVM's VMXON and
 * VMXOFF). The PMU itself is pt_pmu.c, its output tables pt_topa.c.
 */

#include <linux/bitops.h>
#include <linux/device.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/cpufeature.h>
#include <asm/cpuid.h>
#include <asm/intel_pt.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <asm/vmx.h>

#include "../perf_event.h"
#include "pt.h"

/**
 * struct pt_cap_desc - where a PT capability lives in CPUID leaf 0x14
 * @leaf: the sub-leaf
 * @reg: the register (enum cpuid_regs_idx)
 * @mask: the field within the register
 */
struct pt_cap_desc {
	u8	leaf;
	u8	reg;
	u32	mask;
};

#define PT_CAP(_cap, _leaf, _reg, _mask)			\
	[PT_CAP_ ## _cap] = { .leaf = _leaf, .reg = _reg, .mask = _mask }

/* The layout of CPUID.(EAX=14H,ECX=0/1), per the Intel SDM. */
static const struct pt_cap_desc pt_caps_desc[] = {
	PT_CAP(max_subleaf,		0, CPUID_EAX, 0xffffffff),
	PT_CAP(cr3_filtering,		0, CPUID_EBX, BIT(0)),
	PT_CAP(psb_cyc,			0, CPUID_EBX, BIT(1)),
	PT_CAP(ip_filtering,		0, CPUID_EBX, BIT(2)),
	PT_CAP(mtc,			0, CPUID_EBX, BIT(3)),
	PT_CAP(ptwrite,			0, CPUID_EBX, BIT(4)),
	PT_CAP(power_event_trace,	0, CPUID_EBX, BIT(5)),
	PT_CAP(event_trace,		0, CPUID_EBX, BIT(7)),
	PT_CAP(tnt_disable,		0, CPUID_EBX, BIT(8)),
	PT_CAP(topa_output,		0, CPUID_ECX, BIT(0)),
	PT_CAP(topa_multiple_entries,	0, CPUID_ECX, BIT(1)),
	PT_CAP(single_range_output,	0, CPUID_ECX, BIT(2)),
	PT_CAP(output_subsys,		0, CPUID_ECX, BIT(3)),
	PT_CAP(payloads_lip,		0, CPUID_ECX, BIT(31)),
	PT_CAP(num_address_ranges,	1, CPUID_EAX, GENMASK(2, 0)),
	PT_CAP(mtc_periods,		1, CPUID_EAX, GENMASK(31, 16)),
	PT_CAP(cycle_thresholds,	1, CPUID_EBX, GENMASK(15, 0)),
	PT_CAP(psb_periods,		1, CPUID_EBX, GENMASK(31, 16)),
};

/**
 * intel_pt_validate_cap - extract a capability from PT CPUID values
 * @caps: CPUID.(EAX=14H,ECX=n) for n < PT_CPUID_LEAVES, register r of
 *	sub-leaf n at caps[n * PT_CPUID_REGS_NUM + r] (EAX, EBX, ECX, EDX)
 * @capability: the capability to extract
 *
 * Return: the capability's field, shifted down to bit 0: 0 or 1 for a
 * flag, the value for a number or a bitmap.
 */
u32 intel_pt_validate_cap(u32 *caps, enum pt_capabilities capability)
{
	const struct pt_cap_desc *cd;

	if (WARN_ON_ONCE((unsigned int)capability >= ARRAY_SIZE(pt_caps_desc)))
		return 0;

	cd = &pt_caps_desc[capability];
	return (caps[cd->leaf * PT_CPUID_REGS_NUM + cd->reg] & cd->mask) >>
	       __ffs(cd->mask);
}
EXPORT_SYMBOL_GPL(intel_pt_validate_cap);

/* CPUID.(EAX=14H,ECX=n), n < PT_CPUID_LEAVES, as intel_pt_validate_cap() reads them */
static u32 pt_caps[PT_CPUID_LEAVES * PT_CPUID_REGS_NUM] __ro_after_init;
/* MSR_PLATFORM_INFO[15:8]; CPUID.15H:EBX and EAX (TSC to ART) */
static u32 pt_nonturbo_ratio __ro_after_init;
static u32 pt_art_num __ro_after_init;
static u32 pt_art_den __ro_after_init;
/* the PMU is registered: the entry points have something to stop */
static bool pt_registered __ro_after_init;
/* IA32_VMX_MISC[14]: tracing goes on in VMX operation */
static bool pt_vmx_ok __ro_after_init;

/**
 * intel_pt_validate_hw_cap - a PT capability of this machine's CPUs
 * @cap: the capability
 *
 * Return: the capability's value as for intel_pt_validate_cap(), from
 * the CPUID leaf the boot CPU reported (0 for all without PT).
 */
u32 intel_pt_validate_hw_cap(enum pt_capabilities cap)
{
	return intel_pt_validate_cap(pt_caps, cap);
}
EXPORT_SYMBOL_GPL(intel_pt_validate_hw_cap);

/**
 * is_intel_pt_event - whether @event belongs to the intel_pt PMU
 * @event: any perf event
 *
 * Return: 1 for an intel_pt event, else 0.
 */
int is_intel_pt_event(struct perf_event *event)
{
	return event->pmu == &pt_pmu;
}

/**
 * cpu_emergency_stop_pt - stop tracing on this CPU (crash and kexec paths)
 *
 * Called with IRQs off (or in the crash NMI) on each CPU before a crash
 * kernel takes over, so that PT stops writing to memory.
 */
void cpu_emergency_stop_pt(void)
{
	if (pt_registered)
		pt_pmu_emergency_stop();
}

/**
 * intel_pt_handle_vmx - KVM enters or leaves VMX operation on this CPU
 * @on: 1 when VMX is turned on, 0 when off
 *
 * On CPUs whose PT cannot trace in VMX operation, the trace of this CPU
 * is off from VMXON to VMXOFF.
 */
void intel_pt_handle_vmx(int on)
{
	if (pt_registered && !pt_vmx_ok)
		pt_pmu_vmx(on);
}
EXPORT_SYMBOL_GPL(intel_pt_handle_vmx);

/* format/: the config terms, RTIT_CTL bit positions (perf-intel-pt.txt) */
PMU_STR_ATTR(pt_format_pt, "pt", "config:0");
PMU_STR_ATTR(pt_format_cyc, "cyc", "config:1");
PMU_STR_ATTR(pt_format_pwr_evt, "pwr_evt", "config:4");
PMU_STR_ATTR(pt_format_fup_on_ptw, "fup_on_ptw", "config:5");
PMU_STR_ATTR(pt_format_mtc, "mtc", "config:9");
PMU_STR_ATTR(pt_format_tsc, "tsc", "config:10");
PMU_STR_ATTR(pt_format_noretcomp, "noretcomp", "config:11");
PMU_STR_ATTR(pt_format_ptw, "ptw", "config:12");
PMU_STR_ATTR(pt_format_branch, "branch", "config:13");
PMU_STR_ATTR(pt_format_event, "event", "config:31");
PMU_STR_ATTR(pt_format_notnt, "notnt", "config:55");
PMU_STR_ATTR(pt_format_mtc_period, "mtc_period", "config:14-17");
PMU_STR_ATTR(pt_format_cyc_thresh, "cyc_thresh", "config:19-22");
PMU_STR_ATTR(pt_format_psb_period, "psb_period", "config:24-27");

static struct attribute *pt_format_attrs[] = {
	&pt_format_pt.attr.attr,
	&pt_format_cyc.attr.attr,
	&pt_format_pwr_evt.attr.attr,
	&pt_format_fup_on_ptw.attr.attr,
	&pt_format_mtc.attr.attr,
	&pt_format_tsc.attr.attr,
	&pt_format_noretcomp.attr.attr,
	&pt_format_ptw.attr.attr,
	&pt_format_branch.attr.attr,
	&pt_format_event.attr.attr,
	&pt_format_notnt.attr.attr,
	&pt_format_mtc_period.attr.attr,
	&pt_format_cyc_thresh.attr.attr,
	&pt_format_psb_period.attr.attr,
	NULL,
};

static const struct attribute_group pt_format_group = {
	.name	= "format",
	.attrs	= pt_format_attrs,
};

/* caps/: one file per capability, in hex, as perf reads them */
static ssize_t pt_cap_show(struct device *dev, struct device_attribute *attr,
			   char *page)
{
	struct perf_pmu_events_attr *pa =
		container_of(attr, struct perf_pmu_events_attr, attr);

	return sysfs_emit(page, "%x\n", intel_pt_validate_hw_cap(pa->id));
}

#define PT_CAP_ATTR(_name)						\
	PMU_EVENT_ATTR(_name, pt_cap_attr_##_name, PT_CAP_##_name, pt_cap_show)

PT_CAP_ATTR(max_subleaf);
PT_CAP_ATTR(cr3_filtering);
PT_CAP_ATTR(psb_cyc);
PT_CAP_ATTR(ip_filtering);
PT_CAP_ATTR(mtc);
PT_CAP_ATTR(ptwrite);
PT_CAP_ATTR(power_event_trace);
PT_CAP_ATTR(event_trace);
PT_CAP_ATTR(tnt_disable);
PT_CAP_ATTR(topa_output);
PT_CAP_ATTR(topa_multiple_entries);
PT_CAP_ATTR(single_range_output);
PT_CAP_ATTR(output_subsys);
PT_CAP_ATTR(payloads_lip);
PT_CAP_ATTR(num_address_ranges);
PT_CAP_ATTR(mtc_periods);
PT_CAP_ATTR(cycle_thresholds);
PT_CAP_ATTR(psb_periods);

/*
 * Beside caps/, in the PMU's own directory: perf relates CBR packets to
 * the CPU's frequency with the first (its "max_nonturbo_ratio" file)
 */
static ssize_t max_nonturbo_ratio_show(struct device *dev,
				       struct device_attribute *attr,
				       char *page)
{
	return sysfs_emit(page, "%u\n", pt_nonturbo_ratio);
}
static DEVICE_ATTR_RO(max_nonturbo_ratio);

static ssize_t tsc_art_ratio_show(struct device *dev,
				  struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%u:%u\n", pt_art_num, pt_art_den);
}
static DEVICE_ATTR_RO(tsc_art_ratio);

static struct attribute *pt_caps_attrs[] = {
	&pt_cap_attr_max_subleaf.attr.attr,
	&pt_cap_attr_cr3_filtering.attr.attr,
	&pt_cap_attr_psb_cyc.attr.attr,
	&pt_cap_attr_ip_filtering.attr.attr,
	&pt_cap_attr_mtc.attr.attr,
	&pt_cap_attr_ptwrite.attr.attr,
	&pt_cap_attr_power_event_trace.attr.attr,
	&pt_cap_attr_event_trace.attr.attr,
	&pt_cap_attr_tnt_disable.attr.attr,
	&pt_cap_attr_topa_output.attr.attr,
	&pt_cap_attr_topa_multiple_entries.attr.attr,
	&pt_cap_attr_single_range_output.attr.attr,
	&pt_cap_attr_output_subsys.attr.attr,
	&pt_cap_attr_payloads_lip.attr.attr,
	&pt_cap_attr_num_address_ranges.attr.attr,
	&pt_cap_attr_mtc_periods.attr.attr,
	&pt_cap_attr_cycle_thresholds.attr.attr,
	&pt_cap_attr_psb_periods.attr.attr,
	NULL,
};

static const struct attribute_group pt_caps_group = {
	.name	= "caps",
	.attrs	= pt_caps_attrs,
};

static struct attribute *pt_timing_attrs[] = {
	&dev_attr_max_nonturbo_ratio.attr,
	&dev_attr_tsc_art_ratio.attr,
	NULL,
};

static const struct attribute_group pt_timing_group = {
	.attrs	= pt_timing_attrs,
};

static const struct attribute_group *pt_attr_groups[] = {
	&pt_format_group,
	&pt_caps_group,
	&pt_timing_group,
	NULL,
};

/* the sub-leaves the CPU has of leaf 0x14 (EAX of sub-leaf 0: the last) */
static void __init pt_caps_read(void)
{
	unsigned int i;

	for (i = 0; i < PT_CPUID_LEAVES; i++) {
		u32 *r = &pt_caps[i * PT_CPUID_REGS_NUM];

		if (i > intel_pt_validate_cap(pt_caps, PT_CAP_max_subleaf))
			break;
		cpuid_count(0x14, i, &r[CPUID_EAX], &r[CPUID_EBX],
			    &r[CPUID_ECX], &r[CPUID_EDX]);
	}
}

static void __init pt_ratios_read(void)
{
	unsigned int eax, ebx, ecx, edx;
	u64 val;

	if (!rdmsrl_safe(MSR_PLATFORM_INFO, &val))
		pt_nonturbo_ratio = (val >> 8) & 0xff;
	if (boot_cpu_data.cpuid_level >= 0x15) {
		cpuid(0x15, &eax, &ebx, &ecx, &edx);
		pt_art_num = ebx;
		pt_art_den = eax;
	}
	if (boot_cpu_has(X86_FEATURE_VMX) &&
	    !rdmsrl_safe(MSR_IA32_VMX_MISC, &val))
		pt_vmx_ok = val & VMX_MISC_INTEL_PT;
}

/*
 * intel_pt where the Intel driver took the CPU and PT can write through
 * ToPA tables. An arch initcall, linked after intel_bts's: its type
 * number is the next, as in 6.12. Without several entries per table the
 * area must be one chunk (PERF_PMU_CAP_AUX_NO_SG).
 */
static int __init pt_init(void)
{
	int err;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL ||
	    !boot_cpu_has(X86_FEATURE_INTEL_PT))
		return -ENODEV;
	/* for KVM too, whether or not the PMU registers */
	pt_caps_read();
	if (!x86_pmu_hw.registered ||
	    !intel_pt_validate_hw_cap(PT_CAP_topa_output))
		return -ENODEV;
	pt_ratios_read();
	pt_pmu.capabilities = PERF_PMU_CAP_ITRACE | PERF_PMU_CAP_EXCLUSIVE;
	if (!intel_pt_validate_hw_cap(PT_CAP_topa_multiple_entries))
		pt_pmu.capabilities |= PERF_PMU_CAP_AUX_NO_SG;
	pt_pmu.attr_groups = pt_attr_groups;
	/* IP filtering: the ranges, as address filters */
	if (intel_pt_validate_hw_cap(PT_CAP_ip_filtering))
		pt_pmu.nr_addr_filters =
			min(intel_pt_validate_hw_cap(PT_CAP_num_address_ranges),
			    4U);
	pt_pmu.addr_filters_validate = pt_addr_filters_validate;
	err = perf_pmu_register(&pt_pmu, "intel_pt", -1);
	if (!err)
		pt_registered = true;
	return err;
}
arch_initcall(pt_init);
