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
 *
 * BPF's stack helpers (kernel/bpf/stackmap.c) walk stacks into the same
 * buffers through get_perf_callchain(), with or without the markers; a
 * level's entry is taken for the walk only, so a walk never runs over
 * one of the same level that it interrupted (a probe in the walker).
 */
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/uprobes.h>

#include "layer/object.h"

#define PERF_CALLCHAIN_CONTEXTS	4

/*
 * The limits the entries were sized for travel with them: a walk bounds
 * itself by its own buffers' limits, never by the sysctls (which may
 * change once the last user has gone, while a walk that looked up the
 * old buffers still runs).
 */
struct perf_callchain_buffers {
	struct rcu_head		rcu_head;
	unsigned int		entry_size;
	u32			max_stack;
	u32			max_contexts;
	/* per CPU: PERF_CALLCHAIN_CONTEXTS entries of entry_size bytes */
	void			*cpu[];
};

static DEFINE_MUTEX(perf_callchain_mutex);
static int perf_callchain_users;
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
	int cpu;

	bufs = kzalloc(struct_size(bufs, cpu, nr_cpu_ids), GFP_KERNEL);
	if (!bufs)
		return -ENOMEM;
	/* the sysctls change only under perf_callchain_mutex, with no users */
	bufs->max_stack = sysctl_perf_event_max_stack;
	bufs->max_contexts = sysctl_perf_event_max_contexts_per_stack;
	bufs->entry_size = struct_size_t(struct perf_callchain_entry, ip,
					 bufs->max_stack + bufs->max_contexts);
	for_each_possible_cpu(cpu) {
		bufs->cpu[cpu] = kmalloc_node(bufs->entry_size *
					      PERF_CALLCHAIN_CONTEXTS,
					      GFP_KERNEL, cpu_to_node(cpu));
		if (!bufs->cpu[cpu]) {
			perf_callchain_free(bufs);
			return -ENOMEM;
		}
	}
	rcu_assign_pointer(perf_callchain_bufs, bufs);
	return 0;
}

/*
 * @max_stack: the deepest chain asked for. With @check_limit (an event)
 * 0 stands for the sysctl's limit and more than it is -EOVERFLOW; the
 * limit is read under the mutex its writes take, so it cannot change
 * between the check and the sizing of new buffers.
 */
static int __perf_callchain_get(u32 max_stack, bool check_limit)
{
	struct perf_callchain_buffers *bufs;
	int err = 0;
	u32 limit;

	mutex_lock(&perf_callchain_mutex);
	if (check_limit) {
		limit = READ_ONCE(sysctl_perf_event_max_stack);
		if (!max_stack)
			max_stack = limit;
		if (max_stack > limit) {
			mutex_unlock(&perf_callchain_mutex);
			return -EOVERFLOW;
		}
	}
	bufs = rcu_dereference_protected(perf_callchain_bufs,
				lockdep_is_held(&perf_callchain_mutex));
	if (!perf_callchain_users) {
		err = perf_callchain_alloc();
	} else if (max_stack > bufs->max_stack) {
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
 * @event: the event that samples callchains
 */
int perf_callchain_get(struct perf_event *event)
{
	/* deeper than the sysctl allows: checked once the PMU took it */
	return __perf_callchain_get(event->attr.sample_max_stack, true);
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
 * @max_stack: the deepest chain the user asks for
 */
int get_callchain_buffers(int max_stack)
{
	return __perf_callchain_get(max_stack, false);
}

/**
 * put_callchain_buffers - drop what get_callchain_buffers() took
 */
void put_callchain_buffers(void)
{
	__perf_callchain_put();
}

/**
 * perf_event_max_stack_handler - proc handler of perf_event_max_stack and
 * perf_event_max_contexts_per_stack
 * @table: the sysctl's table entry
 * @write: nonzero for a write
 * @buffer: the data read or written
 * @lenp: its length, updated
 * @ppos: the file position, updated
 *
 * A value out of range is -EINVAL; a valid one is refused with -EBUSY
 * while callchain buffers exist: they were sized for the current
 * limits. The check and the store are one step under the buffers'
 * mutex, so no user can size buffers from the old values in between.
 */
int perf_event_max_stack_handler(const struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos)
{
	struct ctl_table copy = *table;
	int *value = table->data;
	int new_value = READ_ONCE(*value);
	int err;

	if (!write)
		return proc_dointvec_minmax(table, write, buffer, lenp, ppos);
	/* parsed into a copy first: bad input is EINVAL, busy or not */
	copy.data = &new_value;
	err = proc_dointvec_minmax(&copy, write, buffer, lenp, ppos);
	if (err)
		return err;
	mutex_lock(&perf_callchain_mutex);
	if (perf_callchain_users)
		err = -EBUSY;
	else
		WRITE_ONCE(*value, new_value);
	mutex_unlock(&perf_callchain_mutex);
	return err;
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

/*
 * Which context levels of a CPU are building a chain in their entry. A
 * level never nests in itself, except through a BPF program that walks
 * a stack from a hook inside the walker; that one gets no entry.
 */
static DEFINE_PER_CPU(int, perf_callchain_busy[PERF_CALLCHAIN_CONTEXTS]);

/* This CPU's entry for the current level, and the buffers it is in. */
static struct perf_callchain_entry *
perf_callchain_entry_get(int *rctx, struct perf_callchain_buffers **bufsp)
{
	struct perf_callchain_buffers *bufs;
	int level = perf_callchain_context();
	int *busy = this_cpu_ptr(&perf_callchain_busy[level]);

	if (*busy)
		return NULL;
	*busy = 1;
	barrier();
	bufs = rcu_dereference_check(perf_callchain_bufs,
				     rcu_read_lock_sched_held());
	if (!bufs) {
		barrier();
		*busy = 0;
		return NULL;
	}
	*rctx = level;
	*bufsp = bufs;
	return bufs->cpu[smp_processor_id()] + level * bufs->entry_size;
}

/**
 * get_callchain_entry - this CPU's entry for the current context level
 * @rctx: set to the level, for put_callchain_entry()
 *
 * For BPF's stack walkers. Returns NULL when there are no buffers (no
 * get_callchain_buffers() user) or the level's entry is in use. The
 * caller is in an RCU read-side section or has preemption off.
 */
struct perf_callchain_entry *get_callchain_entry(int *rctx)
{
	struct perf_callchain_buffers *bufs;

	return perf_callchain_entry_get(rctx, &bufs);
}

/**
 * put_callchain_entry - done building in the entry of level @rctx
 * @rctx: the context level get_callchain_entry() gave
 *
 * The chain stays readable until the level builds another one.
 */
void put_callchain_entry(int rctx)
{
	barrier();
	this_cpu_write(perf_callchain_busy[rctx], 0);
}

static void perf_callchain_store_context(struct perf_callchain_entry_ctx *ctx,
					 u32 max_contexts, u64 marker,
					 bool add_mark)
{
	if (!add_mark)
		return;
	if (ctx->contexts < max_contexts) {
		ctx->entry->ip[ctx->entry->nr++] = marker;
		ctx->contexts++;
	} else {
		ctx->contexts_maxed = true;
	}
}

#ifdef CONFIG_UPROBES
/*
 * A function with a pending uretprobe returns to the trampoline: the
 * user stack holds its address where the caller's was. Give those
 * entries back the return addresses the instances saved, newest first;
 * a chained group (tail calls) shares one frame and one saved address.
 * Only current's own stack is walked here, so its instances are stable
 * but for the task's own updates, which an NMI sees whole.
 */
static void perf_callchain_fix_uretprobes(struct perf_callchain_entry *entry,
					  u32 from)
{
	struct uprobe_task *utask = current->utask;
	struct return_instance *ri;
	unsigned long tramp;
	u32 i;

	ri = utask ? READ_ONCE(utask->return_instances) : NULL;
	if (!ri)
		return;
	tramp = uprobe_get_trampoline_vaddr();
	for (i = from; i < entry->nr && ri; i++) {
		if (entry->ip[i] != tramp)
			continue;
		entry->ip[i] = ri->orig_ret_vaddr;
		while (ri->chained && ri->next)
			ri = ri->next;
		ri = ri->next;
	}
}
#else
static inline void
perf_callchain_fix_uretprobes(struct perf_callchain_entry *entry, u32 from)
{
}
#endif

/*
 * Walk the kernel stack of @regs, then the user stack of current, into
 * @entry. @crosstask: @regs are not current's (a hit about another task),
 * so current's user stack is not the one asked for and is left out.
 */
static void perf_callchain_walk(struct perf_callchain_entry *entry,
				const struct perf_callchain_buffers *bufs,
				struct pt_regs *regs, bool kernel, bool user,
				u32 max_stack, bool crosstask, bool add_mark)
{
	struct perf_callchain_entry_ctx ctx = {
		.entry = entry,
		.max_stack = min(max_stack, bufs->max_stack),
	};

	entry->nr = 0;
	if (kernel && !user_mode(regs)) {
		perf_callchain_store_context(&ctx, bufs->max_contexts,
					     PERF_CONTEXT_KERNEL, add_mark);
		perf_callchain_kernel(&ctx, regs);
	}
	if (!user || crosstask)
		return;
	if (!user_mode(regs)) {
		if (current->mm && !(current->flags & PF_KTHREAD))
			regs = task_pt_regs(current);
		else
			regs = NULL;
	}
	if (regs) {
		u32 from;

		perf_callchain_store_context(&ctx, bufs->max_contexts,
					     PERF_CONTEXT_USER, add_mark);
		from = entry->nr;
		perf_callchain_user(&ctx, regs);
		perf_callchain_fix_uretprobes(entry, from);
	}
}

/**
 * get_perf_callchain - the kernel and/or user callchain at @regs, for BPF
 * @regs: the registers to start the walk from
 * @kernel: include the kernel part
 * @user: include the user part
 * @max_stack: at most this many addresses (capped by the buffers' size)
 * @crosstask: @regs belong to another task: no user part
 * @add_mark: put PERF_CONTEXT_KERNEL/USER markers before each part
 *
 * Returns this CPU's entry for the current context level, valid until
 * that level builds another chain, or NULL. Preemption must be off.
 */
struct perf_callchain_entry *
get_perf_callchain(struct pt_regs *regs, bool kernel, bool user,
		   u32 max_stack, bool crosstask, bool add_mark)
{
	struct perf_callchain_buffers *bufs;
	struct perf_callchain_entry *entry;
	int rctx;

	entry = perf_callchain_entry_get(&rctx, &bufs);
	if (!entry)
		return NULL;
	perf_callchain_walk(entry, bufs, regs, kernel, user, max_stack,
			    crosstask, add_mark);
	put_callchain_entry(rctx);
	return entry;
}

/**
 * perf_callchain - the callchain of a sample of @event at @regs
 * @event: the sampling event
 * @regs: the registers of the sample
 *
 * Valid until the sample is written; NULL when there is no buffer.
 * Called with preemption (or interrupts) off.
 */
struct perf_callchain_entry *
perf_callchain(struct perf_event *event, struct pt_regs *regs)
{
	struct perf_event_context *ectx = READ_ONCE(event->ctx);
	u32 max_stack = event->attr.sample_max_stack ?:
			READ_ONCE(sysctl_perf_event_max_stack);
	/*
	 * A hit about another task (a wakeup of the event's task): current's
	 * user stack belongs to someone else, who did not ask to be traced.
	 */
	bool crosstask = ectx && ectx->task && ectx->task != current;

	return get_perf_callchain(regs, !event->attr.exclude_callchain_kernel,
				  !event->attr.exclude_callchain_user,
				  max_stack, crosstask, true);
}
