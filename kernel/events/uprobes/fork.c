// SPDX-License-Identifier: GPL-2.0
/*
 * Task and mm lifetime: fork, exec, exit.
 *
 * fork: dup_mmap() copies the parent's pages, breakpoints included (they
 * sit in the parent's private copies of the text), under
 * uprobes_fork_rwsem held for reading, so that no registration walks
 * either mm half-copied. The child's XOL area is not copied (VM_DONTCOPY);
 * if the parent was inside probed functions the child gets copies of its
 * return instances and, from task work on its first return to user mode,
 * a fresh area at the parent's address, where those returns land.
 *
 * exec and exit: mm_release() calls uprobe_free_utask() while the task's
 * old mm is still current->mm; the last mmput() calls uprobe_clear_state().
 *
 * Everything here may sleep.
 */
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/task_work.h>

#include "uprobes.h"

static DECLARE_RWSEM(uprobes_fork_rwsem);

/* Registration side: no fork copies an mm while breakpoints change. */
void uprobe_fork_lock(void)
{
	down_write(&uprobes_fork_rwsem);
}

void uprobe_fork_unlock(void)
{
	up_write(&uprobes_fork_rwsem);
}

/**
 * uprobe_start_dup_mmap - fork starts copying an mm
 */
void uprobe_start_dup_mmap(void)
{
	down_read(&uprobes_fork_rwsem);
}

/**
 * uprobe_end_dup_mmap - fork is done copying an mm
 */
void uprobe_end_dup_mmap(void)
{
	up_read(&uprobes_fork_rwsem);
}

/**
 * uprobe_dup_mmap - @newmm is a copy of @oldmm: carry the uprobes state
 * @oldmm: the parent's mm
 * @newmm: the child's
 *
 * The copied pages hold the breakpoints; the child's SDT semaphores are
 * copies too. Only the trap path's flag carries over: an increment still
 * waiting for its semaphore's mapping was the parent's, and a semaphore
 * the child maps later reads as the file has it, as in 6.12.
 */
void uprobe_dup_mmap(struct mm_struct *oldmm, struct mm_struct *newmm)
{
	if (test_bit(MMF_HAS_UPROBES, &oldmm->flags))
		set_bit(MMF_HAS_UPROBES, &newmm->flags);
}

/* Task work of a forked child: its XOL area where the parent's was. */
static void dup_xol_work(struct callback_head *work)
{
	struct uprobe_task *utask = container_of(work, struct uprobe_task,
						 dup_xol_work);

	if (current->flags & PF_EXITING)
		return;
	if (uprobe_xol_add_at(current->mm, utask->dup_xol_addr))
		pr_warn_ratelimited("uprobe: %s:%d failed to dup xol area, its uretprobes may crash\n",
				    current->comm, current->pid);
}

/**
 * uprobe_copy_process - a new task @t: its uprobes state
 * @t: the new task, not running yet
 * @flags: its clone flags
 *
 * A thread starts with no state. A child with its own mm (or a vfork
 * child, on its parent's stack until exec) inherits the parent's pending
 * returns.
 */
void uprobe_copy_process(struct task_struct *t, unsigned long flags)
{
	struct uprobe_task *parent = current->utask;
	struct uprobe_task *utask;
	unsigned long tramp;

	t->utask = NULL;
	if (!parent || !parent->return_instances)
		return;
	if ((flags & (CLONE_VM | CLONE_VFORK)) == CLONE_VM)
		return;

	utask = uprobe_task_alloc();
	if (!utask)
		goto fail;
	t->utask = utask;
	if (uprobe_dup_return_instances(parent, utask))
		goto fail;
	if (flags & CLONE_VM)
		return;

	tramp = uprobe_get_trampoline_vaddr();
	if (tramp == UPROBE_NO_TRAMPOLINE_VADDR)
		return;
	utask->dup_xol_addr = tramp;
	init_task_work(&utask->dup_xol_work, dup_xol_work);
	if (!task_work_add(t, &utask->dup_xol_work, TWA_RESUME))
		return;
fail:
	pr_warn_ratelimited("uprobe: %s:%d failed to copy pending uretprobes to pid %d\n",
			    current->comm, current->pid, t->pid);
}

/**
 * uprobe_free_utask - @t leaves its mm (exit or exec)
 * @t: current
 *
 * Drops the pending returns and the step in progress, if any: their
 * addresses are the old mm's.
 */
void uprobe_free_utask(struct task_struct *t)
{
	struct uprobe_task *utask = t->utask;

	if (!utask)
		return;
	/* a child leaving before its first return to user mode */
	task_work_cancel_func(t, dup_xol_work);
	if (utask->active_uprobe) {
		uprobe_put(utask->active_uprobe);
		uprobe_xol_put_slot(t);
	}
	uprobe_free_return_instances(utask);
	kfree(uprobe_task_ext(utask));
	t->utask = NULL;
}

/**
 * uprobe_clear_state - @mm is torn down (its last user is gone)
 * @mm: the mm
 */
void uprobe_clear_state(struct mm_struct *mm)
{
	uprobe_ref_ctr_forget_mm(mm);
	uprobe_xol_free(mm);
}
