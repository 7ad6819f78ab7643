// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-throttle: a throttled hardware event samples again once its task
 * is back on the CPU, as in 6.12, which restarts a throttled event at
 * the next tick of its CPU while it is on the PMU and else when it is
 * scheduled in again.
 *
 * Root, pinned to CPU 0, at perf_event_max_sample_rate 1000, then 250,
 * with the kernel's lowering of it off (perf_cpu_time_max_percent 0): at
 * HZ 250 the limit is 4 (then 1) a tick; 6.12's fourth (first) overflow
 * in a tick throttles the event (a THROTTLE record; that sample is still
 * written). cycles:u at period 20000 (10000 instructions on the model)
 * samples ROUNDS bursts of 1M user instructions (1 ms of the model's
 * virtual time, 100 periods) and blocks after each:
 * - "partner": on a pipe, while a partner process on the same CPU spins
 *   for 10M instructions, so that ticks come while another task runs
 *   (the tick cannot restart an event that is off its PMU);
 * - "usleep": in usleep(10000), the CPU idle meanwhile (at both rates).
 * A run of samples (from the enable or an UNTHROTTLE to the THROTTLE and
 * its sample) is as long as 6.12 makes it: the per_tick-th overflow of
 * a tick throttles (also the first, at a limit of 1). A tick that lands
 * inside a run, or a run that goes on across a block, lengthens it; a
 * run spans 40000 instructions, a tick is 4M apart, so most runs are
 * exactly per_tick long and none is 3 * per_tick. Every burst, begun
 * unthrottled, takes at least one run (per_tick samples), where an event left
 * throttled takes one sample a burst (its overflow stops it again).
 * The records alternate, THROTTLE first, and a THROTTLE is followed by
 * exactly one sample (its own) until the next UNTHROTTLE.
 * The samples up to the first THROTTLE are printed as a fact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-check.h"
#include "pmu-ring.h"
#include "pmu-unthrottle.h"

#define ROUNDS		12
#define PERIOD		20000		/* cycles: 10000 instructions */
#define BURST		500000		/* iterations: 1M instructions */
#define SPIN		5000000		/* the partner's: 10M instructions */
/* perf_event_max_sample_rate, and so DIV_ROUND_UP(rate, HZ 250) */
static int per_tick;

static void loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static int to_partner[2], from_partner[2];

/* The partner: a burst of its own each time it is asked, until EOF */
static void partner(void)
{
	char c;

	close(to_partner[1]);
	close(from_partner[0]);
	while (read(to_partner[0], &c, 1) == 1) {
		loop(SPIN);
		if (write(from_partner[1], &c, 1) != 1)
			break;
	}
	_exit(0);
}

static void block(int use_partner)
{
	char c = 0;

	if (!use_partner) {
		usleep(10000);
		return;
	}
	if (write(to_partner[1], &c, 1) != 1 ||
	    read(from_partner[0], &c, 1) != 1)
		check(0, "the partner answers");
}

static void run(const char *name, int use_partner, const char *rate)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.sample_period = PERIOD,
		.sample_type = PERF_SAMPLE_IP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int samples[ROUNDS] = { 0 }, unthrottles[ROUNDS] = { 0 };
	int nthrottle = 0, nunthrottle = 0, after = 0, bad = 0, len = 0;
	int exact = 0, longest = 0;
	int min = 1 << 30, throttled = 0, first = -1, fd, r;
	struct perf_event_mmap_page *pc;
	uint64_t heads[ROUNDS];
	unsigned char *data;
	char what[256];
	pid_t pid = -1;

	/* the rate can be written only while the lowering is on */
	sysctl("perf_cpu_time_max_percent", "25", NULL);
	sysctl("perf_event_max_sample_rate", rate, NULL);
	sysctl("perf_cpu_time_max_percent", "0", NULL);
	per_tick = (atoi(rate) + 249) / 250;
	if (use_partner) {
		if (pipe(to_partner) || pipe(from_partner)) {
			check(0, "pipe");
			return;
		}
		/* before the event: the partner has no context of its own */
		pid = fork();
		if (pid == 0)
			partner();
		close(to_partner[0]);
		close(from_partner[1]);
	}
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	data = fd >= 0 ? ring_map(fd, &pc) : NULL;
	snprintf(what, sizeof(what), "%s: cycles:u at period %d opens",
		 name, PERIOD);
	check(fd >= 0 && data, what);
	if (fd < 0 || !data)
		goto out;

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (r = 0; r < ROUNDS; r++) {
		loop(BURST);
		heads[r] = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
		block(use_partner);
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	/* each record goes to the round whose count it came before */
	{
		uint64_t pos = 0, end = heads[ROUNDS - 1];

		r = 0;
		while (pos < end) {
			struct perf_event_header *h = (void *)(data + pos);

			if (!h->size)
				break;
			while (r < ROUNDS - 1 && pos >= heads[r])
				r++;
			switch (h->type) {
			case PERF_RECORD_SAMPLE:
				samples[r]++;
				if (throttled && ++after > 1)
					bad++;
				len += !throttled;
				break;
			case PERF_RECORD_THROTTLE:
				if (!nthrottle++)
					first = samples[0];
				if (throttled)
					bad++;
				/* the run with the THROTTLE's own sample */
				exact += len + 1 == per_tick;
				if (len + 1 > longest)
					longest = len + 1;
				len = 0;
				throttled = 1;
				after = 0;
				break;
			case PERF_RECORD_UNTHROTTLE:
				nunthrottle++;
				unthrottles[r]++;
				if (!throttled)
					bad++;
				throttled = 0;
				len = 0;
				break;
			}
			pos += h->size;
		}
	}
	printf("# fact: %s: %d samples before the first THROTTLE\n", name,
	       first);
	for (r = 0; r < ROUNDS; r++) {
		printf("# %s round %d: %d samples, %d UNTHROTTLE\n", name, r,
		       samples[r], unthrottles[r]);
		if (samples[r] < min)
			min = samples[r];
	}
	snprintf(what, sizeof(what),
		 "%s: each of %d bursts at least %d samples (1 when left throttled): fewest %d",
		 name, ROUNDS, per_tick, min);
	check(min >= per_tick, what);
	snprintf(what, sizeof(what),
		 "%s: the %d-th overflow of a tick throttles: %d of %d runs %d long, the longest %d (< %d)",
		 name, per_tick, exact, nthrottle, per_tick, longest,
		 3 * per_tick);
	check(2 * exact > nthrottle && longest < 3 * per_tick, what);
	snprintf(what, sizeof(what),
		 "%s: THROTTLE and UNTHROTTLE records alternate, one sample after each THROTTLE (%d THROTTLE, %d UNTHROTTLE, %d out of turn)",
		 name, nthrottle, nunthrottle, bad);
	check(!bad && nthrottle >= ROUNDS && nunthrottle >= ROUNDS - 1 &&
	      nthrottle - nunthrottle <= 1, what);
	ring_unmap(pc);
out:
	if (fd >= 0)
		close(fd);
	if (use_partner) {
		close(to_partner[1]);
		close(from_partner[0]);
		waitpid(pid, NULL, 0);
	}
}

int main(void)
{
	cpu_set_t cpus;

	throttle_rate("1000");
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		check(0, "pinned to CPU 0");
		return 1;
	}
	run("partner", 1, "1000");
	run("usleep", 0, "1000");
	run("usleep at 250", 0, "250");
	return fails ? 1 : 0;
}
