// SPDX-License-Identifier: GPL-2.0-only
/*
 * Self-monitoring on x86: rdpmc in user space and the control page.
 * CR4.PCE follows the mm (while it has a counter of ours mapped, or
 * always, or never: the sysfs "rdpmc" file), the control page gets the
 * counter's RDPMC index and width and the TSC to perf clock conversion,
 * and counters their events left are zeroed before a task that may
 * rdpmc runs.
 */

#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/sysfs.h>

#include <asm/mmu_context.h>
#include <asm/perf_event.h>
#include <asm/timer.h>

#include "perf_event.h"

/*
 * The sysfs "rdpmc" file: 0 no task may use rdpmc, 1 a task may while
 * its mm has a counter of ours mapped, 2 every task may.
 */
enum { X86_RDPMC_NEVER, X86_RDPMC_MAPPED, X86_RDPMC_ALWAYS };
static int x86_rdpmc_mode __read_mostly = X86_RDPMC_MAPPED;
static DEFINE_MUTEX(x86_rdpmc_mutex);

/*
 * rdpmc in user space: CR4.PCE follows the mm (arch/x86/mm/tlb.c), set
 * while mm->context.perf_rdpmc_allowed is non-zero. Called with the mm's
 * mmap_lock held, so the first mapping and the last unmapping of an mm
 * cannot race each other.
 */
void x86_pmu_event_mapped(struct perf_event *event, struct mm_struct *mm)
{
	if (atomic_inc_return(&mm->context.perf_rdpmc_allowed) == 1)
		on_each_cpu_mask(mm_cpumask(mm), cr4_update_pce, NULL, 1);
}

void x86_pmu_event_unmapped(struct perf_event *event, struct mm_struct *mm)
{
	if (atomic_dec_and_test(&mm->context.perf_rdpmc_allowed))
		on_each_cpu_mask(mm_cpumask(mm), cr4_update_pce, NULL, 1);
}

/* the RDPMC index + 1 of a counting event, for the control page */
int x86_pmu_event_idx(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;

	if (hwc->idx < 0 || READ_ONCE(x86_rdpmc_mode) == X86_RDPMC_NEVER)
		return 0;
	return hwc->event_base_rdpmc + 1;
}

/*
 * The TSC to perf clock conversion of the control page. The perf clock
 * is local_clock(): while sched_clock is the TSC's and stable, that is
 * __sched_clock_offset + cyc2ns_offset + (tsc * mul) >> shift on every
 * CPU, so user space can turn a TSC read into the clock (time_zero) or
 * into the time since this update (time_offset, for time_enabled and
 * time_running). The TSC is 64 bits wide and never wraps, so the short
 * counter fields (cap_user_time_short) are not needed.
 */
static void x86_userpage_time(struct perf_event *event,
			      struct perf_event_mmap_page *userpg, u64 now)
{
	struct cyc2ns_data data;
	u64 zero;

	userpg->cap_user_time = 0;
	userpg->cap_user_time_zero = 0;
	userpg->cap_user_time_short = 0;
	if (!using_native_sched_clock() || !sched_clock_stable())
		return;

	cyc2ns_read_begin(&data);
	zero = data.cyc2ns_offset + __sched_clock_offset;
	userpg->time_mult = data.cyc2ns_mul;
	userpg->time_shift = data.cyc2ns_shift;
	cyc2ns_read_end();

	userpg->time_offset = zero - now;
	userpg->cap_user_time = 1;
	/* records of an event with its own clockid are not in this clock */
	if (!event->attr.use_clockid) {
		userpg->time_zero = zero;
		userpg->cap_user_time_zero = 1;
	}
}

/**
 * arch_perf_update_userpage - the x86 fields of an event's control page
 * @event: the event whose buffer's control page is being updated
 * @userpg: the control page
 * @now: the perf clock now
 *
 * The TSC conversion for every event; for counters of the "cpu" PMU,
 * which can be read with rdpmc (unless the sysfs rdpmc file says
 * never), cap_user_rdpmc and the counter width.
 */
void arch_perf_update_userpage(struct perf_event *event,
			       struct perf_event_mmap_page *userpg, u64 now)
{
	struct hw_perf_event *hwc = &event->hw;

	x86_userpage_time(event, userpg, now);
	if (!is_x86_cpu_event(event))
		return;
	userpg->cap_user_rdpmc =
		READ_ONCE(x86_rdpmc_mode) != X86_RDPMC_NEVER;
	userpg->pmc_width = hwc->idx >= 0 ? x86_counter_bits(hwc) :
					    x86_pmu_hw.cntval_bits;
}

/**
 * x86_pmu_clear_dirty - zero this CPU's counters that their users left
 *
 * A counter keeps the count of its last event after that event is taken
 * off; a task allowed rdpmc could read it. Called (IRQs off) before such
 * a task runs: counters given to no event now are zeroed. Those in use
 * hold the counts of events live here, as the stock kernel leaves them.
 */
void x86_pmu_clear_dirty(void)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	u64 dirty = cpuc->dirty & ~cpuc->used;
	unsigned long msr;
	int idx, rdpmc, bits;

	/*
	 * The top-down events share fixed counter 3 and PERF_METRICS: the
	 * registers are cleared once none of them is in use
	 */
	if (cpuc->used & INTEL_PMC_MSK_TOPDOWN)
		dirty &= ~INTEL_PMC_MSK_TOPDOWN;
	if (!dirty)
		return;
	for_each_set_bit(idx, (unsigned long *)&dirty, X86_PMC_IDX_MAX) {
		x86_ops->counter(idx, &msr, &rdpmc, &bits);
		wrmsrl(msr, 0);
	}
	cpuc->dirty &= ~dirty;
}

static ssize_t rdpmc_show(struct device *dev, struct device_attribute *attr,
			  char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(x86_rdpmc_mode));
}

static ssize_t rdpmc_store(struct device *dev, struct device_attribute *attr,
			   const char *buf, size_t count)
{
	unsigned int mode;
	int err;

	err = kstrtouint(buf, 0, &mode);
	if (err)
		return err;
	if (mode > X86_RDPMC_ALWAYS)
		return -EINVAL;

	mutex_lock(&x86_rdpmc_mutex);
	if (mode != x86_rdpmc_mode) {
		if (mode == X86_RDPMC_NEVER)
			static_branch_enable(&rdpmc_never_available_key);
		else if (x86_rdpmc_mode == X86_RDPMC_NEVER)
			static_branch_disable(&rdpmc_never_available_key);
		if (mode == X86_RDPMC_ALWAYS)
			static_branch_enable(&rdpmc_always_available_key);
		else if (x86_rdpmc_mode == X86_RDPMC_ALWAYS)
			static_branch_disable(&rdpmc_always_available_key);
		WRITE_ONCE(x86_rdpmc_mode, mode);
		/* every CPU's CR4.PCE for the mm it runs */
		on_each_cpu(cr4_update_pce, NULL, 1);
	}
	mutex_unlock(&x86_rdpmc_mutex);
	return count;
}
static DEVICE_ATTR_RW(rdpmc);

static struct attribute *x86_rdpmc_attrs[] = {
	&dev_attr_rdpmc.attr,
	NULL,
};

const struct attribute_group x86_rdpmc_group = {
	.attrs	= x86_rdpmc_attrs,
};

