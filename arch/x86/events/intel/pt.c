// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel Processor Trace: the capability decoder that KVM uses, and the
 * entry points the rest of the kernel calls into the PT driver. There is
 * no PT driver yet, so the host has no PT capability and nothing traces.
 */

#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>

#include <asm/cpuid.h>
#include <asm/intel_pt.h>
#include <asm/perf_event.h>

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

/**
 * intel_pt_validate_hw_cap - a PT capability of the host's PT driver
 * @cap: the capability
 *
 * Return: the capability's value as for intel_pt_validate_cap(), for the
 * PT the host's driver supports: 0 for all while there is no PT driver.
 */
u32 intel_pt_validate_hw_cap(enum pt_capabilities cap)
{
	return 0;
}
EXPORT_SYMBOL_GPL(intel_pt_validate_hw_cap);

/**
 * is_intel_pt_event - whether @event belongs to the PT PMU
 * @event: any perf event
 *
 * Return: always 0, there is no PT PMU yet.
 */
int is_intel_pt_event(struct perf_event *event)
{
	return 0;
}

/**
 * cpu_emergency_stop_pt - stop tracing on this CPU (crash and kexec paths)
 *
 * Called with IRQs off on each CPU before a crash kernel takes over, so
 * that PT stops writing to memory. Nothing traces without a PT driver.
 */
void cpu_emergency_stop_pt(void)
{
}

/**
 * intel_pt_handle_vmx - KVM enters or leaves VMX operation on this CPU
 * @on: 1 when VMX is turned on, 0 when off
 *
 * On CPUs whose PT cannot trace in VMX operation the driver must stop
 * tracing meanwhile. Nothing traces without a PT driver.
 */
void intel_pt_handle_vmx(int on)
{
}
EXPORT_SYMBOL_GPL(intel_pt_handle_vmx);
