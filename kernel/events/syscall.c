// SPDX-License-Identifier: GPL-2.0
/*
 * perf_event_open(2): copying in and checking the attr, the access rules,
 * and putting a new event into its context behind a file descriptor.
 *
 * Everything here runs in process context and may sleep.
 */
#include <linux/anon_inodes.h>
#include <linux/capability.h>
#include <linux/file.h>
#include <linux/ptrace.h>
#include <linux/security.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/syscalls.h>
#include <linux/uaccess.h>

#include "layer/entry.h"

#define PERF_FLAG_ALL	(PERF_FLAG_FD_NO_GROUP | PERF_FLAG_FD_OUTPUT | \
			 PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC)

static int perf_check_branch_sample_type(struct perf_event_attr *attr)
{
	u64 mask = attr->branch_sample_type;

	if (mask & ~(PERF_SAMPLE_BRANCH_MAX - 1))
		return -EINVAL;
	/* at least one branch type besides the privilege levels */
	if (!(mask & ~PERF_SAMPLE_BRANCH_PLM_ALL))
		return -EINVAL;

	/* no privilege level given: follow the event's own exclusions */
	if (!(mask & PERF_SAMPLE_BRANCH_PLM_ALL)) {
		if (!attr->exclude_kernel)
			mask |= PERF_SAMPLE_BRANCH_KERNEL;
		if (!attr->exclude_user)
			mask |= PERF_SAMPLE_BRANCH_USER;
		if (!attr->exclude_hv)
			mask |= PERF_SAMPLE_BRANCH_HV;
		attr->branch_sample_type = mask;
	}
	if (mask & (PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_HV))
		return perf_allow_kernel();
	return 0;
}

static int perf_check_attr(struct perf_event_attr *attr)
{
	int err;

	if (attr->__reserved_1 || attr->__reserved_2 || attr->__reserved_3)
		return -EINVAL;
	if (attr->sample_type & ~(PERF_SAMPLE_MAX - 1))
		return -EINVAL;
	if (attr->read_format & ~(PERF_FORMAT_MAX - 1))
		return -EINVAL;

	if (attr->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		err = perf_check_branch_sample_type(attr);
		if (err)
			return err;
	}
	if (attr->sample_type & PERF_SAMPLE_REGS_USER) {
		err = perf_reg_validate(attr->sample_regs_user);
		if (err)
			return err;
	}
	if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
		/* the dump size must fit a u16 record field and be aligned */
		if (attr->sample_stack_user >= USHRT_MAX ||
		    !IS_ALIGNED(attr->sample_stack_user, sizeof(u64)))
			return -EINVAL;
	}
	if (attr->sample_type & PERF_SAMPLE_REGS_INTR) {
		err = perf_reg_validate(attr->sample_regs_intr);
		if (err)
			return err;
	}
	/* a depth over the sysctl is EOVERFLOW once the PMU took the event */
	if (!attr->sample_max_stack)
		attr->sample_max_stack = sysctl_perf_event_max_stack;
#ifndef CONFIG_CGROUP_PERF
	if (attr->sample_type & PERF_SAMPLE_CGROUP)
		return -EINVAL;
#endif
	if ((attr->sample_type & PERF_SAMPLE_WEIGHT) &&
	    (attr->sample_type & PERF_SAMPLE_WEIGHT_STRUCT))
		return -EINVAL;

	if (attr->inherit_thread && !attr->inherit)
		return -EINVAL;
	if (attr->remove_on_exec && attr->enable_on_exec)
		return -EINVAL;
	/* a signal to whoever inherited it after exec would be a surprise */
	if (attr->sigtrap && !attr->remove_on_exec)
		return -EINVAL;
	return 0;
}

/*
 * Copy in an attr of any published (or future) size: the kernel reads
 * what it knows, a larger struct must have a zero tail, and a size it
 * cannot accept is answered with E2BIG and its own size written back.
 */
static int perf_copy_attr(struct perf_event_attr __user *uattr,
			  struct perf_event_attr *attr)
{
	u32 size;
	int err;

	memset(attr, 0, sizeof(*attr));
	if (get_user(size, &uattr->size))
		return -EFAULT;
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		goto err_size;

	err = copy_struct_from_user(attr, sizeof(*attr), uattr, size);
	if (err == -E2BIG)
		goto err_size;
	if (err)
		return err;
	attr->size = size;
	return perf_check_attr(attr);

err_size:
	put_user(sizeof(*attr), &uattr->size);
	return -E2BIG;
}

static struct task_struct *perf_find_task(pid_t vpid)
{
	struct task_struct *task;

	rcu_read_lock();
	task = vpid ? find_task_by_vpid(vpid) : current;
	if (task)
		get_task_struct(task);
	rcu_read_unlock();
	return task ? task : ERR_PTR(-ESRCH);
}

/* The access rules of the attr itself, before any task or CPU is known. */
static int perf_check_access(struct perf_event_attr *attr)
{
	int err;

	/* Debian's level 3: nothing at all for the unprivileged */
	if (perf_paranoid_any() && !capable(CAP_SYS_ADMIN))
		return -EACCES;

	if (!attr->exclude_kernel) {
		err = perf_allow_kernel();
		if (err)
			return err;
	}
	/* kernel stacks in a callchain, kernel text changes */
	if (((attr->sample_type & PERF_SAMPLE_CALLCHAIN) &&
	     !attr->exclude_callchain_kernel) || attr->text_poke) {
		err = perf_allow_kernel();
		if (err)
			return err;
	}
	if (attr->namespaces && !perfmon_capable())
		return -EACCES;

	if (attr->freq) {
		if (attr->sample_freq > sysctl_perf_event_sample_rate)
			return -EINVAL;
	} else if (attr->sample_period & (1ULL << 63)) {
		return -EINVAL;
	}
	/* physical addresses in samples */
	if (attr->sample_type & PERF_SAMPLE_PHYS_ADDR) {
		err = perf_allow_kernel();
		if (err)
			return err;
	}
	/* the interrupted registers could be the kernel's secrets */
	if (attr->sample_type & PERF_SAMPLE_REGS_INTR) {
		err = security_locked_down(LOCKDOWN_PERF);
		if (err)
			return err;
	}
	/* a sample's read values are per thread: say which thread */
	if ((attr->sample_type & PERF_SAMPLE_READ) && attr->inherit &&
	    !(attr->sample_type & PERF_SAMPLE_TID))
		return -EINVAL;
	return 0;
}

/*
 * May @event join @leader's group? Members share a context and a CPU, a
 * pinned or exclusive event must lead, and apart from software events a
 * group lives on one PMU.
 */
/*
 * May current open an event that follows @task? Reading it takes what
 * ptrace's read access takes, or CAP_PERFMON. A sigtrap event sends @task
 * signals: that takes CAP_KILL in @task's user namespace besides
 * CAP_PERFMON, or else what ptrace attach takes.
 */
static bool perf_may_follow(struct task_struct *task,
			    struct perf_event_attr *attr)
{
	unsigned int mode = PTRACE_MODE_READ_REALCREDS;
	bool capable = perfmon_capable();

	if (attr->sigtrap) {
		rcu_read_lock();
		capable = capable &&
			  ns_capable(__task_cred(task)->user_ns, CAP_KILL);
		rcu_read_unlock();
		mode = PTRACE_MODE_ATTACH_REALCREDS;
	}
	return capable || ptrace_may_access(task, mode);
}

static void perf_event_set_owner(struct perf_event *event)
{
	event->owner = get_task_struct(current);
	mutex_lock(&current->perf_event_mutex);
	list_add_tail(&event->owner_entry, &current->perf_event_list);
	mutex_unlock(&current->perf_event_mutex);
}

SYSCALL_DEFINE5(perf_event_open, struct perf_event_attr __user *, attr_uptr,
		pid_t, pid, int, cpu, int, group_fd, unsigned long, flags)
{
	struct perf_event *event, *group_leader = NULL;
	struct task_struct *task = NULL;
	struct perf_event_context *ctx;
	struct perf_event_attr attr;
	struct file *event_file = NULL;
	struct fd group = EMPTY_FD;
	int event_fd, err;
	int f_flags = O_RDWR;

	if (flags & ~PERF_FLAG_ALL)
		return -EINVAL;

	err = security_perf_event_open(PERF_SECURITY_OPEN);
	if (err)
		return err;

	err = perf_copy_attr(attr_uptr, &attr);
	if (err)
		return err;

	err = perf_check_access(&attr);
	if (err)
		return err;

	/* a cgroup is named by a directory fd, monitored on one CPU */
	if ((flags & PERF_FLAG_PID_CGROUP) && (pid == -1 || cpu == -1))
		return -EINVAL;

	if (flags & PERF_FLAG_FD_CLOEXEC)
		f_flags |= O_CLOEXEC;
	event_fd = get_unused_fd_flags(f_flags);
	if (event_fd < 0)
		return event_fd;

	if (group_fd != -1) {
		group = fdget(group_fd);
		if (!fd_file(group) || fd_file(group)->f_op != &perf_fops) {
			err = -EBADF;
			goto err_fd;
		}
		group_leader = fd_file(group)->private_data;
		if (flags & PERF_FLAG_FD_NO_GROUP)
			group_leader = NULL;
	}

	if (pid != -1 && !(flags & PERF_FLAG_PID_CGROUP)) {
		task = perf_find_task(pid);
		if (IS_ERR(task)) {
			err = PTR_ERR(task);
			task = NULL;
			goto err_group;
		}
	}
	/* a group's members are all inherited, or none */
	err = -EINVAL;
	if (task && group_leader &&
	    group_leader->attr.inherit != attr.inherit)
		goto err_task;
	/* a CPU that exists, or -1 (any) for an event that follows a task */
	if ((cpu < 0 || cpu >= (int)nr_cpu_ids) && (!task || cpu != -1))
		goto err_task;
	/* a signal needs a task to receive it */
	if (attr.sigtrap && !task)
		goto err_task;

	/* a cgroup event: pid is the fd of the cgroup's directory */
	event = perf_event_alloc(&attr, cpu, task, group_leader, NULL,
				 NULL, NULL,
				 flags & PERF_FLAG_PID_CGROUP ? pid : -1);
	if (IS_ERR(event)) {
		err = PTR_ERR(event);
		goto err_task;
	}

	/* who may watch: known once the PMU has taken the event */
	if (task) {
		/* hold off exec changing the credentials we are checking */
		err = down_read_interruptible(&task->signal->exec_update_lock);
		if (err)
			goto err_event;
		if (!perf_may_follow(task, &attr)) {
			err = -EACCES;
			goto err_cred;
		}
	} else {
		err = perf_allow_cpu();
		if (err)
			goto err_event;
	}
	/* an AUX snapshot or aux_output needs an AUX event to lead */
	err = perf_aux_group_check(event, group_leader);
	if (err)
		goto err_cred;
	/* before the context: the task of an exited leader has none */
	if (group_leader &&
	    READ_ONCE(group_leader->state) == PERF_EVENT_STATE_EXIT) {
		err = -ENODEV;
		goto err_cred;
	}

	ctx = perf_open_context(task, event->cpu == -1 ? 0 : event->cpu);
	if (IS_ERR(ctx)) {
		err = PTR_ERR(ctx);
		goto err_cred;
	}

	event_file = anon_inode_getfile("[perf_event]", &perf_fops, event,
					f_flags);
	if (IS_ERR(event_file)) {
		err = PTR_ERR(event_file);
		perf_ctx_put(ctx);
		goto err_cred;
	}
	event->filp = event_file;

	err = perf_event_attach(event, group_leader, task, ctx);
	if (err) {
		/* the file's release frees the event */
		fput(event_file);
		goto err_file;
	}

	/* without a group fd there is nothing to send the output to */
	if ((flags & PERF_FLAG_FD_OUTPUT) && fd_file(group)) {
		err = perf_event_set_output(event,
					    fd_file(group)->private_data);
		if (err) {
			fput(event_file);
			goto err_file;
		}
	}

	if (task) {
		up_read(&task->signal->exec_update_lock);
		put_task_struct(task);
	}
	fdput(group);

	perf_event_set_owner(event);
	fd_install(event_fd, event_file);
	return event_fd;

err_cred:
	if (task)
		up_read(&task->signal->exec_update_lock);
err_event:
	perf_event_put(event);
	goto err_task;
err_file:
	if (task)
		up_read(&task->signal->exec_update_lock);
err_task:
	if (task)
		put_task_struct(task);
err_group:
	fdput(group);
err_fd:
	put_unused_fd(event_fd);
	return err;
}
