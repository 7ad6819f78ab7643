// SPDX-License-Identifier: GPL-2.0
/*
 * Callchains of samples: the kernel stack (the kernel's unwinder) and
 * the user stack (frame pointers), each behind its context marker.
 *
 * A sample's chain is built in a per-CPU buffer, one per context a
 * sample can be taken in (task, softirq, hardirq, NMI), so that an NMI
 * sample does not overwrite the chain of an interrupt's sample that it
 * interrupted. The buffers are sized for the sysctl limits in force when
 * the first user came, and kept while any event needs them.
 */
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>

#include "internal.h"

#define PERF_CALLCHAIN_CONTEXTS	4

struct perf_callchain_buffers {
	struct rcu_head		rcu_head;
	unsigned int		entry_size;
	/* per CPU: PERF_CALLCHAIN_CONTEXTS entries of entry_size bytes */
	void			*cpu[];
};

static DEFINE_MUTEX(perf_callchain_mutex);
static int perf_callchain_users;
static u32 perf_callchain_max;
static struct perf_callchain_buffers __rcu *perf_callchain_bufs;

static void perf_callchain_free(struct perf_callchain_buffers *bufs)
{
	int cpu;

	for_each_possible_cpu(cpu)
		kfree(bufs->cpu[cpu]);
	kfree(bufs);
}

static void perf_callchain_free_rcu(struct rcu_head *head)
{
	perf_callchain_free(container_of(head, struct perf_callchain_buffers,
					 rcu_head));
}

static int perf_callchain_alloc(void)
{
	struct perf_callchain_buffers *bufs;
	u32 max = READ_ONCE(sysctl_perf_event_max_stack) +
		  READ_ONCE(sysctl_perf_event_max_contexts_per_stack);
	int cpu;

	bufs = kzalloc(struct_size(bufs, cpu, nr_cpu_ids), GFP_KERNEL);
	if (!bufs)
		return -ENOMEM;
	bufs->entry_size = struct_size_t(struct perf_callchain_entry, ip, max);
	for_each_possible_cpu(cpu) {
		bufs->cpu[cpu] = kmalloc_node(bufs->entry_size *
					      PERF_CALLCHAIN_CONTEXTS,
					      GFP_KERNEL, cpu_to_node(cpu));
		if (!bufs->cpu[cpu]) {
			perf_callchain_free(bufs);
			return -ENOMEM;
		}
	}
	perf_callchain_max = READ_ONCE(sysctl_perf_event_max_stack);
	rcu_assign_pointer(perf_callchain_bufs, bufs);
	return 0;
}

static int __perf_callchain_get(u32 max_stack)
{
	int err = 0;

	mutex_lock(&perf_callchain_mutex);
	if (!perf_callchain_users) {
		err = perf_callchain_alloc();
	} else if (max_stack > perf_callchain_max) {
		/* buffers in use were sized for a smaller limit */
		err = -EOVERFLOW;
	}
	if (!err)
		perf_callchain_users++;
	mutex_unlock(&perf_callchain_mutex);
	return err;
}

/**
 * perf_callchain_get - make sure callchain buffers exist for @event
 */
int perf_callchain_get(struct perf_event *event)
{
	u32 limit = READ_ONCE(sysctl_perf_event_max_stack);
	u32 max = event->attr.sample_max_stack ?: limit;

	/* deeper than the sysctl allows: checked once the PMU took it */
	if (max > limit)
		return -EOVERFLOW;
	return __perf_callchain_get(max);
}

static void __perf_callchain_put(void)
{
	struct perf_callchain_buffers *bufs;

	mutex_lock(&perf_callchain_mutex);
	if (!--perf_callchain_users) {
		bufs = rcu_dereference_protected(perf_callchain_bufs,
				lockdep_is_held(&perf_callchain_mutex));
		RCU_INIT_POINTER(perf_callchain_bufs, NULL);
		call_rcu(&bufs->rcu_head, perf_callchain_free_rcu);
	}
	mutex_unlock(&perf_callchain_mutex);
}

void perf_callchain_put(struct perf_event *event)
{
	__perf_callchain_put();
}

/**
 * get_callchain_buffers - callchain buffers for a BPF user
 */
int get_callchain_buffers(int max_stack)
{
	return __perf_callchain_get(max_stack);
}

/**
 * put_callchain_buffers - drop what get_callchain_buffers() took
 */
void put_callchain_buffers(void)
{
	__perf_callchain_put();
}

/* Is the buffers' user count held by someone (the max_stack sysctl)? */
bool perf_callchain_in_use(void)
{
	return READ_ONCE(perf_callchain_users) != 0;
}

static int perf_callchain_context(void)
{
	if (in_nmi())
		return 3;
	if (in_hardirq())
		return 2;
	if (in_serving_softirq())
		return 1;
	return 0;
}

static void perf_callchain_store_context(struct perf_callchain_entry_ctx *ctx,
					 u64 marker)
{
	if (ctx->contexts <
	    READ_ONCE(sysctl_perf_event_max_contexts_per_stack)) {
		ctx->entry->ip[ctx->entry->nr++] = marker;
		ctx->contexts++;
	} else {
		ctx->contexts_maxed = true;
	}
}

/**
 * perf_callchain - the callchain of a sample of @event at @regs
 *
 * Valid until the sample is written; NULL when there is no buffer.
 * Called with preemption (or interrupts) off.
 */
struct perf_callchain_entry *
perf_callchain(struct perf_event *event, struct pt_regs *regs)
{
	bool kernel = !event->attr.exclude_callchain_kernel;
	bool user = !event->attr.exclude_callchain_user;
	struct perf_event_context *ectx = READ_ONCE(event->ctx);
	struct perf_callchain_buffers *bufs;
	struct perf_callchain_entry_ctx ctx;
	struct perf_callchain_entry *entry;
	u32 max_stack;

	bufs = rcu_dereference(perf_callchain_bufs);
	if (!bufs)
		return NULL;
	entry = bufs->cpu[smp_processor_id()] +
		perf_callchain_context() * bufs->entry_size;

	max_stack = event->attr.sample_max_stack ?:
		    READ_ONCE(sysctl_perf_event_max_stack);
	max_stack = min(max_stack, perf_callchain_max);

	entry->nr = 0;
	ctx.entry = entry;
	ctx.max_stack = max_stack;
	ctx.nr = 0;
	ctx.contexts = 0;
	ctx.contexts_maxed = false;

	if (kernel && !user_mode(regs)) {
		perf_callchain_store_context(&ctx, PERF_CONTEXT_KERNEL);
		perf_callchain_kernel(&ctx, regs);
	}
	/*
	 * A hit about another task (a wakeup of the event's task): current's
	 * user stack belongs to someone else, who did not ask to be traced.
	 */
	if (ectx && ectx->task && ectx->task != current)
		user = false;
	if (user) {
		if (!user_mode(regs)) {
			if (current->mm && !(current->flags & PF_KTHREAD))
				regs = task_pt_regs(current);
			else
				regs = NULL;
		}
		if (regs) {
			perf_callchain_store_context(&ctx, PERF_CONTEXT_USER);
			perf_callchain_user(&ctx, regs);
		}
	}
	return entry;
}
