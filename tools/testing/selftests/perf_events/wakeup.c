// SPDX-License-Identifier: GPL-2.0
/*
 * Wakeups of a sampling event: poll()/epoll readiness after wakeup_events
 * samples or wakeup_watermark bytes, POLLHUP without a buffer and when the
 * monitored task exits, fasync SIGIO (plain and with F_SETSIG: si_code,
 * si_fd, si_band) and the POLL_HUP signal of REFRESH running out.
 *
 * Samples are page faults with sample_period 1 and IP|TID|ADDR (32 bytes),
 * taken one fresh page at a time so that every step is exact.
 */
#include "perf_test.h"
#include <poll.h>
#include <sys/epoll.h>

#define SAMPLE_SIZE	32
#define NPAGES		1024

static char *pages;
static int next_page;

static __attribute__((noinline)) void touch_pages(char *p, int n)
{
	pt_touch(p, n);
}

/* n samples: n fresh faults with the event enabled */
static int take_samples(int fd, int n)
{
	if (next_page + n > NPAGES)
		return -1;
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -1;
	touch_pages(pages + (long)next_page * pt_page_size(), n);
	next_page += n;
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

static int open_faults(__u32 wakeup_events, int watermark, __u32 wakeup_watermark)
{
	struct perf_event_attr attr;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1,
		       PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR);
	attr.watermark = watermark;
	if (watermark)
		attr.wakeup_watermark = wakeup_watermark;
	else
		attr.wakeup_events = wakeup_events;
	return sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static short poll_now(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) > 0 ? p.revents : 0;
}

FIXTURE(wk) {
	int fd;
	struct pt_rb rb;
};

FIXTURE_SETUP(wk)
{
	char *warm;

	self->fd = -1;
	memset(&self->rb, 0, sizeof(self->rb));
	if (!pages) {
		pages = pt_map_pages(NPAGES);
		ASSERT_NE(NULL, pages);
	}
	warm = pt_map_pages(1);
	ASSERT_NE(NULL, warm);
	touch_pages(warm, 1);
	pt_unmap_pages(warm, 1);
}

FIXTURE_TEARDOWN(wk)
{
	pt_rb_unmap(&self->rb);
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(wk, poll_without_buffer_is_pollhup)
{
	self->fd = open_faults(1, 0, 0);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(POLLHUP, poll_now(self->fd));
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	EXPECT_EQ(0, poll_now(self->fd));
}

/*
 * wakeup_events N: POLLIN after every N-th sample. poll() itself takes
 * the wakeup: the next poll() is quiet again until the next N samples,
 * whether or not the data was consumed.
 */
TEST_F(wk, wakeup_events_every_nth_sample)
{
	int i;

	self->fd = open_faults(4, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	for (i = 1; i <= 12; i++) {
		ASSERT_EQ(0, take_samples(self->fd, 1));
		EXPECT_EQ(i % 4 ? 0 : POLLIN, poll_now(self->fd)) TH_LOG("sample %d", i);
	}
	EXPECT_EQ(12 * SAMPLE_SIZE, pt_rb_head(&self->rb));
}

/* wakeup_events 0 without watermark: wakes at half the buffer */
TEST_F(wk, default_wakeup_is_half_the_buffer)
{
	int half = 2 * pt_page_size() / SAMPLE_SIZE;	/* 4 data pages */
	short ev;

	self->fd = open_faults(0, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ASSERT_EQ(0, take_samples(self->fd, half - 1));
	EXPECT_EQ(0, poll_now(self->fd));
	ASSERT_EQ(0, take_samples(self->fd, 1));
	ev = poll_now(self->fd);
	if (!ev) {
		/* the record after the one that reaches the watermark */
		ASSERT_EQ(0, take_samples(self->fd, 1));
		ev = poll_now(self->fd);
	}
	EXPECT_EQ(POLLIN, ev);
}

/*
 * wakeup_watermark 320 bytes = 10 samples: the wakeup comes with the 11th
 * sample (the first record that starts with >= 320 bytes written since the
 * last wakeup point), and the next wakeup point is where that record
 * started: the second wakeup comes with the 21st sample.
 */
TEST_F(wk, wakeup_watermark_bytes)
{
	int i, first = 0, second = 0;

	self->fd = open_faults(0, 1, 10 * SAMPLE_SIZE);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	for (i = 1; i <= 30; i++) {
		ASSERT_EQ(0, take_samples(self->fd, 1));
		if (poll_now(self->fd) == POLLIN) {
			if (!first)
				first = i;
			else if (!second)
				second = i;
		}
	}
	EXPECT_EQ(11, first);
	EXPECT_EQ(21, second);
}

TEST_F(wk, consuming_does_not_make_pollin)
{
	self->fd = open_faults(2, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ASSERT_EQ(0, take_samples(self->fd, 1));
	pt_rb_set_tail(&self->rb, pt_rb_head(&self->rb));
	EXPECT_EQ(0, poll_now(self->fd));
	ASSERT_EQ(0, take_samples(self->fd, 1));
	EXPECT_EQ(POLLIN, poll_now(self->fd));
}

TEST_F(wk, poll_blocks_until_wakeup)
{
	struct pollfd p;
	pid_t child;
	int ret;

	self->fd = open_faults(1, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	/* nothing yet: times out */
	p.fd = self->fd;
	p.events = POLLIN;
	EXPECT_EQ(0, poll(&p, 1, 50));
	/* a sample taken by another thread of control: fork a waker */
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pt_sleep_ns(50000000);
		_exit(0);
	}
	ASSERT_EQ(0, take_samples(self->fd, 1));
	ret = poll(&p, 1, 5000);
	EXPECT_EQ(1, ret);
	EXPECT_EQ(POLLIN, p.revents);
	ASSERT_EQ(0, pt_wait_exit(child));
}

static int start_waiting_child(int *go)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(p[1]);
		_exit(read(p[0], &c, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	*go = p[1];
	return pid;
}

TEST_F(wk, pollhup_when_monitored_task_exits)
{
	struct perf_event_attr attr;
	struct epoll_event ee = { .events = EPOLLIN, .data.u32 = 7 }, out;
	int go, ep;
	pid_t pid;

	pid = start_waiting_child(&go);
	ASSERT_LT(0, pid);
	pt_attr_sample(&attr, PERF_COUNT_SW_TASK_CLOCK, 100000, PERF_SAMPLE_IP);
	attr.disabled = 0;
	self->fd = sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ee));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	EXPECT_EQ(0, poll_now(self->fd));
	ASSERT_EQ(1, write(go, "x", 1));
	ASSERT_EQ(0, pt_wait_exit(pid));
	/* epoll reports EPOLLHUP even though only EPOLLIN was asked for */
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 5000));
	EXPECT_EQ(EPOLLHUP, out.events);
	EXPECT_EQ(7, out.data.u32);
	EXPECT_EQ(POLLHUP, poll_now(self->fd));
	/* and it stays so */
	EXPECT_EQ(POLLHUP, poll_now(self->fd));
	close(ep);
	close(go);
}

TEST_F(wk, epoll_pollin_after_wakeup_events)
{
	struct epoll_event ee = { .events = EPOLLIN, .data.u32 = 3 }, out;
	int ep;

	self->fd = open_faults(3, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ep = epoll_create1(EPOLL_CLOEXEC);
	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, self->fd, &ee));
	ASSERT_EQ(0, take_samples(self->fd, 2));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	ASSERT_EQ(0, take_samples(self->fd, 1));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 1000));
	EXPECT_EQ(EPOLLIN, out.events);
	EXPECT_EQ(3, out.data.u32);
	close(ep);
}

#define MAX_SIGS 64
static volatile int nsigs;
static volatile int sig_code[MAX_SIGS], sig_fd[MAX_SIGS], sig_no[MAX_SIGS];
static volatile long sig_band[MAX_SIGS];

static void on_sig(int sig, siginfo_t *si, void *uc)
{
	if (nsigs < MAX_SIGS) {
		sig_no[nsigs] = sig;
		sig_code[nsigs] = si->si_code;
		sig_fd[nsigs] = si->si_fd;
		sig_band[nsigs] = si->si_band;
	}
	nsigs++;
}

static int catch(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	if (sigaction(sig, &sa, NULL))
		return -1;
	/*
	 * One delivery first: the handler's code, data and signal frame are
	 * then faulted in, and the page faults counted later are the test's
	 * own (on arm64 the first delivery faulted once more)
	 */
	raise(sig);
	nsigs = 0;
	return 0;
}

static int set_async(int fd, int sig)
{
	if (fcntl(fd, F_SETOWN, getpid()))
		return -1;
	if (sig && fcntl(fd, F_SETSIG, sig))
		return -1;
	return fcntl(fd, F_SETFL, O_ASYNC);
}

/* plain O_ASYNC: SIGIO per wakeup, without poll information */
TEST_F(wk, fasync_sigio_per_wakeup)
{
	ASSERT_EQ(0, catch(SIGIO));
	self->fd = open_faults(1, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ASSERT_EQ(0, set_async(self->fd, 0));
	ASSERT_EQ(0, take_samples(self->fd, 3));
	EXPECT_EQ(3, nsigs);
	EXPECT_EQ(SIGIO, sig_no[0]);
	EXPECT_EQ(SI_KERNEL, sig_code[0]);
	signal(SIGIO, SIG_DFL);
}

/*
 * F_SETSIG: a queued real-time signal with si_code POLL_IN, si_fd and
 * si_band. The signal comes with every overflow, not with the buffer's
 * wakeups: six samples at wakeup_events 2 give six signals (and three
 * poll() wakeups).
 */
TEST_F(wk, fasync_setsig_poll_in_per_overflow)
{
	int sig = SIGRTMIN + 1, i;

	ASSERT_EQ(0, catch(sig));
	self->fd = open_faults(2, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ASSERT_EQ(0, set_async(self->fd, sig));
	ASSERT_EQ(0, take_samples(self->fd, 6));
	ASSERT_EQ(6, nsigs);
	for (i = 0; i < 6; i++) {
		EXPECT_EQ(sig, sig_no[i]);
		EXPECT_EQ(POLL_IN, sig_code[i]);
		EXPECT_EQ(self->fd, sig_fd[i]);
		EXPECT_EQ(POLLIN | POLLRDNORM, sig_band[i]);
	}
	signal(sig, SIG_DFL);
}

/* REFRESH n: n overflows; the last one signals POLL_HUP and disables */
TEST_F(wk, refresh_ends_with_poll_hup)
{
	int sig = SIGRTMIN + 1;

	ASSERT_EQ(0, catch(sig));
	self->fd = open_faults(1, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ASSERT_EQ(0, set_async(self->fd, sig));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_REFRESH, 2));
	touch_pages(pages + (long)next_page * pt_page_size(), 5);
	next_page += 5;
	EXPECT_EQ(2, pt_read1(self->fd));
	ASSERT_EQ(2, nsigs);
	EXPECT_EQ(POLL_IN, sig_code[0]);
	EXPECT_EQ(POLL_HUP, sig_code[1]);
	EXPECT_EQ(POLLHUP | POLLERR, sig_band[1]);
	EXPECT_EQ(self->fd, sig_fd[1]);
	EXPECT_EQ(2 * SAMPLE_SIZE, pt_rb_head(&self->rb));
	signal(sig, SIG_DFL);
}

TEST_F(wk, fasync_signals_without_buffer)
{
	int sig = SIGRTMIN + 3;

	ASSERT_EQ(0, catch(sig));
	self->fd = open_faults(1, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, set_async(self->fd, sig));
	ASSERT_EQ(0, take_samples(self->fd, 4));
	EXPECT_EQ(4, nsigs);
	EXPECT_EQ(POLL_IN, sig_code[3]);
	signal(sig, SIG_DFL);
}

TEST_F(wk, refresh_signals_without_buffer)
{
	int sig = SIGRTMIN + 2;

	ASSERT_EQ(0, catch(sig));
	self->fd = open_faults(1, 0, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, set_async(self->fd, sig));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_REFRESH, 3));
	touch_pages(pages + (long)next_page * pt_page_size(), 5);
	next_page += 5;
	EXPECT_EQ(3, pt_read1(self->fd));
	ASSERT_EQ(3, nsigs);
	EXPECT_EQ(POLL_IN, sig_code[0]);
	EXPECT_EQ(POLL_IN, sig_code[1]);
	EXPECT_EQ(POLL_HUP, sig_code[2]);
	signal(sig, SIG_DFL);
}

TEST_HARNESS_MAIN
