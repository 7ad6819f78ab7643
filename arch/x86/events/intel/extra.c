// SPDX-License-Identifier: GPL-2.0-only
/*
 * The extra registers of Skylake events (Intel SDM vol. 3): an event
 * whose config1 the hardware takes from an MSR rather than from its
 * event select.
 *
 * - offcore response (event 0xb7 or 0xbb, umask 0x01; on Sapphire
 *   Rapids and a hybrid CPU's Core 0x2a or 0x2b; on its Atom 0xb7 with
 *   umask 0x01 or 0x02): the requests and responses that
 *   MSR_OFFCORE_RSP_0 or _1 select; also the cache table's LL and NODE
 *   entries;
 * - load latency (0x01cd, "ldlat"; the Atom's 0x05d0):
 *   MSR_PEBS_LD_LAT_THRESHOLD;
 * - front-end retired (0x01c6, "frontend"): MSR_PEBS_FRONTEND.
 *
 * The registers belong to the core, not to one of its hardware
 * threads: every event counting on the core's threads at the same time
 * must want the value its register holds. An offcore event whose
 * register holds another value takes the other offcore register if
 * that one is free or holds its value, and its event select changes to
 * match (0xb7 <-> 0xbb, 0x2a <-> 0x2b); if neither, it cannot be
 * added now. A group that needs three offcore values could never be on:
 * its third is EINVAL at open, as on the stock kernel.
 *
 * A hypervisor may not give a guest the registers: at boot each is
 * written and read back, and one that does not keep its value makes the
 * events that need it fail with ENXIO, as on the stock kernel. A value
 * with bits the register does not implement is EINVAL, checked first.
 */

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/topology.h>

#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

#define EXTRA_SEL_MASK		(ARCH_PERFMON_EVENTSEL_EVENT | \
				 ARCH_PERFMON_EVENTSEL_UMASK)
/* the two offcore response registers: indices 0 and 1, interchangeable */
#define EXTRA_RSP_0		0
#define EXTRA_RSP_1		1

/**
 * struct intel_extra - an extra register, and what the events that take
 *	it need
 * @msr: the register
 * @valid: the bits of the register that Skylake implements
 * @usable: the register keeps what is written to it (probed at boot)
 */
struct intel_extra {
	u32	msr;
	u64	valid;
	bool	usable;
};

/* in the order of their index in struct x86_extra_regs */
static struct intel_extra intel_skl_extra[X86_EXTRA_MAX] __ro_after_init = {
	[EXTRA_RSP_0]	= { MSR_OFFCORE_RSP_0, 0x3fffff8fffULL },
	[EXTRA_RSP_1]	= { MSR_OFFCORE_RSP_1, 0x3fffff8fffULL },
	[2]		= { MSR_PEBS_LD_LAT_THRESHOLD, 0xffffULL },
	[3]		= { MSR_PEBS_FRONTEND, 0x7fff17ULL },
};

/*
 * The event select and unit mask of the events that take each register,
 * per kind of core (x86_types[]); 0 for none
 */
static u64 extra_events[X86_TYPES_MAX][X86_EXTRA_MAX] __ro_after_init = {
	[0] = { 0x01b7, 0x01bb, 0x01cd, 0x01c6 },
};

static bool intel_extra_on __ro_after_init;

/*
 * The registers of a core, kept by the first online CPU of its threads;
 * an event remembers that CPU in hw.last_cpu, so it gives back its claim
 * where it took it. Known gap: when that CPU goes offline while its
 * sibling counts with a register, the sibling's later claims go to its
 * own (empty) set until those events are gone, and could program another
 * value; the stock kernel shares one allocation.
 */
struct extra_core {
	raw_spinlock_t		lock;
	struct x86_extra_regs	regs;
};

static DEFINE_PER_CPU(struct extra_core, extra_core);

/* the events of @event's kind of core that take each register */
static const u64 *extra_events_of(struct perf_event *event)
{
	return extra_events[x86_event_type(event) - x86_types];
}

/* the extra register @event's select @config counts with, or -1 */
static int extra_reg(struct perf_event *event, u64 config)
{
	const u64 *ev;
	int i;

	if (!intel_extra_on)
		return -1;
	ev = extra_events_of(event);
	for (i = 0; i < X86_EXTRA_MAX; i++)
		if (ev[i] && (config & EXTRA_SEL_MASK) == ev[i])
			return i;
	return -1;
}

/* the register at @msr keeps a value (one of the @valid bits) written */
static bool __init extra_probe(u32 msr, u64 valid)
{
	u64 old, val, bit = valid & -valid;

	if (rdmsrl_safe(msr, &old))
		return false;
	if (wrmsrl_safe(msr, old ^ bit))
		return false;
	if (rdmsrl_safe(msr, &val))
		val = old;
	wrmsrl_safe(msr, old);
	return val == (old ^ bit);
}

/* Sapphire Rapids' offcore response events (its public event list) */
#define SPR_OFFCORE_0		0x012a
#define SPR_OFFCORE_1		0x012b
/*
 * a hybrid CPU's Atom (Gracemont): offcore response 0xb7 with unit mask
 * 1 or 2, load latency 0x05d0, no front-end event
 */
#define GRT_OFFCORE_0		0x01b7
#define GRT_OFFCORE_1		0x02b7
#define GRT_LD_LAT		0x05d0

/**
 * intel_extra_init - the extra registers of this (Skylake-like) CPU
 * @spr: Sapphire Rapids or a hybrid CPU's Core (Golden Cove), whose
 *	offcore events are 0x2a and 0x2b
 * @hybrid: x86_types[1] is a hybrid CPU's Atom
 *
 * Probes each register (on the boot CPU: every core has the same) and
 * makes the events that use them known to intel_extra_config().
 */
void __init intel_extra_init(bool spr, bool hybrid)
{
	int cpu, i;

	if (spr) {
		extra_events[0][EXTRA_RSP_0] = SPR_OFFCORE_0;
		extra_events[0][EXTRA_RSP_1] = SPR_OFFCORE_1;
	}
	if (hybrid) {
		extra_events[1][EXTRA_RSP_0] = GRT_OFFCORE_0;
		extra_events[1][EXTRA_RSP_1] = GRT_OFFCORE_1;
		extra_events[1][2] = GRT_LD_LAT;
	}
	for_each_possible_cpu(cpu)
		raw_spin_lock_init(&per_cpu(extra_core, cpu).lock);
	for (i = 0; i < X86_EXTRA_MAX; i++)
		intel_skl_extra[i].usable = extra_probe(intel_skl_extra[i].msr,
							intel_skl_extra[i].valid);
	intel_extra_on = true;
}

/* @vals holds @n distinct values; add @val: false if it would be a third */
static bool extra_add_value(u64 *vals, int *n, u64 val)
{
	int i;

	for (i = 0; i < *n; i++)
		if (vals[i] == val)
			return true;
	if (*n == 2)
		return false;
	vals[(*n)++] = val;
	return true;
}

/* the offcore value of @event, if it has one, among @vals */
static bool extra_add_event(struct perf_event *event, u64 *vals, int *n)
{
	int reg = extra_reg(event, event->hw.config);

	if (reg < 0 || reg > EXTRA_RSP_1)
		return true;
	return extra_add_value(vals, n, event->hw.extra_reg_config);
}

/*
 * The two offcore registers hold at most two values: a new member of a
 * group with @val is refused when its leader and enabled siblings want
 * two others (as 6.12: disabled siblings, such as a group opened
 * disabled member by member, are not counted)
 */
static bool extra_group_fits(struct perf_event *event, u64 val)
{
	struct perf_event *leader = event->group_leader, *sib;
	struct perf_event_context *ctx;
	unsigned long flags;
	bool fits;
	u64 vals[2];
	int n = 0;

	if (leader == event)
		return true;
	ctx = perf_event_group_lock(leader, &flags);
	fits = leader->pmu != event->pmu || extra_add_event(leader, vals, &n);
	for_each_sibling_event(sib, leader) {
		if (fits && sib->pmu == event->pmu &&
		    sib->state > PERF_EVENT_STATE_OFF)
			fits = extra_add_event(sib, vals, &n);
	}
	perf_event_group_unlock(ctx, flags);
	return fits && extra_add_value(vals, &n, val);
}

/**
 * intel_extra_config - check the extra register value of a new event
 * @event: the event being initialised
 * @config: its event select (masked raw config, or from a table)
 * @config1: the value it wants in the register
 *
 * Events without extra register ignore config1.
 *
 * Return: 0; -EINVAL for a value with bits the register lacks, -ENXIO
 * when the register cannot be used.
 */
int intel_extra_config(struct perf_event *event, u64 config, u64 config1)
{
	int reg = extra_reg(event, config);

	if (reg < 0)
		return 0;
	if (config1 & ~intel_skl_extra[reg].valid)
		return -EINVAL;
	if (!intel_skl_extra[reg].usable)
		return -ENXIO;
	if (reg <= EXTRA_RSP_1 && !extra_group_fits(event, config1))
		return -EINVAL;
	event->hw.extra_reg_config = config1;
	return 0;
}

/*
 * The register @event can use in @regs: its own, else for an offcore
 * event the other offcore one; -1 if none.
 */
static int extra_pick(struct perf_event *event, struct x86_extra_regs *regs,
		      int reg)
{
	u64 val = event->hw.extra_reg_config;
	int tries = reg <= EXTRA_RSP_1 ? 2 : 1, i, r;

	for (i = 0; i < tries; i++) {
		r = reg ^ i;
		if (!regs->ref[r] || regs->val[r] == val)
			return r;
	}
	return -1;
}

/* the CPU that keeps this core's registers */
static int extra_owner(void)
{
	int cpu = cpumask_first(topology_sibling_cpumask(smp_processor_id()));

	return cpu < nr_cpu_ids ? cpu : smp_processor_id();
}

/**
 * intel_extra_claim - take the extra register @event needs on this core
 * @event: an event of the "cpu" PMU, maybe one without
 *
 * The event's select follows the register it got. Called with IRQs off.
 *
 * Return: 0, or -EAGAIN when both registers hold other values.
 */
int intel_extra_claim(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	struct extra_core *core;
	int reg = extra_reg(event, hwc->config);

	if (reg < 0)
		return 0;
	hwc->last_cpu = extra_owner();
	core = per_cpu_ptr(&extra_core, hwc->last_cpu);
	raw_spin_lock(&core->lock);
	reg = extra_pick(event, &core->regs, reg);
	if (reg >= 0) {
		core->regs.val[reg] = hwc->extra_reg_config;
		core->regs.ref[reg]++;
	}
	raw_spin_unlock(&core->lock);
	if (reg < 0)
		return -EAGAIN;
	/* an offcore event counts with the register it got */
	hwc->config &= ~EXTRA_SEL_MASK;
	hwc->config |= extra_events_of(event)[reg];
	return 0;
}

/**
 * intel_extra_put - give back the register intel_extra_claim() took
 * @event: the event leaving this CPU's counters
 */
void intel_extra_put(struct perf_event *event)
{
	struct extra_core *core;
	int reg = extra_reg(event, event->hw.config);

	if (reg < 0)
		return;
	core = per_cpu_ptr(&extra_core, event->hw.last_cpu);
	raw_spin_lock(&core->lock);
	if (!WARN_ON_ONCE(!core->regs.ref[reg]))
		core->regs.ref[reg]--;
	raw_spin_unlock(&core->lock);
}

/**
 * intel_extra_enable - program the register of @event before it counts
 * @event: the event being started on this CPU
 *
 * The other thread of the core may count with the same value already:
 * writing it again changes nothing.
 */
void intel_extra_enable(struct perf_event *event)
{
	int reg = extra_reg(event, event->hw.config);

	if (reg < 0)
		return;
	wrmsrl(intel_skl_extra[reg].msr, event->hw.extra_reg_config);
}
