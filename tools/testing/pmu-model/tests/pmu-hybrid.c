// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-hybrid: the two PMUs of a hybrid Intel CPU (AlderLake-PMU, 0023:
 * CPU 0 a Core, CPU 1 an Atom), through perf_event_open on itself.
 *
 * - sysfs: cpu_core is PERF_TYPE_RAW with cpus "0", cpu_atom a dynamic
 *   type with cpus "1";
 * - a task event of each PMU counts only while its task runs on a CPU
 *   of its kind: exact user-mode instructions of a loop pinned to each
 *   CPU, nothing on the other, time_running short of time_enabled by
 *   the time spent on the other kind;
 * - a CPU event for a CPU of the other kind is refused;
 * - the generic events name their PMU in config[63:32]
 *   (PERF_PMU_TYPE_SHIFT): such an event counts on that kind only;
 * - each kind's counters: a group of branch events that fits the Core's
 *   8 general counters is refused on the Atom's 6;
 * - the Core's top-down metrics, level 1 and 2, in a slots group;
 * - rdpmc on each kind reads its own counter;
 * - each kind's generic cache events program what 6.12 programs;
 * - each kind's branch stack (architectural LBRs, 0024) is as deep as
 *   CPUID leaf 0x1C says on a CPU of that kind, in caps/branches and in
 *   the samples; pmu-atom-lbr-depth=16 (a boot of ours only: the stock
 *   driver sizes both from the boot CPU) makes the Atom's shallower;
 * - a task's LBR call stacks on both kinds at once, as perf record
 *   --call-graph lbr opens them.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define N	100000
/* the deepest branch stack the ABI has (perf's PERF_MAX_BRANCH_DEPTH) */
#define X86_MAX_DEPTH	127
#define MAXG	10

static int core_type, atom_type;

/* n iterations of a dec/jnz loop: n branches, 2n instructions */
static void loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

static int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

static void read_str(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = 0;
	if (f) {
		if (!fgets(buf, len, f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
}

/* an open that must succeed: its errno otherwise */
static void check_open(int ok, const char *what)
{
	char buf[200];

	snprintf(buf, sizeof(buf), "%s%s%s", what, ok ? "" : ": ",
		 ok ? "" : strerror(errno));
	check(ok, buf);
}

/*
 * kernel: 0 user mode only, 1 also the kernel, 2 that and a group leader
 * (PERF_FORMAT_GROUP)
 */
static int open_ev(__u32 type, __u64 config, int cpu, int group, int kernel)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = group < 0;
	attr.exclude_kernel = !kernel;
	attr.exclude_hv = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	if (group >= 0 || kernel > 1)
		attr.read_format |= PERF_FORMAT_GROUP;
	return sys_perf_event_open(&attr, cpu < 0 ? 0 : -1, cpu, group, 0);
}

struct val {
	__u64 count, enabled, running;
};

static void read_val(int fd, struct val *v)
{
	memset(v, 0, sizeof(*v));
	if (read(fd, v, sizeof(*v)) != sizeof(*v))
		perror("read");
}

static void sysfs(void)
{
	char buf[64];

	core_type = read_int("/sys/bus/event_source/devices/cpu_core/type");
	atom_type = read_int("/sys/bus/event_source/devices/cpu_atom/type");
	check_val(core_type == PERF_TYPE_RAW, "cpu_core's type is PERF_TYPE_RAW",
		  core_type, PERF_TYPE_RAW);
	check(atom_type > PERF_TYPE_MAX && atom_type != core_type,
	      "cpu_atom has a dynamic type of its own");
	check(access("/sys/bus/event_source/devices/cpu", F_OK) != 0,
	      "no \"cpu\" PMU beside them");
	read_str("/sys/bus/event_source/devices/cpu_core/cpus", buf, sizeof(buf));
	printf("cpu_core/cpus: %s\n", buf);
	check(!strcmp(buf, "0"), "cpu_core's cpus are \"0\"");
	read_str("/sys/bus/event_source/devices/cpu_atom/cpus", buf, sizeof(buf));
	printf("cpu_atom/cpus: %s\n", buf);
	check(!strcmp(buf, "1"), "cpu_atom's cpus are \"1\"");
}

/*
 * Task events of both PMUs over a loop pinned to each CPU in turn:
 * each counts the loop on its own kind only
 */
static void task_events(void)
{
	struct val c, a;
	char what[160];
	int fc, fa, cpu;

	for (cpu = 0; cpu < 2; cpu++) {
		/* a loop of 2N counts exactly 2N more than one of N */
		long d[2][2];
		int k;

		/* new events: their times start here */
		pin(cpu);
		fc = open_ev(core_type, 0xc0, -1, -1, 0);
		fa = open_ev(atom_type, 0xc0, -1, -1, 0);
		check_open(fc >= 0 && fa >= 0,
			   "task events of cpu_core and cpu_atom open");
		if (fc < 0 || fa < 0)
			return;
		for (k = 0; k < 2; k++) {
			ioctl(fc, PERF_EVENT_IOC_RESET, 0);
			ioctl(fa, PERF_EVENT_IOC_RESET, 0);
			ioctl(fc, PERF_EVENT_IOC_ENABLE, 0);
			ioctl(fa, PERF_EVENT_IOC_ENABLE, 0);
			loop(N * (k + 1));
			ioctl(fc, PERF_EVENT_IOC_DISABLE, 0);
			ioctl(fa, PERF_EVENT_IOC_DISABLE, 0);
			read_val(fc, &c);
			read_val(fa, &a);
			d[k][0] = c.count;
			d[k][1] = a.count;
		}
		snprintf(what, sizeof(what),
			 "pinned to CPU %d: cpu_core counts the loop's instructions by difference",
			 cpu);
		check_val(d[1][0] - d[0][0] == (cpu == 0 ? 2 * N : 0), what,
			  d[1][0] - d[0][0], cpu == 0 ? 2 * N : 0);
		snprintf(what, sizeof(what),
			 "pinned to CPU %d: cpu_atom counts the loop's instructions by difference",
			 cpu);
		check_val(d[1][1] - d[0][1] == (cpu == 1 ? 2 * N : 0), what,
			  d[1][1] - d[0][1], cpu == 1 ? 2 * N : 0);
		snprintf(what, sizeof(what),
			 "pinned to CPU %d: the other kind's event never ran",
			 cpu);
		check(cpu == 0 ? (a.running == 0 && a.enabled > 0) :
				 (c.running == 0 && c.enabled > 0), what);
		snprintf(what, sizeof(what),
			 "pinned to CPU %d: its own kind's event ran all the time",
			 cpu);
		check(cpu == 0 ? c.running == c.enabled && c.enabled > 0 :
				 a.running == a.enabled && a.enabled > 0, what);
		close(fc);
		close(fa);
	}

	fc = open_ev(core_type, 0xc0, -1, -1, 0);
	fa = open_ev(atom_type, 0xc0, -1, -1, 0);
	check_open(fc >= 0 && fa >= 0, "task events of cpu_core and cpu_atom open");
	if (fc < 0 || fa < 0)
		return;

	/* one loop on each kind under the same two events */
	pin(0);
	ioctl(fc, PERF_EVENT_IOC_RESET, 0);
	ioctl(fa, PERF_EVENT_IOC_RESET, 0);
	ioctl(fc, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fa, PERF_EVENT_IOC_ENABLE, 0);
	loop(N);
	pin(1);
	loop(3 * N);
	ioctl(fc, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fa, PERF_EVENT_IOC_DISABLE, 0);
	read_val(fc, &c);
	read_val(fa, &a);
	printf("migrating: core %llu (%llu/%llu ns), atom %llu (%llu/%llu ns)\n",
	       (unsigned long long)c.count, (unsigned long long)c.running,
	       (unsigned long long)c.enabled, (unsigned long long)a.count,
	       (unsigned long long)a.running, (unsigned long long)a.enabled);
	check(c.count >= 2 * N && c.count < 3 * N,
	      "migrating: cpu_core counted the loop on CPU 0 only");
	check(a.count >= 6 * N && a.count < 7 * N,
	      "migrating: cpu_atom counted the loop on CPU 1 only");
	check(c.running > 0 && c.running < c.enabled,
	      "migrating: cpu_core ran part of its enabled time");
	check(a.running > 0 && a.running < a.enabled,
	      "migrating: cpu_atom ran part of its enabled time");
	close(fc);
	close(fa);
}

/* CPU events: each PMU on its own CPUs only */
static void cpu_events(void)
{
	int fd;

	fd = open_ev(core_type, 0xc0, 0, -1, 0);
	check_open(fd >= 0, "a cpu_core event for CPU 0 opens");
	if (fd >= 0)
		close(fd);
	fd = open_ev(atom_type, 0xc0, 1, -1, 0);
	check_open(fd >= 0, "a cpu_atom event for CPU 1 opens");
	if (fd >= 0)
		close(fd);
	fd = open_ev(core_type, 0xc0, 1, -1, 0);
	expect_errno(fd, ENOENT, "a cpu_core event for CPU 1 (an Atom)");
	fd = open_ev(atom_type, 0xc0, 0, -1, 0);
	expect_errno(fd, ENOENT, "a cpu_atom event for CPU 0 (a Core)");
	/* a generic event without a PMU goes to the kind of its CPU */
	fd = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1, -1, 0);
	check_open(fd >= 0, "a generic instructions event for CPU 1 opens");
	if (fd >= 0)
		close(fd);
}

/* the extended type: config[63:32] names the PMU */
static void extended_type(void)
{
	__u64 ins = PERF_COUNT_HW_INSTRUCTIONS;
	struct val c, a;
	long dc, da;
	int fc, fa, fd;

	pin(1);
	fc = open_ev(PERF_TYPE_HARDWARE,
		     ins | (__u64)core_type << PERF_PMU_TYPE_SHIFT, -1, -1, 0);
	fa = open_ev(PERF_TYPE_HARDWARE,
		     ins | (__u64)atom_type << PERF_PMU_TYPE_SHIFT, -1, -1, 0);
	check_open(fc >= 0 && fa >= 0,
		   "generic instructions naming cpu_core and cpu_atom open");
	if (fc >= 0 && fa >= 0) {
		ioctl(fc, PERF_EVENT_IOC_ENABLE, 0);
		ioctl(fa, PERF_EVENT_IOC_ENABLE, 0);
		loop(N);
		read_val(fc, &c);
		read_val(fa, &a);
		dc = c.count;
		da = a.count;
		loop(N);
		read_val(fc, &c);
		read_val(fa, &a);
		check_val(c.count - dc == 0,
			  "on the Atom: the event naming cpu_core counts nothing",
			  c.count - dc, 0);
		/* the loop and the read's own instructions */
		check(a.count - da >= 2 * N && a.count - da < 2 * N + 2000,
		      "on the Atom: the event naming cpu_atom counts the loop");
	}
	if (fc >= 0)
		close(fc);
	if (fa >= 0)
		close(fa);
	fd = open_ev(PERF_TYPE_HW_CACHE,
		     (__u64)PERF_TYPE_SOFTWARE << PERF_PMU_TYPE_SHIFT, -1, -1, 0);
	expect_errno(fd, ENOENT, "a cache event naming the software PMU");
	fd = open_ev(PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX |
		     (__u64)atom_type << PERF_PMU_TYPE_SHIFT, -1, -1, 0);
	expect_errno(fd, EINVAL, "an unknown generic event naming cpu_atom");
	pin(0);
}

/*
 * A group of @nr branch events of @type: fits the kind's general
 * counters (counts all the time) or is refused at its last member
 */
static void group(int type, const char *name, int nr, int fits)
{
	__u64 buf[3 + MAXG];
	int fd[MAXG], i, n, cpu = type == core_type ? 0 : 1;
	char what[160];

	pin(cpu);
	for (n = 0; n < nr; n++) {
		fd[n] = open_ev(type, 0xc4, -1, n ? fd[0] : -1, 2);
		if (fd[n] < 0)
			break;
	}
	if (!fits) {
		snprintf(what, sizeof(what),
			 "%s: a group of %d branch events, one too many", name,
			 nr);
		check(n == nr - 1 && errno == EINVAL, what);
		if (n != nr - 1 || errno != EINVAL)
			printf("opened %d: %s\n", n, strerror(errno));
	} else {
		snprintf(what, sizeof(what),
			 "%s: a group of %d branch events counts all the time",
			 name, nr);
		if (n == nr) {
			ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
			loop(N);
			ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
			if (read(fd[0], buf, sizeof(buf)) < 0)
				buf[0] = 0;
			printf("%s: nr %llu enabled %llu running %llu first %llu\n",
			       name, (unsigned long long)buf[0],
			       (unsigned long long)buf[1],
			       (unsigned long long)buf[2],
			       (unsigned long long)buf[3]);
			check(buf[0] == (__u64)nr && buf[1] == buf[2] &&
			      buf[3] >= N, what);
		} else {
			check_open(0, what);
		}
	}
	for (i = 0; i < n; i++)
		close(fd[i]);
	pin(0);
}

/* slots with the level 1 and 2 metrics, on the Core */
static void topdown(void)
{
	__u64 buf[3 + MAXG];
	int fd[9], n, i;

	pin(0);
	fd[0] = open_ev(core_type, 0x0400, -1, -1, 2);
	for (n = 1; n < 9 && fd[0] >= 0; n++) {
		fd[n] = open_ev(core_type, 0x8000 + (n - 1) * 0x100, -1, fd[0],
				2);
		if (fd[n] < 0)
			break;
	}
	check(fd[0] >= 0 && n == 9,
	      "cpu_core: slots with its 8 metric events opens");
	if (fd[0] >= 0 && n == 9) {
		__u64 sum = 0;

		ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		loop(N);
		ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
		if (read(fd[0], buf, sizeof(buf)) < 0)
			buf[0] = 0;
		for (i = 4; i < 8; i++)
			sum += buf[i];
		printf("slots %llu, level 1 %llu %llu %llu %llu, level 2 %llu %llu %llu %llu\n",
		       (unsigned long long)buf[3], (unsigned long long)buf[4],
		       (unsigned long long)buf[5], (unsigned long long)buf[6],
		       (unsigned long long)buf[7], (unsigned long long)buf[8],
		       (unsigned long long)buf[9], (unsigned long long)buf[10],
		       (unsigned long long)buf[11]);
		check(buf[0] == 9 && buf[3] > 0 && sum <= buf[3] &&
		      sum + 8 >= buf[3] / 2,
		      "cpu_core: the level 1 metrics split the slots");
	}
	for (i = 0; i < n && i < 9; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/* rdpmc: each kind's event is read from its own counter */
static void rdpmc(int type, int cpu, const char *name)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pg;
	char what[160];
	__u64 before, after;
	unsigned int lo, hi;
	int fd;

	pin(cpu);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = 0xc0;
	attr.exclude_kernel = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	snprintf(what, sizeof(what), "%s: rdpmc reads its counter", name);
	if (fd < 0) {
		check_open(0, what);
		return;
	}
	pg = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		check(0, what);
		close(fd);
		return;
	}
	if (!pg->cap_user_rdpmc || !pg->index) {
		printf("cap_user_rdpmc %d index %u\n", (int)pg->cap_user_rdpmc,
		       pg->index);
		check(0, what);
	} else {
		asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(pg->index - 1));
		before = (__u64)hi << 32 | lo;
		loop(N);
		asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(pg->index - 1));
		after = (__u64)hi << 32 | lo;
		printf("%s: index %u, width %u, moved %llu\n", name, pg->index,
		       pg->pmc_width, (unsigned long long)(after - before));
		check(after - before >= 2 * N && after - before < 2 * N + 100,
		      what);
	}
	munmap(pg, sysconf(_SC_PAGESIZE));
	close(fd);
	pin(0);
}

/*
 * The generic cache events of each kind, as 6.12 programs them on the
 * model (read back through /dev/cpu/N/msr): the event select and unit
 * mask, and for the offcore response event MSR_OFFCORE_RSP_0's value;
 * 0 an event the kind does not have (ENOENT), -1 one that makes no
 * sense (EINVAL). The Core's are Golden Cove's, the Atom's Gracemont's.
 */
struct cache_entry {
	int	sel;
	__u64	rsp;
};

#define NO	{ 0, 0 }
#define BAD	{ -1, 0 }
/* [cache 0-6][op 0-2][result 0-1] */
static const struct cache_entry core_cache[7][3][2] = {
	{ { { 0x81d0 }, { 0xe124 } }, { { 0x82d0 }, NO }, { NO, NO } },
	{ { NO, { 0xe424 } }, { BAD, BAD }, { NO, NO } },
	{ { { 0x012a, 0x10001 }, { 0x012a, 0x3fbfc00001ULL } },
	  { { 0x012a, 0x3f3ffc0002ULL }, { 0x012a, 0x3f3fc00002ULL } },
	  { NO, NO } },
	{ { { 0x81d0 }, { 0x0e12 } }, { { 0x82d0 }, { 0x0e13 } }, { NO, NO } },
	{ { BAD, { 0x0e11 } }, { BAD, BAD }, { BAD, BAD } },
	{ { { 0x04c4 }, { 0x04c5 } }, { BAD, BAD }, { BAD, BAD } },
	{ { { 0x012a, 0x10c000001ULL }, { 0x012a, 0x3fb3000001ULL } },
	  { NO, NO }, { NO, NO } },
};

static const struct cache_entry atom_cache[7][3][2] = {
	{ { { 0x81d0 }, NO }, { { 0x82d0 }, NO }, { NO, NO } },
	{ { { 0x0380 }, { 0x0280 } }, { BAD, BAD }, { NO, NO } },
	{ { { 0x01b7, 0x10001 }, { 0x01b7, 0x3f04000001ULL } },
	  { { 0x01b7, 0x10002 }, { 0x01b7, 0x3f04000002ULL } },
	  { NO, NO } },
	{ { { 0x81d0 }, { 0x0e08 } }, { { 0x82d0 }, { 0x0e49 } }, { NO, NO } },
	{ { BAD, { 0x0481 } }, { BAD, BAD }, { BAD, BAD } },
	{ { { 0x00c4 }, { 0x00c5 } }, { BAD, BAD }, { BAD, BAD } },
	{ { NO, NO }, { NO, NO }, { NO, NO } },
};

static __u64 rdmsr_on(int cpu, unsigned int msr)
{
	char path[64];
	__u64 v = 0;
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 0;
	if (pread(fd, &v, sizeof(v), msr) != sizeof(v))
		v = 0;
	close(fd);
	return v;
}

/* CPU events of @type on @cpu for every entry: errno or what it programs */
static void cache_table(int type, int cpu, int nr_gp, const char *name,
			const struct cache_entry (*want)[3][2])
{
	struct perf_event_attr attr;
	int c, o, r, i, bad = 0, fd;

	for (c = 0; c < 7; c++)
	for (o = 0; o < 3; o++)
	for (r = 0; r < 2; r++) {
		const struct cache_entry *w = &want[c][o][r];
		int sel = -2;
		__u64 rsp = 0;

		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_HW_CACHE;
		attr.config = c | o << 8 | r << 16 |
			      (__u64)type << PERF_PMU_TYPE_SHIFT;
		attr.exclude_kernel = 1;
		fd = sys_perf_event_open(&attr, -1, cpu, -1, 0);
		if (fd < 0) {
			if ((w->sel == 0 && errno == ENOENT) ||
			    (w->sel == -1 && errno == EINVAL))
				continue;
			printf("%s %d/%d/%d: %s\n", name, c, o, r,
			       strerror(errno));
			bad++;
			continue;
		}
		for (i = 0; i < nr_gp; i++) {
			__u64 v = rdmsr_on(cpu, 0x186 + i);

			if (v & (1 << 22))
				sel = v & 0xffff;
		}
		if ((sel & 0xff) == 0xb7 || (sel & 0xff) == 0x2a)
			rsp = rdmsr_on(cpu, 0x1a6);
		close(fd);
		if (sel == w->sel && (!w->rsp || rsp == w->rsp))
			continue;
		printf("%s %d/%d/%d: select %#x offcore %#llx, want %#x %#llx\n",
		       name, c, o, r, sel, (unsigned long long)rsp, w->sel,
		       (unsigned long long)w->rsp);
		bad++;
	}
	{
		char what[100];

		snprintf(what, sizeof(what),
			 "%s: every generic cache event as 6.12's", name);
		check(!bad, what);
	}
}

/*
 * The Atom's offcore response events (0xb7, unit mask 1 or 2): two
 * values take both registers, the second event moving to the other
 * register's unit mask
 */
static void atom_offcore(void)
{
	struct perf_event_attr attr;
	int fd[2], i, ok = 1;
	__u64 sel[6], rsp0, rsp1;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = atom_type;
	attr.config = 0x01b7;
	attr.exclude_kernel = 1;
	for (i = 0; i < 2; i++) {
		attr.config1 = 0x10001 + i;
		fd[i] = sys_perf_event_open(&attr, -1, 1, -1, 0);
		ok &= fd[i] >= 0;
	}
	for (i = 0; i < 6; i++)
		sel[i] = rdmsr_on(1, 0x186 + i) & 0xffff;
	rsp0 = rdmsr_on(1, 0x1a6);
	rsp1 = rdmsr_on(1, 0x1a7);
	printf("offcore: selects %#llx %#llx, RSP_0 %#llx, RSP_1 %#llx\n",
	       (unsigned long long)sel[0], (unsigned long long)sel[1],
	       (unsigned long long)rsp0, (unsigned long long)rsp1);
	check(ok && sel[0] == 0x01b7 && sel[1] == 0x02b7 && rsp0 == 0x10001 &&
	      rsp1 == 0x10002,
	      "cpu_atom: two offcore values take both registers (0x01b7, 0x02b7)");
	for (i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/* this CPU's architectural LBR depth (CPUID 0x1C), 0 without */
static int cpuid_lbr_depth(void)
{
	unsigned int a, b, c, d;
	int depth = 0, i;

	asm volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
		     : "a"(7), "c"(0));
	if (!(d & (1U << 19)))
		return 0;
	asm volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d)
		     : "a"(0x1c), "c"(0));
	for (i = 0; i < 8; i++)
		if (a & (1U << i))
			depth = 8 * (i + 1);
	return depth;
}

#define BS_PAGES	16

/* a sampling event of @type on this task with a branch stack of @bst */
static int open_bs(int type, __u64 config, __u64 bst, __u64 period)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = bst;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/*
 * The samples of a ring buffer (sample_type BRANCH_STACK only): how
 * many, and how many had a stack of @depth entries (and none more)
 */
static void bs_samples(void *base, int depth, int *n, int *full, int *over)
{
	struct perf_event_mmap_page *pc = base;
	char *data = (char *)base + sysconf(_SC_PAGESIZE);
	__u64 size = pc->data_size, head = pc->data_head, tail = 0;

	__sync_synchronize();
	*n = *full = *over = 0;
	while (tail + sizeof(struct perf_event_header) <= head) {
		struct perf_event_header *h = (void *)(data + tail % size);

		if (h->type == PERF_RECORD_SAMPLE) {
			__u64 bnr = *(__u64 *)(h + 1);

			(*n)++;
			*full += bnr == (__u64)depth;
			*over += bnr > (__u64)depth;
		}
		if (!h->size)
			break;
		tail += h->size;
	}
}

/* the branch stack of the PMU @name, on @cpu, a CPU of its kind */
static void branch_depth(int type, int cpu, const char *name)
{
	char path[128], what[160];
	int depth, fd, n, full, over;
	void *base;
	size_t len = (BS_PAGES + 1) * sysconf(_SC_PAGESIZE);

	pin(cpu);
	depth = cpuid_lbr_depth();
	snprintf(what, sizeof(what), "%s: CPUID 0x1C on CPU %d gives depth %d",
		 name, cpu, depth);
	check(depth > 0, what);
	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/%s/caps/branches", name);
	snprintf(what, sizeof(what), "%s: caps/branches is its kind's depth",
		 name);
	check_val(read_int(path) == depth, what, read_int(path), depth);

	fd = open_bs(type, 0xc0, PERF_SAMPLE_BRANCH_ANY |
		     PERF_SAMPLE_BRANCH_USER, 20000);
	snprintf(what, sizeof(what), "%s: a branch stack sampling event", name);
	check_open(fd >= 0, what);
	if (fd < 0)
		goto out;
	base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (base == MAP_FAILED) {
		check(0, "mmap");
		close(fd);
		goto out;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop(5 * N);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	bs_samples(base, depth, &n, &full, &over);
	printf("%s: %d samples, %d with %d entries, %d with more\n", name, n,
	       full, depth, over);
	snprintf(what, sizeof(what),
		 "%s: every sample of a %d-branch loop has a full stack of %d",
		 name, 5 * N, depth);
	check(n >= 10 && full == n && !over, what);
	munmap(base, len);
	close(fd);
out:
	pin(0);
}

/*
 * perf record --call-graph lbr opens a call-stack event on each PMU for
 * the same task: both are the task's at once, and each samples on its
 * kind
 */
static void call_stacks(void)
{
	__u64 bst = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_CALL_STACK;
	size_t len = (BS_PAGES + 1) * sysconf(_SC_PAGESIZE);
	int fd[2], n[2], full, over, i;
	void *base[2] = { MAP_FAILED, MAP_FAILED };

	fd[0] = open_bs(core_type, 0xc0, bst, 20000);
	check_open(fd[0] >= 0, "cpu_core: an LBR call-stack event of this task");
	fd[1] = open_bs(atom_type, 0xc0, bst, 20000);
	check_open(fd[1] >= 0,
		   "cpu_atom: one of the same task beside cpu_core's");
	for (i = 0; i < 2; i++) {
		n[i] = 0;
		if (fd[i] >= 0)
			base[i] = mmap(NULL, len, PROT_READ | PROT_WRITE,
				       MAP_SHARED, fd[i], 0);
		if (base[i] != MAP_FAILED)
			ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	}
	pin(0);
	loop(2 * N);
	pin(1);
	loop(2 * N);
	pin(0);
	for (i = 0; i < 2; i++) {
		if (base[i] == MAP_FAILED)
			continue;
		ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
		bs_samples(base[i], X86_MAX_DEPTH, &n[i], &full, &over);
		munmap(base[i], len);
	}
	printf("call-stack samples: cpu_core %d, cpu_atom %d\n", n[0], n[1]);
	check(n[0] >= 5 && n[1] >= 5,
	      "each call-stack event sampled the task on its kind");
	for (i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (access("/sys/bus/event_source/devices/cpu_atom", F_OK)) {
		printf("ok # SKIP not a hybrid CPU\n");
		return 0;
	}
	sysfs();
	if (core_type < 0 || atom_type < 0)
		return 1;
	task_events();
	cpu_events();
	extended_type();
	group(core_type, "cpu_core", 8, 1);
	group(core_type, "cpu_core", 9, 0);
	group(atom_type, "cpu_atom", 6, 1);
	group(atom_type, "cpu_atom", 7, 0);
	topdown();
	rdpmc(core_type, 0, "cpu_core");
	rdpmc(atom_type, 1, "cpu_atom");
	cache_table(core_type, 0, 8, "cpu_core", core_cache);
	cache_table(atom_type, 1, 6, "cpu_atom", atom_cache);
	atom_offcore();
	branch_depth(core_type, 0, "cpu_core");
	branch_depth(atom_type, 1, "cpu_atom");
	call_stacks();
	return fails ? 1 : 0;
}
