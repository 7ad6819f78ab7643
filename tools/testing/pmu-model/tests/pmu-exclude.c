// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-exclude: exclude_host and exclude_guest of hardware events on the
 * host (no guest runs), on the TCG PMU model.
 *
 * Counts the instructions of a known user-space loop with each of the
 * four combinations and prints each count's relation to the plain
 * count, then checks:
 * - exclude_guest alone counts as the plain event (the host is not a
 *   guest);
 * - exclude_host together with exclude_guest counts nothing;
 * - exclude_host alone counts nothing on Intel, where the counter's bit
 *   is left out of the host's GLOBAL_CTRL, and as the plain event on
 *   AMD, whose GuestOnly bit the model does not implement (it counts
 *   by CPU mode, and SVM is off): as the stock 6.12 kernel on the model.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define LOOPS	100000

static void loop(void)
{
	for (int i = 0; i < LOOPS; i++)
		asm volatile("" ::: "memory");
}

static long long count(int excl_host, int excl_guest)
{
	struct perf_event_attr attr;
	long long val;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.disabled = 1;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.exclude_host = excl_host;
	attr.exclude_guest = excl_guest;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0) {
		printf("not ok open exclude_host=%d exclude_guest=%d: %s\n",
		       excl_host, excl_guest, strerror(errno));
		fails++;
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop();
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &val, sizeof(val)) != sizeof(val))
		val = -1;
	close(fd);
	return val;
}

static const char *rel(long long v, long long plain)
{
	if (v == 0)
		return "zero";
	if (v > plain * 9 / 10 && v < plain * 11 / 10)
		return "as plain";
	return "other";
}

int main(void)
{
	long long plain, host, guest, both;
	char line[256];
	int amd = 0;
	FILE *f;

	setvbuf(stdout, NULL, _IONBF, 0);
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "AuthenticAMD"))
			amd = 1;
	if (f)
		fclose(f);

	plain = count(0, 0);
	guest = count(0, 1);
	host = count(1, 0);
	both = count(1, 1);
	printf("plain: %s\n", plain >= LOOPS ? ">= loop iterations" : "short");
	printf("exclude_guest: %s\n", rel(guest, plain));
	printf("exclude_host: %s\n", rel(host, plain));
	printf("exclude_host+exclude_guest: %s\n", rel(both, plain));
	check(plain >= LOOPS, "the plain event counts the loop");
	check(!strcmp(rel(guest, plain), "as plain"),
	      "exclude_guest counts the host");
	check(both == 0, "exclude_host+exclude_guest counts nothing");
	if (amd)
		check(!strcmp(rel(host, plain), "as plain"),
		      "exclude_host counts (AMD: GuestOnly not modelled)");
	else
		check(host == 0, "exclude_host counts nothing on the host (Intel)");
	return fails ? 1 : 0;
}
