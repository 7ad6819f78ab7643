/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-kernel interface of the performance events subsystem.
 *
 * This header is read by every part of the kernel that touches perf: the
 * scheduler, fork/exit/exec, the memory manager, ptrace and the
 * breakpoint backend, and the PMU drivers. It is grouped by those callers.
 * Types private to the core live in kernel/events/layer/object.h; types
 * private to the x86 drivers in arch/x86/events/perf_event.h.
 *
 * Fast paths (software event hooks, the context-switch hooks) are static
 * inlines over static keys, so that a kernel with no events open pays one
 * patched-out branch per hook.
 */
#ifndef _LINUX_PERF_EVENT_H
#define _LINUX_PERF_EVENT_H

#include <uapi/linux/perf_event.h>
#include <uapi/linux/bpf_perf_event.h>

#ifdef CONFIG_PERF_EVENTS
# include <asm/perf_event.h>
# include <asm/local64.h>
#endif

#ifdef CONFIG_HAVE_HW_BREAKPOINT
# include <linux/rhashtable-types.h>
# include <asm/hw_breakpoint.h>
#endif

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/fs.h>
#include <linux/pid_namespace.h>
#include <linux/workqueue.h>
#include <linux/llist.h>
#include <linux/ftrace.h>
#include <linux/cpu.h>
#include <linux/irq_work.h>
#include <linux/static_key.h>
#include <linux/jump_label_ratelimit.h>
#include <linux/atomic.h>
#include <linux/sysfs.h>
#include <linux/perf_regs.h>
#include <linux/cgroup.h>
#include <linux/refcount.h>
#include <linux/security.h>
#include <linux/static_call.h>
#include <linux/lockdep.h>
#include <asm/local.h>

struct perf_event;
struct perf_event_context;
struct perf_cgroup;
struct perf_sample_data;
struct perf_buffer;
struct perf_aux_area;
struct perf_output_handle;
struct pmu;
struct ctl_table;
struct bpf_prog;
struct trace_event_call;
struct event_filter;

/* What an LSM is asked about in security_perf_event_open(). */
#define PERF_SECURITY_OPEN		0
#define PERF_SECURITY_CPU		1
#define PERF_SECURITY_KERNEL		2
#define PERF_SECURITY_TRACEPOINT	3

/**
 * typedef perf_overflow_handler_t - called when a sampling event overflows
 *
 * In-kernel users (ptrace, the watchdog, breakpoint users) install one at
 * creation; it runs in the context of the overflow, which may be NMI or the
 * #DB handler, and must not sleep.
 */
typedef void (*perf_overflow_handler_t)(struct perf_event *,
					struct perf_sample_data *,
					struct pt_regs *regs);

/*
 * ---------------------------------------------------------------------
 * PMU drivers
 * ---------------------------------------------------------------------
 */

/* pmu->capabilities */
#define PERF_PMU_CAP_NO_INTERRUPT		0x0001
#define PERF_PMU_CAP_NO_NMI			0x0002
#define PERF_PMU_CAP_AUX_NO_SG			0x0004
#define PERF_PMU_CAP_EXTENDED_REGS		0x0008
#define PERF_PMU_CAP_EXCLUSIVE			0x0010
#define PERF_PMU_CAP_ITRACE			0x0020
#define PERF_PMU_CAP_NO_EXCLUDE			0x0040
#define PERF_PMU_CAP_AUX_OUTPUT			0x0080
#define PERF_PMU_CAP_EXTENDED_HW_TYPE		0x0100
#define PERF_PMU_CAP_AUX_PAUSE			0x0200
/*
 * Ours, not 6.12's: the driver's add() and del() take effect without the
 * pmu_disable()/pmu_enable() hold around them (x86's "cpu" PMU starts a
 * counter in add()), so the core holds the PMU only around a group. A
 * PMU without it gets the hold around every add() and del(), as 6.12's
 * drivers expect (arm_pmu sets PMCR_EL0.E only in pmu_enable()); one
 * without pmu_enable() gets the capability at registration.
 */
#define PERF_PMU_CAP_ADD_UNHELD			0x8000
/*
 * Ours too: the PMU's events count into event->count where they happen
 * (software hooks, tracepoints), so its read() has nothing to do and a
 * GROUP read takes a member's count as it is.
 */
#define PERF_PMU_CAP_COUNTS_IN_PLACE		0x4000

/* flags for pmu->add() */
#define PERF_EF_START	0x01	/* start the counter when adding */
#define PERF_EF_RELOAD	0x02	/* reload the counter when starting */
#define PERF_EF_UPDATE	0x04	/* update the counter when stopping */

/* hw_perf_event::state */
#define PERF_HES_STOPPED	0x01	/* the counter is stopped */
#define PERF_HES_UPTODATE	0x02	/* event->count is up to date */
#define PERF_HES_ARCH		0x04

/* pmu->start_txn() flags */
#define PERF_PMU_TXN_ADD	0x1	/* txn to add/schedule a group */
#define PERF_PMU_TXN_READ	0x2	/* txn to read a group */

/* event->event_caps */
#define PERF_EV_CAP_SOFTWARE		BIT(0)
#define PERF_EV_CAP_READ_ACTIVE_PKG	BIT(1)
#define PERF_EV_CAP_SIBLING		BIT(2)
/* the core's own: cpu-clock or task-clock (perf_swclock_read_at()) */
#define PERF_EV_CAP_SWCLOCK		BIT(7)

/*
 * hw_perf_event.flags: the low 20 bits are the PMU driver's own (arm_pmu.h
 * asserts its ARMPMU_EVT_* bits lie inside); bit 31 says the driver lets
 * the task read the counter from user space (arm_pmuv3.c sets it, arm64's
 * arch_perf_update_userpage() reports it in the control page).
 */
#define PERF_EVENT_FLAG_ARCH		0x000fffff
#define PERF_EVENT_FLAG_USER_READ_CNT	0x80000000

/**
 * struct hw_perf_event - the per-event state a PMU driver keeps
 *
 * Which members are used depends on the PMU: hardware counters use the
 * first group, the hrtimer clocks the second, breakpoints the third.
 */
struct hw_perf_event {
#ifdef CONFIG_PERF_EVENTS
	union {
		struct { /* hardware counters */
			u64		config;
			u64		last_tag;
			unsigned long	config_base;
			unsigned long	event_base;
			int		event_base_rdpmc;
			int		idx;
			int		last_cpu;
			u64		extra_reg_config;
			u64		branch_reg_config;
			/*
			 * what the driver took for the event (x86: buffers,
			 * the branch hardware), for its destroy to give back
			 */
			unsigned int	holds;
		};
		struct { /* hrtimer based software events */
			struct hrtimer	hrtimer;
		};
		struct { /* tracepoints (uprobe filters link events here) */
			struct list_head	tp_list;
		};
#ifdef CONFIG_HAVE_HW_BREAKPOINT
		struct { /* breakpoints */
			struct arch_hw_breakpoint	info;
			struct rhlist_head		bp_list;
		};
#endif
	};
	/*
	 * PERF_EVENT_FLAG_*: outside the union, so that the core may test
	 * every event's for PERF_EVENT_FLAG_USER_READ_CNT
	 */
	int				flags;
	/* the task a per-task event monitors, NULL for per-CPU events */
	struct task_struct		*target;
	void				*addr_filters;
	unsigned long			addr_filters_gen;
	int				state;
	/* the raw counter value at the last update, for delta computation */
	local64_t			prev_count;
	u64				sample_period;
	union {
		struct { /* sampling */
			u64		last_period;
			local64_t	period_left;
		};
	};
	u64				interrupts_seq;
	u64				interrupts;
	u64				freq_time_stamp;
	u64				freq_count_stamp;
#endif
};

/**
 * enum perf_pmu_scope - what one counter of a PMU counts for
 * @PERF_PMU_SCOPE_NONE: the CPU it runs on (or the driver says)
 * @PERF_PMU_SCOPE_CORE: every CPU of its core
 * @PERF_PMU_SCOPE_DIE: every CPU of its die
 * @PERF_PMU_SCOPE_CLUSTER: every CPU of its cluster
 * @PERF_PMU_SCOPE_PKG: every CPU of its package
 * @PERF_PMU_SCOPE_SYS_WIDE: the whole system
 * @PERF_PMU_MAX_SCOPE: the number of scopes
 *
 * For a PMU with a scope the core picks one online CPU per domain, shows
 * them in the PMU's sysfs cpumask (where tools open their events), and
 * moves that CPU's events when it goes offline.
 */
enum perf_pmu_scope {
	PERF_PMU_SCOPE_NONE = 0,
	PERF_PMU_SCOPE_CORE,
	PERF_PMU_SCOPE_DIE,
	PERF_PMU_SCOPE_CLUSTER,
	PERF_PMU_SCOPE_PKG,
	PERF_PMU_SCOPE_SYS_WIDE,
	PERF_PMU_MAX_SCOPE,
};

/* an address filter's action (PERF_EVENT_IOC_SET_FILTER's stop, start, filter) */
enum perf_addr_filter_action_t {
	PERF_ADDR_FILTER_ACTION_STOP = 0,
	PERF_ADDR_FILTER_ACTION_START,
	PERF_ADDR_FILTER_ACTION_FILTER,
};

/**
 * struct perf_addr_range - an address filter, as a PMU sees it
 * @start: its first address: a kernel or user address, or, for a filter
 *	on a file, where the file's range is mapped in the event's task now
 * @size: its size in bytes; 0 for a start or stop without one, and for a
 *	filter on a file whose range the task does not map now
 * @action: enum perf_addr_filter_action_t
 * @file: the filter names a file (@start and @size are its offset and
 *	size in the file in what addr_filters_validate() gets)
 */
struct perf_addr_range {
	unsigned long	start;
	unsigned long	size;
	u8		action;
	bool		file;
};

/**
 * struct pmu - a performance monitoring unit as the core sees it
 *
 * The core calls event_init() at creation with no locks held (it may
 * sleep), and add/del/start/stop/read with the owning context's lock held
 * and interrupts off, on the CPU the event runs on.
 */
struct pmu {
	struct list_head		entry;
	struct module			*module;
	struct device			*dev;
	struct device			*parent;
	const struct attribute_group	**attr_groups;
	const struct attribute_group	**attr_update;
	const char			*name;
	int				type;
	int				capabilities;
	/* nesting of pmu_disable(), per CPU */
	int __percpu			*pmu_disable_count;
	/* which task context this PMU's events belong to (sw or hw) */
	int				task_ctx_nr;
	/* multiplexing interval in ms, exposed in sysfs */
	int				hrtimer_interval_ms;
	unsigned int			nr_addr_filters;
	/* the CPUs this PMU's events may run on; NULL for all */
	const cpumask_t			*supported_cpus;
	/* enum perf_pmu_scope: the core shows cpumask, moves at offline */
	unsigned int			scope;
	/*
	 * PERF_PMU_CAP_EXCLUSIVE: > 0 task events, < 0 CPU events (one kind
	 * at a time, see perf_pmu_exclusive_get())
	 */
	atomic_t			exclusive_cnt;

	void (*pmu_enable)(struct pmu *pmu);
	void (*pmu_disable)(struct pmu *pmu);

	int  (*event_init)(struct perf_event *event);
	void (*event_mapped)(struct perf_event *event, struct mm_struct *mm);
	void (*event_unmapped)(struct perf_event *event, struct mm_struct *mm);

	int  (*add)(struct perf_event *event, int flags);
	void (*del)(struct perf_event *event, int flags);
	void (*start)(struct perf_event *event, int flags);
	void (*stop)(struct perf_event *event, int flags);
	void (*read)(struct perf_event *event);

	void (*start_txn)(struct pmu *pmu, unsigned int txn_flags);
	int  (*commit_txn)(struct pmu *pmu);
	void (*cancel_txn)(struct pmu *pmu);

	/* the rdpmc index + 1 for self-monitoring, 0 when not readable */
	int  (*event_idx)(struct perf_event *event);
	/*
	 * A task context with events that asked for it (PERF_ATTACH_SCHED_CB)
	 * is switched out (@sched_in false: before its events leave the PMU)
	 * or in (after they came on). task_ctx_size bytes of zeroed data
	 * per context are the PMU's, for what it keeps across the switch:
	 * perf_ctx_task_data().
	 */
	void (*sched_task)(struct perf_event_context *ctx, bool sched_in);
	size_t				task_ctx_size;
	int  (*check_period)(struct perf_event *event, u64 value);
	/* true: this PMU's events do not count on @cpu (another core type) */
	bool (*filter)(struct pmu *pmu, int cpu);

	/*
	 * The AUX area (kernel/events/aux.c), for PMUs that write a stream
	 * of their own (instruction and branch tracers). setup_aux() gets
	 * the area's pages as kernel addresses, in order (the first page of
	 * each physically contiguous chunk has the chunk's order in
	 * page_private()), and returns the driver's state for it, or NULL to
	 * refuse it (ENOMEM); free_aux() gets that state back, in process
	 * context, once no output handle uses the area any more. Both sleep.
	 */
	void *(*setup_aux)(struct perf_event *event, void **pages,
			   int nr_pages, bool overwrite);
	void (*free_aux)(void *aux);
	/* copy up to @size bytes of the newest AUX data into a sample */
	long (*snapshot_aux)(struct perf_event *event,
			     struct perf_output_handle *handle,
			     unsigned long size);
	/*
	 * May this PMU's aux_output event write its records into the AUX
	 * area of @aux_event, the AUX event leading its group?
	 */
	int  (*aux_output_match)(struct perf_event *aux_event);
	/*
	 * Address filters (PERF_EVENT_IOC_SET_FILTER, nr_addr_filters of
	 * them at most): may the PMU take these @nr, as parsed? 0 or an
	 * errno. The driver reads them, resolved, with
	 * perf_event_addr_ranges() when it starts an event.
	 */
	int  (*addr_filters_validate)(const struct perf_addr_range *r,
				      unsigned int nr);
};


/* event->attach_state: what the event is attached to */
#define PERF_ATTACH_CONTEXT	0x01
#define PERF_ATTACH_GROUP	0x02
#define PERF_ATTACH_TASK	0x04
/* the PMU's sched_task() runs when the event's task switches */
#define PERF_ATTACH_SCHED_CB	0x08
/* the event holds a user of the callchain buffers (perf_callchain_get) */
#define PERF_ATTACH_CALLCHAIN	0x10
/* the driver reported where the trace starts: no more ITRACE_START */
#define PERF_ATTACH_ITRACE	0x20
/* the event counts in its PMU's exclusive_cnt */
#define PERF_ATTACH_EXCLUSIVE	0x40

/**
 * enum perf_event_state - where an event is in its life
 * @PERF_EVENT_STATE_DEAD: being freed
 * @PERF_EVENT_STATE_EXIT: the monitored task exited; the count is final
 * @PERF_EVENT_STATE_ERROR: a pinned group that could not be scheduled
 * @PERF_EVENT_STATE_OFF: disabled
 * @PERF_EVENT_STATE_INACTIVE: enabled, not on the PMU right now
 * @PERF_EVENT_STATE_ACTIVE: counting on the PMU
 */
enum perf_event_state {
	PERF_EVENT_STATE_DEAD		= -4,
	PERF_EVENT_STATE_EXIT		= -3,
	PERF_EVENT_STATE_ERROR		= -2,
	PERF_EVENT_STATE_OFF		= -1,
	PERF_EVENT_STATE_INACTIVE	=  0,
	PERF_EVENT_STATE_ACTIVE		=  1,
};

/**
 * struct perf_event - one event: a counter, its configuration and links
 *
 * Lifetime: refcount holds the structure; the fd (or an in-kernel user)
 * holds one reference, and inherited children each hold one on the
 * parent. The structure is freed after an RCU grace period because the
 * software event hooks walk per-CPU lists under RCU.
 */
struct perf_event {
#ifdef CONFIG_PERF_EVENTS
	/* link in ctx->event_list (every event of the context) */
	struct list_head		event_entry;
	/* link in ctx's pinned/flexible group lists (leaders only) */
	struct list_head		group_entry;
	/* leader: its siblings; sibling: link in the leader's list */
	struct list_head		sibling_list;
	struct list_head		sibling_entry;
	/* link in the per-CPU list of a software event's hook */
	struct hlist_node		hlist_entry;
	/* link in the context's list of events active on a PMU */
	struct list_head		active_entry;
	int				nr_siblings;
	int				group_caps;
	int				event_caps;
	struct perf_event		*group_leader;
	struct pmu			*pmu;
	void				*pmu_private;

	enum perf_event_state		state;
	unsigned int			attach_state;
	local64_t			count;
	atomic64_t			child_count;

	/* total time enabled/running, in ns, updated at state changes */
	u64				total_time_enabled;
	u64				total_time_running;
	/* context time at the last update of the two totals */
	u64				tstamp;

	struct perf_event_attr		attr;
	u16				header_size;
	u16				id_header_size;
	u16				read_size;
	struct hw_perf_event		hw;

	struct perf_event_context	*ctx;
	refcount_t			refcount;
	/* children inherited from this event and the counts they left */
	atomic64_t			child_total_time_enabled;
	atomic64_t			child_total_time_running;
	struct mutex			child_mutex;
	struct list_head		child_list;
	struct list_head		child_entry;
	struct perf_event		*parent;

	int				oncpu;
	int				cpu;

	/* the task that opened the event, for prctl enable/disable */
	struct list_head		owner_entry;
	struct task_struct		*owner;

	u64				id;
	atomic64_t			lost_samples;

	struct file			*filp;
	struct pid_namespace		*ns;
	u64				(*clock)(void);

	perf_overflow_handler_t		overflow_handler;
	void				*overflow_handler_context;

	/* counting towards event_limit (REFRESH) and pending signals */
	atomic_t			event_limit;
	int				pending_kill;
	int				pending_disable;
	unsigned int			pending_wakeup;
	struct irq_work			pending_irq;
	struct fasync_struct		*fasync;
	wait_queue_head_t		waitq;

	/* the buffer records go to: our own mapping's, or SET_OUTPUT's */
	struct perf_buffer __rcu	*rb;
	/* link in rb->event_list, for wakeups and unmapping */
	struct list_head		rb_entry;
	/* RCU state when rb_entry left a buffer's list (reuse waits for it) */
	unsigned long			rb_detach_gp;
	struct mutex			mmap_mutex;
	/* mappings of this event's own buffer */
	atomic_t			mmap_count;

	/* a synchronous SIGTRAP for the task, sent on return to user */
	struct callback_head		pending_task;
	unsigned int			pending_sigtrap;
	u64				pending_addr;

	void (*destroy)(struct perf_event *event);
	struct rcu_head			rcu_head;
	/* a last reference handed to a work item (perf_event_put_async()) */
	struct llist_node		free_entry;
#ifdef CONFIG_EVENT_TRACING
	/* the tracepoint of a tracepoint event, and its filter */
	struct trace_event_call		*tp_event;
	struct event_filter		*filter;
#ifdef CONFIG_FUNCTION_TRACER
	struct ftrace_ops		ftrace_ops;
#endif
#endif
#ifdef CONFIG_SECURITY
	void				*security;
#endif
#ifdef CONFIG_CGROUP_PERF
	/* a cgroup event (PERF_FLAG_PID_CGROUP): the cgroup it watches */
	struct perf_cgroup		*cgrp;
	/* a cgroup group's leader: on its cgroup's list of its CPU */
	struct list_head		cgrp_entry;
#endif
	/*
	 * The BPF program attached by SET_BPF or a perf link, and the cookie
	 * bpf_get_attach_cookie() returns to it (kernel/events/bpf.c). A
	 * tracing event's program also sits in its tracepoint's prog_array.
	 */
	struct bpf_prog			*prog;
	u64				bpf_cookie;
#endif /* CONFIG_PERF_EVENTS */
};

#ifdef CONFIG_PERF_EVENTS
/**
 * is_default_overflow_handler - do @event's overflows go to its ring buffer?
 * @event: the event
 *
 * True unless an in-kernel user installed its own handler (ptrace, kgdb,
 * the watchdog); arm64's breakpoint code then steps over a hit itself.
 */
static inline bool is_default_overflow_handler(struct perf_event *event)
{
	return !event->overflow_handler;
}

/*
 * struct perf_event_context - a set of events scheduled together
 *
 * A task has at most one (task->perf_event_ctxp), holding every event
 * that follows the task; each CPU has one for the events that count the
 * CPU. A context is "active" while its events may be on the PMUs of
 * active_cpu: a CPU context while its CPU is online, a task context while
 * the task runs.
 *
 * The core's own state, which only kernel/events changes; it is here,
 * not in kernel/events/layer/object.h, because 6.12's PMU drivers read
 * nr_user through perf_cpu_task_ctx().
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
	/*
	 * events whose driver lets the task read their counter from user
	 * space (PERF_EVENT_FLAG_USER_READ_CNT): arm_pmuv3.c opens EL0
	 * access only while the context switched in has some
	 */
	int				nr_user;
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

/**
 * perf_cpu_task_ctx - the task context switched in on this CPU
 *
 * For a PMU driver's pmu_enable path, with interrupts off. Return: the
 * context, or NULL while no task with events runs here.
 */
struct perf_event_context *perf_cpu_task_ctx(void);
#endif /* CONFIG_PERF_EVENTS */

/**
 * struct perf_sample_data - what one overflow reports
 *
 * Filled by the overflow path and the PMU drivers, read by the record
 * writer. Only the fields named by attr.sample_type are meaningful.
 */
struct perf_sample_data {
	u64				sample_flags;
	u64				period;
	u64				dyn_size;
	u64				type;
	struct {
		u32	pid;
		u32	tid;
	}				tid_entry;
	u64				time;
	u64				id;
	struct {
		u32	cpu;
		u32	reserved;
	}				cpu_entry;
	u64				ip;
	u64				addr;
	u64				stream_id;
	u64				phys_addr;
	u64				data_page_size;
	u64				code_page_size;
	struct perf_callchain_entry	*callchain;
	struct perf_raw_record		*raw;
	struct perf_branch_stack	*br_stack;
	u64				*br_stack_cntr;
	union perf_sample_weight	weight;
	union perf_mem_data_src		data_src;
	u64				txn;
	struct perf_regs		regs_user;
	struct perf_regs		regs_intr;
	u64				stack_user_size;
	u64				cgroup;
	/* PERF_SAMPLE_AUX: the bytes of AUX data the sample carries */
	u64				aux_size;
} ____cacheline_aligned;

struct perf_callchain_entry {
	u64				nr;
	u64				ip[]; /* /proc/sys/kernel/perf_event_max_stack */
};

/**
 * struct perf_callchain_entry_ctx - a callchain being collected
 * @entry: where the addresses go
 * @max_stack: how many addresses may be stored, markers excluded
 * @nr: how many are stored, markers excluded
 * @contexts: how many context markers are stored
 * @contexts_maxed: the last marker did not fit
 */
struct perf_callchain_entry_ctx {
	struct perf_callchain_entry	*entry;
	u32				max_stack;
	u32				nr;
	short				contexts;
	bool				contexts_maxed;
};

/**
 * perf_callchain_store - add @ip to a callchain; -1 when it is full
 */
static inline int perf_callchain_store(struct perf_callchain_entry_ctx *ctx,
				       u64 ip)
{
	if (ctx->nr < ctx->max_stack && !ctx->contexts_maxed) {
		ctx->entry->ip[ctx->entry->nr++] = ip;
		ctx->nr++;
		return 0;
	}
	return -1;
}

/* Architecture walkers (arch/x86/events/callchain.c). */
void perf_callchain_user(struct perf_callchain_entry_ctx *entry,
			 struct pt_regs *regs);
void perf_callchain_kernel(struct perf_callchain_entry_ctx *entry,
			   struct pt_regs *regs);

/*
 * Copies @len bytes at offset @off of a raw fragment's @src to @dst, for
 * data that is not plain memory (BPF's skb and xdp output); returns the
 * bytes not copied.
 */
typedef unsigned long (*perf_copy_f)(void *dst, const void *src,
				     unsigned long off, unsigned long len);

/**
 * struct perf_raw_frag - one piece of a PERF_SAMPLE_RAW payload
 * @next: the next piece, NULL for the last
 * @copy: how to copy @data, NULL for memcpy()
 * @size: bytes in @data
 */
struct perf_raw_frag {
	union {
		struct perf_raw_frag	*next;
		unsigned long		pad;
	};
	perf_copy_f			copy;
	void				*data;
	u32				size;
} __packed;

struct perf_raw_record {
	struct perf_raw_frag		frag;
	u32				size;
};

struct perf_branch_stack {
	u64				nr;
	u64				hw_idx;
	struct perf_branch_entry	entries[];
};

struct perf_callchain_entry *
perf_callchain(struct perf_event *event, struct pt_regs *regs);

/**
 * perf_sample_save_callchain - a sample's callchain from other registers
 * @data: the sample, started with perf_sample_data_init()
 * @event: the event it is for, which samples PERF_SAMPLE_CALLCHAIN
 * @regs: the registers to walk from: those the interrupt saved, when the
 *	sample's own (a PEBS record's) are not a frame on any stack
 *
 * perf_prepare_sample() sizes the callchain made here.
 */
static inline void perf_sample_save_callchain(struct perf_sample_data *data,
					      struct perf_event *event,
					      struct pt_regs *regs)
{
	data->callchain = perf_callchain(event, regs);
	data->sample_flags |= PERF_SAMPLE_CALLCHAIN;
}

/**
 * perf_sample_save_raw_data - give a sample PERF_SAMPLE_RAW data
 * @data: the sample, started with perf_sample_data_init()
 * @event: the event it is for; nothing is kept unless it samples RAW
 * @raw: the fragments, which must stay valid until the sample is written
 *
 * perf_prepare_sample() sizes the payload (a u32 size, the fragments,
 * padding to a u64 boundary).
 */
static inline void perf_sample_save_raw_data(struct perf_sample_data *data,
					     struct perf_event *event,
					     struct perf_raw_record *raw)
{
	if (!(event->attr.sample_type & PERF_SAMPLE_RAW))
		return;
	data->raw = raw;
	data->sample_flags |= PERF_SAMPLE_RAW;
}

/**
 * perf_sample_data_init - start a sample for an overflow of @period
 */
static inline void perf_sample_data_init(struct perf_sample_data *data,
					 u64 addr, u64 period)
{
	data->sample_flags = PERF_SAMPLE_PERIOD;
	data->period = period;
	data->dyn_size = 0;
	data->addr = addr;
	if (addr)
		data->sample_flags |= PERF_SAMPLE_ADDR;
}

/**
 * struct perf_output_handle - one record being written into a ring buffer
 *
 * Filled by perf_output_begin(), advanced by the perf_output_*() writers
 * and closed by perf_output_end(). @addr and @size describe the space
 * left in the current contiguous stretch of the buffer.
 */
struct perf_output_handle {
	struct perf_event		*event;
	struct perf_buffer		*rb;
	unsigned long			wakeup;
	unsigned long			head;
	unsigned long			size;
	void				*addr;
	unsigned long			left;
	/* an AUX handle: the area, and the record's PERF_AUX_FLAG_* */
	struct perf_aux_area		*aux;
	u64				aux_flags;
};

/* every member of @leader's group but the leader; the group is stable */
#define for_each_sibling_event(sibling, leader)			\
	list_for_each_entry((sibling), &(leader)->sibling_list, sibling_entry)

/**
 * struct perf_pmu_events_attr - a file of a PMU's sysfs events/ directory
 * @attr: the device attribute
 * @id: the driver's number for the event, for its own show()
 * @event_str: the file's contents; shown by perf_event_sysfs_show()
 */
struct perf_pmu_events_attr {
	struct device_attribute	attr;
	u64			id;
	const char		*event_str;
};

ssize_t perf_event_sysfs_show(struct device *dev,
			      struct device_attribute *attr, char *page);

/* a static events/ file named _name, its show() given, its id _id */
#define PMU_EVENT_ATTR(_name, _var, _id, _show)			\
static struct perf_pmu_events_attr _var = {				\
	.attr	= __ATTR(_name, 0444, _show, NULL),			\
	.id	= _id,							\
}

/* a static events/ file holding the string _str */
#define PMU_EVENT_ATTR_STRING(_name, _var, _str)			\
static struct perf_pmu_events_attr _var = {				\
	.attr		= __ATTR(_name, 0444, perf_event_sysfs_show, NULL), \
	.event_str	= _str,						\
};

/*
 * a static sysfs file of a PMU, _var, named by the string _name (event
 * names may hold '.' and '-'; two format/ files of one name may differ by
 * PMU), holding _str: shown by perf_event_sysfs_show()
 */
#define PMU_STR_ATTR(_var, _name, _str)				\
static struct perf_pmu_events_attr _var = {				\
	.attr = {							\
		.attr	= { .name = _name, .mode = 0444 },		\
		.show	= perf_event_sysfs_show,			\
	},								\
	.event_str	= _str,						\
}

/* the struct attribute of an anonymous events/ file, for attr arrays */
#define PMU_EVENT_ATTR_ID(_name, _show, _id)				\
	(&((struct perf_pmu_events_attr[]) {				\
		{ .attr = __ATTR(_name, 0444, _show, NULL), .id = _id }	\
	})[0].attr.attr)

/* the show() of a format/ file: the bits of the attr it names */
#define PMU_FORMAT_ATTR_SHOW(_name, _format)				\
static ssize_t _name##_show(struct device *dev,				\
			    struct device_attribute *attr, char *page)	\
{									\
	BUILD_BUG_ON(sizeof(_format) >= PAGE_SIZE);			\
	return sysfs_emit(page, _format "\n");				\
}

/* format_attr_<_name>: the format/ file _name holding _format */
#define PMU_FORMAT_ATTR(_name, _format)					\
	PMU_FORMAT_ATTR_SHOW(_name, _format)				\
static struct device_attribute format_attr_##_name = __ATTR_RO(_name)

#ifdef CONFIG_PERF_EVENTS

/* Registration and lookup of PMUs (kernel/events/pmu.c). */
int perf_pmu_register(struct pmu *pmu, const char *name, int type);
void perf_pmu_unregister(struct pmu *pmu);
void perf_pmu_disable(struct pmu *pmu);
void perf_pmu_enable(struct pmu *pmu);
void perf_pmu_migrate_context(struct pmu *pmu, int src_cpu, int dst_cpu);

/* The ring buffer writer and sample output (kernel/events/output.c). */
int perf_output_begin(struct perf_output_handle *handle,
		      struct perf_sample_data *data,
		      struct perf_event *event, unsigned int size);
int perf_output_begin_forward(struct perf_output_handle *handle,
			      struct perf_sample_data *data,
			      struct perf_event *event, unsigned int size);
int perf_output_begin_backward(struct perf_output_handle *handle,
			       struct perf_sample_data *data,
			       struct perf_event *event, unsigned int size);
void perf_output_end(struct perf_output_handle *handle);
unsigned int perf_output_copy(struct perf_output_handle *handle,
			      const void *buf, unsigned int len);
unsigned int perf_output_skip(struct perf_output_handle *handle,
			      unsigned int len);
void perf_prepare_sample(struct perf_sample_data *data,
			 struct perf_event *event, struct pt_regs *regs);
void perf_prepare_header(struct perf_event_header *header,
			 struct perf_sample_data *data,
			 struct perf_event *event, struct pt_regs *regs);
void perf_output_sample(struct perf_output_handle *handle,
			struct perf_event_header *header,
			struct perf_sample_data *data,
			struct perf_event *event);
int perf_event_output(struct perf_event *event,
		      struct perf_sample_data *data, struct pt_regs *regs);
void perf_event_output_forward(struct perf_event *event,
			       struct perf_sample_data *data,
			       struct pt_regs *regs);
void perf_event_output_backward(struct perf_event *event,
				struct perf_sample_data *data,
				struct pt_regs *regs);

#define perf_output_put(handle, x) perf_output_copy((handle), &(x), sizeof(x))

/* Helpers for drivers. */
/* Fills the rdpmc and clock fields of a buffer's control page (arch). */
void arch_perf_update_userpage(struct perf_event *event,
			       struct perf_event_mmap_page *userpg, u64 now);
void perf_event_update_userpage(struct perf_event *event);
void perf_event_update_userpage_reload(struct perf_event *event);
int perf_event_overflow(struct perf_event *event,
			struct perf_sample_data *data, struct pt_regs *regs);
int perf_event_account_interrupt(struct perf_event *event);
void perf_sample_event_took(u64 sample_len_ns);
extern u64 perf_sample_allowed_ns;

/**
 * perf_sample_time_limited - whether perf_sample_event_took() wants times
 *
 * False while perf_cpu_time_max_percent is 0 or 100: then the time an
 * interrupt took bounds nothing, and a PMI handler need not read the
 * clock around itself.
 */
static inline bool perf_sample_time_limited(void)
{
	return READ_ONCE(perf_sample_allowed_ns);
}
u64 perf_event_pmu_ctx_time(struct perf_event *event);

static inline bool is_sampling_event(struct perf_event *event)
{
	return event->attr.sample_period != 0;
}

static inline int is_software_event(struct perf_event *event)
{
	return event->event_caps & PERF_EV_CAP_SOFTWARE;
}

static inline bool has_branch_stack(struct perf_event *event)
{
	return event->attr.sample_type & PERF_SAMPLE_BRANCH_STACK;
}

static inline bool needs_branch_stack(struct perf_event *event)
{
	return event->attr.branch_sample_type != 0;
}

static inline bool is_kernel_event(struct perf_event *event)
{
	return event->owner == NULL && event->filp == NULL;
}

/* Does @event's PMU write an AUX area (pmu->setup_aux)? */
static inline bool has_aux(struct perf_event *event)
{
	return event->pmu->setup_aux != NULL;
}

/*
 * Events that are scheduled for exclusive use of the PMU: PMUs with
 * PERF_PMU_CAP_EXCLUSIVE get one such event per context, and either
 * task events or CPU events at a time (the hardware has one state per
 * CPU, and a CPU event would be switched out by a task's).
 */
static inline bool is_exclusive_pmu(struct pmu *pmu)
{
	return pmu->capabilities & PERF_PMU_CAP_EXCLUSIVE;
}

/*
 * A tracing event (tracepoint, kprobe or uprobe) is backed by a trace
 * event: its BPF program goes on the trace event's prog_array and runs
 * at each hit, before the event sees it.
 */
static inline bool perf_event_is_tracing(struct perf_event *event)
{
#ifdef CONFIG_EVENT_TRACING
	return event->tp_event != NULL;
#else
	return false;
#endif
}

/* In-kernel users (watchdog, KVM, resctrl, breakpoint users). */
struct perf_event *
perf_event_create_kernel_counter(struct perf_event_attr *attr, int cpu,
				 struct task_struct *task,
				 perf_overflow_handler_t callback,
				 void *context);
int perf_event_release_kernel(struct perf_event *event);
void perf_event_enable(struct perf_event *event);
void perf_event_disable(struct perf_event *event);
void perf_event_disable_local(struct perf_event *event);
void perf_event_disable_inatomic(struct perf_event *event);
u64 perf_event_read_value(struct perf_event *event, u64 *enabled,
			  u64 *running);
int perf_event_read_local(struct perf_event *event, u64 *value,
			  u64 *enabled, u64 *running);
int perf_event_refresh(struct perf_event *event, int refresh);
int perf_event_period(struct perf_event *event, u64 value);
void *perf_ctx_task_data(struct perf_event_context *ctx);
/* hold off changes to @leader's sibling list (a PMU's event_init) */
struct perf_event_context *perf_event_group_lock(struct perf_event *leader,
						 unsigned long *flags);
void perf_event_group_unlock(struct perf_event_context *ctx,
			     unsigned long flags);
u64 perf_event_pause(struct perf_event *event, bool reset);
const struct perf_event_attr *perf_event_attrs(struct perf_event *event);
struct perf_event *perf_get_event(struct file *file);

/* sysrq-p: print this CPU's PMU state (arch code; drivers/tty/sysrq.c). */
void perf_event_print_debug(void);

/* Boot, CPU hotplug (init/main.c, kernel/cpu.c). */
void perf_event_init(void);
int perf_event_init_cpu(unsigned int cpu);
int perf_event_exit_cpu(unsigned int cpu);

/* fork/exit/exec (kernel/fork.c, kernel/exit.c, fs/exec.c). */
int perf_event_init_task(struct task_struct *child, u64 clone_flags);
void perf_event_free_task(struct task_struct *task);
void perf_event_exit_task(struct task_struct *child);
void perf_event_delayed_put(struct task_struct *task);
void perf_event_exec(void);
void perf_event_comm(struct task_struct *tsk, bool exec);
void perf_event_namespaces(struct task_struct *tsk);
void perf_event_fork(struct task_struct *tsk);

/* prctl(PR_TASK_PERF_EVENTS_{ENABLE,DISABLE}) (kernel/sys.c). */
int perf_event_task_enable(void);
int perf_event_task_disable(void);

/* Side-band records from mm and text patching. */
void perf_event_mmap(struct vm_area_struct *vma);
void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister,
			const char *sym);
void perf_event_bpf_event(struct bpf_prog *prog,
			  enum perf_bpf_event_type type, u16 flags);
void perf_event_text_poke(const void *addr, const void *old_bytes,
			  size_t old_len, const void *new_bytes,
			  size_t new_len);
void perf_event_itrace_started(struct perf_event *event);
int perf_event_addr_ranges(struct perf_event *event, struct perf_addr_range *r,
			   unsigned int max, unsigned long *gen);

/* The AUX area's output API (kernel/events/aux.c), for AUX PMU drivers. */
void *perf_aux_output_begin(struct perf_output_handle *handle,
			    struct perf_event *event);
void perf_aux_output_end(struct perf_output_handle *handle,
			 unsigned long size);
int perf_aux_output_skip(struct perf_output_handle *handle,
			 unsigned long size);
void *perf_get_aux(struct perf_output_handle *handle);
void perf_aux_output_flag(struct perf_output_handle *handle, u64 flags);
void perf_report_aux_output_id(struct perf_event *event, u64 hw_id);
void perf_log_lost_samples(struct perf_event *event, u64 lost);

/* Tracepoint events (kernel/trace/trace_event_perf.c and tracepoints). */
void perf_tp_event(u16 event_type, u64 count, void *record, int entry_size,
		   struct pt_regs *regs, struct hlist_head *head, int rctx,
		   struct task_struct *task);
int perf_swevent_get_recursion_context(void);
void perf_swevent_put_recursion_context(int rctx);
int perf_swevent_set_period(struct perf_event *event);
void perf_trace_run_bpf_submit(void *raw_data, int size, int rctx,
			       struct trace_event_call *call, u64 count,
			       struct pt_regs *regs, struct hlist_head *head,
			       struct task_struct *task);

/* Breakpoints (kernel/events/hw_breakpoint.c, arch #DB handler). */
void perf_bp_event(struct perf_event *event, void *data);

/*
 * ---------------------------------------------------------------------
 * BPF (kernel/bpf, kernel/trace/bpf_trace.c; our side: kernel/events/bpf.c)
 * ---------------------------------------------------------------------
 */

/**
 * struct bpf_perf_event_data_kern - what a BPF_PROG_TYPE_PERF_EVENT
 *	program's context really is (bpf_perf_event_data is its user view)
 * @regs: the registers of the overflow
 * @data: the sample, prepared before the program runs
 * @event: the event that overflowed
 */
struct bpf_perf_event_data_kern {
	bpf_user_pt_regs_t		*regs;
	struct perf_sample_data		*data;
	struct perf_event		*event;
};

/* a snapshot of this CPU's branch stack, for bpf_get_branch_snapshot() */
typedef int (perf_snapshot_branch_stack_t)(struct perf_branch_entry *entries,
					   unsigned int cnt);
DECLARE_STATIC_CALL(perf_snapshot_branch_stack, perf_snapshot_branch_stack_t);

struct file *perf_event_get(unsigned int fd);

/* Callchains for BPF's stack maps and bpf_get_stack(). */
int get_callchain_buffers(int max_stack);
void put_callchain_buffers(void);
struct perf_callchain_entry *get_callchain_entry(int *rctx);
void put_callchain_entry(int rctx);
struct perf_callchain_entry *
get_perf_callchain(struct pt_regs *regs, bool kernel, bool user,
		   u32 max_stack, bool crosstask, bool add_mark);

/* The perf sysctls (kernel/sysctl.c). */
extern int sysctl_perf_event_paranoid;
extern int sysctl_perf_event_mlock;
extern int sysctl_perf_event_sample_rate;
extern int sysctl_perf_cpu_time_max_percent;
extern int sysctl_perf_event_max_stack;
extern int sysctl_perf_event_max_contexts_per_stack;

int perf_event_max_sample_rate_handler(const struct ctl_table *table,
				       int write, void *buffer, size_t *lenp,
				       loff_t *ppos);
int perf_cpu_time_max_percent_handler(const struct ctl_table *table,
				      int write, void *buffer, size_t *lenp,
				      loff_t *ppos);
int perf_event_max_stack_handler(const struct ctl_table *table, int write,
				 void *buffer, size_t *lenp, loff_t *ppos);

/*
 * Access control. The levels are those of perf_event_paranoid:
 * -1 no restriction, 0 no raw tracepoint access, 1 no kernel profiling,
 * 2 no CPU-wide events, 3 (Debian) no unprivileged perf_event_open at all.
 */
static inline bool perf_paranoid_any(void)
{
	return sysctl_perf_event_paranoid > 2;
}

static inline bool perf_paranoid_tracepoint_raw(void)
{
	return sysctl_perf_event_paranoid > -1;
}

static inline int perf_allow_kernel(void)
{
	if (sysctl_perf_event_paranoid > 1 && !perfmon_capable())
		return -EACCES;
	return security_perf_event_open(PERF_SECURITY_KERNEL);
}

static inline int perf_allow_cpu(void)
{
	if (sysctl_perf_event_paranoid > 0 && !perfmon_capable())
		return -EACCES;
	return security_perf_event_open(PERF_SECURITY_CPU);
}

static inline int perf_allow_tracepoint(void)
{
	if (sysctl_perf_event_paranoid > -1 && !perfmon_capable())
		return -EPERM;
	return security_perf_event_open(PERF_SECURITY_TRACEPOINT);
}

/*
 * ---------------------------------------------------------------------
 * Software event hooks (mm, scheduler, fault handlers)
 * ---------------------------------------------------------------------
 */
extern struct static_key perf_swevent_enabled[PERF_COUNT_SW_MAX];
DECLARE_PER_CPU(struct pt_regs, __perf_regs[4]);

void ___perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr);
void __perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr);

#ifndef perf_arch_fetch_caller_regs
static inline void perf_arch_fetch_caller_regs(struct pt_regs *regs,
					       unsigned long ip) { }
#endif

/**
 * perf_fetch_caller_regs - registers as if the caller had been interrupted
 *
 * Used where a software event is raised from kernel code with no trap
 * frame at hand (context switches): the event then looks as if it
 * happened in the kernel at the caller's address.
 */
static __always_inline void perf_fetch_caller_regs(struct pt_regs *regs)
{
	perf_arch_fetch_caller_regs(regs, CALLER_ADDR0);
}

/**
 * perf_sw_event - count @nr occurrences of software event @event_id
 * @regs: the registers of the interrupted context, NULL if none
 * @addr: the faulting address where it has meaning
 *
 * Costs a patched-out branch unless an event of this kind exists.
 */
static __always_inline void
perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr)
{
	if (static_key_false(&perf_swevent_enabled[event_id]))
		__perf_sw_event(event_id, nr, regs, addr);
}

/* For the scheduler, which already runs with preemption disabled. */
static __always_inline void perf_sw_event_sched(u32 event_id, u64 nr, u64 addr)
{
	struct pt_regs *regs;

	if (static_key_false(&perf_swevent_enabled[event_id])) {
		regs = this_cpu_ptr(&__perf_regs[0]);
		perf_fetch_caller_regs(regs);
		___perf_sw_event(event_id, nr, regs, addr);
	}
}

/*
 * ---------------------------------------------------------------------
 * Scheduler hooks (kernel/sched/core.c)
 * ---------------------------------------------------------------------
 */
extern struct static_key_false perf_sched_events;

void __perf_event_task_sched_in(struct task_struct *prev,
				struct task_struct *task);
void __perf_event_task_sched_out(struct task_struct *prev,
				 struct task_struct *next);
void perf_event_task_tick(void);

/**
 * perf_event_task_migrate - note that @task moved to another CPU
 *
 * Called with the runqueue lock held; the migration is counted when the
 * task next runs, in the context of the task.
 */
static inline void perf_event_task_migrate(struct task_struct *task)
{
	if (static_key_false(&perf_swevent_enabled[PERF_COUNT_SW_CPU_MIGRATIONS]))
		task->sched_migrated = 1;
}

static inline void perf_event_task_sched_in(struct task_struct *prev,
					    struct task_struct *task)
{
	if (static_branch_unlikely(&perf_sched_events))
		__perf_event_task_sched_in(prev, task);

	if (task->sched_migrated) {
		perf_sw_event_sched(PERF_COUNT_SW_CPU_MIGRATIONS, 1, 0);
		task->sched_migrated = 0;
	}
}

/*
 * cgroup-switches: the CPU goes to a task of another perf_event cgroup.
 * The cgroups are compared only while such an event exists.
 */
static __always_inline void perf_cgroup_switches(struct task_struct *prev,
						 struct task_struct *next)
{
#ifdef CONFIG_CGROUP_PERF
	if (static_key_false(&perf_swevent_enabled[PERF_COUNT_SW_CGROUP_SWITCHES]) &&
	    task_css_check(prev, perf_event_cgrp_id, 1) !=
	    task_css_check(next, perf_event_cgrp_id, 1))
		perf_sw_event_sched(PERF_COUNT_SW_CGROUP_SWITCHES, 1, 0);
#endif
}

static inline void perf_event_task_sched_out(struct task_struct *prev,
					     struct task_struct *next)
{
	perf_sw_event_sched(PERF_COUNT_SW_CONTEXT_SWITCHES, 1, 0);
	perf_cgroup_switches(prev, next);

	if (static_branch_unlikely(&perf_sched_events))
		__perf_event_task_sched_out(prev, next);
}

#else /* !CONFIG_PERF_EVENTS */

static inline void perf_event_task_migrate(struct task_struct *task) { }
static inline void perf_event_task_sched_in(struct task_struct *prev,
					    struct task_struct *task) { }
static inline void perf_event_task_sched_out(struct task_struct *prev,
					     struct task_struct *next) { }
static inline int perf_event_init_task(struct task_struct *child,
				       u64 clone_flags) { return 0; }
static inline void perf_event_exit_task(struct task_struct *child) { }
static inline void perf_event_free_task(struct task_struct *task) { }
static inline void perf_event_delayed_put(struct task_struct *task) { }
static inline void perf_event_print_debug(void) { }
static inline int perf_event_task_disable(void) { return -EINVAL; }
static inline int perf_event_task_enable(void) { return -EINVAL; }
static inline void perf_event_task_tick(void) { }
static inline void
perf_sw_event(u32 event_id, u64 nr, struct pt_regs *regs, u64 addr) { }
static inline void perf_event_mmap(struct vm_area_struct *vma) { }
static inline void perf_event_exec(void) { }
static inline void perf_event_comm(struct task_struct *tsk, bool exec) { }
static inline void perf_event_namespaces(struct task_struct *tsk) { }
static inline void perf_event_fork(struct task_struct *tsk) { }
static inline void perf_event_text_poke(const void *addr,
					const void *old_bytes, size_t old_len,
					const void *new_bytes, size_t new_len) { }
static inline void perf_event_init(void) { }
static inline void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len,
				      bool unregister, const char *sym) { }
#define perf_event_init_cpu	NULL
#define perf_event_exit_cpu	NULL

#endif /* CONFIG_PERF_EVENTS */

/*
 * ---------------------------------------------------------------------
 * Hypervisors (KVM, Xen): whether a PMI or timer tick interrupted a guest
 * ---------------------------------------------------------------------
 */
enum {
	PERF_GUEST_ACTIVE	= 0x01,	/* this CPU was running a guest */
	PERF_GUEST_USER		= 0x02,	/* ... in the guest's user mode */
};

/**
 * struct perf_guest_info_callbacks - what a hypervisor tells perf
 * @state: PERF_GUEST_* bits for the interrupt being handled on this CPU,
 *	0 when it did not interrupt a guest. Called in NMI context.
 * @get_ip: the guest's instruction pointer; only after @state said
 *	PERF_GUEST_ACTIVE
 * @handle_intel_pt_intr: hands an Intel PT interrupt that belongs to the
 *	guest to the hypervisor; returns nonzero if it took it. May be NULL.
 */
struct perf_guest_info_callbacks {
	unsigned int	(*state)(void);
	unsigned long	(*get_ip)(void);
	unsigned int	(*handle_intel_pt_intr)(void);
};

#ifdef CONFIG_GUEST_PERF_EVENTS
void perf_register_guest_info_callbacks(struct perf_guest_info_callbacks *cbs);
void perf_unregister_guest_info_callbacks(struct perf_guest_info_callbacks *cbs);
unsigned int __perf_guest_state(void);
unsigned long perf_guest_get_ip(void);
unsigned int perf_guest_handle_intel_pt_intr(void);
DECLARE_STATIC_KEY_FALSE(perf_guest_registered);

/**
 * perf_guest_state - did the interrupt being handled hit a guest?
 *
 * Inline: every sample asks (its header's misc bits, its IP), and with
 * no hypervisor registered the answer is one patched-out branch.
 *
 * Return: PERF_GUEST_ACTIVE, with PERF_GUEST_USER if the guest was in
 * user mode; 0 for the host or without a hypervisor.
 */
static __always_inline unsigned int perf_guest_state(void)
{
	if (!static_branch_unlikely(&perf_guest_registered))
		return 0;
	return __perf_guest_state();
}
#else
static inline unsigned int perf_guest_state(void) { return 0; }
static inline unsigned long perf_guest_get_ip(void) { return 0; }
static inline unsigned int perf_guest_handle_intel_pt_intr(void) { return 0; }
#endif

/*
 * Resume from suspend (arch/x86/power/cpu.c): the Intel debug-store
 * pointer, which BTS and PEBS need, is lost with the CPU's state.
 */
#if defined(CONFIG_PERF_EVENTS) && defined(CONFIG_CPU_SUP_INTEL)
void perf_restore_debug_store(void);
#else
static inline void perf_restore_debug_store(void) { }
#endif

/*
 * Low-power entry/exit callback for PMUs that must be told (AMD BRS);
 * arch/x86's asm/perf_event.h provides it when such a PMU is built.
 */
#ifndef PERF_NEEDS_LOPWR_CB
static __always_inline void perf_lopwr_cb(bool lopwr_in)
{
}
#endif

#endif /* _LINUX_PERF_EVENT_H */
