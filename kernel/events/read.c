// SPDX-License-Identifier: GPL-2.0
/*
 * Reading counts: bringing an event's count and times up to date on the
 * CPU where it runs, adding in inherited children, and laying the result
 * out in the read_format the user asked for.
 *
 * The layouts (read_format):
 *   single:  value, [time_enabled], [time_running], [id], [lost]
 *   GROUP:   nr, [time_enabled], [time_running],
 *            then per member: value, [id], [lost]
 */
#include <linux/uaccess.h>
#include <linux/slab.h>

#include "layer/counting.h"

/*
 * An active event's count, just after perf_ctx_update_time() of @ctx: a
 * clock counts up to the instant the context's time took (its time
 * running stops there too), anything else is read from its PMU
 */
static void perf_event_read_fresh(struct perf_event_context *ctx,
				  struct perf_event *event)
{
	if (event->state != PERF_EVENT_STATE_ACTIVE)
		return;
	if (perf_event_is_swclock(event) && ctx->is_active &&
	    !perf_event_is_cgroup(event)) {
		u64 saved = perf_swclock_set(ctx->timestamp);

		event->pmu->read(event);
		perf_swclock_set(saved);
	} else {
		event->pmu->read(event);
	}
}

static void perf_event_sync_one(struct perf_event *event)
{
	perf_event_read_fresh(event->ctx, event);
	perf_event_update_times(event);
}

static int __perf_event_sync(struct perf_event_context *ctx, void *info)
{
	struct perf_event *event = info;
	struct perf_event *leader = event->group_leader;
	struct perf_event *sibling;

	perf_ctx_update_time(ctx);
	if (!(event->attr.read_format & PERF_FORMAT_GROUP)) {
		perf_event_sync_one(event);
		return 0;
	}
	perf_event_sync_one(leader);
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry)
		perf_event_sync_one(sibling);
	return 0;
}

/**
 * perf_event_sync - bring @event (or its group, for a GROUP read) up to date
 * @event: the event
 *
 * Reads an active counter on the CPU where it counts.
 */
void perf_event_sync(struct perf_event *event)
{
	struct perf_event_context *ctx = event->ctx;

	if (!ctx)
		return;
	perf_ctx_call(ctx, __perf_event_sync, event);
}

/* @event's times with those of its children that exited */
static void perf_event_own_times(struct perf_event *event, u64 *enabled,
				 u64 *running)
{
	*enabled = event->total_time_enabled +
		   atomic64_read(&event->child_total_time_enabled);
	*running = event->total_time_running +
		   atomic64_read(&event->child_total_time_running);
}

/**
 * perf_event_total - the count of @event and all its inherited children
 * @event: the event
 * @enabled: if not NULL, the summed time enabled
 * @running: if not NULL, the summed time running
 *
 * Children that exited have been folded into child_count and the child
 * time totals; live children are read here. Caller syncs @event itself.
 */
u64 perf_event_total(struct perf_event *event, u64 *enabled, u64 *running)
{
	struct perf_event *child;
	u64 total, ena, run;
	bool children;

	/*
	 * A child that exits folds its count into child_count and leaves
	 * the list in one step under child_mutex: read both under it, or
	 * the child could be in neither and the sum go backwards. Most
	 * events never had children: they skip the lock; one created
	 * after this look starts from zero and is not missed.
	 */
	children = !list_empty_careful(&event->child_list);
	if (children)
		mutex_lock(&event->child_mutex);
	total = perf_event_own_count(event);
	perf_event_own_times(event, &ena, &run);
	if (!children)
		goto out;

	list_for_each_entry(child, &event->child_list, child_entry) {
		perf_event_sync(child);
		total += perf_event_own_count(child);
		ena += child->total_time_enabled;
		run += child->total_time_running;
	}
	mutex_unlock(&event->child_mutex);
out:
	if (enabled)
		*enabled = ena;
	if (running)
		*running = run;
	return total;
}

/*
 * The words a read() starts with, in @format: the value (or for
 * PERF_FORMAT_GROUP the number of members), then the times
 */
static int perf_read_put_head(u64 *values, u64 format, u64 first,
			      u64 enabled, u64 running)
{
	int n = 0;

	values[n++] = first;
	if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		values[n++] = enabled;
	if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		values[n++] = running;
	return n;
}

/* Append @event's id and lost count as @format asks for them. */
static int perf_read_put_id_lost(u64 *values, int n, u64 format,
				 struct perf_event *event)
{
	if (format & PERF_FORMAT_ID)
		values[n++] = event->id;
	if (format & PERF_FORMAT_LOST)
		values[n++] = atomic64_read(&event->lost_samples);
	return n;
}

/*
 * Append one member's value, id and lost count, in the layout of the
 * event being read (@format), whatever the member's own read_format.
 */
static int perf_read_put_entry(u64 *values, int n, u64 format,
			       struct perf_event *event, u64 value)
{
	values[n++] = value;
	return perf_read_put_id_lost(values, n, format, event);
}

static int perf_read_fill(struct perf_event *event, u64 *values)
{
	u64 format = event->attr.read_format;
	struct perf_event *leader = event->group_leader;
	struct perf_event *sibling;
	u64 enabled, running, value;
	int n, nr;

	if (!(format & PERF_FORMAT_GROUP)) {
		value = perf_event_total(event, &enabled, &running);
		n = perf_read_put_head(values, format, value, enabled, running);
		return perf_read_put_id_lost(values, n, format, event);
	}

	value = perf_event_total(leader, &enabled, &running);
	n = perf_read_put_head(values, format, 1 + leader->nr_siblings,
			       enabled, running);
	n = perf_read_put_entry(values, n, format, leader, value);
	/* never more entries than perf_read_size() made room for */
	nr = leader->nr_siblings;
	list_for_each_entry(sibling, &leader->sibling_list, sibling_entry) {
		if (WARN_ON_ONCE(!nr--))
			break;
		value = perf_event_total(sibling, NULL, NULL);
		n = perf_read_put_entry(values, n, format, sibling, value);
	}
	return n;
}

/* a member a group read can give as it is: up to date, and no children */
static __always_inline bool perf_member_in_place(struct perf_event *member)
{
	return perf_event_counts_in_place(member) &&
	       list_empty(&member->child_list);
}

/*
 * read() of the caller's own event or group, counting on this CPU, with
 * no inherited children: perf stat's self-monitoring and any loop that
 * reads a counter. Under ctx->lock with IRQs off, the context live here
 * and its task current, the context can be neither switched out nor
 * swapped, every change to it or to its groups holds that lock, and no
 * child can appear (only a fork of this task makes them): neither
 * ctx->mutex nor perf_ctx_call() is needed.
 *
 * The words go straight to @buf from inside that section, page faults
 * off: staging them and copying them out was a sixth of a group read.
 * A page that is not present makes the read take the general path,
 * which may sleep to fault it in (what was written is written again).
 * Returns the bytes written, a negative errno, or 0 for the general path.
 */
static ssize_t perf_read_self(struct perf_event *event, char __user *buf,
			      size_t count)
{
	u64 __user *to = (u64 __user *)buf;
	struct perf_event *leader, *sibling;
	struct perf_event_context *ctx;
	u64 enabled, running, value;
	bool members_read = false;
	unsigned long flags;
	ssize_t ret = 0;
	u64 __user *pos;
	size_t size;
	u64 format;

	ctx = READ_ONCE(event->ctx);
	if (!ctx || READ_ONCE(ctx->task) != current)
		return 0;
	perf_ctx_lock_irqsave(ctx, flags);
	if (event->ctx != ctx || ctx->task != current || !ctx->is_active ||
	    ctx->active_cpu != smp_processor_id())
		goto unlock;
	/* first: less is live across the call */
	perf_ctx_update_time(ctx);
	format = event->attr.read_format;
	leader = format & PERF_FORMAT_GROUP ? event->group_leader : event;
	if (!list_empty(&leader->child_list))
		goto unlock;
	size = perf_read_size(event);
	if (count < size) {
		ret = -ENOSPC;
		goto unlock;
	}
	/*
	 * A clock counts up to the context's time: its count is computed.
	 * A task context's event is never a cgroup event.
	 */
	if (perf_event_is_swclock(leader) &&
	    leader->state == PERF_EVENT_STATE_ACTIVE) {
		value = perf_swclock_count_at(leader, ctx->timestamp) +
			atomic64_read(&leader->child_count);
	} else {
		perf_event_read_fresh(ctx, leader);
		value = perf_event_own_count(leader);
	}
	perf_event_update_times_at(leader, perf_event_effective_state(leader),
				   perf_ctx_time_now(ctx));
	perf_event_own_times(leader, &enabled, &running);

	pagefault_disable();
write:
	pos = to;
	if (!user_access_begin(to, size)) {
		ret = -EFAULT;
		goto enable;
	}
#define PUT(v)	do { unsafe_put_user((u64)(v), pos, fault); pos++; } while (0)
#define PUT_ID_LOST(e)							\
	do {								\
		if (format & PERF_FORMAT_ID)				\
			PUT((e)->id);					\
		if (format & PERF_FORMAT_LOST)				\
			PUT(atomic64_read(&(e)->lost_samples));		\
	} while (0)
	if (!(format & PERF_FORMAT_GROUP)) {
		PUT(value);
		if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
			PUT(enabled);
		if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
			PUT(running);
		PUT_ID_LOST(leader);
		goto done;
	}
	PUT(1 + leader->nr_siblings);
	if (format & PERF_FORMAT_TOTAL_TIME_ENABLED)
		PUT(enabled);
	if (format & PERF_FORMAT_TOTAL_TIME_RUNNING)
		PUT(running);
	PUT(value);
	PUT_ID_LOST(leader);
	/* perf stat's layout has a loop of its own, with fewer tests */
	if (likely(!members_read &&
		   (format & (PERF_FORMAT_ID | PERF_FORMAT_LOST)) ==
		   PERF_FORMAT_ID)) {
		for_each_sibling_event(sibling, leader) {
			if (unlikely(!perf_member_in_place(sibling)))
				goto members;
			PUT(perf_event_own_count(sibling));
			PUT(sibling->id);
		}
		goto done;
	}
	for_each_sibling_event(sibling, leader) {
		if (unlikely(!members_read && !perf_member_in_place(sibling)))
			goto members;
		PUT(perf_event_own_count(sibling));
		PUT_ID_LOST(sibling);
	}
done:
#undef PUT_ID_LOST
#undef PUT
	user_access_end();
	ret = (char __user *)pos - buf;
	goto enable;
members:
	/*
	 * The layout has the leader's times only, so a member's are left
	 * for whoever reads them (they add up from its tstamp whenever
	 * that is), and a member that counts in place needs no read at
	 * all: most of a group's cost was bringing up to date what is not
	 * returned. Any other member is read here, out of the user access
	 * section, and the words written again. A member with inherited
	 * children sends the read down the general path; what was updated
	 * so far stays right.
	 */
	user_access_end();
	for_each_sibling_event(sibling, leader) {
		if (!list_empty(&sibling->child_list))
			goto enable;
		if (!perf_event_counts_in_place(sibling))
			perf_event_read_fresh(ctx, sibling);
	}
	members_read = true;
	goto write;
fault:
	user_access_end();
enable:
	pagefault_enable();
unlock:
	perf_ctx_unlock_irqrestore(ctx, flags);
	return ret;
}

/* The general path: any event, with children, or not counting here. */
static noinline ssize_t perf_event_read_general(struct perf_event *event,
						char __user *buf, size_t count)
{
	struct perf_event_context *ctx;
	/*
	 * A single event, or a group of up to seven with ids: no kzalloc.
	 * perf_read_fill() writes every word that is copied out.
	 */
	u64 small[16] __uninitialized;
	size_t size, filled;
	u64 *values;
	ssize_t ret;

	ctx = perf_event_ctx_lock(event);
	size = perf_read_size(event);
	if (count < size) {
		ret = -ENOSPC;
		goto unlock;
	}
	values = small;
	if (size > sizeof(small)) {
		values = kzalloc(size, GFP_KERNEL);
		if (!values) {
			ret = -ENOMEM;
			goto unlock;
		}
	}

	perf_event_sync(event);
	filled = perf_read_fill(event, values) * sizeof(u64);
	if (WARN_ON_ONCE(filled < size))
		memset((char *)values + filled, 0, size - filled);
	ret = size;
	if (copy_to_user(buf, values, size))
		ret = -EFAULT;
	if (values != small)
		kfree(values);
unlock:
	mutex_unlock(&ctx->mutex);
	return ret;
}

/**
 * perf_event_read_to_user - read() of a perf fd
 * @event: the event
 * @buf: the user buffer
 * @count: its size in bytes
 *
 * A pinned event that could not be scheduled is in the error state and
 * reads as end-of-file, which tells user space its count is meaningless.
 */
ssize_t perf_event_read_to_user(struct perf_event *event, char __user *buf,
				size_t count)
{
	ssize_t ret;

	if (event->state == PERF_EVENT_STATE_ERROR)
		return 0;
	ret = perf_read_self(event, buf, count);
	if (ret)
		return ret;
	return perf_event_read_general(event, buf, count);
}
