// SPDX-License-Identifier: GPL-2.0
/*
 * attr.sigtrap on breakpoints: a synchronous SIGTRAP (si_code TRAP_PERF)
 * to the thread that made the access, once per overflow, carrying
 * si_addr = bp_addr, si_perf_data = attr.sig_data, si_perf_type =
 * PERF_TYPE_BREAKPOINT and si_perf_flags = 0 (not asynchronous); and the
 * rules for asking for one. Also a clock's sigtrap, for its si_perf_type.
 */
#define _GNU_SOURCE

/* the kernel's siginfo, which has the si_perf_* fields */
#include <sys/types.h>
#include <asm/siginfo.h>
#define __have_siginfo_t 1
#define __have_sigval_t 1
#define __have_sigevent_t 1
#define __siginfo_t_defined
#define __sigval_t_defined
#define __sigevent_t_defined
#define _BITS_SIGINFO_CONSTS_H 1
#define _BITS_SIGEVENT_CONSTS_H 1

#include "perf_test.h"

#include <pthread.h>
#include <linux/hw_breakpoint.h>

#include "kselftest_harness.h"

#ifndef TRAP_PERF
#define TRAP_PERF	6
#endif

#define SIG_DATA	0x5eed0000cafef00dULL
#define NR_THREADS	3

static volatile long target;

static struct {
	int	count;
	int	bad;		/* signals with something wrong in them */
	int	wrong_thread;
	pid_t	want_tid;
	__u64	want_data;
} sig;

static __thread int thread_signals;

static void sigtrap_handler(int signo, siginfo_t *info, void *uc)
{
	if (info->si_code != TRAP_PERF ||
	    info->si_addr != (void *)&target ||
	    info->si_perf_data != sig.want_data ||
	    info->si_perf_type != PERF_TYPE_BREAKPOINT ||
	    info->si_perf_flags != 0)
		__atomic_fetch_add(&sig.bad, 1, __ATOMIC_RELAXED);
	if (sig.want_tid && gettid() != sig.want_tid)
		__atomic_fetch_add(&sig.wrong_thread, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&sig.count, 1, __ATOMIC_RELAXED);
	thread_signals++;
}

static void sigtrap_attr(struct perf_event_attr *attr, __u64 period)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->bp_addr = (unsigned long)&target;
	attr->bp_type = HW_BREAKPOINT_W;
	attr->bp_len = sizeof(target);
	attr->sample_period = period;
	attr->sigtrap = 1;
	attr->remove_on_exec = 1;
	attr->sig_data = SIG_DATA;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static __attribute__((noinline)) void write_n(int n)
{
	int i;

	for (i = 0; i < n; i++)
		target = i;
}

FIXTURE(sigtrap)
{
	struct sigaction old;
};

FIXTURE_SETUP(sigtrap)
{
	struct sigaction sa = { };

#if defined(__aarch64__)
	/*
	 * arm64 reports a watchpoint before the access; with sigtrap the
	 * first hit never completes (its SIGTRAP comes back to the access,
	 * which hits again), on the stock kernel as on ours
	 */
	sigaction(SIGTRAP, NULL, &self->old);
	SKIP(return, "arm64: a sigtrap watchpoint hit repeats forever (stock too)");
#endif

	memset(&sig, 0, sizeof(sig));
	sig.want_data = SIG_DATA;
	thread_signals = 0;
	sa.sa_sigaction = sigtrap_handler;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	ASSERT_EQ(0, sigaction(SIGTRAP, &sa, &self->old));
}

FIXTURE_TEARDOWN(sigtrap)
{
	sigaction(SIGTRAP, &self->old, NULL);
}

TEST_F(sigtrap, one_signal_per_hit_with_its_siginfo)
{
	struct perf_event_attr attr;
	int fd;

	sigtrap_attr(&attr, 1);
	sig.want_tid = gettid();
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	write_n(5);
	EXPECT_EQ(5, sig.count);
	EXPECT_EQ(0, sig.bad);
	EXPECT_EQ(0, sig.wrong_thread);
	EXPECT_EQ(5, pt_read1(fd));
	close(fd);
}

TEST_F(sigtrap, one_signal_per_period)
{
	struct perf_event_attr attr;
	int fd;

	sigtrap_attr(&attr, 3);
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	write_n(10);
	EXPECT_EQ(3, sig.count);
	EXPECT_EQ(0, sig.bad);
	EXPECT_EQ(10, pt_read1(fd));
	close(fd);
}

TEST_F(sigtrap, disabled_event_sends_nothing_until_enabled)
{
	struct perf_event_attr attr;
	int fd;

	sigtrap_attr(&attr, 1);
	attr.disabled = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	write_n(4);
	EXPECT_EQ(0, sig.count);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(2);
	EXPECT_EQ(2, sig.count);
	EXPECT_EQ(0, sig.bad);
	close(fd);
}

TEST_F(sigtrap, modified_sig_data_is_delivered)
{
	struct perf_event_attr attr;
	int fd;

	sigtrap_attr(&attr, 1);
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	attr.sig_data = 42;
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, &attr));
	sig.want_data = 42;
	write_n(2);
	EXPECT_EQ(2, sig.count);
	EXPECT_EQ(0, sig.bad);
	close(fd);
}

struct worker {
	pthread_barrier_t	*bar;
	int			writes;
	int			got;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->bar);
	write_n(w->writes);
	w->got = thread_signals;
	return NULL;
}

/* An inherited (inherit_thread) event signals each thread for its own hits. */
TEST_F(sigtrap, each_thread_gets_the_signals_of_its_own_hits)
{
	struct worker w[NR_THREADS];
	struct perf_event_attr attr;
	pthread_barrier_t bar;
	pthread_t th[NR_THREADS];
	int fd, i, total = 0;

	sigtrap_attr(&attr, 1);
	attr.inherit = 1;
	attr.inherit_thread = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);

	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, NR_THREADS + 1));
	for (i = 0; i < NR_THREADS; i++) {
		w[i] = (struct worker){ .bar = &bar, .writes = 2 + 3 * i };
		total += w[i].writes;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, worker_main, &w[i]));
	}
	pthread_barrier_wait(&bar);
	write_n(1);
	for (i = 0; i < NR_THREADS; i++) {
		ASSERT_EQ(0, pthread_join(th[i], NULL));
		EXPECT_EQ(w[i].writes, w[i].got) TH_LOG("thread %d", i);
	}
	EXPECT_EQ(1, thread_signals);
	EXPECT_EQ(total + 1, sig.count);
	EXPECT_EQ(0, sig.bad);
	EXPECT_EQ(total + 1, pt_read1(fd));
	close(fd);
	pthread_barrier_destroy(&bar);
}

TEST_F(sigtrap, sigtrap_needs_remove_on_exec)
{
	struct perf_event_attr attr;
	int fd;

	sigtrap_attr(&attr, 1);
	attr.remove_on_exec = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(sigtrap, sigtrap_needs_a_task)
{
	struct perf_event_attr attr;
	int fd;

	if (geteuid() != 0)
		SKIP(return, "CPU-wide events need root");
	sigtrap_attr(&attr, 1);
	fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(EINVAL, errno);
}

/*
 * A clock's overflow signal names the type the clock was opened with:
 * task-clock through PERF_TYPE_SOFTWARE says 1, through its own PMU's
 * type (6.12's fixed 7) says 7, though both run on one PMU's ops.
 */
#define TASK_CLOCK_PMU_TYPE	7

static volatile int clock_sigs, clock_bad;
static volatile __u32 clock_want_type;

static void clock_sigtrap(int signo, siginfo_t *info, void *uc)
{
	if (info->si_code != TRAP_PERF ||
	    info->si_perf_type != clock_want_type ||
	    info->si_perf_data != 0x5157)
		clock_bad++;
	clock_sigs++;
}

static int clock_sigtrap_run(__u32 type, __u64 config)
{
	struct sigaction sa = { .sa_sigaction = clock_sigtrap,
				.sa_flags = SA_SIGINFO }, old;
	struct perf_event_attr attr;
	__u64 t0;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = 1000000;
	attr.sigtrap = 1;
	attr.remove_on_exec = 1;
	attr.sig_data = 0x5157;
	attr.exclude_kernel = 1;
	clock_sigs = 0;
	clock_bad = 0;
	clock_want_type = type;
	if (sigaction(SIGTRAP, &sa, &old))
		return -1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	/* 1 ms of its CPU time a signal: 3 come within 5 s of wall time */
	t0 = pt_now_ns();
	while (clock_sigs < 3 && pt_now_ns() - t0 < 5000000000ULL)
		pt_spin_ns(1000000);
	close(fd);
	sigaction(SIGTRAP, &old, NULL);
	return clock_sigs;
}

TEST(clock_sigtrap_names_the_type_it_was_opened_with)
{
	EXPECT_LE(3, clock_sigtrap_run(PERF_TYPE_SOFTWARE,
				       PERF_COUNT_SW_TASK_CLOCK));
	EXPECT_EQ(0, clock_bad);
	EXPECT_LE(3, clock_sigtrap_run(TASK_CLOCK_PMU_TYPE,
				       PERF_COUNT_SW_TASK_CLOCK));
	EXPECT_EQ(0, clock_bad);
}

TEST_HARNESS_MAIN
