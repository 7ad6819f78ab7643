// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware breakpoints as perf events (PERF_TYPE_BREAKPOINT), and the
 * kernel API built on them (ptrace's debug registers, kgdb, samples).
 *
 * The arch backend (arch/x86/kernel/hw_breakpoint.c) turns an attr into
 * struct arch_hw_breakpoint (hw_breakpoint_arch_parse()), puts it into a
 * free debug register of this CPU (arch_install_hw_breakpoint()) and, from
 * the #DB die notifier registered here, reports each hit with
 * perf_bp_event().
 *
 * Slots. A CPU has hw_breakpoint_slots(type) debug registers of each
 * type: one pool for data and instruction breakpoints where the arch
 * selects HAVE_MIXED_BREAKPOINTS_REGS (x86: TYPE_INST == TYPE_DATA), two
 * pools elsewhere (arm64: breakpoint and watchpoint registers). A pool's
 * registers are shared by the breakpoints bound to that CPU and by the
 * breakpoints of whichever task runs there, so a breakpoint is only
 * accepted (at event_init, long before it is scheduled) if, on every CPU
 * it could ever be on,
 *
 *	cpu-bound slots + the most slots any one task needs there <= slots
 *
 * still holds with it added. Then pmu->add can never run out of registers,
 * whatever the scheduler does: one task context and the CPU context are
 * live on a CPU at a time. Slots are held from event_init to destroy,
 * disabled or not (ptrace keeps disabled breakpoints for unused DRn), and
 * an inherited copy holds slots in its own task.
 *
 * The books (bp_cpu_slots[], bp_tasks) are kept under bp_slots_mutex;
 * event_init and destroy run in process context. Nothing else is taken
 * under that mutex.
 */
#include <linux/hw_breakpoint.h>
#include <linux/capability.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/kdebug.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "layer/entry.h"

/**
 * struct bp_task_slots - the breakpoint slots one task holds
 * @node: in bp_tasks, hashed by @task
 * @task: the task (each of its events holds a reference on it)
 * @any: slots of its breakpoints that follow it to any CPU, per type
 * @on_cpu: slots of its breakpoints bound to one CPU, per CPU and type
 *	(nr_cpu_ids * TYPE_MAX entries, see bp_idx())
 */
struct bp_task_slots {
	struct hlist_node	node;
	struct task_struct	*task;
	int			any[TYPE_MAX];
	int			on_cpu[];
};

static DEFINE_MUTEX(bp_slots_mutex);
static DEFINE_HASHTABLE(bp_tasks, 6);
/* slots of CPU-bound (task-less) breakpoints, per CPU and type */
static int *bp_cpu_slots;
/* the registers of each type a CPU has */
static int bp_slots_max[TYPE_MAX];
/* every slot held, for hw_breakpoint_is_used() */
static int bp_slots_used;

static struct bp_task_slots *bp_task_find(struct task_struct *task)
{
	struct bp_task_slots *ts;

	hash_for_each_possible(bp_tasks, ts, node, (unsigned long)task)
		if (ts->task == task)
			return ts;
	return NULL;
}

/* The pool of registers a breakpoint of @bp_type (HW_BREAKPOINT_*) takes. */
static int bp_pool(u32 bp_type)
{
	return bp_type & HW_BREAKPOINT_X ? TYPE_INST : TYPE_DATA;
}

static int bp_idx(int cpu, int type)
{
	return cpu * TYPE_MAX + type;
}

static int bp_task_need(struct bp_task_slots *ts, int cpu, int type)
{
	return ts->any[type] + ts->on_cpu[bp_idx(cpu, type)];
}

/* The most slots of @type any task but @skip needs on @cpu. */
static int bp_tasks_max(int cpu, int type, struct bp_task_slots *skip)
{
	struct bp_task_slots *ts;
	int bkt, max = 0;

	hash_for_each(bp_tasks, bkt, ts, node) {
		if (ts != skip)
			max = max(max, bp_task_need(ts, cpu, type));
	}
	return max;
}

/*
 * Would one more breakpoint of @type, of @task (or of no task), on @cpu
 * fit there?
 */
static bool bp_fits_on(int cpu, int type, struct task_struct *task,
		       struct bp_task_slots *ts)
{
	int own = ts ? bp_task_need(ts, cpu, type) : 0;
	int tasks;

	if (!task)
		tasks = bp_tasks_max(cpu, type, NULL) + 1;
	else
		tasks = max(bp_tasks_max(cpu, type, ts), own + 1);
	return bp_cpu_slots[bp_idx(cpu, type)] + tasks <= bp_slots_max[type];
}

/*
 * Account (@delta 1) or give back (-1) a slot of the pool of @bp_type for
 * @bp. bp_slots_mutex held, or (kgdb) every other CPU stopped with it free.
 */
static int bp_account_type(struct perf_event *bp, u32 bp_type, int delta,
			   bool check)
{
	struct task_struct *task = bp->hw.target;
	int type = bp_pool(bp_type);
	struct bp_task_slots *ts = NULL;
	int cpu;

	if (task)
		ts = bp_task_find(task);

	if (delta > 0 && check) {
		if (bp->cpu >= 0) {
			if (!bp_fits_on(bp->cpu, type, task, ts))
				return -ENOSPC;
		} else {
			for_each_possible_cpu(cpu) {
				if (!bp_fits_on(cpu, type, task, ts))
					return -ENOSPC;
			}
		}
	}

	if (!task) {
		bp_cpu_slots[bp_idx(bp->cpu, type)] += delta;
		bp_slots_used += delta;
		return 0;
	}

	if (!ts) {
		if (WARN_ON_ONCE(delta < 0))
			return -EINVAL;
		ts = kzalloc(struct_size(ts, on_cpu, nr_cpu_ids * TYPE_MAX),
			     GFP_KERNEL);
		if (!ts)
			return -ENOMEM;
		ts->task = task;
		hash_add(bp_tasks, &ts->node, (unsigned long)task);
	}
	if (bp->cpu >= 0)
		ts->on_cpu[bp_idx(bp->cpu, type)] += delta;
	else
		ts->any[type] += delta;
	bp_slots_used += delta;

	if (delta < 0 && !memchr_inv(ts->any, 0, sizeof(ts->any)) &&
	    !memchr_inv(ts->on_cpu, 0, sizeof(int) * nr_cpu_ids * TYPE_MAX)) {
		hash_del(&ts->node);
		kfree(ts);
	}
	return 0;
}

static int bp_account(struct perf_event *bp, int delta, bool check)
{
	return bp_account_type(bp, bp->attr.bp_type, delta, check);
}

/*
 * Move the slots of @bp and of its inherited copies to the pool of
 * @bp_type before a modification changes their type (arm64: from a
 * breakpoint to a watchpoint register). All or none: -ENOSPC when one of
 * them does not fit. Nothing to do where the arch has one pool.
 */
static int bp_move_pool(struct perf_event *bp, u32 bp_type)
{
	struct perf_event *child, *undo;
	int err;

	if (bp_pool(bp_type) == bp_pool(bp->attr.bp_type))
		return 0;

	mutex_lock(&bp->child_mutex);
	mutex_lock(&bp_slots_mutex);
	err = bp_account_type(bp, bp_type, 1, true);
	if (err)
		goto out;
	list_for_each_entry(child, &bp->child_list, child_entry) {
		err = bp_account_type(child, bp_type, 1, true);
		if (!err)
			continue;
		list_for_each_entry(undo, &bp->child_list, child_entry) {
			if (undo == child)
				break;
			bp_account_type(undo, bp_type, -1, false);
		}
		bp_account_type(bp, bp_type, -1, false);
		goto out;
	}
	/* __bp_modify() changes each one's attr.bp_type next */
	bp_account(bp, -1, false);
	list_for_each_entry(child, &bp->child_list, child_entry)
		bp_account(child, -1, false);
out:
	mutex_unlock(&bp_slots_mutex);
	mutex_unlock(&bp->child_mutex);
	return err;
}

/**
 * reserve_bp_slot - take a debug register slot for @bp
 * @bp: the breakpoint event
 *
 * Fails with -ENOSPC when some CPU @bp could be on would then need more
 * registers of its type than it has. Process context.
 */
int reserve_bp_slot(struct perf_event *bp)
{
	int err;

	mutex_lock(&bp_slots_mutex);
	err = bp_account(bp, 1, true);
	mutex_unlock(&bp_slots_mutex);
	return err;
}

/**
 * release_bp_slot - give back the slot reserve_bp_slot() took for @bp
 * @bp: the breakpoint event
 */
void release_bp_slot(struct perf_event *bp)
{
	mutex_lock(&bp_slots_mutex);
	bp_account(bp, -1, false);
	mutex_unlock(&bp_slots_mutex);
}

/*
 * kgdb reserves with every other CPU stopped: it cannot wait for the
 * mutex, so it fails if someone was interrupted holding it.
 */
int dbg_reserve_bp_slot(struct perf_event *bp)
{
	if (mutex_is_locked(&bp_slots_mutex))
		return -1;
	return bp_account(bp, 1, true);
}

int dbg_release_bp_slot(struct perf_event *bp)
{
	if (mutex_is_locked(&bp_slots_mutex))
		return -1;
	bp_account(bp, -1, false);
	return 0;
}

/**
 * hw_breakpoint_is_used - does any breakpoint hold a slot?
 */
bool hw_breakpoint_is_used(void)
{
	return READ_ONCE(bp_slots_used) != 0;
}

/*
 * Check @attr and build the debug register setting into @hw. Kernel
 * addresses are refused to an event that excludes the kernel (it could
 * never fire) and, because a breakpoint in the trap path could recurse,
 * to callers without CAP_SYS_ADMIN.
 */
static int bp_parse(struct perf_event *bp, const struct perf_event_attr *attr,
		    struct arch_hw_breakpoint *hw)
{
	int err;

	err = hw_breakpoint_arch_parse(bp, attr, hw);
	if (err)
		return err;
	if (arch_check_bp_in_kernelspace(hw)) {
		if (attr->exclude_kernel)
			return -EINVAL;
		if (!capable(CAP_SYS_ADMIN))
			return -EPERM;
	}
	return 0;
}

static void bp_event_destroy(struct perf_event *bp)
{
	release_bp_slot(bp);
}

static int bp_event_init(struct perf_event *bp)
{
	struct arch_hw_breakpoint hw = { };
	int err;

	if (bp->attr.type != PERF_TYPE_BREAKPOINT)
		return -ENOENT;
	if (has_branch_stack(bp))
		return -EOPNOTSUPP;
	/* in-kernel callers are not checked for a task event's CPU */
	if (bp->cpu >= (int)nr_cpu_ids)
		return -EINVAL;

	err = bp_parse(bp, &bp->attr, &hw);
	if (err)
		return err;
	err = reserve_bp_slot(bp);
	if (err)
		return err;
	bp->hw.info = hw;
	bp->destroy = bp_event_destroy;
	return 0;
}

/*
 * Started or stopped, an added breakpoint keeps its register: stop and
 * start may come from the #DB handler itself (throttling), which restores
 * DR7 on its way out. A stopped breakpoint's hits are ignored.
 */
static void bp_start(struct perf_event *bp, int flags)
{
	bp->hw.state = 0;
}

static void bp_stop(struct perf_event *bp, int flags)
{
	bp->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int bp_add(struct perf_event *bp, int flags)
{
	int err;

	bp->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	err = arch_install_hw_breakpoint(bp);
	if (err)
		return err;
	if (flags & PERF_EF_START)
		bp_start(bp, flags);
	return 0;
}

static void bp_del(struct perf_event *bp, int flags)
{
	bp_stop(bp, flags);
	arch_uninstall_hw_breakpoint(bp);
}

static void bp_read(struct perf_event *bp)
{
	hw_breakpoint_pmu_read(bp);
}

struct pmu perf_ops_bp = {
	.task_ctx_nr	= perf_sw_context,
	.event_init	= bp_event_init,
	.add		= bp_add,
	.del		= bp_del,
	.start		= bp_start,
	.stop		= bp_stop,
	.read		= bp_read,
};

/**
 * perf_bp_event - a breakpoint was hit; called by the arch #DB handler
 * @bp: the breakpoint
 * @data: the struct pt_regs of the context that hit it
 *
 * Runs in the #DB handler with IRQs off, synchronously with the access
 * (ptrace relies on that to set the tracee's virtual DR6). Hits of a
 * stopped breakpoint and of an excluded privilege level are dropped.
 */
void perf_bp_event(struct perf_event *bp, void *data)
{
	struct pt_regs *regs = data;
	struct perf_sample_data sample;

	if (perf_hit_excluded(bp, regs))
		return;

	perf_sample_data_init(&sample, bp->attr.bp_addr, 0);
	perf_swevent_hit(bp, 1, &sample, regs);
}

/* ---- changing a breakpoint in place ------------------------------------ */

struct bp_modify {
	struct perf_event		*bp;
	const struct perf_event_attr	*attr;
	struct arch_hw_breakpoint	hw;
};

/*
 * On the context's CPU, ctx->lock held: take the event off the debug
 * register, change what it watches, and put it back if it stays enabled.
 */
static int __bp_modify(struct perf_event_context *ctx, void *info)
{
	struct bp_modify *m = info;
	struct perf_event *bp = m->bp;

	perf_ctx_update_time(ctx);
	if (bp->state >= PERF_EVENT_STATE_INACTIVE) {
		if (perf_event_is_group_leader(bp))
			perf_group_sched_out(ctx, bp);
		else
			perf_event_sched_out(ctx, bp);
		perf_event_set_state(bp, PERF_EVENT_STATE_OFF);
	}

	bp->attr.bp_addr = m->attr->bp_addr;
	bp->attr.bp_len = m->attr->bp_len;
	bp->attr.bp_type = m->attr->bp_type;
	bp->attr.sig_data = m->attr->sig_data;
	bp->attr.disabled = m->attr->disabled;
	bp->hw.info = m->hw;

	if (!bp->attr.disabled)
		perf_event_enable_locked(ctx, bp);
	return 0;
}

/*
 * May @attr replace @bp's? Only what a breakpoint watches (address,
 * length, type), its signal data and whether it is enabled may change.
 */
static bool bp_attr_changeable(struct perf_event *bp,
			       const struct perf_event_attr *attr)
{
	struct perf_event_attr tmp = *attr;

	tmp.size = bp->attr.size;
	tmp.bp_addr = bp->attr.bp_addr;
	tmp.bp_len = bp->attr.bp_len;
	tmp.bp_type = bp->attr.bp_type;
	tmp.sig_data = bp->attr.sig_data;
	tmp.disabled = bp->attr.disabled;
	/* open filled the default in */
	if (!tmp.sample_max_stack)
		tmp.sample_max_stack = bp->attr.sample_max_stack;
	return !memcmp(&tmp, &bp->attr, sizeof(tmp));
}

/**
 * modify_user_hw_breakpoint_check - change a breakpoint in place
 * @bp: the breakpoint
 * @attr: its new configuration: bp_addr, bp_len, bp_type, sig_data and
 *	disabled are taken from it
 * @check: refuse (-EINVAL) an @attr that differs in anything else
 *
 * The breakpoint and the copies it passed on by inheritance are taken off
 * their debug registers, changed, and put back unless @attr disables them.
 * Returns 0, -EINVAL for a setting the hardware cannot take (the
 * breakpoint is then left as it was), or the arch's error. May sleep.
 */
int modify_user_hw_breakpoint_check(struct perf_event *bp,
				    struct perf_event_attr *attr, bool check)
{
	struct bp_modify m = { .bp = bp, .attr = attr };
	struct perf_event_context *ctx;
	struct perf_event *child;
	int err;

	if (bp->pmu != &perf_ops_bp || attr->type != PERF_TYPE_BREAKPOINT)
		return -EINVAL;
	if (check && !bp_attr_changeable(bp, attr))
		return -EINVAL;
	err = bp_parse(bp, attr, &m.hw);
	if (err)
		return err;
	err = bp_move_pool(bp, attr->bp_type);
	if (err)
		return err;

	ctx = bp->ctx;
	mutex_lock(&ctx->mutex);
	perf_ctx_call(ctx, __bp_modify, &m);
	mutex_unlock(&ctx->mutex);

	mutex_lock(&bp->child_mutex);
	list_for_each_entry(child, &bp->child_list, child_entry) {
		m.bp = child;
		perf_ctx_call(child->ctx, __bp_modify, &m);
	}
	mutex_unlock(&bp->child_mutex);
	return 0;
}
EXPORT_SYMBOL_GPL(modify_user_hw_breakpoint_check);

/**
 * modify_user_hw_breakpoint - change a breakpoint in place (ptrace)
 * @bp: the breakpoint
 * @attr: @bp's attr with bp_addr, bp_len, bp_type or disabled changed
 *
 * See modify_user_hw_breakpoint_check(). May sleep.
 */
int modify_user_hw_breakpoint(struct perf_event *bp,
			      struct perf_event_attr *attr)
{
	return modify_user_hw_breakpoint_check(bp, attr, false);
}
EXPORT_SYMBOL_GPL(modify_user_hw_breakpoint);

/* ---- the kernel API ------------------------------------------------- */

/**
 * register_user_hw_breakpoint - a breakpoint that follows one task
 * @attr: the breakpoint (see hw_breakpoint_init() / ptrace_breakpoint_init())
 * @triggered: called from the #DB handler on each overflow (each hit with
 *	sample_period 1), or NULL
 * @context: for @triggered
 * @tsk: the task
 *
 * Returns the event or an ERR_PTR: -EINVAL for a setting the hardware
 * cannot take, -ENOSPC when the debug registers are all taken. Release
 * with unregister_hw_breakpoint(). May sleep.
 */
struct perf_event *
register_user_hw_breakpoint(struct perf_event_attr *attr,
			    perf_overflow_handler_t triggered,
			    void *context, struct task_struct *tsk)
{
	return perf_event_create_kernel_counter(attr, -1, tsk, triggered,
						context);
}
EXPORT_SYMBOL_GPL(register_user_hw_breakpoint);

/**
 * register_wide_hw_breakpoint_cpu - a breakpoint on one CPU, any task
 * @attr: the breakpoint
 * @triggered: called from the #DB handler on each overflow, or NULL
 * @context: for @triggered
 * @cpu: the CPU
 *
 * Returns the event or an ERR_PTR. May sleep.
 */
struct perf_event *
register_wide_hw_breakpoint_cpu(struct perf_event_attr *attr,
				perf_overflow_handler_t triggered,
				void *context, int cpu)
{
	return perf_event_create_kernel_counter(attr, cpu, NULL, triggered,
						context);
}
EXPORT_SYMBOL_GPL(register_wide_hw_breakpoint_cpu);

/**
 * register_wide_hw_breakpoint - the same breakpoint on every online CPU
 * @attr: the breakpoint
 * @triggered: called from the #DB handler on each overflow, or NULL
 * @context: for @triggered
 *
 * Returns per-CPU event pointers (NULL for CPUs that were offline), or an
 * ERR_PTR if any CPU refused it, with none left registered. Release with
 * unregister_wide_hw_breakpoint(). May sleep.
 */
struct perf_event * __percpu *
register_wide_hw_breakpoint(struct perf_event_attr *attr,
			    perf_overflow_handler_t triggered,
			    void *context)
{
	struct perf_event * __percpu *cpu_events;
	struct perf_event *bp;
	int cpu, err = 0;

	cpu_events = alloc_percpu(typeof(*cpu_events));
	if (!cpu_events)
		return ERR_PTR(-ENOMEM);

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		bp = register_wide_hw_breakpoint_cpu(attr, triggered, context,
						     cpu);
		if (IS_ERR(bp)) {
			err = PTR_ERR(bp);
			break;
		}
		per_cpu(*cpu_events, cpu) = bp;
	}
	cpus_read_unlock();

	if (err) {
		unregister_wide_hw_breakpoint(cpu_events);
		return ERR_PTR(err);
	}
	return cpu_events;
}
EXPORT_SYMBOL_GPL(register_wide_hw_breakpoint);

/**
 * unregister_hw_breakpoint - remove and free a breakpoint; NULL is fine
 * @bp: the breakpoint, or NULL
 *
 * May sleep.
 */
void unregister_hw_breakpoint(struct perf_event *bp)
{
	if (!bp)
		return;
	perf_event_release_kernel(bp);
}
EXPORT_SYMBOL_GPL(unregister_hw_breakpoint);

/**
 * unregister_wide_hw_breakpoint - remove what register_wide_hw_breakpoint()
 *	made
 * @cpu_events: the per-CPU breakpoints it returned
 *
 * May sleep.
 */
void unregister_wide_hw_breakpoint(struct perf_event * __percpu *cpu_events)
{
	int cpu;

	for_each_possible_cpu(cpu)
		unregister_hw_breakpoint(per_cpu(*cpu_events, cpu));
	free_percpu(cpu_events);
}
EXPORT_SYMBOL_GPL(unregister_wide_hw_breakpoint);

/*
 * Breakpoint traps must reach the arch handler before any other #DB
 * user looks at DR6: it clears the bits of the hits it consumed.
 */
static struct notifier_block bp_exceptions_nb = {
	.notifier_call	= hw_breakpoint_exceptions_notify,
	.priority	= INT_MAX,
};

/**
 * perf_breakpoint_init - register the breakpoint PMU and the #DB notifier
 *
 * Called once from perf_event_init().
 */
int __init perf_breakpoint_init(void)
{
	int err, type;

	for (type = 0; type < TYPE_MAX; type++)
		bp_slots_max[type] = hw_breakpoint_slots(type);
	bp_cpu_slots = kcalloc(nr_cpu_ids * TYPE_MAX, sizeof(*bp_cpu_slots),
			       GFP_KERNEL);
	if (!bp_cpu_slots)
		return -ENOMEM;
	err = perf_pmu_register(&perf_ops_bp, "breakpoint",
				PERF_TYPE_BREAKPOINT);
	if (err)
		return err;
	return register_die_notifier(&bp_exceptions_nb);
}
