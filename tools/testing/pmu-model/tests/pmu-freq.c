// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-freq: the first period of a frequency-mode event (attr.freq), as
 * 6.12 gives it on the model.
 *
 * On Intel the driver starts from a guess of the event's rate R (events
 * a second): the first period is ceil(R / freq) - 1, with R 5e8 for
 * cycles, instructions, bus-cycles and ref-cycles, 1.25e8 for the branch
 * events, 2.5e7 for cache-references, cache-misses and every HW_CACHE
 * event, 256000 for a raw event. On AMD it is 1 (the hardware writes 2:
 * the first sample comes after two events).
 *
 * Each case opens one event (user only, disabled), enables it, runs a
 * loop of 2 user instructions per iteration (one a branch) and reads
 * its first sample: with PERF_SAMPLE_READ, the count at the first
 * sample, exactly the first period for the events the model counts
 * exactly and samples without skid (instructions, branches); and
 * PERF_SAMPLE_PERIOD, the period after it: the adjustment at the
 * overflows starts from the second, so it is still the first period,
 * unless a tick came before the first overflow (its adjustment then
 * takes at most an eighth off, on either kernel). Root: the sample
 * rate limit is lifted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-check.h"
#include "pmu-ring.h"
#include "pmu-unthrottle.h"

struct freq_case {
	const char *name;
	uint32_t type;
	uint64_t config;
	uint64_t freq;
	uint64_t rate;		/* Intel's guess; 0: the event need not count */
	int exact;		/* the count at the first sample is exact */
};

static void loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

/* the first sample of @c: its period and the count read with it */
static int first_sample(const struct freq_case *c, uint64_t *period,
			uint64_t *count)
{
	struct perf_event_attr a;
	struct perf_event_mmap_page *pc;
	struct ring_iter it;
	unsigned char *data;
	uint64_t *s;
	int fd;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = c->type;
	a.config = c->config;
	a.freq = 1;
	a.sample_freq = c->freq;
	a.sample_type = PERF_SAMPLE_PERIOD | PERF_SAMPLE_READ;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.disabled = 1;
	fd = sys_perf_event_open(&a, 0, -1, -1, 0);
	if (fd < 0)
		return -errno;
	data = ring_map(fd, &pc);
	if (!data) {
		close(fd);
		return -errno;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop(20000000);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_iter_start(&it, pc, data);
	s = ring_next_sample(&it);
	if (s) {
		*period = s[0];
		*count = s[1];
	}
	ring_unmap(pc);
	close(fd);
	return s ? 0 : -ENODATA;
}

int main(void)
{
	static const struct freq_case cases[] = {
		{ "instructions f=1000", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_INSTRUCTIONS, 1000, 500000000, 1 },
		{ "instructions f=777", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_INSTRUCTIONS, 777, 500000000, 1 },
		{ "instructions f=4000", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_INSTRUCTIONS, 4000, 500000000, 1 },
		{ "cycles f=1000", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_CPU_CYCLES, 1000, 500000000, 0 },
		{ "branch-instructions f=1000", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1000, 125000000, 1 },
		{ "cache-references f=10000", PERF_TYPE_HARDWARE,
		  PERF_COUNT_HW_CACHE_REFERENCES, 10000, 25000000, 0 },
		{ "raw 0xc0 f=1000", PERF_TYPE_RAW, 0x00c0, 1000, 256000, 1 },
		{ "raw 0xc0 f=12345", PERF_TYPE_RAW, 0x00c0, 12345, 256000, 1 },
	};
	int intel = cpu_is_intel();
	char what[160];
	unsigned int i;

	unthrottle();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct freq_case *c = &cases[i];
		uint64_t want = intel ? (c->rate - 1) / c->freq : 1;
		uint64_t period = 0, count = 0;
		int err = first_sample(c, &period, &count);

		snprintf(what, sizeof(what), "%s: a first sample", c->name);
		check(!err, what);
		if (err)
			continue;
		snprintf(what, sizeof(what), "%s: first period, or up to an eighth less",
			 c->name);
		check_val(period <= want && period >= want - want / 8 - 1,
			  what, period, want);
		if (!c->exact)
			continue;
		/* the hardware's first start is at least 2 events away */
		if (want < 2)
			want = 2;
		snprintf(what, sizeof(what), "%s: count at the first sample",
			 c->name);
		check_val(count == want, what, count, want);
	}
	return fails ? 1 : 0;
}
