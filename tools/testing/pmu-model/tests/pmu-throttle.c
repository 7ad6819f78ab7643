// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-throttle: a throttled hardware event samples again once its task
 * is back on the CPU, as in 6.12, which restarts a throttled event at
 * the next tick of its CPU while it is on the PMU and else when it is
 * scheduled in again.
 *
 * Root, pinned to CPU 0, at perf_event_max_sample_rate 1000 with the
 * kernel's lowering of it off (perf_cpu_time_max_percent 0): at HZ 250
 * the limit is 4 a tick; 6.12's fourth overflow in a tick throttles the
 * event (a THROTTLE record; that sample is still written). cycles:u at
 * period 20000 (10000 instructions on the model) samples ROUNDS bursts
 * of 1M user instructions (1 ms of the model's virtual time, 100
 * periods) and blocks after each:
 * - "partner": on a pipe, while a partner process on the same CPU spins
 *   for 10M instructions, so that ticks come while another task runs
 *   (the tick cannot restart an event that is off its PMU);
 * - "usleep": in usleep(10000), the CPU idle meanwhile.
 * Every burst, begun unthrottled, takes the samples of its tick (4 with
 * the one that throttles it; 5 on a kernel that throttles at the fifth)
 * and is throttled; a tick within it (a burst spans at most one) lets
 * it take as many again. So each burst has 4 to 10 samples (11: the last
 * of the previous burst's run may land after its count was taken), where
 * an event left throttled takes one sample a burst (its overflow stops
 * it again). The records alternate, THROTTLE first, and a THROTTLE is
 * followed by exactly one sample (its own) until the next UNTHROTTLE.
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
#define RATE		"1000"
#define PER_TICK	4		/* DIV_ROUND_UP(1000, HZ 250) */

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

static void run(const char *name, int use_partner)
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
	int nthrottle = 0, nunthrottle = 0, after = 0, bad = 0;
	int min = 1 << 30, max = 0, throttled = 0, first = -1, fd, r;
	struct perf_event_mmap_page *pc;
	uint64_t heads[ROUNDS];
	unsigned char *data;
	char what[256];
	pid_t pid = -1;

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
				break;
			case PERF_RECORD_THROTTLE:
				if (!nthrottle++)
					first = samples[0];
				if (throttled)
					bad++;
				throttled = 1;
				after = 0;
				break;
			case PERF_RECORD_UNTHROTTLE:
				nunthrottle++;
				unthrottles[r]++;
				if (!throttled)
					bad++;
				throttled = 0;
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
		if (samples[r] > max)
			max = samples[r];
	}
	snprintf(what, sizeof(what),
		 "%s: each of %d bursts %d to %d samples (1 when left throttled): %d to %d",
		 name, ROUNDS, PER_TICK, 2 * (PER_TICK + 1) + 1, min, max);
	check(min >= PER_TICK && max <= 2 * (PER_TICK + 1) + 1, what);
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

	throttle_rate(RATE);
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus)) {
		check(0, "pinned to CPU 0");
		return 1;
	}
	run("partner", 1);
	run("usleep", 0);
	return fails ? 1 : 0;
}
