// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-userpage: the self-monitoring control page (struct
 * perf_event_mmap_page) of a hardware counter on the TCG PMU model.
 *
 * - reset: instructions:u read by rdpmc the documented way (offset plus
 *   the sign-extended counter) counts one loop of 2N instructions after
 *   a PERF_EVENT_IOC_RESET that followed another: ~2N, not ~4N.
 * - time: where the TSC is constant (the Intel model's; sched_clock is
 *   then the TSC's, and stable), cap_user_time and
 *   cap_user_time_zero are set; a TSC read converted with time_zero,
 *   time_mult and time_shift is the perf clock (checked against
 *   CLOCK_MONOTONIC, which it follows within TIME_SLACK_NS), and
 *   time_enabled plus the converted time since the update (time_offset)
 *   is the time_enabled read() gives right after.
 * - pmi: a sampling instructions:u event (period PMI_PERIOD, its control
 *   page mapped) reloads its counter at every PMI; read by rdpmc the
 *   documented way right before and after a read(), after each of
 *   PMI_ROUNDS loops of many periods, the count brackets read()'s within
 *   SLACK (the offset moved with every reload), and with constant_tsc
 *   time_enabled plus the converted time since the update brackets
 *   read()'s time_enabled (times still extrapolate after the PMIs).
 *   Intel: the same at precise_ip 2 (PEBS; with a callchain, so one
 *   record a PMI, each drained before the next: the counter reloads
 *   itself from the record's reset value).
 * - dirty: counters that another task's events used and left are zero
 *   when this task, allowed rdpmc, reads them (as root, with the NMI
 *   watchdog off, so that no other event holds a counter).
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define N		100000
/* the ioctl's return and the read itself, in user mode */
#define SLACK		2000
#define TIME_SLACK_NS	20000000ULL
/* the pmi check: a period that does not divide the loops */
#define PMI_PERIOD	10007
#define PMI_ROUNDS	8
/* counters a first task takes and leaves */
#define DIRTY_EVENTS	3

/* n iterations of a dec/jnz loop: 2n instructions */
static void loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static uint64_t rdpmc(uint32_t idx)
{
	uint32_t a, d;

	asm volatile("rdpmc" : "=a"(a), "=d"(d) : "c"(idx));
	return ((uint64_t)d << 32) | a;
}

static uint64_t rdtsc(void)
{
	uint32_t a, d;

	asm volatile("rdtsc" : "=a"(a), "=d"(d));
	return ((uint64_t)d << 32) | a;
}

static int open_hw(__u64 config)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = config;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

static struct perf_event_mmap_page *map_page(int fd)
{
	void *p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		       fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* the count as the uapi header says to read it; *width its counter width */
static uint64_t self_read(volatile struct perf_event_mmap_page *pc,
			  int *width)
{
	uint32_t seq, idx;
	uint64_t count;
	int64_t pmc;

	do {
		seq = pc->lock;
		__sync_synchronize();
		idx = pc->index;
		count = pc->offset;
		*width = pc->pmc_width;
		if (pc->cap_user_rdpmc && idx) {
			pmc = rdpmc(idx - 1);
			pmc <<= 64 - *width;
			pmc >>= 64 - *width;
			count += pmc;
		}
		__sync_synchronize();
	} while (pc->lock != seq);
	return count;
}

static void test_reset(void)
{
	struct perf_event_mmap_page *pc;
	uint64_t v, mask;
	int fd, width;

	fd = open_hw(PERF_COUNT_HW_INSTRUCTIONS);
	pc = fd < 0 ? NULL : map_page(fd);
	if (!pc) {
		printf("not ok reset: open/mmap: %s\n", strerror(errno));
		fails++;
		return;
	}
	loop(N);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	loop(N);
	v = self_read(pc, &width);
	/* the counter's own bits are what rdpmc gives for sure */
	mask = width < 64 ? (1ULL << width) - 1 : ~0ULL;
	printf("reset: self-read %llu (%#llx), width %d\n",
	       (unsigned long long)v, (unsigned long long)v, width);
	v &= mask;
	check_val(v >= 2 * N && v <= 2 * N + SLACK,
	      "rdpmc read after RESET counts from the reset", v, 2 * N);
	munmap(pc, sysconf(_SC_PAGESIZE));
	close(fd);
}

/* ns from cyc by the control page's conversion, from @base */
static uint64_t cyc2ns(volatile struct perf_event_mmap_page *pc,
		       uint64_t base, uint64_t cyc)
{
	uint64_t quot = cyc >> pc->time_shift;
	uint64_t rem = cyc & ((1ULL << pc->time_shift) - 1);

	return base + quot * pc->time_mult +
	       ((rem * pc->time_mult) >> pc->time_shift);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* whether /proc/cpuinfo's flags say constant_tsc */
static int stable_tsc(void)
{
	char line[4096];
	int ok = 0;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		ok = strstr(line, " constant_tsc") != NULL;
		break;
	}
	fclose(f);
	return ok;
}

static void test_time(void)
{
	volatile struct perf_event_mmap_page *pc;
	uint64_t vals[3], t0, t1, clk, mono, est0, est1;
	uint32_t seq;
	int fd;

	fd = open_hw(PERF_COUNT_HW_INSTRUCTIONS);
	pc = fd < 0 ? NULL : map_page(fd);
	if (!pc) {
		printf("not ok time: open/mmap: %s\n", strerror(errno));
		fails++;
		return;
	}
	if (!stable_tsc()) {
		printf("ok # skip time: no constant_tsc\n");
		goto out;
	}
	check_val(pc->cap_user_time, "cap_user_time", pc->cap_user_time, 1);
	check_val(pc->cap_user_time_zero, "cap_user_time_zero",
	      pc->cap_user_time_zero, 1);
	printf("time_shift %u time_mult %u cap_user_time_short %d\n",
	       pc->time_shift, pc->time_mult, (int)pc->cap_user_time_short);
	if (!pc->cap_user_time || !pc->cap_user_time_zero)
		goto out;

	/* TSC to perf clock, beside CLOCK_MONOTONIC */
	do {
		seq = pc->lock;
		__sync_synchronize();
		mono = mono_ns();
		clk = cyc2ns(pc, pc->time_zero, rdtsc());
		__sync_synchronize();
	} while (pc->lock != seq);
	printf("perf clock %llu, CLOCK_MONOTONIC %llu\n",
	       (unsigned long long)clk, (unsigned long long)mono);
	check_val(llabs((long long)(clk - mono)) < TIME_SLACK_NS,
	      "TSC by time_zero is the perf clock (ns off CLOCK_MONOTONIC)",
	      (long long)(clk - mono), 0);

	/* time_enabled now, by the page, around a read() */
	loop(N);
	do {
		seq = pc->lock;
		__sync_synchronize();
		t0 = rdtsc();
		est0 = pc->index ? pc->time_enabled +
				   cyc2ns(pc, pc->time_offset, t0) : 0;
		__sync_synchronize();
	} while (pc->lock != seq);
	if (read(fd, vals, sizeof(vals)) != sizeof(vals))
		vals[1] = 0;
	do {
		seq = pc->lock;
		__sync_synchronize();
		t1 = rdtsc();
		est1 = pc->index ? pc->time_enabled +
				   cyc2ns(pc, pc->time_offset, t1) : 0;
		__sync_synchronize();
	} while (pc->lock != seq);
	printf("time_enabled: page %llu, read() %llu, page %llu\n",
	       (unsigned long long)est0, (unsigned long long)vals[1],
	       (unsigned long long)est1);
	check_val(est0 && est0 <= vals[1] + 1000 && vals[1] <= est1 + 1000,
	      "time_enabled + time since the update brackets read()'s",
	      (long long)(vals[1] - est0), 0);
out:
	munmap((void *)pc, sysconf(_SC_PAGESIZE));
	close(fd);
}

/* whether /proc/cpuinfo's vendor is Intel's (PEBS) */
static int intel_cpu(void)
{
	char line[4096];
	int intel = 0;
	FILE *f;

	f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "vendor_id", 9)) {
			intel = strstr(line, "GenuineIntel") != NULL;
			break;
		}
	}
	fclose(f);
	return intel;
}

/* time_enabled now, by the control page (0: not active, or no TSC time) */
static uint64_t page_enabled(volatile struct perf_event_mmap_page *pc)
{
	uint64_t est;
	uint32_t seq;

	do {
		seq = pc->lock;
		__sync_synchronize();
		est = pc->index && pc->cap_user_time ?
			pc->time_enabled + cyc2ns(pc, pc->time_offset, rdtsc()) :
			0;
		__sync_synchronize();
	} while (pc->lock != seq);
	return est;
}

static void test_pmi(int precise)
{
	volatile struct perf_event_mmap_page *pc;
	struct perf_event_attr attr;
	uint64_t vals[3], c0, c1, mask, e0, e1;
	int fd, width, r, bad = 0, bad_time = 0, tsc = stable_tsc();
	char what[112];

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.sample_period = PMI_PERIOD;
	attr.sample_type = PERF_SAMPLE_IP;
	if (precise) {
		attr.precise_ip = precise;
		attr.sample_type |= PERF_SAMPLE_CALLCHAIN;
		attr.exclude_callchain_kernel = 1;
	}
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	pc = fd < 0 ? NULL : map_page(fd);
	if (!pc) {
		printf("not ok pmi (precise %d): open/mmap: %s\n", precise,
		       strerror(errno));
		fails++;
		return;
	}
	for (r = 0; r < PMI_ROUNDS; r++) {
		/* about 20 periods: as many PMIs and reloads */
		loop(N);
		e0 = page_enabled(pc);
		c0 = self_read(pc, &width);
		if (read(fd, vals, sizeof(vals)) != sizeof(vals))
			vals[0] = vals[1] = 0;
		c1 = self_read(pc, &width);
		e1 = page_enabled(pc);
		mask = width < 64 ? (1ULL << width) - 1 : ~0ULL;
		printf("pmi (precise %d) round %d: rdpmc %llu, read() %llu, "
		       "rdpmc %llu; time_enabled page %llu, read() %llu, "
		       "page %llu\n", precise, r,
		       (unsigned long long)(c0 & mask),
		       (unsigned long long)(vals[0] & mask),
		       (unsigned long long)(c1 & mask),
		       (unsigned long long)e0, (unsigned long long)vals[1],
		       (unsigned long long)e1);
		if (((vals[0] - c0) & mask) > SLACK ||
		    ((c1 - vals[0]) & mask) > SLACK || vals[0] < 2 * N)
			bad++;
		if (tsc && !(e0 && e0 <= vals[1] + 1000 && vals[1] <= e1 + 1000))
			bad_time++;
	}
	snprintf(what, sizeof(what),
		 "rounds where rdpmc's count brackets read()'s (period %d, precise %d)",
		 PMI_PERIOD, precise);
	check_val(!bad, what, PMI_ROUNDS - bad, PMI_ROUNDS);
	snprintf(what, sizeof(what),
		 "rounds where the page's time_enabled brackets read()'s (precise %d)",
		 precise);
	if (tsc)
		check_val(!bad_time, what, PMI_ROUNDS - bad_time, PMI_ROUNDS);
	else
		printf("ok # skip pmi time (precise %d): no constant_tsc\n",
		       precise);
	munmap((void *)pc, sysconf(_SC_PAGESIZE));
	close(fd);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void test_dirty(void)
{
	volatile struct perf_event_mmap_page *pc;
	int fd, i, status, own, used;
	FILE *f;
	pid_t pid;

	f = fopen("/proc/sys/kernel/nmi_watchdog", "w");
	if (f) {
		fputs("0\n", f);
		fclose(f);
	}
	if (pin(0)) {
		printf("not ok dirty: sched_setaffinity: %s\n",
		       strerror(errno));
		fails++;
		return;
	}
	/*
	 * A first task counts on DIRTY_EVENTS general counters, then exits
	 * with the mask of their indices (from its control pages).
	 */
	pid = fork();
	if (pid == 0) {
		int mask = 0;

		for (i = 0; i < DIRTY_EVENTS; i++) {
			fd = open_hw(PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
			pc = fd < 0 ? NULL : map_page(fd);
			if (!pc || !pc->index || pc->index > 8)
				_exit(0);
			mask |= 1 << (pc->index - 1);
		}
		loop(N);
		_exit(mask);
	}
	waitpid(pid, &status, 0);
	used = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
	printf("first task's general counters: mask %#x\n", used);
	check_val(__builtin_popcount(used) == DIRTY_EVENTS,
	      "general counters the first task counted on",
	      __builtin_popcount(used), DIRTY_EVENTS);

	/* this one maps another event: rdpmc may read every counter */
	fd = open_hw(PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	pc = fd < 0 ? NULL : map_page(fd);
	if (!pc || !pc->index) {
		printf("not ok dirty: open/mmap/index: %s\n", strerror(errno));
		fails++;
		return;
	}
	own = pc->index - 1;
	for (i = 0; i < 8; i++) {
		char what[64];
		uint64_t v;

		if (!(used & (1 << i)) || i == own)
			continue;
		v = rdpmc(i);
		snprintf(what, sizeof(what),
			 "general counter %d, left by the first task", i);
		check_val(v == 0, what, v, 0);
	}
	munmap((void *)pc, sysconf(_SC_PAGESIZE));
	close(fd);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	test_reset();
	test_time();
	test_pmi(0);
	if (intel_cpu())
		test_pmi(2);
	test_dirty();
	return fails ? 1 : 0;
}
