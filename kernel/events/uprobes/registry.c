// SPDX-License-Identifier: GPL-2.0
/*
 * The uprobe registry: which (inode, offset) pairs are probed, by whom,
 * and walking the address spaces that map them.
 *
 * Every struct uprobe sits in one rbtree ordered by (inode, offset),
 * changed under uprobes_tree_lock (a spinlock: only lookups and links
 * happen under it) inside uprobes_seq's write sections. A breakpoint hit
 * looks its uprobe up with neither: under RCU, retrying with the lock if
 * the tree changed meanwhile (a descent racing a rotation may miss), and
 * uprobes are freed after a grace period. A uprobe whose reference count
 * reached zero may still be in the tree for a moment: lookups skip it, a
 * new registration of the same pair unlinks it and links a fresh one.
 *
 * uprobe_register(), uprobe_unregister_nosync() and uprobe_apply() may
 * sleep. They serialize on uprobes_install_mutex, edit the consumer list,
 * then visit every mm mapping the instruction (the inode's i_mmap tree)
 * and write or restore the breakpoint there, as the consumers' filters
 * decide. A mapping created while they run is covered by uprobe_mmap():
 * its vma is in i_mmap before uprobe_mmap() runs, both under the mm's
 * mmap_lock, and the consumer list is edited before the walk starts.
 */
#include <linux/export.h>
#include <linux/kdebug.h>
#include <linux/pagemap.h>
#include <linux/sched/mm.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>

#include "uprobes.h"

static struct rb_root uprobes_tree = RB_ROOT;
static DEFINE_SPINLOCK(uprobes_tree_lock);
static seqcount_spinlock_t uprobes_seq =
	SEQCNT_SPINLOCK_ZERO(uprobes_seq, &uprobes_tree_lock);
DEFINE_MUTEX(uprobes_install_mutex);
DEFINE_SRCU(uprobes_srcu);

/* the die notifier through which int3 and single-step traps reach us */
static struct notifier_block uprobe_exception_nb = {
	.notifier_call	= arch_uprobe_exception_notify,
	.priority	= INT_MAX - 1,	/* notified after kprobes */
};

static int uprobe_cmp(struct inode *inode, loff_t offset,
		      const struct uprobe *uprobe)
{
	if (inode != uprobe->inode)
		return inode < uprobe->inode ? -1 : 1;
	if (offset != uprobe->offset)
		return offset < uprobe->offset ? -1 : 1;
	return 0;
}

static int uprobe_key_cmp(const void *key, const struct rb_node *node)
{
	const struct uprobe *k = key;

	return uprobe_cmp(k->inode, k->offset,
			  rb_entry(node, struct uprobe, rb_node));
}

struct uprobe *uprobe_get(struct uprobe *uprobe)
{
	refcount_inc(&uprobe->ref);
	return uprobe;
}

/* May sleep (iput): only called from task context. */
void uprobe_put(struct uprobe *uprobe)
{
	if (!refcount_dec_and_test(&uprobe->ref))
		return;

	spin_lock(&uprobes_tree_lock);
	if (!RB_EMPTY_NODE(&uprobe->rb_node)) {
		write_seqcount_begin(&uprobes_seq);
		rb_erase(&uprobe->rb_node, &uprobes_tree);
		write_seqcount_end(&uprobes_seq);
	}
	spin_unlock(&uprobes_tree_lock);

	/* lockless lookups compare the inode pointer, never follow it */
	iput(uprobe->inode);
	kfree_rcu(uprobe, rcu);
}

bool uprobes_registered(void)
{
	return !RB_EMPTY_ROOT(&uprobes_tree);
}

/* @node's uprobe with a reference, or %NULL (none, or on its way out) */
static struct uprobe *uprobe_get_node(struct rb_node *node)
{
	struct uprobe *uprobe;

	if (!node)
		return NULL;
	uprobe = rb_entry(node, struct uprobe, rb_node);
	return refcount_inc_not_zero(&uprobe->ref) ? uprobe : NULL;
}

/**
 * uprobe_find - the live uprobe at @offset of @inode, with a reference
 * @inode: the probed file
 * @offset: the instruction's offset in it
 *
 * Return: the uprobe (release it with uprobe_put()) or %NULL.
 */
struct uprobe *uprobe_find(struct inode *inode, loff_t offset)
{
	struct uprobe key = { .inode = inode, .offset = offset };
	struct uprobe *found;
	unsigned int seq;

	/* a hit's lookup: no lock, unless the tree changed under it */
	rcu_read_lock();
	seq = raw_read_seqcount_begin(&uprobes_seq);
	found = uprobe_get_node(rb_find_rcu(&key, &uprobes_tree,
					    uprobe_key_cmp));
	rcu_read_unlock();
	if (found || !read_seqcount_retry(&uprobes_seq, seq))
		return found;

	spin_lock(&uprobes_tree_lock);
	found = uprobe_get_node(rb_find(&key, &uprobes_tree, uprobe_key_cmp));
	spin_unlock(&uprobes_tree_lock);
	return found;
}

/**
 * uprobe_find_range - the live uprobes of @inode in [@start, @end)
 * @inode: the probed file
 * @start: first file offset
 * @end: end of the range
 * @found: where to store them, each with a reference
 * @max: room in @found
 *
 * Return: how many there are, which may exceed @max (only @max are
 * stored then, the caller retries with more room).
 */
int uprobe_find_range(struct inode *inode, loff_t start, loff_t end,
		      struct uprobe **found, int max)
{
	struct rb_node *node, *first = NULL;
	int count = 0;

	spin_lock(&uprobes_tree_lock);
	node = uprobes_tree.rb_node;
	while (node) {
		struct uprobe *uprobe = rb_entry(node, struct uprobe, rb_node);

		if (uprobe_cmp(inode, start, uprobe) <= 0) {
			first = node;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	for (node = first; node; node = rb_next(node)) {
		struct uprobe *uprobe = rb_entry(node, struct uprobe, rb_node);

		if (uprobe->inode != inode || uprobe->offset >= end)
			break;
		if (count < max) {
			if (!refcount_inc_not_zero(&uprobe->ref))
				continue;
			found[count] = uprobe;
		}
		count++;
	}
	spin_unlock(&uprobes_tree_lock);
	return count;
}

/*
 * The registration's uprobe: the live one at (inode, offset) or a new one.
 * A dying uprobe still linked at the same place is unlinked first.
 */
static struct uprobe *uprobe_find_or_create(struct inode *inode, loff_t offset,
					    loff_t ref_ctr_offset)
{
	struct uprobe *new, *uprobe;
	struct rb_node **link, *parent;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return ERR_PTR(-ENOMEM);
	refcount_set(&new->ref, 1);
	new->offset = offset;
	new->ref_ctr_offset = ref_ctr_offset;
	init_rwsem(&new->consumer_rwsem);
	INIT_LIST_HEAD(&new->consumers);
	mutex_init(&new->insn_mutex);

	spin_lock(&uprobes_tree_lock);
again:
	link = &uprobes_tree.rb_node;
	parent = NULL;
	while (*link) {
		int cmp;

		parent = *link;
		uprobe = rb_entry(parent, struct uprobe, rb_node);
		cmp = uprobe_cmp(inode, offset, uprobe);
		if (!cmp) {
			if (refcount_inc_not_zero(&uprobe->ref)) {
				spin_unlock(&uprobes_tree_lock);
				kfree(new);
				return uprobe;
			}
			/* dying: its last uprobe_put() sees it unlinked */
			write_seqcount_begin(&uprobes_seq);
			rb_erase(&uprobe->rb_node, &uprobes_tree);
			write_seqcount_end(&uprobes_seq);
			RB_CLEAR_NODE(&uprobe->rb_node);
			goto again;
		}
		link = cmp < 0 ? &parent->rb_left : &parent->rb_right;
	}
	/* igrab() cannot sleep; the caller holds its own inode reference */
	new->inode = igrab(inode);
	if (!new->inode) {
		spin_unlock(&uprobes_tree_lock);
		kfree(new);
		return ERR_PTR(-EINVAL);
	}
	write_seqcount_begin(&uprobes_seq);
	rb_link_node_rcu(&new->rb_node, parent, link);
	rb_insert_color(&new->rb_node, &uprobes_tree);
	write_seqcount_end(&uprobes_seq);
	spin_unlock(&uprobes_tree_lock);
	return new;
}

/**
 * uprobe_wanted_by - does any consumer of @uprobe want it in @mm?
 * @uprobe: the probe
 * @mm: the address space
 *
 * A consumer without a filter wants every mm. Context: may sleep.
 */
bool uprobe_wanted_by(struct uprobe *uprobe, struct mm_struct *mm)
{
	struct uprobe_consumer *uc;
	bool wanted = false;

	down_read(&uprobe->consumer_rwsem);
	list_for_each_entry(uc, &uprobe->consumers, cons_node) {
		if (!uc->filter || uc->filter(uc, mm)) {
			wanted = true;
			break;
		}
	}
	up_read(&uprobe->consumer_rwsem);
	return wanted;
}

struct uprobe_site {
	struct mm_struct	*mm;
	unsigned long		vaddr;
};

/*
 * The mms that map @uprobe's instruction, each with an mm_users
 * reference. The allocation happens outside i_mmap_rwsem (reclaim may
 * take it), so the list is sized first and read again if it grew.
 */
static struct uprobe_site *uprobe_collect_sites(struct uprobe *uprobe,
						int *nr_sites)
{
	struct address_space *mapping = uprobe->inode->i_mapping;
	pgoff_t pgoff = uprobe->offset >> PAGE_SHIFT;
	struct uprobe_site *sites = NULL;
	struct vm_area_struct *vma;
	int room = 0, count;

	for (;;) {
		count = 0;
		i_mmap_lock_read(mapping);
		vma_interval_tree_foreach(vma, &mapping->i_mmap, pgoff, pgoff) {
			if (!uprobe_vma_probeable(vma))
				continue;
			if (count < room) {
				if (!mmget_not_zero(vma->vm_mm))
					continue;
				sites[count].mm = vma->vm_mm;
				sites[count].vaddr =
					uprobe_offset_to_vaddr(vma, uprobe->offset);
			}
			count++;
		}
		i_mmap_unlock_read(mapping);

		if (count <= room)
			break;
		while (room-- > 0)
			mmput(sites[room].mm);
		kfree(sites);
		room = count + 8;
		sites = kmalloc_array(room, sizeof(*sites), GFP_KERNEL);
		if (!sites)
			return ERR_PTR(-ENOMEM);
	}
	*nr_sites = count;
	return sites;
}

/*
 * Breakpoints of @uprobe stayed in some mm: the uprobe stays too, for
 * good (a reference never dropped), so that their hits find it and step
 * over the instruction instead of raising SIGTRAP. A later registration
 * at the same place finds it again.
 */
static void uprobe_keep(struct uprobe *uprobe)
{
	pr_warn_ratelimited("uprobe: breakpoints at %#llx of inode %lu stay: keeping the probe\n",
			    (unsigned long long)uprobe->offset,
			    uprobe->inode->i_ino);
	uprobe_get(uprobe);
}

/*
 * Make every mm mapping @uprobe agree with the consumers: the breakpoint
 * where some consumer wants it (@install) or the original instruction
 * where none does (!@install). Caller holds uprobes_install_mutex.
 *
 * Return: 0; the first install error; or, removing, -EBUSY if some
 * breakpoint could not be taken out (its page could not be had: a fatal
 * signal pending for the caller, no memory). The caller must then keep
 * the uprobe (uprobe_keep()), or the mm would trap on a breakpoint no
 * uprobe owns.
 */
static int uprobe_sync_mms(struct uprobe *uprobe, bool install)
{
	struct uprobe_site *sites;
	int i, nr = 0, err = 0;
	bool stuck = false;

	/*
	 * No fork copies any of these mms meanwhile: a child copied after
	 * the walk started would escape it, with or without the breakpoint.
	 */
	uprobe_fork_lock();
	sites = uprobe_collect_sites(uprobe, &nr);
	if (IS_ERR(sites)) {
		uprobe_fork_unlock();
		return install ? PTR_ERR(sites) : -EBUSY;
	}

	for (i = 0; i < nr; i++) {
		struct mm_struct *mm = sites[i].mm;
		unsigned long vaddr = sites[i].vaddr;
		struct vm_area_struct *vma;

		if (err)
			continue;
		mmap_write_lock(mm);
		vma = vma_lookup(mm, vaddr);
		if (!vma || !uprobe_vma_probeable(vma) ||
		    file_inode(vma->vm_file) != uprobe->inode ||
		    uprobe_vaddr_to_offset(vma, vaddr) != uprobe->offset)
			goto unlock;
		if (install) {
			if (uprobe_wanted_by(uprobe, mm))
				err = uprobe_install(uprobe, vma, vaddr);
		} else if (!uprobe_wanted_by(uprobe, mm)) {
			if (uprobe_remove(uprobe, mm, vaddr) < 0)
				stuck = true;
		}
unlock:
		mmap_write_unlock(mm);
	}
	uprobe_fork_unlock();

	/* outside the locks: the last mmput() tears the mm down */
	for (i = 0; i < nr; i++)
		mmput(sites[i].mm);
	kfree(sites);
	return err ?: (stuck ? -EBUSY : 0);
}

/*
 * Consumer list edits: under uprobes_install_mutex and consumer_rwsem,
 * outside mmap_lock; RCU list operations for the handlers' lockless walk.
 */
static void uprobe_add_consumer(struct uprobe *uprobe,
				struct uprobe_consumer *uc)
{
	lockdep_assert_held(&uprobes_install_mutex);
	down_write(&uprobe->consumer_rwsem);
	list_add_rcu(&uc->cons_node, &uprobe->consumers);
	up_write(&uprobe->consumer_rwsem);
}

static void uprobe_del_consumer(struct uprobe *uprobe,
				struct uprobe_consumer *uc)
{
	lockdep_assert_held(&uprobes_install_mutex);
	down_write(&uprobe->consumer_rwsem);
	list_del_rcu(&uc->cons_node);
	up_write(&uprobe->consumer_rwsem);
}

/**
 * uprobe_register - probe the instruction at @offset of @inode
 * @inode: the file (its mappings in every mm are probed)
 * @offset: the instruction's offset in the file
 * @ref_ctr_offset: file offset of a short SDT semaphore incremented in
 *	each mm while the probe is installed there, or 0
 * @uc: the consumer: handler() on a hit, ret_handler() when the probed
 *	function returns, filter() to choose the mms (none: all)
 *
 * The breakpoint is written at once into every mm that maps the
 * instruction and that a filter accepts, and into mms that map it later.
 * Several consumers may share one address; each registration returns the
 * same uprobe. On an error, no handler of @uc runs any more when this
 * returns. Context: may sleep.
 *
 * Return: the uprobe, to pass to uprobe_unregister_nosync() and
 * uprobe_apply(), or an ERR_PTR(): -EINVAL for an offset outside the file,
 * a misaligned semaphore or one that differs from the probe's; -EIO for a
 * file without readable pages; the install error in some mm (-ENOTSUPP:
 * an instruction that cannot be probed).
 */
struct uprobe *uprobe_register(struct inode *inode, loff_t offset,
			       loff_t ref_ctr_offset, struct uprobe_consumer *uc)
{
	struct uprobe *uprobe;
	int err;

	if (!uc->handler && !uc->ret_handler)
		return ERR_PTR(-EINVAL);
	if (!inode->i_mapping->a_ops->read_folio &&
	    !shmem_mapping(inode->i_mapping))
		return ERR_PTR(-EIO);
	if (offset < 0 || offset > i_size_read(inode))
		return ERR_PTR(-EINVAL);
	if (!IS_ALIGNED(offset, UPROBE_SWBP_INSN_SIZE))
		return ERR_PTR(-EINVAL);
	if (ref_ctr_offset < 0 || !IS_ALIGNED(ref_ctr_offset, sizeof(short)))
		return ERR_PTR(-EINVAL);

	uprobe = uprobe_find_or_create(inode, offset, ref_ctr_offset);
	if (IS_ERR(uprobe))
		return uprobe;
	if (uprobe->ref_ctr_offset != ref_ctr_offset) {
		pr_warn("uprobe: ref_ctr_offset %#llx differs from %#llx of the probe at %#llx of inode %lu\n",
			(unsigned long long)ref_ctr_offset,
			(unsigned long long)uprobe->ref_ctr_offset,
			(unsigned long long)offset, inode->i_ino);
		uprobe_put(uprobe);
		return ERR_PTR(-EINVAL);
	}

	mutex_lock(&uprobes_install_mutex);
	uprobe_add_consumer(uprobe, uc);
	err = uprobe_sync_mms(uprobe, true);
	if (err) {
		uprobe_del_consumer(uprobe, uc);
		if (uprobe_sync_mms(uprobe, false))
			uprobe_keep(uprobe);
	}
	mutex_unlock(&uprobes_install_mutex);

	if (err) {
		/*
		 * The mms that got the breakpoint may be running @uc's
		 * handlers: the caller frees @uc on an error, without an
		 * uprobe_unregister_sync() of its own.
		 */
		synchronize_srcu(&uprobes_srcu);
		uprobe_put(uprobe);
		return ERR_PTR(err);
	}
	return uprobe;
}
EXPORT_SYMBOL_GPL(uprobe_register);

/**
 * uprobe_apply - install or remove @uprobe as @uc's filter now says
 * @uprobe: a uprobe @uc is registered on
 * @uc: the consumer whose filter changed
 * @add: true: install where a filter now accepts the mm; false: remove
 *	where no filter accepts it any more
 *
 * Context: may sleep.
 * Return: 0, -ENOENT if @uc is not a consumer of @uprobe, or the install
 * error.
 */
int uprobe_apply(struct uprobe *uprobe, struct uprobe_consumer *uc, bool add)
{
	struct uprobe_consumer *con;
	bool found = false;
	int err;

	mutex_lock(&uprobes_install_mutex);
	down_read(&uprobe->consumer_rwsem);
	list_for_each_entry(con, &uprobe->consumers, cons_node) {
		if (con == uc) {
			found = true;
			break;
		}
	}
	up_read(&uprobe->consumer_rwsem);
	err = found ? uprobe_sync_mms(uprobe, add) : -ENOENT;
	mutex_unlock(&uprobes_install_mutex);
	return err;
}
EXPORT_SYMBOL_GPL(uprobe_apply);

/**
 * uprobe_unregister_nosync - remove @uc from @uprobe
 * @uprobe: what uprobe_register() returned for @uc
 * @uc: the consumer
 *
 * Hits that start after this returns do not call @uc's handlers; a
 * hit already running them may go on until uprobe_unregister_sync(),
 * which the caller must call before it frees @uc or what its handlers
 * use (one call may follow many of these). The breakpoint goes from
 * every mm no other consumer wants. @uprobe must not be used by the
 * caller afterwards. Context: may sleep.
 */
void uprobe_unregister_nosync(struct uprobe *uprobe, struct uprobe_consumer *uc)
{
	mutex_lock(&uprobes_install_mutex);
	uprobe_del_consumer(uprobe, uc);
	if (uprobe_sync_mms(uprobe, false))
		uprobe_keep(uprobe);
	mutex_unlock(&uprobes_install_mutex);
	uprobe_put(uprobe);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_nosync);

/**
 * uprobe_unregister_sync - wait for earlier uprobe_unregister_nosync()s
 *
 * Handlers and ret_handlers walk the consumer lists under uprobes_srcu:
 * once its readers of before the call are gone, no handler of a removed
 * consumer runs, and the caller may free it.
 * Context: may sleep.
 */
void uprobe_unregister_sync(void)
{
	synchronize_srcu(&uprobes_srcu);
}
EXPORT_SYMBOL_GPL(uprobe_unregister_sync);

/**
 * uprobes_init - boot-time setup, called from fork_init()
 */
void __init uprobes_init(void)
{
	register_die_notifier(&uprobe_exception_nb);
}
