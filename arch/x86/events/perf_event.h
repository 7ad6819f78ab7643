/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces private to the x86 PMU drivers in arch/x86/events/.
 *
 * The files of the directory and what each owns are listed once, in
 * Documentation/perf-core/design.rst ("Layout").
 */
#ifndef _ARCH_X86_EVENTS_PERF_EVENT_H
#define _ARCH_X86_EVENTS_PERF_EVENT_H

#include <linux/device.h>
#include <linux/perf_event.h>
#include <linux/sysfs.h>

#include <asm/processor.h>
#include <asm/ptrace.h>
#include <asm/segment.h>

/**
 * struct x86_pmu_hw - what the boot-time detection found
 * @name: human readable name of the PMU, NULL when none was found
 * @version: architectural perfmon version (CPUID.0AH:EAX[7:0]) on Intel;
 *	on AMD 1, or 2 with PerfMonV2
 * @num_counters_gp: number of general-purpose counters
 * @num_counters_fixed: number of fixed-function counters
 * @cntval_bits: width in bits of the general-purpose counters
 * @cntval_bits_fixed: width in bits of the fixed-function counters
 * @events_mask: CPUID.0AH:EBX, a set bit means that architectural event
 *	is NOT available (Intel)
 * @events_mask_len: number of valid bits in @events_mask
 * @anythread_deprecated: CPUID.0AH:EDX[15], the AnyThread bit has no
 *	effect (Intel, from version 5)
 * @registered: a "cpu" PMU driver is registered for this hardware; until
 *	the vendor drivers exist this stays false and every entry point
 *	behaves as on a CPU without PMU
 */
struct x86_pmu_hw {
	const char	*name;
	int		version;
	int		num_counters_gp;
	int		num_counters_fixed;
	int		cntval_bits;
	int		cntval_bits_fixed;
	unsigned int	events_mask;
	int		events_mask_len;
	bool		anythread_deprecated;
	bool		registered;
};

extern struct x86_pmu_hw x86_pmu_hw;

/* Counter indices: general-purpose from 0, fixed from INTEL_PMC_IDX_FIXED */
#define X86_PMU_FIXED(i)	(INTEL_PMC_IDX_FIXED + (i))

/*
 * PERF_TYPE_HW_CACHE: a raw config per (cache, op, result), with 0 for
 * an event the CPU does not have (ENOENT) and X86_CACHE_INVALID for a
 * combination that makes no sense, such as a write to the instruction
 * cache (EINVAL).
 */
#define X86_CACHE_INVALID	((u64)-1)
typedef u64 x86_cache_table_t[PERF_COUNT_HW_CACHE_MAX]
			     [PERF_COUNT_HW_CACHE_OP_MAX]
			     [PERF_COUNT_HW_CACHE_RESULT_MAX];

#define X86_PMU_MAX_GROUPS	8

/**
 * struct x86_cpu_type - the counters of one kind of core, and its PMU
 * @pmu: the PMU of this kind of core ("cpu"; hybrid: "cpu_core" and
 *	"cpu_atom")
 * @name: its name
 * @cntr_mask: its counter indices: general-purpose from 0, fixed from
 *	INTEL_PMC_IDX_FIXED
 * @num_gp: how many general-purpose counters it has
 * @num_fixed: how many fixed counters
 * @td: it has the top-down metrics (fixed counter 3 and PERF_METRICS)
 * @cache_events: PERF_TYPE_HW_CACHE to a raw config, NULL for none
 * @cache_extra: the config1 (extra register value) of each of those
 * @attr_groups: the vendor's sysfs groups of this PMU (events/)
 * @groups: all of its sysfs groups (sysfs.c)
 * @cpus: its CPUs that are up (hybrid only: the PMU's supported_cpus)
 *
 * Every CPU but a hybrid one has one kind, x86_types[0]. On a hybrid
 * CPU each kind's PMU takes the events of its CPUs only: the event of a
 * task running on the other kind does not count meanwhile.
 */
struct x86_cpu_type {
	struct pmu		pmu;
	const char		*name;
	u64			cntr_mask;
	int			num_gp;
	int			num_fixed;
	bool			td;
	const x86_cache_table_t	*cache_events;
	const x86_cache_table_t	*cache_extra;
	const struct attribute_group **attr_groups;
	const struct attribute_group *groups[X86_PMU_MAX_GROUPS];
	cpumask_t		cpus;
	/*
	 * what only a CPU of this kind can say (x86_ops->type_probe(), on
	 * its first CPU up): the depth of its branch stack (0: none) and
	 * its IA32_PERF_CAPABILITIES
	 */
	bool			probed;
	int			lbr_nr;
	u64			caps;
};

/* the kinds of core: 1, or 2 on a hybrid CPU (0: the big core, 1: Atom) */
#define X86_TYPES_MAX		2
extern struct x86_cpu_type x86_types[X86_TYPES_MAX];
extern int x86_nr_types;
/* the kind of this CPU, set as it comes up (x86_pmu_cpu_reset()) */
DECLARE_PER_CPU(struct x86_cpu_type *, x86_this_type);

/* the kind of core an event of the "cpu" PMU (or a hybrid one) counts on */
static inline struct x86_cpu_type *x86_event_type(struct perf_event *event)
{
	return container_of(event->pmu, struct x86_cpu_type, pmu);
}

/* @event is one of the counters' events (not an uncore or software one) */
static inline bool is_x86_cpu_event(struct perf_event *event)
{
	return event->pmu == &x86_types[0].pmu ||
	       (x86_nr_types > 1 && event->pmu == &x86_types[1].pmu);
}

/* a raw event of its PMU: PERF_TYPE_RAW, or the type of a hybrid one */
static inline bool x86_raw_event(struct perf_event *event)
{
	return event->attr.type == PERF_TYPE_RAW ||
	       event->attr.type == event->pmu->type;
}

/* the counter indices of the kind of core this CPU is */
static inline u64 x86_this_cntr_mask(void)
{
	return this_cpu_read(x86_this_type)->cntr_mask;
}

/* the most extra registers a vendor's events use (Intel: intel/extra.c) */
#define X86_EXTRA_MAX		4

/**
 * struct x86_extra_regs - what a set of shared extra registers holds
 * @val: the value each register is programmed with
 * @ref: how many events use each register with that value
 *
 * A register holding one event's value can take another event only if
 * it wants the same value.
 */
struct x86_extra_regs {
	u64	val[X86_EXTRA_MAX];
	int	ref[X86_EXTRA_MAX];
};

/**
 * struct x86_pmu_ops - what a vendor driver tells the "cpu" PMU (pmu.c)
 * @pmu_name: caps/pmu_name in sysfs, NULL for none
 * @raw_mask: the config bits of a PERF_TYPE_RAW event that are kept (the
 *	others are dropped, as by the stock kernel)
 * @format_event: format/event, where the event select is in config
 * @format_attrs: the vendor's files in format/ beyond the event select,
 *	unit mask, edge, inv and cmask that sysfs.c has; NULL-terminated
 * @format_visible: which of @format_attrs exist (NULL: all)
 * @max_period: the longest period a counter can be loaded with
 * @max_precise: the highest attr.precise_ip the driver supports
 * @event_map: PERF_COUNT_HW_* to a raw config, 0 if not supported
 * @cache_events: PERF_TYPE_HW_CACHE to a raw config, NULL for none
 * @cache_extra: the config1 (extra register value) of each of those
 * @event_check: the vendor's checks of an event and its @config (masked
 *	or from a table) that come before the branch stack's and
 *	@hw_config's; 0 or a negative errno; NULL: none
 * @check_period: may a sampling event take @value as its new period
 *	(PERF_EVENT_IOC_PERIOD)? 0 or a negative errno; NULL: any
 * @hw_config: the vendor's checks of an event's @config (masked to
 *	@raw_mask, or from a table) and @config1: the bits it adds back
 *	(AnyThread), its extra register, what precise_ip (at most
 *	@max_precise) needs; 0 or a negative errno
 * @constraint: the mask of counter indices that may count @config
 * @counter: for counter @idx, the MSR that holds its count, its RDPMC
 *	index and its width in bits
 * @enable: start counting on hwc->idx (IRQs off, this CPU)
 * @disable: stop counting on hwc->idx
 * @handle_irq: the PMI: returns the number of counters it handled
 * @hold: stop (@on) or restart every counter of this CPU at once, for
 *	the core's perf_pmu_disable()/perf_pmu_enable(); what @enable and
 *	@disable do meanwhile takes effect at the restart; NULL (or a
 *	no-op where there is no global control): none
 * @cpu_reset: stop and clear every counter of this CPU (bring-up)
 * @cpu_type: the index in x86_types[] of this CPU's kind of core
 *	(hybrid CPUs only)
 * @release: give back what the vendor's checks took for an event
 *	(hw.holds), when it is destroyed or its init failed; NULL: nothing
 * @attr_groups: events/ (sysfs.c adds format/, caps/ and rdpmc)
 * @lbr: the branch stack, if the CPU has one the driver knows
 * @intel: hooks only the Intel driver sets (NULL or false elsewhere)
 * @intel.extra_claim: take the extra register @event needs on this
 *	core: 0, or -EAGAIN when the registers hold other values; NULL: none
 * @intel.extra_put: give back what @intel.extra_claim took on this core
 * @intel.pebs_flush: turn the PEBS records waiting in this CPU's buffer
 *	into samples (IRQs off), before a precise event's count is read
 * @intel.pebs_xmm: a precise event's samples may have the XMM registers
 *	(PERF_PMU_CAP_EXTENDED_REGS)
 * @intel.freq_guess: a frequency-mode event starts from a guess of its
 *	rate, not from a period of 1 (pmu.c, x86_freq_first_period())
 * @intel.td_update: count the top-down events (counter indices from
 *	INTEL_PMC_IDX_FIXED_SLOTS), which share their registers: all of this
 *	CPU's at once; returns the raw value the counter is left with
 * @intel.td_start: a top-down event starts counting
 * @amd: hooks only the AMD driver sets
 * @amd.forward_precise: for an event asking more: -ENOENT with attr.type
 *	naming the PMU that takes it instead (AMD's IBS), or an errno;
 *	NULL: -EOPNOTSUPP
 */
struct x86_pmu_ops {
	const char	*pmu_name;
	u64		raw_mask;
	const char	*format_event;
	struct attribute **format_attrs;
	umode_t		(*format_visible)(struct kobject *kobj,
					  struct attribute *attr, int i);
	u64		max_period;
	int		max_precise;
	u64		(*event_map)(int hw_event);
	const x86_cache_table_t *cache_events;
	const x86_cache_table_t *cache_extra;
	int		(*event_check)(struct perf_event *event, u64 config);
	int		(*check_period)(struct perf_event *event, u64 value);
	int		(*hw_config)(struct perf_event *event, u64 *config,
				     u64 config1);
	u64		(*constraint)(struct perf_event *event, u64 config);
	void		(*counter)(int idx, unsigned long *msr, int *rdpmc,
				   int *bits);
	void		(*enable)(struct perf_event *event);
	void		(*disable)(struct perf_event *event);
	int		(*handle_irq)(struct pt_regs *regs);
	void		(*hold)(bool on);
	void		(*cpu_reset)(void);
	int		(*cpu_type)(void);
	void		(*type_probe)(struct x86_cpu_type *type);
	void		(*release)(struct perf_event *event);
	const struct attribute_group **attr_groups;
	const struct x86_lbr_ops *lbr;
	struct {
		int	(*extra_claim)(struct perf_event *event);
		void	(*extra_put)(struct perf_event *event);
		void	(*pebs_flush)(void);
		bool	pebs_xmm;
		bool	freq_guess;
		u64	(*td_update)(struct perf_event *event);
		void	(*td_start)(struct perf_event *event);
	} intel;
	struct {
		int	(*forward_precise)(struct perf_event *event);
	} amd;
};

/* the deepest branch stack a driver reads */
#define X86_LBR_MAX		32
/* a per-CPU buffer of u64s for a struct perf_branch_stack that deep */
#define X86_LBR_BUF_U64	((sizeof(struct perf_branch_stack) + \
			  X86_LBR_MAX * sizeof(struct perf_branch_entry)) / 8)

/**
 * struct x86_lbr_ops - a vendor's last branch records
 * @nr: depth of the stack
 * @no_flags_predicted: a record's predicted flag under
 *	PERF_SAMPLE_BRANCH_NO_FLAGS (6.12's architectural LBRs keep it set)
 * @select: the hardware filter for an event's branch_sample_type (which
 *	the core has given privilege bits); -EOPNOTSUPP for what it cannot
 *	do, -EINVAL for what 6.12 refuses
 * @enable: start recording with that filter, frozen on each PMI
 * @disable: stop recording
 * @reset: empty the stack
 * @read: copy the stack, newest first, into @e; returns the entries
 *	copied and sets @hw_idx to the hardware's index of the newest.
 *	Called in the PMI, before the freeze is lifted.
 * @entry: decode one record (its FROM, TO and INFO values) into @e
 * @record_hw_idx: the hw_idx of a stack taken from a PEBS record (and of
 *	the architectural LBRs' registers, which have no top of stack)
 * @state_u64: the size of what @save keeps, in u64s; 0 for a stack
 *	without call-stack mode (nothing to keep for a task)
 * @save: copy the stack's registers to @regs, for a task switched out
 * @restore: load them back, for the task coming back in
 */
struct x86_lbr_ops {
	int	nr;
	bool	no_flags_predicted;
	int	(*select)(struct perf_event *event, u64 *sel);
	void	(*enable)(u64 sel);
	void	(*disable)(void);
	void	(*reset)(void);
	int	(*read)(struct perf_branch_entry *e, u64 *hw_idx);
	void	(*entry)(struct perf_branch_entry *e, u64 from, u64 to,
			 u64 info);
	u64	record_hw_idx;
	int	state_u64;
	void	(*save)(u64 *regs);
	void	(*restore)(const u64 *regs);
};

/**
 * struct cpu_hw_events - the counters of one CPU
 * @events: the event on each counter index
 * @used: indices given to events (added, maybe stopped)
 * @active: indices counting now: the PMI handles only these
 * @dirty: indices whose last event was taken off: they hold its count
 *	until x86_pmu_clear_dirty() or a new event overwrites them
 * @lbr_users: events using the branch stack
 * @lbr_sel: their common hardware filter
 * @lbr_bst: their common branch_sample_type
 * @lbr_cs_ctx: the task context whose call-stack events
 *	(PERF_ATTACH_SCHED_CB) are on: only its own stack is saved and
 *	restored
 * @lbr_cs_users: how many of those are on
 */
struct cpu_hw_events {
	struct perf_event	*events[X86_PMC_IDX_MAX];
	u64			used;
	u64			active;
	u64			dirty;
	int			lbr_users;
	u64			lbr_sel;
	u64			lbr_bst;
	void			*lbr_cs_ctx;
	int			lbr_cs_users;
};

DECLARE_PER_CPU(struct cpu_hw_events, cpu_hw_events);

/*
 * Each set bit of the u64 @mask, lowest first, into @bit; @mask is used
 * up. The PMI and the PEBS drain walk a mask of one or two bits per
 * record, where for_each_set_bit()'s generic search costs three times
 * as much (benchmarks.rst).
 */
#define x86_for_each_bit(bit, mask)					\
	for (; (mask) && ((bit) = __ffs64(mask), true); (mask) &= (mask) - 1)

int x86_pmu_register(const struct x86_pmu_ops *ops);
void x86_pmu_cpu_reset(void);
u64 x86_pmu_event_map(int hw_event);
u64 x86_perf_event_update(struct perf_event *event);
bool x86_perf_event_set_period(struct perf_event *event);
bool x86_pmu_overflow(struct perf_event *event, struct pt_regs *regs);
void x86_pmu_report(struct perf_event *event, struct perf_sample_data *data,
		    struct pt_regs *regs);
void x86_pmu_report_more(struct perf_event *event,
			 struct perf_sample_data *data, struct pt_regs *regs);
void x86_perf_event_reloaded(struct perf_event *event, u64 period);

/*
 * A sample's registers whose IP the hardware recorded (PEBS, IBS): the
 * segments of that IP's privilege level, for the record's misc bits
 */
static inline void x86_regs_mode_from_ip(struct pt_regs *regs)
{
	if (regs->ip >= TASK_SIZE_MAX) {
		regs->cs = __KERNEL_CS;
		regs->ss = __KERNEL_DS;
	} else {
		regs->cs = __USER_CS;
		regs->ss = __USER_DS;
	}
}

void x86_pmu_lbr_take(struct cpu_hw_events *cpuc);
void x86_pmu_lbr_decode(struct perf_branch_stack *bs,
			const struct lbr_entry *raw, int n, u64 bst);

/**
 * x86_pmu_lbr_read - take this CPU's branch stack for the PMI's samples
 *
 * Called by the vendor's handle_irq before it lifts the freeze. The
 * entries go straight into the per-CPU buffer the samples point to: a
 * stack array would be zeroed on entry (INIT_STACK_ALL_ZERO), 768 bytes
 * in every PMI. Inline: most PMIs have no branch stack to take.
 */
static inline void x86_pmu_lbr_read(void)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);

	if (cpuc->lbr_users)
		x86_pmu_lbr_take(cpuc);
}

void x86_pmu_clear_dirty(void);
const struct x86_lbr_ops *x86_pmu_lbr(void);

/* LBR_SELECT (Intel and AMD): a set bit suppresses */
#define X86_LBR_SEL_KERNEL	BIT_ULL(0)	/* branches ending in ring 0 */
#define X86_LBR_SEL_USER	BIT_ULL(1)	/* ... in rings 1-3 */
#define X86_LBR_SEL_JCC		BIT_ULL(2)
#define X86_LBR_SEL_REL_CALL	BIT_ULL(3)
#define X86_LBR_SEL_IND_CALL	BIT_ULL(4)
#define X86_LBR_SEL_RETURN	BIT_ULL(5)
#define X86_LBR_SEL_IND_JMP	BIT_ULL(6)
#define X86_LBR_SEL_REL_JMP	BIT_ULL(7)
#define X86_LBR_SEL_FAR		BIT_ULL(8)
#define X86_LBR_SEL_KINDS	GENMASK_ULL(8, 2)
int x86_lbr_kinds(u64 branch_sample_type, u64 *kinds);
u64 x86_lbr_sel(u64 branch_sample_type, u64 kinds);
int x86_lbr_snapshot(struct perf_branch_entry *entries, unsigned int cnt);
int x86_branch_type(u64 from, u64 to);

extern const x86_cache_table_t intel_skl_cache_events;
extern const x86_cache_table_t intel_skl_cache_extra;
extern x86_cache_table_t intel_icl_cache_events;
void intel_icl_cache_init(void);
extern const x86_cache_table_t intel_spr_cache_events;
extern const x86_cache_table_t intel_spr_cache_extra;
extern const x86_cache_table_t intel_grt_cache_events;
extern const x86_cache_table_t intel_grt_cache_extra;
extern const x86_cache_table_t amd_zen_cache_events;

void intel_extra_init(bool spr, bool hybrid);
int intel_extra_config(struct perf_event *event, u64 config, u64 config1);
int intel_extra_claim(struct perf_event *event);
void intel_extra_put(struct perf_event *event);
void intel_extra_enable(struct perf_event *event);

/* Intel DS area and PEBS (intel/ds.c, intel/pebs.c) */
void intel_ds_init(void);
void intel_ds_cpu_init(void);
int intel_ds_get(unsigned int record);
void intel_ds_put(void);
void *intel_ds_bts_buffer(void);
int intel_ds_bts_get(void);
void intel_ds_bts_put(void);
int intel_pebs_init(u64 caps);
int intel_pebs_config(struct perf_event *event, u64 *config);
u64 intel_pebs_enable(struct perf_event *event);
void intel_pebs_disable(struct perf_event *event);
void intel_pebs_drain(struct pt_regs *iregs);
bool intel_pebs_pending(void);
u64 intel_pebs_enabled(void);
/*
 * The PEBS counters of this CPU that a record's status bits may name:
 * their overflow bits are records, not PMIs. Kept up to date as PEBS
 * counters come and go, so that the PMI reads it and calls nothing.
 */
DECLARE_PER_CPU(u64, intel_pebs_counters);
bool intel_pebs_is_adaptive(void);
void intel_pebs_cpu_reset(void);

/**
 * struct bts_record - a branch trace store record (64-bit DS format)
 * @from: the address of the branch (or of the interrupted instruction)
 * @to: its target (or the handler's first instruction)
 * @flags: bit 4: the branch was predicted, where the CPU reports it
 */
struct bts_record {
	u64	from;
	u64	to;
	u64	flags;
};

/*
 * Intel branch trace store (intel/bts.c, intel/bts_aux.c). The PMI comes
 * BTS_PMI_SLACK records before a buffer is full: the CPU goes on storing
 * until the NMI is taken, and with BTINT stores nothing past the
 * absolute maximum.
 */
#define BTS_PMI_SLACK	64
void intel_bts_init(void);
int intel_bts_config(struct perf_event *event);
void intel_bts_enable(struct perf_event *event);
void intel_bts_disable(struct perf_event *event);
int intel_bts_pmi(struct pt_regs *regs);
void intel_bts_cpu_reset(void);
u64 intel_bts_debugctl(struct perf_event *event);
u64 intel_bts_stop_hw(void);
void intel_bts_start_hw(u64 bits);
int intel_bts_aux_pmi(void);
/* an intel_bts stretch is open on this CPU and DEBUGCTL stores */
DECLARE_PER_CPU(bool, intel_bts_aux_tracing);

/*
 * Intel PT (intel/pt*.c): the ToPA PMI, GLOBAL_STATUS bit 55; whether its
 * events may exist beside LBR and BTS users (intel/core.c)
 */
void intel_pt_interrupt(void);
extern bool intel_lbr_pt_coexist;

/**
 * enum x86_excl_kind - users of the branch hardware that exclude each
 *	other (excl.c)
 * @X86_EXCL_BRANCH: branch stack events and the legacy BTS event
 * @X86_EXCL_TRACE: intel_bts events
 * @X86_EXCL_PT: intel_pt events, where they cannot be beside the others
 * @X86_EXCL_NR: the number of kinds
 */
enum x86_excl_kind {
	X86_EXCL_BRANCH,
	X86_EXCL_TRACE,
	X86_EXCL_PT,
	X86_EXCL_NR,
};

int x86_excl_get(enum x86_excl_kind kind);
void x86_excl_put(enum x86_excl_kind kind);

/* hw.holds of a "cpu" event: what x86_pmu_event_destroy() gives back */
#define X86_HOLDS_BRANCH	BIT(0)	/* an X86_EXCL_BRANCH user */
#define X86_HOLDS_PEBS		BIT(1)	/* intel_ds_get() */
#define X86_HOLDS_BTS		BIT(2)	/* intel_ds_bts_get() */

/* Intel top-down metrics (intel/topdown.c): the level 1 metrics' indices */
#define INTEL_TD_METRIC_IDX_MASK \
	GENMASK_ULL(INTEL_PMC_IDX_TD_MEM_BOUND, INTEL_PMC_IDX_TD_RETIRING)
extern bool intel_td;
bool intel_td_init(u64 caps, int num_fixed, int metrics);
u64 intel_td_constraint(struct perf_event *event, u64 config);
int intel_td_config(struct perf_event *event, u64 config);
void intel_td_counter(int idx, unsigned long *msr, int *rdpmc, int *bits);
u64 intel_td_update(struct perf_event *event);
void intel_td_start(struct perf_event *event);
u64 intel_td_pmi(u64 status);

extern const struct x86_lbr_ops intel_lbr_skylake;
const struct x86_lbr_ops *intel_arch_lbr_init(u64 caps);
int intel_arch_lbr_depth(void);
extern struct x86_lbr_ops amd_lbr_v2;
int amd_lbr_init(void);

/*
 * Intel's events/ (intel/core.c): the architectural events come first,
 * INTEL_ARCH_EVENT_ATTRS of them; hybrid CPUs (intel/hybrid.c)
 */
#define INTEL_ARCH_EVENT_ATTRS	7
extern struct attribute *intel_event_attrs[];
bool intel_arch_event_visible(int i);
/* freeze_on_smi (intel/smi.c) */
extern const struct attribute_group intel_smi_group;
void intel_smi_cpu_reset(void);
bool intel_hybrid_init(struct x86_pmu_ops *ops);

#ifdef CONFIG_CPU_SUP_INTEL
int intel_pmu_init(void);
#else
static inline int intel_pmu_init(void)
{
	return -ENODEV;
}
#endif

#ifdef CONFIG_CPU_SUP_AMD
int amd_pmu_init(void);
#else
static inline int amd_pmu_init(void)
{
	return -ENODEV;
}
#endif

/* Vendor detection: fill @hw and return 0, or -ENODEV when absent. */
#ifdef CONFIG_CPU_SUP_INTEL
int intel_pmu_detect(struct x86_pmu_hw *hw);
#else
static inline int intel_pmu_detect(struct x86_pmu_hw *hw)
{
	return -ENODEV;
}
#endif

#ifdef CONFIG_CPU_SUP_AMD
int amd_pmu_detect(struct x86_pmu_hw *hw);
#else
static inline int amd_pmu_detect(struct x86_pmu_hw *hw)
{
	return -ENODEV;
}
#endif

/**
 * struct x86_freerun_pmu - a PMU of free-running counters (freerun.c)
 * @pmu: the PMU; its add/del/start/stop/read are the x86_freerun_*()
 * @snapshot: optional: for an event whose register holds a reading, not
 *	a count, store the reading in *@val and return true
 */
struct x86_freerun_pmu {
	struct pmu	pmu;
	bool		(*snapshot)(struct perf_event *event, u64 *val);
};

int x86_freerun_add(struct perf_event *event, int flags);
void x86_freerun_del(struct perf_event *event, int flags);
void x86_freerun_start(struct perf_event *event, int flags);
void x86_freerun_stop(struct perf_event *event, int flags);
void x86_freerun_read(struct perf_event *event);

/**
 * union x86_event_config - the fields of an event select (PERFEVTSEL)
 *
 * Intel SDM vol. 3 and AMD APM vol. 2: event select 7:0 (AMD: also
 * 35:32), unit mask 15:8, USR, OS, edge, pin control, INT, AnyThread,
 * EN, invert, counter mask 31:24, and AMD's GuestOnly (40) and HostOnly
 * (41).
 * @bits: the fields
 * @value: the whole select
 */
union x86_event_config {
	struct {
		u64	event:8,
			umask:8,
			usr:1,
			os:1,
			edge:1,
			pc:1,
			interrupt:1,
			any:1,
			en:1,
			inv:1,
			cmask:8,
			event2:4,
			__reserved1:4,
			go:1,
			ho:1;
	} bits;
	u64 value;
};

/*
 * X86_CONFIG - a raw config from named fields, for kernel users of raw
 * events (resctrl's pseudo-locking): X86_CONFIG(.event = 0xd1,
 * .umask = 0x10).
 */
#define X86_CONFIG(args...) (((union x86_event_config){ .bits = { args } }).value)

/*
 * The "cpu" PMU (pmu.c) and the files that do its other jobs: the branch
 * stack users (branch_stack.c), rdpmc and the control page (userpage.c),
 * sysfs (sysfs.c)
 */
extern const struct x86_pmu_ops *x86_ops;
#define x86_cpu_pmu		(x86_types[0].pmu)

/* hwc->flags holds the width of the event's counter, in bits */
static inline int x86_counter_bits(struct hw_perf_event *hwc)
{
	return hwc->flags;
}

/* branch_stack.c; x86_lbr_valid: the stack the PMI read is this PMI's */
DECLARE_PER_CPU(bool, x86_lbr_valid);
bool x86_lbr_fits(struct cpu_hw_events *cpuc, struct perf_event *event);
void x86_lbr_add(struct cpu_hw_events *cpuc, struct perf_event *event);
void x86_lbr_del(struct cpu_hw_events *cpuc, struct perf_event *event);
void __x86_pmu_add_branches(struct perf_event *event,
			    struct perf_sample_data *data);

/* the PMI's branch stack into a sample of an event that asked for one */
static inline void x86_pmu_add_branches(struct perf_event *event,
					struct perf_sample_data *data)
{
	if (has_branch_stack(event))
		__x86_pmu_add_branches(event, data);
}
void x86_lbr_sched_task(struct perf_event_context *ctx, bool sched_in);
size_t x86_lbr_task_size(const struct x86_lbr_ops *lbr);

/* userpage.c */
void x86_pmu_event_mapped(struct perf_event *event, struct mm_struct *mm);
void x86_pmu_event_unmapped(struct perf_event *event, struct mm_struct *mm);
int x86_pmu_event_idx(struct perf_event *event);
extern const struct attribute_group x86_rdpmc_group;

/* sysfs.c */
int x86_pmu_sysfs_init(const struct x86_pmu_ops *ops,
		       struct x86_cpu_type *type);

/**
 * struct x86_pmu_pmi - the PMI handler as Xen PV sees it
 * @handle_irq: handle the counters' overflows; returns how many it handled
 *
 * A Xen PV guest gets its PMU interrupt as an event channel, not an NMI,
 * and arch/x86/xen/pmu.c calls x86_pmu.handle_irq() with the registers
 * the hypervisor saved. Until a vendor driver registers, it handles none.
 */
struct x86_pmu_pmi {
	int	(*handle_irq)(struct pt_regs *regs);
};

extern struct x86_pmu_pmi x86_pmu;

#endif /* _ARCH_X86_EVENTS_PERF_EVENT_H */
