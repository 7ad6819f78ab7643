// SPDX-License-Identifier: GPL-2.0
/*
 * pmu_lockup: a hard lockup on purpose, for the NMI watchdog test of the
 * TCG PMU model (tests/pmu-watchdog.sh).
 *
 * Loading it spins on the loading CPU with interrupts off for "seconds"
 * (default 12): no timer interrupt runs there, so only the perf NMI
 * watchdog (a pinned cycles counter whose overflow is an NMI) can notice,
 * and it must print "Watchdog detected hard LOCKUP". The soft-lockup
 * detector is kept quiet (it would only report after the fact). The
 * module then stays loaded, doing nothing, until removed.
 */
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/module.h>
#include <linux/nmi.h>
#include <linux/sched/clock.h>

static unsigned int seconds = 12;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long to spin with interrupts off");

static int __init pmu_lockup_init(void)
{
	unsigned long flags;
	unsigned int ms;

	pr_info("pmu_lockup: spinning %us with interrupts off on CPU %d\n",
		seconds, raw_smp_processor_id());
	local_irq_save(flags);
	for (ms = 0; ms < seconds * 1000; ms++) {
		mdelay(1);
		touch_softlockup_watchdog();
	}
	local_irq_restore(flags);
	pr_info("pmu_lockup: done\n");
	return 0;
}

static void __exit pmu_lockup_exit(void)
{
}

module_init(pmu_lockup_init);
module_exit(pmu_lockup_exit);
MODULE_DESCRIPTION("Spins with interrupts off to trip the hard-lockup detector");
MODULE_LICENSE("GPL");
