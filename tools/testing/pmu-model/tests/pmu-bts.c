// SPDX-License-Identifier: GPL-2.0
/*
 * The branch trace store behind a branch-instructions event with a
 * period of 1 (0021): what gdb's "record btrace bts" opens. Each taken
 * user branch is a sample {ip = from, addr = to}, exactly: a loop of N
 * iterations gives N - 1 samples from its jnz to its dec; the returns
 * from the kernel are left out, the count stays 0, the control page
 * says index 1. As 6.12: user only (EOPNOTSUPP otherwise), no precise,
 * two on a task take turns, a branch stack event beside is no bother,
 * a new period makes it a counter's event (period 1 again: EINVAL); the samples of a task that
 * another traces, across its switches and sleeps. On AMD (no BTS) it is
 * an ordinary counter's event.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "perf_sys.h"
#include "pmu-bts.h"
#include "pmu-check.h"
#include "pmu-ring.h"
#include "pmu-unthrottle.h"

#define LOOPS	5000

static void bts_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_HARDWARE;
	attr->config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	attr->sample_period = 1;
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->exclude_idle = 1;
	attr->disabled = 1;
}

struct tally {
	long samples, loop, kernel_from, kernel_to, other;
};

static void tally(struct perf_event_mmap_page *pc, unsigned char *data,
		  struct tally *t)
{
	struct ring_iter it;
	uint64_t *s;

	memset(t, 0, sizeof(*t));
	ring_iter_start(&it, pc, data);
	while ((s = ring_next_sample(&it))) {
		t->samples++;
		if (s[0] == (uintptr_t)bts_loop_jnz &&
		    s[1] == (uintptr_t)bts_loop_dec)
			t->loop++;
		else if ((int64_t)s[0] < 0)
			t->kernel_from++;
		else if ((int64_t)s[1] < 0)
			t->kernel_to++;
		else
			t->other++;
	}
}

/* the rules of opening one: 6.12's errnos */
static void open_rules(void)
{
	struct perf_event_attr attr;
	int err;

	bts_attr(&attr);
	err = open_errno(&attr, 0, -1);
	check_val(!err, "user-only BTS event opens", err, 0);

	bts_attr(&attr);
	attr.exclude_kernel = 0;
	err = open_errno(&attr, 0, -1);
	check_val(err == EOPNOTSUPP, "kernel and user: EOPNOTSUPP", err,
		  EOPNOTSUPP);

	bts_attr(&attr);
	attr.exclude_kernel = 0;
	attr.exclude_user = 1;
	err = open_errno(&attr, 0, -1);
	check_val(err == EOPNOTSUPP, "kernel only: EOPNOTSUPP", err,
		  EOPNOTSUPP);

	bts_attr(&attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = 0xc4;
	err = open_errno(&attr, 0, -1);
	check_val(!err, "raw 0xc4 opens", err, 0);

	bts_attr(&attr);
	attr.precise_ip = 1;
	err = open_errno(&attr, 0, -1);
	check_val(err == EOPNOTSUPP, "precise: EOPNOTSUPP", err, EOPNOTSUPP);

	bts_attr(&attr);
	attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	err = open_errno(&attr, 0, -1);
	check_val(!err, "with a branch stack: opens", err, 0);

	bts_attr(&attr);
	err = open_errno(&attr, -1, 0);
	check_val(!err, "a CPU event opens", err, 0);
}

/* the samples in a ring that ring_map() mapped */
static long ring_count(struct perf_event_mmap_page *pc, unsigned char *data)
{
	struct ring_iter it;
	long n = 0;

	if (!data)
		return -1;
	ring_iter_start(&it, pc, data);
	while (ring_next_sample(&it))
		n++;
	return n;
}

/*
 * Two at once on one task: one pseudo counter, so they take turns (the
 * second waits while the first is on); with an LBR event beside; and
 * what PERF_EVENT_IOC_PERIOD may change
 */
static void two_events(void)
{
	struct perf_event_mmap_page *pa, *pb;
	struct perf_event_attr attr, lbr;
	struct perf_event_attr cyc;
	unsigned char *da, *db;
	uint64_t v[3], period;
	int a, b, c, err;
	struct tally t;

	bts_attr(&attr);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	a = sys_perf_event_open(&attr, 0, -1, -1, 0);
	b = sys_perf_event_open(&attr, 0, -1, -1, 0);
	check(a >= 0 && b >= 0, "two BTS events on one task open");
	if (a < 0 || b < 0)
		return;
	da = ring_map(a, &pa);
	db = ring_map(b, &pb);
	ioctl(a, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(b, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(LOOPS);
	ioctl(b, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(a, PERF_EVENT_IOC_DISABLE, 0);
	if (read(a, v, sizeof(v)) == sizeof(v))
		check_val(v[0] == 0, "a BTS event's count stays 0", v[0], 0);
	if (da && db) {
		long first;

		/* they take turns at the pseudo counter (multiplexing) */
		tally(pa, da, &t);
		first = t.loop;
		tally(pb, db, &t);
		printf("# the first has %ld of the loop's branches, the second "
		       "%ld\n", first, t.loop);
		check_val(first + t.loop == LOOPS - 1, "the two have the "
			  "loop's branches between them", first + t.loop,
			  LOOPS - 1);
		ring_unmap(pa);
		ring_unmap(pb);
	}
	/* 6.12 refuses every period that would make it BTS, its own too */
	period = 1;
	err = ioctl(a, PERF_EVENT_IOC_PERIOD, &period) ? errno : 0;
	check_val(err == EINVAL, "a BTS event to period 1 again: EINVAL", err,
		  EINVAL);
	period = 2;
	err = ioctl(a, PERF_EVENT_IOC_PERIOD, &period) ? errno : 0;
	check_val(!err, "a BTS event may take period 2", err, 0);
	if (!err) {
		long n;

		da = ring_map(a, &pa);
		ioctl(a, PERF_EVENT_IOC_ENABLE, 0);
		bts_loop(LOOPS);
		ioctl(a, PERF_EVENT_IOC_DISABLE, 0);
		n = ring_count(pa, da);
		/* a counter's samples now, throttled (6.12 reschedules it) */
		check_val(n > 0 && n < LOOPS / 2, "a BTS event at period 2 "
			  "samples on a counter", n, LOOPS / 2);
		if (da)
			ring_unmap(pa);
	}
	close(b);
	close(a);

	memset(&cyc, 0, sizeof(cyc));
	cyc.size = sizeof(cyc);
	cyc.type = PERF_TYPE_HARDWARE;
	cyc.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	cyc.sample_period = 2;
	cyc.exclude_kernel = 1;
	c = sys_perf_event_open(&cyc, 0, -1, -1, 0);
	period = 1;
	err = c >= 0 && ioctl(c, PERF_EVENT_IOC_PERIOD, &period) ? errno : 0;
	check_val(err == EINVAL, "a branches event to period 1: EINVAL", err,
		  EINVAL);
	if (c >= 0)
		close(c);

	bts_attr(&attr);
	memset(&lbr, 0, sizeof(lbr));
	lbr.size = sizeof(lbr);
	lbr.type = PERF_TYPE_HARDWARE;
	lbr.config = PERF_COUNT_HW_CPU_CYCLES;
	lbr.sample_period = 1000;
	lbr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	lbr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	lbr.exclude_kernel = 1;
	lbr.read_format = attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	lbr.disabled = 1;
	for (int order = 0; order < 3; order++) {
		static const char *const orders[] = {
			"LBR enabled first", "BTS enabled first",
			"LBR disabled",
		};
		char what[160];
		long n, m;

		c = sys_perf_event_open(&lbr, 0, -1, -1, 0);
		a = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (a < 0 || c < 0) {
			printf("not ok open LBR and BTS: %s\n", strerror(errno));
			fails++;
			return;
		}
		da = ring_map(a, &pa);
		db = ring_map(c, &pb);
		if (order == 0) {
			ioctl(c, PERF_EVENT_IOC_ENABLE, 0);
			ioctl(a, PERF_EVENT_IOC_ENABLE, 0);
		} else if (order == 1) {
			ioctl(a, PERF_EVENT_IOC_ENABLE, 0);
			ioctl(c, PERF_EVENT_IOC_ENABLE, 0);
		} else {
			ioctl(a, PERF_EVENT_IOC_ENABLE, 0);
		}
		bts_loop(LOOPS);
		ioctl(a, PERF_EVENT_IOC_DISABLE, 0);
		ioctl(c, PERF_EVENT_IOC_DISABLE, 0);
		if (da)
			tally(pa, da, &t);
		n = da ? t.loop : -1;
		m = ring_count(pb, db);
		snprintf(what, sizeof(what), "%s: BTS has the loop's branches, "
			 "the cycles event (LBR) its %d samples", orders[order],
			 order < 2 ? 20 : 0);
		check_val(n == LOOPS - 1 && m == (order < 2 ? 20 : 0), what, m,
			  order < 2 ? 20 : 0);
		if (da)
			ring_unmap(pa);
		if (db)
			ring_unmap(pb);
		close(a);
		close(c);
	}
}

/* the samples of the loop, traced by the task itself */
static void self_trace(unsigned long long sample_type)
{
	struct perf_event_mmap_page *pc;
	struct perf_event_attr attr;
	unsigned char *data;
	struct tally t;
	uint64_t count = 0;
	char what[160];
	int fd;

	bts_attr(&attr);
	attr.sample_type = sample_type;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("not ok open: %s\n", strerror(errno));
		fails++;
		return;
	}
	data = ring_map(fd, &pc);
	if (!data) {
		printf("not ok mmap: %s\n", strerror(errno));
		fails++;
		close(fd);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(LOOPS);
	/* 6.12 says rdpmc index 1, for no counter of its own */
	check_val(pc->index == 1 && pc->cap_user_rdpmc,
		  "control page: index 1, cap_user_rdpmc", pc->index, 1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -1;
	if (sample_type == (PERF_SAMPLE_IP | PERF_SAMPLE_ADDR)) {
		tally(pc, data, &t);
		snprintf(what, sizeof(what),
			 "self: the loop's %d taken branches, each a sample "
			 "from its jnz to its dec", LOOPS - 1);
		check_val(t.loop == LOOPS - 1, what, t.loop, LOOPS - 1);
		printf("# %ld samples: %ld kernel from, %ld kernel to, %ld "
		       "other; count %llu\n", t.samples, t.kernel_from,
		       t.kernel_to, t.other, (unsigned long long)count);
		check(!t.kernel_to && !t.kernel_from,
		      "no sample comes from or goes into the kernel");
		check_val(!count, "the count stays 0", count, 0);
	} else {
		/* ip, pid/tid, addr, cpu, period */
		uint64_t tid = (uint64_t)getpid() | (uint64_t)getpid() << 32;
		struct ring_iter it;
		long loop = 0, bad = 0;
		uint64_t *s;

		ring_iter_start(&it, pc, data);
		while ((s = ring_next_sample(&it))) {
			if (s[1] != tid || s[3] != 0 || s[4] != 1)
				bad++;
			if (s[0] == (uintptr_t)bts_loop_jnz &&
			    s[2] == (uintptr_t)bts_loop_dec)
				loop++;
		}
		check_val(loop == LOOPS - 1, "ip, tid, addr, cpu, period: the "
			  "loop's branches", loop, LOOPS - 1);
		check_val(!bad, "... each with the task's pid/tid, CPU 0 and "
			  "period 1", bad, 0);
	}
	ring_unmap(pc);
	close(fd);
}

/* a child traced by its parent: switches and its exit drain it */
static void child_trace(void)
{
	struct perf_event_mmap_page *pc;
	struct perf_event_attr attr;
	unsigned char *data;
	struct tally t;
	int go[2], status, fd;
	pid_t pid;
	char c;

	if (pipe(go))
		return;
	pid = fork();
	if (pid == 0) {
		int i;

		if (read(go[0], &c, 1) != 1)
			_exit(1);
		for (i = 0; i < 4; i++) {
			bts_loop(LOOPS);
			sched_yield();
			usleep(1000);
		}
		_exit(0);
	}
	bts_attr(&attr);
	attr.disabled = 0;
	fd = sys_perf_event_open(&attr, pid, -1, -1, 0);
	data = fd >= 0 ? ring_map(fd, &pc) : NULL;
	if (write(go[1], "g", 1) != 1 || !data) {
		printf("not ok open/mmap: %s\n", strerror(errno));
		fails++;
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		return;
	}
	waitpid(pid, &status, 0);
	tally(pc, data, &t);
	check_val(t.loop == 4 * (LOOPS - 1),
		  "child: four loops' taken branches across its sleeps",
		  t.loop, 4 * (LOOPS - 1));
	check(!t.kernel_to && !t.kernel_from,
	      "child: no sample comes from or goes into the kernel");
	printf("# child: %ld samples, %ld other\n", t.samples, t.other);
	ring_unmap(pc);
	close(fd);
}

int main(void)
{
	cpu_set_t set;

	if (!cpu_is_intel()) {
		struct perf_event_attr attr;
		int err;

		/* no BTS: 6.12 counts branches on a counter */
		bts_attr(&attr);
		err = open_errno(&attr, 0, -1);
		check_val(!err, "amd: a counter's event, no BTS", err, 0);
		return fails ? 1 : 0;
	}
	/* a drain of thousands of records: no rate lowered for later tests */
	unthrottle();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	open_rules();
	two_events();
	self_trace(PERF_SAMPLE_IP | PERF_SAMPLE_ADDR);
	self_trace(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR |
		   PERF_SAMPLE_PERIOD | PERF_SAMPLE_CPU);
	child_trace();
	return fails ? 1 : 0;
}
