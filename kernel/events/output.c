// SPDX-License-Identifier: GPL-2.0
/*
 * Writing records into a ring buffer, and the layout of samples.
 *
 * The writer works in any context, NMI included, and nests: an NMI may
 * write while an interrupt's record on the same CPU is half written.
 * Space is reserved by moving rb->head with cmpxchg; the records become
 * visible to the reader when the outermost writer publishes
 * user_page->data_head, which it does only once no nested writer is left.
 *
 * Record layouts are those of include/uapi/linux/perf_event.h; the sizes
 * that depend only on attr are computed once, at event creation. The
 * read_format layout is here too: read() (read.c) and PERF_SAMPLE_READ
 * share it.
 */
#include <linux/bitops.h>
#include <linux/circ_buf.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/perf_regs.h>
#include <linux/poll.h>
#include <linux/pid_namespace.h>
#include <linux/sched/task_stack.h>
#include <linux/uaccess.h>

#include <asm/perf_event.h>

#include "layer/output.h"

/* "not available" in every field of a data source */
#define PERF_DATA_SRC_NA	(PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | \
				 PERF_MEM_S(SNOOP, NA) | PERF_MEM_S(LOCK, NA) | \
				 PERF_MEM_S(TLB, NA) | PERF_MEM_S(LVLNUM, NA))

/* Is there room for @size bytes between the reader and the writer? */
static bool perf_buffer_has_space(unsigned long head, unsigned long tail,
				  unsigned long size, unsigned long len,
				  bool backward)
{
	if (!backward)
		return CIRC_SPACE(head, tail, size) >= len;
	return CIRC_SPACE(tail, head, size) >= len;
}

/**
 * perf_output_data_ready - tell @rb's readers there is data (any context)
 * @event: the event whose output it is (its parent answers for a child)
 * @rb: the buffer it went into
 *
 * The poll bits are set here; the wait queue and the signal are left to
 * @event's pending irq_work, as the caller may hold a context's lock or
 * be in an NMI.
 */
void perf_output_data_ready(struct perf_event *event, struct perf_buffer *rb)
{
	if (event->parent)
		event = event->parent;
	atomic_set(&rb->poll, EPOLLIN | EPOLLRDNORM);
	WRITE_ONCE(event->pending_wakeup, 1);
	perf_event_queue_pending(event);
}

/*
 * Publish data_head, if we are the outermost writer. A nested writer may
 * move rb->head after we read it but before we drop the nesting count;
 * then it did not publish, and we go round again.
 */
static __always_inline void
perf_output_put_handle(struct perf_output_handle *handle)
{
	struct perf_buffer *rb = handle->rb;
	unsigned long head;
	long nest;

	nest = local_read(&rb->nest);
	if (nest > 1) {
		local_dec(&rb->nest);
		goto out;
	}
again:
	head = local_read(&rb->head);
	/* the data must be visible before the head that covers it */
	smp_wmb();
	WRITE_ONCE(rb->user_page->data_head, head);
	barrier();
	local_set(&rb->nest, 0);
	barrier();
	if (unlikely(head != local_read(&rb->head))) {
		local_inc(&rb->nest);
		goto again;
	}
	if (handle->wakeup != local_read(&rb->wakeup))
		perf_output_data_ready(handle->event, handle->rb);
out:
	return;
}

/* The buffer records of @event go to: inherited copies use the origin's. */
static struct perf_buffer *perf_output_buffer(struct perf_event *event)
{
	if (event->parent)
		event = event->parent;
	return rcu_dereference(event->rb);
}

static int __perf_output_begin(struct perf_output_handle *handle,
			       struct perf_sample_data *data,
			       struct perf_event *event, unsigned int size,
			       bool backward)
{
	struct perf_buffer *rb;
	unsigned long tail, offset, head;
	u64 lost = 0;

	rcu_read_lock();
	rb = perf_output_buffer(event);
	if (unlikely(!rb) || !rb->nr_pages)
		goto out;
	if (unlikely(rb->backward != backward))
		goto out;
	if (unlikely(READ_ONCE(rb->paused))) {
		local_inc(&rb->lost);
		atomic64_inc(&event->lost_samples);
		goto out;
	}

	handle->rb = rb;
	/* not an AUX handle: perf_get_aux() on it finds nothing */
	handle->aux = NULL;
	/* wakeups go through the event that owns the buffer */
	handle->event = event->parent ? event->parent : event;
	local_inc(&rb->nest);
	handle->wakeup = local_read(&rb->wakeup);

	if (unlikely(local_read(&rb->lost) && !rb->overwrite)) {
		/* room for perf_event_output_lost()'s record first */
		lost = local_read(&rb->lost);
		size += sizeof(struct perf_event_header) +
			event->id_header_size + 2 * sizeof(u64);
	}

	do {
		tail = READ_ONCE(rb->user_page->data_tail);
		offset = local_read(&rb->head);
		if (!rb->overwrite &&
		    !perf_buffer_has_space(offset, tail, rb->size, size,
					   backward))
			goto fail;
		head = backward ? offset - size : offset + size;
	} while (local_cmpxchg(&rb->head, offset, head) != offset);

	/* the reader's tail must be read before we overwrite what it read */
	smp_mb();
	if (backward)
		offset = head;

	/* every watermark's worth of bytes wakes the reader once */
	if (!backward) {
		if (unlikely(head - local_read(&rb->wakeup) > rb->watermark))
			local_add(rb->watermark, &rb->wakeup);
	} else {
		if (unlikely(local_read(&rb->wakeup) - head > rb->watermark))
			local_sub(rb->watermark, &rb->wakeup);
	}

	offset &= rb->size - 1;
	handle->addr = rb->data + offset;
	handle->left = rb->size - offset;
	handle->size = size;

	if (unlikely(lost)) {
		local_sub(lost, &rb->lost);
		perf_event_output_lost(handle, lost);
	}
	return 0;

fail:
	local_inc(&rb->lost);
	atomic64_inc(&event->lost_samples);
	perf_output_put_handle(handle);
out:
	rcu_read_unlock();
	return -ENOSPC;
}

/**
 * perf_output_begin - reserve @size bytes for one record of @event
 * @handle: the output handle to set up
 * @data: the sample the record belongs to (not used here)
 * @event: the event the record is written for
 * @size: the size of the record in bytes
 *
 * On success the caller writes exactly @size bytes with the
 * perf_output_*() writers and then calls perf_output_end(); on failure
 * (no buffer, no room) nothing is to be written and the drop is counted.
 */
int perf_output_begin(struct perf_output_handle *handle,
		      struct perf_sample_data *data,
		      struct perf_event *event, unsigned int size)
{
	return __perf_output_begin(handle, data, event, size,
				   event->attr.write_backward);
}
EXPORT_SYMBOL_GPL(perf_output_begin);

int perf_output_begin_forward(struct perf_output_handle *handle,
			      struct perf_sample_data *data,
			      struct perf_event *event, unsigned int size)
{
	return __perf_output_begin(handle, data, event, size, false);
}

int perf_output_begin_backward(struct perf_output_handle *handle,
			       struct perf_sample_data *data,
			       struct perf_event *event, unsigned int size)
{
	return __perf_output_begin(handle, data, event, size, true);
}

/**
 * perf_output_end - finish the record begun by perf_output_begin()
 * @handle: the handle perf_output_begin() filled
 */
void perf_output_end(struct perf_output_handle *handle)
{
	perf_output_put_handle(handle);
	rcu_read_unlock();
}
EXPORT_SYMBOL_GPL(perf_output_end);

static void perf_output_advance(struct perf_output_handle *handle,
				unsigned int len)
{
	handle->addr += len;
	handle->left -= len;
	handle->size -= len;
	if (!handle->left) {
		handle->addr = handle->rb->data;
		handle->left = handle->rb->size;
	}
}

/*
 * Append one u64-sized field (a struct of two u32 included). Records and
 * their fixed fields are u64-aligned, so the field lies within the
 * buffer's current stretch but for a record cut short: the general copy.
 */
#define perf_output_word(handle, x)					\
do {									\
	u64 __w;							\
									\
	BUILD_BUG_ON(sizeof(x) != sizeof(u64));				\
	memcpy(&__w, &(x), sizeof(u64));				\
	if (likely((handle)->left >= sizeof(u64) &&			\
		   (handle)->size >= sizeof(u64))) {			\
		*(u64 *)(handle)->addr = __w;				\
		perf_output_advance((handle), sizeof(u64));		\
	} else {							\
		perf_output_copy((handle), &__w, sizeof(u64));		\
	}								\
} while (0)

/* the sample fields of one word each, which come first in a sample */
#define PERF_OUTPUT_FIXED	(PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |	\
				 PERF_SAMPLE_TID | PERF_SAMPLE_TIME |		\
				 PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |		\
				 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |	\
				 PERF_SAMPLE_PERIOD)

/**
 * perf_output_copy - append @len bytes of @buf to the current record
 * @handle: the handle of the record
 * @buf: the bytes to copy
 * @len: how many
 *
 * Returns the number of bytes that did not fit (0 normally).
 */
unsigned int perf_output_copy(struct perf_output_handle *handle,
			      const void *buf, unsigned int len)
{
	while (len && handle->size) {
		unsigned int n = min3((unsigned long)len, handle->left,
				      handle->size);

		memcpy(handle->addr, buf, n);
		buf += n;
		len -= n;
		perf_output_advance(handle, n);
	}
	return len;
}
EXPORT_SYMBOL_GPL(perf_output_copy);

/**
 * perf_output_skip - leave @len bytes of the record as they are
 * @handle: the handle of the record
 * @len: how many bytes
 */
unsigned int perf_output_skip(struct perf_output_handle *handle,
			      unsigned int len)
{
	while (len && handle->size) {
		unsigned int n = min3((unsigned long)len, handle->left,
				      handle->size);

		len -= n;
		perf_output_advance(handle, n);
	}
	return len;
}

/*
 * Copy @len bytes of @src with @copy, a raw fragment's own copier (BPF's
 * output of an skb), which is told the offset into @src of each stretch.
 */
static void perf_output_copy_with(struct perf_output_handle *handle,
				  perf_copy_f copy, const void *src,
				  unsigned int len)
{
	unsigned long off = 0;

	while (len && handle->size) {
		unsigned int n = min3((unsigned long)len, handle->left,
				      handle->size);

		copy(handle->addr, src, off, n);
		off += n;
		len -= n;
		perf_output_advance(handle, n);
	}
}

/* Copy from user memory with page faults off (we may be in an NMI). */
static unsigned int perf_output_copy_user(struct perf_output_handle *handle,
					  const void __user *buf,
					  unsigned int len)
{
	unsigned int left = 0;

	while (len && handle->size) {
		unsigned int n = min3((unsigned long)len, handle->left,
				      handle->size);
		unsigned long miss;

		pagefault_disable();
		miss = __copy_from_user_inatomic(handle->addr, buf, n);
		pagefault_enable();
		if (miss)
			memset(handle->addr + n - miss, 0, miss);
		left += miss;
		buf += n;
		len -= n;
		perf_output_advance(handle, n);
	}
	return left;
}

/*
 * The sample_id trailer of non-sample records (attr.sample_id_all): its
 * fields in the order the ABI writes them, one u64 each, and where each
 * is kept in struct perf_sample_data (perf_sample_fill_id() fills them).
 * The trailer's size and its writer both come from this one list.
 */
static const struct {
	u64	bit;
	u16	offset;
} perf_sample_id_fields[] = {
	{ PERF_SAMPLE_TID,	 offsetof(struct perf_sample_data, tid_entry) },
	{ PERF_SAMPLE_TIME,	 offsetof(struct perf_sample_data, time) },
	{ PERF_SAMPLE_ID,	 offsetof(struct perf_sample_data, id) },
	{ PERF_SAMPLE_STREAM_ID, offsetof(struct perf_sample_data, stream_id) },
	{ PERF_SAMPLE_CPU,	 offsetof(struct perf_sample_data, cpu_entry) },
	{ PERF_SAMPLE_IDENTIFIER, offsetof(struct perf_sample_data, id) },
};

/* the two-u32 fields are written as the one u64 they fill */
static_assert(sizeof_field(struct perf_sample_data, tid_entry) == sizeof(u64));
static_assert(sizeof_field(struct perf_sample_data, cpu_entry) == sizeof(u64));

static u16 perf_sample_id_size(u64 type)
{
	u16 size = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(perf_sample_id_fields); i++)
		if (type & perf_sample_id_fields[i].bit)
			size += sizeof(u64);
	return size;
}

/**
 * perf_event_header_sizes - precompute the fixed record sizes of @event
 * @event: the event
 *
 * header_size: the fixed part of a sample after perf_event_header;
 * id_header_size: the sample_id trailer of other records.
 */
void perf_event_header_sizes(struct perf_event *event)
{
	/* the sample fields of one u64 each, whatever the event */
	const u64 words = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP |
		PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
		PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU |
		PERF_SAMPLE_PERIOD | PERF_SAMPLE_DATA_SRC |
		PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |
		PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |
		PERF_SAMPLE_CODE_PAGE_SIZE |
		/* the AUX snapshot's size word; its bytes are dynamic */
		PERF_SAMPLE_AUX;
	u64 type = event->attr.sample_type;
	u64 format = event->attr.read_format;
	u16 size = hweight64(type & words) * sizeof(u64);
	size_t one = perf_read_format_size(format, 1);
	size_t member = perf_read_format_size(format, 2) - one;

	/* WEIGHT or WEIGHT_STRUCT: one u64 either way */
	if (type & PERF_SAMPLE_WEIGHT_TYPE)
		size += sizeof(u64);
	event->header_size = size;
	event->id_header_size = event->attr.sample_id_all ?
				perf_sample_id_size(type) : 0;
	/*
	 * read()'s size, asked on every read: a byte each for the size
	 * without siblings (5 words at most) and a sibling's (3 words, 0
	 * but in a GROUP read), for perf_read_size()
	 */
	BUILD_BUG_ON(5 * sizeof(u64) > 0xff);
	event->read_size = one | member << 8;
}

/*
 * The identity fields shared by samples and the sample_id trailer.
 */
static __always_inline void perf_sample_tid(struct perf_sample_data *data,
					    struct perf_event *event)
{
	/*
	 * as the opener's pid namespace sees the task; the initial
	 * namespace's numbers are the task's own
	 */
	if (likely(event->ns == &init_pid_ns)) {
		data->tid_entry.pid = current->tgid;
		data->tid_entry.tid = current->pid;
	} else {
		data->tid_entry.pid = task_tgid_nr_ns(current, event->ns);
		data->tid_entry.tid = task_pid_nr_ns(current, event->ns);
	}
}

static void perf_sample_fill_id(struct perf_sample_data *data,
				struct perf_event *event, u64 type)
{
	data->type = type;
	if (type & PERF_SAMPLE_TID)
		perf_sample_tid(data, event);
	if (type & PERF_SAMPLE_TIME)
		data->time = event->clock();
	if (type & (PERF_SAMPLE_ID | PERF_SAMPLE_IDENTIFIER))
		data->id = event->parent ? event->parent->id : event->id;
	if (type & PERF_SAMPLE_STREAM_ID)
		data->stream_id = event->id;
	if (type & PERF_SAMPLE_CPU) {
		data->cpu_entry.cpu = raw_smp_processor_id();
		data->cpu_entry.reserved = 0;
	}
}

/**
 * perf_event_header_init - start a non-sample record's header
 * @header: the record's header, its size set so far
 * @data: the sample data the trailer is written from
 * @event: the event the record is about
 *
 * Grows header->size by the sample_id trailer and fills @data with the
 * identity fields the trailer will carry.
 */
void perf_event_header_init(struct perf_event_header *header,
			    struct perf_sample_data *data,
			    struct perf_event *event)
{
	data->sample_flags = 0;
	if (!event->attr.sample_id_all)
		return;
	header->size += event->id_header_size;
	perf_sample_fill_id(data, event, event->attr.sample_type);
}

/**
 * perf_event_output_id - write the sample_id trailer of a record
 * @handle: the handle of the record
 * @data: as perf_event_header_init() filled it
 * @event: the event the record is about
 */
void perf_event_output_id(struct perf_output_handle *handle,
			  struct perf_sample_data *data,
			  struct perf_event *event)
{
	u64 type = event->attr.sample_type;
	int i;

	if (!event->attr.sample_id_all)
		return;
	for (i = 0; i < ARRAY_SIZE(perf_sample_id_fields); i++) {
		u64 word;

		if (!(type & perf_sample_id_fields[i].bit))
			continue;
		word = *(u64 *)((void *)data + perf_sample_id_fields[i].offset);
		perf_output_word(handle, word);
	}
}

/*
 * User registers: those of the task's user mode, wherever the sample
 * was taken. Kernel threads have none.
 */
static void perf_sample_regs_user(struct perf_regs *regs_user,
				  struct pt_regs *regs)
{
	if (user_mode(regs)) {
		regs_user->abi = perf_reg_abi(current);
		regs_user->regs = regs;
	} else if (!(current->flags & PF_KTHREAD)) {
		perf_get_regs_user(regs_user, regs);
	} else {
		regs_user->abi = PERF_SAMPLE_REGS_ABI_NONE;
		regs_user->regs = NULL;
	}
}

static u64 perf_regs_size(u64 mask)
{
	return hweight64(mask) * sizeof(u64);
}

/* How much user stack fits in what is left of the 64 KiB record. */
static u16 perf_sample_ustack_size(u16 stack_size, u64 header_size,
				   struct pt_regs *regs)
{
	unsigned long task_size = TASK_SIZE, sp;

	if (!regs)
		return 0;
	sp = user_stack_pointer(regs);
	if (sp >= task_size)
		return 0;
	/* the rest of the record leaves no room at all */
	if (header_size + 2 * sizeof(u64) >= USHRT_MAX)
		return 0;
	stack_size = min_t(unsigned long, stack_size, task_size - sp);
	/* the size and dyn_size words, then round down to u64 */
	if (header_size + 2 * sizeof(u64) + stack_size > USHRT_MAX)
		stack_size = USHRT_MAX - header_size - 2 * sizeof(u64);
	return round_down(stack_size, sizeof(u64));
}

static u64 perf_virt_to_phys(u64 addr)
{
	struct page *p = NULL;
	u64 phys = 0;

	if (!addr)
		return 0;
	if (addr >= TASK_SIZE) {
		if (virt_addr_valid((void *)(uintptr_t)addr) &&
		    !(addr >= VMALLOC_START && addr < VMALLOC_END))
			phys = virt_to_phys((void *)(uintptr_t)addr);
	} else if (current->mm) {
		/* get_user_page_fast_only() is safe in any context */
		if (get_user_page_fast_only(addr, 0, &p)) {
			phys = page_to_phys(p) + offset_in_page(addr);
			put_page(p);
		}
	}
	return phys;
}

/*
 * The size of the page (or huge page) that maps @addr, 0 if unmapped. A
 * lockless walk with interrupts off, which keeps the page tables from
 * being freed under it (an IPI, or RCU where the arch frees them so); the
 * *_leaf_size() helpers know an arch's contiguous runs (arm64).
 */
static u64 perf_page_size(u64 addr)
{
	struct mm_struct *mm;
	unsigned long flags;
	pgd_t *pgdp, pgd;
	p4d_t *p4dp, p4d;
	pud_t *pudp, pud;
	pmd_t *pmdp, pmd;
	pte_t *ptep, pte;
	u64 size = 0;

	if (!addr)
		return 0;
	mm = addr >= TASK_SIZE ? &init_mm : current->mm;
	if (!mm)
		return 0;
	local_irq_save(flags);
	pgdp = pgd_offset(mm, addr);
	pgd = pgdp_get(pgdp);
	if (pgd_none(pgd))
		goto out;
	if (pgd_leaf(pgd)) {
		size = pgd_leaf_size(pgd);
		goto out;
	}
	p4dp = p4d_offset(pgdp, addr);
	p4d = p4dp_get(p4dp);
	if (!p4d_present(p4d))
		goto out;
	if (p4d_leaf(p4d)) {
		size = p4d_leaf_size(p4d);
		goto out;
	}
	pudp = pud_offset_lockless(p4dp, p4d, addr);
	pud = pudp_get(pudp);
	if (!pud_present(pud))
		goto out;
	if (pud_leaf(pud)) {
		size = pud_leaf_size(pud);
		goto out;
	}
	pmdp = pmd_offset_lockless(pudp, pud, addr);
	pmd = pmdp_get_lockless(pmdp);
	if (!pmd_present(pmd))
		goto out;
	if (pmd_leaf(pmd)) {
		size = pmd_leaf_size(pmd);
		goto out;
	}
	ptep = pte_offset_kernel(&pmd, addr);
	pte = ptep_get_lockless(ptep);
	if (pte_present(pte))
		size = pte_leaf_size(pte);
out:
	local_irq_restore(flags);
	return size;
}

/*
 * The AUX area a sample's snapshot comes from: that of the AUX event
 * leading @event's group, when its driver can copy out of it and it is
 * mapped.
 */
static struct perf_aux_area *perf_sample_aux_area(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;
	struct perf_aux_area *aux;
	struct perf_buffer *rb;

	if (leader == event || !has_aux(leader) || !leader->pmu->snapshot_aux)
		return NULL;
	if (leader->parent)
		leader = leader->parent;
	rb = rcu_dereference(leader->rb);
	aux = rb ? rcu_dereference(rb->aux) : NULL;
	/* a buffer shared by SET_OUTPUT may hold another PMU's area */
	return aux && aux->pmu == leader->pmu ? aux : NULL;
}

/*
 * PERF_SAMPLE_AUX: up to aux_sample_size bytes, no more than the area
 * holds nor than fit in a record of @used bytes so far, in whole u64s.
 */
static u64 perf_sample_aux_size(struct perf_event *event, u64 used)
{
	struct perf_aux_area *aux;
	u64 size = event->attr.aux_sample_size;

	rcu_read_lock();
	aux = perf_sample_aux_area(event);
	size = aux ? min_t(u64, size, aux->size) : 0;
	rcu_read_unlock();
	size = min_t(u64, size, used < U16_MAX ? U16_MAX - used : 0);
	return round_down(size, sizeof(u64));
}

/*
 * The snapshot itself: the leader's driver copies the newest AUX data
 * into the record; what it could not fill is zeroed, as the size was
 * given out already.
 */
static void perf_output_sample_aux(struct perf_output_handle *handle,
				   struct perf_event *event, u64 size)
{
	struct perf_event *leader = event->group_leader;
	long copied = 0;
	u64 zero = 0;

	rcu_read_lock();
	if (perf_sample_aux_area(event))
		copied = leader->pmu->snapshot_aux(leader, handle, size);
	rcu_read_unlock();
	/* the copy is bounded by the record; only what it left is padded */
	if (copied < 0)
		copied = 0;
	if (copied > size)
		copied = size;
	for (size -= copied; size >= sizeof(u64); size -= sizeof(u64))
		perf_output_copy(handle, &zero, sizeof(u64));
	perf_output_copy(handle, &zero, size);
}

/* the sample_type bits perf_prepare_sample() has work for past the ids */
#define PERF_SAMPLE_PREPARE_MORE					\
	(PERF_SAMPLE_READ | PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_RAW |	\
	 PERF_SAMPLE_BRANCH_STACK | PERF_SAMPLE_REGS_USER |		\
	 PERF_SAMPLE_STACK_USER | PERF_SAMPLE_REGS_INTR |		\
	 PERF_SAMPLE_WEIGHT_TYPE | PERF_SAMPLE_DATA_SRC |		\
	 PERF_SAMPLE_TRANSACTION | PERF_SAMPLE_PHYS_ADDR |		\
	 PERF_SAMPLE_CGROUP | PERF_SAMPLE_DATA_PAGE_SIZE |		\
	 PERF_SAMPLE_CODE_PAGE_SIZE | PERF_SAMPLE_AUX)

/**
 * perf_prepare_sample - fill what a sample of @event needs from @regs
 * @data: the sample data to fill
 * @event: the sampling event
 * @regs: the registers of the sample
 *
 * Fields a PMU driver already set (data->sample_flags) are kept.
 */
void perf_prepare_sample(struct perf_sample_data *data,
			 struct perf_event *event, struct pt_regs *regs)
{
	u64 type = event->attr.sample_type;
	u64 filled = data->sample_flags;
	u64 time = data->time;
	u64 dyn = 0;

	perf_sample_fill_id(data, event, type);
	/* a driver that drains its records late knows when each was taken */
	if (filled & PERF_SAMPLE_TIME)
		data->time = time;

	if (type & (PERF_SAMPLE_IP | PERF_SAMPLE_CODE_PAGE_SIZE))
		data->ip = perf_instruction_pointer(regs);

	if ((type & PERF_SAMPLE_ADDR) && !(filled & PERF_SAMPLE_ADDR))
		data->addr = 0;

	/* most samples are fixed fields only: one test skips the rest */
	if (likely(!(type & PERF_SAMPLE_PREPARE_MORE)))
		goto out;

	/* a group's size changes as members join: not precomputed */
	if (type & PERF_SAMPLE_READ)
		dyn += perf_read_size(event);

	if (type & PERF_SAMPLE_CALLCHAIN) {
		if (!(filled & PERF_SAMPLE_CALLCHAIN))
			data->callchain = perf_callchain(event, regs);
		dyn += sizeof(u64) *
		       (1 + (data->callchain ? data->callchain->nr : 0));
	}

	if (type & PERF_SAMPLE_RAW) {
		struct perf_raw_record *raw = (filled & PERF_SAMPLE_RAW) ?
					      data->raw : NULL;
		u32 size = sizeof(u32);
		struct perf_raw_frag *frag;

		if (raw) {
			for (frag = &raw->frag; ; frag = frag->next) {
				size += frag->size;
				if (!frag->next ||
				    (unsigned long)frag->next == 1)
					break;
			}
		}
		size = round_up(size, sizeof(u64));
		if (raw)
			raw->size = size - sizeof(u32);
		else
			data->raw = NULL;
		dyn += size;
	}

	if (type & PERF_SAMPLE_BRANCH_STACK) {
		if (!(filled & PERF_SAMPLE_BRANCH_STACK))
			data->br_stack = NULL;
		dyn += sizeof(u64);
		if (event->attr.branch_sample_type & PERF_SAMPLE_BRANCH_HW_INDEX)
			dyn += sizeof(u64);
		if (data->br_stack)
			dyn += data->br_stack->nr *
			       sizeof(struct perf_branch_entry);
	}

	if (type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
		perf_sample_regs_user(&data->regs_user, regs);

	if (type & PERF_SAMPLE_REGS_USER) {
		dyn += sizeof(u64);
		if (data->regs_user.regs)
			dyn += perf_regs_size(event->attr.sample_regs_user);
	}

	/* before the stack, which gets whatever room the rest leaves */
	if (type & PERF_SAMPLE_REGS_INTR) {
		data->regs_intr.regs = regs;
		data->regs_intr.abi = PERF_SAMPLE_REGS_ABI_64;
		dyn += sizeof(u64) + perf_regs_size(event->attr.sample_regs_intr);
	}

	if (type & PERF_SAMPLE_STACK_USER) {
		u16 stack = perf_sample_ustack_size(
				event->attr.sample_stack_user,
				event->header_size + sizeof(struct perf_event_header) + dyn,
				data->regs_user.regs);

		data->stack_user_size = stack;
		dyn += sizeof(u64);
		if (stack)
			dyn += stack + sizeof(u64);
	}

	if ((type & PERF_SAMPLE_WEIGHT_TYPE) && !(filled & PERF_SAMPLE_WEIGHT_TYPE))
		data->weight.full = 0;
	if ((type & PERF_SAMPLE_DATA_SRC) && !(filled & PERF_SAMPLE_DATA_SRC))
		data->data_src.val = PERF_DATA_SRC_NA;
	if ((type & PERF_SAMPLE_TRANSACTION) && !(filled & PERF_SAMPLE_TRANSACTION))
		data->txn = 0;
	/* a driver may know it (AMD's IBS reads it from the hardware) */
	if ((type & PERF_SAMPLE_PHYS_ADDR) && !(filled & PERF_SAMPLE_PHYS_ADDR))
		data->phys_addr = perf_virt_to_phys(data->addr);
	if (type & PERF_SAMPLE_CGROUP)
		data->cgroup = perf_cgroup_sample_id();
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		data->data_page_size = perf_page_size(data->addr);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		data->code_page_size = perf_page_size(data->ip);

	/*
	 * last: the snapshot gets what room the rest leaves in a record (its
	 * size word is in header_size, which the user stack left room for)
	 */
	if (type & PERF_SAMPLE_AUX) {
		data->aux_size = perf_sample_aux_size(event,
				sizeof(struct perf_event_header) +
				event->header_size + dyn);
		dyn += data->aux_size;
	}
out:
	data->dyn_size = dyn;
	data->sample_flags |= type;
}
EXPORT_SYMBOL_GPL(perf_prepare_sample);

/**
 * perf_prepare_header - the header of the sample perf_prepare_sample() made
 * @header: the header to fill
 * @data: the prepared sample
 * @event: the sampling event
 * @regs: the registers of the sample
 */
void perf_prepare_header(struct perf_event_header *header,
			 struct perf_sample_data *data,
			 struct perf_event *event, struct pt_regs *regs)
{
	header->type = PERF_RECORD_SAMPLE;
	header->size = sizeof(*header) + event->header_size + data->dyn_size;
	header->misc = perf_misc_flags(regs);
	/* the record is bounded by the u16 size; perf_prepare_sample kept it */
	WARN_ON_ONCE(sizeof(*header) + event->header_size + data->dyn_size >
		     USHRT_MAX);
}
EXPORT_SYMBOL_GPL(perf_prepare_header);

static void perf_output_regs(struct perf_output_handle *handle,
			     struct pt_regs *regs, u64 mask)
{
	int bit;
	DECLARE_BITMAP(bits, 64);

	bitmap_from_u64(bits, mask);
	for_each_set_bit(bit, bits, 64) {
		u64 val = perf_reg_value(regs, bit);

		perf_output_put(handle, val);
	}
}

static void perf_output_raw(struct perf_output_handle *handle,
			    struct perf_raw_record *raw)
{
	struct perf_raw_frag *frag;
	u32 size, written = 0;
	u64 zero = 0;

	if (!raw) {
		struct {
			u32 size;
			u32 data;
		} empty = { .size = sizeof(u32), .data = 0 };

		perf_output_put(handle, empty);
		return;
	}
	size = raw->size;
	perf_output_put(handle, size);
	for (frag = &raw->frag; ; frag = frag->next) {
		if (frag->copy)
			perf_output_copy_with(handle, frag->copy, frag->data,
					      frag->size);
		else
			perf_output_copy(handle, frag->data, frag->size);
		written += frag->size;
		if (!frag->next || (unsigned long)frag->next == 1)
			break;
	}
	if (size > written)
		perf_output_copy(handle, &zero, size - written);
}

/* a sample is written: wakeup_events counts samples only */
static __always_inline void
perf_output_sample_counted(struct perf_output_handle *handle,
			   struct perf_event *event)
{
	struct perf_buffer *rb = handle->rb;

	if (!event->attr.watermark && rb->wakeup_events &&
	    local_inc_return(&rb->events) >= rb->wakeup_events) {
		local_sub(rb->wakeup_events, &rb->events);
		local_inc(&rb->wakeup);
	}
}

/**
 * perf_output_sample - write a prepared sample, in the ABI's field order
 * @handle: the handle of the record, begun for header->size
 * @header: the header perf_prepare_header() made
 * @data: the prepared sample
 * @event: the sampling event
 */
void perf_output_sample(struct perf_output_handle *handle,
			struct perf_event_header *header,
			struct perf_sample_data *data,
			struct perf_event *event)
{
	u64 type = event->attr.sample_type;

	/*
	 * Most samples: fixed words only, the record in one stretch of the
	 * buffer. Stores through one pointer and one advance at the end,
	 * instead of a check and an advance for each word.
	 */
	if (!(type & ~PERF_OUTPUT_FIXED) && handle->left >= header->size &&
	    handle->size >= header->size) {
		u64 *p = handle->addr, w;

		/* no side effects in memcpy()'s arguments: fortify's macro */
		memcpy(&w, header, sizeof(u64));
		*p++ = w;
		if (type & PERF_SAMPLE_IDENTIFIER)
			*p++ = data->id;
		if (type & PERF_SAMPLE_IP)
			*p++ = data->ip;
		if (type & PERF_SAMPLE_TID) {
			memcpy(&w, &data->tid_entry, sizeof(u64));
			*p++ = w;
		}
		if (type & PERF_SAMPLE_TIME)
			*p++ = data->time;
		if (type & PERF_SAMPLE_ADDR)
			*p++ = data->addr;
		if (type & PERF_SAMPLE_ID)
			*p++ = data->id;
		if (type & PERF_SAMPLE_STREAM_ID)
			*p++ = data->stream_id;
		if (type & PERF_SAMPLE_CPU) {
			memcpy(&w, &data->cpu_entry, sizeof(u64));
			*p++ = w;
		}
		if (type & PERF_SAMPLE_PERIOD)
			*p++ = data->period;
		perf_output_advance(handle, (void *)p - handle->addr);
		goto wakeup;
	}

	perf_output_word(handle, *header);

	if (type & PERF_SAMPLE_IDENTIFIER)
		perf_output_word(handle, data->id);
	if (type & PERF_SAMPLE_IP)
		perf_output_word(handle, data->ip);
	if (type & PERF_SAMPLE_TID)
		perf_output_word(handle, data->tid_entry);
	if (type & PERF_SAMPLE_TIME)
		perf_output_word(handle, data->time);
	if (type & PERF_SAMPLE_ADDR)
		perf_output_word(handle, data->addr);
	if (type & PERF_SAMPLE_ID)
		perf_output_word(handle, data->id);
	if (type & PERF_SAMPLE_STREAM_ID)
		perf_output_word(handle, data->stream_id);
	if (type & PERF_SAMPLE_CPU)
		perf_output_word(handle, data->cpu_entry);
	if (type & PERF_SAMPLE_PERIOD)
		perf_output_word(handle, data->period);
	/* most samples end here */
	if (!(type & ~PERF_OUTPUT_FIXED))
		goto wakeup;
	if (type & PERF_SAMPLE_READ)
		perf_output_read(handle, event);

	if (type & PERF_SAMPLE_CALLCHAIN) {
		struct perf_callchain_entry *cc = data->callchain;
		u64 nr = cc ? cc->nr : 0;

		perf_output_put(handle, nr);
		if (nr)
			perf_output_copy(handle, cc->ip, nr * sizeof(u64));
	}

	if (type & PERF_SAMPLE_RAW)
		perf_output_raw(handle, data->raw);

	if (type & PERF_SAMPLE_BRANCH_STACK) {
		struct perf_branch_stack *br = data->br_stack;
		u64 nr = br ? br->nr : 0;

		perf_output_put(handle, nr);
		if (event->attr.branch_sample_type &
		    PERF_SAMPLE_BRANCH_HW_INDEX) {
			u64 idx = br ? br->hw_idx : -1ULL;

			perf_output_put(handle, idx);
		}
		if (nr)
			perf_output_copy(handle, br->entries,
					 nr * sizeof(struct perf_branch_entry));
	}

	if (type & PERF_SAMPLE_REGS_USER) {
		u64 abi = data->regs_user.regs ? data->regs_user.abi :
						 PERF_SAMPLE_REGS_ABI_NONE;

		perf_output_put(handle, abi);
		if (data->regs_user.regs)
			perf_output_regs(handle, data->regs_user.regs,
					 event->attr.sample_regs_user);
	}

	if (type & PERF_SAMPLE_STACK_USER) {
		u64 size = data->stack_user_size;

		perf_output_put(handle, size);
		if (size) {
			void __user *sp = (void __user *)
				user_stack_pointer(data->regs_user.regs);
			u64 dyn = size - perf_output_copy_user(handle, sp, size);

			perf_output_put(handle, dyn);
		}
	}

	if (type & PERF_SAMPLE_WEIGHT_TYPE)
		perf_output_put(handle, data->weight.full);
	if (type & PERF_SAMPLE_DATA_SRC)
		perf_output_put(handle, data->data_src.val);
	if (type & PERF_SAMPLE_TRANSACTION)
		perf_output_put(handle, data->txn);

	if (type & PERF_SAMPLE_REGS_INTR) {
		u64 abi = data->regs_intr.abi;

		perf_output_put(handle, abi);
		perf_output_regs(handle, data->regs_intr.regs,
				 event->attr.sample_regs_intr);
	}

	if (type & PERF_SAMPLE_PHYS_ADDR)
		perf_output_put(handle, data->phys_addr);
	if (type & PERF_SAMPLE_CGROUP)
		perf_output_put(handle, data->cgroup);
	if (type & PERF_SAMPLE_DATA_PAGE_SIZE)
		perf_output_put(handle, data->data_page_size);
	if (type & PERF_SAMPLE_CODE_PAGE_SIZE)
		perf_output_put(handle, data->code_page_size);
	if (type & PERF_SAMPLE_AUX) {
		perf_output_put(handle, data->aux_size);
		if (data->aux_size)
			perf_output_sample_aux(handle, event, data->aux_size);
	}

wakeup:
	perf_output_sample_counted(handle, event);
}
EXPORT_SYMBOL_GPL(perf_output_sample);

/*
 * A sample of fixed words only, as most are, from __perf_event_output():
 * perf_prepare_sample(), perf_prepare_header() and perf_output_sample()
 * in one pass, each word made where it is stored. A record that wraps
 * the buffer's end takes the general writer. What is left in @data is
 * what perf_prepare_sample() leaves that anyone reads again: the time,
 * which a second overflow of one hit keeps (perf_swevent_hit()), and
 * sample_flags.
 */
static __always_inline int
perf_output_fixed_sample(struct perf_event *event, struct perf_sample_data *data,
			 struct pt_regs *regs, bool backward)
{
	struct perf_output_handle handle __uninitialized;
	struct perf_event_header header;
	u64 type = event->attr.sample_type;
	u64 filled = data->sample_flags;
	u64 *p, w;

	header.type = PERF_RECORD_SAMPLE;
	header.misc = perf_misc_flags(regs);
	header.size = sizeof(header) + event->header_size;
	if (!(filled & PERF_SAMPLE_TIME) && (type & PERF_SAMPLE_TIME))
		data->time = event->clock();
	data->sample_flags = filled | type;
	if (__perf_output_begin(&handle, data, event, header.size, backward))
		return -ENOSPC;
	if (unlikely(handle.left < header.size)) {
		perf_prepare_sample(data, event, regs);
		perf_output_sample(&handle, &header, data, event);
		perf_output_end(&handle);
		return 0;
	}

	p = handle.addr;
	memcpy(&w, &header, sizeof(w));
	*p++ = w;
	if (type & PERF_SAMPLE_IDENTIFIER)
		*p++ = perf_primary_id(event);
	if (type & PERF_SAMPLE_IP)
		*p++ = perf_instruction_pointer(regs);
	if (type & PERF_SAMPLE_TID) {
		perf_sample_tid(data, event);
		memcpy(&w, &data->tid_entry, sizeof(w));
		*p++ = w;
	}
	if (type & PERF_SAMPLE_TIME)
		*p++ = data->time;
	if (type & PERF_SAMPLE_ADDR)
		*p++ = (filled & PERF_SAMPLE_ADDR) ? data->addr : 0;
	if (type & PERF_SAMPLE_ID)
		*p++ = perf_primary_id(event);
	if (type & PERF_SAMPLE_STREAM_ID)
		*p++ = event->id;
	if (type & PERF_SAMPLE_CPU) {
		data->cpu_entry.cpu = raw_smp_processor_id();
		data->cpu_entry.reserved = 0;
		memcpy(&w, &data->cpu_entry, sizeof(w));
		*p++ = w;
	}
	if (type & PERF_SAMPLE_PERIOD)
		*p++ = data->period;
	perf_output_sample_counted(&handle, event);
	perf_output_end(&handle);
	return 0;
}

/*
 * Inline into perf_event_output(), every overflow's default handler: a
 * call less a sample. The forward and backward handlers share one copy.
 */
static __always_inline int __perf_event_output(struct perf_event *event,
					       struct perf_sample_data *data,
					       struct pt_regs *regs,
					       bool backward)
{
	/* set by perf_prepare_header() and a successful begin */
	struct perf_output_handle handle __uninitialized;
	struct perf_event_header header __uninitialized;
	int err;

	if (likely(!(event->attr.sample_type & ~PERF_OUTPUT_FIXED)))
		return perf_output_fixed_sample(event, data, regs, backward);
	/* callchains and user stacks must not recurse into us */
	rcu_read_lock();
	perf_prepare_sample(data, event, regs);
	perf_prepare_header(&header, data, event, regs);
	err = __perf_output_begin(&handle, data, event, header.size, backward);
	if (!err) {
		perf_output_sample(&handle, &header, data, event);
		perf_output_end(&handle);
	}
	rcu_read_unlock();
	return err;
}

/**
 * perf_event_output - write one sample of @event: the default handler
 * @event: the sampling event
 * @data: the sample data
 * @regs: the registers of the sample
 */
int perf_event_output(struct perf_event *event,
		      struct perf_sample_data *data, struct pt_regs *regs)
{
	return __perf_event_output(event, data, regs,
				   event->attr.write_backward);
}
EXPORT_SYMBOL_GPL(perf_event_output);

static noinline void perf_event_output_dir(struct perf_event *event,
					   struct perf_sample_data *data,
					   struct pt_regs *regs, bool backward)
{
	__perf_event_output(event, data, regs, backward);
}

void perf_event_output_forward(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs)
{
	perf_event_output_dir(event, data, regs, false);
}

void perf_event_output_backward(struct perf_event *event,
				struct perf_sample_data *data,
				struct pt_regs *regs)
{
	perf_event_output_dir(event, data, regs, true);
}

/**
 * perf_event_output_lost - the LOST record at the head of a reservation
 * @handle: the handle of the reservation
 * @lost: the number of records lost
 *
 * perf_output_begin() reserved room for it in front of the record it was
 * asked for.
 */
void perf_event_output_lost(struct perf_output_handle *handle, u64 lost)
{
	struct perf_event *event = handle->event;
	struct perf_sample_data data;
	struct {
		struct perf_event_header header;
		u64 id;
		u64 lost;
	} rec = {
		.header = {
			.type = PERF_RECORD_LOST,
			.size = sizeof(rec),
		},
		.id = event->id,
		.lost = lost,
	};

	perf_event_header_init(&rec.header, &data, event);
	perf_output_put(handle, rec);
	perf_event_output_id(handle, &data, event);
}

static void perf_output_read_entry(struct perf_output_handle *handle,
				   struct perf_event *event, u64 format,
				   struct perf_event *self)
{
	u64 value;

	/* the sampled event was read by its PMU's overflow already */
	if (event != self && event->state == PERF_EVENT_STATE_ACTIVE &&
	    !perf_event_counts_in_place(event) &&
	    event->oncpu == smp_processor_id())
		event->pmu->read(event);
	value = perf_event_own_count(event);
	perf_output_put(handle, value);
	if (format & PERF_FORMAT_ID) {
		value = perf_primary_id(event);
		perf_output_put(handle, value);
	}
	if (format & PERF_FORMAT_LOST) {
		value = atomic64_read(&event->lost_samples);
		perf_output_put(handle, value);
	}
}

/**
 * perf_output_read - the PERF_SAMPLE_READ part of a sample of @event
 * @handle: the output handle of the sample
 * @event: the sampled event
 *
 * Counts as seen from this CPU at the moment of the sample: members of a
 * group counting here are read from their PMU. Any context.
 */
void perf_output_read(struct perf_output_handle *handle,
		      struct perf_event *event)
{
	u64 format = event->attr.read_format;
	struct perf_event *leader = event->group_leader;
	struct perf_event *sibling;
	u64 enabled, running, nr = 1;

	perf_event_times_now(event, &enabled, &running);
	if (format & PERF_FORMAT_GROUP) {
		nr = 1 + leader->nr_siblings;
		perf_output_put(handle, nr);
	} else {
		u64 value = perf_event_own_count(event);

		perf_output_put(handle, value);
	}
	if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		perf_output_put(handle, enabled);
	if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		perf_output_put(handle, running);

	if (!(format & PERF_FORMAT_GROUP)) {
		if (format & PERF_FORMAT_ID) {
			u64 id = perf_primary_id(event);

			perf_output_put(handle, id);
		}
		if (format & PERF_FORMAT_LOST) {
			u64 lost = atomic64_read(&event->lost_samples);

			perf_output_put(handle, lost);
		}
		return;
	}
	perf_output_read_entry(handle, leader, format, event);
	/* no more entries than the record's size counted (nr - 1 siblings) */
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		if (!--nr)
			break;
		perf_output_read_entry(handle, sibling, format, event);
	}
}
