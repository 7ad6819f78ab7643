// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-rapl: the power PMU on the TCG PMU model (RAPL energy status MSRs
 * derived from icount, patch 0010), as root.
 *
 * The model keeps, in 2^-14 J units, with N the instructions all vCPUs
 * retired and T the virtual time in ns: cores N/1024, pkg N/1024 +
 * T/65536, ram T/262144, psys pkg + ram. The PMU reports 2^-32 J, so
 * every count is a multiple of 2^18.
 *
 * Around a user loop of 2 x LOOPS instructions on CPU 0 (one instruction
 * is 1 ns of virtual time), the events of CPU 0 (on Intel one group read
 * together, PERF_FORMAT_GROUP) must count at least the loop's share and
 * at most what really ran and passed: every CPU's instructions (a
 * CPU-wide instructions event per CPU, read before the first and after
 * the last energy read) and the CLOCK_MONOTONIC time between those
 * reads. Other work (kworkers, RCU, timers on either CPU) varies from
 * boot to boot, so the upper bound is measured, not assumed. Intel:
 * cores = N/1024, ram = T/262144, psys = pkg + ram and pkg - cores =
 * T/65536, each within the rounding of the separate reads. Errors as
 * 6.12: sampling, a per-task event, an absent (gpu) or unknown config:
 * EINVAL; so is a cgroup event (PERF_FLAG_PID_CGROUP, the package has no
 * cgroup), ahead of a bad cgroup fd, while a cpu-clock event of the same
 * cgroup opens. AMD: the package alone, see amd().
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define LOOPS		10000000ULL
#define SHIFT		18	/* 2^-14 J model units in 2^-32 J counts */

#define MAXCPU		64

#define CG_ROOT		"/sys/fs/cgroup"

/* what every CPU retired and the time that passed around the energy reads */
struct outer {
	int fd[MAXCPU], ncpu;
	uint64_t n0, n1;
	uint64_t t0, t1;
};

static int power_type(void)
{
	FILE *fp = fopen("/sys/bus/event_source/devices/power/type", "r");
	int type = -1;

	if (fp) {
		if (fscanf(fp, "%d", &type) != 1)
			type = -1;
		fclose(fp);
	}
	return type;
}

static int open_power(int type, uint64_t config, pid_t pid, int cpu,
		      uint64_t period)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = period;
	return sys_perf_event_open(&attr, pid, cpu, -1, 0);
}

static int open_cgroup(int type, uint64_t config, int cgfd)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	return sys_perf_event_open(&attr, cgfd, 0, -1,
		       PERF_FLAG_PID_CGROUP);
}

/*
 * A cgroup event follows the tasks of its cgroup on one CPU; the energy
 * of a package is no task's: EINVAL, before the cgroup fd is looked at.
 * The cgroup (the root of v2, mounted here when the guest has none:
 * a child would need a controller in the root's subtree_control to have
 * the implicit perf_event one) is good: a software event of it opens.
 */
static void cgroup_case(int type)
{
	char line[160];
	struct stat st;
	int cg, fd;

	if (stat(CG_ROOT "/cgroup.procs", &st) &&
	    mount("cgroup2", CG_ROOT, "cgroup2", 0, NULL)) {
		printf("not ok mount cgroup2: %s\n", strerror(errno));
		fails++;
		return;
	}
	cg = open(CG_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg < 0) {
		printf("not ok open %s: %s\n", CG_ROOT, strerror(errno));
		fails++;
		return;
	}
	fd = open_cgroup(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, cg);
	snprintf(line, sizeof(line), "a cpu-clock cgroup event on CPU 0: %s",
		 fd >= 0 ? "opens" : strerror(errno));
	check(fd >= 0, line);
	if (fd >= 0)
		close(fd);
	expect_errno(open_cgroup(type, 2, cg), EINVAL,
		     "a cgroup event (energy-pkg)");
	expect_errno(open_cgroup(type, 2, 1000), EINVAL,
		     "a cgroup event with a bad cgroup fd (energy-pkg)");
	close(cg);
}

/* a member of a group on CPU 0, read with the leader in one go */
static int open_member(int type, uint64_t config, int leader)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.read_format = PERF_FORMAT_GROUP;
	return sys_perf_event_open(&attr, -1, 0, leader, 0);
}

static int outer_open(struct outer *o)
{
	struct perf_event_attr attr;
	int i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	o->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	if (o->ncpu < 1 || o->ncpu > MAXCPU)
		return -1;
	for (i = 0; i < o->ncpu; i++) {
		o->fd[i] = sys_perf_event_open(&attr, -1, i, -1, 0);
		if (o->fd[i] < 0) {
			printf("not ok instructions on CPU %d: %s\n", i,
			       strerror(errno));
			return -1;
		}
	}
	return 0;
}

static uint64_t outer_sum(struct outer *o)
{
	uint64_t v, n = 0;
	int i;

	for (i = 0; i < o->ncpu; i++)
		if (read(o->fd[i], &v, 8) == 8)
			n += v;
	return n;
}

static void outer_start(struct outer *o)
{
	o->t0 = now_ns();
	o->n0 = outer_sum(o);
}

static void outer_stop(struct outer *o)
{
	int i;

	o->n1 = outer_sum(o);
	o->t1 = now_ns();
	for (i = 0; i < o->ncpu; i++)
		close(o->fd[i]);
	printf("# around the reads: %llu instructions, %llu ns\n",
	       (unsigned long long)(o->n1 - o->n0),
	       (unsigned long long)(o->t1 - o->t0));
}

/*
 * Slack on the measured upper bounds, in instructions: what the
 * CPU-wide counters miss while the core has the PMU disabled around a
 * context switch on either CPU (a few hundred instructions each).
 */
#define SLACK		16384

/* T >> shift, with 1% for the guest's clock against QEMU's virtual one */
static uint64_t time_units(struct outer *o, unsigned int shift)
{
	uint64_t t = o->t1 - o->t0;

	return ((t + t / 100) >> shift) + 2;
}

static void loop(void)
{
	uint64_t n = LOOPS;

	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n));
}

/*
 * AMD: the package alone (energy-pkg), in 2^-16 J: N / 256 + T / 16384,
 * so the count is a multiple of 2^16 and over the loop at least its
 * instructions / 256 + its time / 16384
 */
static int amd(int type)
{
	uint64_t v0, v1, d, lo, hi;
	struct outer o;
	char buf[160];
	int fd;

	expect_errno(open_power(type, 2, -1, 0, 1000), EINVAL, "sampling");
	expect_errno(open_power(type, 2, 0, -1, 0), EINVAL, "a task event");
	expect_errno(open_power(type, 1, -1, 0, 0), EINVAL,
		     "energy-cores (not in 6.12's AMD power PMU)");
	fd = open_power(type, 2, -1, 0, 0);
	if (fd < 0) {
		printf("not ok open energy-pkg: %s\n", strerror(errno));
		return 1;
	}
	if (outer_open(&o))
		return 1;
	outer_start(&o);
	if (read(fd, &v0, 8) != 8)
		return 1;
	loop();
	if (read(fd, &v1, 8) != 8)
		return 1;
	outer_stop(&o);
	d = v1 - v0;
	printf("# energy-pkg: %llu units of 2^-32 J = %llu model units\n",
	       (unsigned long long)d, (unsigned long long)(d >> 16));
	check(!(d & 0xffff), "energy-pkg counts in 2^-32 J (a multiple of 2^16)");
	d >>= 16;
	lo = 2 * LOOPS / 256 + 2 * LOOPS / 16384;
	hi = (o.n1 - o.n0 + SLACK) / 256 + time_units(&o, 14) + 2;
	snprintf(buf, sizeof(buf), "energy-pkg: %llu in [%llu, %llu]",
		 (unsigned long long)d, (unsigned long long)lo,
		 (unsigned long long)hi);
	check(d >= lo && d <= hi, buf);
	close(fd);
	return fails ? 1 : 0;
}

int main(void)
{
	static const char *const names[] = { "cores", "pkg", "ram", "psys" };
	static const uint64_t configs[] = { 1, 2, 3, 5 };
	uint64_t v0[5], v1[5], d[4], n;
	int fd[4], type, i, intel = 0;
	struct outer o;
	char line[200];
	cpu_set_t set;
	FILE *fp;

	setvbuf(stdout, NULL, _IONBF, 0);
	fp = fopen("/proc/cpuinfo", "r");
	while (fp && fgets(line, sizeof(line), fp))
		if (strstr(line, "GenuineIntel"))
			intel = 1;
	if (fp)
		fclose(fp);
	type = power_type();
	if (type < 0) {
		printf("not ok no power PMU\n");
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("not ok sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}

	cgroup_case(type);
	if (!intel)
		return amd(type);
	expect_errno(open_power(type, 2, -1, 0, 1000), EINVAL, "sampling");
	expect_errno(open_power(type, 2, 0, -1, 0), EINVAL, "a task event");
	expect_errno(open_power(type, 4, -1, 0, 0), EINVAL,
		     "energy-gpu (not modelled)");
	expect_errno(open_power(type, 6, -1, 0, 0), EINVAL, "config 6");
	expect_errno(open_power(type, 0x102, -1, 0, 0), EINVAL, "config 0x102");

	for (i = 0; i < 4; i++) {
		fd[i] = open_member(type, configs[i], i ? fd[0] : -1);
		if (fd[i] < 0) {
			printf("not ok open energy-%s: %s\n", names[i],
			       strerror(errno));
			return 1;
		}
	}
	if (outer_open(&o))
		return 1;
	/* nr, then the four counts, read back to back in the kernel */
	outer_start(&o);
	if (read(fd[0], v0, sizeof(v0)) != sizeof(v0) || v0[0] != 4)
		return 1;
	loop();
	if (read(fd[0], v1, sizeof(v1)) != sizeof(v1))
		return 1;
	outer_stop(&o);
	n = o.n1 - o.n0;
	for (i = 0; i < 4; i++) {
		d[i] = v1[i + 1] - v0[i + 1];
		printf("# energy-%s: %llu units of 2^-32 J = %llu model units\n",
		       names[i], (unsigned long long)d[i],
		       (unsigned long long)(d[i] >> SHIFT));
		snprintf(line, sizeof(line),
			 "energy-%s counts in 2^-32 J (a multiple of 2^18)",
			 names[i]);
		check(!(d[i] & ((1ULL << SHIFT) - 1)), line);
		d[i] >>= SHIFT;
	}
	/* the loop's share at least, what really ran and passed at most */
	check(d[0] >= 2 * LOOPS / 1024 && d[0] <= (n + SLACK) / 1024 + 2,
	      "energy-cores: the instructions retired / 1024");
	check(d[2] >= 2 * LOOPS / 262144 && d[2] <= time_units(&o, 18),
	      "energy-ram: the virtual time / 262144");
	check(d[3] + 2 >= d[1] + d[2] && d[3] <= d[1] + d[2] + 2,
	      "energy-psys = energy-pkg + energy-ram");
	check(d[1] >= d[0] && d[1] - d[0] + 4 >= 4 * d[2] &&
	      d[1] - d[0] <= 4 * d[2] + 8,
	      "energy-pkg - energy-cores = the virtual time / 65536");
	for (i = 0; i < 4; i++)
		close(fd[i]);
	return fails ? 1 : 0;
}
