// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs on perf events: the perf side.
 *
 * An event takes one program, from PERF_EVENT_IOC_SET_BPF or a perf link
 * (BPF_LINK_CREATE on the event's fd, kernel/bpf/syscall.c). Where it
 * runs depends on the event:
 *
 * - A tracing event (tracepoint, kprobe, uprobe) hands its program to its
 *   trace event's prog_array (kernel/trace/bpf_trace.c). The program runs
 *   at every hit of the trace event, on any CPU and for any task, before
 *   the perf events see the hit, and its verdict (0: drop) applies to all
 *   of them: the tracing side runs kprobe and syscall programs itself,
 *   tracepoint.c runs those of static tracepoints.
 * - Any other event takes a BPF_PROG_TYPE_PERF_EVENT program, which runs
 *   at each overflow of the event, after the throttling check, with the
 *   sample's callchain made if it calls bpf_get_stack{,id}() (the rest
 *   is made when the sample is written); returning 0 drops the
 *   overflow: no sample, no signal, no REFRESH countdown. Inherited
 *   copies run their parent's.
 *
 * Context and locks: attaching, detaching and the query run in process
 * context under perf_bpf_mutex (bpf_trace.c's bpf_event_mutex nests
 * inside). The overflow hook runs wherever the overflow comes, NMI
 * included: it reads event->prog under RCU and never locks; a detached
 * program is freed only after a grace period (bpf_prog_put()). Like
 * every BPF entry point it runs nothing while another program runs on
 * this CPU (bpf_prog_active), which keeps a program's own events from
 * recursing.
 *
 * Records about programs (PERF_RECORD_BPF_EVENT, their KSYMBOLs) are
 * side-band records: records.c.
 */
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/syscalls.h>
#include <linux/trace_events.h>

#include "layer/overflow.h"

/* Serializes changes of event->prog (SET_BPF, links, inheritance, free). */
static DEFINE_MUTEX(perf_bpf_mutex);

/*
 * No branch stack can be snapshotted until a PMU driver that records one
 * sets its own function: bpf_get_branch_snapshot() gets 0 entries.
 */
DEFINE_STATIC_CALL_RET0(perf_snapshot_branch_stack,
			perf_snapshot_branch_stack_t);

/* A PERF_EVENT program on a sampling (non-tracing) event. */
static int perf_event_set_bpf_handler(struct perf_event *event,
				      struct bpf_prog *prog, u64 bpf_cookie)
{
	/* an in-kernel user's event (a ptrace breakpoint) is not ours to run */
	if (event->overflow_handler_context)
		return -EINVAL;
	if (event->prog)
		return -EEXIST;
	if (prog->type != BPF_PROG_TYPE_PERF_EVENT)
		return -EINVAL;
	/*
	 * The stack helpers take a precise event's stack from the sample's
	 * callchain, as the registers of a precise sample are not those of
	 * the interrupt: the event must sample a whole callchain.
	 */
	if (event->attr.precise_ip && prog->call_get_stack &&
	    (!(event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) ||
	     event->attr.exclude_callchain_kernel ||
	     event->attr.exclude_callchain_user))
		return -EPROTO;

	event->bpf_cookie = bpf_cookie;
	/* the cookie first: the overflow hook may run as soon as prog is set */
	smp_store_release(&event->prog, prog);
	perf_ctx_unclone(READ_ONCE(event->ctx));
	return 0;
}

/* A program on a tracing event: its kind must match the trace event's. */
static int perf_event_set_bpf_tracing(struct perf_event *event,
				      struct bpf_prog *prog, u64 bpf_cookie)
{
#ifdef CONFIG_EVENT_TRACING
	struct trace_event_call *call = event->tp_event;
	bool is_kprobe = call->flags & TRACE_EVENT_FL_KPROBE;
	bool is_uprobe = call->flags & TRACE_EVENT_FL_UPROBE;
	bool is_tracepoint = call->flags & TRACE_EVENT_FL_TRACEPOINT;
	bool is_syscall_tp = is_syscall_trace_event(call);

	if (!is_kprobe && !is_uprobe && !is_tracepoint && !is_syscall_tp)
		return -EINVAL;
	if ((is_kprobe || is_uprobe) && prog->type != BPF_PROG_TYPE_KPROBE)
		return -EINVAL;
	if ((is_tracepoint || is_syscall_tp) &&
	    prog->type != BPF_PROG_TYPE_TRACEPOINT)
		return -EINVAL;
	/* only a uprobe may sleep where it fires */
	if (prog->type == BPF_PROG_TYPE_KPROBE && prog->sleepable &&
	    !is_uprobe)
		return -EINVAL;
	if (prog->kprobe_override && !is_kprobe)
		return -EINVAL;
	/* a tracepoint program may read no further than the record goes */
	if ((is_tracepoint || is_syscall_tp) &&
	    prog->aux->max_ctx_offset > trace_event_get_offsets(call))
		return -EACCES;

	return perf_event_attach_bpf_prog(event, prog, bpf_cookie);
#else
	return -EINVAL;
#endif
}

/**
 * perf_event_set_bpf_prog - attach @prog to @event
 * @event: a perf event
 * @prog: the program; on success the event keeps the caller's reference
 * @bpf_cookie: what bpf_get_attach_cookie() returns to the program
 *
 * For PERF_EVENT_IOC_SET_BPF and perf links. A tracing event takes a
 * program of its kind (kprobe, or tracepoint for tracepoints and
 * syscalls); any other event a BPF_PROG_TYPE_PERF_EVENT one. May sleep.
 *
 * Return: 0; -EINVAL for a program of the wrong type; -EEXIST when the
 * event has one already; -EACCES for a tracepoint program that reads
 * past the record; -EPROTO for a stack-walking program on a precise
 * event without full callchains.
 */
int perf_event_set_bpf_prog(struct perf_event *event, struct bpf_prog *prog,
			    u64 bpf_cookie)
{
	int err;

	mutex_lock(&perf_bpf_mutex);
	if (perf_event_is_tracing(event))
		err = perf_event_set_bpf_tracing(event, prog, bpf_cookie);
	else
		err = perf_event_set_bpf_handler(event, prog, bpf_cookie);
	mutex_unlock(&perf_bpf_mutex);
	return err;
}

/* With perf_bpf_mutex held: detach; returns a reference to drop, or NULL. */
static struct bpf_prog *perf_event_detach_bpf_locked(struct perf_event *event)
{
	struct bpf_prog *prog = event->prog;

	lockdep_assert_held(&perf_bpf_mutex);

	if (!prog)
		return NULL;
	if (perf_event_is_tracing(event)) {
		/* drops the reference after a grace period of its own */
		perf_event_detach_bpf_prog(event);
		return NULL;
	}
	WRITE_ONCE(event->prog, NULL);
	event->bpf_cookie = 0;
	return prog;
}

/**
 * perf_event_free_bpf_prog - detach @event's program and drop it
 * @event: the event whose program is detached
 *
 * For the release of a perf link and for the event's own free. A
 * program running in an overflow at this moment finishes: the program
 * is freed after an RCU grace period. May sleep.
 */
void perf_event_free_bpf_prog(struct perf_event *event)
{
	struct bpf_prog *prog;

	if (!READ_ONCE(event->prog))
		return;
	mutex_lock(&perf_bpf_mutex);
	prog = perf_event_detach_bpf_locked(event);
	mutex_unlock(&perf_bpf_mutex);
	/* unloading writes records under context locks: outside the mutex */
	if (prog)
		bpf_prog_put(prog);
}

/**
 * perf_event_inherit_bpf_prog - an inherited copy runs its parent's program
 * @child: the inherited copy
 * @parent: the event it was copied from
 *
 * Only PERF_EVENT programs: a tracing event's program is its trace
 * event's, which runs for every copy already.
 */
void perf_event_inherit_bpf_prog(struct perf_event *child,
				 struct perf_event *parent)
{
	struct bpf_prog *prog;

	if (!READ_ONCE(parent->prog))
		return;
	mutex_lock(&perf_bpf_mutex);
	prog = parent->prog;
	if (prog && prog->type == BPF_PROG_TYPE_PERF_EVENT) {
		bpf_prog_inc(prog);
		child->prog = prog;
	}
	mutex_unlock(&perf_bpf_mutex);
}

/**
 * perf_event_ioctl_set_bpf - PERF_EVENT_IOC_SET_BPF: attach program @fd
 * @event: the event the program is attached to
 * @fd: file descriptor of the BPF program
 */
int perf_event_ioctl_set_bpf(struct perf_event *event, u32 fd)
{
	struct bpf_prog *prog;
	int err;

	prog = bpf_prog_get(fd);
	if (IS_ERR(prog))
		return PTR_ERR(prog);
	err = perf_event_set_bpf_prog(event, prog, 0);
	if (err)
		bpf_prog_put(prog);
	return err;
}

/**
 * perf_event_ioctl_query_bpf - PERF_EVENT_IOC_QUERY_BPF
 * @event: the tracepoint event asked about
 * @info: user's struct perf_event_query_bpf
 *
 * The ids of the programs of a tracepoint event's trace event, which
 * are all programs that see its hits, whoever attached them
 * (bpf_trace.c answers: EPERM without CAP_PERFMON, EINVAL for an event
 * not of PERF_TYPE_TRACEPOINT).
 */
int perf_event_ioctl_query_bpf(struct perf_event *event, void __user *info)
{
	/* under bpf_event_mutex there; nothing of ours is read */
	return perf_event_query_prog_array(event, info);
}

/**
 * perf_event_bpf_overflow - run @event's PERF_EVENT program on an overflow
 * @event: the event that overflowed, with a program
 * @data: the sample, with its callchain made if the program reads it
 * @regs: the registers of the overflow
 *
 * Any context, NMI included. Return: false when the program dropped the
 * overflow (returned 0), or when another program was running on this
 * CPU and this one could not run; true otherwise.
 */
bool perf_event_bpf_overflow(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	struct bpf_perf_event_data_kern ctx = {
		/* arm64's user_pt_regs begins its pt_regs */
		.regs	= (bpf_user_pt_regs_t *)regs,
		.data	= data,
		.event	= event,
	};
	struct bpf_prog *prog;
	bool keep = true;

	rcu_read_lock();
	/* pairs with the release in perf_event_set_bpf_handler(): the cookie */
	prog = smp_load_acquire(&event->prog);
	/* a tracing event's program ran at the hit, before the event saw it */
	if (!prog || prog->type != BPF_PROG_TYPE_PERF_EVENT)
		goto unlock;
	if (unlikely(__this_cpu_inc_return(bpf_prog_active) != 1)) {
		keep = false;
		goto out;
	}
	/*
	 * The program reads the period, the address and the registers,
	 * which are set; a sample that it keeps is prepared when it is
	 * written. Only bpf_get_stack{,id}() read a field that must be
	 * made first: the callchain the event samples.
	 */
	if (prog->call_get_stack &&
	    (event->attr.sample_type & PERF_SAMPLE_CALLCHAIN) &&
	    !(data->sample_flags & PERF_SAMPLE_CALLCHAIN)) {
		data->callchain = perf_callchain(event, regs);
		data->sample_flags |= PERF_SAMPLE_CALLCHAIN;
	}
	keep = bpf_prog_run(prog, &ctx);
out:
	__this_cpu_dec(bpf_prog_active);
unlock:
	rcu_read_unlock();
	return keep;
}
