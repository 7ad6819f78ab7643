// SPDX-License-Identifier: GPL-2.0
/*
 * The ring buffer as a kernel object: allocation, mapping it into user
 * space with its memory accounting, which events write into it
 * (SET_OUTPUT), the control page and waking readers.
 *
 * The writer that fills it lives in output.c.
 *
 * Lifetime: event->rb holds a reference, as does each mapping through
 * the owning event's mmap_count. The buffer is freed after an RCU grace
 * period, because writers find it with rcu_dereference(event->rb) from
 * any context.
 */
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/sched/user.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "layer/buffer.h"

static struct perf_buffer *perf_buffer_alloc(struct perf_event *event,
					     int nr_pages, bool overwrite)
{
	struct perf_buffer *rb;
	unsigned long size = (unsigned long)nr_pages << PAGE_SHIFT;

	rb = kzalloc(sizeof(*rb), GFP_KERNEL);
	if (!rb)
		return NULL;
	rb->user_page = vmalloc_user(size + PAGE_SIZE);
	if (!rb->user_page) {
		kfree(rb);
		return NULL;
	}
	rb->data = (void *)rb->user_page + PAGE_SIZE;
	rb->size = size;
	rb->nr_pages = nr_pages;
	rb->overwrite = overwrite;
	rb->backward = event->attr.write_backward;
	refcount_set(&rb->refcount, 1);
	spin_lock_init(&rb->event_lock);
	INIT_LIST_HEAD(&rb->event_list);
	mutex_init(&rb->aux_mutex);

	if (event->attr.watermark)
		rb->watermark = min_t(long, size, event->attr.wakeup_watermark);
	if (!rb->watermark)
		rb->watermark = size / 2;
	if (!event->attr.watermark)
		rb->wakeup_events = event->attr.wakeup_events;

	rb->user_page->size = offsetof(struct perf_event_mmap_page, __reserved);
	rb->user_page->data_offset = PAGE_SIZE;
	rb->user_page->data_size = size;
	return rb;
}

static void perf_buffer_free_rcu(struct rcu_head *head)
{
	struct perf_buffer *rb = container_of(head, struct perf_buffer,
					      rcu_head);

	vfree(rb->user_page);
	kfree(rb);
}

/**
 * perf_buffer_get - a reference on the buffer @event writes to, or NULL
 * @event: the event
 */
struct perf_buffer *perf_buffer_get(struct perf_event *event)
{
	struct perf_buffer *rb;

	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (rb && !refcount_inc_not_zero(&rb->refcount))
		rb = NULL;
	rcu_read_unlock();
	return rb;
}

void perf_buffer_put(struct perf_buffer *rb)
{
	if (rb && refcount_dec_and_test(&rb->refcount))
		call_rcu(&rb->rcu_head, perf_buffer_free_rcu);
}

/**
 * perf_buffer_attach - make @event write into @rb (NULL: nowhere)
 * @event: the event
 * @rb: the buffer, or NULL
 *
 * Takes a reference on @rb for the event and drops the one on the buffer
 * it wrote to before. Caller holds event->mmap_mutex. Returns -EINVAL,
 * changing nothing, when @rb has lost its last mapping: the walk that
 * detached its writers then could not have seen @event.
 */
int perf_buffer_attach(struct perf_event *event, struct perf_buffer *rb)
{
	struct perf_buffer *old = rcu_dereference_protected(event->rb,
					lockdep_is_held(&event->mmap_mutex));
	unsigned long flags;

	if (old == rb)
		return 0;
	if (rb && READ_ONCE(rb->unmapped))
		return -EINVAL;
	if (old) {
		spin_lock_irqsave(&old->event_lock, flags);
		list_del_rcu(&event->rb_entry);
		spin_unlock_irqrestore(&old->event_lock, flags);
		rcu_assign_pointer(event->rb, NULL);
		event->rb_detach_gp = get_state_synchronize_rcu();
		/* a reader blocked in poll must see the buffer go away */
		wake_up_all(&event->waitq);
		perf_buffer_put(old);
	}
	if (!rb)
		return 0;
	/*
	 * Readers of the old buffer's list may still stand on rb_entry:
	 * linking it into another list before they are done would walk
	 * them into that one. A plain unmap does not wait (the event's
	 * memory outlives them anyway); only a new attach does, and only
	 * if no grace period has passed since.
	 */
	cond_synchronize_rcu(event->rb_detach_gp);
	spin_lock_irqsave(&rb->event_lock, flags);
	if (rb->unmapped) {
		spin_unlock_irqrestore(&rb->event_lock, flags);
		return -EINVAL;
	}
	refcount_inc(&rb->refcount);
	list_add_rcu(&event->rb_entry, &rb->event_list);
	rcu_assign_pointer(event->rb, rb);
	/* a control page describes the task the event counts for */
	perf_ctx_unclone(READ_ONCE(event->ctx));
	spin_unlock_irqrestore(&rb->event_lock, flags);
	return 0;
}

/**
 * perf_buffer_wakeup - wake everyone waiting on the buffer @event uses
 * @event: the event
 *
 * Poll and fasync readers of every event that shares the buffer; any
 * context that may take spinlocks (the irq_work of an overflow).
 */
void perf_buffer_wakeup(struct perf_event *event)
{
	struct perf_buffer *rb;
	struct perf_event *iter;

	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (!rb) {
		rcu_read_unlock();
		return;
	}
	atomic_set(&rb->poll, EPOLLIN | EPOLLRDNORM);
	list_for_each_entry_rcu(iter, &rb->event_list, rb_entry) {
		wake_up_all(&iter->waitq);
		if (iter != event)
			kill_fasync(&iter->fasync, SIGIO, POLL_IN);
	}
	rcu_read_unlock();
}

/**
 * perf_mmap_charge_check - may the caller lock @pages more pages?
 * @pages: the pages of the new mapping
 * @extra: set to how many of them count against RLIMIT_MEMLOCK
 *
 * Each user may lock perf_event_mlock_kb per CPU in buffers (data and
 * AUX areas together) for free; beyond that the pages count against
 * RLIMIT_MEMLOCK as pinned memory of the mm, unless the caller has
 * CAP_IPC_LOCK or perf_event_paranoid is -1. Returns 0 or -EPERM.
 */
int perf_mmap_charge_check(long pages, long *extra)
{
	struct user_struct *user = current_user();
	unsigned long limit, lock_limit, locked;
	long user_locked;

	limit = (READ_ONCE(sysctl_perf_event_mlock) >> (PAGE_SHIFT - 10)) *
		num_online_cpus();
	user_locked = atomic_long_read(&user->locked_vm);
	/* a lowered limit does not make old charges count twice */
	if (user_locked > limit)
		user_locked = limit;
	user_locked += pages;
	*extra = 0;
	if (user_locked > limit)
		*extra = user_locked - limit;

	lock_limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	locked = atomic64_read(&current->mm->pinned_vm) + *extra;
	if (locked > lock_limit && sysctl_perf_event_paranoid > -1 &&
	    !capable(CAP_IPC_LOCK))
		return -EPERM;
	return 0;
}

/**
 * perf_mmap_charge - charge a mapping as perf_mmap_charge_check() allowed
 * @c: where the charge is remembered, for perf_mmap_uncharge()
 * @pages: the pages of the mapping
 * @extra: what perf_mmap_charge_check() set
 */
void perf_mmap_charge(struct perf_mmap_charge *c, long pages, long extra)
{
	struct user_struct *user = current_user();

	atomic_long_add(pages - extra, &user->locked_vm);
	atomic64_add(extra, &current->mm->pinned_vm);
	c->user = get_uid(user);
	c->locked = pages - extra;
	c->pinned = extra;
	c->mm = current->mm;
	mmgrab(c->mm);
}

/**
 * perf_mmap_uncharge - return what perf_mmap_charge() took, once
 * @c: the charge
 */
void perf_mmap_uncharge(struct perf_mmap_charge *c)
{
	if (!c->user)
		return;
	atomic_long_sub(c->locked, &c->user->locked_vm);
	atomic64_sub(c->pinned, &c->mm->pinned_vm);
	free_uid(c->user);
	mmdrop(c->mm);
	c->user = NULL;
}

/*
 * The last mapping of a buffer went away: return its charge and detach
 * every event from it, those redirected into it by SET_OUTPUT included,
 * as nobody can read what they would write. Caller holds @event's
 * mmap_mutex, @event being the one whose mapping went last.
 */
static void perf_buffer_unmapped(struct perf_event *event,
				 struct perf_buffer *rb)
{
	struct perf_event *iter;
	unsigned long flags;

	/* from now on nobody joins, so the walk below sees every writer */
	spin_lock_irqsave(&rb->event_lock, flags);
	rb->unmapped = true;
	spin_unlock_irqrestore(&rb->event_lock, flags);

	perf_mmap_uncharge(&rb->charge);

	for (;;) {
		rcu_read_lock();
		iter = list_first_or_null_rcu(&rb->event_list,
					      struct perf_event, rb_entry);
		while (iter && iter == event)
			iter = list_next_or_null_rcu(&rb->event_list,
						     &iter->rb_entry,
						     struct perf_event,
						     rb_entry);
		if (iter && !refcount_inc_not_zero(&iter->refcount))
			iter = NULL;
		rcu_read_unlock();
		if (!iter)
			break;
		/* the others have no mapping left to hold their mutex */
		mutex_lock_nested(&iter->mmap_mutex, SINGLE_DEPTH_NESTING);
		if (rcu_access_pointer(iter->rb) == rb)
			perf_buffer_attach(iter, NULL);
		mutex_unlock(&iter->mmap_mutex);
		/*
		 * Its fd may have been closed meanwhile: ours can be the last
		 * reference, whose free must not run under this event's
		 * mmap_mutex and the mm's mmap_lock held here
		 */
		perf_event_put_async(iter);
	}
	if (rcu_access_pointer(event->rb) == rb)
		perf_buffer_attach(event, NULL);
}

/*
 * Each mapping holds a reference on its buffer (vm_private_data), so the
 * pages outlive every mapping of them, and counts in the mapping event's
 * and the buffer's mmap_count. The PMU hears of every mapping of its
 * event (x86 lets an mm with a mapped counter use rdpmc).
 */
static void perf_vma_open(struct vm_area_struct *vma)
{
	struct perf_event *event = vma->vm_file->private_data;
	struct perf_buffer *rb = vma->vm_private_data;

	refcount_inc(&rb->refcount);
	perf_buffer_mmap_get(event, rb);
	if (event->pmu->event_mapped)
		event->pmu->event_mapped(event, vma->vm_mm);
}

/**
 * perf_buffer_mmap_get - count one more mapping of @rb through @event
 * @event: the event whose fd is mapped
 * @rb: its buffer
 *
 * The AUX area's mappings count too: the buffer keeps its writers while
 * any part of it is mapped.
 */
void perf_buffer_mmap_get(struct perf_event *event, struct perf_buffer *rb)
{
	atomic_inc(&rb->mmap_count);
	atomic_inc(&event->mmap_count);
}

/**
 * perf_buffer_mmap_put - one mapping of @rb through @event went away
 * @event: the event whose fd was mapped
 * @rb: its buffer
 *
 * The last mapping of the buffer detaches every writer; the last of
 * @event's ends its redirection into another event's buffer. The caller
 * still holds its own reference on @rb.
 */
void perf_buffer_mmap_put(struct perf_event *event, struct perf_buffer *rb)
{
	bool event_last, rb_last;

	mutex_lock(&event->mmap_mutex);
	event_last = atomic_dec_and_test(&event->mmap_count);
	rb_last = atomic_dec_and_test(&rb->mmap_count);
	if (rb_last)
		perf_buffer_unmapped(event, rb);
	else if (event_last && rcu_access_pointer(event->rb) == rb)
		/* a view of another event's buffer: the redirection ends */
		perf_buffer_attach(event, NULL);
	mutex_unlock(&event->mmap_mutex);
}

static void perf_vma_close(struct vm_area_struct *vma)
{
	struct perf_event *event = vma->vm_file->private_data;
	struct perf_buffer *rb = vma->vm_private_data;

	if (event->pmu->event_unmapped)
		event->pmu->event_unmapped(event, vma->vm_mm);
	perf_buffer_mmap_put(event, rb);
	perf_buffer_put(rb);
}

/* The pages are mapped at mmap() time; a fault is outside the buffer. */
static vm_fault_t perf_vma_fault(struct vm_fault *vmf)
{
	return VM_FAULT_SIGBUS;
}

static int perf_vma_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	/* a part of the buffer is no use to anyone */
	return -EINVAL;
}

static const struct vm_operations_struct perf_vm_ops = {
	.open		= perf_vma_open,
	.close		= perf_vma_close,
	.fault		= perf_vma_fault,
	.may_split	= perf_vma_may_split,
};

/**
 * perf_buffer_mmap - map @event's ring buffer, creating it on first use
 * @event: the event
 * @vma: the mapping being made
 *
 * The mapping is the control page plus 2^n data pages (n >= 0), or the
 * control page alone. A writable mapping tells the kernel how far the
 * reader got (data_tail); a read-only one lets the kernel overwrite.
 */
int perf_buffer_mmap(struct perf_event *event, struct vm_area_struct *vma)
{
	unsigned long pages = vma_pages(vma);
	struct perf_buffer *rb;
	int nr_pages, err;
	long extra;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	nr_pages = pages - 1;
	if (!pages || (nr_pages && !is_power_of_2(nr_pages)))
		return -EINVAL;
	if (pages > INT_MAX >> PAGE_SHIFT)
		return -ENOMEM;
	/* an inherited per-task event has copies with no buffer to share */
	if (event->cpu == -1 && event->attr.inherit)
		return -EINVAL;

	err = security_perf_event_read(event);
	if (err)
		return err;

	mutex_lock(&event->mmap_mutex);
	rb = rcu_dereference_protected(event->rb,
				       lockdep_is_held(&event->mmap_mutex));
	if (rb && READ_ONCE(rb->unmapped)) {
		/* another's buffer, losing its last mapping: start afresh */
		perf_buffer_attach(event, NULL);
		rb = NULL;
	}
	if (rb) {
		/* ours, or by SET_OUTPUT another's: a second view of it */
		if (rb->nr_pages != nr_pages ||
		    !!(vma->vm_flags & VM_WRITE) == rb->overwrite) {
			err = -EINVAL;
			goto unlock;
		}
		refcount_inc(&rb->refcount);
	} else {
		/* the limits first: a refused user costs no allocation */
		err = perf_mmap_charge_check(pages, &extra);
		if (err)
			goto unlock;
		rb = perf_buffer_alloc(event, nr_pages,
				       !(vma->vm_flags & VM_WRITE));
		if (!rb) {
			err = -ENOMEM;
			goto unlock;
		}
		perf_mmap_charge(&rb->charge, pages, extra);
		perf_buffer_attach(event, rb);
		perf_event_update_userpage(event);
	}

	err = remap_vmalloc_range(vma, rb->user_page, 0);
	if (err) {
		if (!atomic_read(&rb->mmap_count))
			perf_buffer_unmapped(event, rb);
		perf_buffer_put(rb);
		goto unlock;
	}
	perf_buffer_mmap_get(event, rb);
	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	if (rb->overwrite)
		vm_flags_clear(vma, VM_MAYWRITE);
	vma->vm_private_data = rb;
	vma->vm_ops = &perf_vm_ops;
	if (event->pmu->event_mapped)
		event->pmu->event_mapped(event, vma->vm_mm);
unlock:
	mutex_unlock(&event->mmap_mutex);
	return err;
}

/**
 * perf_buffer_set_output - send @event's records to @output's buffer
 * @event: the event
 * @output: the event whose buffer is used, or NULL
 *
 * @output NULL stops the redirection. An event with a mapping of its own
 * cannot be redirected.
 */
int perf_buffer_set_output(struct perf_event *event, struct perf_event *output)
{
	struct perf_buffer *rb = NULL;
	int err = 0;

	if (output) {
		rb = perf_buffer_get(output);
		/* nothing to write into yet */
		if (!rb)
			return -EINVAL;
	}
	mutex_lock(&event->mmap_mutex);
	/* a buffer whose last mapping went is refused by the attach */
	if (atomic_read(&event->mmap_count))
		err = -EINVAL;
	else
		err = perf_buffer_attach(event, rb);
	mutex_unlock(&event->mmap_mutex);
	perf_buffer_put(rb);
	return err;
}

/**
 * perf_buffer_pause - stop (or restart) writing into @event's buffer
 * @event: the event
 * @pause: true to stop, false to restart
 *
 * Only for overwrite buffers, whose reader needs them to hold still.
 */
int perf_buffer_pause(struct perf_event *event, bool pause)
{
	struct perf_buffer *rb = perf_buffer_get(event);

	if (!rb)
		return -EINVAL;
	WRITE_ONCE(rb->paused, pause);
	perf_buffer_put(rb);
	return 0;
}

/**
 * perf_event_release_buffer - drop the buffer of an event being freed
 * @event: the event
 */
void perf_event_release_buffer(struct perf_event *event)
{
	mutex_lock(&event->mmap_mutex);
	perf_buffer_attach(event, NULL);
	mutex_unlock(&event->mmap_mutex);
}

