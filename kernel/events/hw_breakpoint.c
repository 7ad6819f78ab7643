// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware breakpoints as perf events.
 *
 * Not yet provided: every request fails cleanly with -EOPNOTSUPP, so
 * ptrace's debug-register interface reports an error instead of
 * installing anything. The arch backend (arch/x86/kernel/hw_breakpoint.c)
 * links against the entry points below.
 */
#include <linux/hw_breakpoint.h>
#include <linux/err.h>

#include "internal.h"

int __init perf_breakpoint_init(void)
{
	return 0;
}

struct perf_event *
register_user_hw_breakpoint(struct perf_event_attr *attr,
			    perf_overflow_handler_t triggered,
			    void *context, struct task_struct *tsk)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL_GPL(register_user_hw_breakpoint);

int modify_user_hw_breakpoint(struct perf_event *bp,
			      struct perf_event_attr *attr)
{
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL_GPL(modify_user_hw_breakpoint);

struct perf_event *
register_wide_hw_breakpoint_cpu(struct perf_event_attr *attr,
				perf_overflow_handler_t triggered,
				void *context, int cpu)
{
	return ERR_PTR(-EOPNOTSUPP);
}

struct perf_event * __percpu *
register_wide_hw_breakpoint(struct perf_event_attr *attr,
			    perf_overflow_handler_t triggered,
			    void *context)
{
	return ERR_PTR(-EOPNOTSUPP);
}
EXPORT_SYMBOL_GPL(register_wide_hw_breakpoint);

void unregister_hw_breakpoint(struct perf_event *bp)
{
	if (!bp)
		return;
	perf_event_release_kernel(bp);
}
EXPORT_SYMBOL_GPL(unregister_hw_breakpoint);

void unregister_wide_hw_breakpoint(struct perf_event * __percpu *cpu_events)
{
}
EXPORT_SYMBOL_GPL(unregister_wide_hw_breakpoint);

bool hw_breakpoint_is_used(void)
{
	return false;
}

void perf_bp_event(struct perf_event *bp, void *data)
{
}
