// SPDX-License-Identifier: GPL-2.0
/*
 * An event opened on a task goes into that task's context, even while the
 * task forks. A task T with an inherited event vforks over and over: each
 * fork makes the child's context a clone of T's, and the switch to the
 * child (at once, since T waits for it) may hand T's context to the child
 * (Documentation/perf-core/ctx-swap.rst). Meanwhile T's parent opens a
 * page-fault counter on T, reads it once T has vforked twice more, and
 * closes it. The children fault in many fresh pages, T hardly any: a
 * count above T's own faults means the event counted a child.
 *
 * T's own faults over each window are known from /proc/T/stat (minflt
 * and majflt count every fault T completes, user or kernel; the event
 * counts only the user ones, and a fault that had to be retried is a major
 * one), so the check is exact up to a small slack. The opener runs on
 * another CPU where there is one: the race needs it to run beside T.
 */
#include "perf_test.h"

#define CHILD_PAGES	32
#define MAX_OPENS	3000
#define RUN_NS		(20ULL * 1000000000ULL)
#define SLACK		4

/* between T and the opener, read and written with __atomic builtins */
struct shared {
	unsigned long iters;	/* vforks of T done */
	int stop;
	int ready;
};

#define LOAD(x)		__atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* the vfork child: only syscalls, then _exit (it runs on T's stack) */
static void child_faults(void)
{
	char *p = pt_map_pages(CHILD_PAGES);

	if (!p)
		_exit(1);
	pt_touch(p, CHILD_PAGES);
	pt_unmap_pages(p, CHILD_PAGES);
	_exit(0);
}

/* T: an inherited event of its own, then vfork until told to stop */
static void vforker(struct shared *sh, int cpu)
{
	struct perf_event_attr attr;
	pid_t pid;
	int fd;

	/* a failed check must not leave T forking for the rest of the run */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() == 1)
		_exit(2);
	if (cpu >= 0 && pt_pin_cpu(0, cpu))
		_exit(2);
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		_exit(3);
	STORE(sh->ready, 1);
	while (!LOAD(sh->stop)) {
		pid = vfork();
		if (pid < 0)
			_exit(4);
		if (pid == 0)
			child_faults();
		if (waitpid(pid, NULL, 0) != pid)
			_exit(5);
		__atomic_add_fetch(&sh->iters, 1, __ATOMIC_SEQ_CST);
	}
	close(fd);
	_exit(0);
}

/* minflt + majflt of @pid (fields 10 and 12 of /proc/pid/stat), or -1 */
static long long task_faults(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long minflt, majflt;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (pt_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	/* comm may hold spaces: the fields after it follow the last ')' */
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	/* state is field 3 */
	if (sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %*u %llu %*u %llu",
		   &minflt, &majflt) != 2)
		return -1;
	return minflt + majflt;
}

/* wait until T has gone through @n more vforks since @from */
static int wait_iters(struct shared *sh, unsigned long from, unsigned long n)
{
	__u64 end = pt_now_ns() + 5000000000ULL;

	while (LOAD(sh->iters) < from + n) {
		if (pt_now_ns() > end)
			return -1;
		sched_yield();
	}
	return 0;
}

FIXTURE(install) {
};

FIXTURE_SETUP(install)
{
}

FIXTURE_TEARDOWN(install)
{
}

/* hundreds of opens in RUN_NS, slower under TCG: more than the default */
TEST_F_TIMEOUT(install, event_opened_on_a_vforking_task_counts_that_task_only,
	       70)
{
	struct perf_event_attr attr;
	struct shared *sh;
	long long f0, f1;
	int opens, bad = 0, fd, cpu;
	__u64 v, worst = 0, end;
	pid_t t;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	/* T and its children on one CPU, so each vfork switches T to the child */
	cpu = pt_nth_cpu(0);
	t = fork();
	ASSERT_LE(0, t);
	if (t == 0)
		vforker(sh, cpu);
	/* the opener elsewhere if there is another CPU: a real race */
	if (pt_nth_cpu(1) >= 0)
		pt_pin_cpu(0, pt_nth_cpu(1));
	while (!LOAD(sh->ready))
		sched_yield();
	ASSERT_EQ(0, wait_iters(sh, 0, 4));

	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	end = pt_now_ns() + RUN_NS;
	for (opens = 0; opens < MAX_OPENS; opens++) {
		unsigned long it, it_read;

		/* the window is short; ten misses are proof enough */
		if (pt_now_ns() > end || bad >= 10)
			break;
		f0 = task_faults(t);
		it = LOAD(sh->iters);
		fd = sys_perf_event_open(&attr, t, -1, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd)
			TH_LOG("open %d on T: %s", opens, strerror(errno));
		/* one whole vfork after the open, with its child's faults */
		if (wait_iters(sh, it, 2)) {
			close(fd);
			ASSERT_TRUE(0) TH_LOG("T stopped forking");
		}
		v = pt_read1(fd);
		it_read = LOAD(sh->iters);
		f1 = task_faults(t);
		close(fd);
		ASSERT_LE(0, f0);
		ASSERT_LE(f0, f1);
		ASSERT_NE(~0ULL, v);
		if (v > (__u64)(f1 - f0) + SLACK) {
			if (bad < 5)
				TH_LOG("open %d: %llu faults counted, T made %lld, in T's vforks %lu to %lu",
				       opens, (unsigned long long)v, f1 - f0,
				       it, it_read);
			bad++;
			if (v > worst)
				worst = v;
		}
	}
	STORE(sh->stop, 1);
	EXPECT_EQ(0, pt_wait_exit(t));
	TH_LOG("%d opens, %lu vforks of T", opens, LOAD(sh->iters));
	EXPECT_EQ(0, bad)
		TH_LOG("%d of %d events counted T's children (up to %llu)",
		       bad, opens, (unsigned long long)worst);
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
