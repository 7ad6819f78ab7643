// SPDX-License-Identifier: GPL-2.0
/*
 * The tracepoint PMU (PERF_TYPE_TRACEPOINT): an event per tracepoint id,
 * counted each time the tracepoint fires while the event is on the PMU;
 * a sampling event's samples carry the tracepoint's record as
 * PERF_SAMPLE_RAW, which is how perf record/script show its fields.
 *
 * The tracing side (kernel/trace/trace_event_perf.c) owns the per-CPU
 * list of events of each tracepoint: perf_trace_add() puts an event on
 * this CPU's list, and a firing tracepoint hands that list to
 * perf_tp_event(). Like the software hooks it runs in any context with
 * no lock, under RCU.
 *
 * perf_swevent_get_recursion_context() gives each context level (task,
 * softirq, hardirq, NMI) of a CPU its own scratch buffers, so a
 * tracepoint hit in an interrupt cannot overwrite a record half built by
 * the code it interrupted, and a tracepoint inside the tracing path does
 * not recurse.
 */
#include <linux/trace_events.h>
#include <linux/preempt.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "layer/pmus.h"

static DEFINE_PER_CPU(int, perf_sw_recursion[PERF_NR_CONTEXTS]);

/**
 * perf_swevent_get_recursion_context - claim this context level's buffers
 *
 * Returns the level (0..3), or -1 if this level is already inside the
 * perf path. Preemption must be off until the matching put.
 */
int perf_swevent_get_recursion_context(void)
{
	int rctx = interrupt_context_level();
	int *busy = this_cpu_ptr(&perf_sw_recursion[rctx]);

	if (*busy)
		return -1;
	*busy = 1;
	barrier();
	return rctx;
}
EXPORT_SYMBOL_GPL(perf_swevent_get_recursion_context);

void perf_swevent_put_recursion_context(int rctx)
{
	barrier();
	this_cpu_write(perf_sw_recursion[rctx], 0);
}
EXPORT_SYMBOL_GPL(perf_swevent_put_recursion_context);

/**
 * perf_swevent_set_period - arm a software-counted sampling event
 * @event: the event
 *
 * Called by the tracing side each time the event goes on the PMU. The
 * countdown to the next overflow carries over a context switch (period
 * 3 samples every third hit of the task, however often it is switched
 * out); only a countdown that is spent or longer than the period (the
 * period changed) starts again from the current period.
 */
int perf_swevent_set_period(struct perf_event *event)
{
	struct hw_perf_event *hwc = &event->hw;
	s64 left = local64_read(&hwc->period_left);

	hwc->last_period = hwc->sample_period;
	if (left <= 0 || left > (s64)hwc->sample_period)
		local64_set(&hwc->period_left, hwc->sample_period);
	return 0;
}

/* @event sees the hit: counts it, or samples it with the record */
static void perf_tp_hit(struct perf_event *event, u64 count, void *record,
			struct perf_raw_record *raw, struct pt_regs *regs)
{
	struct perf_sample_data data;

	if (event->filter && !filter_match_preds(event->filter, record))
		return;
	if (!is_sampling_event(event)) {
		local64_add(count, &event->count);
		return;
	}
	perf_sample_data_init(&data, 0, 0);
	data.raw = raw;
	data.sample_flags |= PERF_SAMPLE_RAW;
	perf_swevent_hit(event, count, &data, regs);
}

/*
 * A hit about @task, in someone else's context: the events of @task's
 * context for this tracepoint that are bound to this CPU see it (an
 * event on all CPUs does not: as in 6.12, only per-CPU events of a task
 * do), and only counts it. Such an event is on no PMU while @task is not
 * current here, so nothing else updates its count; ctx->lock keeps the
 * list still. The scheduler takes ctx->lock under the runqueue lock too,
 * which is where sched_wakeup fires.
 */
static void perf_tp_task_hit(struct task_struct *task, u16 event_type,
			     u64 count, void *record, struct pt_regs *regs)
{
	struct perf_event_context *ctx;
	struct perf_event *event;
	unsigned long flags;

	rcu_read_lock();
	ctx = rcu_dereference(task->perf_event_ctxp);
	/* most contexts have none: no lock on every wakeup */
	if (!ctx || !READ_ONCE(ctx->nr_cpu_tp))
		goto out;
	perf_ctx_lock_irqsave(ctx, flags);
	if (ctx->dead)
		goto unlock;
	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (event->attr.type != PERF_TYPE_TRACEPOINT ||
		    event->attr.config != event_type ||
		    event->cpu != smp_processor_id() ||
		    event->state < PERF_EVENT_STATE_INACTIVE ||
		    event->attr.sigtrap)
			continue;
		/* stopped, as off the PMU: only the privilege levels apply */
		if (perf_hit_priv_excluded(event, regs))
			continue;
		if (event->filter && !filter_match_preds(event->filter, record))
			continue;
		/*
		 * Counted, never sampled, as in 6.12: a sample here would be
		 * taken in someone else's context (the waker's registers and
		 * stacks) for an event that is not running.
		 */
		local64_add(count, &event->count);
	}
unlock:
	perf_ctx_unlock_irqrestore(ctx, flags);
out:
	rcu_read_unlock();
}

/**
 * perf_tp_event - a tracepoint fired: count it, sample it with its record
 * @event_type: the trace event's type (its id)
 * @count: how many hits to count
 * @record: the tracepoint's record (struct trace_entry and its fields),
 *	    the PERF_SAMPLE_RAW data of a sample
 * @entry_size: its size in bytes
 * @regs: the registers of the hit
 * @head: this CPU's list of the tracepoint's events on the PMU
 * @rctx: from perf_swevent_get_recursion_context(), released here
 * @task: a task the tracepoint is about (the woken task of
 *	  sched_waking/sched_wakeup, the task of sched_stat_*), or NULL
 *
 * The events on this CPU's list see the hit; so do @task's enabled
 * events for this tracepoint bound to this CPU when @task is not
 * current, which is how per-CPU events on a sleeping task count its
 * wakeups.
 */
void perf_tp_event(u16 event_type, u64 count, void *record, int entry_size,
		   struct pt_regs *regs, struct hlist_head *head, int rctx,
		   struct task_struct *task)
{
	struct perf_raw_record raw = {
		.frag = { .size = entry_size, .data = record },
	};
	struct perf_event *event;

	/* the common fields (type, flags, preempt count, pid) for filters */
	perf_trace_buf_update(record, event_type);
	if (head) {
		rcu_read_lock();
		hlist_for_each_entry_rcu(event, head, hlist_entry)
			if (!perf_hit_excluded(event, regs))
				perf_tp_hit(event, count, record, &raw, regs);
		rcu_read_unlock();
	}
	if (task && task != current)
		perf_tp_task_hit(task, event_type, count, record, regs);
	perf_swevent_put_recursion_context(rctx);
}
EXPORT_SYMBOL_GPL(perf_tp_event);

/**
 * perf_trace_run_bpf_submit - a static tracepoint's record, built: run the
 *	BPF programs of its trace event, then hand it to the perf events
 * @raw_data: the record (struct trace_entry and the fields)
 * @size: its size
 * @rctx: from perf_trace_buf_alloc(), released here
 * @call: the trace event
 * @count: how many hits it stands for (__perf_count)
 * @regs: the registers of the hit
 * @head: this CPU's list of the trace event's perf events
 * @task: the task the hit is about (__perf_task), or NULL
 *
 * The programs (SET_BPF or perf links on any tracepoint event of @call,
 * kernel/events/bpf.c) see every hit, and a verdict of 0 hides it from
 * every perf event. They find the registers through the first 8 bytes of
 * the record, where the common fields go: perf_tp_event() writes those
 * afterwards. With programs, a hit no event of this CPU takes ends
 * there, as in 6.12, even one about another task.
 */
void perf_trace_run_bpf_submit(void *raw_data, int size, int rctx,
			       struct trace_event_call *call, u64 count,
			       struct pt_regs *regs, struct hlist_head *head,
			       struct task_struct *task)
{
	if (bpf_prog_array_valid(call)) {
		*(struct pt_regs **)raw_data = regs;
		if (!trace_call_bpf(call, raw_data) || hlist_empty(head))
			goto done;
	}
	if ((!head || hlist_empty(head)) && !task)
		goto done;
	perf_tp_event(call->event.type, count, raw_data, size, regs, head,
		      rctx, task);
	return;
done:
	perf_swevent_put_recursion_context(rctx);
}
EXPORT_SYMBOL_GPL(perf_trace_run_bpf_submit);

static void perf_tp_event_destroy(struct perf_event *event)
{
	perf_trace_destroy(event);
	ftrace_profile_free_filter(event);
}

static int perf_tp_event_init(struct perf_event *event)
{
	int err;

	if (event->attr.type != PERF_TYPE_TRACEPOINT)
		return -ENOENT;
	/* no branch stacks from the tracing path */
	if (has_branch_stack(event))
		return -EOPNOTSUPP;

	err = perf_trace_init(event);
	if (err)
		return err;
	event->event_caps |= PERF_EV_CAP_SOFTWARE;
	event->destroy = perf_tp_event_destroy;
	return 0;
}

static void perf_tp_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void perf_tp_stop(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED;
}

static int perf_tp_add(struct perf_event *event, int flags)
{
	event->hw.state = (flags & PERF_EF_START) ? 0 : PERF_HES_STOPPED;
	return perf_trace_add(event, flags);
}

static void perf_tp_del(struct perf_event *event, int flags)
{
	perf_trace_del(event, flags);
	event->hw.state = PERF_HES_STOPPED;
}

static void perf_tp_read(struct perf_event *event)
{
}

/**
 * perf_tp_pmu_ops - make @pmu schedule its events as tracepoint events
 * @pmu: the PMU
 *
 * For PMUs whose event_init attaches a trace event to the event (the
 * kprobe PMU): adding it puts it on the trace event's per-CPU list.
 */
void perf_tp_pmu_ops(struct pmu *pmu)
{
	/* no NO_NMI: tracepoints fire in NMI too (CLOCK_REALTIME is EINVAL) */
	pmu->task_ctx_nr = perf_sw_context;
	pmu->capabilities |= PERF_PMU_CAP_COUNTS_IN_PLACE;
	pmu->add = perf_tp_add;
	pmu->del = perf_tp_del;
	pmu->start = perf_tp_start;
	pmu->stop = perf_tp_stop;
	pmu->read = perf_tp_read;
}

static struct pmu perf_tracepoint_pmu = {
	.event_init	= perf_tp_event_init,
};

/**
 * perf_tracepoint_set_filter - PERF_EVENT_IOC_SET_FILTER on a tracing event
 * @event: the event
 * @arg: the filter string, in user memory
 *
 * Any event that perf_tp_hit() sees takes one: a tracepoint's, and the
 * kprobe and uprobe PMUs', whose trace events have fields (the common
 * ones, the probe's arguments) to filter on like any other (perf record
 * -e probe:x --filter; 6.12 accepts all three).
 */
int perf_tracepoint_set_filter(struct perf_event *event, void __user *arg)
{
	char *filter;
	int err;

	if (event->pmu->add != perf_tp_add || !event->tp_event)
		return -EINVAL;
	filter = strndup_user(arg, PAGE_SIZE);
	if (IS_ERR(filter))
		return PTR_ERR(filter);
	err = ftrace_profile_set_filter(event, event->attr.config, filter);
	kfree(filter);
	return err;
}

int __init perf_tracepoint_register(void)
{
	perf_tp_pmu_ops(&perf_tracepoint_pmu);
	return perf_pmu_register(&perf_tracepoint_pmu, "tracepoint",
				 PERF_TYPE_TRACEPOINT);
}
