// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band records: what happened around the samples (mappings, comm
 * changes, forks and exits, context switches, namespaces, kernel symbols,
 * BPF programs, text patching), and the records the core writes about an event itself
 * (LOST, THROTTLE).
 *
 * A side-band record goes to every event that asked for its kind and can
 * see it: the events of the current CPU's context, and those of the task
 * the record is about (current, unless said otherwise); a cgroup event
 * only while current's cgroup is its own or below it, as it counts.
 * Anything that may sleep or take a sleeping lock (paths, build ids) is
 * worked out before the contexts' locks are taken; the records are then
 * written under ctx->lock with interrupts off, each with the sample_id of
 * its event.
 *
 * Counters of events per kind keep every hook a single test when nobody
 * asked for records.
 */
#include <linux/bpf.h>
#include <linux/buildid.h>
#include <linux/dcache.h>
#include <linux/mman.h>
#include <linux/mm.h>
#include <linux/proc_ns.h>
#include <linux/slab.h>
#include <linux/sched/task.h>

#include "layer/records.h"

/* how many events want each kind of side-band record, by enum perf_sb_kind */
atomic_t perf_sb_nr[PERF_SB_NR];

static u32 perf_pid(struct perf_event *event, struct task_struct *task);
static u32 perf_tid(struct perf_event *event, struct task_struct *task);

static bool perf_wants_task(struct perf_event *event)
{
	struct perf_event_attr *a = &event->attr;

	return a->comm || a->mmap || a->mmap2 || a->mmap_data || a->task;
}

/* the side-band kinds @event asks for: one row per kind */
static unsigned long perf_sb_kinds(struct perf_event *event)
{
	const struct perf_event_attr *a = &event->attr;
	unsigned long k = 0;

	k |= a->comm ? BIT(PERF_SB_COMM) : 0;
	k |= a->mmap || a->mmap2 || a->mmap_data ? BIT(PERF_SB_MMAP) : 0;
	/* FORK and EXIT: what the comm and mmap records are about */
	k |= perf_wants_task(event) ? BIT(PERF_SB_TASK) : 0;
	k |= a->context_switch ? BIT(PERF_SB_SWITCH) : 0;
	k |= a->namespaces ? BIT(PERF_SB_NS) : 0;
	k |= a->ksymbol ? BIT(PERF_SB_KSYMBOL) : 0;
	k |= a->cgroup ? BIT(PERF_SB_CGROUP) : 0;
	k |= a->text_poke ? BIT(PERF_SB_TEXT_POKE) : 0;
	k |= a->bpf_event ? BIT(PERF_SB_BPF) : 0;
	return k;
}

/**
 * perf_sb_account - count @event in (or out of) the side-band kinds it wants
 * @event: the event
 * @delta: 1 to count it in, -1 to count it out
 */
void perf_sb_account(struct perf_event *event, int delta)
{
	unsigned long kinds = perf_sb_kinds(event);
	int k;

	for_each_set_bit(k, &kinds, PERF_SB_NR)
		atomic_add(delta, &perf_sb_nr[k]);
	/* the scheduler hooks must run even for tasks with no events */
	if (kinds & BIT(PERF_SB_SWITCH)) {
		if (delta > 0)
			static_branch_inc(&perf_sched_events);
		else
			static_branch_dec(&perf_sched_events);
	}
}

typedef void (*perf_sb_fn)(struct perf_event *event, void *data);

static void perf_sb_ctx(struct perf_event_context *ctx, perf_sb_fn fn,
			void *data)
{
	struct perf_event *event;
	unsigned long flags;
	int cpu = smp_processor_id();

	/*
	 * Taken plainly, as it always was, without perf_ctx_lock()'s settle,
	 * which would reach up into scheduling: a record only reads the
	 * event list and writes to the events' buffers, which a dozing
	 * context's events (ACTIVE in an inactive context) may have like
	 * any other event.
	 */
	raw_spin_lock_irqsave(&ctx->lock, flags);
	list_for_each_entry(event, &ctx->event_list, event_entry) {
		if (event->state < PERF_EVENT_STATE_INACTIVE)
			continue;
		if (event->cpu != -1 && event->cpu != cpu)
			continue;
		/*
		 * A cgroup monitor must not learn the names, mappings and
		 * pids of tasks outside its cgroup: the record is about
		 * current (or made by it), so it goes where current counts.
		 */
		if (perf_event_is_cgroup(event) && !perf_cgroup_match(event))
			continue;
		fn(event, data);
	}
	raw_spin_unlock_irqrestore(&ctx->lock, flags);
}

/*
 * Offer a record to the events of this CPU and of @task (NULL: current).
 * Preemption is off throughout, so "this CPU" stays true.
 */
static void perf_sb_iterate(perf_sb_fn fn, void *data,
			    struct task_struct *task)
{
	struct perf_event_context *ctx;

	if (!task)
		task = current;
	preempt_disable();
	perf_sb_ctx(&this_cpu_ptr(&perf_cpu_context)->ctx, fn, data);
	/* contexts are freed after a grace period: no reference needed */
	rcu_read_lock();
	ctx = READ_ONCE(task->perf_event_ctxp);
	if (ctx)
		perf_sb_ctx(ctx, fn, data);
	rcu_read_unlock();
	preempt_enable();
}

/*
 * Write a record of @size bytes (trailer excluded): @header, then @body,
 * then @tail (a string or bytes, zero padded to @size), then sample_id.
 */
/**
 * perf_sb_write - write one record of @event: @header, @body, @tail, padding
 * @event: the event whose buffer gets it (an inherited copy's origin's)
 * @header: the record's type and misc; its size is set here
 * @body: the fixed part
 * @body_size: its size
 * @tail: a variable part (a name), or NULL
 * @tail_size: its size
 *
 * The record is padded to a u64 boundary and ends with the event's
 * sample_id. Nothing is written when there is no room (counted lost).
 */
void perf_sb_write(struct perf_event *event, struct perf_event_header *header,
		   const void *body, unsigned int body_size,
		   const void *tail, unsigned int tail_size)
{
	struct perf_output_handle handle;
	struct perf_sample_data data;
	unsigned int pad;
	u64 zero = 0;

	header->size = round_up(sizeof(*header) + body_size + tail_size,
				sizeof(u64));
	pad = header->size - sizeof(*header) - body_size - tail_size;
	perf_event_header_init(header, &data, event);
	if (perf_output_begin(&handle, &data, event, header->size))
		return;
	perf_output_put(&handle, *header);
	perf_output_copy(&handle, body, body_size);
	if (tail_size)
		perf_output_copy(&handle, tail, tail_size);
	if (pad)
		perf_output_copy(&handle, &zero, pad);
	perf_event_output_id(&handle, &data, event);
	perf_output_end(&handle);
}

/**
 * perf_event_read_record - READ record of an inherit_stat copy that goes
 * @child: an inherited event leaving its task at exec (remove_on_exec)
 *
 * Written to the origin's buffer (as every record of a copy is) with the
 * child's own values in the origin's read_format, and the pid/tid of the
 * task it counted. As in 6.12 there is none at exit, where the task has
 * already left the context. Its context's mutex is held, which keeps a
 * group read still; ctx->lock is taken here as for any record.
 */
void perf_event_read_record(struct perf_event *child)
{
	struct perf_event_context *ctx = child->ctx;
	struct task_struct *task = ctx->task;
	struct perf_output_handle handle;
	struct perf_sample_data data;
	struct perf_event_header header = {
		.type = PERF_RECORD_READ,
	};
	struct {
		u32 pid;
		u32 tid;
	} body;

	body.pid = perf_pid(child, task);
	body.tid = perf_tid(child, task);
	/* the exec'ing task's own context: it runs, so it does not doze */
	raw_spin_lock_irq(&ctx->lock);
	header.size = sizeof(header) + sizeof(body) + perf_read_size(child);
	perf_event_header_init(&header, &data, child);
	if (!perf_output_begin(&handle, &data, child, header.size)) {
		perf_output_put(&handle, header);
		perf_output_put(&handle, body);
		perf_output_read(&handle, child);
		perf_event_output_id(&handle, &data, child);
		perf_output_end(&handle);
	}
	raw_spin_unlock_irq(&ctx->lock);
}

/**
 * perf_log_throttle - a THROTTLE (or with @enable UNTHROTTLE) record
 * @event: the throttled (or restarted) event
 * @enable: true for UNTHROTTLE
 */
void perf_log_throttle(struct perf_event *event, bool enable)
{
	struct {
		u64 time;
		u64 id;
		u64 stream_id;
	} body = {
		.time = event->clock(),
		.id = event->parent ? event->parent->id : event->id,
		.stream_id = event->id,
	};
	struct perf_event_header header = {
		.type = enable ? PERF_RECORD_UNTHROTTLE : PERF_RECORD_THROTTLE,
	};

	perf_sb_write(event, &header, &body, sizeof(body), NULL, 0);
}

/* pid and tid of @task as @event's opener sees them */
static u32 perf_pid(struct perf_event *event, struct task_struct *task)
{
	return task_tgid_nr_ns(task, event->ns);
}

static u32 perf_tid(struct perf_event *event, struct task_struct *task)
{
	return task_pid_nr_ns(task, event->ns);
}

/*
 * COMM
 */
struct perf_comm_info {
	struct task_struct *task;
	char comm[TASK_COMM_LEN];
	unsigned int len;
	bool exec;
};

static void perf_comm_one(struct perf_event *event, void *data)
{
	struct perf_comm_info *info = data;
	struct perf_event_header header = {
		.type = PERF_RECORD_COMM,
		/* ABI: every exec's COMM says so, comm_exec or not */
		.misc = info->exec ? PERF_RECORD_MISC_COMM_EXEC : 0,
	};
	struct {
		u32 pid;
		u32 tid;
	} body;

	if (!event->attr.comm)
		return;
	body.pid = perf_pid(event, info->task);
	body.tid = perf_tid(event, info->task);
	perf_sb_write(event, &header, &body, sizeof(body), info->comm,
		      info->len);
}

void perf_event_comm(struct task_struct *tsk, bool exec)
{
	struct perf_comm_info info = { .task = tsk, .exec = exec };

	if (!perf_sb_wanted(PERF_SB_COMM))
		return;
	get_task_comm(info.comm, tsk);
	info.len = strlen(info.comm) + 1;
	perf_sb_iterate(perf_comm_one, &info, tsk);
}

/*
 * FORK and EXIT
 */
struct perf_task_info {
	struct task_struct *task;
	struct task_struct *parent;
	u32 type;
};

static void perf_task_one(struct perf_event *event, void *data)
{
	struct perf_task_info *info = data;
	struct perf_event_header header = { .type = info->type };
	struct {
		u32 pid;
		u32 ppid;
		u32 tid;
		u32 ptid;
		u64 time;
	} body;

	if (!perf_wants_task(event))
		return;
	body.pid = perf_pid(event, info->task);
	body.ppid = perf_pid(event, info->parent);
	body.tid = perf_tid(event, info->task);
	body.ptid = perf_tid(event, info->parent);
	body.time = event->clock();
	perf_sb_write(event, &header, &body, sizeof(body), NULL, 0);
}

void perf_event_fork(struct task_struct *tsk)
{
	struct perf_task_info info = {
		.task = tsk,
		.parent = current,
		.type = PERF_RECORD_FORK,
	};

	if (!perf_sb_wanted(PERF_SB_TASK))
		return;
	/* to the parent's events: the child's are not running yet */
	perf_sb_iterate(perf_task_one, &info, NULL);
}

/**
 * perf_event_task_exit_record - EXIT of @task (current), before teardown
 * @task: the exiting task
 */
void perf_event_task_exit_record(struct task_struct *task)
{
	struct perf_task_info info = {
		.task = task,
		.type = PERF_RECORD_EXIT,
	};

	if (!perf_sb_wanted(PERF_SB_TASK))
		return;
	rcu_read_lock();
	info.parent = rcu_dereference(task->real_parent);
	get_task_struct(info.parent);
	rcu_read_unlock();
	perf_sb_iterate(perf_task_one, &info, task);
	put_task_struct(info.parent);
}

/*
 * MMAP and MMAP2
 */
struct perf_mmap_info {
	struct vm_area_struct *vma;
	const char *name;
	unsigned int name_len;
	u32 maj, min;
	u64 ino, ino_generation;
	u32 prot, flags;
	unsigned char build_id[BUILD_ID_SIZE_MAX];
	u32 build_id_size;
	bool exec;
};

static void perf_mmap_one(struct perf_event *event, void *data)
{
	struct perf_mmap_info *info = data;
	struct vm_area_struct *vma = info->vma;
	struct perf_event_attr *a = &event->attr;
	struct perf_event_header header = { .type = PERF_RECORD_MMAP };
	struct {
		u32 pid;
		u32 tid;
		u64 addr;
		u64 len;
		u64 pgoff;
		union {
			struct {
				u32 maj;
				u32 min;
				u64 ino;
				u64 ino_generation;
			};
			struct {
				u8 build_id_size;
				u8 reserved_1;
				u16 reserved_2;
				u8 build_id[20];
			};
		};
		u32 prot;
		u32 flags;
	} body;
	unsigned int size = offsetof(typeof(body), maj);

	if (info->exec ? !(a->mmap || a->mmap2) : !a->mmap_data)
		return;

	memset(&body, 0, sizeof(body));
	body.pid = perf_pid(event, current);
	body.tid = perf_tid(event, current);
	body.addr = vma->vm_start;
	body.len = vma->vm_end - vma->vm_start;
	body.pgoff = (u64)vma->vm_pgoff << PAGE_SHIFT;
	header.misc = PERF_RECORD_MISC_USER;
	if (!info->exec)
		header.misc |= PERF_RECORD_MISC_MMAP_DATA;

	if (a->mmap2) {
		header.type = PERF_RECORD_MMAP2;
		if (a->build_id) {
			header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
			body.build_id_size = info->build_id_size;
			memcpy(body.build_id, info->build_id,
			       min_t(u32, info->build_id_size, 20));
		} else {
			body.maj = info->maj;
			body.min = info->min;
			body.ino = info->ino;
			body.ino_generation = info->ino_generation;
		}
		body.prot = info->prot;
		body.flags = info->flags;
		size = sizeof(body);
	}
	perf_sb_write(event, &header, &body, size, info->name,
		      info->name_len);
}

static const char *perf_mmap_name(struct vm_area_struct *vma, char *buf)
{
	struct file *file = vma->vm_file;
	const char *name;

	if (file) {
		name = file_path(file, buf, PATH_MAX - sizeof(u64));
		return IS_ERR(name) ? "//toolong" : name;
	}
	if (vma->vm_ops && vma->vm_ops->name) {
		name = vma->vm_ops->name(vma);
		if (name)
			return name;
	}
	name = arch_vma_name(vma);
	if (name)
		return name;
	if (vma->vm_start <= vma->vm_mm->brk &&
	    vma->vm_end >= vma->vm_mm->start_brk)
		return "[heap]";
	if (vma->vm_start <= vma->vm_mm->start_stack &&
	    vma->vm_end >= vma->vm_mm->start_stack)
		return "[stack]";
	return "//anon";
}

/**
 * perf_mmap_record - MMAP/MMAP2 records of a new mapping
 * @vma: the mapping
 */
void perf_mmap_record(struct vm_area_struct *vma)
{
	struct perf_mmap_info *info;
	struct file *file = vma->vm_file;
	char *buf;

	if (!perf_sb_wanted(PERF_SB_MMAP))
		return;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	buf = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!info || !buf)
		goto out;

	info->vma = vma;
	info->exec = vma->vm_flags & VM_EXEC;
	info->name = perf_mmap_name(vma, buf);
	info->name_len = strlen(info->name) + 1;
	if (vma->vm_flags & VM_READ)
		info->prot |= PROT_READ;
	if (vma->vm_flags & VM_WRITE)
		info->prot |= PROT_WRITE;
	if (vma->vm_flags & VM_EXEC)
		info->prot |= PROT_EXEC;
	info->flags = (vma->vm_flags & VM_MAYSHARE) ? MAP_SHARED : MAP_PRIVATE;
	if (file) {
		struct inode *inode = file_inode(file);

		info->maj = MAJOR(inode->i_sb->s_dev);
		info->min = MINOR(inode->i_sb->s_dev);
		info->ino = inode->i_ino;
		info->ino_generation = inode->i_generation;
		if (info->exec &&
		    build_id_parse(vma, info->build_id, &info->build_id_size))
			info->build_id_size = 0;
	}
	perf_sb_iterate(perf_mmap_one, info, NULL);
out:
	kfree(buf);
	kfree(info);
}

/*
 * SWITCH and SWITCH_CPU_WIDE
 */
struct perf_switch_info {
	struct task_struct *other;
	bool out;
	bool preempt;
};

static void perf_switch_one(struct perf_event *event, void *data)
{
	struct perf_switch_info *info = data;
	struct perf_event_header header = { .type = PERF_RECORD_SWITCH };
	struct {
		u32 pid;
		u32 tid;
	} body;

	if (!event->attr.context_switch)
		return;
	if (info->out)
		header.misc = PERF_RECORD_MISC_SWITCH_OUT;
	if (info->out && info->preempt)
		header.misc |= PERF_RECORD_MISC_SWITCH_OUT_PREEMPT;
	if (event->ctx && !event->ctx->task) {
		header.type = PERF_RECORD_SWITCH_CPU_WIDE;
		body.pid = perf_pid(event, info->other);
		body.tid = perf_tid(event, info->other);
		perf_sb_write(event, &header, &body, sizeof(body), NULL, 0);
		return;
	}
	perf_sb_write(event, &header, NULL, 0, NULL, 0);
}

/**
 * __perf_event_switch - SWITCH records for current leaving for (or arriving
 * from) @other
 * @task: current: the task leaving, or the one arriving
 * @other: the task it switches to (or from)
 * @sched_in: true when @task arrives, false when it leaves
 *
 * From the scheduler hooks, before the context's own lock is taken.
 */
void __perf_event_switch(struct task_struct *task, struct task_struct *other,
			 bool sched_in)
{
	struct perf_switch_info info = {
		.other = other,
		.out = !sched_in,
		.preempt = !sched_in && task_is_running(task),
	};

	perf_sb_iterate(perf_switch_one, &info, task);
}

/*
 * NAMESPACES
 */
struct perf_ns_info {
	struct task_struct *task;
	struct perf_ns_link_info link[NR_NAMESPACES];
};

static void perf_ns_one(struct perf_event *event, void *data)
{
	struct perf_ns_info *info = data;
	struct perf_event_header header = { .type = PERF_RECORD_NAMESPACES };
	struct {
		u32 pid;
		u32 tid;
		u64 nr;
		struct perf_ns_link_info link[NR_NAMESPACES];
	} body;

	if (!event->attr.namespaces)
		return;
	body.pid = perf_pid(event, info->task);
	body.tid = perf_tid(event, info->task);
	body.nr = NR_NAMESPACES;
	memcpy(body.link, info->link, sizeof(body.link));
	perf_sb_write(event, &header, &body, sizeof(body), NULL, 0);
}

static void perf_ns_fill(struct perf_ns_link_info *link,
			 struct task_struct *task,
			 const struct proc_ns_operations *ops)
{
	struct path path;

	if (ns_get_path(&path, task, ops))
		return;
	link->dev = new_encode_dev(path.dentry->d_sb->s_dev);
	link->ino = d_inode(path.dentry)->i_ino;
	path_put(&path);
}

void perf_event_namespaces(struct task_struct *tsk)
{
	struct perf_ns_info *info;

	if (!perf_sb_wanted(PERF_SB_NS))
		return;
	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return;
	info->task = tsk;
	perf_ns_fill(&info->link[MNT_NS_INDEX], tsk, &mntns_operations);
#ifdef CONFIG_UTS_NS
	perf_ns_fill(&info->link[UTS_NS_INDEX], tsk, &utsns_operations);
#endif
#ifdef CONFIG_IPC_NS
	perf_ns_fill(&info->link[IPC_NS_INDEX], tsk, &ipcns_operations);
#endif
#ifdef CONFIG_PID_NS
	perf_ns_fill(&info->link[PID_NS_INDEX], tsk, &pidns_for_children_operations);
#endif
#ifdef CONFIG_NET_NS
	perf_ns_fill(&info->link[NET_NS_INDEX], tsk, &netns_operations);
#endif
#ifdef CONFIG_USER_NS
	perf_ns_fill(&info->link[USER_NS_INDEX], tsk, &userns_operations);
#endif
#ifdef CONFIG_CGROUPS
	perf_ns_fill(&info->link[CGROUP_NS_INDEX], tsk, &cgroupns_operations);
#endif
	perf_sb_iterate(perf_ns_one, info, tsk);
	kfree(info);
}

/*
 * KSYMBOL
 */
struct perf_ksymbol_info {
	u64 addr;
	u32 len;
	u16 type;
	u16 flags;
	const char *name;
	unsigned int name_len;
};

static void perf_ksymbol_one(struct perf_event *event, void *data)
{
	struct perf_ksymbol_info *info = data;
	struct perf_event_header header = {
		.type = PERF_RECORD_KSYMBOL,
		.misc = PERF_RECORD_MISC_KERNEL,
	};
	struct {
		u64 addr;
		u32 len;
		u16 type;
		u16 flags;
	} body = { info->addr, info->len, info->type, info->flags };

	if (!event->attr.ksymbol)
		return;
	perf_sb_write(event, &header, &body, sizeof(body), info->name,
		      info->name_len);
}

void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister,
			const char *sym)
{
	struct perf_ksymbol_info info = {
		.addr = addr,
		.len = len,
		.type = ksym_type,
		.flags = unregister ? PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER : 0,
		.name = sym,
	};

	if (!perf_sb_wanted(PERF_SB_KSYMBOL))
		return;
	if (ksym_type >= PERF_RECORD_KSYMBOL_TYPE_MAX ||
	    ksym_type == PERF_RECORD_KSYMBOL_TYPE_UNKNOWN)
		return;
	info.name_len = strnlen(sym, KSYM_NAME_LEN) + 1;
	perf_sb_iterate(perf_ksymbol_one, &info, NULL);
}

#ifdef CONFIG_CGROUP_PERF
struct perf_cgroup_info {
	u64		id;
	const char	*path;
	unsigned int	path_len;
};

static void perf_cgroup_one(struct perf_event *event, void *data)
{
	struct perf_cgroup_info *info = data;
	struct perf_event_header header = {
		.type = PERF_RECORD_CGROUP,
	};

	if (!event->attr.cgroup)
		return;
	perf_sb_write(event, &header, &info->id, sizeof(info->id), info->path,
		      info->path_len);
}

/**
 * perf_event_cgroup_record - PERF_RECORD_CGROUP for a new cgroup
 * @cgrp: the cgroup, just online
 *
 * To the events with attr.cgroup of this CPU and of the task that made
 * it: its id and its path from the root of its hierarchy, so that tools
 * can name the PERF_SAMPLE_CGROUP ids of later samples.
 */
void perf_event_cgroup_record(struct cgroup *cgrp)
{
	struct perf_cgroup_info info = { .id = cgroup_id(cgrp) };
	char *path;

	if (!perf_sb_wanted(PERF_SB_CGROUP))
		return;
	path = kmalloc(PATH_MAX, GFP_KERNEL);
	if (!path)
		return;
	if (cgroup_path(cgrp, path, PATH_MAX) < 0)
		strscpy(path, "//toolong", PATH_MAX);
	info.path = path;
	info.path_len = strlen(path) + 1;
	perf_sb_iterate(perf_cgroup_one, &info, NULL);
	kfree(path);
}
#endif

#ifdef CONFIG_BPF_SYSCALL
/*
 * BPF_EVENT
 */
struct perf_bpf_event_body {
	u16 type;
	u16 flags;
	u32 id;
	u8 tag[BPF_TAG_SIZE];
};

static void perf_bpf_event_one(struct perf_event *event, void *data)
{
	struct perf_event_header header = {
		.type = PERF_RECORD_BPF_EVENT,
	};

	if (!event->attr.bpf_event)
		return;
	perf_sb_write(event, &header, data, sizeof(struct perf_bpf_event_body),
		      NULL, 0);
}

/*
 * The KSYMBOLs of a JIT-compiled program, one per function when it has
 * subprograms (the main one is among them): what tools resolve the
 * program's addresses in samples with. An interpreted program has no
 * code of its own.
 */
static void perf_bpf_event_ksymbols(struct bpf_prog *prog, bool unregister)
{
	struct bpf_prog *sub;
	u32 i;

	if (!prog->jited)
		return;
	if (!prog->aux->func_cnt) {
		perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_BPF,
				   (unsigned long)prog->bpf_func,
				   prog->jited_len, unregister,
				   prog->aux->ksym.name);
		return;
	}
	for (i = 0; i < prog->aux->func_cnt; i++) {
		sub = prog->aux->func[i];
		perf_event_ksymbol(PERF_RECORD_KSYMBOL_TYPE_BPF,
				   (unsigned long)sub->bpf_func,
				   sub->jited_len, unregister,
				   sub->aux->ksym.name);
	}
}

/**
 * perf_event_bpf_event - a BPF program was loaded or is being unloaded
 * @prog: the program, with its id and tag
 * @type: PERF_BPF_EVENT_PROG_LOAD or _UNLOAD
 * @flags: the record's flags (none defined)
 *
 * kernel/bpf/syscall.c calls it after the program's symbols are in
 * kallsyms, and before they leave. Events with attr.ksymbol get a
 * KSYMBOL record per JIT-compiled function (with the unregister flag at
 * unload); events with attr.bpf_event get a BPF_EVENT record with the
 * program's id and tag, which tools use to fetch its details. Process
 * context.
 */
void perf_event_bpf_event(struct bpf_prog *prog,
			  enum perf_bpf_event_type type, u16 flags)
{
	struct perf_bpf_event_body body = {
		.type = type,
		.flags = flags,
	};

	if (type <= PERF_BPF_EVENT_UNKNOWN || type >= PERF_BPF_EVENT_MAX)
		return;
	if ((type == PERF_BPF_EVENT_PROG_LOAD ||
	     type == PERF_BPF_EVENT_PROG_UNLOAD) &&
	    perf_sb_wanted(PERF_SB_KSYMBOL))
		perf_bpf_event_ksymbols(prog,
					type == PERF_BPF_EVENT_PROG_UNLOAD);
	if (!perf_sb_wanted(PERF_SB_BPF))
		return;
	body.id = prog->aux->id;
	memcpy(body.tag, prog->tag, BPF_TAG_SIZE);
	perf_sb_iterate(perf_bpf_event_one, &body, NULL);
}
#else
void perf_event_bpf_event(struct bpf_prog *prog,
			  enum perf_bpf_event_type type, u16 flags)
{
}
#endif

/*
 * TEXT_POKE
 */
struct perf_text_poke_info {
	u64 addr;
	u16 old_len;
	u16 new_len;
	u8 *bytes;
};

static void perf_text_poke_one(struct perf_event *event, void *data)
{
	struct perf_text_poke_info *info = data;
	struct perf_event_header header = {
		.type = PERF_RECORD_TEXT_POKE,
		.misc = PERF_RECORD_MISC_KERNEL,
	};
	struct {
		u64 addr;
		u16 old_len;
		u16 new_len;
	} __packed body = { info->addr, info->old_len, info->new_len };

	if (!event->attr.text_poke)
		return;
	perf_sb_write(event, &header, &body, sizeof(body), info->bytes,
		      info->old_len + info->new_len);
}

void perf_event_text_poke(const void *addr, const void *old_bytes,
			  size_t old_len, const void *new_bytes,
			  size_t new_len)
{
	struct perf_text_poke_info info = {
		.addr = (unsigned long)addr,
		.old_len = old_len,
		.new_len = new_len,
	};

	if (!perf_sb_wanted(PERF_SB_TEXT_POKE))
		return;
	info.bytes = kmalloc(old_len + new_len, GFP_ATOMIC);
	if (!info.bytes)
		return;
	memcpy(info.bytes, old_bytes, old_len);
	memcpy(info.bytes + old_len, new_bytes, new_len);
	perf_sb_iterate(perf_text_poke_one, &info, NULL);
	kfree(info.bytes);
}
