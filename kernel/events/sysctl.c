// SPDX-License-Identifier: GPL-2.0
/*
 * The perf sysctls under /proc/sys/kernel and what they derive.
 *
 * kernel/sysctl.c owns the table; the variables and the handlers that
 * keep derived limits consistent live here, except the stack limits'
 * handler: callchain.c's buffers are sized by them, and it refuses a
 * change while they exist.
 */
#include <linux/sysctl.h>
#include <linux/printk.h>
#include <linux/irq_work.h>
#include <linux/jiffies.h>

#include "layer/object.h"

#define PERF_DEFAULT_MAX_SAMPLE_RATE	100000
#define PERF_DEFAULT_CPU_TIME_PERCENT	25
#define PERF_DEFAULT_MAX_STACK		127
#define PERF_DEFAULT_CONTEXTS_PER_STACK	8

/*
 * -1 everything allowed, 0 no raw tracepoints for the unprivileged,
 * 1 no kernel profiling, 2 no CPU-wide events, 3 (Debian) no
 * perf_event_open at all without CAP_SYS_ADMIN.
 */
int sysctl_perf_event_paranoid __read_mostly =
	IS_ENABLED(CONFIG_SECURITY_PERF_EVENTS_RESTRICT) ? 3 : 2;

/* per-user mlock budget for ring buffers: 512 KiB plus the user page */
int sysctl_perf_event_mlock __read_mostly = 512 + (PAGE_SIZE / 1024);

int sysctl_perf_event_sample_rate __read_mostly = PERF_DEFAULT_MAX_SAMPLE_RATE;
int sysctl_perf_cpu_time_max_percent __read_mostly =
	PERF_DEFAULT_CPU_TIME_PERCENT;
int sysctl_perf_event_max_stack __read_mostly = PERF_DEFAULT_MAX_STACK;
int sysctl_perf_event_max_contexts_per_stack __read_mostly =
	PERF_DEFAULT_CONTEXTS_PER_STACK;

/* derived from the two limits above, read by the overflow path */
static u64 perf_sample_period_ns __read_mostly =
	NSEC_PER_SEC / PERF_DEFAULT_MAX_SAMPLE_RATE;
int perf_samples_per_tick __read_mostly =
	DIV_ROUND_UP(PERF_DEFAULT_MAX_SAMPLE_RATE, HZ);
u64 perf_sample_allowed_ns __read_mostly;

static void perf_update_sample_limits(void)
{
	u64 period = NSEC_PER_SEC / sysctl_perf_event_sample_rate;
	int pct = sysctl_perf_cpu_time_max_percent;

	WRITE_ONCE(perf_sample_period_ns, period);
	WRITE_ONCE(perf_samples_per_tick,
		   DIV_ROUND_UP(sysctl_perf_event_sample_rate, HZ));
	/* 0 and 100 both turn the dynamic limit off, as in 6.12 */
	WRITE_ONCE(perf_sample_allowed_ns,
		   pct == 100 ? 0 : max(period * pct / 100, (u64)!!pct));
}

/**
 * perf_event_max_sample_rate_handler - perf_event_max_sample_rate
 * @table: the sysctl's table entry
 * @write: nonzero for a write
 * @buffer: the data read or written
 * @lenp: its length, updated
 * @ppos: the file position, updated
 *
 * The rate cannot be set while the CPU-time limit is off (0) or at 100%,
 * because then it is not what bounds the sampling.
 */
int perf_event_max_sample_rate_handler(const struct ctl_table *table,
				       int write, void *buffer, size_t *lenp,
				       loff_t *ppos)
{
	int err;
	int percent = READ_ONCE(sysctl_perf_cpu_time_max_percent);

	if (write && (percent == 100 || percent == 0))
		return -EINVAL;

	err = proc_dointvec_minmax(table, write, buffer, lenp, ppos);
	if (err || !write)
		return err;
	perf_update_sample_limits();
	return 0;
}

/**
 * perf_cpu_time_max_percent_handler - perf_cpu_time_max_percent (0..100)
 * @table: the sysctl's table entry
 * @write: nonzero for a write
 * @buffer: the data read or written
 * @lenp: its length, updated
 * @ppos: the file position, updated
 */
int perf_cpu_time_max_percent_handler(const struct ctl_table *table,
				      int write, void *buffer, size_t *lenp,
				      loff_t *ppos)
{
	int err = proc_dointvec_minmax(table, write, buffer, lenp, ppos);

	if (err || !write)
		return err;
	if (sysctl_perf_cpu_time_max_percent == 100 ||
	    sysctl_perf_cpu_time_max_percent == 0)
		pr_warn("perf: Dynamic interrupt throttling disabled, can hang your system!\n");
	perf_update_sample_limits();
	return 0;
}

/*
 * The average interrupt time is over the last PERF_TOOK_SAMPLES or so
 * (a running sum that loses 1/PERF_TOOK_SAMPLES of itself each time), as
 * 6.12's: one interrupt that took long (a vCPU preempted by its host, an
 * SMI) moves it by 1/128 of its excess, not enough to drop the rate to
 * a few hundred a second
 */
#define PERF_TOOK_SAMPLES	128
static DEFINE_PER_CPU(u64, perf_sample_sum_ns);

/* the last lowering, for its message: printed from an irq_work, not the NMI */
static u64 perf_took_avg, perf_took_allowed;
static int perf_took_rate;

static void perf_took_report(struct irq_work *work)
{
	pr_info("perf: interrupt took too long (%llu > %llu), lowering kernel.perf_event_max_sample_rate to %d\n",
		READ_ONCE(perf_took_avg), READ_ONCE(perf_took_allowed),
		READ_ONCE(perf_took_rate));
}

static DEFINE_IRQ_WORK(perf_took_work, perf_took_report);

/**
 * perf_sample_event_took - a PMU interrupt handler took @ns
 * @ns: the handler's time in nanoseconds
 *
 * When the average handler time (over the last PERF_TOOK_SAMPLES or so on
 * this CPU) at the current maximum rate would use more than
 * perf_cpu_time_max_percent of the CPU, lower the maximum rate
 * so that it does not, with a quarter's margin over the average and in
 * whole samples per tick, as 6.12 does (its message gives the numbers:
 * an average of 5466 ns at 25% and HZ 250 lowers the rate to 36500).
 * Runs in NMI context: no locks; the message goes out from an irq_work.
 */
void perf_sample_event_took(u64 ns)
{
	u64 allowed = READ_ONCE(perf_sample_allowed_ns);
	int pct = READ_ONCE(sysctl_perf_cpu_time_max_percent);
	u64 sum, avg, per_tick, rate;

	if (!allowed)
		return;
	sum = __this_cpu_read(perf_sample_sum_ns);
	sum += ns - sum / PERF_TOOK_SAMPLES;
	__this_cpu_write(perf_sample_sum_ns, sum);
	avg = sum / PERF_TOOK_SAMPLES;
	if (avg <= allowed)
		return;

	per_tick = div64_u64((u64)TICK_NSEC / 100 * pct, avg + avg / 4);
	if (!per_tick)
		per_tick = 1;
	rate = per_tick * HZ;
	if (rate >= READ_ONCE(sysctl_perf_event_sample_rate))
		return;
	WRITE_ONCE(sysctl_perf_event_sample_rate, rate);
	WRITE_ONCE(perf_samples_per_tick, per_tick);
	WRITE_ONCE(perf_sample_period_ns, NSEC_PER_SEC / rate);
	WRITE_ONCE(perf_sample_allowed_ns, NSEC_PER_SEC / rate * pct / 100);

	WRITE_ONCE(perf_took_avg, avg);
	WRITE_ONCE(perf_took_allowed, allowed);
	WRITE_ONCE(perf_took_rate, rate);
	irq_work_queue(&perf_took_work);
}
EXPORT_SYMBOL_GPL(perf_sample_event_took);

static int __init perf_sysctl_init(void)
{
	perf_update_sample_limits();
	return 0;
}
early_initcall(perf_sysctl_init);
