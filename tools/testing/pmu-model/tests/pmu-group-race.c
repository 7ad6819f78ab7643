// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-group-race: opening a "cpu" event into a group while other
 * members of the group are closed.
 *
 * At open the PMU checks that the group fits its counters, walking the
 * group's members; a member closed meanwhile leaves the group. The group
 * here is a hardware leader with NSW software siblings (which the walk
 * passes over, so it takes long); one thread keeps closing and reopening
 * software siblings while another keeps opening and closing a hardware
 * sibling, ITERS times. Done without a hang or a kernel report, every
 * hardware open succeeding (the group always fits), is a pass; the
 * harness's timeout and its check of the log catch the rest.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#define NSW	200
#define ITERS	3000

static int leader, sw[NSW];
static volatile int stop;

static int open_ev(__u32 type, __u64 config, int group)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	/* the main thread's, from either thread: the group's context */
	return sys_perf_event_open(&attr, getpid(), -1, group, 0);
}

static void *closer(void *arg)
{
	long n = 0;
	int i = 0;

	while (!stop) {
		close(sw[i]);
		sw[i] = open_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, leader);
		if (sw[i] < 0) {
			printf("software sibling %d, after %ld: %s\n", i, n,
			       strerror(errno));
			return (void *)-1L;
		}
		i = (i + 1) % NSW;
		n++;
	}
	return (void *)n;
}

int main(void)
{
	int i, fd, bad = 0;
	pthread_t t;
	void *ret;

	setvbuf(stdout, NULL, _IONBF, 0);
	leader = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
			 -1);
	if (leader < 0) {
		printf("not ok leader: %s\n", strerror(errno));
		return 1;
	}
	for (i = 0; i < NSW; i++) {
		sw[i] = open_ev(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, leader);
		if (sw[i] < 0) {
			printf("not ok software sibling %d: %s\n", i,
			       strerror(errno));
			return 1;
		}
	}
	pthread_create(&t, NULL, closer, NULL);
	for (i = 0; i < ITERS; i++) {
		fd = open_ev(PERF_TYPE_HARDWARE,
			     PERF_COUNT_HW_BRANCH_INSTRUCTIONS, leader);
		if (fd < 0) {
			if (!bad++)
				printf("hardware sibling %d: %s\n", i,
				       strerror(errno));
			continue;
		}
		close(fd);
	}
	stop = 1;
	pthread_join(t, &ret);
	printf("%s software siblings reopened: %ld\n",
	       (long)ret >= 0 ? "ok" : "not ok", (long)ret);
	printf("%s hardware siblings that failed to open: %d (expected 0)\n",
	       bad ? "not ok" : "ok", bad);
	return (long)ret < 0 || bad ? 1 : 0;
}
