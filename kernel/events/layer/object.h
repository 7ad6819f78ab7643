/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The perf core's own header, split by layer (Documentation/perf-core/
 * design.rst, "Layers"). This one is the bottom: the types every file of
 * kernel/events shares, and no one else, and the functions of the object
 * layer (sysctl.c pmu.c event.c guest.c callchain.c). Each layer above has
 * a header here that includes the one below it, and a file includes its
 * own layer's: a call up a layer does not compile.
 *
 * Locks, outermost first: a lock is taken only with locks above it held
 * (Documentation/perf-core/design.rst has the same table, and the paths
 * that make each edge):
 *
 *  #  lock                        kind, context        protects
 *  1  exec_update_lock            rwsem, process       the target's creds and mm while
 *                                                      open checks and installs; exec
 *  2  task->perf_event_mutex      mutex, process       task->perf_event_ctxp creation and
 *                                                      teardown; the events a task owns
 *  3  ctx->mutex, task context    mutex, process       changes to a context from process
 *                                                      context (install, remove, groups)
 *  4  perf_unswap_mutex           mutex, process       one unswap at a time (swap.c)
 *  5  event->child_mutex          mutex, process       an event's inherited children
 *  6  event_mutex (trace)         mutex, process       tracing events' init and destroy
 *  7  uprobes_install_mutex,      mutex, rwsem,        uprobes' consumers and breakpoint
 *     then uprobes_fork_rwsem     process              writes (uprobes/uprobes.h)
 *  8  hotplug lock                percpu rwsem         static keys take it; hotplug
 *                                                      callbacks run under it
 *  9  ctx->mutex, CPU context     mutex (own class),   the same, for a CPU's context;
 *                                 process, cpuhp       two when scope.c migrates (lower
 *                                                      CPU first, then nested)
 * 10  mm->mmap_lock               rwsem, process       the mm; our mmap and vma close run
 *                                                      under it
 * 11  event->mmap_mutex           mutex, process       event->rb, mapping counts; another
 *                                                      event's nested (buffer unmapped)
 * 12  rb->aux_mutex               mutex, process       a buffer's AUX area (rb->aux); its
 *                                                      pages and the driver's setup_aux()
 *                                                      under it
 * 13  leaf mutexes                mutex, process       perf_callchain_mutex (buffers,
 *                                                      stack sysctls), perf_bpf_mutex
 *                                                      (event->prog), bp_slots_mutex,
 *                                                      pmus_lock (PMU list), uprobe
 *                                                      insn_mutex, ref_ctr_mutex, x86
 *                                                      intel_ds_mutex, ibs_nmi_mutex,
 *                                                      perf_addr_filter_mutex (the
 *                                                      events with file filters)
 * 14  rb->event_lock              spinlock, irqsave    a buffer's list of writers
 * 15  rq->lock, p->pi_lock        raw, the scheduler   held around the switch hooks and
 *                                                      the sched tracepoints
 * 16  ctx->lock                   raw, IRQs off,       event states, a context's lists,
 *                                 never in NMI         times, is_active; nested: this
 *                                                      CPU's under a task's (repack), a
 *                                                      swap pair in address order
 * 17  an event's address filters raw, IRQs off,       where its file filters are mapped
 *     (addr_filter.c)             never in NMI         (the driver's start reads them)
 * 18  hrtimer base, x86           raw, IRQs off        innermost
 *     extra_core.lock
 *
 * Nothing under ctx->lock sleeps or wakes a wait queue; no event is freed
 * under an mmap_lock (perf_event_put_async()).
 */
#ifndef _KERNEL_EVENTS_LAYER_OBJECT_H
#define _KERNEL_EVENTS_LAYER_OBJECT_H

#include <linux/perf_event.h>
#include <linux/irq_work.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <linux/sched/clock.h>

/*
 * struct perf_cpu_context - per-CPU state of the core
 * @ctx: the CPU-wide events of this CPU
 * @task_ctx: the task context currently scheduled here, if any
 */
struct perf_cpu_context {
	struct perf_event_context	ctx;
	struct perf_event_context	*task_ctx;
	bool				online;
#ifdef CONFIG_CGROUP_PERF
	/* cgroup events in ctx, and the cgroup whose clocks run here */
	int				nr_cgroups;
	struct perf_cgroup		*cgrp;
#endif
};

DECLARE_PER_CPU(struct perf_cpu_context, perf_cpu_context);

/*
 * struct perf_mmap_charge - what a mapping was charged for its pages: the
 * user's locked_vm carries @locked pages (within perf_event_mlock_kb), the
 * mm's pinned_vm @pinned (beyond it, against RLIMIT_MEMLOCK); @user is
 * NULL when nothing is charged.
 */
struct perf_mmap_charge {
	struct user_struct		*user;
	struct mm_struct		*mm;
	long				locked;
	long				pinned;
};

/*
 * struct perf_buffer - the ring buffer behind an event's mapping
 *
 * One vmalloc area: the control page (struct perf_event_mmap_page), then
 * @size bytes of data, a power of two. Writers reserve space by moving
 * @head with cmpxchg, so any context, NMI included, can write; only the
 * outermost writer on a CPU publishes data_head, after every nested one
 * has finished (@nest).
 */
struct perf_buffer {
	refcount_t			refcount;
	struct rcu_head			rcu_head;
	struct perf_event_mmap_page	*user_page;
	void				*data;
	unsigned long			size;
	int				nr_pages;
	/* read-only mapping: old data is overwritten, nothing is lost */
	bool				overwrite;
	bool				backward;
	int				paused;
	/* bytes written between wakeups, and records between wakeups */
	long				watermark;
	int				wakeup_events;

	local_t				head;
	local_t				nest;
	/* bumped each time readers should be woken */
	local_t				wakeup;
	local_t				events;
	/* records dropped for lack of space since the last LOST record */
	local_t				lost;
	atomic_t			poll;
	/* mappings of the buffer, through any event */
	atomic_t			mmap_count;

	/* every event writing here, for wakeups */
	spinlock_t			event_lock;
	struct list_head		event_list;
	/* its last mapping went: no event may start writing here (event_lock) */
	bool				unmapped;

	/*
	 * The active event whose whole update (perf_event_update_userpage())
	 * last wrote the control page, and on which CPU; NULL while none.
	 * Until it moves (del and add, each a whole update) a reload of its
	 * counter changes only the page's offset (and, without
	 * cap_user_time, its times): perf_event_update_userpage_reload().
	 */
	struct perf_event		*up_event;
	int				up_cpu;
	/* that update set cap_user_time: readers extrapolate the times */
	bool				up_time;

	/* what the mapping was charged, returned at the last unmap */
	struct perf_mmap_charge		charge;

	/* the AUX area (aux.c) while mapped; changed under aux_mutex */
	struct perf_aux_area __rcu	*aux;
	struct mutex			aux_mutex;
	/*
	 * The AUX stream's next byte, as a running offset, and where the
	 * reader was last woken: the buffer's, so an area mapped anew
	 * continues the stream (as in 6.12)
	 */
	local_t				aux_head;
	local_t				aux_wakeup;
};

/*
 * struct perf_aux_area - the AUX area of a ring buffer (aux.c)
 *
 * Pages of its own, mapped at aux_offset, that a PMU driver fills with
 * its stream (a trace) through an output handle, while the core writes a
 * PERF_RECORD_AUX into the data buffer for each stretch. The mappings
 * hold one reference and each open handle one; the last reference frees
 * it from a work item, as handles end in NMIs and drivers' free_aux()
 * sleeps.
 */
struct perf_aux_area {
	refcount_t			refcount;
	/* the buffer it belongs to, held: the AUX records go there */
	struct perf_buffer		*rb;
	struct pmu			*pmu;
	void				*priv;
	void				**pages;
	int				nr_pages;
	unsigned long			size;
	unsigned long			pgoff;
	/* a read-only mapping: the driver overwrites, the reader snapshots */
	bool				overwrite;
	/* an output handle is open: one writer at a time */
	local_t				nest;
	/* the bytes between wakeups */
	unsigned long			watermark;
	/* its mappings, all through one buffer */
	atomic_t			mmap_count;
	struct perf_mmap_charge		charge;
	struct irq_work			free_irq_work;
	struct work_struct		free_work;
	struct rcu_head			rcu_head;
};

/* A change its clones would not see: it is no longer equivalent to them. */
static inline void perf_ctx_unclone(struct perf_event_context *ctx)
{
	if (ctx)
		WRITE_ONCE(ctx->clone_id, 0);
}

/*
 * The core's invariant checks that cost a test on a hot path or a list
 * walk: in the kernels that prove their locking (the test kernels), off
 * in every other build.
 */
#define PERF_CHECKS	IS_ENABLED(CONFIG_PROVE_LOCKING)

/*
 * An event opened on a task whose group is not inherited counts that
 * task alone: its context is never lent to another task of the family
 * (Documentation/perf-core/ctx-swap.rst). Would it count for @task?
 */
static inline bool perf_event_foreign_task(struct perf_event *event,
					   struct task_struct *task)
{
	return event->hw.target && !event->parent &&
	       !event->group_leader->attr.inherit && event->hw.target != task;
}

/* pmu.c */
extern cpumask_t perf_scope_cpus[PERF_PMU_MAX_SCOPE];
struct pmu *perf_pmu_find(struct perf_event *event);
void perf_pmu_exclusive_put(struct perf_event *event);
bool perf_pmu_exclusive_installable(struct perf_event *event,
				    struct perf_event_context *ctx);

/* event.c: references and deferred work */
void perf_event_hold(struct perf_event *event);
void perf_event_put(struct perf_event *event);
void perf_event_put_async(struct perf_event *event);
void perf_event_queue_pending(struct perf_event *event);

/*
 * In lifecycle.c (an entry point): the one call up the layers, which the
 * last perf_event_put() makes.
 */
void perf_event_free(struct perf_event *event);

static inline bool perf_event_is_group_leader(struct perf_event *event)
{
	return event->group_leader == event;
}

/*
 * cpu-clock or task-clock, however opened (PERF_TYPE_SOFTWARE or the
 * clocks' own types): their PMU's event_init says so
 */
static inline bool perf_event_is_swclock(const struct perf_event *event)
{
	return event->event_caps & PERF_EV_CAP_SWCLOCK;
}

/*
 * A running clock's count as of @now, its context's time just taken,
 * without bringing it there: the clocks keep in hw.prev_count the instant
 * their count was last brought to (swevent.c). What a read returns, for
 * a reader that would only store what the next read computes again. An
 * NMI that brings the count up meanwhile is seen by prev_count changing.
 */
static inline u64 perf_swclock_count_at(struct perf_event *event, u64 now)
{
	u64 prev, count;

	do {
		prev = local64_read(&event->hw.prev_count);
		count = local64_read(&event->count);
	} while (local64_read(&event->hw.prev_count) != prev);
	if (!(event->hw.state & PERF_HES_STOPPED) && (s64)(now - prev) > 0)
		count += now - prev;
	return count;
}

/* callchain.c */
int perf_callchain_get(struct perf_event *event);
void perf_callchain_put(struct perf_event *event);

/* sysctl.c */
extern int perf_samples_per_tick;

/* samples one event may take per tick before it is throttled */
static inline int perf_max_samples_per_tick(void)
{
	return READ_ONCE(perf_samples_per_tick);
}

#endif /* _KERNEL_EVENTS_LAYER_OBJECT_H */
