/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private interface between the files of the uprobes core.
 *
 * A struct uprobe is one probed instruction: an (inode, file offset) pair
 * with the consumers that asked for it. It lives in one global tree
 * (registry.c) from its first registration until its last reference
 * goes; each registration, each return instance and each task stepping
 * over it hold a reference.
 *
 * Lock order, outermost first:
 *
 *   uprobes_install_mutex       (registry.c: register, unregister, apply;
 *                                serializes the consumer list edits)
 *   uprobes_fork_rwsem          (fork.c: read held across dup_mmap,
 *                                write across a walk over the mms)
 *   mm->mmap_lock               (write while breakpoints are written)
 *   uprobe->insn_mutex          (install.c: first copy of the instruction)
 *   uprobe->consumer_rwsem      (read: filters; write: list edits)
 *   uprobes_ref_ctr_mutex       (install.c: deferred SDT semaphores)
 *   uprobes_tree_lock           (registry.c, a spinlock)
 *
 * The walk lists the mms under the file's i_mmap_rwsem and drops it before
 * taking any mmap_lock (the mm code nests them the other way). The
 * consumer list is edited under consumer_rwsem (write), never while
 * mmap_lock is held; the filters read it under consumer_rwsem (read),
 * the handlers under uprobes_srcu with no lock held: they may fault on
 * user memory (trace_uprobe's fetch args, BPF programs), which takes
 * mmap_lock, so they cannot run under consumer_rwsem, which the filters
 * take inside mmap_lock. A consumer removed from the list may still have
 * a handler running until uprobe_unregister_sync(), which waits for
 * uprobes_srcu's readers: a hit costs no lock.
 */
#ifndef _KERNEL_EVENTS_UPROBES_H
#define _KERNEL_EVENTS_UPROBES_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/rwsem.h>
#include <linux/srcu.h>
#include <linux/uprobes.h>

struct uprobe {
	struct rb_node		rb_node;	/* uprobes_tree */
	refcount_t		ref;
	struct rcu_head		rcu;		/* freed after lockless lookups */
	struct inode		*inode;		/* held with igrab() */
	loff_t			offset;		/* of the instruction in the file */
	loff_t			ref_ctr_offset;	/* SDT semaphore, 0: none */

	struct rw_semaphore	consumer_rwsem;
	struct list_head	consumers;

	/* arch is filled once, under insn_mutex; insn_ready publishes it */
	struct mutex		insn_mutex;
	bool			insn_ready;
	struct arch_uprobe	arch;
};

/*
 * A task's uprobes state: the shared part (include/linux/uprobes.h),
 * and in the same allocation what only the core uses.
 * @signal_denied: uprobe_deny_signal() cleared TIF_SIGPENDING during a
 *	step: its end must recompute it
 */
struct uprobe_task_ext {
	struct uprobe_task	utask;
	bool			signal_denied;
};

static inline struct uprobe_task_ext *uprobe_task_ext(struct uprobe_task *ut)
{
	return container_of(ut, struct uprobe_task_ext, utask);
}

static inline struct uprobe_task *uprobe_task_alloc(void)
{
	struct uprobe_task_ext *ext = kzalloc(sizeof(*ext), GFP_KERNEL);

	return ext ? &ext->utask : NULL;
}

/* registry.c */
extern struct mutex uprobes_install_mutex;
extern struct srcu_struct uprobes_srcu;
struct uprobe *uprobe_get(struct uprobe *uprobe);
void uprobe_put(struct uprobe *uprobe);
struct uprobe *uprobe_find(struct inode *inode, loff_t offset);
int uprobe_find_range(struct inode *inode, loff_t start, loff_t end,
		      struct uprobe **found, int max);
bool uprobe_wanted_by(struct uprobe *uprobe, struct mm_struct *mm);
bool uprobes_registered(void);

/*
 * Probes go into private, possibly executable file mappings only: a
 * shared mapping would write the breakpoint into the file itself.
 * (These small helpers are inline: every breakpoint hit uses them.)
 */
static inline bool uprobe_vma_probeable(struct vm_area_struct *vma)
{
	vm_flags_t flags = VM_HUGETLB | VM_MAYEXEC | VM_MAYSHARE;

	return vma->vm_file && (vma->vm_flags & flags) == VM_MAYEXEC;
}

static inline unsigned long uprobe_offset_to_vaddr(struct vm_area_struct *vma,
						   loff_t offset)
{
	return vma->vm_start + offset - ((loff_t)vma->vm_pgoff << PAGE_SHIFT);
}

static inline loff_t uprobe_vaddr_to_offset(struct vm_area_struct *vma,
					    unsigned long vaddr)
{
	return ((loff_t)vma->vm_pgoff << PAGE_SHIFT) + (vaddr - vma->vm_start);
}

static inline bool uprobe_insn_ready(struct uprobe *uprobe)
{
	/* pairs with the release in uprobe_prepare_insn() */
	return smp_load_acquire(&uprobe->insn_ready);
}

/* install.c */
int uprobe_install(struct uprobe *uprobe, struct vm_area_struct *vma,
		   unsigned long vaddr);
int uprobe_remove(struct uprobe *uprobe, struct mm_struct *mm,
		  unsigned long vaddr);
void uprobe_ref_ctr_forget_mm(struct mm_struct *mm);

/* xol.c */
unsigned long uprobe_xol_get_slot(struct uprobe *uprobe);
void uprobe_xol_put_slot(struct task_struct *task);
unsigned long uprobe_xol_trampoline(void);
int uprobe_xol_add_at(struct mm_struct *mm, unsigned long vaddr);
void uprobe_xol_free(struct mm_struct *mm);

/* fork.c */
void uprobe_fork_lock(void);
void uprobe_fork_unlock(void);

/* handler.c */
struct uprobe_task *uprobe_current_utask(void);

/* uretprobe.c */
void uprobe_prepare_return(struct uprobe *uprobe, struct pt_regs *regs);
void uprobe_free_return_instances(struct uprobe_task *utask);
int uprobe_dup_return_instances(struct uprobe_task *parent,
				struct uprobe_task *child);

#endif /* _KERNEL_EVENTS_UPROBES_H */
