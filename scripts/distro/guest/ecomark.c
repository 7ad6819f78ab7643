// SPDX-License-Identifier: GPL-2.0
/*
 * ecomark: the known workload of the Debian image's checks
 * (perf-eco.sh), one program for every tool, so that each can be asked
 * for an exact answer.
 *
 *   ecomark calls N      N calls of eco_marker_fn() (a uprobe's target)
 *                        and N getppid() system calls
 *   ecomark burn SECS    spin on the CPU for SECS, named "ecoburn"
 *   ecomark sleep SECS   sleep 10 ms at a time for SECS, named "ecosleep"
 *   ecomark open PATH N  open and close PATH N times
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long eco_sink;

__attribute__((noinline)) void eco_marker_fn(unsigned long i)
{
	eco_sink += i;
	__asm__ volatile("" ::: "memory");
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	double end;
	long i, n;

	if (!strcmp(mode, "calls") && argc == 3) {
		n = atol(argv[2]);
		for (i = 0; i < n; i++) {
			eco_marker_fn(i);
			syscall(SYS_getppid);
		}
		return 0;
	}
	if (!strcmp(mode, "burn") && argc == 3) {
		prctl(PR_SET_NAME, "ecoburn");
		end = now() + atof(argv[2]);
		while (now() < end)
			for (i = 0; i < 100000; i++)
				eco_sink += i;
		return 0;
	}
	if (!strcmp(mode, "sleep") && argc == 3) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		prctl(PR_SET_NAME, "ecosleep");
		end = now() + atof(argv[2]);
		while (now() < end)
			nanosleep(&ts, NULL);
		return 0;
	}
	if (!strcmp(mode, "open") && argc == 4) {
		n = atol(argv[3]);
		for (i = 0; i < n; i++) {
			int fd = open(argv[2], O_RDONLY);

			if (fd >= 0)
				close(fd);
		}
		return 0;
	}
	fprintf(stderr, "usage: ecomark calls N | burn S | sleep S | open PATH N\n");
	return 2;
}
