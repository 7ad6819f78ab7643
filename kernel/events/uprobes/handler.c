// SPDX-License-Identifier: GPL-2.0
/*
 * A task hits a breakpoint: run the consumers, then step over the probed
 * instruction out of line.
 *
 * The trap itself (int3, then the single-step #DB) only marks the task
 * with TIF_UPROBE, from the arch's die notifier with interrupts possibly
 * off. The work happens in uprobe_notify_resume(), on the way back to
 * user mode, where the task may sleep and take locks:
 *
 *   breakpoint hit:  find the uprobe at the trap address, run the
 *                    handlers, hijack the return address for ret_handlers,
 *                    then let the arch emulate the instruction or copy it
 *                    into an XOL slot and return to user mode stepping it
 *                    (utask->state UTASK_SSTEP);
 *   step done:       UTASK_SSTEP_ACK: the arch fixes up the registers as
 *                    if the instruction ran in place; the slot is freed.
 *
 * Signals wait while a task steps (uprobe_deny_signal()): the step
 * completes first, unless the stepped instruction itself trapped or the
 * signal is fatal (UTASK_SSTEP_TRAPPED), when the step is abandoned and
 * the signal is delivered with the instruction pointer at the probe.
 */
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "uprobes.h"

static void uprobe_warn(const char *what)
{
	pr_warn_ratelimited("uprobe: %s:%d failed to %s\n",
			    current->comm, current->pid, what);
}

/* current's uprobe_task, allocated on first use; NULL without memory */
struct uprobe_task *uprobe_current_utask(void)
{
	if (!current->utask)
		current->utask = uprobe_task_alloc();
	return current->utask;
}

/**
 * uprobe_get_swbp_addr - the address of the breakpoint that trapped
 * @regs: the user registers at the trap
 */
unsigned long __weak uprobe_get_swbp_addr(struct pt_regs *regs)
{
	return instruction_pointer(regs) - UPROBE_SWBP_INSN_SIZE;
}

/**
 * uprobe_get_trap_addr - the user address a trap is reported at
 * @regs: the user registers at the trap
 *
 * While a task steps an instruction out of line, a fault reports the
 * probed address rather than the XOL slot.
 */
unsigned long uprobe_get_trap_addr(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	if (unlikely(utask && utask->active_uprobe))
		return utask->vaddr;
	return instruction_pointer(regs);
}

/**
 * arch_uprobe_ignore - should this hit skip the consumers?
 * @aup: the probe
 * @regs: the user registers
 */
bool __weak arch_uprobe_ignore(struct arch_uprobe *aup, struct pt_regs *regs)
{
	return false;
}

/*
 * The uprobe at @bp_vaddr of current's mm, with a reference. *@is_trap
 * says, when there is none, whether a trap instruction is still there.
 */
static struct uprobe *find_hit_uprobe(unsigned long bp_vaddr, bool *is_trap)
{
	struct mm_struct *mm = current->mm;
	struct uprobe *uprobe = NULL;
	struct vm_area_struct *vma;
	uprobe_opcode_t opcode;

	mmap_read_lock(mm);
	vma = vma_lookup(mm, bp_vaddr);
	if (vma && uprobe_vma_probeable(vma))
		uprobe = uprobe_find(file_inode(vma->vm_file),
				     uprobe_vaddr_to_offset(vma, bp_vaddr));
	mmap_read_unlock(mm);

	*is_trap = false;
	/* read with no lock held: the read may fault */
	if (!uprobe && !copy_from_user(&opcode, (void __user *)bp_vaddr,
				       sizeof(opcode)))
		*is_trap = is_trap_insn(&opcode);
	return uprobe;
}

/*
 * No consumer wants current's mm any more: take the breakpoint out of it
 * (the handlers asked, UPROBE_HANDLER_REMOVE).
 */
static void remove_from_current(struct uprobe *uprobe, unsigned long bp_vaddr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	mutex_lock(&uprobes_install_mutex);
	uprobe_fork_lock();
	mmap_write_lock(mm);
	vma = vma_lookup(mm, bp_vaddr);
	if (vma && uprobe_vma_probeable(vma) &&
	    file_inode(vma->vm_file) == uprobe->inode &&
	    !uprobe_wanted_by(uprobe, mm))
		uprobe_remove(uprobe, mm, bp_vaddr);
	mmap_write_unlock(mm);
	uprobe_fork_unlock();
	mutex_unlock(&uprobes_install_mutex);
}

/*
 * Run the consumers' handlers. UPROBE_HANDLER_REMOVE counts only when
 * every handler returns it and no filter still wants this mm.
 */
static void run_handlers(struct uprobe *uprobe, struct pt_regs *regs,
			 unsigned long bp_vaddr)
{
	struct uprobe_consumer *uc;
	bool remove = true, want_return = false, any = false;
	int idx;

	idx = srcu_read_lock(&uprobes_srcu);
	list_for_each_entry_srcu(uc, &uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu)) {
		int rc = 0;

		any = true;
		if (uc->handler) {
			rc = uc->handler(uc, regs);
			WARN(rc & ~UPROBE_HANDLER_MASK,
			     "bad rc=0x%x from %ps()\n", rc, uc->handler);
		}
		if (uc->ret_handler)
			want_return = true;
		remove &= !!(rc & UPROBE_HANDLER_REMOVE);
	}
	srcu_read_unlock(&uprobes_srcu, idx);

	if (want_return && !(remove && any))
		uprobe_prepare_return(uprobe, regs);
	if (any && remove)
		remove_from_current(uprobe, bp_vaddr);
}

/* Start stepping @uprobe's instruction from a slot; 0 or -errno. */
static int start_step(struct uprobe *uprobe, struct uprobe_task *utask,
		      struct pt_regs *regs, unsigned long bp_vaddr)
{
	int err;

	utask->xol_vaddr = uprobe_xol_get_slot(uprobe);
	if (!utask->xol_vaddr)
		return -ENOMEM;
	/* the handlers may have used vaddr (trace_uprobe's dispatch data) */
	utask->vaddr = bp_vaddr;
	err = arch_uprobe_pre_xol(&uprobe->arch, regs);
	if (err) {
		uprobe_xol_put_slot(current);
		return err;
	}
	utask->active_uprobe = uprobe;
	utask->auprobe = &uprobe->arch;
	utask->state = UTASK_SSTEP;
	return 0;
}

static void handle_breakpoint(struct pt_regs *regs)
{
	unsigned long bp_vaddr = uprobe_get_swbp_addr(regs);
	struct uprobe_task *utask;
	struct uprobe *uprobe;
	bool is_trap;

	if (bp_vaddr == uprobe_get_trampoline_vaddr()) {
		uprobe_handle_trampoline(regs);
		return;
	}

	uprobe = find_hit_uprobe(bp_vaddr, &is_trap);
	if (!uprobe) {
		if (is_trap)	/* the program's own breakpoint */
			force_sig(SIGTRAP);
		else		/* removed meanwhile: run the instruction */
			instruction_pointer_set(regs, bp_vaddr);
		return;
	}

	/* the handlers see the probed address, and a restart runs it */
	instruction_pointer_set(regs, bp_vaddr);

	/*
	 * Not decoded yet: the breakpoint hit was an earlier probe's at
	 * this place, unregistered since, and a new registration's probe
	 * (whose install has not decoded it) is what the lookup found. The
	 * instruction runs again: its breakpoint, if it is still there,
	 * then belongs to the new probe.
	 */
	if (!uprobe_insn_ready(uprobe))
		goto out;
	utask = uprobe_current_utask();
	if (!utask)
		goto out;	/* hit it again, with memory */

	if (!arch_uprobe_ignore(&uprobe->arch, regs)) {
		/* a user callchain taken in them looks at the instruction */
		utask->auprobe = &uprobe->arch;
		run_handlers(uprobe, regs, bp_vaddr);
		utask->auprobe = NULL;
	}

	if (arch_uprobe_skip_sstep(&uprobe->arch, regs))
		goto out;
	if (!start_step(uprobe, utask, regs, bp_vaddr))
		return;	/* the reference goes with the step */
	/* the breakpoint runs again; its consumers see a second hit */
out:
	uprobe_put(uprobe);
}

static void finish_step(struct uprobe_task *utask, struct pt_regs *regs)
{
	struct uprobe *uprobe = utask->active_uprobe;
	int err = 0;

	if (utask->state == UTASK_SSTEP_ACK)
		err = arch_uprobe_post_xol(&uprobe->arch, regs);
	else
		arch_uprobe_abort_xol(&uprobe->arch, regs);

	uprobe_xol_put_slot(current);
	utask->active_uprobe = NULL;
	utask->auprobe = NULL;
	utask->state = UTASK_RUNNING;
	uprobe_put(uprobe);

	/* the signals uprobe_deny_signal() held back, if it did */
	if (unlikely(uprobe_task_ext(utask)->signal_denied)) {
		uprobe_task_ext(utask)->signal_denied = false;
		spin_lock_irq(&current->sighand->siglock);
		recalc_sigpending();
		spin_unlock_irq(&current->sighand->siglock);
	}

	if (unlikely(err)) {
		uprobe_warn("execute the probed instruction, sending SIGILL");
		force_sig(SIGILL);
	}
}

/**
 * uprobe_notify_resume - the work TIF_UPROBE asked for
 * @regs: the user registers
 *
 * Called on the way back to user mode with interrupts on; may sleep.
 */
void uprobe_notify_resume(struct pt_regs *regs)
{
	struct uprobe_task *utask;

	clear_thread_flag(TIF_UPROBE);

	utask = current->utask;
	if (utask && utask->active_uprobe) {
		/* still stepping: TIF_UPROBE came from elsewhere */
		if (utask->state != UTASK_SSTEP)
			finish_step(utask, regs);
	} else {
		handle_breakpoint(regs);
	}
}

/**
 * uprobe_pre_sstep_notifier - an int3 in user mode: is it ours?
 * @regs: the user registers
 *
 * Called from the arch's die notifier; atomic.
 * Return: 1 to claim the trap (the work follows in uprobe_notify_resume()).
 */
int uprobe_pre_sstep_notifier(struct pt_regs *regs)
{
	struct mm_struct *mm = current->mm;

	if (!mm)
		return 0;
	if (!test_bit(MMF_HAS_UPROBES, &mm->flags) &&
	    (!current->utask || !current->utask->return_instances))
		return 0;
	set_thread_flag(TIF_UPROBE);
	return 1;
}

/**
 * uprobe_post_sstep_notifier - a single-step trap: did our step finish?
 * @regs: the user registers
 *
 * Called from the arch's die notifier; atomic.
 * Return: 1 to claim the trap.
 */
int uprobe_post_sstep_notifier(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;

	if (!current->mm || !utask || !utask->active_uprobe ||
	    utask->state != UTASK_SSTEP)
		return 0;
	utask->state = UTASK_SSTEP_ACK;
	set_thread_flag(TIF_UPROBE);
	return 1;
}

/**
 * uprobe_deny_signal - hold back signals while current steps out of line
 *
 * Called by get_signal() with a signal pending. A pending signal waits for
 * the step to finish; if the stepped instruction trapped, or the signal
 * is fatal, the step is abandoned first.
 *
 * Return: true if the signal must wait.
 */
bool uprobe_deny_signal(void)
{
	struct task_struct *t = current;
	struct uprobe_task *utask = t->utask;

	if (likely(!utask || !utask->active_uprobe))
		return false;

	if (task_sigpending(t)) {
		spin_lock_irq(&t->sighand->siglock);
		clear_tsk_thread_flag(t, TIF_SIGPENDING);
		spin_unlock_irq(&t->sighand->siglock);
		uprobe_task_ext(utask)->signal_denied = true;

		if (utask->state == UTASK_SSTEP &&
		    (__fatal_signal_pending(t) || arch_uprobe_xol_was_trapped(t))) {
			utask->state = UTASK_SSTEP_TRAPPED;
			set_tsk_thread_flag(t, TIF_UPROBE);
		}
	}
	return true;
}
