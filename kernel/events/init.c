// SPDX-License-Identifier: GPL-2.0
/*
 * Bringing the core up at boot and following CPUs through hotplug.
 *
 * perf_event_init() runs early in start_kernel(), before the driver core:
 * it registers the core's PMUs (their sysfs devices follow later, see
 * pmu.c). A CPU's context is live while the CPU is online; the hotplug
 * callbacks run on the CPU concerned.
 */
#include <linux/cpu.h>
#include <linux/smp.h>
#include <linux/init.h>

#include "layer/entry.h"

/**
 * perf_event_init - set up the perf core; called once from start_kernel()
 */
void __init perf_event_init(void)
{
	int err;

	perf_cpu_contexts_init();
	perf_cpu_ctx_online();
	err = perf_swevent_register();
	WARN(err, "perf: software PMU: %d\n", err);
	err = perf_tracepoint_register();
	WARN(err, "perf: tracepoint PMU: %d\n", err);
	err = perf_kprobe_register();
	WARN(err, "perf: kprobe PMU: %d\n", err);
	err = perf_uprobe_register();
	WARN(err, "perf: uprobe PMU: %d\n", err);
	err = perf_breakpoint_init();
	WARN(err, "perf: breakpoint PMU: %d\n", err);
}

/**
 * perf_event_init_cpu - CPU hotplug: @cpu comes online
 * @cpu: the CPU
 *
 * Called twice per CPU: in the prepare stage from another CPU, where
 * there is nothing to do yet, and in the online stage on @cpu itself.
 */
int perf_event_init_cpu(unsigned int cpu)
{
	if (cpu == raw_smp_processor_id()) {
		perf_cpu_ctx_online();
		perf_scope_cpu_online(cpu);
	}
	return 0;
}

/**
 * perf_event_exit_cpu - CPU hotplug: @cpu goes offline
 * @cpu: the CPU
 *
 * Runs on @cpu (online stage) and again from another CPU once it is dead.
 * The CPU's events are turned off and keep their counts and times; they
 * do not start again if the CPU comes back, as in 6.12. Events of scoped
 * PMUs move to another CPU of their domain first.
 */
int perf_event_exit_cpu(unsigned int cpu)
{
	if (cpu == raw_smp_processor_id()) {
		perf_scope_cpu_offline(cpu);
		perf_cpu_ctx_offline();
	}
	return 0;
}

