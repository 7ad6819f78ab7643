// SPDX-License-Identifier: GPL-2.0-only
/*
 * Precise sampling with PEBS on Skylake (Intel SDM vol. 3, "Processor
 * Event Based Sampling", record format 3): precise_ip 1 to 3.
 *
 * A counter enabled in IA32_PEBS_ENABLE does not interrupt when it
 * wraps: the CPU writes a record of the instruction that made the
 * event happen into the PEBS buffer (ds.c) and reloads the counter from
 * the DS area's reset value, here minus the sampling period, so the
 * counter keeps going on its own. A record becomes a sample in
 * intel_pebs_drain(): in the PMI the buffer's interrupt threshold raises
 * (GLOBAL_STATUS bit 62), and before a PEBS event leaves its counter or
 * its count is read (core.c's flush).
 *
 * The threshold is one record (a PMI each) unless every PEBS event of the
 * CPU is "large": one whose samples the record alone makes, any time
 * later on the same CPU in the same task (no frequency, no callchain,
 * branch stack, user registers or read values; a task's event, or one
 * of the CPU that asks for no task's ID or physical address). Then the
 * PMI comes when the buffer is nearly full, and the records of a task's
 * events go out when the task switches out: such an event keeps its
 * context from being swapped with another task's
 * (PERF_ATTACH_SCHED_CB). A large
 * event's sample time is the record's TSC, where sched_clock is the TSC's
 * and stable; else when it is drained.
 *
 * A record holds the registers after the instruction: RFLAGS, the IP of
 * the next instruction, the general registers; format 2 and later add
 * the eventing IP, the instruction itself. precise_ip 1 reports the
 * next instruction's address, 2 and 3 the eventing IP, marked exact.
 * The memory events add the data linear address (PERF_SAMPLE_ADDR), the
 * data source (PERF_SAMPLE_DATA_SRC) and, for the load latency event,
 * the latency (PERF_SAMPLE_WEIGHT).
 *
 * As the stock 6.12 driver does on Skylake: a precise event must sample
 * (a counting one is EINVAL), count occurrences (no edge, inv, cmask or
 * AnyThread: EINVAL) and takes a general counter, any event select;
 * INST_RETIRED.PREC_DIST only counter 1. Precise cycles count
 * INST_RETIRED with inv and cmask 16 (every cycle in which fewer than
 * 16 instructions retire: every cycle), at precise_ip 3 its PREC_DIST
 * unit mask. The memory events' records carry the data address; the
 * data source is decoded for the load latency and store events (with
 * the latency as the weight of the first), a load of the other events
 * reports none.
 *
 * Ice Lake's PEBS is adaptive (record format 4 with PEBS_BASELINE): a
 * record is a basic group (the eventing IP, the counters it is for, the
 * TSC) followed by the groups MSR_PEBS_DATA_CFG selects (memory info,
 * general registers, XMM registers, LBRs), for the counters whose
 * event select (or fixed counter control) has the adaptive bit, which
 * every PEBS event's has; a record's own first field gives its groups
 * and size, so a buffer may mix layouts. One register serves the whole
 * CPU: it holds the union of what its PEBS events need. The basic
 * group's IP is the eventing instruction's; precise_ip 1 reports the
 * next one, the GPR group's. The fixed counters take PEBS too
 * (IA32_PEBS_ENABLE bit 32 + i, reload value after the general
 * counters'): precise instructions and cycles go there, as any event,
 * and cycles needs no INST_RETIRED stand-in. Any event select may be
 * precise (edge, inv, cmask too), and a period of 1 reloads to -1. With
 * the LBR group a sample's branch stack is the record's, and such an
 * event may be large.
 *
 * hw.config_base of a precise event holds its enum pebs_kind, and
 * PEBS_LARGE; with adaptive PEBS its MSR_PEBS_DATA_CFG groups from
 * PEBS_CFG_SHIFT.
 */

#include <linux/bitops.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/sched/clock.h>

#include <asm/intel_ds.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <asm/ptrace.h>
#include <asm/segment.h>
#include <asm/timer.h>
#include <asm/tsc.h>

#include "../perf_event.h"

/* PEBS record format 3 (Skylake) */
struct pebs_record_fmt3 {
	u64	flags, ip;
	u64	ax, bx, cx, dx, si, di, bp, sp;
	u64	r8, r9, r10, r11, r12, r13, r14, r15;
	u64	status;		/* the PEBS counters the record is for */
	u64	dla;		/* data linear address */
	u64	dse;		/* data source */
	u64	lat;		/* load latency, core cycles */
	u64	real_ip;	/* the eventing instruction */
	u64	tsx_tuning;
	u64	tsc;
};

/* what an event's records say beyond the IP and registers */
enum pebs_kind {
	PEBS_PLAIN = 1,
	PEBS_LOAD,		/* a load's data address and source */
	PEBS_STORE,		/* a store's */
	PEBS_LDLAT,		/* a load's, with its latency */
};

#define PEBS_KIND		0xff
#define PEBS_LARGE		BIT(8)
#define PEBS_CFG_SHIFT		32

/* what a large PEBS event's samples may hold: what a record gives */
#define PEBS_LARGE_SAMPLE	(PERF_SAMPLE_IP | PERF_SAMPLE_TID |	\
				 PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |	\
				 PERF_SAMPLE_ID | PERF_SAMPLE_CPU |	\
				 PERF_SAMPLE_PERIOD |			\
				 PERF_SAMPLE_STREAM_ID |		\
				 PERF_SAMPLE_DATA_SRC |			\
				 PERF_SAMPLE_IDENTIFIER |		\
				 PERF_SAMPLE_TRANSACTION |		\
				 PERF_SAMPLE_PHYS_ADDR |		\
				 PERF_SAMPLE_WEIGHT_TYPE |		\
				 PERF_SAMPLE_REGS_INTR)

/* a PEBS event counts occurrences: none of these may be set */
#define PEBS_SEL_FLAGS		(ARCH_PERFMON_EVENTSEL_EDGE | \
				 ARCH_PERFMON_EVENTSEL_ANY | \
				 ARCH_PERFMON_EVENTSEL_INV | \
				 ARCH_PERFMON_EVENTSEL_CMASK)
#define PEBS_SEL_UMASK		(ARCH_PERFMON_EVENTSEL_EVENT | \
				 ARCH_PERFMON_EVENTSEL_UMASK)
/* precise cycles: INST_RETIRED (.PREC_DIST at precise_ip 3), inv, cmask 16 */
#define PEBS_CYCLES		(ARCH_PERFMON_EVENTSEL_INV | (16ULL << 24) | 0x00c0)
#define PEBS_PREC_DIST_UMASK	0x0100

/**
 * struct pebs_event - an event whose records say more than the IP
 * @sel: its event select, with the unit mask where @mask has it
 * @mask: ARCH_PERFMON_EVENTSEL_EVENT (any unit mask) or PEBS_SEL_UMASK
 * @kind: what its records report
 */
struct pebs_event {
	u64	sel;
	u64	mask;
	u8	kind;
};

#define PEBS_EVENT(e, k)	{ e, ARCH_PERFMON_EVENTSEL_EVENT, k }
#define PEBS_UEVENT(e, k)	{ e, PEBS_SEL_UMASK, k }

/* Skylake's memory events (SDM vol. 3, "PEBS events" of Skylake) */
static const struct pebs_event pebs_skl_events[] = {
	PEBS_UEVENT(0x01cd, PEBS_LDLAT),	/* LOAD_LATENCY */
	PEBS_UEVENT(0x11d0, PEBS_LOAD),		/* STLB_MISS_LOADS */
	PEBS_UEVENT(0x12d0, PEBS_STORE),	/* STLB_MISS_STORES */
	PEBS_UEVENT(0x21d0, PEBS_LOAD),		/* LOCK_LOADS */
	PEBS_UEVENT(0x41d0, PEBS_LOAD),		/* SPLIT_LOADS */
	PEBS_UEVENT(0x42d0, PEBS_STORE),	/* SPLIT_STORES */
	PEBS_UEVENT(0x81d0, PEBS_LOAD),		/* ALL_LOADS */
	PEBS_UEVENT(0x82d0, PEBS_STORE),	/* ALL_STORES */
	PEBS_EVENT(0x00d1, PEBS_LOAD),		/* MEM_LOAD_RETIRED */
	PEBS_EVENT(0x00d2, PEBS_LOAD),		/* ..._L3_HIT_RETIRED */
	PEBS_EVENT(0x00d3, PEBS_LOAD),		/* ..._L3_MISS_RETIRED */
	PEBS_EVENT(0x00d4, PEBS_LOAD),		/* ..._MISC_RETIRED */
};

/* this CPU's IA32_PEBS_ENABLE, and the reset period of each counter */
static DEFINE_PER_CPU(u64, pebs_enabled);
DEFINE_PER_CPU(u64, intel_pebs_counters);
/* how many of its PEBS events need a PMI per record (not large) */
static DEFINE_PER_CPU(int, pebs_small);
/* intel_pebs_drain() outside the PMI: a PMI coming meanwhile leaves it be */
static DEFINE_PER_CPU(bool, pebs_draining);
static DEFINE_PER_CPU(u64, pebs_period[INTEL_PMC_IDX_METRIC_BASE]);
/* adaptive PEBS: the groups in this CPU's MSR_PEBS_DATA_CFG */
static DEFINE_PER_CPU(u64, pebs_data_cfg);
static bool pebs_on __ro_after_init;
static bool pebs_adaptive __ro_after_init;

/*
 * Records a large adaptive buffer keeps room for past its threshold (as
 * 6.12): those written before the PMI stops the counters
 */
#define PEBS_ADAPTIVE_SLACK	8

/* the largest adaptive record: every group, the deepest LBRs */
#define PEBS_ADAPTIVE_MAX	(sizeof(struct pebs_basic) +		\
				 sizeof(struct pebs_meminfo) +		\
				 sizeof(struct pebs_gprs) +		\
				 sizeof(struct pebs_xmm) +		\
				 X86_LBR_MAX * sizeof(struct lbr_entry))

static int pebs_kind(u64 config)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(pebs_skl_events); i++) {
		const struct pebs_event *e = &pebs_skl_events[i];

		if ((config & e->mask) == e->sel)
			return e->kind;
	}
	return PEBS_PLAIN;
}

/* the MSR_PEBS_DATA_CFG groups that the samples of @event need */
static u64 pebs_event_cfg(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	u64 type = attr->sample_type, cfg = 0;

	if (type & (PERF_SAMPLE_ADDR | PERF_SAMPLE_DATA_SRC |
		    PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_TRANSACTION |
		    PERF_SAMPLE_PHYS_ADDR))
		cfg |= PEBS_DATACFG_MEMINFO;
	/* precise_ip 1 reports the next instruction: the GPR group's IP */
	if (attr->precise_ip < 2)
		cfg |= PEBS_DATACFG_GP;
	if (type & PERF_SAMPLE_REGS_INTR) {
		if (attr->sample_regs_intr & ~PERF_REG_EXTENDED_MASK)
			cfg |= PEBS_DATACFG_GP;
		if (attr->sample_regs_intr & PERF_REG_EXTENDED_MASK)
			cfg |= PEBS_DATACFG_XMMS;
	}
	/* the stack of the event's kind of core (a hybrid Atom's may differ) */
	if (has_branch_stack(event) && x86_pmu_lbr())
		cfg |= PEBS_DATACFG_LBRS |
		       ((u64)(x86_event_type(event)->lbr_nr - 1) <<
			PEBS_DATACFG_LBR_SHIFT);
	return cfg;
}

/* Can the records of @event wait in the buffer (see the top)? */
static bool pebs_large(struct perf_event *event)
{
	struct perf_event_attr *attr = &event->attr;
	u64 type = attr->sample_type;

	/*
	 * An adaptive record has the branch stack of its instruction; but
	 * the branch types are read from the code of the task current at
	 * the drain, which for an event of the CPU may be another's
	 */
	if (pebs_adaptive && x86_pmu_lbr() &&
	    ((event->attach_state & PERF_ATTACH_TASK) ||
	     !(attr->branch_sample_type & PERF_SAMPLE_BRANCH_TYPE_SAVE)))
		type &= ~PERF_SAMPLE_BRANCH_STACK;
	if (attr->freq || (type & ~PEBS_LARGE_SAMPLE))
		return false;
	/* as in 6.12: the XMM registers' samples take a PMI each */
	if ((type & PERF_SAMPLE_REGS_INTR) &&
	    (attr->sample_regs_intr & PERF_REG_EXTENDED_MASK))
		return false;
	/* a CPU's buffer mixes tasks: none of the drain's current task */
	return (event->attach_state & PERF_ATTACH_TASK) ||
	       !(attr->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_PHYS_ADDR));
}

/**
 * intel_pebs_config - check a precise event and set it up for PEBS
 * @event: the event being initialised, with attr.precise_ip set
 * @config: its event select; precise cycles change it
 *
 * Return: 0; -EOPNOTSUPP without PEBS, -EINVAL for a counting event or
 * (but with adaptive PEBS) one that does not count occurrences, -ENOMEM
 * when the buffers cannot be allocated.
 */
int intel_pebs_config(struct perf_event *event, u64 *config)
{
	int err;

	if (!pebs_on)
		return -EOPNOTSUPP;
	if (!is_sampling_event(event))
		return -EINVAL;
	/* adaptive PEBS takes any event select (6.12 on the model) */
	if (!pebs_adaptive && (*config & PEBS_SEL_FLAGS))
		return -EINVAL;
	/* adaptive PEBS samples cycles themselves (fixed counter 1) */
	if (!pebs_adaptive && (*config & PEBS_SEL_UMASK) == 0x003c) {
		*config = (*config & ~PEBS_SEL_UMASK) | PEBS_CYCLES;
		if (event->attr.precise_ip == 3)
			*config |= PEBS_PREC_DIST_UMASK;
	}
	err = intel_ds_get(pebs_adaptive ? PEBS_ADAPTIVE_MAX :
			   sizeof(struct pebs_record_fmt3));
	if (err)
		return err;
	event->hw.holds |= X86_HOLDS_PEBS;
	event->hw.config_base = pebs_kind(*config);
	if (pebs_adaptive)
		event->hw.config_base |= pebs_event_cfg(event) << PEBS_CFG_SHIFT;
	if (pebs_large(event)) {
		event->hw.config_base |= PEBS_LARGE;
		/* out at the task's switch: its context is never swapped */
		if (event->attach_state & PERF_ATTACH_TASK)
			event->attach_state |= PERF_ATTACH_SCHED_CB;
	}
	return 0;
}

/*
 * Counter @idx reloads to minus the period of @event after each record:
 * a period of 1 too (a record per event), though the first start, like
 * any counter's, is at least 2 events away (as 6.12)
 */
static void pebs_set_period(struct perf_event *event, int idx)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	int bits = x86_pmu_hw.cntval_bits;
	u64 period;

	/* the fixed counters' reload values follow the general ones' */
	if (idx >= INTEL_PMC_IDX_FIXED)
		bits = x86_pmu_hw.cntval_bits_fixed;
	period = clamp_t(u64, event->hw.sample_period, 1,
			 GENMASK_ULL(bits - 2, 0));
	this_cpu_write(pebs_period[idx], period);
	if (idx >= INTEL_PMC_IDX_FIXED)
		idx += MAX_PEBS_EVENTS_FMT4 - INTEL_PMC_IDX_FIXED;
	ds->pebs_event_reset[idx] = -period & GENMASK_ULL(bits - 1, 0);
}

/* the size of an adaptive record with the groups of @cfg */
static unsigned int pebs_adaptive_size(u64 cfg)
{
	unsigned int size = sizeof(struct pebs_basic);

	if (cfg & PEBS_DATACFG_MEMINFO)
		size += sizeof(struct pebs_meminfo);
	if (cfg & PEBS_DATACFG_GP)
		size += sizeof(struct pebs_gprs);
	if (cfg & PEBS_DATACFG_XMMS)
		size += sizeof(struct pebs_xmm);
	if (cfg & PEBS_DATACFG_LBRS)
		size += ((cfg >> PEBS_DATACFG_LBR_SHIFT & 0xff) + 1) *
			sizeof(struct lbr_entry);
	return size;
}

/*
 * A PMI per record while a PEBS event of this CPU is not large (any
 * record passes the threshold, the smallest included); else when the
 * buffer has no room for one more of the largest records now written.
 */
static void pebs_set_threshold(void)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	u64 size = sizeof(struct pebs_record_fmt3);

	if (pebs_adaptive)
		size = pebs_adaptive_size(this_cpu_read(pebs_data_cfg));
	if (this_cpu_read(pebs_small))
		ds->pebs_interrupt_threshold = ds->pebs_buffer_base +
			(pebs_adaptive ? sizeof(struct pebs_basic) : size);
	else
		ds->pebs_interrupt_threshold = ds->pebs_absolute_maximum -
			(pebs_adaptive ? PEBS_ADAPTIVE_SLACK : 1) * size;
}

/*
 * MSR_PEBS_DATA_CFG: what this CPU's PEBS events need, all together.
 * With none left it stays as it is: no counter writes records, and the
 * next PEBS event, often the same again, may need no write.
 */
static void pebs_set_data_cfg(void)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	u64 enabled = this_cpu_read(pebs_enabled), cfg = 0;
	int bit;

	if (!enabled)
		return;
	for_each_set_bit(bit, (unsigned long *)&enabled, X86_PMC_IDX_MAX) {
		if (cpuc->events[bit])
			cfg |= cpuc->events[bit]->hw.config_base >>
			       PEBS_CFG_SHIFT;
	}
	if (cfg == this_cpu_read(pebs_data_cfg))
		return;
	this_cpu_write(pebs_data_cfg, cfg);
	wrmsrl(MSR_PEBS_DATA_CFG, cfg);
}

/* the PEBS counters of this CPU that a record's status bits may name */
static u64 pebs_counters(void)
{
	u64 counters = x86_this_cntr_mask();

	if (!pebs_adaptive)
		counters &= GENMASK_ULL(INTEL_PMC_IDX_FIXED - 1, 0);
	return counters & this_cpu_read(pebs_enabled);
}

/* after every change of this CPU's pebs_enabled */
static void pebs_counters_changed(void)
{
	this_cpu_write(intel_pebs_counters, pebs_counters());
}

/**
 * intel_pebs_enable - make the counter of @event write PEBS records
 * @event: a precise event, on a counter of this CPU (a general one
 *	unless PEBS is adaptive)
 *
 * Before its event select or fixed counter control enables it.
 *
 * Return: the event select to write: without the counter's own
 * interrupt, which PEBS replaces; with ICL_EVENTSEL_ADAPTIVE (as 6.12,
 * for every adaptive PEBS event, even one whose groups are none).
 */
u64 intel_pebs_enable(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 *enabled = this_cpu_ptr(&pebs_enabled);
	u64 config = hwc->config & ~ARCH_PERFMON_EVENTSEL_INT;
	int idx = hwc->idx;

	pebs_set_period(event, idx);
	if (!(hwc->config_base & PEBS_LARGE))
		this_cpu_inc(pebs_small);
	*enabled |= BIT_ULL(idx);
	if (pebs_adaptive) {
		pebs_set_data_cfg();
		config |= ICL_EVENTSEL_ADAPTIVE;
	} else if ((hwc->config_base & PEBS_KIND) == PEBS_LDLAT) {
		*enabled |= BIT_ULL(idx + 32);
	}
	pebs_set_threshold();
	wrmsrl(MSR_IA32_PEBS_ENABLE, *enabled);
	pebs_counters_changed();
	return config;
}

/**
 * intel_pebs_disable - stop the counter of @event writing records
 * @event: a precise event, its counter already disabled
 */
void intel_pebs_disable(struct perf_event *event)
{
	u64 *enabled = this_cpu_ptr(&pebs_enabled);
	int idx = event->hw.idx;

	if (pebs_adaptive)
		*enabled &= ~BIT_ULL(idx);
	else
		*enabled &= ~(BIT_ULL(idx) | BIT_ULL(idx + 32));
	wrmsrl(MSR_IA32_PEBS_ENABLE, *enabled);
	pebs_counters_changed();
	if (!(event->hw.config_base & PEBS_LARGE))
		this_cpu_dec(pebs_small);
	if (pebs_adaptive)
		pebs_set_data_cfg();
	pebs_set_threshold();
}

#define PEBS_SRC(lvl, snoop, num)					\
	(PERF_MEM_S(OP, LOAD) | ((u64)(lvl) << PERF_MEM_LVL_SHIFT) |	\
	 PERF_MEM_S(SNOOP, snoop) | PERF_MEM_S(LVLNUM, num) |		\
	 PERF_MEM_S(BLK, NA))
#define PEBS_HIT(lvl)	(PERF_MEM_LVL_##lvl | PERF_MEM_LVL_HIT)

/*
 * The load latency event's data source encodings (SDM vol. 3, "Data
 * Source Encoding for Load Latency Record"): where the load found its
 * data and what snooping it took
 */
static const u64 pebs_load_sources[16] = {
	[0x0] = PEBS_SRC(PERF_MEM_LVL_MISS, NA, L3),	/* unknown L3 miss */
	[0x1] = PEBS_SRC(PEBS_HIT(L1), NONE, L1),
	[0x2] = PEBS_SRC(PEBS_HIT(LFB), NONE, LFB),
	[0x3] = PEBS_SRC(PEBS_HIT(L2), NONE, L2),
	[0x4] = PEBS_SRC(PEBS_HIT(L3), NONE, L3),
	[0x5] = PEBS_SRC(PEBS_HIT(L3), MISS, L3),	/* another core: clean */
	[0x6] = PEBS_SRC(PEBS_HIT(L3), HIT, L3),
	[0x7] = PEBS_SRC(PEBS_HIT(L3), HITM, L3),
	[0x8] = PEBS_SRC(PEBS_HIT(REM_CCE1), HIT, ANY_CACHE),
	[0x9] = PEBS_SRC(PERF_MEM_LVL_NA, NA, NA),	/* reserved */
	[0xa] = PEBS_SRC(PEBS_HIT(LOC_RAM), HIT, RAM),
	[0xb] = PEBS_SRC(PEBS_HIT(REM_RAM1), HIT, RAM),
	[0xc] = PEBS_SRC(PEBS_HIT(LOC_RAM), NONE, RAM),
	[0xd] = PEBS_SRC(PEBS_HIT(REM_RAM1), NONE, RAM),
	[0xe] = PEBS_SRC(PEBS_HIT(IO), NONE, IO),
	[0xf] = PEBS_SRC(PEBS_HIT(UNC), NONE, UNC),
};

/* the data source encoding's bit 4: the page missed the second DTLB */
#define PEBS_DSE_STLB_MISS	BIT_ULL(4)
#define PEBS_DSE_LOCKED		BIT_ULL(5)
/* a store's bit 0: it hit the L1D */
#define PEBS_DSE_ST_L1_HIT	BIT_ULL(0)
#define PEBS_SRC_NA		(PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) | \
				 PERF_MEM_S(TLB, NA) | PERF_MEM_S(LVLNUM, NA))

/* PERF_SAMPLE_DATA_SRC of a record of an event of @kind */
static u64 pebs_data_source(int kind, u64 dse)
{
	u64 src;

	switch (kind) {
	case PEBS_LDLAT:
		src = pebs_load_sources[dse & 0xf];
		if (dse & PEBS_DSE_STLB_MISS)
			src |= PERF_MEM_S(TLB, L2) | PERF_MEM_S(TLB, MISS);
		else
			src |= PERF_MEM_S(TLB, L1) | PERF_MEM_S(TLB, L2) |
			       PERF_MEM_S(TLB, HIT);
		if (dse & PEBS_DSE_LOCKED)
			src |= PERF_MEM_S(LOCK, LOCKED);
		return src;
	case PEBS_STORE:
		return PERF_MEM_S(OP, STORE) | PERF_MEM_S(LVL, L1) |
		       (dse & PEBS_DSE_ST_L1_HIT ? PERF_MEM_S(LVL, HIT) :
						   PERF_MEM_S(LVL, MISS)) |
		       PEBS_SRC_NA;
	}
	/* the other loads: no source */
	return PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, NA) | PEBS_SRC_NA;
}

/*
 * The registers of a record start as those of the context the PMI
 * interrupted (if any, else none); its IP decides their segments,
 * unless its privilege is the interrupted context's (a compat task's
 * user CS).
 */
static __always_inline void pebs_regs_start(struct pt_regs *regs,
					    struct pt_regs *iregs)
{
	if (iregs)
		*regs = *iregs;
	else
		memset(regs, 0, sizeof(*regs));
}

static __always_inline void pebs_regs_mode(struct pt_regs *regs,
					   struct pt_regs *iregs)
{
	if (iregs && user_mode(iregs) == (regs->ip < TASK_SIZE_MAX))
		return;
	x86_regs_mode_from_ip(regs);
}

/* format 3: the registers after the instruction */
static void pebs_regs_fmt3(struct pt_regs *regs, struct pt_regs *iregs,
			   const struct pebs_record_fmt3 *r, int precise)
{
	pebs_regs_start(regs, iregs);
	regs->flags = r->flags & ~PERF_EFLAGS_EXACT;
	regs->ip = r->ip;
	if (precise > 1) {
		regs->ip = r->real_ip;
		regs->flags |= PERF_EFLAGS_EXACT;
	}
	regs->ax = r->ax;
	regs->bx = r->bx;
	regs->cx = r->cx;
	regs->dx = r->dx;
	regs->si = r->si;
	regs->di = r->di;
	regs->bp = r->bp;
	regs->sp = r->sp;
	regs->r8 = r->r8;
	regs->r9 = r->r9;
	regs->r10 = r->r10;
	regs->r11 = r->r11;
	regs->r12 = r->r12;
	regs->r13 = r->r13;
	regs->r14 = r->r14;
	regs->r15 = r->r15;
	pebs_regs_mode(regs, iregs);
}

/* an adaptive record: its basic group's IP, its GPR group if it has one */
static void pebs_regs_adaptive(struct pt_regs *regs, struct pt_regs *iregs,
			       const struct pebs_basic *b,
			       const struct pebs_gprs *g, int precise)
{
	pebs_regs_start(regs, iregs);
	if (g) {
		regs->flags = g->flags;
		regs->ax = g->ax;
		regs->bx = g->bx;
		regs->cx = g->cx;
		regs->dx = g->dx;
		regs->si = g->si;
		regs->di = g->di;
		regs->bp = g->bp;
		regs->sp = g->sp;
		regs->r8 = g->r8;
		regs->r9 = g->r9;
		regs->r10 = g->r10;
		regs->r11 = g->r11;
		regs->r12 = g->r12;
		regs->r13 = g->r13;
		regs->r14 = g->r14;
		regs->r15 = g->r15;
	}
	regs->flags &= ~PERF_EFLAGS_EXACT;
	regs->ip = b->ip;
	if (precise > 1)
		regs->flags |= PERF_EFLAGS_EXACT;
	else if (g)
		regs->ip = g->ip;
	pebs_regs_mode(regs, iregs);
}

/* what a record says of a memory access: its address, source, latency */
struct pebs_mem {
	u64	addr;
	u64	dse;
	u64	lat;
};

/*
 * The sample of a record of @event (on counter @idx), with the registers
 * @regs, the access @mem (NULL: none recorded), the record's @tsc and
 * branch stack @bs (NULL: the PMI's, if any); @more: not the event's
 * first record in this drain. Inline: a copy for each record format,
 * since the sample path is hot (pebs_sample in benchmarks.rst).
 *
 * The callchain is walked from @iregs, the registers the PMI saved, as
 * in 6.12: @regs, made from the record, are a copy on this stack, not a
 * frame the unwinder can follow (from a return to user space it warned
 * of stack recursion). Large PEBS, drained outside a PMI, never samples
 * callchains; a kernel record of another event drained there (at a
 * switch out) gets only its task's user callchain.
 */
static __always_inline void pebs_output(struct perf_event *event, int idx,
					struct pt_regs *regs,
					struct pt_regs *iregs,
					const struct pebs_mem *mem, u64 tsc,
					struct perf_branch_stack *bs, bool more)
{
	struct hw_perf_event *hwc = &event->hw;
	u64 period = this_cpu_read(pebs_period[idx]);
	u64 type = event->attr.sample_type;
	int kind = hwc->config_base & PEBS_KIND;
	/* filled below: not zeroed first for every record */
	struct perf_sample_data data __uninitialized;

	/* the counter ran from its last value to the wrap, then reloaded */
	x86_perf_event_reloaded(event, period);

	/*
	 * The instruction after a user one that wrapped the counter is the
	 * kernel's after a system call: not for an event that excludes it
	 */
	if (event->attr.exclude_kernel && !user_mode(regs))
		return;
	perf_sample_data_init(&data, 0, period);
	if (mem && kind != PEBS_PLAIN) {
		data.addr = mem->addr;
		data.sample_flags |= PERF_SAMPLE_ADDR;
		if (type & PERF_SAMPLE_DATA_SRC) {
			data.data_src.val = pebs_data_source(kind, mem->dse);
			data.sample_flags |= PERF_SAMPLE_DATA_SRC;
		}
	}
	if (mem && (type & PERF_SAMPLE_WEIGHT_TYPE) && kind == PEBS_LDLAT) {
		data.weight.full = 0;
		if (type & PERF_SAMPLE_WEIGHT_STRUCT)
			data.weight.var1_dw = (u32)mem->lat;
		else
			data.weight.full = mem->lat;
		data.sample_flags |= PERF_SAMPLE_WEIGHT_TYPE;
	}
	/* drained late: when the record was written */
	if ((hwc->config_base & PEBS_LARGE) && (type & PERF_SAMPLE_TIME) &&
	    !event->attr.use_clockid && sched_clock_stable() &&
	    using_native_sched_clock()) {
		data.time = native_sched_clock_from_tsc(tsc) +
			    __sched_clock_offset;
		data.sample_flags |= PERF_SAMPLE_TIME;
	}
	if (bs) {
		data.br_stack = bs;
		data.sample_flags |= PERF_SAMPLE_BRANCH_STACK;
	}
	if ((type & PERF_SAMPLE_CALLCHAIN) && (iregs || !user_mode(regs)))
		perf_sample_save_callchain(&data, event,
					   iregs ?: task_pt_regs(current));
	if (more)
		x86_pmu_report_more(event, &data, regs);
	else
		x86_pmu_report(event, &data, regs);
	/* the core moved a frequency event's period: the next reload's */
	if (hwc->sample_period != period)
		pebs_set_period(event, idx);
}

/* a format 3 record of @event, on counter @idx */
static void pebs_sample_fmt3(struct perf_event *event, int idx,
			     const struct pebs_record_fmt3 *r,
			     struct pt_regs *iregs, bool more)
{
	struct pebs_mem mem = { r->dla, r->dse, r->lat };
	struct pt_regs regs __uninitialized;

	pebs_regs_fmt3(&regs, iregs, r, event->attr.precise_ip);
	pebs_output(event, idx, &regs, iregs, &mem, r->tsc, NULL, more);
}

/* the branch stack of an adaptive record, for this CPU's current sample */
static DEFINE_PER_CPU(u64, pebs_lbr_buf[X86_LBR_BUF_U64]);

/* an adaptive record of @event, on counter @idx */
static void pebs_sample_adaptive(struct perf_event *event, int idx,
				 const struct pebs_basic *b,
				 struct pt_regs *iregs, bool more)
{
	u64 fmt = b->format_group;
	const void *next = b + 1;
	const struct pebs_meminfo *mi = NULL;
	const struct pebs_gprs *gprs = NULL;
	const struct pebs_xmm *xmm = NULL;
	struct perf_branch_stack *bs = NULL;
	struct x86_perf_regs pregs __uninitialized;
	struct pebs_mem mem;

	/* the groups, in the order the SDM lays them out */
	if (fmt & PEBS_DATACFG_MEMINFO) {
		mi = next;
		next = mi + 1;
	}
	if (fmt & PEBS_DATACFG_GP) {
		gprs = next;
		next = gprs + 1;
	}
	if (fmt & PEBS_DATACFG_XMMS) {
		xmm = next;
		next = xmm + 1;
	}
	if ((fmt & PEBS_DATACFG_LBRS) && has_branch_stack(event)) {
		bs = (void *)this_cpu_ptr(pebs_lbr_buf);
		x86_pmu_lbr_decode(bs, next,
				   (fmt >> PEBS_DATACFG_LBR_SHIFT & 0xff) + 1,
				   event->attr.branch_sample_type);
	}
	pebs_regs_adaptive(&pregs.regs, iregs, b, gprs,
			   event->attr.precise_ip);
	pregs.xmm_regs = xmm ? (u64 *)xmm->xmm : NULL;
	if (mi) {
		mem.addr = mi->address;
		mem.dse = mi->aux;
		mem.lat = mi->mem_latency;
	}
	pebs_output(event, idx, &pregs.regs, iregs, mi ? &mem : NULL, b->tsc,
		    bs, more);
}

/**
 * intel_pebs_pending - records wait in this CPU's PEBS buffer
 */
bool intel_pebs_pending(void)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);

	return ds->pebs_index != ds->pebs_buffer_base;
}

/* a sample per record between @at and @end; the counters they were for */
static u64 pebs_drain_records(void *at, void *end, struct pt_regs *iregs)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	u64 counters = this_cpu_read(intel_pebs_counters), drained = 0, bits;
	int bit;

	while (at < end) {
		const struct pebs_record_fmt3 *r = at;
		const struct pebs_basic *b = at;
		u64 status;

		if (pebs_adaptive) {
			/* a record's size is in it: one that lies ends the walk */
			if (b->format_size < pebs_adaptive_size(b->format_group) ||
			    at + b->format_size > end)
				break;
			status = b->applicable_counters & counters;
			at += b->format_size;
		} else {
			status = r->status & counters;
			at += sizeof(*r);
		}
		bits = status;
		x86_for_each_bit(bit, bits) {
			bool more = drained & BIT_ULL(bit);

			if (!(cpuc->active & BIT_ULL(bit)))
				continue;
			if (pebs_adaptive)
				pebs_sample_adaptive(cpuc->events[bit], bit, b,
						     iregs, more);
			else
				pebs_sample_fmt3(cpuc->events[bit], bit, r,
						 iregs, more);
		}
		drained |= status;
	}
	return drained;
}

/**
 * intel_pebs_drain - a sample per record in this CPU's PEBS buffer
 * @iregs: the registers the PMI interrupted; NULL outside the PMI
 *
 * The counters are off. In the PMI of a full buffer; and, so that no
 * record is left to whichever event takes a counter next, before a PEBS
 * event leaves its counter, with IRQs off: a PMI that comes meanwhile
 * leaves the buffer to this drain. A record for a counter whose event
 * was stopped since (throttled by an earlier record) is dropped.
 */
void intel_pebs_drain(struct pt_regs *iregs)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);
	void *at, *end;
	u64 drained;
	int bit;

	if (!ds->pebs_buffer_base || this_cpu_read(pebs_draining))
		return;
	if (!iregs)
		this_cpu_write(pebs_draining, true);
	at = (void *)(unsigned long)ds->pebs_buffer_base;
	end = (void *)(unsigned long)ds->pebs_index;
	ds->pebs_index = ds->pebs_buffer_base;
	drained = pebs_drain_records(at, end, iregs);
	/*
	 * The offset a self-monitoring reader adds to rdpmc moved (the
	 * counters were reloaded from the reset values): once per event
	 */
	for_each_set_bit(bit, (unsigned long *)&drained, X86_PMC_IDX_MAX) {
		if (cpuc->events[bit])
			perf_event_update_userpage_reload(cpuc->events[bit]);
	}
	if (!iregs)
		this_cpu_write(pebs_draining, false);
}

/**
 * intel_pebs_is_adaptive - PEBS records are adaptive (format 4)
 *
 * Return: true where intel_pebs_init() found PEBS_BASELINE.
 */
bool intel_pebs_is_adaptive(void)
{
	return pebs_adaptive;
}

/**
 * intel_pebs_enabled - this CPU's IA32_PEBS_ENABLE, for KVM's switch
 */
u64 intel_pebs_enabled(void)
{
	return pebs_on ? this_cpu_read(pebs_enabled) : 0;
}

/**
 * intel_pebs_cpu_reset - no counter of this CPU writes records
 */
void intel_pebs_cpu_reset(void)
{
	struct debug_store *ds = this_cpu_ptr(&cpu_debug_store);

	if (!pebs_on)
		return;
	this_cpu_write(pebs_enabled, 0);
	this_cpu_write(intel_pebs_counters, 0);
	this_cpu_write(pebs_small, 0);
	wrmsrl(MSR_IA32_PEBS_ENABLE, 0);
	if (pebs_adaptive) {
		this_cpu_write(pebs_data_cfg, 0);
		wrmsrl(MSR_PEBS_DATA_CFG, 0);
	}
	wrmsrl(MSR_CORE_PERF_GLOBAL_OVF_CTRL, GLOBAL_STATUS_BUFFER_OVF);
	/* nothing written before the CPU went down is anyone's now */
	ds->pebs_index = ds->pebs_buffer_base;
	intel_ds_cpu_init();
}

/**
 * intel_pebs_init - use PEBS if the CPU has a record format known here
 * @caps: IA32_PERF_CAPABILITIES
 *
 * Format 3 (Skylake), and format 4 with PEBS_BASELINE (adaptive).
 *
 * Return: the highest precise_ip events may ask for: 3 with PEBS (the
 * eventing IP, and a counter with precise distribution), else 0.
 */
int __init intel_pebs_init(u64 caps)
{
	int fmt = (caps & PERF_CAP_PEBS_FORMAT) >> 8;

	if (!boot_cpu_has(X86_FEATURE_PEBS) || !boot_cpu_has(X86_FEATURE_DTES64))
		return 0;
	if (fmt == 4 && (caps & PERF_CAP_PEBS_BASELINE))
		pebs_adaptive = true;
	else if (fmt != 3)
		return 0;
	pebs_on = true;
	intel_ds_init();
	return 3;
}
