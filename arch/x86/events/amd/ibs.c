// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD Instruction-Based Sampling (IBS): the ibs_fetch and ibs_op PMUs.
 *
 * IBS samples one instruction fetch, or one op, out of every N, and says
 * what happened to it in a set of MSRs (AMD APM vol. 2, "Instruction-
 * Based Sampling"; the fields are in asm/amd-ibs.h):
 *
 *   ibs_fetch  IbsFetchCtl (enable, valid, the period's max count and
 *              the current count in units of 16), IbsFetchLinAd,
 *              IbsFetchPhysAd
 *   ibs_op     IbsOpCtl (enable, valid, CntCtl: count ops or cycles,
 *              max count in units of 16, current count), IbsOpRip,
 *              IbsOpData 1-3, IbsDcLinAd, IbsDcPhysAd (and IbsBrTarget
 *              when CPUID says so)
 *
 * When the counter reaches the max count, the next fetch or op is tagged;
 * when it completes, the hardware fills the registers, sets the valid
 * bit, stops counting and raises the interrupt of the APIC's extended
 * LVT entry that MSR IBSCTL names (an NMI: setup_APIC_eilvt()). The NMI
 * handler reads the registers into the sample: PERF_SAMPLE_RAW has them
 * as struct perf_ibs_data lays them out (the size, the capabilities,
 * then the MSRs in address order), an op's sample has its exact address
 * as the IP and its data address, physical address, source and latency,
 * and the handler starts the next period.
 *
 * IBS has no privilege filter and no counter to read: an event counts
 * the periods it completed. A precise cycles event of the core PMU
 * (cycles:p) is forwarded here: IBS op sampling by cycles.
 */

#define pr_fmt(fmt)	"perf: " fmt

#include <linux/bitops.h>
#include <linux/cpuhotplug.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/ptrace.h>
#include <linux/syscore_ops.h>
#include <linux/sysfs.h>

#include <asm/amd-ibs.h>
#include <asm/apic.h>
#include <asm/cpufeature.h>
#include <asm/msr.h>
#include <asm/nmi.h>
#include <asm/perf_event.h>
#include <asm/processor.h>

#include "../perf_event.h"

static u32 ibs_caps __ro_after_init;

/*
 * The NMI handler is registered with the first IBS event and stays: until
 * then no NMI pays for a look at the IBS units (every registered handler
 * costs every NMI its call and the NMI code's clock reads around it)
 */
static DEFINE_MUTEX(ibs_nmi_mutex);
static bool ibs_nmi_on;
static int ibs_nmi(unsigned int cmd, struct pt_regs *regs);

static int ibs_nmi_register(void)
{
	int err = 0;

	if (READ_ONCE(ibs_nmi_on))
		return 0;
	mutex_lock(&ibs_nmi_mutex);
	if (!ibs_nmi_on) {
		err = register_nmi_handler(NMI_LOCAL, ibs_nmi, 0, "perf_ibs");
		if (!err)
			WRITE_ONCE(ibs_nmi_on, true);
	}
	mutex_unlock(&ibs_nmi_mutex);
	return err;
}

/*
 * struct ibs_cpu - one IBS unit of one CPU
 * @event: the event on it, or NULL
 * @stopping: the unit was stopped with a sample completed: the NMI that
 *	sample raised may still come, and is IBS's
 */
struct ibs_cpu {
	struct perf_event	*event;
	bool			stopping;
};

/*
 * struct ibs_pmu - ibs_fetch or ibs_op
 * @ctl_msr: the control register; the others follow it
 * @enable: its enable bit
 * @valid: its valid bit
 * @config_mask: the config bits user space sets (sysfs format)
 * @max_count: the largest period in units of 16
 * @nr_regs: the MSRs a sample's RAW data has
 * @cpu: per-CPU state
 */
struct ibs_pmu {
	struct pmu		pmu;
	u32			ctl_msr;
	u64			enable;
	u64			valid;
	u64			config_mask;
	u64			max_count;
	unsigned int		nr_regs;
	struct ibs_cpu __percpu	*cpu;
};

static struct ibs_pmu ibs_fetch_pmu, ibs_op_pmu;
static DEFINE_PER_CPU(struct ibs_cpu, ibs_fetch_cpu);
static DEFINE_PER_CPU(struct ibs_cpu, ibs_op_cpu);

static struct ibs_pmu *to_ibs(struct pmu *pmu)
{
	return container_of(pmu, struct ibs_pmu, pmu);
}

/* The max count fields of a control register for a period of @count x 16 */
static u64 ibs_max_count(struct ibs_pmu *ibs, u64 count)
{
	if (ibs == &ibs_fetch_pmu)
		return count & IBS_FETCH_MAX_CNT;
	return (count & IBS_OP_MAX_CNT) |
	       ((count >> 16) << 20 & IBS_OP_MAX_CNT_EXT_MASK);
}

/*
 * The period of @event as the hardware counts it (units of 16): a fixed
 * period cut down, a frequency-mode one rounded; at least 16, at most
 * what the max count field holds
 */
static u64 ibs_period(struct ibs_pmu *ibs, struct perf_event *event)
{
	u64 period = max_t(u64, event->hw.sample_period, 0x10);
	u64 count = event->attr.freq ? (period + 8) >> 4 : period >> 4;

	return min(count, ibs->max_count) << 4;
}

/*
 * Start counting on this CPU towards the next sample, from zero: the rest
 * of the period a context switch or a stop interrupted (period_left),
 * else a whole one, as the max count, as 6.12 programs it (a sample's RAW
 * shows the rest). hwc->last_period, what the sample reports, is the
 * whole period.
 */
static void ibs_arm(struct ibs_pmu *ibs, struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 period = ibs_period(ibs, event);
	s64 left = local64_read(&hwc->period_left);

	if (left < 0x10 || left > period)
		left = period;
	local64_set(&hwc->period_left, left);
	hwc->last_period = max_t(u64, hwc->sample_period, 0x10);
	wrmsrl(ibs->ctl_msr, hwc->config | ibs_max_count(ibs, left >> 4) |
	       ibs->enable);
}

/* How far the unit counted into its period, from its control register */
static u64 ibs_counted(struct ibs_pmu *ibs, u64 ctl)
{
	if (ibs == &ibs_fetch_pmu)
		return (ctl & IBS_FETCH_CNT) >> 16 << 4;
	return (ctl & (IBS_OP_CUR_CNT | IBS_OP_CUR_CNT_RAND)) >> 32;
}

/* The period the control register @ctl counts, from its max count */
static u64 ibs_armed_period(struct ibs_pmu *ibs, u64 ctl)
{
	if (ibs == &ibs_fetch_pmu)
		return (ctl & IBS_FETCH_MAX_CNT) << 4;
	return ((ctl & IBS_OP_MAX_CNT) |
		(ctl & IBS_OP_MAX_CNT_EXT_MASK) >> 20 << 16) << 4;
}

/*
 * Disarm this CPU's unit: off, its max count (and an op's current count)
 * cleared, the rest kept; what was left of the period goes to
 * period_left for the next ibs_arm(). Did a sample complete meanwhile?
 */
static bool ibs_disarm(struct ibs_pmu *ibs, struct perf_event *event)
{
	u64 ctl, keep = ~(ibs->enable | ibs->valid | ibs_max_count(ibs, ~0ULL));

	if (ibs == &ibs_op_pmu)
		keep &= ~(IBS_OP_CUR_CNT | IBS_OP_CUR_CNT_RAND);
	rdmsrl(ibs->ctl_msr, ctl);
	wrmsrl(ibs->ctl_msr, ctl & keep);
	if (ctl & ibs->valid) {
		/*
		 * The period ran out (its sample is dropped with the stop):
		 * the next one is whole, not the rest last armed
		 */
		local64_set(&event->hw.period_left, 0);
		return true;
	}
	local64_set(&event->hw.period_left,
		    ibs_armed_period(ibs, ctl) - ibs_counted(ibs, ctl));
	return false;
}

static void ibs_start(struct perf_event *event, int flags)
{
	struct ibs_pmu *ibs = to_ibs(event->pmu);

	event->hw.state = 0;
	ibs_arm(ibs, event);
	perf_event_update_userpage(event);
}

static void ibs_stop(struct perf_event *event, int flags)
{
	struct ibs_pmu *ibs = to_ibs(event->pmu);
	struct ibs_cpu *pc = this_cpu_ptr(ibs->cpu);

	if (event->hw.state & PERF_HES_STOPPED)
		return;
	/*
	 * The disarm reads the control register and writes it back: an
	 * NMI in between must find the event stopped (else it outputs the
	 * sample and re-arms, and the stale write turns that arming off
	 * and leaves the old period's rest for the next start) and must be
	 * claimed, though the write may have cleared the valid bit that
	 * raised it. Only a disarm that found no sample lets go of the
	 * claim; one that found a sample leaves it to that sample's NMI,
	 * which may have come already.
	 */
	pc->stopping = true;
	barrier();
	event->hw.state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
	barrier();
	if (!ibs_disarm(ibs, event))
		pc->stopping = false;
}

static int ibs_add(struct perf_event *event, int flags)
{
	struct ibs_pmu *ibs = to_ibs(event->pmu);
	struct ibs_cpu *pc = this_cpu_ptr(ibs->cpu);

	if (pc->event)
		return -ENOSPC;
	pc->event = event;
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		ibs_start(event, PERF_EF_RELOAD);
	return 0;
}

static void ibs_del(struct perf_event *event, int flags)
{
	struct ibs_pmu *ibs = to_ibs(event->pmu);
	struct ibs_cpu *pc = this_cpu_ptr(ibs->cpu);

	ibs_stop(event, PERF_EF_UPDATE);
	pc->event = NULL;
	perf_event_update_userpage(event);
}

/* The count moves by whole periods, in the NMI: nothing to read */
static void ibs_read(struct perf_event *event)
{
}

/*
 * A CPU has one unit of each IBS PMU: a group with two events of @event's
 * PMU could never be scheduled, whatever leads it (a software leader
 * takes any hardware siblings). The other members may be closed
 * meanwhile; the group lock keeps the list as it is.
 */
static bool ibs_group_ok(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader, *sibling;
	struct perf_event_context *ctx;
	unsigned long flags;
	bool ok;

	if (leader == event)
		return true;
	ok = leader->pmu != event->pmu;
	ctx = perf_event_group_lock(leader, &flags);
	for_each_sibling_event(sibling, leader) {
		if (sibling->pmu == event->pmu)
			ok = false;
	}
	perf_event_group_unlock(ctx, flags);
	return ok;
}

static int ibs_event_init(struct perf_event *event)
{
	struct ibs_pmu *ibs = to_ibs(event->pmu);
	struct perf_event_attr *attr = &event->attr;
	struct hw_perf_event *hwc = &event->hw;
	u64 config = attr->config, count_mask = ibs_max_count(ibs, 0xffff);

	if (attr->type != ibs->pmu.type)
		return -ENOENT;
	/*
	 * A period in the max count field, as the raw register has it:
	 * the event samples with it (the attr says so too, as 6.12's does:
	 * the core's later checks see a sampling event)
	 */
	if (!hwc->sample_period && !attr->freq && (config & count_mask)) {
		attr->sample_period = (config & count_mask) << 4;
		hwc->sample_period = attr->sample_period;
		hwc->last_period = hwc->sample_period;
		local64_set(&hwc->period_left, hwc->sample_period);
		config &= ~count_mask;
	}
	/* 6.12's order: the config, the branch stack, then the rest */
	if (config & ~ibs->config_mask)
		return -EINVAL;
	if (has_branch_stack(event))
		return -EOPNOTSUPP;
	if (!ibs_group_ok(event))
		return -EINVAL;
	/* IBS samples; there is no count to read */
	if (!is_sampling_event(event))
		return -EINVAL;
	hwc->config = config;
	return ibs_nmi_register();
}

/*
 * PERF_SAMPLE_DATA_SRC of an op that accessed memory: a store's level only
 * when it hit the L1D; a load's from its misses and, past the L2, from
 * where IbsOpData2 says the line came from; the data TLB from the L1 and
 * L2 TLB miss bits.
 */
static u64 ibs_data_src(u64 data2, u64 data3)
{
	union perf_mem_data_src src = { .val = 0 };
	union ibs_op_data2 d2 = { .val = data2 };
	union ibs_op_data3 d3 = { .val = data3 };
	unsigned int where = d2.data_src_lo | d2.data_src_hi << 3;

	src.mem_op = d3.ld_op ? PERF_MEM_OP_LOAD : PERF_MEM_OP_STORE;
	src.mem_lvl = PERF_MEM_LVL_NA;
	src.mem_lvl_num = PERF_MEM_LVLNUM_NA;
	src.mem_snoop = PERF_MEM_SNOOP_NA;
	src.mem_lock = d3.dc_locked_op ? PERF_MEM_LOCK_LOCKED :
					 PERF_MEM_LOCK_NA;

	if (!d3.dc_miss) {
		src.mem_lvl = PERF_MEM_LVL_L1 | PERF_MEM_LVL_HIT;
		src.mem_lvl_num = PERF_MEM_LVLNUM_L1;
	} else if (d3.st_op) {
		/* where a store's line came from is not reported */
	} else if (!d3.l2_miss) {
		src.mem_lvl = PERF_MEM_LVL_L2 | PERF_MEM_LVL_HIT;
		src.mem_lvl_num = PERF_MEM_LVLNUM_L2;
	} else {
		switch (where) {
		case IBS_DATA_SRC_LOC_CACHE:
			/* another core's cache or the L3, on this node */
			src.mem_lvl = PERF_MEM_LVL_L3 | PERF_MEM_LVL_REM_CCE1 |
				      PERF_MEM_LVL_HIT;
			src.mem_lvl_num = PERF_MEM_LVLNUM_ANY_CACHE;
			src.mem_hops = PERF_MEM_HOPS_0;
			break;
		case IBS_DATA_SRC_DRAM:
			if (d2.rmt_node) {
				src.mem_lvl = PERF_MEM_LVL_REM_RAM1 |
					      PERF_MEM_LVL_HIT;
				src.mem_remote = 1;
				src.mem_hops = PERF_MEM_HOPS_1;
			} else {
				src.mem_lvl = PERF_MEM_LVL_LOC_RAM |
					      PERF_MEM_LVL_HIT;
			}
			src.mem_lvl_num = PERF_MEM_LVLNUM_RAM;
			break;
		case IBS_DATA_SRC_REM_CACHE:
			src.mem_lvl = PERF_MEM_LVL_REM_CCE2 | PERF_MEM_LVL_HIT;
			src.mem_lvl_num = PERF_MEM_LVLNUM_ANY_CACHE;
			src.mem_remote = 1;
			src.mem_hops = PERF_MEM_HOPS_1;
			break;
		case IBS_DATA_SRC_IO:
			src.mem_lvl = PERF_MEM_LVL_IO | PERF_MEM_LVL_HIT;
			src.mem_lvl_num = PERF_MEM_LVLNUM_IO;
			break;
		}
	}

	if (!d3.dc_l1tlb_miss)
		src.mem_dtlb = PERF_MEM_TLB_L1 | PERF_MEM_TLB_HIT;
	else if (!d3.dc_l2tlb_miss)
		src.mem_dtlb = PERF_MEM_TLB_L2 | PERF_MEM_TLB_HIT;
	else
		src.mem_dtlb = PERF_MEM_TLB_L2 | PERF_MEM_TLB_MISS;
	return src.val;
}

/* What an op's registers add to its sample */
static void ibs_op_sample(struct perf_event *event, const u64 *regs,
			  struct perf_sample_data *data, struct pt_regs *sregs)
{
	union ibs_op_data3 d3 = { .val = regs[4] };
	u64 type = event->attr.sample_type;

	if (!(regs[2] & IBS_RIP_INVALID)) {
		sregs->ip = regs[1];
		sregs->flags |= PERF_EFLAGS_EXACT;
	}
	if (!d3.ld_op && !d3.st_op)
		return;
	if ((type & PERF_SAMPLE_ADDR) && d3.dc_lin_addr_valid) {
		data->addr = regs[5];
		data->sample_flags |= PERF_SAMPLE_ADDR;
	}
	if ((type & PERF_SAMPLE_PHYS_ADDR) && d3.dc_phy_addr_valid) {
		data->phys_addr = regs[6];
		data->sample_flags |= PERF_SAMPLE_PHYS_ADDR;
	}
	if (type & PERF_SAMPLE_DATA_SRC) {
		data->data_src.val = ibs_data_src(regs[3], regs[4]);
		data->sample_flags |= PERF_SAMPLE_DATA_SRC;
	}
	if ((type & PERF_SAMPLE_WEIGHT_TYPE) && d3.ld_op && d3.dc_miss) {
		data->weight.full = 0;
		if (type & PERF_SAMPLE_WEIGHT_STRUCT)
			data->weight.var1_dw = d3.dc_miss_lat;
		else
			data->weight.full = d3.dc_miss_lat;
		data->sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
	}
}

/* The unit of this CPU raised the NMI? Then its sample. */
static int ibs_handle(struct ibs_pmu *ibs, struct pt_regs *iregs)
{
	struct ibs_cpu *pc = this_cpu_ptr(ibs->cpu);
	struct perf_event *event = pc->event;
	struct perf_ibs_data ibs_data;
	struct perf_sample_data data __uninitialized;
	struct perf_raw_record raw;
	struct pt_regs regs;
	unsigned int i, n;
	u64 ctl;

	if (!event || (event->hw.state & PERF_HES_STOPPED)) {
		if (!pc->stopping)
			return 0;
		pc->stopping = false;
		return 1;
	}
	rdmsrl(ibs->ctl_msr, ctl);
	if (!(ctl & ibs->valid))
		return 0;

	local64_add(event->hw.last_period, &event->count);
	ibs_data.regs[0] = ctl;
	for (i = 1; i < ibs->nr_regs; i++)
		rdmsrl(ibs->ctl_msr + i, ibs_data.regs[i]);
	n = ibs->nr_regs;
	if (ibs == &ibs_op_pmu && (ibs_caps & IBS_CAPS_BRNTRGT))
		rdmsrl(MSR_AMD64_IBSBRTARGET, ibs_data.regs[n++]);
	ibs_data.caps = ibs_caps;
	ibs_data.size = sizeof(u64) * n;

	perf_sample_data_init(&data, 0, event->hw.last_period);
	regs = *iregs;
	regs.flags &= ~PERF_EFLAGS_EXACT;
	if (ibs == &ibs_op_pmu) {
		ibs_op_sample(event, ibs_data.regs, &data, &regs);
	} else if (ctl & IBS_FETCH_VAL) {
		regs.ip = ibs_data.regs[1];
		regs.flags |= PERF_EFLAGS_EXACT;
	}
	x86_regs_mode_from_ip(&regs);
	if (event->attr.sample_type & PERF_SAMPLE_RAW) {
		raw = (struct perf_raw_record){
			.frag = {
				.size = sizeof(u32) + ibs_data.size,
				.data = ibs_data.data,
			},
		};
		perf_sample_save_raw_data(&data, event, &raw);
	}
	/* the next sample a whole period on */
	local64_set(&event->hw.period_left, 0);
	if (perf_event_overflow(event, &data, &regs)) {
		ibs_disarm(ibs, event);
		event->hw.state |= PERF_HES_STOPPED | PERF_HES_UPTODATE;
		return 1;
	}
	ibs_arm(ibs, event);
	return 1;
}

static int ibs_nmi(unsigned int cmd, struct pt_regs *regs)
{
	int handled = 0;

	if (ibs_caps & IBS_CAPS_FETCHSAM)
		handled += ibs_handle(&ibs_fetch_pmu, regs);
	if (ibs_caps & IBS_CAPS_OPSAM)
		handled += ibs_handle(&ibs_op_pmu, regs);
	return handled;
}
NOKPROBE_SYMBOL(ibs_nmi);

/* sysfs: the config bits of each PMU */
PMU_FORMAT_ATTR(rand_en, "config:57");
PMU_FORMAT_ATTR(cnt_ctl, "config:19");

static struct attribute *ibs_fetch_format_attrs[] = {
	&format_attr_rand_en.attr,
	NULL,
};

static struct attribute *ibs_op_format_attrs[] = {
	&format_attr_cnt_ctl.attr,
	NULL,
};

static const struct attribute_group ibs_fetch_format_group = {
	.name	= "format",
	.attrs	= ibs_fetch_format_attrs,
};

static const struct attribute_group ibs_op_format_group = {
	.name	= "format",
	.attrs	= ibs_op_format_attrs,
};

/* caps/: empty, as 6.12's is where no Zen 4 extension is */
static struct attribute *ibs_caps_attrs[] = {
	NULL,
};

static const struct attribute_group ibs_caps_group = {
	.name	= "caps",
	.attrs	= ibs_caps_attrs,
};

static const struct attribute_group *ibs_fetch_groups[] = {
	&ibs_caps_group,
	&ibs_fetch_format_group,
	NULL,
};

static const struct attribute_group *ibs_op_groups[] = {
	&ibs_caps_group,
	&ibs_op_format_group,
	NULL,
};

#define IBS_PMU(_groups)							\
	.pmu = {							\
		.task_ctx_nr	= perf_hw_context,			\
		.capabilities	= PERF_PMU_CAP_NO_EXCLUDE,		\
		.attr_groups	= _groups,				\
		.event_init	= ibs_event_init,			\
		.add		= ibs_add,				\
		.del		= ibs_del,				\
		.start		= ibs_start,				\
		.stop		= ibs_stop,				\
		.read		= ibs_read,				\
	}

static struct ibs_pmu ibs_fetch_pmu = {
	IBS_PMU(ibs_fetch_groups),
	.ctl_msr	= MSR_AMD64_IBSFETCHCTL,
	.enable		= IBS_FETCH_ENABLE,
	.valid		= IBS_FETCH_VAL,
	.config_mask	= IBS_FETCH_RAND_EN,
	.max_count	= IBS_FETCH_MAX_CNT,
	.nr_regs	= MSR_AMD64_IBSFETCH_REG_COUNT,
	.cpu		= &ibs_fetch_cpu,
};

static struct ibs_pmu ibs_op_pmu = {
	IBS_PMU(ibs_op_groups),
	.ctl_msr	= MSR_AMD64_IBSOPCTL,
	.enable		= IBS_OP_ENABLE,
	.valid		= IBS_OP_VAL,
	.config_mask	= 0,
	.max_count	= IBS_OP_MAX_CNT,
	.nr_regs	= MSR_AMD64_IBSOP_REG_COUNT,
	.cpu		= &ibs_op_cpu,
};

/* The extended LVT entry IBS interrupts through: IBSCTL names it */
static int ibs_lvt_offset(void)
{
	u64 val;

	if (rdmsrl_safe(MSR_AMD64_IBSCTL, &val) ||
	    !(val & IBSCTL_LVT_OFFSET_VALID))
		return -EINVAL;
	return val & IBSCTL_LVT_OFFSET_MASK;
}

static int ibs_cpu_starting(unsigned int cpu)
{
	int offset = ibs_lvt_offset();

	if (offset < 0 || setup_APIC_eilvt(offset, 0, APIC_EILVT_MSG_NMI, 0))
		pr_warn("no IBS interrupt on CPU %u\n", cpu);
	return 0;
}

static int ibs_cpu_dying(unsigned int cpu)
{
	int offset = ibs_lvt_offset();

	if (offset >= 0)
		setup_APIC_eilvt(offset, 0, APIC_EILVT_MSG_FIX, 1);
	return 0;
}

/* resume: the boot CPU's APIC forgot its extended LVT entry */
static void ibs_resume(void *data)
{
	ibs_cpu_starting(smp_processor_id());
}

static const struct syscore_ops ibs_syscore_ops = {
	.resume = ibs_resume,
};

static struct syscore ibs_syscore = {
	.ops = &ibs_syscore_ops,
};

static int __init ibs_register(struct ibs_pmu *ibs, const char *name)
{
	return perf_pmu_register(&ibs->pmu, name, -1);
}

static int __init amd_ibs_init(void)
{
	u32 caps;
	int err;

	if (boot_cpu_data.x86_vendor != X86_VENDOR_AMD ||
	    !boot_cpu_has(X86_FEATURE_IBS))
		return 0;
	caps = cpuid_eax(IBS_CPUID_FEATURES);
	if (!(caps & IBS_CAPS_AVAIL))
		return 0;
	if (caps & IBS_CAPS_OPCNT)
		ibs_op_pmu.config_mask |= IBS_OP_CNT_CTL;
	if (caps & IBS_CAPS_OPCNTEXT)
		ibs_op_pmu.max_count = IBS_OP_MAX_CNT_EXT;

	err = cpuhp_setup_state(CPUHP_AP_PERF_X86_AMD_IBS_STARTING,
				"perf/x86/amd/ibs:starting",
				ibs_cpu_starting, ibs_cpu_dying);
	if (err)
		return err;
	register_syscore(&ibs_syscore);
	ibs_caps = caps;
	if ((caps & IBS_CAPS_FETCHSAM) && ibs_register(&ibs_fetch_pmu, "ibs_fetch"))
		ibs_caps &= ~IBS_CAPS_FETCHSAM;
	if ((caps & IBS_CAPS_OPSAM) && ibs_register(&ibs_op_pmu, "ibs_op"))
		ibs_caps &= ~IBS_CAPS_OPSAM;
	pr_info("AMD IBS detected (0x%08x)\n", caps);
	return 0;
}
device_initcall(amd_ibs_init);

/**
 * get_ibs_caps - the IBS capabilities the host's IBS driver supports
 *
 * Return: the IBS_CAPS_* flags (CPUID Fn8000_001B_EAX) of the active IBS
 * driver, 0 while there is none.
 */
u32 get_ibs_caps(void)
{
	return ibs_caps;
}
EXPORT_SYMBOL(get_ibs_caps);

/**
 * forward_event_to_ibs - let the IBS PMU take a core PMU event
 * @event: an event of the core PMU that asked for precise sampling
 *
 * Precise cycles (cycles:p, :pp; raw 0x76) sample IBS ops by cycles:
 * the event is handed to ibs_op (the core retries the PMU that attr.type
 * now names). Other events cannot be precise on AMD.
 *
 * Return: -ENOENT, handed over or not; -EOPNOTSUPP when IBS cannot take
 * it (no IBS, or precise_ip 3).
 */
int forward_event_to_ibs(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	bool cycles = (attr->type == PERF_TYPE_HARDWARE &&
		       attr->config == PERF_COUNT_HW_CPU_CYCLES) ||
		      (attr->type == PERF_TYPE_RAW && attr->config == 0x76);

	if (!(ibs_caps & IBS_CAPS_OPSAM) || attr->precise_ip > 2)
		return -EOPNOTSUPP;
	/* no other event is precise on AMD: not this PMU's */
	if (!cycles)
		return -ENOENT;
	attr->type = ibs_op_pmu.pmu.type;
	attr->config = 0;
	return -ENOENT;
}
