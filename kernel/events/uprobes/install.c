// SPDX-License-Identifier: GPL-2.0
/*
 * Writing breakpoints into an mm, and the hooks of the mapping code.
 *
 * A breakpoint is written into the process's own copy of the text page:
 * a FOLL_FORCE | FOLL_WRITE get_user_pages on the private file mapping
 * breaks copy-on-write as ptrace's pokes do, so the page cache and every
 * other mm keep the original bytes. Removal writes the original bytes
 * back into that copy. The original instruction is read once from the
 * page cache, never from an mm (which may hold an inherited breakpoint).
 *
 * Everything here runs in task context with the mm's mmap_lock held for
 * writing (uprobe_mmap() is called by the mapping code that way; the
 * registry takes it), and may sleep.
 *
 * SDT semaphores: a probe with a ref_ctr_offset increments the short at
 * that file offset in each mm where its breakpoint goes in, and
 * decrements it where it comes out. The semaphore lives in a writable
 * mapping of the same file which the loader may create after the text
 * one; until then the increment waits on uprobes_ref_ctr_pending, and
 * uprobe_mmap() of a writable mapping applies it.
 */
#include <linux/cacheflush.h>
#include <linux/highmem.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "uprobes.h"

struct ref_ctr_pending {
	struct list_head	node;
	struct uprobe		*uprobe;	/* holds a reference */
	struct mm_struct	*mm;		/* dropped by uprobe_clear_state() */
};

static LIST_HEAD(uprobes_ref_ctr_pending);
static DEFINE_MUTEX(uprobes_ref_ctr_mutex);

static bool vma_maps_offset(struct vm_area_struct *vma, loff_t offset)
{
	loff_t start = (loff_t)vma->vm_pgoff << PAGE_SHIFT;

	return offset >= start && offset < start + (loff_t)vma_pages(vma) *
					       PAGE_SIZE;
}

/*
 * Copy @len bytes at @offset of @inode's page cache into @buf; bytes
 * past the end of the file read as zero.
 */
static int copy_from_page_cache(struct inode *inode, loff_t offset,
				void *buf, size_t len)
{
	struct address_space *mapping = inode->i_mapping;
	loff_t size = i_size_read(inode);

	memset(buf, 0, len);
	if (offset + len > size)
		len = offset < size ? size - offset : 0;

	while (len) {
		size_t in_page = offset_in_page(offset);
		size_t chunk = min_t(size_t, len, PAGE_SIZE - in_page);
		pgoff_t index = offset >> PAGE_SHIFT;
		struct folio *folio;

		if (shmem_mapping(mapping))
			folio = shmem_read_folio(mapping, index);
		else
			folio = read_mapping_folio(mapping, index, NULL);
		if (IS_ERR(folio))
			return PTR_ERR(folio);
		memcpy_from_folio(buf, folio, offset_in_folio(folio, offset),
				  chunk);
		folio_put(folio);
		buf += chunk;
		offset += chunk;
		len -= chunk;
	}
	return 0;
}

/*
 * Read and decode the probed instruction, once per uprobe: the first mm
 * it goes into decides how it decodes (64-bit or compat), as for every
 * later one.
 */
static int uprobe_prepare_insn(struct uprobe *uprobe, struct mm_struct *mm,
			       unsigned long vaddr)
{
	int err = 0;

	if (uprobe_insn_ready(uprobe))
		return 0;

	mutex_lock(&uprobe->insn_mutex);
	if (uprobe->insn_ready)
		goto out;
	/* an array on x86, one __le32 on arm64: take its address either way */
	err = copy_from_page_cache(uprobe->inode, uprobe->offset,
				   &uprobe->arch.insn, sizeof(uprobe->arch.insn));
	if (err)
		goto out;
	/* a trap already there is the program's: not ours to step over */
	err = -ENOTSUPP;
	if (is_trap_insn((uprobe_opcode_t *)&uprobe->arch.insn))
		goto out;
	err = arch_uprobe_analyze_insn(&uprobe->arch, mm, vaddr);
	if (err)
		goto out;
	/* the decoded insn before the flag: pairs with uprobe_insn_ready() */
	smp_store_release(&uprobe->insn_ready, true);
out:
	mutex_unlock(&uprobe->insn_mutex);
	return err;
}

/*
 * The page of @mm at @vaddr, for reading (@write false) or as this mm's
 * private copy for writing.
 */
static struct page *uprobe_get_page(struct mm_struct *mm, unsigned long vaddr,
				    bool write)
{
	unsigned int gup_flags = FOLL_FORCE | FOLL_SPLIT_PMD;
	struct page *page;
	long got;

	if (write)
		gup_flags |= FOLL_WRITE;
	got = get_user_pages_remote(mm, vaddr, 1, gup_flags, &page, NULL);
	if (got < 0)
		return ERR_PTR(got);
	if (!got)
		return ERR_PTR(-EFAULT);
	return page;
}

/* Is the breakpoint instruction at @vaddr of @mm? 1, 0 or -errno. */
static int uprobe_swbp_present(struct mm_struct *mm, unsigned long vaddr)
{
	uprobe_opcode_t opcode;
	struct page *page;
	void *kaddr;

	page = uprobe_get_page(mm, vaddr, false);
	if (IS_ERR(page))
		return PTR_ERR(page);
	kaddr = kmap_local_page(page);
	memcpy(&opcode, kaddr + offset_in_page(vaddr), sizeof(opcode));
	kunmap_local(kaddr);
	put_page(page);
	return is_swbp_insn(&opcode);
}

/*
 * Write @opcode into @page, mapped executable at @vaddr of @vma while
 * other threads may run it: copy_to_user_page() (ptrace's write) has the
 * architecture make the bytes visible to instruction fetch, which
 * flush_dcache_page() alone leaves for the next PTE (arm64 cleans the
 * D-cache and invalidates the I-cache to the point of unification).
 */
static void uprobe_poke(struct vm_area_struct *vma, struct page *page,
			unsigned long vaddr, uprobe_opcode_t opcode)
{
	void *kaddr = kmap_local_page(page);

	copy_to_user_page(vma, page, vaddr, kaddr + offset_in_page(vaddr),
			  &opcode, UPROBE_SWBP_INSN_SIZE);
	kunmap_local(kaddr);
}

/**
 * uprobe_write_opcode - write @opcode at @vaddr of @mm
 * @auprobe: the probe being installed or removed
 * @mm: the address space; its mmap_lock is held
 * @vaddr: where, in a private file mapping
 * @opcode: the breakpoint or the original first bytes of the instruction
 *
 * The write goes into @mm's private copy of the page (copy-on-write), not
 * into the page cache. Context: may sleep.
 * Return: 0 or -errno.
 */
int uprobe_write_opcode(struct arch_uprobe *auprobe, struct mm_struct *mm,
			unsigned long vaddr, uprobe_opcode_t opcode)
{
	struct vm_area_struct *vma = vma_lookup(mm, vaddr);
	struct page *page;

	if (!vma)
		return -EFAULT;
	page = uprobe_get_page(mm, vaddr, true);
	if (IS_ERR(page))
		return PTR_ERR(page);
	uprobe_poke(vma, page, vaddr, opcode);
	/*
	 * Other CPUs may be running this code. An interrupt on each is the
	 * context synchronization cross-modifying code asks for, so that
	 * none goes on fetching the old bytes. QEMU's TCG (the test
	 * machines) needs the second write: a vCPU that translated the old
	 * bytes while we wrote links that translation after our write and
	 * runs the old instruction for good (a removed breakpoint trapping
	 * forever; stock 6.12 maps a new page instead). Once every vCPU
	 * took the interrupt, a write drops such a translation.
	 *
	 * The page is this mm's own copy: with current its only user (an
	 * exec or a mapping in a single-threaded process, uprobe_mmap()),
	 * nothing else runs it and the interrupts are not needed.
	 */
	if (mm != current->mm || atomic_read(&mm->mm_users) > 1) {
		kick_all_cpus_sync();
		uprobe_poke(vma, page, vaddr, opcode);
	}
	flush_dcache_page(page);
	put_page(page);
	return 0;
}

/**
 * set_swbp - write the breakpoint instruction at @vaddr of @mm
 * @auprobe: the probe
 * @mm: the address space; its mmap_lock is held
 * @vaddr: the probed address
 *
 * Return: 0 or -errno.
 */
int __weak set_swbp(struct arch_uprobe *auprobe, struct mm_struct *mm,
		    unsigned long vaddr)
{
	return uprobe_write_opcode(auprobe, mm, vaddr, UPROBE_SWBP_INSN);
}

/**
 * set_orig_insn - put the original instruction back at @vaddr of @mm
 * @auprobe: the probe, holding the original bytes
 * @mm: the address space; its mmap_lock is held
 * @vaddr: the probed address
 *
 * Return: 0 or -errno.
 */
int __weak set_orig_insn(struct arch_uprobe *auprobe, struct mm_struct *mm,
			 unsigned long vaddr)
{
	return uprobe_write_opcode(auprobe, mm, vaddr,
				   *(uprobe_opcode_t *)&auprobe->insn);
}

/**
 * is_swbp_insn - is @insn the breakpoint instruction uprobes writes?
 * @insn: the first bytes of an instruction
 */
bool __weak is_swbp_insn(uprobe_opcode_t *insn)
{
	return *insn == UPROBE_SWBP_INSN;
}

/**
 * is_trap_insn - does @insn trap into the kernel as a breakpoint?
 * @insn: the first bytes of an instruction
 *
 * Architectures with several trap instructions override this.
 */
bool __weak is_trap_insn(uprobe_opcode_t *insn)
{
	return is_swbp_insn(insn);
}

/* The writable mapping of @uprobe's file holding its semaphore. */
static struct vm_area_struct *ref_ctr_vma(struct uprobe *uprobe,
					  struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	struct vm_area_struct *vma;

	for_each_vma(vmi, vma) {
		if (vma->vm_file && file_inode(vma->vm_file) == uprobe->inode &&
		    (vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE &&
		    vma_maps_offset(vma, uprobe->ref_ctr_offset))
			return vma;
	}
	return NULL;
}

static int ref_ctr_add(struct uprobe *uprobe, struct vm_area_struct *vma,
		       short delta)
{
	unsigned long vaddr = uprobe_offset_to_vaddr(vma, uprobe->ref_ctr_offset);
	struct page *page;
	short *counter;
	void *kaddr;
	int err = 0;

	page = uprobe_get_page(vma->vm_mm, vaddr, true);
	if (IS_ERR(page))
		return PTR_ERR(page);
	kaddr = kmap_local_page(page);
	counter = kaddr + offset_in_page(vaddr);
	if (*counter + delta < 0) {
		/* the program wrote its semaphore: leave it alone */
		pr_warn_ratelimited("uprobe: SDT semaphore at %#lx of pid %d would go negative\n",
				    vaddr, current->pid);
		err = -EINVAL;
	} else {
		*counter += delta;
	}
	kunmap_local(kaddr);
	put_page(page);
	return err;
}

static struct ref_ctr_pending *ref_ctr_find_pending(struct uprobe *uprobe,
						    struct mm_struct *mm)
{
	struct ref_ctr_pending *p;

	list_for_each_entry(p, &uprobes_ref_ctr_pending, node)
		if (p->uprobe == uprobe && p->mm == mm)
			return p;
	return NULL;
}

static void ref_ctr_drop_pending(struct ref_ctr_pending *p)
{
	list_del(&p->node);
	uprobe_put(p->uprobe);
	kfree(p);
}

/* The breakpoint went in: count it in the semaphore, now or later. */
static int ref_ctr_inc(struct uprobe *uprobe, struct mm_struct *mm)
{
	struct vm_area_struct *vma = ref_ctr_vma(uprobe, mm);
	struct ref_ctr_pending *p;

	if (vma)
		return ref_ctr_add(uprobe, vma, 1);

	p = kmalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->uprobe = uprobe_get(uprobe);
	p->mm = mm;
	/*
	 * One increment waits per probe and mm: a loader maps the whole
	 * image first (the text in it gets the breakpoint), unmaps the
	 * rest and maps the text again, before the data is there.
	 */
	mutex_lock(&uprobes_ref_ctr_mutex);
	if (ref_ctr_find_pending(uprobe, mm)) {
		mutex_unlock(&uprobes_ref_ctr_mutex);
		uprobe_put(p->uprobe);
		kfree(p);
		return 0;
	}
	list_add(&p->node, &uprobes_ref_ctr_pending);
	mutex_unlock(&uprobes_ref_ctr_mutex);
	return 0;
}

static void ref_ctr_dec(struct uprobe *uprobe, struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	struct ref_ctr_pending *p;

	mutex_lock(&uprobes_ref_ctr_mutex);
	p = ref_ctr_find_pending(uprobe, mm);
	if (p)
		ref_ctr_drop_pending(p);
	mutex_unlock(&uprobes_ref_ctr_mutex);
	if (p)
		return;

	vma = ref_ctr_vma(uprobe, mm);
	if (vma)
		ref_ctr_add(uprobe, vma, -1);
}

/* A writable mapping appeared: the increments that waited for it. */
static void ref_ctr_apply_pending(struct vm_area_struct *vma)
{
	struct ref_ctr_pending *p, *tmp;

	if (list_empty(&uprobes_ref_ctr_pending))
		return;

	mutex_lock(&uprobes_ref_ctr_mutex);
	list_for_each_entry_safe(p, tmp, &uprobes_ref_ctr_pending, node) {
		if (p->mm != vma->vm_mm ||
		    file_inode(vma->vm_file) != p->uprobe->inode ||
		    !vma_maps_offset(vma, p->uprobe->ref_ctr_offset))
			continue;
		ref_ctr_add(p->uprobe, vma, 1);
		ref_ctr_drop_pending(p);
	}
	mutex_unlock(&uprobes_ref_ctr_mutex);
}

/* @mm goes away (uprobe_clear_state()): forget what waits for it. */
void uprobe_ref_ctr_forget_mm(struct mm_struct *mm)
{
	struct ref_ctr_pending *p, *tmp;

	if (list_empty(&uprobes_ref_ctr_pending))
		return;

	mutex_lock(&uprobes_ref_ctr_mutex);
	list_for_each_entry_safe(p, tmp, &uprobes_ref_ctr_pending, node)
		if (p->mm == mm)
			ref_ctr_drop_pending(p);
	mutex_unlock(&uprobes_ref_ctr_mutex);
}

/**
 * uprobe_install - write @uprobe's breakpoint at @vaddr of @vma
 * @uprobe: the probe
 * @vma: a probeable mapping of the probe's file
 * @vaddr: where the instruction is mapped in @vma
 *
 * Idempotent: the mapping code calls uprobe_mmap() again when it splits
 * or moves a mapping whose pages already carry the breakpoint.
 * Caller holds @vma's mmap_lock for writing.
 */
int uprobe_install(struct uprobe *uprobe, struct vm_area_struct *vma,
		   unsigned long vaddr)
{
	struct mm_struct *mm = vma->vm_mm;
	int err, present;

	/*
	 * A writable private mapping holds the program's own data, which
	 * may be anything by now: a breakpoint there would corrupt it, and
	 * its removal would write the instruction over what the program
	 * wrote. Such a mapping stays unprobed, as in 6.12.
	 */
	if (vma->vm_flags & VM_WRITE)
		return 0;

	err = uprobe_prepare_insn(uprobe, mm, vaddr);
	if (err)
		return err;

	/* before the breakpoint: the trap handler looks for this flag */
	set_bit(MMF_HAS_UPROBES, &mm->flags);

	present = uprobe_swbp_present(mm, vaddr);
	if (present)
		return present < 0 ? present : 0;
	err = set_swbp(&uprobe->arch, mm, vaddr);
	if (err)
		return err;
	if (uprobe->ref_ctr_offset)
		ref_ctr_inc(uprobe, mm);
	return 0;
}

/**
 * uprobe_remove - restore the original instruction at @vaddr of @mm
 * @uprobe: the probe
 * @mm: the address space; its mmap_lock is held for writing
 * @vaddr: where the probe's instruction is mapped
 */
int uprobe_remove(struct uprobe *uprobe, struct mm_struct *mm,
		  unsigned long vaddr)
{
	int err, present;

	if (!uprobe_insn_ready(uprobe))
		return 0;
	present = uprobe_swbp_present(mm, vaddr);
	if (present <= 0)
		return present;
	err = set_orig_insn(&uprobe->arch, mm, vaddr);
	if (err)
		return err;
	if (uprobe->ref_ctr_offset)
		ref_ctr_dec(uprobe, mm);
	return 0;
}

/**
 * uprobe_mmap - a file mapping appeared: write the probes it holds
 * @vma: the new (or split, moved, merged) mapping
 *
 * Called by the mapping code with the mm's mmap_lock held for writing.
 * Install errors are not the mapping's: the mapping stays, unprobed.
 *
 * Return: 0.
 */
int uprobe_mmap(struct vm_area_struct *vma)
{
	struct uprobe *stack_found[8], **found = stack_found;
	int max = ARRAY_SIZE(stack_found), nr, i;
	struct inode *inode;
	loff_t start, end;

	if (!vma->vm_file || !uprobes_registered())
		return 0;

	if ((vma->vm_flags & (VM_WRITE | VM_SHARED)) == VM_WRITE)
		ref_ctr_apply_pending(vma);

	if (!uprobe_vma_probeable(vma))
		return 0;

	inode = file_inode(vma->vm_file);
	start = (loff_t)vma->vm_pgoff << PAGE_SHIFT;
	end = start + (loff_t)vma_pages(vma) * PAGE_SIZE;
	for (;;) {
		nr = uprobe_find_range(inode, start, end, found, max);
		if (nr <= max)
			break;
		for (i = 0; i < max; i++)
			uprobe_put(found[i]);
		if (found != stack_found)
			kfree(found);
		max = nr + 8;
		found = kmalloc_array(max, sizeof(*found), GFP_KERNEL);
		if (!found)
			return 0;
	}

	for (i = 0; i < nr; i++) {
		struct uprobe *uprobe = found[i];

		if (uprobe_wanted_by(uprobe, vma->vm_mm))
			uprobe_install(uprobe, vma,
				       uprobe_offset_to_vaddr(vma, uprobe->offset));
		uprobe_put(uprobe);
	}
	if (found != stack_found)
		kfree(found);
	return 0;
}

/**
 * uprobe_munmap - a mapping (or part of it) goes or changes
 * @vma: the mapping
 * @start: start of the range
 * @end: end of the range
 *
 * Nothing to undo: breakpoints live in the mm's private copies of the
 * pages, which leave with the mapping, and the mapping code calls this
 * before it splits or moves a mapping it keeps, whose pages (and
 * breakpoints) stay. An SDT semaphore counted in this mm stays as it is,
 * as the program may unmap its own text.
 */
void uprobe_munmap(struct vm_area_struct *vma, unsigned long start,
		   unsigned long end)
{
}
