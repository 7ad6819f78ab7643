/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cache tests' sweeps (pmu-dcache, pmu-icx-cache, pmu-spr-cache): a
 * group of NEV counting events read around a sweep of n and of 2n
 * accesses, whose difference must be the expected count per extra access
 * exactly.
 *
 * Both measurements of a pair start from the same state: each is
 * preceded by an unmeasured sweep of 2n, which leaves the same lines and
 * pages in every level whatever ran before (a failed try's printf, the
 * other measurement). Without it, the user code around the sweep (the
 * reads, the loop) hit or missed in the DTLB and L1D depending on which
 * sets the kernel's own accesses in between had used: a kernel built
 * with another layout gave the n measurement one or two misses fewer
 * than the 2n one in every try, even under icount.
 *
 * The model runs at every CPL, so an interrupt or a preemption inside a
 * measurement (between the two reads) lets kernel code evict the page the
 * sweep is on from the first-level DTLB, or a line the user code around
 * the sweep would have hit, from the L1D: one or two misses more in that
 * measurement (the model's levels are true LRU: accesses put in between
 * only push a line further from the front). Seldom one fewer: a page the
 * kernel itself touched for the task on the way back (rseq's update after
 * a preemption) is then found in the DTLB. So every event's count over n,
 * and over 2n, is the smallest of up to TRIES measurements, and a case
 * passes when those minima differ by the expected count (or when one
 * try's pair does). The task is pinned to the CPU it starts on: the model
 * has a cache per CPU, and a migration to a CPU whose cache still holds
 * lines of the task would take misses away.
 * Needs pmu-check.h; sweep_run_cases() maps and writes the buffer.
 */
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#define LINE		64
#define PAGE		4096
#define LINES		8192		/* n of a line sweep: 128 pages */
#define PAGES		4096		/* n of a page sweep: 16 MiB */
#define BUF_SIZE	(2UL * PAGES * PAGE)
#define NEV		4
#define TRIES		8

#define HWC(c, op, res)	(PERF_COUNT_HW_CACHE_##c | \
			 (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
			 (PERF_COUNT_HW_CACHE_RESULT_##res << 16))

struct ev {
	const char *name;
	uint32_t type;
	uint64_t config;
};

/* what one case counts, and per event the count per extra access */
struct sweep_case {
	const char *name;
	long stride;
	long n;
	int store;
	struct ev ev[NEV];
	/* expected difference per extra line or page, in 1/64 for pages */
	long per64[NEV];
	/* instead of the sweep: @n of something else */
	void (*work)(long n);
};

static char *buf;

/* one load (or store) every @stride bytes from @p, @n times */
static void __attribute__((noinline)) sweep(char *p, long n, long stride,
					    int store)
{
	if (!n)
		return;
	if (store)
		asm volatile("1:	mov %%rax, (%0)\n"
			     "	add %2, %0\n"
			     "	dec %1\n"
			     "	jnz 1b\n"
			     : "+r"(p), "+r"(n) : "r"(stride) : "rax", "memory");
	else
		asm volatile("1:	mov (%0), %%rax\n"
			     "	add %2, %0\n"
			     "	dec %1\n"
			     "	jnz 1b\n"
			     : "+r"(p), "+r"(n) : "r"(stride) : "rax", "memory");
}

static void sweep_work(const struct sweep_case *c, long n)
{
	if (c->work)
		c->work(n);
	else
		sweep(buf, n, c->stride, c->store);
}

static int sweep_open_group(const struct sweep_case *c, int *fds)
{
	int i;

	for (i = 0; i < NEV; i++) {
		struct perf_event_attr a;

		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = c->ev[i].type;
		a.config = c->ev[i].config;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_GROUP |
				PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[i] = sys_perf_event_open(&a, 0, -1,
				 i ? fds[0] : -1, 0);
		if (fds[i] < 0) {
			printf("not ok %s: open %s: %s\n", c->name,
			       c->ev[i].name, strerror(errno));
			fails++;
			while (i--)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}

struct sweep_read {
	uint64_t nr, enabled, running;
	uint64_t val[NEV];
};

/* the expected difference of event @i between the sweeps of n and 2n */
static long sweep_want(const struct sweep_case *c, int i)
{
	return c->n * c->per64[i] / 64;
}

/* the counts over one sweep of @n; 0 if the group was not on throughout */
static int sweep_measure(const struct sweep_case *c, int fd, long n,
			 int64_t *d)
{
	struct sweep_read r0, r1;
	int i;

	/* the same state before each measurement (see the head) */
	sweep_work(c, 2 * c->n);
	if (read(fd, &r0, sizeof(r0)) != sizeof(r0))
		return 0;
	sweep_work(c, n);
	if (read(fd, &r1, sizeof(r1)) != sizeof(r1))
		return 0;
	for (i = 0; i < NEV; i++)
		d[i] = r1.val[i] - r0.val[i];
	return r1.enabled == r1.running;
}

static void sweep_run_case(const struct sweep_case *c)
{
	int64_t d1[TRIES][NEV], d2[TRIES][NEV], m1[NEV], m2[NEV], got[NEV];
	int fds[NEV], i, t, k, ok = 0, seen = 0, on[TRIES];
	char what[200];

	if (sweep_open_group(c, fds))
		return;
	for (t = 0; t < TRIES && !ok; t++) {
		int pair = 1, mins = 1;

		on[t] = sweep_measure(c, fds[0], c->n, d1[t]);
		on[t] &= sweep_measure(c, fds[0], 2 * c->n, d2[t]);
		if (!on[t])
			continue;
		for (i = 0; i < NEV; i++) {
			m1[i] = seen && m1[i] < d1[t][i] ? m1[i] : d1[t][i];
			m2[i] = seen && m2[i] < d2[t][i] ? m2[i] : d2[t][i];
			pair &= d2[t][i] - d1[t][i] == sweep_want(c, i);
			mins &= m2[i] - m1[i] == sweep_want(c, i);
		}
		seen = 1;
		ok = pair || mins;
		for (i = 0; i < NEV; i++)
			got[i] = pair ? d2[t][i] - d1[t][i] : m2[i] - m1[i];
	}
	/* the failed tries' counts, printed after them, not in between */
	for (k = 0; k < t - ok; k++) {
		if (!on[k])
			continue;
		printf("# %s try %d:", c->name, k + 1);
		for (i = 0; i < NEV; i++)
			printf(" %lld/%lld", (long long)d1[k][i],
			       (long long)d2[k][i]);
		printf("\n");
	}
	for (i = 0; i < NEV; i++) {
		snprintf(what, sizeof(what), "%s: %s over %ld more (try %d)",
			 c->name, c->ev[i].name, c->n, t);
		check_val(seen && got[i] == sweep_want(c, i), what,
			  seen ? got[i] : -1, sweep_want(c, i));
	}
	for (i = 0; i < NEV; i++)
		close(fds[i]);
}

/*
 * Map and write the buffer (no fault inside a measurement), run every
 * case up to the one without a name; the test's exit status: 0, 1 on a
 * failed check, 2 without a buffer
 */
static int sweep_run_cases(const struct sweep_case *cases)
{
	const struct sweep_case *c;
	cpu_set_t set;

	buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(buf, 1, BUF_SIZE);
	/* pinned already (to the CPU whose registers a test reads back)? */
	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) != 1) {
		CPU_ZERO(&set);
		CPU_SET(sched_getcpu(), &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			perror("sched_setaffinity");
	}
	for (c = cases; c->name; c++)
		sweep_run_case(c);
	printf("%s\n", fails ? "FAIL" : "PASS");
	return fails ? 1 : 0;
}
