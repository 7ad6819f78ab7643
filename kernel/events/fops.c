// SPDX-License-Identifier: GPL-2.0
/*
 * The file operations of a perf event fd: read, poll, the ioctls, fasync
 * and release, and the in-kernel accessors built on the same paths.
 *
 * All of it runs in process context and may sleep.
 */
#include <linux/compat.h>
#include <linux/file.h>
#include <linux/hw_breakpoint.h>
#include <linux/poll.h>
#include <linux/uaccess.h>

#include "layer/entry.h"

static ssize_t perf_read(struct file *file, char __user *buf, size_t count,
			 loff_t *ppos)
{
	struct perf_event *event = file->private_data;
	int err;

	err = security_perf_event_read(event);
	if (err)
		return err;
	return perf_event_read_to_user(event, buf, count);
}

static __poll_t perf_poll(struct file *file, poll_table *wait)
{
	struct perf_event *event = file->private_data;

	struct perf_buffer *rb;
	__poll_t events = EPOLLHUP;

	poll_wait(file, &event->waitq, wait);
	/* hung up once the task and every inherited copy are gone */
	if (READ_ONCE(event->state) == PERF_EVENT_STATE_EXIT &&
	    list_empty_careful(&event->child_list))
		return EPOLLHUP;
	/* with no buffer there is nothing to wait for */
	rcu_read_lock();
	rb = rcu_dereference(event->rb);
	if (rb)
		events = atomic_xchg(&rb->poll, 0);
	rcu_read_unlock();
	return events;
}

static int perf_release(struct inode *inode, struct file *file)
{
	perf_event_release_kernel(file->private_data);
	return 0;
}

static int perf_fasync(int fd, struct file *filp, int on)
{
	struct perf_event *event = filp->private_data;
	struct inode *inode = file_inode(filp);
	int err;

	inode_lock(inode);
	err = fasync_helper(fd, filp, on, &event->fasync);
	inode_unlock(inode);
	return err < 0 ? err : 0;
}

/*
 * SET_OUTPUT redirects records into another event's ring buffer. Only an
 * event that could share a buffer is accepted: the same CPU, or the same
 * task context.
 */
static int perf_ioctl_set_output(struct perf_event *event, int output_fd)
{
	struct fd f;
	int err;

	if (output_fd == -1)
		return perf_buffer_set_output(event, NULL);

	f = fdget(output_fd);
	if (!fd_file(f))
		return -EBADF;
	if (fd_file(f)->f_op != &perf_fops)
		err = -EBADF;
	else
		err = perf_event_set_output(event, fd_file(f)->private_data);
	fdput(f);
	return err;
}

/**
 * perf_event_set_output - SET_OUTPUT (or PERF_FLAG_FD_OUTPUT) to @output
 * @event: the event whose records are redirected
 * @output: the event whose buffer receives them
 */
int perf_event_set_output(struct perf_event *event, struct perf_event *output)
{
	int err = 0;

	/* an event with a mapping of its own keeps writing there */
	if (atomic_read(&event->mmap_count)) {
		err = -EINVAL;
		goto out;
	}
	if (output == event)
		goto out;
	/*
	 * One writer at a time per buffer: events of one CPU, or of one
	 * task on any CPU (its events run one at a time), never a mix, as
	 * the buffer's head is not moved atomically across CPUs.
	 */
	if (output->cpu != event->cpu)
		err = -EINVAL;
	else if (output->cpu == -1 && output->hw.target != event->hw.target)
		err = -EINVAL;
	else if (output->clock != event->clock)
		err = -EINVAL;
	else if (output->attr.write_backward != event->attr.write_backward)
		err = -EINVAL;
	/* an AUX area is written by one PMU's driver, in its own format */
	else if (has_aux(event) && has_aux(output) && event->pmu != output->pmu)
		err = -EINVAL;
	else
		err = perf_buffer_set_output(event, output);
out:
	return err;
}

static long perf_ioctl_modify(struct perf_event *event, void __user *uattr)
{
	struct perf_event_attr attr;
	u32 size;
	int err;

	if (get_user(size, (u32 __user *)(uattr +
					  offsetof(struct perf_event_attr,
						   size))))
		return -EFAULT;
	if (!size)
		size = PERF_ATTR_SIZE_VER0;
	if (size < PERF_ATTR_SIZE_VER0 || size > PAGE_SIZE)
		return -E2BIG;
	err = copy_struct_from_user(&attr, sizeof(attr), uattr, size);
	if (err)
		return err;
	if (attr.type != event->attr.type)
		return -EINVAL;
	/* only breakpoints can be changed in place */
	if (event->attr.type != PERF_TYPE_BREAKPOINT)
		return -EOPNOTSUPP;
	return modify_user_hw_breakpoint_check(event, &attr, true);
}

static long perf_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct perf_event *event = file->private_data;
	bool group = arg & PERF_IOC_FLAG_GROUP;
	u64 value;
	int err;

	err = security_perf_event_write(event);
	if (err)
		return err;

	/* the two a counting loop makes, before the switch's compare tree */
	if (cmd == PERF_EVENT_IOC_ENABLE)
		return perf_event_ctl_enable(event, group);
	if (cmd == PERF_EVENT_IOC_DISABLE)
		return perf_event_ctl_disable(event, group);
	switch (cmd) {
	case PERF_EVENT_IOC_RESET:
		return perf_event_ctl_reset(event, group);
	case PERF_EVENT_IOC_REFRESH:
		return perf_event_refresh(event, arg);
	case PERF_EVENT_IOC_PERIOD:
		if (copy_from_user(&value, (u64 __user *)arg, sizeof(value)))
			return -EFAULT;
		return perf_event_ctl_period(event, value);
	case PERF_EVENT_IOC_ID:
		if (put_user(event->id, (u64 __user *)arg))
			return -EFAULT;
		return 0;
	case PERF_EVENT_IOC_SET_OUTPUT:
		return perf_ioctl_set_output(event, (int)arg);
	case PERF_EVENT_IOC_SET_FILTER:
		if (event->pmu->nr_addr_filters)
			return perf_addr_filters_set(event, (void __user *)arg);
		return perf_tracepoint_set_filter(event, (void __user *)arg);
	case PERF_EVENT_IOC_SET_BPF:
		return perf_event_ioctl_set_bpf(event, arg);
	case PERF_EVENT_IOC_PAUSE_OUTPUT:
		return perf_buffer_pause(event, !!arg);
	case PERF_EVENT_IOC_QUERY_BPF:
		return perf_event_ioctl_query_bpf(event, (void __user *)arg);
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES:
		return perf_ioctl_modify(event, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

#ifdef CONFIG_COMPAT
/* The ioctls whose size encodes a pointer differ for 32-bit callers. */
static long perf_compat_ioctl(struct file *file, unsigned int cmd,
			      unsigned long arg)
{
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(PERF_EVENT_IOC_SET_FILTER):
	case _IOC_NR(PERF_EVENT_IOC_ID):
	case _IOC_NR(PERF_EVENT_IOC_QUERY_BPF):
	case _IOC_NR(PERF_EVENT_IOC_MODIFY_ATTRIBUTES):
		if (_IOC_SIZE(cmd) == sizeof(compat_uptr_t)) {
			cmd &= ~IOCSIZE_MASK;
			cmd |= sizeof(void *) << IOCSIZE_SHIFT;
		}
		break;
	}
	return perf_ioctl(file, cmd, arg);
}
#else
#define perf_compat_ioctl NULL
#endif

static int perf_mmap(struct file *file, struct vm_area_struct *vma)
{
	/* a mapping past the data pages is the AUX area */
	if (vma->vm_pgoff)
		return perf_aux_mmap(file->private_data, vma);
	return perf_buffer_mmap(file->private_data, vma);
}

const struct file_operations perf_fops = {
	.release		= perf_release,
	.read			= perf_read,
	.poll			= perf_poll,
	.unlocked_ioctl		= perf_ioctl,
	.compat_ioctl		= perf_compat_ioctl,
	.mmap			= perf_mmap,
	.fasync			= perf_fasync,
};

/**
 * perf_get_event - the event behind a perf fd's file
 * @file: the file
 */
struct perf_event *perf_get_event(struct file *file)
{
	if (file->f_op != &perf_fops)
		return ERR_PTR(-EINVAL);
	return file->private_data;
}

/**
 * perf_event_get - the file of perf fd @fd, with a reference
 * @fd: the file descriptor
 *
 * For BPF (perf event arrays, perf links). Return: the file, to be put
 * with fput(), or ERR_PTR(-EBADF) when @fd is not a perf event.
 */
struct file *perf_event_get(unsigned int fd)
{
	struct file *file = fget(fd);

	if (!file)
		return ERR_PTR(-EBADF);
	if (file->f_op != &perf_fops) {
		fput(file);
		return ERR_PTR(-EBADF);
	}
	return file;
}

/**
 * perf_event_attrs - an event's configuration, for in-kernel users
 * @event: the event
 */
const struct perf_event_attr *perf_event_attrs(struct perf_event *event)
{
	if (!event)
		return ERR_PTR(-EINVAL);
	return &event->attr;
}

/**
 * perf_event_read_value - an event's total count and times; may sleep
 * @event: the event
 * @enabled: if not NULL, where its total time enabled goes
 * @running: if not NULL, where its total time running goes
 */
u64 perf_event_read_value(struct perf_event *event, u64 *enabled,
			  u64 *running)
{
	struct perf_event_context *ctx;
	u64 total;

	ctx = perf_event_ctx_lock(event);
	perf_event_sync(event);
	total = perf_event_total(event, enabled, running);
	mutex_unlock(&ctx->mutex);
	return total;
}
EXPORT_SYMBOL_GPL(perf_event_read_value);

/* @cpu as seen from @this: @this where @event's PMU reads the same there */
static int perf_read_local_cpu(struct perf_event *event, int cpu, int this)
{
	if (cpu != this && perf_scope_shared(event->pmu, this, cpu))
		return this;
	return cpu;
}

/**
 * perf_event_read_local - read an event counting on this CPU, atomically
 * @event: the event
 * @value: its count
 * @enabled: if not NULL, its enabled time as of now
 * @running: if not NULL, its running time as of now
 *
 * For callers that cannot sleep or lock (BPF programs, which may run in
 * NMI): takes no lock, only keeps interrupts off, so the event cannot be
 * switched in or out meanwhile. The rules are 6.12's:
 *
 * - an inherited event: -EOPNOTSUPP (its children are not readable here);
 * - a per-task event of another task than current: -EINVAL;
 * - a CPU-wide event of another CPU: -EINVAL, unless its PMU has a scope
 *   (core, die, package...) that this CPU shares with that one;
 * - a pinned event that is not on this CPU now (it failed to schedule):
 *   -EBUSY.
 *
 * An event on the PMU of this CPU is read from the PMU first; so is one
 * on a CPU of the same scope domain, whose counters are this CPU's too
 * (BPF reads a package's RAPL event from any CPU of the package). Any
 * other (switched out, multiplexed out, disabled) gives its last count.
 *
 * Return: 0 or the errno above.
 */
int perf_event_read_local(struct perf_event *event, u64 *value,
			  u64 *enabled, u64 *running)
{
	unsigned long flags;
	int cpu, oncpu, err = 0;
	u64 en, run;

	if (event->attr.inherit)
		return -EOPNOTSUPP;

	local_irq_save(flags);
	cpu = smp_processor_id();
	oncpu = perf_read_local_cpu(event, READ_ONCE(event->oncpu), cpu);
	if (event->attach_state & PERF_ATTACH_TASK) {
		if (event->hw.target != current)
			err = -EINVAL;
	} else if (perf_read_local_cpu(event, event->cpu, cpu) != cpu) {
		err = -EINVAL;
	}
	if (!err && event->attr.pinned && oncpu != cpu)
		err = -EBUSY;
	if (err)
		goto out;

	if (oncpu == cpu && READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE)
		event->pmu->read(event);
	*value = local64_read(&event->count);
	if (enabled || running) {
		perf_event_times_now(event, &en, &run);
		if (enabled)
			*enabled = en;
		if (running)
			*running = run;
	}
out:
	local_irq_restore(flags);
	return err;
}

/**
 * perf_event_pause - stop or restart an in-kernel counter, for KVM
 * @event: the event
 * @reset: zero the count, returning the count it had
 */
u64 perf_event_pause(struct perf_event *event, bool reset)
{
	u64 count;

	perf_event_ctl_disable(event, false);
	count = perf_event_read_value(event, NULL, NULL);
	if (reset)
		perf_event_ctl_reset(event, false);
	return count;
}
EXPORT_SYMBOL_GPL(perf_event_pause);

/**
 * perf_event_refresh - enable a sampling event for @refresh more overflows
 * @event: the event
 * @refresh: the number of overflows, > 0
 */
int perf_event_refresh(struct perf_event *event, int refresh)
{
	if (event->attr.inherit || !is_sampling_event(event))
		return -EINVAL;
	if (refresh <= 0)
		return -EINVAL;
	atomic_add(refresh, &event->event_limit);
	return perf_event_ctl_enable(event, false);
}
EXPORT_SYMBOL_GPL(perf_event_refresh);
