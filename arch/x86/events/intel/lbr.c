// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel last branch records, the legacy kind of the Skylake family (Intel
 * SDM vol. 3, "Last Branch, Call Stack, Interrupt, and Exception
 * Recording"): 32 entries of FROM_IP / TO_IP / LBR_INFO (LBR format 5,
 * PERF_CAPABILITIES[5:0]) at MSR_LBR_NHM_FROM, MSR_LBR_NHM_TO and
 * MSR_LBR_INFO_0, a top-of-stack index (MSR_LBR_TOS) and the filter
 * MSR_LBR_SELECT, whose bits suppress: CPL_EQ_0, CPL_NEQ_0, then the
 * branch kinds, and EN_CALLSTACK, in which a return pops the call it
 * returns from.
 *
 * DEBUGCTL.LBR records; DEBUGCTL.FREEZE_LBRS_ON_PMI freezes the stack
 * when a counter interrupts, until the PMI acknowledges GLOBAL_STATUS
 * (which includes its LBR_FRZ bit), so the PMI reads the branches that
 * led to the overflow, not its own.
 *
 * Also what KVM asks about the host's LBRs.
 */

#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/perf_event.h>
#include <linux/string.h>

#include <asm/debugreg.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

#define LBR_SKL_NR		32

/* MSR_LBR_SELECT beyond the common layout (../perf_event.h) */
#define LBR_SEL_CALL_STACK	BIT_ULL(9)

/* the transaction kinds: no TSX here, they filter nothing */
#define LBR_BST_TX	(PERF_SAMPLE_BRANCH_ABORT_TX |			\
			 PERF_SAMPLE_BRANCH_IN_TX |			\
			 PERF_SAMPLE_BRANCH_NO_TX)
/* the kinds 6.12 refuses beside call-stack mode */
#define LBR_BST_NOT_CS	(PERF_SAMPLE_BRANCH_ANY |			\
			 PERF_SAMPLE_BRANCH_ANY_CALL |			\
			 PERF_SAMPLE_BRANCH_ANY_RETURN |		\
			 PERF_SAMPLE_BRANCH_IND_CALL |			\
			 PERF_SAMPLE_BRANCH_COND | LBR_BST_TX)

static int intel_lbr_select(struct perf_event *event, u64 *sel)
{
	u64 bst = event->attr.branch_sample_type, kinds, stack = 0;
	int err;

	/*
	 * As 6.12 on the model: no branch counters; the call stack with
	 * another kind only for a counting event whose sample_type has
	 * READ (6.12 lets that one through)
	 */
	if (bst & PERF_SAMPLE_BRANCH_COUNTERS)
		return -EINVAL;
	if ((bst & PERF_SAMPLE_BRANCH_CALL_STACK) && (bst & LBR_BST_NOT_CS) &&
	    (is_sampling_event(event) ||
	     !(event->attr.sample_type & PERF_SAMPLE_READ)))
		return -EINVAL;
	err = x86_lbr_kinds(bst & ~LBR_BST_TX, &kinds);
	if (err)
		return err;
	if (bst & PERF_SAMPLE_BRANCH_CALL_STACK) {
		/* calls in, returns out: nothing else may reach the stack */
		kinds = X86_LBR_SEL_REL_CALL | X86_LBR_SEL_IND_CALL |
			X86_LBR_SEL_RETURN;
		stack = LBR_SEL_CALL_STACK;
	}
	*sel = stack | x86_lbr_sel(bst, kinds);
	return 0;
}

static void intel_lbr_enable(u64 sel)
{
	wrmsrl(MSR_LBR_SELECT, sel);
	update_debugctlmsr(get_debugctlmsr() | DEBUGCTLMSR_LBR |
			   DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);
}

static void intel_lbr_disable(void)
{
	update_debugctlmsr(get_debugctlmsr() &
			   ~(DEBUGCTLMSR_LBR | DEBUGCTLMSR_FREEZE_LBRS_ON_PMI));
}

static void intel_lbr_reset(void)
{
	int i;

	for (i = 0; i < LBR_SKL_NR; i++) {
		wrmsrl(MSR_LBR_NHM_FROM + i, 0);
		wrmsrl(MSR_LBR_NHM_TO + i, 0);
		wrmsrl(MSR_LBR_INFO_0 + i, 0);
	}
	wrmsrl(MSR_LBR_TOS, 0);
}

/* a record: LIPs, the flags and cycles in its LBR_INFO */
static void intel_lbr_entry(struct perf_branch_entry *e, u64 from, u64 to,
			    u64 info)
{
	memset(e, 0, sizeof(*e));
	e->from = from;
	e->to = to;
	e->mispred = !!(info & LBR_INFO_MISPRED);
	e->predicted = !(info & LBR_INFO_MISPRED);
	e->in_tx = !!(info & LBR_INFO_IN_TX);
	e->abort = !!(info & LBR_INFO_ABORT);
	e->cycles = info & LBR_INFO_CYCLES;
}

static int intel_lbr_read(struct perf_branch_entry *e, u64 *hw_idx)
{
	u64 tos, from, to, info;
	int i, n = 0;

	rdmsrl(MSR_LBR_TOS, tos);
	*hw_idx = tos & (LBR_SKL_NR - 1);
	for (i = 0; i < LBR_SKL_NR; i++) {
		int idx = (tos - i) & (LBR_SKL_NR - 1);

		rdmsrl(MSR_LBR_NHM_FROM + idx, from);
		rdmsrl(MSR_LBR_NHM_TO + idx, to);
		/* never written since the reset: the stack ends here */
		if (!from && !to)
			break;
		rdmsrl(MSR_LBR_INFO_0 + idx, info);
		intel_lbr_entry(&e[n++], from, to, info);
	}
	return n;
}

/*
 * A task's call stack in call-stack mode is its own: kept while other
 * tasks run, in this order: TOS, the FROMs, the TOs, the INFOs.
 */
#define LBR_STATE_U64	(1 + 3 * LBR_SKL_NR)

static void intel_lbr_save(u64 *regs)
{
	int i;

	rdmsrl(MSR_LBR_TOS, regs[0]);
	for (i = 0; i < LBR_SKL_NR; i++) {
		rdmsrl(MSR_LBR_NHM_FROM + i, regs[1 + i]);
		rdmsrl(MSR_LBR_NHM_TO + i, regs[1 + LBR_SKL_NR + i]);
		rdmsrl(MSR_LBR_INFO_0 + i, regs[1 + 2 * LBR_SKL_NR + i]);
	}
}

static void intel_lbr_restore(const u64 *regs)
{
	int i;

	for (i = 0; i < LBR_SKL_NR; i++) {
		wrmsrl(MSR_LBR_NHM_FROM + i, regs[1 + i]);
		wrmsrl(MSR_LBR_NHM_TO + i, regs[1 + LBR_SKL_NR + i]);
		wrmsrl(MSR_LBR_INFO_0 + i, regs[1 + 2 * LBR_SKL_NR + i]);
	}
	wrmsrl(MSR_LBR_TOS, regs[0]);
}

const struct x86_lbr_ops intel_lbr_skylake = {
	.nr		= LBR_SKL_NR,
	.select		= intel_lbr_select,
	.enable		= intel_lbr_enable,
	.disable	= intel_lbr_disable,
	.reset		= intel_lbr_reset,
	.read		= intel_lbr_read,
	.entry		= intel_lbr_entry,
	.record_hw_idx	= -1ULL,
	.state_u64	= LBR_STATE_U64,
	.save		= intel_lbr_save,
	.restore	= intel_lbr_restore,
};

/**
 * x86_perf_get_lbr - describe the host's LBR stack to KVM
 * @lbr: filled with the number of entries and the first FROM, TO and
 *	INFO MSRs, and whether call-stack mode is available
 *
 * Zeroed when the driver does not use the LBRs: KVM then offers none to
 * its guests.
 */
void x86_perf_get_lbr(struct x86_pmu_lbr *lbr)
{
	memset(lbr, 0, sizeof(*lbr));
	if (x86_pmu_lbr() != &intel_lbr_skylake)
		return;
	lbr->nr = LBR_SKL_NR;
	lbr->from = MSR_LBR_NHM_FROM;
	lbr->to = MSR_LBR_NHM_TO;
	lbr->info = MSR_LBR_INFO_0;
	lbr->has_callstack = true;
}
EXPORT_SYMBOL_GPL(x86_perf_get_lbr);
