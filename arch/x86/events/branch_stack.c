// SPDX-License-Identifier: GPL-2.0-only
/*
 * The "cpu" PMU's branch stack users (pmu.c calls in here): the events of
 * a CPU that sample branch stacks share the vendor's last branch records
 * and so must want the same filter (an event with another waits,
 * multiplexed); the stack is read once per PMI, while the hardware holds
 * it frozen, filtered for what the hardware filter cannot do, and every
 * sample of that PMI carries it. Recording starts empty for each set of
 * users, so a task never sees the branches of the task before it; a
 * task's call stack (call-stack mode) is saved and restored with the task.
 *
 * All on the event's CPU with IRQs off (add, del, the switch) or in the
 * NMI.
 */

#include <linux/kernel.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/perf_event.h>

#include "perf_event.h"

/* the branch stack read by this CPU's PMI: struct perf_branch_stack */
static DEFINE_PER_CPU(u64, x86_lbr_buf[X86_LBR_BUF_U64]);
DEFINE_PER_CPU(bool, x86_lbr_valid);

/*
 * A task's call-stack event, whose stack is saved and restored with the
 * task (PERF_ATTACH_SCHED_CB also marks large PEBS events, which need
 * the switch for their records, not for the stack)
 */
static bool x86_lbr_cs_user(struct perf_event *event)
{
	return has_branch_stack(event) &&
	       (event->attr.branch_sample_type & PERF_SAMPLE_BRANCH_CALL_STACK) &&
	       (event->attach_state & PERF_ATTACH_SCHED_CB);
}

/* may @event join the branch stack users on this CPU (same filter)? */
bool x86_lbr_fits(struct cpu_hw_events *cpuc, struct perf_event *event)
{
	return !cpuc->lbr_users ||
	       (cpuc->lbr_sel == event->hw.branch_reg_config &&
		cpuc->lbr_bst == event->attr.branch_sample_type);
}

/* @event, which x86_lbr_fits(), is added to this CPU's counters */
void x86_lbr_add(struct cpu_hw_events *cpuc, struct perf_event *event)
{
	if (!cpuc->lbr_users++) {
		cpuc->lbr_sel = event->hw.branch_reg_config;
		cpuc->lbr_bst = event->attr.branch_sample_type;
		x86_ops->lbr->reset();
		x86_ops->lbr->enable(cpuc->lbr_sel);
	} else if (event->attach_state & PERF_ATTACH_TASK) {
		/*
		 * A per-task user comes on with its task: the stack an event
		 * of the CPU kept recording holds the branches of the task
		 * before, which are not this task's to see.
		 */
		x86_ops->lbr->reset();
	}
	if (x86_lbr_cs_user(event)) {
		cpuc->lbr_cs_ctx = event->ctx;
		cpuc->lbr_cs_users++;
	}
}

/* @event, a branch stack user, leaves this CPU's counters */
void x86_lbr_del(struct cpu_hw_events *cpuc, struct perf_event *event)
{
	if (!--cpuc->lbr_users)
		x86_ops->lbr->disable();
	if (x86_lbr_cs_user(event) && !--cpuc->lbr_cs_users)
		cpuc->lbr_cs_ctx = NULL;
}

static bool x86_kernel_addr(u64 addr)
{
	return addr >= TASK_SIZE_MAX;
}

/*
 * Applies to the @n entries of @bs what the hardware filter cannot:
 * without PERF_SAMPLE_BRANCH_KERNEL no record with a kernel address (a
 * return to user space starts in the kernel); the hardware's one "far"
 * kind is split by direction, entries into the kernel (syscall,
 * interrupt) being calls and exits from it (sysret, iret) returns; the
 * NO_FLAGS / NO_CYCLES requests; and the branch types (TYPE_SAVE) the
 * hardware does not record.
 */
static void x86_pmu_lbr_filter(struct perf_branch_stack *bs, int n, u64 bst)
{
	/* in place: an entry kept never moves past one still unread */
	struct perf_branch_entry *e = bs->entries;
	int i, nr = 0;

	for (i = 0; i < n; i++) {
		bool from_k = x86_kernel_addr(e[i].from);
		bool to_k = x86_kernel_addr(e[i].to);

		if (!(bst & PERF_SAMPLE_BRANCH_KERNEL) && (from_k || to_k))
			continue;
		if (!(bst & PERF_SAMPLE_BRANCH_ANY)) {
			if (!from_k && to_k &&
			    !(bst & PERF_SAMPLE_BRANCH_ANY_CALL))
				continue;
			if (from_k && !to_k &&
			    !(bst & PERF_SAMPLE_BRANCH_ANY_RETURN))
				continue;
		}
		if (bst & PERF_SAMPLE_BRANCH_NO_FLAGS) {
			e[i].mispred = 0;
			e[i].predicted = x86_ops->lbr->no_flags_predicted;
			e[i].in_tx = 0;
			e[i].abort = 0;
		}
		if (bst & PERF_SAMPLE_BRANCH_NO_CYCLES)
			e[i].cycles = 0;
		if (bst & PERF_SAMPLE_BRANCH_TYPE_SAVE)
			e[i].type = x86_branch_type(e[i].from, e[i].to);
		e[nr++] = e[i];
	}
	bs->nr = nr;
}

/**
 * x86_pmu_lbr_take - x86_pmu_lbr_read() for a CPU with branch stack users
 * @cpuc: this CPU's state
 *
 * Reads the stack into the buffer the PMI's samples point to, and
 * filters it for the CPU's branch_sample_type.
 */
void x86_pmu_lbr_take(struct cpu_hw_events *cpuc)
{
	struct perf_branch_stack *bs = (void *)this_cpu_ptr(x86_lbr_buf);
	u64 hw_idx;
	int n;

	n = x86_ops->lbr->read(bs->entries, &hw_idx);
	x86_pmu_lbr_filter(bs, n, cpuc->lbr_bst);
	bs->hw_idx = hw_idx;
	this_cpu_write(x86_lbr_valid, true);
}

/**
 * x86_pmu_lbr_decode - a branch stack from records a PEBS record holds
 * @bs: where to build it, with room for X86_LBR_MAX entries
 * @raw: the records, newest first, as the LBR registers hold them
 * @n: their number
 * @bst: the event's branch_sample_type
 *
 * A record never written (both addresses 0) ends the stack, as in the
 * registers.
 */
void x86_pmu_lbr_decode(struct perf_branch_stack *bs,
			const struct lbr_entry *raw, int n, u64 bst)
{
	const struct x86_lbr_ops *ops = x86_ops->lbr;
	int i;

	n = min(n, X86_LBR_MAX);
	for (i = 0; i < n && (raw[i].from || raw[i].to); i++)
		ops->entry(&bs->entries[i], raw[i].from, raw[i].to,
			   raw[i].info);
	x86_pmu_lbr_filter(bs, i, bst);
	bs->hw_idx = ops->record_hw_idx;
}

/* the branch stack the PMI read, unless the sample has its own (PEBS) */
void __x86_pmu_add_branches(struct perf_event *event,
			    struct perf_sample_data *data)
{
	if (!(data->sample_flags & PERF_SAMPLE_BRANCH_STACK) &&
	    this_cpu_read(x86_lbr_valid)) {
		data->br_stack = (void *)this_cpu_ptr(x86_lbr_buf);
		data->sample_flags |= PERF_SAMPLE_BRANCH_STACK;
	}
}

/* what a task context keeps of the LBRs (call-stack mode) */
struct x86_lbr_task {
	bool	valid;
	u64	regs[];
};

/*
 * A task with call-stack branch sampling switches: its stack of calls
 * not yet returned from goes with it, so that after running elsewhere,
 * or after another task used the LBRs here, its samples still show the
 * whole call chain. x86_lbr_add() emptied the stack for it; this puts
 * the task's back. Only a stack recorded for this context's own events
 * is saved, and it is put back only if they are on again at the next
 * switch in: a stack that waited through a disabled or multiplexed
 * spell is stale, and the stack of an event of the CPU is not the
 * task's.
 */
void x86_lbr_sched_task(struct perf_event_context *ctx, bool sched_in)
{
	struct cpu_hw_events *cpuc = this_cpu_ptr(&cpu_hw_events);
	struct x86_lbr_task *t = perf_ctx_task_data(ctx);
	bool own = cpuc->lbr_cs_ctx == ctx;

	/* large PEBS events want no switch of theirs: nothing kept */
	if (!t || !x86_ops->lbr || !x86_ops->lbr->state_u64)
		return;
	if (!sched_in) {
		t->valid = own;
		if (own)
			x86_ops->lbr->save(t->regs);
		return;
	}
	if (t->valid && own)
		x86_ops->lbr->restore(t->regs);
	t->valid = false;
}

/* the task_ctx_size of the "cpu" PMU for branch stack @lbr */
size_t x86_lbr_task_size(const struct x86_lbr_ops *lbr)
{
	return struct_size_t(struct x86_lbr_task, regs, lbr->state_u64);
}
