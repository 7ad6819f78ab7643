// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-sched: counter constraints and group scheduling on the TCG PMU
 * model, through perf_event_open on itself (user mode only).
 *
 * Intel (Skylake-PMU): 4 general counters, fixed 0-2 (instructions,
 * cycles, ref-cycles; ref-cycles only on fixed 2). AMD (EPYC-PMU): 6
 * general counters. A group that fits counts all the time; a group
 * too big for the counters (one more branch event, two ref-cycles) is
 * refused when its last member is opened (EINVAL). Counts are checked
 * by difference: a loop of 2N iterations counts exactly N more branches
 * than one of N.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define MAXG	8
#define N	20000

static int open_ev(__u32 type, __u64 config, int group)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = group < 0;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return sys_perf_event_open(&attr, 0, -1, group, 0);
}

/* n iterations of a dec/jnz loop: n branches, 2n instructions */
static void loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

struct group_val {
	__u64 nr, enabled, running, v[MAXG];
};

/* run the loop n times under the group; its values */
static int run(int lead, long n, struct group_val *g)
{
	ioctl(lead, PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	loop(n);
	ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	return read(lead, g, sizeof(*g)) > 0 ? 0 : -1;
}

/*
 * A group of @nr events of (type, config[i]): if @fits, every member
 * counts all the time and exactly @per_iter[i] more per loop iteration;
 * if not, the member that makes it too big is refused (EINVAL): a group
 * that can never be on the counters at once would never count.
 */
static void group(const char *name, int nr, const __u32 *type,
		  const __u64 *config, const long *per_iter, int fits)
{
	struct group_val a, b;
	int fd[MAXG], i, n;
	char what[160];

	for (n = 0; n < nr; n++) {
		fd[n] = open_ev(type[n], config[n], n ? fd[0] : -1);
		if (fd[n] < 0)
			break;
	}
	if (!fits) {
		snprintf(what, sizeof(what), "%s: member %d refused (errno)",
			 name, nr - 1);
		check_val(n == nr - 1 && errno == EINVAL, what,
		      n == nr - 1 ? errno : -n, EINVAL);
		goto out;
	}
	if (n < nr) {
		snprintf(what, sizeof(what), "%s: open member %d (errno)", name, n);
		check_val(0, what, errno, 0);
		goto out;
	}
	if (run(fd[0], N, &a) || run(fd[0], 2 * N, &b)) {
		snprintf(what, sizeof(what), "%s: read", name);
		check_val(0, what, -1, 0);
		goto out;
	}
	snprintf(what, sizeof(what), "%s: members read", name);
	check_val(b.nr == (__u64)nr, what, b.nr, nr);
	snprintf(what, sizeof(what), "%s: time_running == time_enabled", name);
	check_val(b.running == b.enabled && b.running > 0, what,
	      b.running, b.enabled);
	for (i = 0; i < nr; i++) {
		snprintf(what, sizeof(what), "%s: member %d counts %ld per iteration",
			 name, i, per_iter[i]);
		check_val(b.v[i] - a.v[i] == (__u64)(per_iter[i] * N), what,
		      b.v[i] - a.v[i], per_iter[i] * N);
	}
out:
	while (n-- > 0)
		close(fd[n]);
}

int main(void)
{
	__u32 t[MAXG];
	__u64 c[MAXG];
	long k[MAXG];
	int intel = 0, gp, i, fd;
	char line[256];
	FILE *f;

	setvbuf(stdout, NULL, _IONBF, 0);
	f = fopen("/proc/cpuinfo", "r");
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "GenuineIntel"))
			intel = 1;
	if (f)
		fclose(f);
	gp = intel ? 4 : 6;
	printf("# %s: %d general counters\n", intel ? "Intel" : "AMD", gp);

	/* all general counters: branches; one more does not fit */
	for (i = 0; i < MAXG; i++) {
		t[i] = PERF_TYPE_HARDWARE;
		c[i] = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
		k[i] = 1;
	}
	group("general counters full", gp, t, c, k, 1);
	group("one more than the general counters", gp + 1, t, c, k, 0);

	if (intel) {
		/* the fixed counters on top of the full general ones */
		c[0] = PERF_COUNT_HW_INSTRUCTIONS;	k[0] = 2;
		c[1] = PERF_COUNT_HW_CPU_CYCLES;	k[1] = 4;
		c[2] = PERF_COUNT_HW_REF_CPU_CYCLES;	k[2] = 6;
		group("3 fixed + 4 general", 7, t, c, k, 1);
		/* ref-cycles has one counter: two never run at once */
		c[0] = c[1] = PERF_COUNT_HW_REF_CPU_CYCLES;
		group("two ref-cycles", 2, t, c, k, 0);
		/* instructions twice: fixed 0 and a general counter */
		c[0] = c[1] = PERF_COUNT_HW_INSTRUCTIONS;
		k[0] = k[1] = 2;
		group("instructions twice", 2, t, c, k, 1);
	}

	/* what is refused: an unknown generic event */
	fd = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX, -1);
	check_val(fd < 0 && errno == EINVAL, "hardware config PERF_COUNT_HW_MAX: EINVAL",
	      fd < 0 ? errno : 0, EINVAL);
	if (fd >= 0)
		close(fd);
	return fails ? 1 : 0;
}
