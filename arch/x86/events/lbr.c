// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the Intel and AMD branch stacks share: their filter registers
 * (MSR_LBR_SELECT, MSR_AMD64_LBR_SELECT) have one layout, bits that
 * suppress: branches ending in ring 0, in rings 1-3, then the kinds.
 */

#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>
#include <linux/string.h>

#include "perf_event.h"

/* branch_sample_type bits that are not branch kinds */
#define BST_NOT_KINDS	(PERF_SAMPLE_BRANCH_PLM_ALL |			\
			 PERF_SAMPLE_BRANCH_NO_FLAGS |			\
			 PERF_SAMPLE_BRANCH_NO_CYCLES |			\
			 PERF_SAMPLE_BRANCH_TYPE_SAVE |			\
			 PERF_SAMPLE_BRANCH_HW_INDEX |			\
			 PERF_SAMPLE_BRANCH_PRIV_SAVE)

/* each requested kind: the hardware kinds it lets through */
static const struct {
	u64	bst;
	u64	kinds;
} lbr_kinds[] = {
	{ PERF_SAMPLE_BRANCH_ANY,	X86_LBR_SEL_KINDS },
	{ PERF_SAMPLE_BRANCH_ANY_CALL,	X86_LBR_SEL_REL_CALL |
					X86_LBR_SEL_IND_CALL | X86_LBR_SEL_FAR },
	{ PERF_SAMPLE_BRANCH_ANY_RETURN, X86_LBR_SEL_RETURN |
					 X86_LBR_SEL_FAR },
	{ PERF_SAMPLE_BRANCH_IND_CALL,	X86_LBR_SEL_IND_CALL },
	{ PERF_SAMPLE_BRANCH_COND,	X86_LBR_SEL_JCC },
	{ PERF_SAMPLE_BRANCH_IND_JUMP,	X86_LBR_SEL_IND_JMP },
	{ PERF_SAMPLE_BRANCH_CALL,	X86_LBR_SEL_REL_CALL },
};

/**
 * x86_lbr_kinds - the LBR_SELECT kinds a branch_sample_type asks for
 * @bst: the event's branch_sample_type
 * @kinds: set to the kind bits to let through (LBR_SELECT positions)
 *
 * Shared by the Intel and AMD branch stacks, whose filters have the
 * same layout. Return: 0, or -EOPNOTSUPP for a request they cannot
 * filter (transactions, call-stack mode is the caller's).
 */
int x86_lbr_kinds(u64 bst, u64 *kinds)
{
	u64 rest = bst & ~(BST_NOT_KINDS | PERF_SAMPLE_BRANCH_CALL_STACK);
	int i;

	*kinds = 0;
	for (i = 0; i < ARRAY_SIZE(lbr_kinds); i++) {
		if (rest & lbr_kinds[i].bst) {
			*kinds |= lbr_kinds[i].kinds;
			rest &= ~lbr_kinds[i].bst;
		}
	}
	return rest ? -EOPNOTSUPP : 0;
}

/**
 * x86_lbr_sel - the LBR_SELECT value that lets @kinds through
 * @bst: the event's branch_sample_type, for its privilege bits
 * @kinds: the kind bits to record (from x86_lbr_kinds())
 */
u64 x86_lbr_sel(u64 bst, u64 kinds)
{
	u64 sel = X86_LBR_SEL_KINDS & ~kinds;

	if (!(bst & PERF_SAMPLE_BRANCH_KERNEL))
		sel |= X86_LBR_SEL_KERNEL;
	if (!(bst & PERF_SAMPLE_BRANCH_USER))
		sel |= X86_LBR_SEL_USER;
	return sel;
}

/* what x86_lbr_snapshot() reads, before it copies what fits */
static DEFINE_PER_CPU(struct perf_branch_entry, lbr_snap[X86_LBR_MAX]);
/* a snapshot under way on this CPU (an NMI's program may ask for one) */
static DEFINE_PER_CPU(int, lbr_snap_busy);

/**
 * x86_lbr_snapshot - this CPU's branch stack, for bpf_get_branch_snapshot()
 * @entries: where to copy the entries, newest first
 * @cnt: room in @entries
 *
 * The perf_snapshot_branch_stack static call of a driver with a branch
 * stack. While events use the stack, recording stops first, so that the
 * branches of the copy do not push out the ones the BPF program asks
 * about, and resumes with their filter. Without such events the stack
 * holds what it last recorded, and that is what is copied, as 6.12 does.
 * The entries are the hardware's whole stack, slots it never filled
 * being zero; the event filters the hardware cannot apply (see
 * x86_pmu_lbr_read()) belong to samples, not to the snapshot.
 *
 * A snapshot asked for while one is under way on this CPU (a PERF_EVENT
 * program in the PMI, interrupting a tracing program) gets nothing: the
 * stack is stopped and its buffer in use.
 *
 * Return: the entries copied, the depth of the stack or @cnt; 0 when
 * nested.
 */
int x86_lbr_snapshot(struct perf_branch_entry *entries, unsigned int cnt)
{
	const struct x86_lbr_ops *ops = x86_pmu_lbr();
	struct perf_branch_entry *buf;
	unsigned long flags;
	bool users;
	u64 hw_idx;
	int n = 0, depth;

	local_irq_save(flags);
	/* this CPU's kind of core: a hybrid CPU's kinds may differ in depth */
	depth = __this_cpu_read(x86_this_type)->lbr_nr;
	if (this_cpu_inc_return(lbr_snap_busy) != 1 || !depth)
		goto out;
	users = this_cpu_ptr(&cpu_hw_events)->lbr_users;
	if (users)
		ops->disable();
	buf = this_cpu_ptr(lbr_snap);
	n = ops->read(buf, &hw_idx);
	if (users)
		ops->enable(this_cpu_ptr(&cpu_hw_events)->lbr_sel);
	/* read() stops at the first slot never written since a reset */
	memset(buf + n, 0, (depth - n) * sizeof(*buf));
	n = min_t(unsigned int, depth, cnt);
	memcpy(entries, buf, n * sizeof(*entries));
out:
	this_cpu_dec(lbr_snap_busy);
	local_irq_restore(flags);
	return n;
}
