// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-refresh: PERF_EVENT_IOC_REFRESH on a hardware sampling event, the
 * way a self-profiler re-arms it from its signal handler.
 *
 * instructions:u, opened disabled with a period of PERIOD and SIGIO on
 * each overflow (O_ASYNC, F_SETSIG, F_SETOWN), is armed for one overflow
 * with REFRESH 1; the handler re-arms it with REFRESH 1 each time. An
 * overflow disables the event once its refresh count is used up, and
 * each REFRESH must enable it again: the loop runs until WANT overflows
 * came, which takes WANT periods (in at most LOOPS). The same for the
 * software event task-clock (a period of 100 us of CPU time); each also
 * with a ring buffer mapped, whose records wake the owner as well.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#define PERIOD	10000
#define WANT	1000
/* at most this many loops of PERIOD iterations */
#define LOOPS	100000
/* data pages of the buffer, where there is one */
#define PAGES	8

static int fails;
static volatile sig_atomic_t overflows, refresh_errors;
static int ev_fd;

static void check(int ok, const char *what, long long got, long long want)
{
	printf("%s %s: %lld (expected %s%lld)\n", ok ? "ok" : "not ok", what,
	       got, ok ? "" : ">= ", want);
	if (!ok)
		fails++;
}

static void on_sigio(int sig, siginfo_t *info, void *uc)
{
	overflows++;
	if (ioctl(ev_fd, PERF_EVENT_IOC_REFRESH, 1))
		refresh_errors++;
}

/* n iterations of a dec/jnz loop: 2n instructions */
static void loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static void run(const char *name, __u32 type, __u64 config, __u64 period,
		int mapped)
{
	size_t len = (1 + PAGES) * sysconf(_SC_PAGESIZE);
	struct perf_event_attr attr;
	void *buf = NULL;
	int i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP;
	attr.disabled = 1;
	attr.wakeup_events = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	ev_fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (ev_fd < 0) {
		printf("not ok %s: perf_event_open: %s\n", name,
		       strerror(errno));
		fails++;
		return;
	}
	overflows = 0;
	refresh_errors = 0;
	if (mapped) {
		buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			   ev_fd, 0);
		if (buf == MAP_FAILED) {
			printf("not ok %s: mmap: %s\n", name, strerror(errno));
			fails++;
			close(ev_fd);
			return;
		}
	}
	if (fcntl(ev_fd, F_SETFL, O_RDWR | O_NONBLOCK | O_ASYNC) ||
	    fcntl(ev_fd, F_SETSIG, SIGIO) ||
	    fcntl(ev_fd, F_SETOWN, getpid())) {
		printf("not ok %s: fcntl: %s\n", name, strerror(errno));
		fails++;
		close(ev_fd);
		return;
	}
	if (ioctl(ev_fd, PERF_EVENT_IOC_REFRESH, 1)) {
		printf("not ok %s: REFRESH: %s\n", name, strerror(errno));
		fails++;
		close(ev_fd);
		return;
	}
	for (i = 0; i < LOOPS && overflows < WANT; i++)
		loop(PERIOD);
	ioctl(ev_fd, PERF_EVENT_IOC_DISABLE, 0);
	if (buf)
		munmap(buf, len);
	close(ev_fd);
	printf("%s: %d overflows in %d loops of %d instructions\n", name,
	       (int)overflows, i, 2 * PERIOD);
	check(overflows >= WANT, name, overflows, WANT);
	check(!refresh_errors, "REFRESH in the handler succeeds",
	      refresh_errors, 0);
}

int main(void)
{
	struct sigaction sa;

	setvbuf(stdout, NULL, _IONBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigio;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGIO, &sa, NULL);

	run("instructions:u refreshed from SIGIO", PERF_TYPE_HARDWARE,
	    PERF_COUNT_HW_INSTRUCTIONS, PERIOD, 0);
	run("instructions:u with a buffer, refreshed from SIGIO",
	    PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, PERIOD, 1);
	run("task-clock refreshed from SIGIO", PERF_TYPE_SOFTWARE,
	    PERF_COUNT_SW_TASK_CLOCK, 100000, 0);
	run("task-clock with a buffer, refreshed from SIGIO",
	    PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 100000, 1);
	return fails ? 1 : 0;
}
