// SPDX-License-Identifier: GPL-2.0-only
/*
 * The shared framework of the x86 PMU drivers.
 *
 * At boot, init_hw_perf_events() looks for an architectural PMU: Intel
 * arch perfmon (CPUID leaf 0xA, version >= 1) or the AMD core counters
 * (X86_FEATURE_PERFCTR_CORE). Intel arch perfmon from version 2 and the
 * AMD core counters of family 17h on have a driver (intel/core.c,
 * amd/core.c), which registers the "cpu" PMU (pmu.c); for anything
 * else nothing is registered, and the core refuses hardware
 * events with ENOENT, as on a CPU without PMU (e.g. QEMU TCG).
 *
 * This file also defines the entry points that the rest of the kernel
 * calls into the x86 PMU code (local APIC setup, microcode reload, the
 * TLB switch, KVM). x86_pmu_hw says what was detected;
 * x86_pmu_hw.registered says whether a driver took it.
 */

#define pr_fmt(fmt)	"Performance Events: " fmt

#include <linux/export.h>
#include <linux/init.h>
#include <linux/jump_label.h>
#include <linux/lockdep.h>
#include <linux/perf_event.h>
#include <linux/printk.h>
#include <linux/string.h>

#include <asm/apic.h>
#include <asm/mmu_context.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#include "perf_event.h"

struct x86_pmu_hw x86_pmu_hw __read_mostly;

/*
 * RDPMC in user space: "never" wins over everything, "always" grants it
 * to every task; with neither, a task may use it while it has a hardware
 * event mmapped (mm->context.perf_rdpmc_allowed). Consulted by
 * cr4_update_pce_mm() in arch/x86/mm/tlb.c. Both stay false until a
 * "cpu" PMU with its rdpmc sysfs control exists.
 */
DEFINE_STATIC_KEY_FALSE(rdpmc_never_available_key);
DEFINE_STATIC_KEY_FALSE(rdpmc_always_available_key);

/**
 * perf_events_lapic_init - program this CPU's local APIC for the PMU
 *
 * Called by setup_local_APIC() on every CPU as it comes up. With a PMU
 * driver, counter overflow interrupts are delivered as NMIs through the
 * LVT performance counter entry. Without one, the entry is left as the
 * APIC code set it (masked) and nothing is done.
 */
void perf_events_lapic_init(void)
{
	if (!x86_pmu_hw.registered)
		return;

	x86_pmu_cpu_reset();
	apic_write(APIC_LVTPC, APIC_DM_NMI);
}

/**
 * perf_check_microcode - re-evaluate PMU quirks after a microcode update
 *
 * Called after a late microcode load, from process context. Some PMU
 * features (e.g. PEBS on some models) depend on the microcode revision.
 * Without a PMU driver there is nothing to re-evaluate.
 */
void perf_check_microcode(void)
{
}

/**
 * perf_clear_dirty_counters - clear counters left by other users of the CPU
 *
 * Called by the TLB switch code with IRQs off, before it lets a task use
 * RDPMC, so that the task cannot read counts left in counters it does
 * not own. Without a PMU driver no counter is ever programmed, so there
 * is nothing to clear.
 */
void perf_clear_dirty_counters(void)
{
	if (x86_pmu_hw.registered)
		x86_pmu_clear_dirty();
}

/**
 * perf_get_x86_pmu_capability - describe the host PMU to KVM
 * @cap: filled with the version, counter numbers and widths, and the
 *	mask of unavailable architectural events
 *
 * Zeroed when no PMU driver is registered: KVM then offers no virtual
 * PMU to its guests.
 */
void perf_get_x86_pmu_capability(struct x86_pmu_capability *cap)
{
	memset(cap, 0, sizeof(*cap));

	if (!x86_pmu_hw.registered)
		return;

	cap->version		= x86_pmu_hw.version;
	cap->num_counters_gp	= x86_pmu_hw.num_counters_gp;
	cap->num_counters_fixed	= x86_pmu_hw.num_counters_fixed;
	cap->bit_width_gp	= x86_pmu_hw.cntval_bits;
	cap->bit_width_fixed	= x86_pmu_hw.cntval_bits_fixed;
	cap->events_mask	= x86_pmu_hw.events_mask;
	cap->events_mask_len	= x86_pmu_hw.events_mask_len;
}
EXPORT_SYMBOL_GPL(perf_get_x86_pmu_capability);

/**
 * perf_get_hw_event_config - the raw encoding of a generic hardware event
 * @hw_event: a PERF_COUNT_HW_* index
 *
 * Return: the event select (event and unit mask) that the host PMU
 * driver uses for @hw_event, or 0 when there is none: always 0 without
 * a PMU driver.
 */
u64 perf_get_hw_event_config(int hw_event)
{
	if (!x86_pmu_hw.registered)
		return 0;
	return x86_pmu_event_map(hw_event);
}
EXPORT_SYMBOL_GPL(perf_get_hw_event_config);

/**
 * x86_perf_rdpmc_index - the RDPMC index of a scheduled hardware event
 * @event: an event of the x86 "cpu" PMU, active on this CPU
 *
 * Must be called with IRQs off, so that the event cannot move to another
 * counter meanwhile. Only events of a registered x86 PMU driver may be
 * passed, and there is none yet.
 *
 * Return: the value to pass to RDPMC in ECX to read @event's counter.
 */
int x86_perf_rdpmc_index(struct perf_event *event)
{
	lockdep_assert_irqs_disabled();

	return event->hw.event_base_rdpmc;
}

/**
 * perf_event_print_debug - dump the PMU registers of this CPU (sysrq-p)
 *
 * Without a PMU driver there are no registers to show.
 */
void perf_event_print_debug(void)
{
}

static int __init init_hw_perf_events(void)
{
	int err;

	switch (boot_cpu_data.x86_vendor) {
	case X86_VENDOR_INTEL:
		err = intel_pmu_detect(&x86_pmu_hw);
		break;
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		err = amd_pmu_detect(&x86_pmu_hw);
		break;
	default:
		err = -ENODEV;
		break;
	}

	if (err) {
		memset(&x86_pmu_hw, 0, sizeof(x86_pmu_hw));
		pr_info("no PMU driver, software events only.\n");
		return 0;
	}

	if (boot_cpu_data.x86_vendor == X86_VENDOR_INTEL &&
	    !intel_pmu_init()) {
		pr_info("%s v%d, %d general-purpose x %d bits, %d fixed x %d bits, Intel PMU driver.\n",
			x86_pmu_hw.name, x86_pmu_hw.version,
			x86_pmu_hw.num_counters_gp, x86_pmu_hw.cntval_bits,
			x86_pmu_hw.num_counters_fixed,
			x86_pmu_hw.cntval_bits_fixed);
		return 0;
	}
	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL && !amd_pmu_init()) {
		pr_info("%s%s, %d counters x %d bits, AMD PMU driver.\n",
			x86_pmu_hw.name,
			x86_pmu_hw.version >= 2 ? " with PerfMonV2" : "",
			x86_pmu_hw.num_counters_gp, x86_pmu_hw.cntval_bits);
		return 0;
	}

	pr_info("%s v%d found (%d general-purpose counters x %d bits, %d fixed x %d bits), no driver yet, software events only.\n",
		x86_pmu_hw.name, x86_pmu_hw.version,
		x86_pmu_hw.num_counters_gp, x86_pmu_hw.cntval_bits,
		x86_pmu_hw.num_counters_fixed, x86_pmu_hw.cntval_bits_fixed);
	return 0;
}
early_initcall(init_hw_perf_events);
