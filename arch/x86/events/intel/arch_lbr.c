// SPDX-License-Identifier: GPL-2.0-only
/*
 * Architectural last branch records (Intel SDM vol. 3, "Last Branch
 * Records", CPUID leaf 0x1C): IA32_LBR_CTL turns recording on (LBREn)
 * and filters it, by privilege level (OS, USR) and by branch kind, with
 * bits that let a kind through (the legacy LBR_SELECT's suppress);
 * IA32_LBR_DEPTH sets how many records are kept, and writing it empties
 * them. Record 0 is the newest (there is no top-of-stack index: hw_idx
 * is always 0): each branch moves the others down. IA32_LBR_x_INFO holds
 * the branch's kind (reported without TYPE_SAVE too, as 6.12 does),
 * whether it was mispredicted and the cycles since the previous record.
 * Under NO_FLAGS the records still say predicted, as 6.12's do.
 *
 * DEBUGCTL.FREEZE_LBRS_ON_PMI freezes the records when a counter
 * interrupts, as with the legacy LBRs, until the PMI acknowledges
 * GLOBAL_STATUS.LBR_FRZ.
 *
 * A task's call stack (call-stack mode) is kept across its switches by
 * reading and writing the records' MSRs; the XSAVES component of LBR
 * state is not used.
 */

#include <linux/bitops.h>
#include <linux/perf_event.h>
#include <linux/string.h>

#include <asm/cpufeature.h>
#include <asm/debugreg.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

/* IA32_LBR_CTL's branch kinds, from ARCH_LBR_CTL_FILTER_OFFSET */
#define ALBR_JCC		BIT_ULL(16)
#define ALBR_REL_JMP		BIT_ULL(17)
#define ALBR_IND_JMP		BIT_ULL(18)
#define ALBR_REL_CALL		BIT_ULL(19)
#define ALBR_IND_CALL		BIT_ULL(20)
#define ALBR_RET		BIT_ULL(21)
#define ALBR_OTHER		BIT_ULL(22)
#define ALBR_OS			BIT_ULL(1)
#define ALBR_USR		BIT_ULL(2)

/* each LBR_SELECT kind bit (../perf_event.h) and the LBR_CTL bit it is */
static const struct {
	u64	sel;
	u64	ctl;
} albr_kinds[] = {
	{ X86_LBR_SEL_JCC,	ALBR_JCC },
	{ X86_LBR_SEL_REL_CALL,	ALBR_REL_CALL },
	{ X86_LBR_SEL_IND_CALL,	ALBR_IND_CALL },
	{ X86_LBR_SEL_RETURN,	ALBR_RET },
	{ X86_LBR_SEL_IND_JMP,	ALBR_IND_JMP },
	{ X86_LBR_SEL_REL_JMP,	ALBR_REL_JMP },
	{ X86_LBR_SEL_FAR,	ALBR_OTHER },
};

/* the boot CPU's depth: the most any CPU's stack is given */
static int albr_depth __ro_after_init;
static bool albr_call_stack __ro_after_init;
static bool albr_mispred __ro_after_init;
static bool albr_cycles __ro_after_init;
static bool albr_br_type __ro_after_init;
/* the hw_idx of every stack: no top of stack (see intel_arch_lbr_init()) */
static u64 albr_hw_idx __ro_after_init;

static int intel_albr_select(struct perf_event *event, u64 *ctl)
{
	u64 bst = event->attr.branch_sample_type, kinds;
	int err, i;

	/*
	 * As 6.12 on architectural LBRs: no branch counters (CPUID 0x1C
	 * ECX[19:16] is not read), no call stack of every branch, and the
	 * transaction kinds (no TSX) open, filtering nothing
	 */
	if ((bst & PERF_SAMPLE_BRANCH_COUNTERS) ||
	    ((bst & PERF_SAMPLE_BRANCH_CALL_STACK) &&
	     (bst & PERF_SAMPLE_BRANCH_ANY)))
		return -EINVAL;
	bst &= ~(PERF_SAMPLE_BRANCH_ABORT_TX | PERF_SAMPLE_BRANCH_IN_TX |
		 PERF_SAMPLE_BRANCH_NO_TX);
	err = x86_lbr_kinds(bst, &kinds);
	if (err)
		return err;
	*ctl = 0;
	if (bst & PERF_SAMPLE_BRANCH_CALL_STACK) {
		if (!albr_call_stack)
			return -EOPNOTSUPP;
		/* calls in, returns out: nothing else may reach the stack */
		kinds = X86_LBR_SEL_REL_CALL | X86_LBR_SEL_IND_CALL |
			X86_LBR_SEL_RETURN;
		*ctl |= ARCH_LBR_CTL_STACK;
	}
	for (i = 0; i < ARRAY_SIZE(albr_kinds); i++)
		if (kinds & albr_kinds[i].sel)
			*ctl |= albr_kinds[i].ctl;
	if (bst & PERF_SAMPLE_BRANCH_KERNEL)
		*ctl |= ALBR_OS;
	if (bst & PERF_SAMPLE_BRANCH_USER)
		*ctl |= ALBR_USR;
	return 0;
}

static void intel_albr_enable(u64 ctl)
{
	update_debugctlmsr(get_debugctlmsr() | DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);
	wrmsrl(MSR_ARCH_LBR_CTL, ctl | ARCH_LBR_CTL_LBREN);
}

static void intel_albr_disable(void)
{
	wrmsrl(MSR_ARCH_LBR_CTL, 0);
	update_debugctlmsr(get_debugctlmsr() & ~DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);
}

/* this CPU's depth: its kind of core's (a hybrid CPU's kinds may differ) */
static inline int albr_cpu_depth(void)
{
	return __this_cpu_read(x86_this_type)->lbr_nr;
}

static void intel_albr_reset(void)
{
	int depth = albr_cpu_depth();

	if (depth)
		wrmsrl(MSR_ARCH_LBR_DEPTH, depth);
}

/* IA32_LBR_x_INFO's branch kinds (bits 59:56) */
enum {
	ALBR_TYPE_JCC,
	ALBR_TYPE_IND_JMP,
	ALBR_TYPE_REL_JMP,
	ALBR_TYPE_IND_CALL,
	ALBR_TYPE_REL_CALL,
	ALBR_TYPE_RET,
};

/* the PERF_BR_* kind a record's INFO gives; a far transfer decoded */
static int intel_albr_type(u64 info, u64 from, u64 to)
{
	switch ((info & LBR_INFO_BR_TYPE) >> LBR_INFO_BR_TYPE_OFFSET) {
	case ALBR_TYPE_JCC:
		return PERF_BR_COND;
	case ALBR_TYPE_IND_JMP:
		return PERF_BR_IND;
	case ALBR_TYPE_REL_JMP:
		return PERF_BR_UNCOND;
	case ALBR_TYPE_IND_CALL:
		return PERF_BR_IND_CALL;
	case ALBR_TYPE_REL_CALL:
		return PERF_BR_CALL;
	case ALBR_TYPE_RET:
		return PERF_BR_RET;
	}
	return x86_branch_type(from, to);
}

/* a record: the flags and cycles CPUID 0x1C says it has */
static void intel_albr_entry(struct perf_branch_entry *e, u64 from, u64 to,
			     u64 info)
{
	memset(e, 0, sizeof(*e));
	e->from = from;
	e->to = to;
	if (albr_mispred) {
		e->mispred = !!(info & LBR_INFO_MISPRED);
		e->predicted = !(info & LBR_INFO_MISPRED);
	}
	if (albr_cycles && (info & LBR_INFO_CYC_CNT_VALID))
		e->cycles = info & LBR_INFO_CYCLES;
	/* the kind is there even without TYPE_SAVE, as in 6.12 */
	if (albr_br_type)
		e->type = intel_albr_type(info, from, to);
}

static int intel_albr_read(struct perf_branch_entry *e, u64 *hw_idx)
{
	u64 from, to, info;
	int i, n = 0;

	*hw_idx = albr_hw_idx;
	for (i = 0; i < albr_cpu_depth(); i++) {
		rdmsrl(MSR_ARCH_LBR_FROM_0 + i, from);
		rdmsrl(MSR_ARCH_LBR_TO_0 + i, to);
		/* never written since the reset: the stack ends here */
		if (!from && !to)
			break;
		rdmsrl(MSR_ARCH_LBR_INFO_0 + i, info);
		intel_albr_entry(&e[n++], from, to, info);
	}
	return n;
}

/*
 * a task's records in call-stack mode: the FROMs, the TOs, the INFOs, in
 * rows of the boot CPU's depth; a shallower CPU's rows end in zeros, so
 * that a deeper one restores no stale records past them
 */
static void intel_albr_save(u64 *regs)
{
	int i, depth = albr_cpu_depth();

	for (i = 0; i < depth; i++) {
		rdmsrl(MSR_ARCH_LBR_FROM_0 + i, regs[i]);
		rdmsrl(MSR_ARCH_LBR_TO_0 + i, regs[albr_depth + i]);
		rdmsrl(MSR_ARCH_LBR_INFO_0 + i, regs[2 * albr_depth + i]);
	}
	for (; i < albr_depth; i++)
		regs[i] = regs[albr_depth + i] = regs[2 * albr_depth + i] = 0;
}

static void intel_albr_restore(const u64 *regs)
{
	int i, depth = albr_cpu_depth();

	for (i = 0; i < depth; i++) {
		wrmsrl(MSR_ARCH_LBR_FROM_0 + i, regs[i]);
		wrmsrl(MSR_ARCH_LBR_TO_0 + i, regs[albr_depth + i]);
		wrmsrl(MSR_ARCH_LBR_INFO_0 + i, regs[2 * albr_depth + i]);
	}
}

static struct x86_lbr_ops intel_lbr_arch __ro_after_init = {
	.no_flags_predicted = true,
	.select		= intel_albr_select,
	.enable		= intel_albr_enable,
	.disable	= intel_albr_disable,
	.reset		= intel_albr_reset,
	.read		= intel_albr_read,
	.entry		= intel_albr_entry,
	.save		= intel_albr_save,
	.restore	= intel_albr_restore,
};

/**
 * intel_arch_lbr_init - the architectural LBRs, if this CPU has them
 *
 * @caps: IA32_PERF_CAPABILITIES
 *
 * Uses the deepest depth CPUID leaf 0x1C offers up to X86_LBR_MAX; the
 * driver needs CPL and branch filtering. Without a top of stack the
 * newest record is always 0, and hw_idx says so; but where PEBS is
 * adaptive (PEBS_BASELINE), 6.12 reports no index (-1), from the PMI
 * as from a record.
 *
 * Return: their operations, or NULL.
 */
/*
 * The deepest stack this CPU offers (CPUID 0x1C) up to @max entries, or 0
 * where it lacks what the driver needs (CPL and branch filtering)
 */
static int albr_cpuid_depth(int max, union cpuid28_ebx *ebx,
			    union cpuid28_ecx *ecx)
{
	union cpuid28_eax eax;
	unsigned int edx;

	cpuid(0x1c, &eax.full, &ebx->full, &ecx->full, &edx);
	if (!ebx->split.lbr_cpl || !ebx->split.lbr_filter)
		return 0;
	return 8 * fls(eax.split.lbr_depth_mask & GENMASK(max / 8 - 1, 0));
}

/**
 * intel_arch_lbr_depth - this CPU's depth of architectural LBRs
 *
 * For the first CPU of each kind of core on a hybrid CPU: CPUID 0x1C
 * describes the core that executes it. The deepest depth the core offers
 * within the boot CPU's, which sized the buffers; its other capabilities
 * (call stack, flags) are taken to be the boot CPU's.
 *
 * Return: the depth, or 0 for no branch stack on this kind of core.
 */
int intel_arch_lbr_depth(void)
{
	union cpuid28_ebx ebx;
	union cpuid28_ecx ecx;

	return albr_depth ? albr_cpuid_depth(albr_depth, &ebx, &ecx) : 0;
}

const struct x86_lbr_ops * __init intel_arch_lbr_init(u64 caps)
{
	union cpuid28_ebx ebx;
	union cpuid28_ecx ecx;
	u64 sel;

	if (!boot_cpu_has(X86_FEATURE_ARCH_LBR))
		return NULL;
	/* the deepest the CPU offers that the branch stack buffer holds */
	albr_depth = albr_cpuid_depth(X86_LBR_MAX, &ebx, &ecx);
	if (!albr_depth)
		return NULL;
	albr_mispred = ecx.split.lbr_mispred;
	albr_cycles = ecx.split.lbr_timed_lbr;
	albr_br_type = ecx.split.lbr_br_type;
	intel_lbr_arch.nr = albr_depth;
	albr_hw_idx = caps & PERF_CAP_PEBS_BASELINE ? -1ULL : 0;
	intel_lbr_arch.record_hw_idx = albr_hw_idx;
	albr_call_stack = ebx.split.lbr_call_stack;
	if (albr_call_stack)
		intel_lbr_arch.state_u64 = 3 * albr_depth;
	/* the depth must be one the CPU takes: it empties the records */
	if (wrmsrl_safe(MSR_ARCH_LBR_DEPTH, albr_depth) ||
	    rdmsrl_safe(MSR_ARCH_LBR_CTL, &sel)) {
		albr_depth = 0;
		return NULL;
	}
	return &intel_lbr_arch;
}
