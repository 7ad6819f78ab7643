// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD core performance counters (AMD APM vol. 2, "Performance
 * Counters"), with the core extensions (X86_FEATURE_PERFCTR_CORE):
 * PerfEvtSel/PerfCtr pairs at MSR_F15H_PERF_CTL + 2i / + 2i + 1, 48 bits,
 * every counter able to count every event; and PerfMonV2 when present:
 * PerfCntrGlobalCtl, and PerfCntrGlobalStatus with its clear register,
 * which tell the PMI which counters wrapped. As a struct x86_pmu_ops for
 * the "cpu" PMU of ../pmu.c.
 *
 * Without PerfMonV2 nothing says which counter wrapped: a counter loaded
 * with -left counts up with its top bit set, so one whose top bit is
 * clear has wrapped.
 *
 * PerfCntrGlobalCtl enables every counter once, at bring-up; a counter
 * is then started and stopped by the enable bit of its PerfEvtSel, and
 * the core's brackets (amd_hold()) turn them all off and on at once.
 *
 * Also the detection of the core extensions and PerfMonV2
 * (amd_pmu_detect()), and the hooks KVM calls when it turns SVM on and
 * off.
 */

#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/perf_event.h>

#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

/* the event select is 12 bits: 7:0 and 35:32 */
#define AMD_EVENT_MASK		(ARCH_PERFMON_EVENTSEL_EVENT | (0xfULL << 32))
#define AMD_RAW_MASK		(X86_RAW_EVENT_MASK | AMD_EVENT_MASK)
#define AMD_MAX_STATUS_LOOPS	16

static bool amd_perfmon_v2 __ro_after_init;
/* PerfMonV2: held by the core (amd_hold()), GlobalCtl stays 0 */
static DEFINE_PER_CPU(bool, amd_held);

/*
 * Family 17h and later (Zen) encodings of the generic events (AMD's
 * public event lists): cycles not halted, retired instructions; the L2
 * cache's requests (every kind) as the cache references and the L2
 * misses of the instruction and data caches as the cache misses;
 * retired branches and mispredicted ones; dispatch stalls for an empty
 * micro-op queue as the front-end stalls. Zen has no bus cycles, no
 * back-end stall event and no reference cycles.
 */
static const u64 amd_zen_events[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES]		= 0x0076,
	[PERF_COUNT_HW_INSTRUCTIONS]		= 0x00c0,
	[PERF_COUNT_HW_CACHE_REFERENCES]	= 0xff60,
	[PERF_COUNT_HW_CACHE_MISSES]		= 0x0964,
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS]	= 0x00c2,
	[PERF_COUNT_HW_BRANCH_MISSES]		= 0x00c3,
	[PERF_COUNT_HW_STALLED_CYCLES_FRONTEND]	= 0x00a9,
};

static u64 amd_event_map(int hw_event)
{
	return amd_zen_events[hw_event];
}

static u64 amd_constraint(struct perf_event *event, u64 config)
{
	return GENMASK_ULL(x86_pmu_hw.num_counters_gp - 1, 0);
}

static void amd_counter(int idx, unsigned long *msr, int *rdpmc, int *bits)
{
	*msr = MSR_F15H_PERF_CTR + 2 * idx;
	*rdpmc = idx;
	*bits = x86_pmu_hw.cntval_bits;
}

/* on this CPU, KVM has turned SVM on (amd_pmu_enable_virt()) */
static DEFINE_PER_CPU(bool, amd_svm_on);

/*
 * exclude_host and exclude_guest are the HostOnly/GuestOnly bits of the
 * event select, which count by the SVM mode of the CPU. HostOnly is only
 * set while SVM is on: the host is all there is otherwise. An event that
 * excludes both counts in no mode at all.
 */
static u64 amd_ctl(struct perf_event *event)
{
	u64 ctl = event->hw.config | ARCH_PERFMON_EVENTSEL_ENABLE;

	if (event->attr.exclude_host && event->attr.exclude_guest)
		ctl &= ~(ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS);
	else if (event->attr.exclude_host)
		ctl |= AMD64_EVENTSEL_GUESTONLY;
	else if (event->attr.exclude_guest && this_cpu_read(amd_svm_on))
		ctl |= AMD64_EVENTSEL_HOSTONLY;
	return ctl;
}

static void amd_enable(struct perf_event *event)
{
	wrmsrl(MSR_F15H_PERF_CTL + 2 * event->hw.idx, amd_ctl(event));
}

/* SVM went on or off: the HostOnly bits of the running counters follow */
static void amd_svm_set(bool on)
{
	struct cpu_hw_events *cpuc;
	unsigned long flags;
	int bit;

	local_irq_save(flags);
	this_cpu_write(amd_svm_on, on);
	cpuc = this_cpu_ptr(&cpu_hw_events);
	if (x86_pmu_hw.registered) {
		for_each_set_bit(bit, (unsigned long *)&cpuc->active,
				 X86_PMC_IDX_MAX)
			amd_enable(cpuc->events[bit]);
	}
	local_irq_restore(flags);
}

/**
 * amd_pmu_enable_virt - KVM turned on SVM on this CPU
 *
 * Events that exclude guests become host-only from now on.
 */
void amd_pmu_enable_virt(void)
{
	amd_svm_set(true);
}
EXPORT_SYMBOL_GPL(amd_pmu_enable_virt);

/**
 * amd_pmu_disable_virt - KVM turned off SVM on this CPU
 *
 * Undoes amd_pmu_enable_virt().
 */
void amd_pmu_disable_virt(void)
{
	amd_svm_set(false);
}
EXPORT_SYMBOL_GPL(amd_pmu_disable_virt);

static void amd_disable(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	wrmsrl(MSR_F15H_PERF_CTL + 2 * hwc->idx, hwc->config);
}

static u64 amd_counter_bits(void)
{
	return GENMASK_ULL(x86_pmu_hw.num_counters_gp - 1, 0);
}

/* PerfMonV2: GlobalStatus names the counters that wrapped */
static int amd_handle_irq_v2(struct pt_regs *regs)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	u64 status, counters = amd_counter_bits(), bits;
	int loops = 0, handled = 0, bit;

	/* off while it runs, so kernel events do not count the handler */
	wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, 0);
	rdmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, status);
	/* the branch stack is frozen until the status is cleared */
	if (status)
		x86_pmu_lbr_read();
	while (status && loops++ < AMD_MAX_STATUS_LOOPS) {
		wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, status);
		bits = status & counters;
		x86_for_each_bit(bit, bits) {
			handled++;
			if (cpuc->active & BIT_ULL(bit))
				x86_pmu_overflow(cpuc->events[bit], regs);
		}
		rdmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS, status);
	}
	if (!this_cpu_read(amd_held))
		wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, amd_counter_bits());
	return handled;
}

/*
 * PerfMonV2: every counter off (@on) or on again in one PerfCntrGlobalCtl
 * write, so that a group's members start and stop together; a PMI that
 * comes while held leaves it off. Without PerfMonV2 each counter starts
 * on its own.
 */
static void amd_hold(bool on)
{
	if (!amd_perfmon_v2)
		return;
	this_cpu_write(amd_held, on);
	wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, on ? 0 : amd_counter_bits());
}

/* Without it: a running counter whose top bit is clear has wrapped */
static int amd_handle_irq_v1(struct pt_regs *regs)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	u64 top = BIT_ULL(x86_pmu_hw.cntval_bits - 1), val;
	u64 active = cpuc->active;
	int handled = 0, bit;

	x86_for_each_bit(bit, active) {
		/* stopped by an earlier counter's overflow */
		if (!(cpuc->active & BIT_ULL(bit)))
			continue;
		rdmsrl(MSR_F15H_PERF_CTR + 2 * bit, val);
		if (val & top)
			continue;
		handled++;
		x86_pmu_overflow(cpuc->events[bit], regs);
	}
	return handled;
}

static int amd_handle_irq(struct pt_regs *regs)
{
	int handled = amd_perfmon_v2 ? amd_handle_irq_v2(regs) :
				       amd_handle_irq_v1(regs);

	/* LVTPC is not masked by an AMD PMI; rewriting it costs nothing */
	if (handled)
		apic_write(APIC_LVTPC, APIC_DM_NMI);
	return handled;
}

static void amd_cpu_reset(void)
{
	int i;

	for (i = 0; i < x86_pmu_hw.num_counters_gp; i++)
		wrmsrl(MSR_F15H_PERF_CTL + 2 * i, 0);
	if (amd_perfmon_v2) {
		wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR, amd_counter_bits());
		wrmsrl(MSR_AMD64_PERF_CNTR_GLOBAL_CTL, amd_counter_bits());
	}
}

PMU_STR_ATTR(amd_ev_cycles, "cpu-cycles", "event=0x76");
PMU_STR_ATTR(amd_ev_insns, "instructions", "event=0xc0");
PMU_STR_ATTR(amd_ev_br, "branch-instructions", "event=0xc2");
PMU_STR_ATTR(amd_ev_brmiss, "branch-misses", "event=0xc3");
PMU_STR_ATTR(amd_ev_cref, "cache-references", "event=0x60,umask=0xff");
PMU_STR_ATTR(amd_ev_cmiss, "cache-misses", "event=0x64,umask=0x09");
PMU_STR_ATTR(amd_ev_stall_fe, "stalled-cycles-frontend", "event=0xa9");

static struct attribute *amd_event_attrs[] = {
	&amd_ev_cycles.attr.attr,
	&amd_ev_insns.attr.attr,
	&amd_ev_br.attr.attr,
	&amd_ev_brmiss.attr.attr,
	&amd_ev_cref.attr.attr,
	&amd_ev_cmiss.attr.attr,
	&amd_ev_stall_fe.attr.attr,
	NULL,
};

static const struct attribute_group amd_events_group = {
	.name	= "events",
	.attrs	= amd_event_attrs,
};

static const struct attribute_group *amd_attr_groups[] = {
	&amd_events_group,
	NULL,
};

static struct x86_pmu_ops amd_ops __ro_after_init = {
	.raw_mask	= AMD_RAW_MASK,
	.format_event	= "config:0-7,32-35",
	.event_map	= amd_event_map,
	.cache_events	= &amd_zen_cache_events,
	.amd.forward_precise = forward_event_to_ibs,
	.constraint	= amd_constraint,
	.counter	= amd_counter,
	.enable		= amd_enable,
	.disable	= amd_disable,
	.handle_irq	= amd_handle_irq,
	.hold		= amd_hold,
	.cpu_reset	= amd_cpu_reset,
	.attr_groups	= amd_attr_groups,
};

/* PerfCtr0..5 with the core extensions (AMD APM vol. 2) */
#define AMD_CORE_NUM_COUNTERS	6
#define AMD_CORE_COUNTER_BITS	48

/**
 * amd_pmu_detect - look for the AMD core performance counters
 * @hw: filled with the number and width of the counters
 *
 * Only CPUs with the core extensions are taken; CPUs without them
 * (and emulators, which do not report them) get -ENODEV.
 *
 * Return: 0 if found, -ENODEV otherwise.
 */
int __init amd_pmu_detect(struct x86_pmu_hw *hw)
{
	union cpuid_0x80000022_ebx ebx;

	if (!boot_cpu_has(X86_FEATURE_PERFCTR_CORE))
		return -ENODEV;

	hw->name		= "AMD core PMU";
	hw->version		= 1;
	hw->num_counters_gp	= AMD_CORE_NUM_COUNTERS;
	hw->cntval_bits		= AMD_CORE_COUNTER_BITS;

	/* PerfMonV2 enumerates the number of core counters. */
	if (boot_cpu_has(X86_FEATURE_PERFMON_V2)) {
		ebx.full = cpuid_ebx(0x80000022);
		hw->version = 2;
		if (ebx.split.num_core_pmc)
			hw->num_counters_gp = ebx.split.num_core_pmc;
	}

	return 0;
}

/**
 * amd_pmu_init - the AMD core counter driver, for what detection found
 *
 * Return: 0 when the "cpu" PMU is registered, a negative errno if not.
 */
int __init amd_pmu_init(void)
{
	if (boot_cpu_data.x86 < 0x17 || !x86_pmu_hw.num_counters_gp)
		return -ENODEV;
	if (x86_pmu_hw.num_counters_gp > INTEL_PMC_IDX_FIXED)
		x86_pmu_hw.num_counters_gp = INTEL_PMC_IDX_FIXED;

	amd_perfmon_v2 = x86_pmu_hw.version >= 2;
	/* its freeze is lifted through PerfCntrGlobalStatusClr */
	if (amd_perfmon_v2 && !amd_lbr_init())
		amd_ops.lbr = &amd_lbr_v2;
	amd_ops.max_period = GENMASK_ULL(x86_pmu_hw.cntval_bits - 2, 0);
	amd_cpu_reset();
	return x86_pmu_register(&amd_ops);
}
