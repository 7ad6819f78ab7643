// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX area: a second part of an event's ring buffer, mapped at the
 * aux_offset user space chose, into which a PMU driver writes a stream of
 * its own (an instruction or branch trace) while the core writes one
 * PERF_RECORD_AUX into the data buffer for each stretch written. And the
 * records about such streams: ITRACE_START, AUX_OUTPUT_HW_ID, and
 * LOST_SAMPLES for samples a driver had to drop.
 *
 * The driver writes through an output handle: perf_aux_output_begin()
 * gives it the area, the position and the room the reader left;
 * perf_aux_output_end() publishes what it wrote. One handle may be open
 * on an area at a time (a tracer is on one CPU, as the buffer's writers
 * are), and it may stay open for as long as the event runs, so the area
 * is refcounted apart from its buffer: the last unmap takes it out of the
 * buffer at once, and the last handle frees it.
 *
 * A writable mapping of the area means the reader moves aux_tail and the
 * driver stops where it would overwrite what was not read; a read-only
 * one means the driver overwrites the oldest data (a snapshot buffer).
 * The layout, the errnos and the records are 6.12's, as the selftest
 * aux_area shows on both kernels (Documentation/perf-core/design.rst,
 * "The AUX area").
 */
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/security.h>
#include <linux/slab.h>

#include "layer/records.h"

/* flags that make a record worth writing even with no data */
#define PERF_AUX_FLAGS_NEWS	(PERF_AUX_FLAG_TRUNCATED | \
				 PERF_AUX_FLAG_PARTIAL | \
				 PERF_AUX_FLAG_COLLISION)

static void perf_aux_free_work(struct work_struct *work)
{
	struct perf_aux_area *aux = container_of(work, struct perf_aux_area,
						 free_work);
	int i;

	/* the irq_work that queued us may still be finishing on its CPU */
	irq_work_sync(&aux->free_irq_work);
	if (aux->priv)
		aux->pmu->free_aux(aux->priv);
	module_put(aux->pmu->module);
	for (i = 0; i < aux->nr_pages && aux->pages[i]; i++) {
		struct page *page = virt_to_page(aux->pages[i]);

		set_page_private(page, 0);
		__free_page(page);
	}
	kvfree(aux->pages);
	perf_buffer_put(aux->rb);
	/* a handle's begin may be taking its reference under RCU */
	kfree_rcu(aux, rcu_head);
}

static void perf_aux_free_irq_work(struct irq_work *work)
{
	struct perf_aux_area *aux = container_of(work, struct perf_aux_area,
						 free_irq_work);

	schedule_work(&aux->free_work);
}

/*
 * Drop a reference. The last one may be a handle's, ended in the PMI or
 * under a context's lock, where neither may a work item be queued (the
 * pool's lock nests outside ctx->lock) nor the driver's free_aux() run:
 * an irq_work queues the work item that frees the pages and the driver's
 * state.
 */
static void perf_aux_put(struct perf_aux_area *aux)
{
	if (refcount_dec_and_test(&aux->refcount))
		irq_work_queue(&aux->free_irq_work);
}

/*
 * The pages, as 6.12 lays them out: single pages for a PMU that can
 * scatter; for one that cannot (PERF_PMU_CAP_AUX_NO_SG) physically
 * contiguous chunks as large as the whole area, or in a writable area as
 * large as the watermark (so that the driver can interrupt at each
 * chunk's end), smaller where the allocator has none that large. A
 * chunk's pages are mapped and freed one by one; its first page's
 * private field holds the chunk's order, for the driver's tables.
 */
static int perf_aux_alloc_pages(struct perf_aux_area *aux, int node)
{
	int order = 0, i = 0;

	if (aux->pmu->capabilities & PERF_PMU_CAP_AUX_NO_SG) {
		order = ilog2(aux->nr_pages);
		if (!aux->overwrite)
			order = min(order, ilog2(max(aux->watermark >> PAGE_SHIFT,
						     1UL)));
		order = min(order, MAX_PAGE_ORDER);
	}
	while (i < aux->nr_pages) {
		struct page *page;
		int j;

		for (;;) {
			gfp_t gfp = GFP_KERNEL | __GFP_ZERO;

			if (order)
				gfp |= __GFP_NOWARN | __GFP_NORETRY;
			page = alloc_pages_node(node, gfp, order);
			if (page || !order)
				break;
			order--;
		}
		if (!page)
			return -ENOMEM;
		if (order)
			split_page(page, order);
		set_page_private(page, order);
		for (j = 0; j < 1 << order; j++)
			aux->pages[i++] = page_address(page + j);
	}
	return 0;
}

static struct perf_aux_area *perf_aux_alloc(struct perf_event *event,
					    struct perf_buffer *rb,
					    int nr_pages, unsigned long pgoff,
					    bool overwrite)
{
	int node = event->cpu == -1 ? NUMA_NO_NODE : cpu_to_node(event->cpu);
	struct pmu *pmu = event->pmu;
	struct perf_aux_area *aux;
	unsigned long watermark;

	aux = kzalloc_node(sizeof(*aux), GFP_KERNEL, node);
	if (!aux)
		return NULL;
	aux->pages = kvcalloc(nr_pages, sizeof(void *), GFP_KERNEL);
	if (!aux->pages) {
		kfree(aux);
		return NULL;
	}
	/* the buffer's reference (rb->aux), dropped at the last unmap */
	refcount_set(&aux->refcount, 1);
	refcount_inc(&rb->refcount);
	aux->rb = rb;
	/* the event holds the module; the area may outlive the event */
	__module_get(pmu->module);
	aux->pmu = pmu;
	aux->nr_pages = nr_pages;
	aux->size = (unsigned long)nr_pages << PAGE_SHIFT;
	aux->pgoff = pgoff;
	aux->overwrite = overwrite;
	init_irq_work(&aux->free_irq_work, perf_aux_free_irq_work);
	INIT_WORK(&aux->free_work, perf_aux_free_work);

	/* wake the reader every aux_watermark bytes, by default half */
	watermark = event->attr.aux_watermark;
	if (!watermark || watermark > aux->size)
		watermark = aux->size / 2;
	aux->watermark = overwrite ? aux->size : watermark;

	if (!perf_aux_alloc_pages(aux, node))
		aux->priv = pmu->setup_aux(event, aux->pages, nr_pages,
					   overwrite);
	if (!aux->priv) {
		perf_aux_free_work(&aux->free_work);
		return NULL;
	}
	return aux;
}

/* Take the area out of its buffer: its last mapping went. */
static void perf_aux_detach(struct perf_buffer *rb, struct perf_aux_area *aux)
{
	lockdep_assert_held(&rb->aux_mutex);
	if (rcu_access_pointer(rb->aux) == aux)
		RCU_INIT_POINTER(rb->aux, NULL);
	perf_mmap_uncharge(&aux->charge);
	perf_aux_put(aux);
}

/*
 * A mapping holds a reference on the area (vm_private_data) and counts
 * as a mapping of its buffer and of the event: the data buffer keeps its
 * writers while any part of it is mapped.
 */
static void perf_aux_vma_open(struct vm_area_struct *vma)
{
	struct perf_event *event = vma->vm_file->private_data;
	struct perf_aux_area *aux = vma->vm_private_data;

	refcount_inc(&aux->refcount);
	atomic_inc(&aux->mmap_count);
	perf_buffer_mmap_get(event, aux->rb);
}

static void perf_aux_vma_close(struct vm_area_struct *vma)
{
	struct perf_event *event = vma->vm_file->private_data;
	struct perf_aux_area *aux = vma->vm_private_data;
	struct perf_buffer *rb = aux->rb;

	mutex_lock(&rb->aux_mutex);
	if (atomic_dec_and_test(&aux->mmap_count))
		perf_aux_detach(rb, aux);
	mutex_unlock(&rb->aux_mutex);
	/* the area holds the buffer until the put below */
	perf_buffer_mmap_put(event, rb);
	perf_aux_put(aux);
}

static vm_fault_t perf_aux_vma_fault(struct vm_fault *vmf)
{
	/* every page was inserted at mmap() */
	return VM_FAULT_SIGBUS;
}

static int perf_aux_vma_may_split(struct vm_area_struct *vma,
				  unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct perf_aux_vm_ops = {
	.open		= perf_aux_vma_open,
	.close		= perf_aux_vma_close,
	.fault		= perf_aux_vma_fault,
	.may_split	= perf_aux_vma_may_split,
};

static int perf_aux_insert_pages(struct vm_area_struct *vma,
				 struct perf_aux_area *aux)
{
	int i, err;

	for (i = 0; i < aux->nr_pages; i++) {
		err = vm_insert_page(vma, vma->vm_start + i * PAGE_SIZE,
				     virt_to_page(aux->pages[i]));
		if (err)
			return err;
	}
	return 0;
}

/**
 * perf_aux_mmap - map the AUX area of @event's ring buffer
 * @event: the event whose fd is mapped
 * @vma: the mapping, at a non-zero offset
 *
 * The data buffer comes first, and its control page says where the area
 * goes: aux_offset (past the data pages) and aux_size, a power-of-two
 * number of pages, which the mapping must match. The first mapping
 * allocates the area (charged as the data pages are) and hands its pages
 * to the PMU's setup_aux(); a later one is another view of the same.
 * Returns EINVAL for a mapping that does not match, EPERM past the mlock
 * limits, EOPNOTSUPP for a PMU without an AUX area, ENOMEM.
 */
int perf_aux_mmap(struct perf_event *event, struct vm_area_struct *vma)
{
	unsigned long size = vma->vm_end - vma->vm_start;
	unsigned long nr_pages = vma_pages(vma);
	struct perf_aux_area *aux;
	struct perf_buffer *rb;
	u64 aux_offset, aux_size;
	bool created = false;
	long extra;
	int err;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	err = security_perf_event_read(event);
	if (err)
		return err;

	mutex_lock(&event->mmap_mutex);
	err = -EINVAL;
	rb = rcu_dereference_protected(event->rb,
				       lockdep_is_held(&event->mmap_mutex));
	if (!rb || READ_ONCE(rb->unmapped))
		goto unlock;
	mutex_lock(&rb->aux_mutex);
	aux_offset = READ_ONCE(rb->user_page->aux_offset);
	aux_size = READ_ONCE(rb->user_page->aux_size);
	if (aux_offset < rb->size + PAGE_SIZE ||
	    aux_offset != (u64)vma->vm_pgoff << PAGE_SHIFT ||
	    aux_size != size || !is_power_of_2(nr_pages))
		goto unlock_aux;
	err = -ENOMEM;
	if (nr_pages > INT_MAX >> PAGE_SHIFT)
		goto unlock_aux;
	err = -EINVAL;
	aux = rcu_dereference_protected(rb->aux,
					lockdep_is_held(&rb->aux_mutex));
	if (aux) {
		/* another view of the area: the same place, size and mode */
		if (aux->pgoff != vma->vm_pgoff || aux->nr_pages != nr_pages ||
		    !!(vma->vm_flags & VM_WRITE) == aux->overwrite)
			goto unlock_aux;
		refcount_inc(&aux->refcount);
	} else {
		err = -EOPNOTSUPP;
		if (!has_aux(event))
			goto unlock_aux;
		err = perf_mmap_charge_check(nr_pages, &extra);
		if (err)
			goto unlock_aux;
		err = -ENOMEM;
		aux = perf_aux_alloc(event, rb, nr_pages, vma->vm_pgoff,
				     !(vma->vm_flags & VM_WRITE));
		if (!aux)
			goto unlock_aux;
		perf_mmap_charge(&aux->charge, nr_pages, extra);
		rcu_assign_pointer(rb->aux, aux);
		/* the mapping's reference, beside the buffer's */
		refcount_inc(&aux->refcount);
		created = true;
	}

	vm_flags_set(vma, VM_DONTCOPY | VM_DONTEXPAND | VM_DONTDUMP);
	if (aux->overwrite)
		vm_flags_clear(vma, VM_MAYWRITE);
	err = perf_aux_insert_pages(vma, aux);
	if (err) {
		if (created)
			perf_aux_detach(rb, aux);
		perf_aux_put(aux);
		goto unlock_aux;
	}
	atomic_inc(&aux->mmap_count);
	perf_buffer_mmap_get(event, rb);
	vma->vm_private_data = aux;
	vma->vm_ops = &perf_aux_vm_ops;
unlock_aux:
	mutex_unlock(&rb->aux_mutex);
unlock:
	mutex_unlock(&event->mmap_mutex);
	return err;
}

/**
 * perf_aux_group_check - may @event use the AUX area of its group's leader?
 * @event: a new event
 * @leader: the leader of the group it joins, or NULL
 *
 * An aux_output event (PEBS into Intel PT) writes its records into the
 * leader's area, so the leader must be an AUX event that the event's own
 * driver can write into (its aux_output_match()); a sample with
 * aux_sample_size carries a snapshot of the leader's area, so the
 * leader's driver must make snapshots. Returns 0 or -EINVAL.
 */
int perf_aux_group_check(struct perf_event *event, struct perf_event *leader)
{
	struct pmu *pmu = event->pmu;

	if (!event->attr.aux_output && !event->attr.aux_sample_size)
		return 0;
	if (!leader || leader == event || !has_aux(leader))
		return -EINVAL;
	if (event->attr.aux_output &&
	    (!pmu->aux_output_match || !pmu->aux_output_match(leader)))
		return -EINVAL;
	if (event->attr.aux_sample_size && !leader->pmu->snapshot_aux)
		return -EINVAL;
	/* its records go to the area or carry it, not both */
	if (event->attr.aux_output && event->attr.aux_sample_size)
		return -EINVAL;
	return 0;
}

/**
 * perf_aux_output_begin - open an output handle on @event's AUX area
 * @handle: the handle to fill
 * @event: the event whose driver writes (an inherited copy writes into
 *	its origin's buffer)
 *
 * On success @handle->head is where the driver writes next (a running
 * offset: modulo the area's size it is the byte in the area) and
 * @handle->size how many bytes it may write, up to what the reader has
 * not consumed (less one byte, so that a full area is not an empty one),
 * or the whole area in overwrite mode; @handle->wakeup is the head at
 * which the reader wants waking. Returns the driver's state from
 * setup_aux(), or NULL: no area, another handle open, or no room left
 * (the reader is woken; the event stays enabled, and its driver starts
 * again at its next start). PAUSE_OUTPUT pauses the data buffer alone,
 * as in 6.12. Any context, NMI included.
 */
void *perf_aux_output_begin(struct perf_output_handle *handle,
			    struct perf_event *event)
{
	struct perf_event *owner = event->parent ? event->parent : event;
	struct perf_aux_area *aux = NULL;
	struct perf_buffer *rb;
	unsigned long head, tail;

	handle->event = NULL;
	handle->aux = NULL;
	handle->size = 0;
	handle->aux_flags = 0;

	rcu_read_lock();
	rb = rcu_dereference(owner->rb);
	if (rb)
		aux = rcu_dereference(rb->aux);
	if (aux && !refcount_inc_not_zero(&aux->refcount))
		aux = NULL;
	rcu_read_unlock();
	if (!aux)
		return NULL;
	rb = aux->rb;
	if (aux->pmu != event->pmu)
		goto put;
	if (local_cmpxchg(&aux->nest, 0, 1) != 0)
		goto put;

	head = local_read(&rb->aux_head);
	handle->event = event;
	handle->rb = rb;
	handle->head = head;
	if (aux->overwrite) {
		handle->size = aux->size;
		handle->wakeup = head + aux->size;
	} else {
		tail = READ_ONCE(rb->user_page->aux_tail);
		/* the reader's tail is read before the data it frees is written */
		smp_mb();
		/* one byte stays free: head == tail is an empty area */
		handle->size = (tail - head - 1) & (aux->size - 1);
		handle->wakeup = local_read(&rb->aux_wakeup) + aux->watermark;
		if (!handle->size) {
			/* the reader has to catch up; the driver stops */
			perf_output_data_ready(event, rb);
			handle->event = NULL;
			local_set(&aux->nest, 0);
			goto put;
		}
	}
	handle->aux = aux;
	return aux->priv;
put:
	perf_aux_put(aux);
	return NULL;
}
EXPORT_SYMBOL_GPL(perf_aux_output_begin);

/* PERF_RECORD_AUX: @size bytes at @offset of the area are new */
static void perf_aux_record(struct perf_event *event, u64 offset, u64 size,
			    u64 flags)
{
	struct perf_event_header header = { .type = PERF_RECORD_AUX };
	struct {
		u64 offset;
		u64 size;
		u64 flags;
	} body = { offset, size, flags };

	perf_sb_write(event, &header, &body, sizeof(body), NULL, 0);
}

/**
 * perf_aux_output_end - publish what the driver wrote and close @handle
 * @handle: the handle perf_aux_output_begin() opened
 * @size: the bytes written since it was opened (or last skipped)
 *
 * The data buffer gets a PERF_RECORD_AUX for them, with the flags the
 * driver set (perf_aux_output_flag()); one with no data is written only
 * when a flag says something (TRUNCATED, PARTIAL, COLLISION). In
 * overwrite mode the driver tells where its data now ends by
 * @handle->head, and the record says OVERWRITE. An area unmapped while
 * the handle was open still gets its record and head (as in 6.12): the
 * stream goes on in the buffer.
 */
void perf_aux_output_end(struct perf_output_handle *handle,
			 unsigned long size)
{
	struct perf_aux_area *aux = handle->aux;
	struct perf_event *event = handle->event;
	struct perf_buffer *rb = handle->rb;
	unsigned long offset, head;

	if (WARN_ON_ONCE(!aux))
		return;
	if (aux->overwrite) {
		handle->aux_flags |= PERF_AUX_FLAG_OVERWRITE;
		offset = handle->head;
		local_set(&rb->aux_head, offset);
	} else {
		if (WARN_ON_ONCE(size > handle->size))
			size = handle->size;
		handle->aux_flags &= ~(u64)PERF_AUX_FLAG_OVERWRITE;
		offset = local_read(&rb->aux_head);
		local_add(size, &rb->aux_head);
	}
	if (size || (handle->aux_flags & PERF_AUX_FLAGS_NEWS))
		perf_aux_record(event, offset, size, handle->aux_flags);

	head = local_read(&rb->aux_head);
	/* the data before the head that covers it */
	smp_wmb();
	WRITE_ONCE(rb->user_page->aux_head, head);
	if (head - local_read(&rb->aux_wakeup) >= aux->watermark ||
	    (handle->aux_flags & PERF_AUX_FLAG_TRUNCATED)) {
		local_set(&rb->aux_wakeup, head);
		perf_output_data_ready(event, rb);
	}
	handle->event = NULL;
	handle->aux = NULL;
	/* the area is free for the next handle once all of the above is */
	barrier();
	local_set(&aux->nest, 0);
	perf_aux_put(aux);
}
EXPORT_SYMBOL_GPL(perf_aux_output_end);

/**
 * perf_aux_output_skip - leave @size bytes of the area unwritten
 * @handle: an open handle
 * @size: how many (padding a driver needs, counted as data)
 *
 * Returns 0, or -ENOSPC when fewer than @size bytes are left.
 */
int perf_aux_output_skip(struct perf_output_handle *handle,
			 unsigned long size)
{
	struct perf_aux_area *aux = handle->aux;

	if (!aux || size > handle->size)
		return -ENOSPC;
	local_add(size, &aux->rb->aux_head);
	handle->head += size;
	handle->size -= size;
	if (handle->head - local_read(&aux->rb->aux_wakeup) >= aux->watermark) {
		local_set(&aux->rb->aux_wakeup, handle->head);
		handle->wakeup = handle->head + aux->watermark;
		perf_output_data_ready(handle->event, aux->rb);
	}
	return 0;
}
EXPORT_SYMBOL_GPL(perf_aux_output_skip);

/**
 * perf_get_aux - the driver's state of the area @handle has open
 * @handle: the handle
 *
 * NULL when the handle is not open.
 */
void *perf_get_aux(struct perf_output_handle *handle)
{
	return handle->aux ? handle->aux->priv : NULL;
}
EXPORT_SYMBOL_GPL(perf_get_aux);

/**
 * perf_aux_output_flag - say something of the stretch being written
 * @handle: an open handle
 * @flags: PERF_AUX_FLAG_* (TRUNCATED, PARTIAL, COLLISION, the format bits)
 */
void perf_aux_output_flag(struct perf_output_handle *handle, u64 flags)
{
	handle->aux_flags |= flags;
}
EXPORT_SYMBOL_GPL(perf_aux_output_flag);

/**
 * perf_event_itrace_started - the driver has told where @event's trace starts
 * @event: an event of a PMU with PERF_PMU_CAP_ITRACE
 *
 * Until a driver calls it (from add()), the core writes an
 * ITRACE_START record naming the current task each time the event goes
 * on a CPU; after it, no more.
 */
void perf_event_itrace_started(struct perf_event *event)
{
	event->attach_state |= PERF_ATTACH_ITRACE;
}
EXPORT_SYMBOL_GPL(perf_event_itrace_started);

/**
 * perf_log_itrace_start - ITRACE_START for an event going on this CPU
 * @event: an event of a PMU with PERF_PMU_CAP_ITRACE, about to be added
 *
 * Tells the reader which task the trace that follows is of: the current
 * one, in the event's pid namespace. Context lock held, irqs off.
 */
void perf_log_itrace_start(struct perf_event *event)
{
	struct perf_event_header header = { .type = PERF_RECORD_ITRACE_START };
	struct {
		u32 pid;
		u32 tid;
	} body;

	if (event->attach_state & PERF_ATTACH_ITRACE)
		return;
	body.pid = task_tgid_nr_ns(current, event->ns);
	body.tid = task_pid_nr_ns(current, event->ns);
	perf_sb_write(event, &header, &body, sizeof(body), NULL, 0);
}

/**
 * perf_report_aux_output_id - tell the reader the hardware id of a stream
 * @event: the event whose AUX data carries @hw_id
 * @hw_id: the id the hardware writes into the stream (a trace id)
 */
void perf_report_aux_output_id(struct perf_event *event, u64 hw_id)
{
	struct perf_event_header header = {
		.type = PERF_RECORD_AUX_OUTPUT_HW_ID,
	};

	perf_sb_write(event, &header, &hw_id, sizeof(hw_id), NULL, 0);
}
EXPORT_SYMBOL_GPL(perf_report_aux_output_id);

/**
 * perf_log_lost_samples - tell the reader a driver dropped @lost samples
 * @event: the event whose samples were lost
 * @lost: how many
 */
void perf_log_lost_samples(struct perf_event *event, u64 lost)
{
	struct perf_event_header header = {
		.type = PERF_RECORD_LOST_SAMPLES,
	};

	perf_sb_write(event, &header, &lost, sizeof(lost), NULL, 0);
}
EXPORT_SYMBOL_GPL(perf_log_lost_samples);
