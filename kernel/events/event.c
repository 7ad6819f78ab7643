// SPDX-License-Identifier: GPL-2.0
/*
 * The event object: its references (the last one frees it through
 * lifecycle.c's perf_event_free(), the one call that runs up the layers),
 * its deferred work (its irq_work), and the data every layer reads: the
 * per-CPU contexts and the switch hooks' static key.
 */
#include <linux/jump_label.h>
#include <linux/irq_work.h>
#include <linux/llist.h>
#include <linux/workqueue.h>

#include "layer/object.h"

/*
 * On while any task context exists: the context-switch hooks must see
 * every task context, or one could stay active on a CPU its task left.
 */
DEFINE_STATIC_KEY_FALSE(perf_sched_events);

/*
 * Each CPU's context: data that every layer reads (side-band records walk
 * it, scheduling and the cgroup clocks keep it), so it is defined at the
 * bottom with the object it holds. context.c sets it up.
 */
DEFINE_PER_CPU(struct perf_cpu_context, perf_cpu_context);

/* one more reference to @event (an inherited child's, a pending signal's) */
void perf_event_hold(struct perf_event *event)
{
	refcount_inc(&event->refcount);
}

void perf_event_put(struct perf_event *event)
{
	if (refcount_dec_and_test(&event->refcount))
		perf_event_free(event);
}

/**
 * perf_event_queue_pending - run @event's irq_work soon
 * @event: the event
 *
 * As a rule on this CPU, right after the current context. A CPU that is
 * going offline (no longer active) may never take the irq_work interrupt
 * again: the work would stay pending for good, and whoever frees the
 * event would wait for it forever. Its work goes to an active CPU.
 */
void perf_event_queue_pending(struct perf_event *event)
{
	int cpu = smp_processor_id();

	if (likely(cpu_active(cpu)) || in_nmi()) {
		irq_work_queue(&event->pending_irq);
		return;
	}
	cpu = cpumask_any_but(cpu_active_mask, cpu);
	if (cpu < nr_cpu_ids)
		irq_work_queue_on(&event->pending_irq, cpu);
	else
		irq_work_queue(&event->pending_irq);
}

/**
 * perf_event_disable_inatomic - disable @event from an overflow or a PMI
 * @event: the event
 *
 * The disable itself takes the context lock, so it is done from the
 * event's irq_work, on this CPU, right after the caller returns.
 */
void perf_event_disable_inatomic(struct perf_event *event)
{
	WRITE_ONCE(event->pending_disable, 1);
	perf_event_queue_pending(event);
}

static LLIST_HEAD(perf_free_list);

static void perf_free_work_fn(struct work_struct *work)
{
	struct llist_node *head = llist_del_all(&perf_free_list);
	struct perf_event *event, *tmp;

	llist_for_each_entry_safe(event, tmp, head, free_entry)
		perf_event_put(event);
}

static DECLARE_WORK(perf_free_work, perf_free_work_fn);

/**
 * perf_event_put_async - drop a reference where the free may not run
 * @event: the event
 *
 * For a caller that holds what the free takes or must not run under: an
 * mm's mmap_lock (a uprobe event's destroy takes the mmap_lock of every
 * mm mapping its file), another event's mmap_mutex (the free takes this
 * one's: the same lock class). The last reference goes to a work item,
 * which drops it in plain process context. Any context but NMI.
 */
void perf_event_put_async(struct perf_event *event)
{
	if (refcount_dec_not_one(&event->refcount))
		return;
	if (llist_add(&event->free_entry, &perf_free_list))
		schedule_work(&perf_free_work);
}
