// SPDX-License-Identifier: GPL-2.0
/*
 * The execute-out-of-line (XOL) area: one page per mm, mapped executable
 * at an address of the mm's choosing as the "[uprobes]" special mapping.
 *
 * Slot 0 holds the uretprobe trampoline (the arch's code, written when
 * the area is made, by then the creating task's mode decides which one).
 * The other slots each hold a copy of a probed instruction while one task
 * single-steps it; a task takes a slot in the breakpoint path and gives
 * it back once the step is done, sleeping if all are taken.
 *
 * The area is made lazily, by the first task of the mm to hit a probe (or
 * to need the trampoline), under the mm's mmap_lock for writing, and is
 * published in mm->uprobes_state.xol_area; it goes with the mm
 * (uprobe_clear_state()). A forked child gets its own at the parent's
 * address (fork.c), because its return addresses point there.
 *
 * Everything here may sleep, except uprobe_xol_trampoline().
 */
#include <linux/highmem.h>
#include <linux/mman.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "uprobes.h"

#define XOL_SLOTS	(PAGE_SIZE / UPROBE_XOL_SLOT_BYTES)

struct xol_area {
	wait_queue_head_t	wq;		/* tasks waiting for a slot */
	DECLARE_BITMAP(used, XOL_SLOTS);
	struct page		*page;
	unsigned long		vaddr;
};

/*
 * The mapping finds its page through the mm, so that the vma refers to
 * nothing freed with the area (exit_mmap() runs after uprobe_clear_state()).
 */
static vm_fault_t xol_fault(const struct vm_special_mapping *sm,
			    struct vm_area_struct *vma, struct vm_fault *vmf)
{
	struct xol_area *area = READ_ONCE(vma->vm_mm->uprobes_state.xol_area);

	if (!area || vmf->pgoff)
		return VM_FAULT_SIGBUS;
	vmf->page = area->page;
	get_page(vmf->page);
	return 0;
}

static const struct vm_special_mapping xol_mapping = {
	.name	= "[uprobes]",
	.fault	= xol_fault,
};

static struct xol_area *mm_xol_area(struct mm_struct *mm)
{
	/* pairs with the release in xol_install() */
	return smp_load_acquire(&mm->uprobes_state.xol_area);
}

/**
 * arch_uprobe_copy_ixol - copy an instruction into the XOL page
 * @page: the area's page
 * @vaddr: the slot's user address
 * @src: the instruction
 * @len: its size
 */
void __weak arch_uprobe_copy_ixol(struct page *page, unsigned long vaddr,
				  void *src, unsigned long len)
{
	void *kaddr = kmap_local_page(page);

	memcpy(kaddr + offset_in_page(vaddr), src, len);
	kunmap_local(kaddr);
	flush_dcache_page(page);
}

/**
 * arch_uprobe_get_xol_area - where to map a new XOL area
 *
 * Return: a free page-sized address range of current's mm, or an error
 * value (IS_ERR_VALUE()).
 */
unsigned long __weak arch_uprobe_get_xol_area(void)
{
	return get_unmapped_area(NULL, TASK_SIZE - PAGE_SIZE, PAGE_SIZE, 0, 0);
}

/**
 * arch_uprobe_trampoline - the code of the uretprobe trampoline
 * @psize: its size
 *
 * The default is the breakpoint instruction: the return lands on a
 * breakpoint the trap path recognises by its address.
 */
void * __weak arch_uprobe_trampoline(unsigned long *psize)
{
	static uprobe_opcode_t insn = UPROBE_SWBP_INSN;

	*psize = UPROBE_SWBP_INSN_SIZE;
	return &insn;
}

static struct xol_area *xol_alloc(void)
{
	struct xol_area *area;
	unsigned long size;
	void *code;

	area = kzalloc(sizeof(*area), GFP_KERNEL);
	if (!area)
		return NULL;
	area->page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);
	if (!area->page) {
		kfree(area);
		return NULL;
	}
	init_waitqueue_head(&area->wq);
	set_bit(0, area->used);
	code = arch_uprobe_trampoline(&size);
	arch_uprobe_copy_ixol(area->page, 0, code, size);
	return area;
}

static void xol_release(struct xol_area *area)
{
	put_page(area->page);
	kfree(area);
}

/*
 * Map a new area into @mm at @vaddr (0: anywhere). @mm is current's,
 * or a forked child's running its first task work.
 */
static struct xol_area *xol_install(struct mm_struct *mm, unsigned long vaddr)
{
	struct xol_area *area, *existing;
	struct vm_area_struct *vma;
	int err = 0;

	area = xol_alloc();
	if (!area)
		return ERR_PTR(-ENOMEM);

	if (mmap_write_lock_killable(mm)) {
		xol_release(area);
		return ERR_PTR(-EINTR);
	}
	existing = mm->uprobes_state.xol_area;
	if (existing)
		goto unlock;

	if (!vaddr) {
		vaddr = arch_uprobe_get_xol_area();
		if (IS_ERR_VALUE(vaddr)) {
			err = vaddr;
			goto unlock;
		}
	}
	vma = _install_special_mapping(mm, vaddr, PAGE_SIZE,
				       VM_EXEC | VM_MAYEXEC | VM_DONTCOPY | VM_IO,
				       &xol_mapping);
	if (IS_ERR(vma)) {
		err = PTR_ERR(vma);
		goto unlock;
	}
	area->vaddr = vaddr;
	/* a complete area before the pointer: pairs with mm_xol_area() */
	smp_store_release(&mm->uprobes_state.xol_area, area);
	mmap_write_unlock(mm);
	return area;

unlock:
	mmap_write_unlock(mm);
	xol_release(area);
	return existing ?: ERR_PTR(err);
}

/* current's area, made now if it has none */
static struct xol_area *xol_get_area(void)
{
	struct mm_struct *mm = current->mm;
	struct xol_area *area = mm_xol_area(mm);

	if (!area) {
		area = xol_install(mm, 0);
		if (IS_ERR(area))
			return NULL;
	}
	return area;
}

/**
 * uprobe_xol_add_at - give @mm an XOL area at @vaddr
 * @mm: current's mm, a forked child's
 * @vaddr: the parent's area address, where its return addresses point
 *
 * Return: 0 or -errno (-EBUSY: @vaddr is taken).
 */
int uprobe_xol_add_at(struct mm_struct *mm, unsigned long vaddr)
{
	struct xol_area *area = xol_install(mm, vaddr);

	if (IS_ERR(area))
		return PTR_ERR(area);
	return area->vaddr == vaddr ? 0 : -EBUSY;
}

static int xol_take_slot(struct xol_area *area)
{
	int slot;

	for (;;) {
		slot = find_first_zero_bit(area->used, XOL_SLOTS);
		if (slot < XOL_SLOTS) {
			if (!test_and_set_bit(slot, area->used))
				return slot;
			continue;
		}
		wait_event(area->wq,
			   !bitmap_full(area->used, XOL_SLOTS));
	}
}

/**
 * uprobe_xol_get_slot - a slot of current's area holding @uprobe's insn
 * @uprobe: the probe being stepped over
 *
 * Return: the slot's user address, 0 if no area could be made.
 */
unsigned long uprobe_xol_get_slot(struct uprobe *uprobe)
{
	struct xol_area *area = xol_get_area();
	unsigned long vaddr;

	if (!area)
		return 0;
	vaddr = area->vaddr + xol_take_slot(area) * UPROBE_XOL_SLOT_BYTES;
	arch_uprobe_copy_ixol(area->page, vaddr, &uprobe->arch.ixol,
			      sizeof(uprobe->arch.ixol));
	return vaddr;
}

/**
 * uprobe_xol_put_slot - give back @task's slot, if it holds one
 * @task: current, or a task leaving its mm (mm_release())
 */
void uprobe_xol_put_slot(struct task_struct *task)
{
	struct uprobe_task *utask = task->utask;
	struct xol_area *area;
	unsigned long slot;

	if (!utask || !utask->xol_vaddr || !task->mm)
		return;
	area = mm_xol_area(task->mm);
	if (WARN_ON_ONCE(!area))
		return;
	slot = (utask->xol_vaddr - area->vaddr) / UPROBE_XOL_SLOT_BYTES;
	utask->xol_vaddr = 0;
	if (WARN_ON_ONCE(!slot || slot >= XOL_SLOTS))
		return;
	clear_bit(slot, area->used);
	smp_mb__after_atomic();	/* the bit clear before the waiter check */
	if (waitqueue_active(&area->wq))
		wake_up(&area->wq);
}

/**
 * uprobe_xol_trampoline - the trampoline's address, making the area
 *
 * Return: the address, 0 if no area could be made.
 */
unsigned long uprobe_xol_trampoline(void)
{
	struct xol_area *area = xol_get_area();

	return area ? area->vaddr : 0;
}

/**
 * uprobe_get_trampoline_vaddr - where current's uretprobe trampoline is
 *
 * Context: any; makes no area.
 * Return: its address, or UPROBE_NO_TRAMPOLINE_VADDR if current's mm has
 * no XOL area.
 */
unsigned long uprobe_get_trampoline_vaddr(void)
{
	struct xol_area *area = NULL;

	if (current->mm)
		area = mm_xol_area(current->mm);
	return area ? area->vaddr : UPROBE_NO_TRAMPOLINE_VADDR;
}

/* @mm goes (uprobe_clear_state()); its mappings have no user left. */
void uprobe_xol_free(struct mm_struct *mm)
{
	struct xol_area *area = mm->uprobes_state.xol_area;

	if (!area)
		return;
	mm->uprobes_state.xol_area = NULL;
	xol_release(area);
}
