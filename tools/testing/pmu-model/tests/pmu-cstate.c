// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-cstate: the cstate_core and cstate_pkg PMUs on the TCG PMU model
 * (C-state residency MSRs from the virtual clock, patch 0011), as root.
 *
 * 6.12 registers them only on Intel CPUs it knows by model, and not
 * under a hypervisor (CPUID's hypervisor bit): on the model's usual CPUs
 * (Skylake-PMU, EPYC-PMU) neither exists, which is checked too. The
 * runner boots Skylake-PMU a third time with hypervisor=off, where
 * (Skylake desktop, model 94) both exist, and this checks:
 *   - sysfs: events/ (core c3/c6/c7, package c2/c3/c6/c7), format/event,
 *     cpumask (a CPU per core and per package: with -smp 2,sockets=2 each
 *     CPU is its own core and package);
 *   - errors as 6.12: sampling, a task event, a config the model does
 *     not list, an exclude_* bit: EINVAL; config1 and config2 are
 *     ignored;
 *   - counts: the model keeps core C6 as the virtual ns a vCPU idles in
 *     HLT, package C6 as the ns all of a package's vCPUs do, both at the
 *     TSC's rate (1 GHz). While this program spins on CPU 0, CPU 0's
 *     counts do not move at all, and CPU 1 counts a good part of the time
 *     between the reads (it idles between the kernel's own work there,
 *     more of which runs on a KASAN kernel) but never more; while this
 *     sleeps, CPU 0 counts 90-101% of the sleep; unmodelled states (c3,
 *     c7, c2) count 0.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define SYSFS	"/sys/bus/event_source/devices/"

/* the first line of a file, without its newline; "" if unreadable */
static const char *line_of(const char *path)
{
	static char buf[256];
	FILE *fp = fopen(path, "r");

	buf[0] = 0;
	if (fp) {
		if (!fgets(buf, sizeof(buf), fp))
			buf[0] = 0;
		fclose(fp);
	}
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static int pmu_type(const char *pmu)
{
	char path[128];
	const char *s;

	snprintf(path, sizeof(path), SYSFS "%s/type", pmu);
	s = line_of(path);
	return *s ? atoi(s) : -1;
}

static void expect_file(const char *pmu, const char *file, const char *want)
{
	char path[160], what[320];
	const char *got;

	snprintf(path, sizeof(path), SYSFS "%s/%s", pmu, file);
	got = line_of(path);
	snprintf(what, sizeof(what), "%s/%s: \"%s\" (expected \"%s\")", pmu,
		 file, got, want);
	check(!strcmp(got, want), what);
}

/* events/ holds exactly the files of @names (a NULL-terminated list) */
static void expect_events(const char *pmu, const char *const *names)
{
	char path[160], cmd[256], list[512] = "", want[512] = "";
	FILE *fp;
	int i;

	snprintf(path, sizeof(path), SYSFS "%s/events", pmu);
	snprintf(cmd, sizeof(cmd), "ls %s | tr '\\n' ' '", path);
	fp = popen(cmd, "r");
	if (fp) {
		if (!fgets(list, sizeof(list), fp))
			list[0] = 0;
		pclose(fp);
	}
	for (i = 0; names[i]; i++) {
		strcat(want, names[i]);
		strcat(want, " ");
	}
	snprintf(cmd, sizeof(cmd), "%s/events: %s(expected %s)", pmu, list,
		 want);
	check(!strcmp(list, want), cmd);
}

static int open_ev(int type, uint64_t config, pid_t pid, int cpu,
		   void (*tweak)(struct perf_event_attr *))
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	if (tweak)
		tweak(&attr);
	return sys_perf_event_open(&attr, pid, cpu, -1, 0);
}

static void sampling(struct perf_event_attr *a) { a->sample_period = 1000; }
static void config1(struct perf_event_attr *a) { a->config1 = 1; }
static void config2(struct perf_event_attr *a) { a->config2 = 1; }
static void excl_user(struct perf_event_attr *a) { a->exclude_user = 1; }
static void excl_kernel(struct perf_event_attr *a) { a->exclude_kernel = 1; }
static void excl_hv(struct perf_event_attr *a) { a->exclude_hv = 1; }
static void excl_idle(struct perf_event_attr *a) { a->exclude_idle = 1; }

static void expect_open(int fd, const char *what)
{
	char buf[200];

	snprintf(buf, sizeof(buf), "%s: %s", what,
		 fd >= 0 ? "opened" : strerror(errno));
	check(fd >= 0, buf);
	if (fd >= 0)
		close(fd);
}

static uint64_t rd(int fd)
{
	uint64_t v = 0;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		printf("# read: %s\n", strerror(errno));
	return v;
}

static void spin(void)
{
	uint64_t n = 10000000;

	asm volatile("1: dec %0\n\tjnz 1b" : "+r" (n));
}

enum { CORE0, CORE1, PKG0, PKG1, CORE0_C3, CORE0_C7, PKG0_C2, NEV };

static const char *const ev_names[NEV] = {
	"core c6 CPU 0", "core c6 CPU 1", "pkg c6 CPU 0", "pkg c6 CPU 1",
	"core c3 CPU 0", "core c7 CPU 0", "pkg c2 CPU 0",
};

static int counts(int core, int pkg)
{
	int fd[NEV], i;
	uint64_t v0[NEV], v1[NEV], d[NEV], t0, t1, t2, t3, elapsed;
	char buf[200];
	struct timespec ts = { 0, 100000000 }, pause = { 0, 200000000 };
	int try;

	fd[CORE0] = open_ev(core, 2, -1, 0, NULL);
	fd[CORE1] = open_ev(core, 2, -1, 1, NULL);
	fd[PKG0] = open_ev(pkg, 2, -1, 0, NULL);
	fd[PKG1] = open_ev(pkg, 2, -1, 1, NULL);
	fd[CORE0_C3] = open_ev(core, 1, -1, 0, NULL);
	fd[CORE0_C7] = open_ev(core, 3, -1, 0, NULL);
	fd[PKG0_C2] = open_ev(pkg, 0, -1, 0, NULL);
	for (i = 0; i < NEV; i++) {
		if (fd[i] < 0) {
			printf("not ok open %s: %s\n", ev_names[i],
			       strerror(errno));
			return 1;
		}
	}

	/*
	 * spinning on CPU 0 while CPU 1 idles. Other work may keep CPU 1
	 * busy for a while after boot (a debug kernel's): up to 5 tries,
	 * 200 ms apart, for one where it idled a tenth of the spin. CPU 0's
	 * counts and every upper bound hold on each try.
	 */
	for (try = 0; try < 5; try++) {
		if (try)
			nanosleep(&pause, NULL);
		t0 = now_ns();
		for (i = 0; i < NEV; i++)
			v0[i] = rd(fd[i]);
		t1 = now_ns();
		spin();
		t2 = now_ns();
		for (i = 0; i < NEV; i++)
			v1[i] = rd(fd[i]);
		t3 = now_ns();
		for (i = 0; i < NEV; i++) {
			d[i] = v1[i] - v0[i];
			printf("# %s: %llu\n", ev_names[i],
			       (unsigned long long)d[i]);
		}
		printf("# spin %llu ns, reads around it %llu ns\n",
		       (unsigned long long)(t2 - t1),
		       (unsigned long long)(t3 - t0));
		check(d[CORE0] == 0, "spinning: core c6 of CPU 0 is 0");
		check(d[PKG0] == 0, "spinning: pkg c6 of CPU 0's package is 0");
		check(d[CORE1] <= (t3 - t0) * 101 / 100 &&
		      d[PKG1] <= (t3 - t0) * 101 / 100,
		      "CPU 1's core and pkg c6 at most the time around the reads");
		if (d[CORE1] >= (t2 - t1) / 10 && d[PKG1] >= (t2 - t1) / 10)
			break;
	}
	snprintf(buf, sizeof(buf),
		 "idle CPU 1: core c6 %llu, pkg c6 %llu at least spin / 10 = %llu (%d tries)",
		 (unsigned long long)d[CORE1], (unsigned long long)d[PKG1],
		 (unsigned long long)(t2 - t1) / 10, try < 5 ? try + 1 : 5);
	check(try < 5, buf);
	check(!d[CORE0_C3] && !d[CORE0_C7] && !d[PKG0_C2],
	      "unmodelled states count 0");

	/*
	 * sleeping: CPU 0 idles too. A boot-time device probe that ends
	 * in the sleep (the PS/2 mouse's, on this short boot) wakes it:
	 * up to 3 tries for one without; the upper bounds hold on each.
	 */
	for (try = 0; try < 3; try++) {
		v0[CORE0] = rd(fd[CORE0]);
		v0[PKG0] = rd(fd[PKG0]);
		t0 = now_ns();
		nanosleep(&ts, NULL);
		t1 = now_ns();
		v1[CORE0] = rd(fd[CORE0]);
		v1[PKG0] = rd(fd[PKG0]);
		elapsed = t1 - t0;
		d[CORE0] = v1[CORE0] - v0[CORE0];
		d[PKG0] = v1[PKG0] - v0[PKG0];
		printf("# sleep %llu ns: core c6 %llu, pkg c6 %llu\n",
		       (unsigned long long)elapsed, (unsigned long long)d[CORE0],
		       (unsigned long long)d[PKG0]);
		check(d[CORE0] <= elapsed * 101 / 100 &&
		      d[PKG0] <= elapsed * 101 / 100,
		      "sleeping: CPU 0's core and pkg c6 at most the sleep");
		if (d[CORE0] >= elapsed * 9 / 10 && d[PKG0] >= elapsed * 9 / 10)
			break;
	}
	check(d[CORE0] >= elapsed * 9 / 10,
	      "sleeping: core c6 of CPU 0 is 90-101% of the sleep");
	check(d[PKG0] >= elapsed * 9 / 10,
	      "sleeping: pkg c6 of CPU 0 is 90-101% of the sleep");
	for (i = 0; i < NEV; i++)
		close(fd[i]);
	return 0;
}

int main(void)
{
	static const char *const core_ev[] = {
		"c3-residency", "c6-residency", "c7-residency", NULL };
	static const char *const pkg_ev[] = {
		"c2-residency", "c3-residency", "c6-residency", "c7-residency",
		NULL };
	int intel = 0, hyper = 0, core, pkg;
	char line[4096];
	cpu_set_t set;
	FILE *fp;

	setvbuf(stdout, NULL, _IONBF, 0);
	fp = fopen("/proc/cpuinfo", "r");
	while (fp && fgets(line, sizeof(line), fp)) {
		if (strstr(line, "GenuineIntel"))
			intel = 1;
		if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor"))
			hyper = 1;
	}
	if (fp)
		fclose(fp);
	core = pmu_type("cstate_core");
	pkg = pmu_type("cstate_pkg");
	if (!intel || hyper) {
		snprintf(line, sizeof(line),
			 "%s: no cstate PMU (cstate_core %d, cstate_pkg %d)",
			 intel ? "under a hypervisor" : "AMD", core, pkg);
		check(core < 0 && pkg < 0, line);
		return fails ? 1 : 0;
	}
	if (core < 0 || pkg < 0) {
		printf("not ok no cstate PMU on bare metal (cstate_core %d, cstate_pkg %d)\n",
		       core, pkg);
		return 1;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("not ok sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}

	expect_events("cstate_core", core_ev);
	expect_events("cstate_pkg", pkg_ev);
	expect_file("cstate_core", "events/c6-residency", "event=0x02");
	expect_file("cstate_core", "events/c3-residency", "event=0x01");
	expect_file("cstate_core", "events/c7-residency", "event=0x03");
	expect_file("cstate_pkg", "events/c2-residency", "event=0x00");
	expect_file("cstate_pkg", "events/c3-residency", "event=0x01");
	expect_file("cstate_pkg", "events/c6-residency", "event=0x02");
	expect_file("cstate_pkg", "events/c7-residency", "event=0x03");
	expect_file("cstate_core", "format/event", "config:0-63");
	expect_file("cstate_pkg", "format/event", "config:0-63");
	expect_file("cstate_core", "cpumask", "0-1");
	expect_file("cstate_pkg", "cpumask", "0-1");

	expect_errno(open_ev(core, 2, -1, 0, sampling), EINVAL, "core: sampling");
	expect_errno(open_ev(pkg, 2, -1, 0, sampling), EINVAL, "pkg: sampling");
	expect_errno(open_ev(core, 2, 0, -1, NULL), EINVAL, "core: a task event");
	expect_errno(open_ev(pkg, 2, 0, -1, NULL), EINVAL, "pkg: a task event");
	expect_errno(open_ev(core, 0, -1, 0, NULL), EINVAL,
		     "core: config 0 (c1, not on this model)");
	expect_errno(open_ev(core, 4, -1, 0, NULL), EINVAL, "core: config 4");
	expect_errno(open_ev(pkg, 4, -1, 0, NULL), EINVAL,
		     "pkg: config 4 (c8, not on this model)");
	expect_errno(open_ev(pkg, 1ULL << 32, -1, 0, NULL), EINVAL,
		     "pkg: config 1 << 32");
	expect_open(open_ev(core, 2, -1, 0, config1), "core: config1 (ignored)");
	expect_open(open_ev(pkg, 2, -1, 0, config2), "pkg: config2 (ignored)");
	expect_errno(open_ev(core, 2, -1, 0, excl_user), EINVAL, "core: exclude_user");
	expect_errno(open_ev(core, 2, -1, 0, excl_kernel), EINVAL, "core: exclude_kernel");
	expect_errno(open_ev(pkg, 2, -1, 0, excl_hv), EINVAL, "pkg: exclude_hv");
	expect_errno(open_ev(pkg, 2, -1, 0, excl_idle), EINVAL, "pkg: exclude_idle");

	if (counts(core, pkg))
		return 1;
	return fails ? 1 : 0;
}
