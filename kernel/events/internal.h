/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types and functions shared by the files of the perf core, and by no one
 * else. Documentation/perf-core/design.rst describes how they fit.
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
 * 12  leaf mutexes                mutex, process       perf_callchain_mutex (buffers,
 *                                                      stack sysctls), perf_bpf_mutex
 *                                                      (event->prog), bp_slots_mutex,
 *                                                      pmus_lock (PMU list), uprobe
 *                                                      insn_mutex, ref_ctr_mutex, x86
 *                                                      intel_ds_mutex, ibs_nmi_mutex
 * 13  rb->event_lock              spinlock, irqsave    a buffer's list of writers
 * 14  rq->lock, p->pi_lock        raw, the scheduler   held around the switch hooks and
 *                                                      the sched tracepoints
 * 15  ctx->lock                   raw, IRQs off,       event states, a context's lists,
 *                                 never in NMI         times, is_active; nested: this
 *                                                      CPU's under a task's (repack), a
 *                                                      swap pair in address order
 * 16  hrtimer base, x86           raw, IRQs off        innermost
 *     extra_core.lock
 *
 * Nothing under ctx->lock sleeps or wakes a wait queue; no event is freed
 * under an mmap_lock (perf_event_put_async()).
 */
#ifndef _KERNEL_EVENTS_INTERNAL_H
#define _KERNEL_EVENTS_INTERNAL_H

#include <linux/perf_event.h>
#include <linux/refcount.h>
#include <linux/sched/clock.h>

/*
 * struct perf_event_context - a set of events scheduled together
 *
 * A task has at most one (task->perf_event_ctxp), holding every event
 * that follows the task; each CPU has one for the events that count the
 * CPU. A context is "active" while its events may be on the PMUs of
 * active_cpu: a CPU context while its CPU is online, a task context while
 * the task runs.
 */
struct perf_event_context {
	raw_spinlock_t			lock;
	struct mutex			mutex;
	/* every event, leaders and siblings */
	struct list_head		event_list;
	/* group leaders, by scheduling class */
	struct list_head		pinned_groups;
	struct list_head		flexible_groups;
	int				nr_events;
	/* tracepoint events bound to a CPU, which perf_tp_task_hit() seeks */
	int				nr_cpu_tp;
	int				nr_active;
	/* active events on hardware PMUs, for exclusive groups */
	int				nr_active_hw;
	bool				is_active;
	/*
	 * A flexible group did not fit: rotate once rotate_ms (the shortest
	 * perf_event_mux_interval_ms of the PMUs that refused a group since
	 * the context was scheduled in or rotated) have passed since
	 * last_rotation (jiffies), which follows the tick while no rotation
	 * is needed.
	 */
	bool				rotate_necessary;
	int				rotate_ms;
	unsigned long			last_rotation;
	/* fork is walking the group lists: keep their order */
	bool				rotate_disable;
	/* the exclusive group on the PMUs, which nothing else may join */
	struct perf_event		*exclusive_leader;
	/* the task has gone: no more events may be installed */
	bool				dead;
	int				active_cpu;
	/*
	 * NULL for a CPU context. The task the context counts for now,
	 * which a switch between equivalent contexts changes (swap.c):
	 * home is the task it was created for, clone_id (0: none) what
	 * makes two contexts equivalent; a parked context is not swapped
	 * while perf_ctx_unswap() moves it, and a frozen one is not
	 * switched in either.
	 */
	struct task_struct		*task;
	struct task_struct		*home;
	u64				clone_id;
	bool				parked;
	bool				frozen;
	/*
	 * Dozing (sched.c): the task was switched out with its events left
	 * on, because all nr_events of them are dozy (clocks that only
	 * count): the context's clock stopped at timestamp and the next
	 * switch in restarts it, with no event touched. Anything else that
	 * takes ctx->lock settles a dozing context first, so that the rest
	 * of the core never sees it.
	 */
	bool				dozing;
	int				nr_dozy;
	/* the CPU of a CPU context, -1 for a task context */
	int				cpu;
	/*
	 * Events whose PMU's sched_task() runs at each switch of the task
	 * (PERF_ATTACH_SCHED_CB), that PMU, and its task_ctx_size bytes
	 */
	int				nr_sched_cb;
	struct pmu			*sched_cb_pmu;
	void				*task_data;
	/* time the context was active, in ns, and when that was updated */
	u64				time;
	u64				timestamp;
	refcount_t			refcount;
	struct rcu_head			rcu_head;
};

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

/* the clock of event times */
static inline u64 perf_clock(void)
{
	return local_clock();
}

/*
 * time.c: clocks, context and event times, the control page; below
 * scheduling
 */
DECLARE_PER_CPU(u64, perf_swclock_now);

/*
 * The clock events started, stopped or read from here on take @now as
 * the present (a context's time was just taken at @now): returns the
 * instant set before, for the caller to put back.
 */
static inline u64 perf_swclock_set(u64 now)
{
	u64 saved = __this_cpu_read(perf_swclock_now);

	__this_cpu_write(perf_swclock_now, now);
	return saved;
}
int perf_event_set_clock(struct perf_event *event);

/*
 * The context time as of its last update. Every operation under
 * ctx->lock updates it once first, so all events touched by one
 * operation see the same instant and a group's members keep equal times.
 */
static inline u64 perf_ctx_time_now(struct perf_event_context *ctx)
{
	return ctx->time;
}
void perf_ctx_update_time(struct perf_event_context *ctx);
/*
 * The state an event's times follow: a group member counts no time,
 * enabled or running, while its leader is off (or in error), whatever its
 * own state, as in 6.12: a member's time_enabled is the time its group
 * was enabled.
 */
static inline enum perf_event_state
perf_event_effective_state(struct perf_event *event)
{
	struct perf_event *leader = event->group_leader;
	enum perf_event_state lstate;

	/* lockless readers (NMI, the control page) too: one load each */
	if (leader && leader != event) {
		lstate = READ_ONCE(leader->state);
		if (lstate <= PERF_EVENT_STATE_OFF)
			return lstate;
	}
	return READ_ONCE(event->state);
}

void perf_event_update_times(struct perf_event *event);

/* perf_event_update_times() of an event in @state as of context time @now */
static inline void perf_event_update_times_at(struct perf_event *event,
					      enum perf_event_state state,
					      u64 now)
{
	u64 delta = now - event->tstamp;

	event->tstamp = now;
	if (state >= PERF_EVENT_STATE_INACTIVE)
		event->total_time_enabled += delta;
	if (state == PERF_EVENT_STATE_ACTIVE)
		event->total_time_running += delta;
}
void perf_event_times_now(struct perf_event *event, u64 *enabled,
			  u64 *running);
void perf_event_times_at(struct perf_event *event, u64 clock, u64 *enabled,
			 u64 *running);

/*
 * cpu-clock or task-clock, however opened (PERF_TYPE_SOFTWARE or the
 * clocks' own types): their PMU's event_init says so
 */
static inline bool perf_event_is_swclock(const struct perf_event *event)
{
	return event->event_caps & PERF_EV_CAP_SWCLOCK;
}

/* cgroup.c: cgroup events (PERF_FLAG_PID_CGROUP), their clocks */
#ifdef CONFIG_CGROUP_PERF
void perf_cgroup_update_time(struct perf_event_context *ctx, u64 now);
u64 perf_cgroup_time(struct perf_event *event);
u64 perf_cgroup_time_live(struct perf_event *event);
bool perf_cgroup_match(struct perf_event *event);
bool perf_cgroup_changes(struct perf_cpu_context *cpuctx,
			 struct task_struct *task);
void perf_cgroup_set_current(struct perf_cpu_context *cpuctx,
			     struct task_struct *task, u64 now);
struct cgroup_subsys_state *
perf_cgroup_css_alloc(struct cgroup_subsys_state *parent);
void perf_cgroup_css_free(struct cgroup_subsys_state *css);
int perf_cgroup_bind(struct perf_event *event, struct cgroup_subsys_state *css,
		     struct perf_event *leader);
void perf_cgroup_ctx_activate(struct perf_event_context *ctx, bool on);
void perf_cgroup_event_link(struct perf_event_context *ctx, int delta);
void perf_cgroup_detach(struct perf_event *event);
u64 perf_cgroup_sample_id(void);
/* records.c */
void perf_event_cgroup_record(struct cgroup *cgrp);
/* cgroup_hooks.c */
void __perf_cgroup_sched_in(struct task_struct *task);
int perf_cgroup_connect(struct perf_event *event, int fd,
			struct perf_event *leader);

/* the scheduler hook's part: inline, as most CPUs have no cgroup event */
static inline void perf_cgroup_sched_in(struct task_struct *task)
{
	if (READ_ONCE(this_cpu_ptr(&perf_cpu_context)->nr_cgroups))
		__perf_cgroup_sched_in(task);
}

static inline bool perf_event_is_cgroup(struct perf_event *event)
{
	return event->cgrp;
}
#else
static inline void perf_cgroup_update_time(struct perf_event_context *ctx,
					   u64 now) { }
static inline u64 perf_cgroup_time(struct perf_event *event) { return 0; }
static inline u64 perf_cgroup_time_live(struct perf_event *event)
{
	return 0;
}
static inline bool perf_cgroup_match(struct perf_event *event)
{
	return true;
}
static inline void perf_cgroup_sched_in(struct task_struct *task) { }
static inline void perf_cgroup_ctx_activate(struct perf_event_context *ctx,
					    bool on) { }
static inline void perf_cgroup_event_link(struct perf_event_context *ctx,
					  int delta) { }
static inline int perf_cgroup_connect(struct perf_event *event, int fd,
				      struct perf_event *leader)
{
	return -EINVAL;
}
static inline void perf_cgroup_detach(struct perf_event *event) { }
static inline u64 perf_cgroup_sample_id(void) { return 0; }

static inline bool perf_event_is_cgroup(struct perf_event *event)
{
	return false;
}
#endif

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

	/* what the mapping was charged, returned at the last unmap */
	struct user_struct		*mmap_user;
	long				mmap_locked;
	long				mmap_pinned;
	struct mm_struct		*mmap_mm;
};

/* pmu.c */
struct pmu *perf_pmu_find(struct perf_event *event);
int perf_pmu_sysfs_init(void);

/* event.c: references and deferred work */
void perf_event_hold(struct perf_event *event);
void perf_event_put(struct perf_event *event);
void perf_event_put_async(struct perf_event *event);

/* lifecycle.c: an event's life (an entry point) */
struct perf_event *perf_event_alloc(struct perf_event_attr *attr, int cpu,
				    struct task_struct *task,
				    struct perf_event *group_leader,
				    struct perf_event *parent,
				    perf_overflow_handler_t handler,
				    void *context, int cgroup_fd);
/* the one call up the layers: the last perf_event_put() makes it */
void perf_event_free(struct perf_event *event);
struct perf_event_context *perf_open_context(struct task_struct *task,
					     int cpu);
int perf_event_attach(struct perf_event *event, struct perf_event *leader,
		      struct task_struct *task,
		      struct perf_event_context *ctx);

/* event.c */
void perf_event_queue_pending(struct perf_event *event);
static inline bool perf_event_is_group_leader(struct perf_event *event)
{
	return event->group_leader == event;
}
bool perf_event_attr_is_sw_only(struct perf_event *event);

/* context.c */
typedef int (*perf_ctx_fn)(struct perf_event_context *ctx, void *info);

struct perf_event_context *perf_ctx_alloc(struct task_struct *task, int cpu);
void perf_ctx_get(struct perf_event_context *ctx);
void perf_ctx_put(struct perf_event_context *ctx);
struct perf_event_context *perf_find_get_context(struct task_struct *task,
						 int cpu);
int perf_ctx_call(struct perf_event_context *ctx, perf_ctx_fn fn, void *info);
int perf_install_event(struct perf_event_context *ctx,
		       struct perf_event *event);
void perf_remove_event(struct perf_event *event);
int perf_ctx_prepare_task_data(struct perf_event_context *ctx,
			       struct perf_event *event);
/*
 * The task of active @ctx switches: its PMU that asked for it keeps what
 * it needs (sched_in false: before the events leave the PMU, true: after
 * they came back). ctx->lock held, IRQs off.
 */
static inline void perf_ctx_sched_task(struct perf_event_context *ctx,
				       bool sched_in)
{
	if (ctx->nr_sched_cb && ctx->sched_cb_pmu->sched_task)
		ctx->sched_cb_pmu->sched_task(ctx, sched_in);
}
void perf_ctx_add_event_locked(struct perf_event_context *ctx,
			       struct perf_event *event);
void perf_ctx_del_event_locked(struct perf_event_context *ctx,
			       struct perf_event *event);
void perf_ctx_unlink_event_locked(struct perf_event_context *ctx,
				  struct perf_event *event);

/* sched.c: all with ctx->lock held */
/* scoped PMUs and event migration (scope.c) */
extern cpumask_t perf_scope_cpus[PERF_PMU_MAX_SCOPE];
void perf_scope_cpu_online(unsigned int cpu);
void perf_scope_cpu_offline(unsigned int cpu);
void perf_pmu_migrate_scope(unsigned int scope, int src_cpu, int dst_cpu);
bool perf_scope_shared(struct pmu *pmu, int cpu, int other);

struct perf_event_context *perf_event_ctx_lock(struct perf_event *event);
void perf_event_set_state(struct perf_event *event,
			  enum perf_event_state state);
int perf_group_sched_in(struct perf_event_context *ctx,
			struct perf_event *leader);
void perf_group_sched_out(struct perf_event_context *ctx,
			  struct perf_event *leader);
void perf_event_sched_out(struct perf_event_context *ctx,
			  struct perf_event *event);
int perf_event_sched_in(struct perf_event_context *ctx,
			struct perf_event *event);
void perf_ctx_sched_in(struct perf_event_context *ctx);
void perf_ctx_sched_in_pinned(struct perf_event_context *ctx,
			      struct perf_event *leader);
void perf_ctx_sched_out(struct perf_event_context *ctx);
void perf_ctx_settle(struct perf_event_context *ctx);

/*
 * May @event stay on while its task is switched out (a dozing context)?
 * A clock that only counts (cpu-clock or task-clock: no period, no timer,
 * not pinned or exclusive, any CPU, no cgroup) needs nothing of the CPU
 * it was on: stopped and restarted at the same instants, it gives what
 * taking it off and putting it back gives. A buffer can come later;
 * perf_ctx_doze() looks for one. Inline: every open and close asks.
 */
static inline bool perf_event_dozy(struct perf_event *event)
{
	const struct perf_event_attr *attr = &event->attr;

	return perf_event_is_swclock(event) &&
	       !is_sampling_event(event) && !attr->pinned &&
	       !attr->exclusive && event->cpu == -1 &&
	       !perf_event_is_cgroup(event);
}

/* ctx->lock held: a dozing context gets its events off first */
static inline void perf_ctx_settle_if_dozing(struct perf_event_context *ctx)
{
	if (unlikely(ctx->dozing))
		perf_ctx_settle(ctx);
}

/*
 * ctx->lock, taken to look at or change a context's lists and states: a
 * dozing context is settled first, so that past these nothing sees one.
 * Only the switch hooks (hooks.c), which put a context to doze and wake
 * it, the swap protocol (swap.c), which holds two contexts' locks at
 * once, and the side-band records (records.c, below scheduling, for
 * whose readers a dozing context holds nothing) take the lock by hand; a
 * CPU context nested in a task context's lock (SINGLE_DEPTH_NESTING)
 * does too.
 */
static inline void perf_ctx_lock(struct perf_event_context *ctx)
{
	raw_spin_lock(&ctx->lock);
	perf_ctx_settle_if_dozing(ctx);
}

static inline void perf_ctx_unlock(struct perf_event_context *ctx)
{
	raw_spin_unlock(&ctx->lock);
}

static inline void perf_ctx_lock_irq(struct perf_event_context *ctx)
{
	raw_spin_lock_irq(&ctx->lock);
	perf_ctx_settle_if_dozing(ctx);
}

static inline void perf_ctx_unlock_irq(struct perf_event_context *ctx)
{
	raw_spin_unlock_irq(&ctx->lock);
}

#define perf_ctx_lock_irqsave(ctx, flags)			\
	do {							\
		raw_spin_lock_irqsave(&(ctx)->lock, flags);	\
		perf_ctx_settle_if_dozing(ctx);				\
	} while (0)

static inline void perf_ctx_unlock_irqrestore(struct perf_event_context *ctx,
					      unsigned long flags)
{
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
}
void perf_ctx_resched(struct perf_event_context *ctx);
void perf_ctx_activate_here(struct perf_event_context *ctx);
void perf_ctx_activate(struct perf_event_context *ctx, u64 now);
void perf_ctx_rotate_tick(struct perf_event_context *ctx);
void perf_cpu_ctx_online(void);
void perf_cpu_ctx_offline(void);
void perf_cpu_contexts_init(void);
bool perf_event_filter_match(struct perf_event *event);

/* control.c: enable, disable, reset, period */
void perf_event_enable_locked(struct perf_event_context *ctx,
			      struct perf_event *event);
int perf_event_ctl_enable(struct perf_event *event, bool group);
int perf_event_ctl_disable(struct perf_event *event, bool group);
int perf_event_ctl_reset(struct perf_event *event, bool group);
int perf_event_ctl_period(struct perf_event *event, u64 value);

/* read.c */
void perf_event_sync(struct perf_event *event);
u64 perf_event_total(struct perf_event *event, u64 *enabled, u64 *running);
ssize_t perf_event_read_to_user(struct perf_event *event, char __user *buf,
				size_t count);

/* task.c */
void perf_task_ctx_sched_out(struct task_struct *task);

/* syscall.c */
extern const struct file_operations perf_fops;

/* ring_buffer.c */
struct perf_buffer *perf_buffer_get(struct perf_event *event);
void perf_buffer_put(struct perf_buffer *rb);
int perf_buffer_attach(struct perf_event *event, struct perf_buffer *rb);
void perf_buffer_wakeup(struct perf_event *event);
int perf_buffer_mmap(struct perf_event *event, struct vm_area_struct *vma);
int perf_buffer_set_output(struct perf_event *event,
			   struct perf_event *output);
int perf_buffer_pause(struct perf_event *event, bool pause);
int perf_event_set_output(struct perf_event *event, struct perf_event *output);
void perf_event_release_buffer(struct perf_event *event);

/* output.c */
void perf_event_header_sizes(struct perf_event *event);
void perf_event_header_init(struct perf_event_header *header,
			    struct perf_sample_data *data,
			    struct perf_event *event);
void perf_event_output_id(struct perf_output_handle *handle,
			  struct perf_sample_data *data,
			  struct perf_event *event);
int perf_output_begin_lost(struct perf_output_handle *handle,
			   struct perf_event *event, unsigned int size);
void perf_event_output_lost(struct perf_output_handle *handle, u64 lost);
size_t perf_read_size(struct perf_event *event);
size_t perf_read_format_size(u64 format, int nr);
void perf_output_read(struct perf_output_handle *handle,
		      struct perf_event *event);

/* @event's own count, with that of its children that exited */
static inline u64 perf_event_own_count(struct perf_event *event)
{
	return local64_read(&event->count) + atomic64_read(&event->child_count);
}

/* the id user space knows an event by: inherited copies use the origin's */
static inline u64 perf_primary_id(struct perf_event *event)
{
	return event->parent ? event->parent->id : event->id;
}

/* records.c */
void perf_log_throttle(struct perf_event *event, bool enable);
void __perf_event_switch(struct task_struct *task, struct task_struct *next,
			 bool sched_in);
extern atomic_t perf_nr_switch_events;

/* SWITCH records, if any event wants them: inline, as few do */
static inline void perf_event_switch(struct task_struct *task,
				     struct task_struct *next, bool sched_in)
{
	if (atomic_read(&perf_nr_switch_events))
		__perf_event_switch(task, next, sched_in);
}
void perf_event_task_exit_record(struct task_struct *task);
void perf_event_read_record(struct perf_event *child);
void perf_sb_account(struct perf_event *event, int delta);

/* callchain.c */
struct perf_callchain_entry *
perf_callchain(struct perf_event *event, struct pt_regs *regs);
int perf_callchain_get(struct perf_event *event);
void perf_callchain_put(struct perf_event *event);

/* overflow.c */
void perf_event_wakeup_init(struct perf_event *event);
void perf_event_sigtrap_cancel(struct perf_event *event);
void perf_event_throttle_tick(struct perf_cpu_context *cpuctx);
bool perf_event_unthrottle_late(struct perf_event *event);
/* hw.interrupts of an event that overflowed too often in its tick */
#define PERF_THROTTLED		(~0ULL)

/* swevent.c */
int perf_swevent_register(void);

/* swap.c */
void perf_ctx_clone_mark(struct perf_event_context *parent_ctx,
			 struct perf_event_context *child_ctx);
bool __perf_ctx_try_swap(struct perf_event_context *ctx,
			 struct task_struct *prev, struct task_struct *next);

/* only a clone (clone_id set) can be equivalent to another context */
static inline bool perf_ctx_try_swap(struct perf_event_context *ctx,
				     struct task_struct *prev,
				     struct task_struct *next)
{
	if (!READ_ONCE(ctx->clone_id))
		return false;
	return __perf_ctx_try_swap(ctx, prev, next);
}
void perf_ctx_unswap(struct task_struct *task);
bool perf_ctx_pin_home(struct perf_event_context *ctx,
		       struct task_struct *task);

/* A change its clones would not see: it is no longer equivalent to them. */
static inline void perf_ctx_unclone(struct perf_event_context *ctx)
{
	if (ctx)
		WRITE_ONCE(ctx->clone_id, 0);
}

/* overflow.c */
void perf_swevent_hit(struct perf_event *event, u64 nr,
		      struct perf_sample_data *data, struct pt_regs *regs);

/* Does exclude_user/exclude_kernel drop a hit at the privilege of @regs? */
static inline bool perf_hit_priv_excluded(struct perf_event *event,
					  struct pt_regs *regs)
{
	if (!regs)
		return false;
	return user_mode(regs) ? event->attr.exclude_user
			       : event->attr.exclude_kernel;
}

/**
 * perf_hit_excluded - whether a kernel-counted event ignores this hit
 * @event: the event hit
 * @regs: where it happened, if known
 *
 * A stopped event counts nothing; exclude_user/exclude_kernel drop hits
 * by the privilege level of @regs. The one test of every software-path
 * PMU (software events, tracepoints, breakpoints), which add their own.
 */
static inline bool perf_hit_excluded(struct perf_event *event,
				     struct pt_regs *regs)
{
	if (event->hw.state & PERF_HES_STOPPED)
		return true;
	return perf_hit_priv_excluded(event, regs);
}

/* sysctl.c */
int perf_max_samples_per_tick(void);

/* tracepoint.c */
#ifdef CONFIG_EVENT_TRACING
void perf_tp_pmu_ops(struct pmu *pmu);
int perf_tracepoint_register(void);
int perf_tracepoint_set_filter(struct perf_event *event, void __user *arg);
#else
static inline int perf_tracepoint_register(void) { return 0; }
static inline int perf_tracepoint_set_filter(struct perf_event *event,
					     void __user *arg)
{
	return -EINVAL;
}
#endif

/* kprobe.c */
#ifdef CONFIG_KPROBE_EVENTS
int perf_kprobe_register(void);
#else
static inline int perf_kprobe_register(void) { return 0; }
#endif

/* uprobe_pmu.c */
#ifdef CONFIG_UPROBE_EVENTS
int perf_uprobe_register(void);
#else
static inline int perf_uprobe_register(void) { return 0; }
#endif

/* breakpoints */
int perf_breakpoint_init(void);

/* bpf.c: BPF programs on events */
#ifdef CONFIG_BPF_SYSCALL
int perf_event_ioctl_set_bpf(struct perf_event *event, u32 fd);
int perf_event_ioctl_query_bpf(struct perf_event *event, void __user *info);
void perf_event_inherit_bpf_prog(struct perf_event *child,
				 struct perf_event *parent);
bool perf_event_bpf_overflow(struct perf_event *event,
			     struct perf_sample_data *data,
			     struct pt_regs *regs);
#else
static inline int perf_event_ioctl_set_bpf(struct perf_event *event, u32 fd)
{
	return -EOPNOTSUPP;
}
static inline int perf_event_ioctl_query_bpf(struct perf_event *event,
					     void __user *info)
{
	return -EOPNOTSUPP;
}
static inline void perf_event_inherit_bpf_prog(struct perf_event *child,
					       struct perf_event *parent) { }
static inline bool perf_event_bpf_overflow(struct perf_event *event,
					   struct perf_sample_data *data,
					   struct pt_regs *regs)
{
	return true;
}
#endif
/* in bpf.c; callers test IS_ENABLED(CONFIG_BPF_SYSCALL) */
void perf_event_free_bpf_prog(struct perf_event *event);

#endif /* _KERNEL_EVENTS_INTERNAL_H */
