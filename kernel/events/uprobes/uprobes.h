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
 *   uprobes_install_mutex       (registry.c: register, unregister, apply)
 *   uprobe->handler_rwsem       (read: handlers; write: list edits)
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
 * consumer list is edited under both rwsems (write), never while mmap_lock
 * is held, and may be read under either. Handlers run under handler_rwsem
 * (read) with no other uprobes lock held: they may fault on user memory
 * (trace_uprobe's fetch args, BPF programs), which takes mmap_lock, so
 * they cannot run under consumer_rwsem, which the filters take inside
 * mmap_lock.
 */
#ifndef _KERNEL_EVENTS_UPROBES_H
#define _KERNEL_EVENTS_UPROBES_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/uprobes.h>

struct uprobe {
	struct rb_node		rb_node;	/* uprobes_tree */
	refcount_t		ref;
	struct inode		*inode;		/* held with igrab() */
	loff_t			offset;		/* of the instruction in the file */
	loff_t			ref_ctr_offset;	/* SDT semaphore, 0: none */

	struct rw_semaphore	handler_rwsem;
	struct rw_semaphore	consumer_rwsem;
	struct list_head	consumers;

	/* arch is filled once, under insn_mutex; insn_ready publishes it */
	struct mutex		insn_mutex;
	bool			insn_ready;
	struct arch_uprobe	arch;
};

/* registry.c */
extern struct mutex uprobes_install_mutex;
struct uprobe *uprobe_get(struct uprobe *uprobe);
void uprobe_put(struct uprobe *uprobe);
struct uprobe *uprobe_find(struct inode *inode, loff_t offset);
int uprobe_find_range(struct inode *inode, loff_t start, loff_t end,
		      struct uprobe **found, int max);
bool uprobe_wanted_by(struct uprobe *uprobe, struct mm_struct *mm);
bool uprobes_registered(void);

/* install.c */
bool uprobe_vma_probeable(struct vm_area_struct *vma);
unsigned long uprobe_offset_to_vaddr(struct vm_area_struct *vma, loff_t offset);
loff_t uprobe_vaddr_to_offset(struct vm_area_struct *vma, unsigned long vaddr);
int uprobe_install(struct uprobe *uprobe, struct vm_area_struct *vma,
		   unsigned long vaddr);
int uprobe_remove(struct uprobe *uprobe, struct mm_struct *mm,
		  unsigned long vaddr);
bool uprobe_insn_ready(struct uprobe *uprobe);
void uprobe_ref_ctr_forget_mm(struct mm_struct *mm);
void uprobe_ref_ctr_dup_mm(struct mm_struct *oldmm, struct mm_struct *newmm);

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
