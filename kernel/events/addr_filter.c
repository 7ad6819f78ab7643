// SPDX-License-Identifier: GPL-2.0
/*
 * Address filters: PERF_EVENT_IOC_SET_FILTER on an event of a PMU with
 * nr_addr_filters (intel_pt: perf record --filter 'filter main @ ./prog').
 *
 * The string is a list of filters, separated by commas, blanks or
 * newlines, each "ACTION ADDR[/SIZE][@FILE]": ACTION filter (a range:
 * SIZE needed), start or stop; ADDR and SIZE numbers as C writes them;
 * FILE a path (as open(2) takes it, from the caller's working directory)
 * to a regular file, when ADDR is an offset in that file rather than an
 * address. An empty string removes the filters. As in 6.12: a syntax
 * error, "filter" without a size or a size of 0, or a FILE that is not a
 * regular file is EINVAL, a FILE that is not there ENOENT (or the
 * lookup's errno); more filters than the PMU has, or a filter on a file
 * for an event that follows no task, EOPNOTSUPP; then the PMU's
 * addr_filters_validate() decides.
 *
 * A filter on a file becomes a range where the event's task maps the
 * file's range: when it is set, at each mmap of the file in that task's
 * mm, and after an exec (which drops them all until the new program maps
 * its files). Each change bumps hw.addr_filters_gen, which the driver
 * compares when it starts the event (perf_event_addr_ranges()); an event
 * running on this CPU is restarted at once, others at their next start.
 * An inherited event gets its parent's filters, as they are mapped in
 * the parent (the child's mm is a copy).
 */
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "layer/counting.h"

/**
 * struct perf_addr_filter - one filter of an event
 * @path: the file (@path.dentry NULL: an address)
 * @r: as parsed; r.start the address or the offset in the file
 * @start: where it is mapped (file filters)
 * @size: the size mapped there; 0 while the file's range is not mapped
 */
struct perf_addr_filter {
	struct path		path;
	struct perf_addr_range	r;
	unsigned long		start;
	unsigned long		size;
};

/**
 * struct perf_addr_filters - an event's filters (event->hw.addr_filters)
 * @entry: on perf_addr_filter_list while some filter names a file
 * @event: the event
 * @lock: @f's @start and @size, and the event's hw.addr_filters_gen
 * @nr: the number of filters
 * @f: the filters
 */
struct perf_addr_filters {
	struct list_head	entry;
	struct perf_event	*event;
	raw_spinlock_t		lock;
	unsigned int		nr;
	struct perf_addr_filter	f[] __counted_by(nr);
};

/* the events with file filters, for mmap and exec; under mmap_lock */
static LIST_HEAD(perf_addr_filter_list);
static DEFINE_MUTEX(perf_addr_filter_mutex);

static bool perf_addr_filters_have_file(struct perf_addr_filters *fs)
{
	unsigned int i;

	for (i = 0; i < fs->nr; i++)
		if (fs->f[i].path.dentry)
			return true;
	return false;
}

static void perf_addr_filters_put(struct perf_addr_filters *fs)
{
	unsigned int i;

	if (!fs)
		return;
	for (i = 0; i < fs->nr; i++)
		path_put(&fs->f[i].path);
	kfree(fs);
}

static int perf_addr_filter_number(const char *s, unsigned long *v)
{
	return kstrtoul(s, 0, v) ? -EINVAL : 0;
}

/* "ADDR[/SIZE][@FILE]" into @f */
static int perf_addr_filter_parse_spec(char *spec, struct perf_addr_filter *f)
{
	char *file, *size;
	int err;

	file = strchr(spec, '@');
	if (file)
		*file++ = '\0';
	size = strchr(spec, '/');
	if (size)
		*size++ = '\0';
	err = perf_addr_filter_number(spec, &f->r.start);
	if (!err && size) {
		err = perf_addr_filter_number(size, &f->r.size);
		if (!err && !f->r.size)
			err = -EINVAL;
	}
	if (err)
		return err;
	if (f->r.action == PERF_ADDR_FILTER_ACTION_FILTER && !size)
		return -EINVAL;
	if (!file)
		return 0;
	if (!*file)
		return -EINVAL;
	err = kern_path(file, LOOKUP_FOLLOW, &f->path);
	if (err)
		return err;
	if (!S_ISREG(d_inode(f->path.dentry)->i_mode)) {
		path_put(&f->path);
		f->path.dentry = NULL;
		return -EINVAL;
	}
	f->r.file = true;
	return 0;
}

static int perf_addr_filter_action(const char *word)
{
	if (!strcmp(word, "filter"))
		return PERF_ADDR_FILTER_ACTION_FILTER;
	if (!strcmp(word, "start"))
		return PERF_ADDR_FILTER_ACTION_START;
	if (!strcmp(word, "stop"))
		return PERF_ADDR_FILTER_ACTION_STOP;
	return -EINVAL;
}

/* Parse @str into @fs (at most @max filters; one more is EOPNOTSUPP) */
static int perf_addr_filters_parse(char *str, struct perf_addr_filters *fs,
				   unsigned int max)
{
	static const char sep[] = ", \t\n";
	char *word;
	int action = -1, err;

	while ((word = strsep(&str, sep))) {
		if (!*word)
			continue;
		if (action < 0) {
			action = perf_addr_filter_action(word);
			if (action < 0)
				return action;
			continue;
		}
		if (fs->nr == max)
			return -EOPNOTSUPP;
		fs->f[fs->nr].r.action = action;
		err = perf_addr_filter_parse_spec(word, &fs->f[fs->nr]);
		if (err)
			return err;
		fs->nr++;
		action = -1;
	}
	/* an action with no address */
	return action < 0 ? 0 : -EINVAL;
}

/* Where @vma maps @f's range of its file, if it does */
static bool perf_addr_filter_in_vma(struct perf_addr_filter *f,
				    struct vm_area_struct *vma)
{
	unsigned long voff, vend, off, end;

	if (!vma->vm_file || file_inode(vma->vm_file) !=
			     d_inode(f->path.dentry))
		return false;
	voff = vma->vm_pgoff << PAGE_SHIFT;
	vend = voff + (vma->vm_end - vma->vm_start);
	off = max(f->r.start, voff);
	end = f->r.start + f->r.size < f->r.start ? ULONG_MAX :
	      f->r.start + f->r.size;
	end = min(end, vend);
	if (off >= end)
		return false;
	f->start = vma->vm_start + (off - voff);
	f->size = end - off;
	return true;
}

/*
 * Restart @event if it runs on this CPU, so that its driver takes the
 * new ranges now; IRQs off: nothing can take it off this CPU meanwhile.
 */
static void perf_addr_filters_restart(struct perf_event *event)
{
	unsigned long flags;

	local_irq_save(flags);
	if (READ_ONCE(event->oncpu) == smp_processor_id() &&
	    READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE) {
		event->pmu->stop(event, PERF_EF_UPDATE);
		event->pmu->start(event, PERF_EF_RELOAD);
	}
	local_irq_restore(flags);
}

/* Resolve @fs's file filters in @mm (mmap_lock held) */
static void perf_addr_filters_resolve(struct perf_addr_filters *fs,
				      struct mm_struct *mm)
{
	struct vm_area_struct *vma;
	struct vma_iterator vmi;
	unsigned int i;

	for (i = 0; i < fs->nr; i++) {
		struct perf_addr_filter *f = &fs->f[i];

		if (!f->path.dentry)
			continue;
		vma_iter_init(&vmi, mm, 0);
		for_each_vma(vmi, vma)
			if (perf_addr_filter_in_vma(f, vma))
				break;
	}
}

/**
 * perf_addr_filters_set - PERF_EVENT_IOC_SET_FILTER on a filtering PMU
 * @event: an event of a PMU with nr_addr_filters
 * @arg: the filter string, in user memory
 *
 * Return: 0, or the errno of the first fault (see above).
 */
int perf_addr_filters_set(struct perf_event *event, void __user *arg)
{
	struct task_struct *task = event->hw.target;
	struct perf_addr_filters *fs, *old;
	struct pmu *pmu = event->pmu;
	struct perf_addr_range *r;
	struct mm_struct *mm = NULL;
	unsigned long flags;
	unsigned int i;
	char *str;
	int err;

	str = strndup_user(arg, PAGE_SIZE);
	if (IS_ERR(str))
		return PTR_ERR(str);
	fs = kzalloc(struct_size(fs, f, pmu->nr_addr_filters), GFP_KERNEL);
	r = kcalloc(pmu->nr_addr_filters, sizeof(*r), GFP_KERNEL);
	if (!fs || !r) {
		err = -ENOMEM;
		goto out;
	}
	INIT_LIST_HEAD(&fs->entry);
	raw_spin_lock_init(&fs->lock);
	fs->event = event;
	err = perf_addr_filters_parse(str, fs, pmu->nr_addr_filters);
	if (err)
		goto out;
	/* a file's range needs a task whose mappings say where it is */
	if (!task && perf_addr_filters_have_file(fs)) {
		err = -EOPNOTSUPP;
		goto out;
	}
	for (i = 0; i < fs->nr; i++)
		r[i] = fs->f[i].r;
	if (pmu->addr_filters_validate) {
		err = pmu->addr_filters_validate(r, fs->nr);
		if (err)
			goto out;
	}

	if (task && perf_addr_filters_have_file(fs))
		mm = get_task_mm(task);
	if (mm)
		mmap_read_lock(mm);
	mutex_lock(&perf_addr_filter_mutex);
	if (mm)
		perf_addr_filters_resolve(fs, mm);
	raw_spin_lock_irqsave(&fs->lock, flags);
	old = event->hw.addr_filters;
	event->hw.addr_filters = fs;
	event->hw.addr_filters_gen++;
	raw_spin_unlock_irqrestore(&fs->lock, flags);
	if (old)
		list_del_init(&old->entry);
	if (perf_addr_filters_have_file(fs))
		list_add(&fs->entry, &perf_addr_filter_list);
	mutex_unlock(&perf_addr_filter_mutex);
	if (mm) {
		mmap_read_unlock(mm);
		mmput(mm);
	}
	perf_addr_filters_restart(event);
	/* a driver reads the filters with IRQs off: an RCU reader */
	if (old)
		synchronize_rcu();
	fs = old;
out:
	perf_addr_filters_put(fs);
	kfree(r);
	kfree(str);
	return err;
}

/**
 * perf_addr_filters_mmap - @vma was mapped: the file filters it places
 * @vma: the new mapping
 */
void perf_addr_filters_mmap(struct vm_area_struct *vma)
{
	struct perf_addr_filters *fs;
	unsigned long flags;
	unsigned int i;

	if (!vma->vm_file || list_empty(&perf_addr_filter_list))
		return;
	mutex_lock(&perf_addr_filter_mutex);
	list_for_each_entry(fs, &perf_addr_filter_list, entry) {
		struct task_struct *task = fs->event->hw.target;
		bool changed = false;

		if (!task || READ_ONCE(task->mm) != vma->vm_mm)
			continue;
		raw_spin_lock_irqsave(&fs->lock, flags);
		for (i = 0; i < fs->nr; i++) {
			struct perf_addr_filter *f = &fs->f[i];

			if (f->path.dentry && perf_addr_filter_in_vma(f, vma))
				changed = true;
		}
		if (changed)
			fs->event->hw.addr_filters_gen++;
		raw_spin_unlock_irqrestore(&fs->lock, flags);
		if (changed)
			perf_addr_filters_restart(fs->event);
	}
	mutex_unlock(&perf_addr_filter_mutex);
}

/**
 * perf_addr_filters_exec - @task exec'd: its old mappings are gone
 * @task: current
 */
void perf_addr_filters_exec(struct task_struct *task)
{
	struct perf_addr_filters *fs;
	unsigned long flags;
	unsigned int i;

	if (list_empty(&perf_addr_filter_list))
		return;
	mutex_lock(&perf_addr_filter_mutex);
	list_for_each_entry(fs, &perf_addr_filter_list, entry) {
		if (fs->event->hw.target != task)
			continue;
		raw_spin_lock_irqsave(&fs->lock, flags);
		for (i = 0; i < fs->nr; i++)
			fs->f[i].size = 0;
		fs->event->hw.addr_filters_gen++;
		raw_spin_unlock_irqrestore(&fs->lock, flags);
	}
	mutex_unlock(&perf_addr_filter_mutex);
}

/**
 * perf_addr_filters_inherit - give an inherited event its parent's filters
 * @child: the new event
 * @parent: the event it inherits
 *
 * Return: 0 or -ENOMEM.
 */
int perf_addr_filters_inherit(struct perf_event *child,
			      struct perf_event *parent)
{
	struct perf_addr_filters *pfs, *fs;
	unsigned long flags;
	unsigned int i;
	int err = 0;

	if (!parent->hw.addr_filters)
		return 0;
	mutex_lock(&perf_addr_filter_mutex);
	pfs = parent->hw.addr_filters;
	fs = kmemdup(pfs, struct_size(pfs, f, pfs->nr), GFP_KERNEL);
	if (!fs) {
		err = -ENOMEM;
		goto out;
	}
	INIT_LIST_HEAD(&fs->entry);
	raw_spin_lock_init(&fs->lock);
	fs->event = child;
	raw_spin_lock_irqsave(&pfs->lock, flags);
	for (i = 0; i < fs->nr; i++) {
		fs->f[i].start = pfs->f[i].start;
		fs->f[i].size = pfs->f[i].size;
	}
	raw_spin_unlock_irqrestore(&pfs->lock, flags);
	for (i = 0; i < fs->nr; i++)
		path_get(&fs->f[i].path);
	child->hw.addr_filters = fs;
	child->hw.addr_filters_gen = 1;
	if (perf_addr_filters_have_file(fs))
		list_add(&fs->entry, &perf_addr_filter_list);
out:
	mutex_unlock(&perf_addr_filter_mutex);
	return err;
}

/**
 * perf_addr_filters_free - drop @event's filters (it is being freed)
 * @event: the event
 */
void perf_addr_filters_free(struct perf_event *event)
{
	struct perf_addr_filters *fs = event->hw.addr_filters;

	if (!fs)
		return;
	mutex_lock(&perf_addr_filter_mutex);
	list_del(&fs->entry);
	mutex_unlock(&perf_addr_filter_mutex);
	event->hw.addr_filters = NULL;
	perf_addr_filters_put(fs);
}

/**
 * perf_event_addr_ranges - an event's address filters, as mapped now
 * @event: the event, which the caller's PMU starts (IRQs off)
 * @r: room for @max ranges (the PMU's nr_addr_filters)
 * @max: the room
 * @gen: the generation of the ranges returned (hw.addr_filters_gen): the
 *	driver need not read them again while it is the same
 *
 * Not from NMI. A filter on a file that is not mapped now has size 0.
 *
 * Return: the number of filters.
 */
int perf_event_addr_ranges(struct perf_event *event, struct perf_addr_range *r,
			   unsigned int max, unsigned long *gen)
{
	struct perf_addr_filters *fs = event->hw.addr_filters;
	unsigned long flags;
	unsigned int i, nr;

	if (!fs) {
		*gen = event->hw.addr_filters_gen;
		return 0;
	}
	raw_spin_lock_irqsave(&fs->lock, flags);
	nr = min(fs->nr, max);
	for (i = 0; i < nr; i++) {
		r[i] = fs->f[i].r;
		if (fs->f[i].path.dentry) {
			r[i].start = fs->f[i].start;
			r[i].size = fs->f[i].size;
		}
	}
	*gen = event->hw.addr_filters_gen;
	raw_spin_unlock_irqrestore(&fs->lock, flags);
	return nr;
}
EXPORT_SYMBOL_GPL(perf_event_addr_ranges);
