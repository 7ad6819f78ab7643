// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-uncore: the AMD L3 and data-fabric PMUs (amd_l3, amd_df) on the
 * EPYC-PMU model (pmu-model.rst, 0016), held to the stock 6.12 kernel's
 * driver. Root (the MSR reads), pinned to CPU 0. Skips on Intel.
 *
 * The model counts an L3 lookup for every line that misses a vCPU's L2
 * (256 KiB), a hit or a miss of its L3 (8 MiB), and a DRAM request on
 * channel 0 for every L3 miss, at every privilege level. A sweep of one
 * load per line over HIT_LINES (2 MiB), once warm, misses the L2 and
 * hits the L3 at every line; one over MISS_LINES (16 MiB, twice the L3)
 * misses both at every line. The counters count the kernel's own L2
 * misses in the window too (the ioctl and read paths, a timer tick), so
 * a count is at least the sweep's lines and at most SLACK more; counts
 * the model makes exact are asserted exactly: a filter for a core or
 * thread the L3 domain lacks, a slice the L3 lacks, a select that counts
 * nothing, a disabled event.
 *
 * Stock facts asserted (each printed as "# fact: ..."): the sysfs files
 * of both PMUs, the cpumask by the topology (the tests' machine gives
 * every vCPU its own socket, so each vCPU is its own L3 domain and
 * package: "0-1"), the control value the driver programs for a config
 * (read back through /dev/cpu/0/msr while it counts, and once disabled),
 * which config bits it passes through, its 48-bit arithmetic, the open
 * errors (a cgroup event among them), groups, what happens to more events than counters (separate
 * events rotate, an oversized group opens and never runs), and CPU
 * hotplug (no reading CPU for an offline domain; the events of a CPU
 * that went offline, uncore and core alike, stay off once it is back).
 * "pmu-uncore sweep CPU" is the workload of pmu-uncore-perf.sh, "pmu-uncore
 * kmsg" prints the kernel log for it (the runner's dmesg -c leaves
 * /dev/kmsg alone).
 * Exit 0 on success (or the skip), 1 on a failed check.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-check.h"
#include "pmu-ring.h"

#define DEV		"/sys/bus/event_source/devices/"
#define HIT_LINES	32768		/* 2 MiB */
#define MISS_LINES	262144		/* 16 MiB */
/*
 * the kernel's lines in a window: its paths and timer ticks, more ticks
 * on a loaded host (the sweep's real time grows without icount)
 */
#define SLACK		8192
#define MUX_SWEEPS	100		/* the multiplexing case's sweeps */
#define L3_CTRS		6
#define DF_CTRS		4
#define MSR_L3_CFG	0xc0010230	/* ChL3PmcCfg i at + 2i */
#define MSR_DF_CFG	0xc0010240	/* DF PerfCtl i at + 2i */
#define EN		(1ULL << 22)

/* the stock driver's control values */
#define L3_DEFAULTS	(3ULL << 56 | 1ULL << 47 | 1ULL << 46)
#define L3_LOOKUPS	0xff04ULL	/* l3_lookup_state, all */
#define L3_HITS		0xfe04ULL
#define L3_MISSES	0x0104ULL
#define DF_DRAM0	0x3807ULL	/* dram_channel_data_controller_0 */
#define DF_DRAM1	0x3847ULL	/* ... _1: nothing on the model */

/* one load per 64-byte line of @lines lines from @buf */
void sweep(void *buf, long lines);
asm(".text\n"
    ".globl sweep\n"
    "sweep:\n"
    "	mov %rsi, %rcx\n"
    "1:\n"
    "	mov (%rdi), %rax\n"
    "	add $64, %rdi\n"
    "	dec %rcx\n"
    "	jnz 1b\n"
    "	ret\n");

static char *hit_buf, *miss_buf;
static int l3_type, df_type;
/* does CPU 1 share CPU 0's L3, package? */
static int same_l3, same_pkg;

static void fact(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fact(const char *fmt, ...)
{
	va_list ap;

	printf("# fact: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

static int read_str(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "r");
	int ok = fp && fgets(buf, len, fp);

	if (fp)
		fclose(fp);
	if (!ok)
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return ok;
}

static int pmu_type(const char *pmu)
{
	char path[128], v[32];

	snprintf(path, sizeof(path), DEV "%s/type", pmu);
	return read_str(path, v, sizeof(v)) ? atoi(v) : -1;
}

static int sys_open(struct perf_event_attr *a, int pid, int cpu, int group)
{
	a->size = sizeof(*a);
	return sys_perf_event_open(a, pid, cpu, group, 0);
}

static uint64_t rdmsr(int cpu, uint32_t msr)
{
	static int fd[2] = { -1, -1 };
	char path[32];
	uint64_t v;

	if (fd[cpu] < 0) {
		snprintf(path, sizeof(path), "/dev/cpu/%d/msr", cpu);
		fd[cpu] = open(path, O_RDONLY);
	}
	if (pread(fd[cpu], &v, 8, msr) != 8)
		return ~0ULL;
	return v;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static struct perf_event_attr attr(int type, uint64_t config)
{
	struct perf_event_attr a = {
		.type = type,
		.config = config,
		.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			       PERF_FORMAT_TOTAL_TIME_RUNNING,
		.disabled = 1,
	};

	return a;
}

static int open_unc(int type, uint64_t config, int cpu, int group)
{
	struct perf_event_attr a = attr(type, config);

	return sys_open(&a, -1, cpu, group);
}

struct rd {
	uint64_t val, ena, run;
};

static struct rd rd(int fd)
{
	struct rd r = { ~0ULL, 0, 0 };

	if (read(fd, &r, sizeof(r)) != sizeof(r))
		r.val = ~0ULL;
	return r;
}

/* @v in [@lo, @lo + @slack] */
static void check_range(const char *what, uint64_t v, uint64_t lo,
			uint64_t slack)
{
	printf("%s %s: %llu in [%llu, %llu]\n",
	       v >= lo && v <= lo + slack ? "ok" : "not ok", what,
	       (unsigned long long)v, (unsigned long long)lo,
	       (unsigned long long)(lo + slack));
	if (v < lo || v > lo + slack)
		fails++;
}

/* ------------------------------------------------------------------ */
/* sysfs                                                               */

struct file {
	const char *name, *value;
};

static const struct file l3_files[] = {
	{ "format/coreid", "config:42-44" },
	{ "format/enallcores", "config:47" },
	{ "format/enallslices", "config:46" },
	{ "format/event", "config:0-7" },
	{ "format/sliceid", "config:48-50" },
	{ "format/threadmask", "config:56-57" },
	{ "format/umask", "config:8-15" },
	{ "perf_event_mux_interval_ms", "4" },
	{ "type", "14" },
	{ NULL, NULL }
};

static const struct file df_files[] = {
	{ "format/event", "config:0-7,32-37" },
	{ "format/umask", "config:8-15,24-27" },
	{ "perf_event_mux_interval_ms", "4" },
	{ "type", "13" },
	{ NULL, NULL }
};

/* the entries of directory @path, sorted, space-separated */
static void list_dir(const char *path, char *out, size_t len)
{
	struct dirent **names;
	int n, i;

	out[0] = 0;
	n = scandir(path, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.') {
			strncat(out, names[i]->d_name, len - strlen(out) - 2);
			strcat(out, " ");
		}
		free(names[i]);
	}
	if (n > 0)
		free(names);
}

static void sysfs_pmu(const char *pmu, const struct file *files,
		      const char *formats, const char *cpumask)
{
	char path[256], got[512], what[640];
	const char *dir_want = "cpumask format perf_event_mux_interval_ms power subsystem type uevent ";
	int i;

	snprintf(path, sizeof(path), DEV "%s/", pmu);
	list_dir(path, got, sizeof(got));
	fact("%s/: %s", pmu, got);
	snprintf(what, sizeof(what), "%s/ holds \"%s\" (no events/, no caps/)",
		 pmu, dir_want);
	check(!strcmp(got, dir_want), what);
	snprintf(path, sizeof(path), DEV "%s/format", pmu);
	list_dir(path, got, sizeof(got));
	fact("%s/format/: %s", pmu, got);
	snprintf(what, sizeof(what), "%s/format/ holds \"%s\"", pmu, formats);
	check(!strcmp(got, formats), what);
	for (i = 0; files[i].name; i++) {
		snprintf(path, sizeof(path), DEV "%s/%s", pmu, files[i].name);
		read_str(path, got, sizeof(got));
		fact("%s/%s: %s", pmu, files[i].name, got);
		snprintf(what, sizeof(what), "%s/%s = \"%s\" (\"%s\")", pmu,
			 files[i].name, got, files[i].value);
		check(!strcmp(got, files[i].value), what);
	}
	snprintf(path, sizeof(path), DEV "%s/cpumask", pmu);
	read_str(path, got, sizeof(got));
	fact("%s/cpumask: %s", pmu, got);
	snprintf(what, sizeof(what), "%s/cpumask = \"%s\" (\"%s\": the first CPU of each %s)",
		 pmu, got, cpumask, strcmp(pmu, "amd_l3") ? "package" : "L3 domain");
	check(!strcmp(got, cpumask), what);
}

static void sysfs_case(void)
{
	char a[64], b[64];

	/* the topology: does CPU 1 share CPU 0's L3, package? */
	read_str("/sys/devices/system/cpu/cpu0/cache/index3/shared_cpu_list",
		 a, sizeof(a));
	same_l3 = !strcmp(a, "0-1");
	read_str("/sys/devices/system/cpu/cpu0/topology/physical_package_id",
		 a, sizeof(a));
	read_str("/sys/devices/system/cpu/cpu1/topology/physical_package_id",
		 b, sizeof(b));
	same_pkg = !strcmp(a, b);
	printf("# topology: CPU 1 %s CPU 0's L3, %s its package\n",
	       same_l3 ? "shares" : "does not share",
	       same_pkg ? "shares" : "does not share");
	sysfs_pmu("amd_l3", l3_files,
		  "coreid enallcores enallslices event sliceid threadmask umask ",
		  same_l3 ? "0" : "0-1");
	sysfs_pmu("amd_df", df_files, "event umask ", same_pkg ? "0" : "0-1");
	check(pmu_type("amd_umc_0") < 0,
	      "no amd_umc_* PMU (CPUID 0x80000022 says no UMC counters)");
}

/* ------------------------------------------------------------------ */
/* Counting                                                            */

/* the one enabled control of the set (of CPU 0), its index, or -1 */
static int enabled_ctl(uint32_t base, int n, uint64_t *val)
{
	int i, found = -1;

	for (i = 0; i < n; i++) {
		uint64_t v = rdmsr(0, base + 2 * i);

		if (v != ~0ULL && (v & EN)) {
			if (found >= 0)
				return -2;
			found = i;
			*val = v;
		}
	}
	return found;
}

/*
 * L3 lookups, hits and misses as one group and DRAM requests, on @cpu,
 * over @passes sweeps of @lines lines from @buf by this task (warmed
 * by one sweep while they count)
 */
struct counts {
	uint64_t lookups, hits, misses, dram;
};

static int counts(int cpu, char *buf, long lines, int passes,
		  struct counts *c)
{
	struct perf_event_attr a = attr(l3_type, L3_LOOKUPS);
	uint64_t g0[5], g1[5];
	struct rd d0, d1;
	int fd[4], i;

	a.read_format = PERF_FORMAT_GROUP;
	fd[0] = sys_open(&a, -1, cpu, -1);
	fd[1] = open_unc(l3_type, L3_HITS, cpu, fd[0]);
	fd[2] = open_unc(l3_type, L3_MISSES, cpu, fd[0]);
	fd[3] = open_unc(df_type, DF_DRAM0, cpu, -1);
	for (i = 0; i < 4; i++) {
		if (fd[i] < 0) {
			printf("not ok open counter %d: %s\n", i,
			       strerror(errno));
			fails++;
			return -1;
		}
	}
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	ioctl(fd[3], PERF_EVENT_IOC_ENABLE, 0);
	sweep(buf, lines);
	/* the group's three counts, read together: nr, then the values */
	if (read(fd[0], g0, sizeof(g0)) != 4 * 8 || g0[0] != 3)
		g0[0] = 0;
	d0 = rd(fd[3]);
	for (i = 0; i < passes; i++)
		sweep(buf, lines);
	if (read(fd[0], g1, sizeof(g1)) != 4 * 8 || g1[0] != 3)
		g1[0] = 0;
	d1 = rd(fd[3]);
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	ioctl(fd[3], PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < 4; i++)
		close(fd[i]);
	if (!g0[0] || !g1[0]) {
		check(0, "a group read: 3 values");
		return -1;
	}
	c->lookups = g1[1] - g0[1];
	c->hits = g1[2] - g0[2];
	c->misses = g1[3] - g0[3];
	c->dram = d1.val - d0.val;
	printf("# cpu %d, %d x %ld lines: lookups %llu hits %llu misses %llu dram %llu (run %llu of %llu ns)\n",
	       cpu, passes, lines, (unsigned long long)c->lookups,
	       (unsigned long long)c->hits, (unsigned long long)c->misses,
	       (unsigned long long)c->dram,
	       (unsigned long long)(d1.run - d0.run),
	       (unsigned long long)(d1.ena - d0.ena));
	return 0;
}

/* lookups = hits + misses, within the lines the group's read touches */
static void check_sum(const char *what, const struct counts *c)
{
	int64_t d = (int64_t)c->lookups - (int64_t)(c->hits + c->misses);

	printf("%s %s: %llu = %llu + %llu (%+lld)\n",
	       d >= -64 && d <= 64 ? "ok" : "not ok", what,
	       (unsigned long long)c->lookups, (unsigned long long)c->hits,
	       (unsigned long long)c->misses, (long long)d);
	if (d < -64 || d > 64)
		fails++;
}

static void counting_case(void)
{
	struct counts c;
	char what[128];
	int cpu;

	/* the workload on CPU 0, counted by events on CPU 0 and CPU 1 */
	for (cpu = 0; cpu < 2; cpu++) {
		int sees = cpu == 0 || same_l3, sees_df = cpu == 0 || same_pkg;

		if (counts(cpu, hit_buf, HIT_LINES, 4, &c))
			return;
		snprintf(what, sizeof(what), "2 MiB x 4 from CPU 0, on cpu %d: L3 lookups", cpu);
		check_range(what, c.lookups, sees ? 4 * HIT_LINES : 0, SLACK);
		snprintf(what, sizeof(what), "2 MiB x 4 from CPU 0, on cpu %d: L3 hits", cpu);
		check_range(what, c.hits, sees ? 4 * HIT_LINES : 0, SLACK);
		snprintf(what, sizeof(what), "2 MiB x 4 from CPU 0, on cpu %d: L3 misses", cpu);
		check_range(what, c.misses, 0, SLACK);
		snprintf(what, sizeof(what), "2 MiB x 4 from CPU 0, on cpu %d: DRAM requests", cpu);
		check_range(what, c.dram, 0, SLACK);
		snprintf(what, sizeof(what), "2 MiB x 4, on cpu %d: lookups = hits + misses", cpu);
		check_sum(what, &c);

		if (counts(cpu, miss_buf, MISS_LINES, 2, &c))
			return;
		snprintf(what, sizeof(what), "16 MiB x 2 from CPU 0, on cpu %d: L3 lookups", cpu);
		check_range(what, c.lookups, sees ? 2 * MISS_LINES : 0, SLACK);
		snprintf(what, sizeof(what), "16 MiB x 2 from CPU 0, on cpu %d: L3 hits", cpu);
		check_range(what, c.hits, 0, SLACK);
		snprintf(what, sizeof(what), "16 MiB x 2 from CPU 0, on cpu %d: L3 misses", cpu);
		check_range(what, c.misses, sees ? 2 * MISS_LINES : 0, SLACK);
		snprintf(what, sizeof(what), "16 MiB x 2 from CPU 0, on cpu %d: DRAM requests (L3 misses)", cpu);
		check_range(what, c.dram, sees_df ? 2 * MISS_LINES : 0, SLACK);
		snprintf(what, sizeof(what), "16 MiB x 2, on cpu %d: lookups = hits + misses", cpu);
		check_sum(what, &c);
	}
	/* and from CPU 1: the events on CPU 1 see it */
	pin(1);
	if (!counts(1, miss_buf, MISS_LINES, 1, &c)) {
		check_range("16 MiB from CPU 1, on cpu 1: L3 misses", c.misses,
			    MISS_LINES, SLACK);
		check_range("16 MiB from CPU 1, on cpu 1: DRAM requests",
			    c.dram, MISS_LINES, SLACK);
	}
	if (!counts(0, miss_buf, MISS_LINES, 1, &c)) {
		check_range("16 MiB from CPU 1, on cpu 0: L3 misses", c.misses,
			    same_l3 ? MISS_LINES : 0, SLACK);
		check_range("16 MiB from CPU 1, on cpu 0: DRAM requests",
			    c.dram, same_pkg ? MISS_LINES : 0, SLACK);
	}
	pin(0);
	fact("an event opened on cpu 1 counts CPU 1's %s (cpumask %s)",
	     same_l3 ? "L3 domain, which is CPU 0's" : "own L3 domain and package",
	     same_l3 ? "0" : "0-1");
}

/*
 * One event on CPU 0 of @type and @config over a sweep of @lines from
 * @buf: the control the driver programmed (the only enabled one), and
 * after the disable; the count
 */
static uint64_t programmed(const char *what, int type, uint64_t config,
			   uint64_t want, char *buf, long lines,
			   uint64_t *count)
{
	int l3 = type == l3_type, idx, fd;
	uint32_t base = l3 ? MSR_L3_CFG : MSR_DF_CFG;
	uint64_t v = 0, after;
	char line[400];
	struct rd r0, r1;

	*count = ~0ULL;
	fd = open_unc(type, config, 0, -1);
	if (fd < 0) {
		snprintf(line, sizeof(line), "%s: open: %s", what,
			 strerror(errno));
		check(0, line);
		return 0;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	sweep(buf, lines);
	r0 = rd(fd);
	idx = enabled_ctl(base, l3 ? L3_CTRS : DF_CTRS, &v);
	sweep(buf, lines);
	r1 = rd(fd);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	after = idx >= 0 ? rdmsr(0, base + 2 * idx) : ~0ULL;
	close(fd);
	*count = r1.val - r0.val;
	fact("%s config %#llx: %s counter %d programmed %#llx, %#llx once disabled",
	     l3 ? "amd_l3" : "amd_df", (unsigned long long)config,
	     l3 ? "L3" : "DF", idx, (unsigned long long)v,
	     (unsigned long long)after);
	snprintf(line, sizeof(line), "%s: config %#llx programs counter 0 with %#llx (%#llx)",
		 what, (unsigned long long)config, (unsigned long long)v,
		 (unsigned long long)want);
	check(idx == 0 && v == want, line);
	snprintf(line, sizeof(line), "%s: disabled, the control keeps it without Enable (%#llx)",
		 what, (unsigned long long)after);
	check(after == (want & ~EN), line);
	return v;
}

static void filter_case(void)
{
	static const struct {
		const char *what;
		int l3;
		uint64_t config, want;
		/*
		 * the sweep's lines (1), exactly 0 (0), or CPU 1's core or
		 * thread (2): exactly 0 where the L3 domain has one vCPU,
		 * else CPU 1's own few lines
		 */
		int counts;
	} cases[] = {
		{ "lookups", 1, L3_LOOKUPS, L3_LOOKUPS | L3_DEFAULTS | EN, 1 },
		{ "coreid=0,threadmask=1 (this core)", 1,
		  L3_LOOKUPS | 1ULL << 56, L3_LOOKUPS | 1ULL << 56 | EN, 1 },
		{ "threadmask=3", 1, L3_LOOKUPS | 3ULL << 56,
		  L3_LOOKUPS | 3ULL << 56 | EN, 1 },
		{ "enallcores=1,threadmask=1", 1,
		  L3_LOOKUPS | 1ULL << 56 | 1ULL << 47,
		  L3_LOOKUPS | 1ULL << 56 | 1ULL << 47 | EN, 1 },
		{ "enallslices=1,threadmask=1", 1,
		  L3_LOOKUPS | 1ULL << 56 | 1ULL << 46,
		  L3_LOOKUPS | 1ULL << 56 | 1ULL << 46 | EN, 1 },
		/* without a threadmask the driver counts everything */
		{ "coreid=1 (no threadmask: the defaults)", 1,
		  L3_LOOKUPS | 1ULL << 42, L3_LOOKUPS | L3_DEFAULTS | EN, 1 },
		{ "enallcores=1 (no threadmask: the defaults)", 1,
		  L3_LOOKUPS | 1ULL << 47, L3_LOOKUPS | L3_DEFAULTS | EN, 1 },
		{ "sliceid=1 (no threadmask: the defaults)", 1,
		  L3_LOOKUPS | 1ULL << 48, L3_LOOKUPS | L3_DEFAULTS | EN, 1 },
		/* what the model has none of */
		{ "coreid=1,threadmask=1 (another core)", 1,
		  L3_LOOKUPS | 1ULL << 56 | 1ULL << 42,
		  L3_LOOKUPS | 1ULL << 56 | 1ULL << 42 | EN, 2 },
		{ "coreid=7,threadmask=1", 1,
		  L3_LOOKUPS | 1ULL << 56 | 7ULL << 42,
		  L3_LOOKUPS | 1ULL << 56 | 7ULL << 42 | EN, 0 },
		{ "threadmask=2 (thread 1)", 1, L3_LOOKUPS | 2ULL << 56,
		  L3_LOOKUPS | 2ULL << 56 | EN, 2 },
		{ "enallcores=1,threadmask=2", 1,
		  L3_LOOKUPS | 2ULL << 56 | 1ULL << 47,
		  L3_LOOKUPS | 2ULL << 56 | 1ULL << 47 | EN, 2 },
		{ "sliceid=1,threadmask=1 (one slice)", 1,
		  L3_LOOKUPS | 1ULL << 56 | 1ULL << 48,
		  L3_LOOKUPS | 1ULL << 56 | 1ULL << 48 | EN, 0 },
		/* config bits: 35:32 passed through, others dropped */
		{ "config bit 32 (event 0x104: passed, counts nothing)", 1,
		  L3_LOOKUPS | 1ULL << 32,
		  L3_LOOKUPS | 1ULL << 32 | L3_DEFAULTS | EN, 0 },
		{ "config bits 16-23, 36-41, 58-63 (dropped)", 1,
		  L3_LOOKUPS | 0xff0000ULL | 0x3fULL << 36 | 0x3fULL << 58,
		  L3_LOOKUPS | L3_DEFAULTS | EN, 1 },
		{ "threadmask=1, bits 16-23, 36-41, 45, 51-55, 58-63 (dropped)", 1,
		  L3_LOOKUPS | 1ULL << 56 | 0xff0000ULL | 0x3fULL << 36 |
		  1ULL << 45 | 0x1fULL << 51 | 0x3fULL << 58,
		  L3_LOOKUPS | 1ULL << 56 | EN, 1 },
		{ "DRAM channel 0", 0, DF_DRAM0, DF_DRAM0 | EN, 1 },
		{ "DRAM channel 1 (nothing on the model)", 0, DF_DRAM1,
		  DF_DRAM1 | EN, 0 },
		{ "DRAM channel 7 (event 0x1c7: bit 32)", 0,
		  0x1000000000ULL | 0x38c7, 0x1000000000ULL | 0x38c7 | EN, 0 },
		{ "umask bits 27:24 (0x800)", 0, 0x8000007ULL,
		  0x8000007ULL | EN, 0 },
		{ "config bits 16-23, 28-31, 38-63 (dropped)", 0,
		  DF_DRAM0 | 0xff0000ULL | 0xfULL << 28 | ~0ULL << 38,
		  DF_DRAM0 | EN, 1 },
	};
	char what[300];
	uint64_t n;
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int type = cases[i].l3 ? l3_type : df_type;

		snprintf(what, sizeof(what), "%s %s", cases[i].l3 ? "amd_l3" : "amd_df",
			 cases[i].what);
		programmed(what, type, cases[i].config, cases[i].want,
			   miss_buf, MISS_LINES, &n);
		snprintf(what, sizeof(what), "%s %s: count over 16 MiB",
			 cases[i].l3 ? "amd_l3" : "amd_df", cases[i].what);
		if (cases[i].counts == 1)
			check_range(what, n, MISS_LINES, SLACK);
		else if (cases[i].counts == 2 && same_l3)
			check_range(what, n, 0, SLACK);
		else
			check_val(n == 0, what, n, 0);
	}
}

/* ------------------------------------------------------------------ */
/* ioctl, groups, more events than counters                            */

static void ioctl_case(void)
{
	int fd = open_unc(l3_type, L3_LOOKUPS, 0, -1);
	struct rd r0, r1, r2;
	char what[200];

	if (fd < 0) {
		check(0, "open");
		return;
	}
	sweep(miss_buf, MISS_LINES);
	r0 = rd(fd);
	check(r0.val == 0 && r0.ena == 0 && r0.run == 0,
	      "opened disabled: 0, enabled 0, running 0");
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	sweep(miss_buf, MISS_LINES);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	r1 = rd(fd);
	check_range("enabled around 16 MiB: lookups", r1.val, MISS_LINES, SLACK);
	check(r1.ena > 0 && r1.run == r1.ena,
	      "enabled: time running = time enabled");
	sweep(miss_buf, MISS_LINES);
	r2 = rd(fd);
	snprintf(what, sizeof(what), "disabled: 16 MiB more count nothing (%llu %llu %llu, was %llu %llu %llu)",
		 (unsigned long long)r2.val, (unsigned long long)r2.ena,
		 (unsigned long long)r2.run, (unsigned long long)r1.val,
		 (unsigned long long)r1.ena, (unsigned long long)r1.run);
	check(r2.val == r1.val && r2.ena == r1.ena && r2.run == r1.run, what);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	r2 = rd(fd);
	check_val(r2.val == 0, "PERF_EVENT_IOC_RESET", r2.val, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	sweep(miss_buf, MISS_LINES);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	r2 = rd(fd);
	check_range("enabled again: lookups since the reset", r2.val,
		    MISS_LINES, SLACK);
	close(fd);
}

/*
 * The driver's arithmetic: with the event counting, the counter MSR is
 * set (through /dev/cpu/0/msr) to 100000 below 2^48. The next read
 * sees it 100000 + the count behind the last one the driver read: the
 * count goes that far down (as s64, below 0: the delta is the 48-bit
 * difference, sign-extended); a 16 MiB sweep wraps the counter and the
 * count comes back to the sweep's lines less the 100000.
 */
static void wrap_case(void)
{
	int fd = open_unc(l3_type, L3_LOOKUPS, 0, -1), wfd;
	uint64_t v = (1ULL << 48) - 100000;
	struct rd r0, r1, r2;

	wfd = open("/dev/cpu/0/msr", O_WRONLY);
	if (fd < 0 || wfd < 0) {
		check(0, "open the event and /dev/cpu/0/msr");
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	r0 = rd(fd);
	/* the only L3 event: counter 0 */
	if (pwrite(wfd, &v, 8, MSR_L3_CFG + 1) != 8)
		check(0, "write ChL3Pmc0");
	r1 = rd(fd);
	sweep(miss_buf, MISS_LINES);
	r2 = rd(fd);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	close(fd);
	close(wfd);
	printf("# wrap: %llu, after ChL3Pmc0 = 2^48 - 100000: %lld, after 16 MiB: %llu\n",
	       (unsigned long long)r0.val, (long long)r1.val,
	       (unsigned long long)r2.val);
	check((int64_t)r1.val < 0 && (int64_t)r1.val >= -100000,
	      "the counter set back below 2^48: the count falls below 0 (a signed 48-bit delta)");
	check_range("then 16 MiB wrap it: the count = the sweep's lines - 100000",
		    r2.val, MISS_LINES - 100000, SLACK);
	fact("amd_l3: a read adds the sign-extended 48-bit difference of the counter to the last value read (a counter set back lowers the count, below 0)");
}

static void group_case(void)
{
	struct perf_event_attr a;
	uint64_t v[8];
	int lead, fd, n;

	/* a software leader may have an uncore sibling */
	a = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			PERF_FORMAT_TOTAL_TIME_RUNNING;
	lead = sys_open(&a, -1, 0, -1);
	fd = open_unc(l3_type, L3_LOOKUPS, 0, lead);
	check(lead >= 0 && fd >= 0, "cpu-clock leader, amd_l3 sibling: opens");
	fact("a cpu-clock group leader on cpu 0 takes an amd_l3 sibling");
	ioctl(lead, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	sweep(miss_buf, MISS_LINES);
	ioctl(lead, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	n = read(lead, v, sizeof(v));
	check(n == 5 * 8 && v[0] == 2 && v[1] == v[2] && v[3] > 0,
	      "cpu-clock group: 2 members, ran all the time, the clock counted");
	if (n == 5 * 8)
		check_range("cpu-clock group: the amd_l3 sibling", v[4],
			    MISS_LINES, SLACK);
	close(fd);
	close(lead);
}

/* write @pmu's perf_event_mux_interval_ms */
static void mux_interval(const char *pmu, const char *ms)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), DEV "%s/perf_event_mux_interval_ms", pmu);
	fp = fopen(path, "w");
	if (fp) {
		fputs(ms, fp);
		fclose(fp);
	}
}

static void overcommit_case(const char *pmu, int type, uint64_t config,
			    int nctr)
{
	int fd[10], i, n = nctr + 2, ran_all = 0, ran_none = 0, ok = 1;
	struct rd r[10];
	char what[200];
	uint64_t lines = (uint64_t)MUX_SWEEPS * MISS_LINES;

	/*
	 * separate events: all open and, over MUX_SWEEPS sweeps of 16 MiB
	 * (about 125 ms, the mux interval 20 ms), rotate through the
	 * counters. Each rotation's own time counts as running for the
	 * events on while it runs, with no sweep: 20 ms keeps that share
	 * small on a debug kernel too (at 4 ms, scaled counts there were up
	 * to 14% off; stock's lean kernel stays within 1% either way)
	 */
	mux_interval(pmu, "20");
	for (i = 0; i < n; i++) {
		fd[i] = open_unc(type, config, 0, -1);
		if (fd[i] < 0)
			ok = 0;
	}
	snprintf(what, sizeof(what), "%s: %d separate events on %d counters all open",
		 pmu, n, nctr);
	check(ok, what);
	if (!ok)
		return;
	fact("%s: more separate events than counters open (no error)", pmu);
	/*
	 * All on and off at once (the events this task opened), so that
	 * their enabled time is the sweeps' and not the enables' and reads'
	 * one by one, which a slow (debug) kernel makes a larger share
	 */
	prctl(PR_TASK_PERF_EVENTS_ENABLE);
	for (i = 0; i < MUX_SWEEPS; i++)
		sweep(miss_buf, MISS_LINES);
	prctl(PR_TASK_PERF_EVENTS_DISABLE);
	for (i = 0; i < n; i++) {
		struct rd e = rd(fd[i]);
		uint64_t scaled = e.run ? (uint64_t)((double)e.val * e.ena / e.run) : 0;

		printf("# %s %d x 16 MiB, event %d: %llu, enabled %llu, running %llu, scaled %llu\n",
		       pmu, MUX_SWEEPS, i, (unsigned long long)e.val,
		       (unsigned long long)e.ena, (unsigned long long)e.run,
		       (unsigned long long)scaled);
		if (!e.run || scaled < lines - lines / 20 ||
		    scaled > lines + lines / 20 + SLACK)
			ok = 0;
		ran_all += e.run == e.ena;
	}
	snprintf(what, sizeof(what), "%s: they rotate: all %d ran part of the time (scaled counts within 5%% of %llu)",
		 pmu, n, (unsigned long long)lines);
	check(ok && ran_all < n, what);
	fact("%s: more events than counters are multiplexed (rotation every perf_event_mux_interval_ms)", pmu);
	for (i = 0; i < n; i++)
		close(fd[i]);

	/*
	 * Without rotation (the mux interval raised to 100 s, once the
	 * timer armed with 20 ms ran out: the kernel keeps the interval a
	 * timer was armed with), the first events run, the others never
	 */
	usleep(60000);
	mux_interval(pmu, "100000");
	ran_all = 0;
	for (i = 0; i < n; i++)
		fd[i] = open_unc(type, config, 0, -1);
	for (i = 0; i < n; i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	sweep(hit_buf, HIT_LINES);
	for (i = 0; i < n; i++) {
		r[i] = rd(fd[i]);
		printf("# %s without rotation, event %d: %llu, enabled %llu, running %llu\n",
		       pmu, i, (unsigned long long)r[i].val,
		       (unsigned long long)r[i].ena,
		       (unsigned long long)r[i].run);
		ran_all += r[i].run == r[i].ena && r[i].val > 0;
		ran_none += r[i].run == 0 && r[i].val == 0;
		close(fd[i]);
	}
	mux_interval(pmu, "4");
	snprintf(what, sizeof(what), "%s: without rotation, %d events count throughout and %d not at all (%d, %d)",
		 pmu, nctr, 2, ran_all, ran_none);
	check(ran_all == nctr && ran_none == 2, what);
	fact("%s: the events that find no counter do not count (time running 0) until a rotation", pmu);

	/* a group of more than the counters opens and never runs */
	ok = 1;
	for (i = 0; i < n - 1; i++) {
		fd[i] = open_unc(type, config, 0, i ? fd[0] : -1);
		if (fd[i] < 0)
			ok = 0;
	}
	snprintf(what, sizeof(what), "%s: a group of %d on %d counters opens",
		 pmu, n - 1, nctr);
	check(ok, what);
	if (!ok)
		return;
	fact("%s: a group of %d events (%d counters) opens; it is never scheduled as a whole",
	     pmu, n - 1, nctr);
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	sweep(miss_buf, MISS_LINES);
	for (i = 0; i < n - 1; i++) {
		r[i] = rd(fd[i]);
		printf("# %s group member %d: %llu, enabled %llu, running %llu\n",
		       pmu, i, (unsigned long long)r[i].val,
		       (unsigned long long)r[i].ena,
		       (unsigned long long)r[i].run);
	}
	snprintf(what, sizeof(what), "%s: the group's last member never ran (%llu, running %llu)",
		 pmu, (unsigned long long)r[n - 2].val,
		 (unsigned long long)r[n - 2].run);
	check(r[n - 2].val == 0 && r[n - 2].run == 0 && r[n - 2].ena > 0, what);
	snprintf(what, sizeof(what), "%s: no member counted the sweep (leader %llu)",
		 pmu, (unsigned long long)r[0].val);
	check(r[0].val < MISS_LINES / 2, what);
	for (i = 0; i < n - 1; i++)
		close(fd[i]);
}

/* ------------------------------------------------------------------ */
/* Open errors                                                         */

static void expect_open(const char *pmu, const char *what,
			struct perf_event_attr *a, int pid, int cpu,
			int group, int err)
{
	int fd = sys_open(a, pid, cpu, group);
	char line[200];

	snprintf(line, sizeof(line), "%s %s: %s (expected %s)", pmu, what,
		 fd >= 0 ? "opens" : strerror(errno),
		 err ? strerror(err) : "it opens");
	fact("%s %s: %s", pmu, what, fd >= 0 ? "opens" : strerror(errno));
	check(err ? fd < 0 && errno == err : fd >= 0, line);
	if (fd >= 0)
		close(fd);
}

/*
 * An L3 or the data fabric counts for every CPU of its domain, whatever
 * task runs: a cgroup event (of the root cgroup, v2, mounted here when
 * the guest has none) is EINVAL, though a cpu-clock one of it opens.
 */
static void cgroup_errno_case(const char *pmu, int type, uint64_t config)
{
	struct perf_event_attr a = attr(type, config);
	char line[160];
	struct stat st;
	int cg, fd;

	if (stat("/sys/fs/cgroup/cgroup.procs", &st) &&
	    mount("cgroup2", "/sys/fs/cgroup", "cgroup2", 0, NULL)) {
		check(0, "mount cgroup2");
		return;
	}
	cg = open("/sys/fs/cgroup", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg < 0) {
		check(0, "open /sys/fs/cgroup");
		return;
	}
	a.size = sizeof(a);
	fd = sys_perf_event_open(&a, cg, 0, -1, PERF_FLAG_PID_CGROUP);
	snprintf(line, sizeof(line), "%s cgroup event: %s (expected %s)", pmu,
		 fd >= 0 ? "opens" : strerror(errno), strerror(EINVAL));
	fact("%s cgroup event: %s", pmu, fd >= 0 ? "opens" : strerror(errno));
	check(fd < 0 && errno == EINVAL, line);
	if (fd >= 0)
		close(fd);
	a = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	a.size = sizeof(a);
	fd = sys_perf_event_open(&a, cg, 0, -1, PERF_FLAG_PID_CGROUP);
	snprintf(line, sizeof(line), "a cpu-clock event of that cgroup: %s",
		 fd >= 0 ? "opens" : strerror(errno));
	check(fd >= 0, line);
	if (fd >= 0)
		close(fd);
	close(cg);
}

static void errno_case(const char *pmu, int type, uint64_t config,
		       int other_type, uint64_t other_config)
{
	struct perf_event_attr a, c;
	char what[64];
	int lead, b;

	a = attr(type, config);
	expect_open(pmu, "task event (pid 0, cpu -1)", &a, 0, -1, -1, EINVAL);
	expect_open(pmu, "task event on a cpu (pid 0, cpu 0)", &a, 0, 0, -1,
		    EINVAL);
	expect_open(pmu, "pid -1, cpu -1", &a, -1, -1, -1, EINVAL);
	expect_open(pmu, "cpu 2 (none)", &a, -1, 2, -1, EINVAL);
	expect_open(pmu, "cpu 1", &a, -1, 1, -1, 0);
	a.sample_period = 1000;
	expect_open(pmu, "sampling (sample_period 1000)", &a, -1, 0, -1,
		    EOPNOTSUPP);
	a = attr(type, config);
	a.freq = 1;
	a.sample_freq = 1000;
	expect_open(pmu, "sampling (freq 1000)", &a, -1, 0, -1, EOPNOTSUPP);
#define FLAG(f, err) do { a = attr(type, config); a.f = 1; \
	expect_open(pmu, #f, &a, -1, 0, -1, err); } while (0)
	FLAG(exclude_user, EINVAL);
	FLAG(exclude_kernel, EINVAL);
	FLAG(exclude_hv, EINVAL);
	FLAG(exclude_idle, EINVAL);
	FLAG(exclude_host, EINVAL);
	FLAG(exclude_guest, EINVAL);
	FLAG(inherit, 0);
	FLAG(pinned, 0);
	FLAG(exclusive, 0);
	FLAG(enable_on_exec, 0);
	FLAG(sample_id_all, 0);
#undef FLAG
	a = attr(type, config);
	a.use_clockid = 1;
	a.clockid = CLOCK_REALTIME;
	expect_open(pmu, "use_clockid CLOCK_REALTIME (not NMI-safe)", &a, -1,
		    0, -1, EINVAL);
	a.clockid = CLOCK_MONOTONIC;
	expect_open(pmu, "use_clockid CLOCK_MONOTONIC", &a, -1, 0, -1, 0);
	for (b = 1; b <= 3; b++) {
		a = attr(type, config);
		a.precise_ip = b;
		snprintf(what, sizeof(what), "precise_ip %d", b);
		expect_open(pmu, what, &a, -1, 0, -1, 0);
	}
	a = attr(type, config | 1ULL << 20 | 1ULL << 63);
	expect_open(pmu, "config bits 20 and 63 (outside the format)", &a, -1,
		    0, -1, 0);
	a = attr(type, config);
	a.config1 = ~0ULL;
	a.config2 = ~0ULL;
	expect_open(pmu, "config1, config2 all ones", &a, -1, 0, -1, 0);

	/* groups */
	a = attr(type, config);
	c = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	lead = sys_open(&a, -1, 0, -1);
	expect_open(pmu, "an uncore leader's sibling of the same PMU", &a, -1,
		    0, lead, 0);
	expect_open(pmu, "an uncore leader's cycles sibling", &c, -1, 0, lead,
		    EINVAL);
	c = attr(other_type, other_config);
	expect_open(pmu, "an uncore leader's sibling of the other uncore PMU",
		    &c, -1, 0, lead, EINVAL);
	c = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	expect_open(pmu, "an uncore leader's cpu-clock sibling", &c, -1, 0,
		    lead, 0);
	expect_open(pmu, "an uncore leader's sibling on cpu 1", &a, -1, 1,
		    lead, same_l3 && type == l3_type ? 0 :
			  same_pkg && type == df_type ? 0 : EINVAL);
	close(lead);
	c = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
	lead = sys_open(&c, -1, 0, -1);
	expect_open(pmu, "in a cycles group", &a, -1, 0, lead, EINVAL);
	close(lead);
	c = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	lead = sys_open(&c, -1, 0, -1);
	expect_open(pmu, "in a cpu-clock group", &a, -1, 0, lead, 0);
	close(lead);
	c = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	lead = sys_open(&c, -1, 0, -1);
	expect_open(pmu, "in a cpu-wide task-clock group", &a, -1, 0, lead, 0);
	close(lead);
	cgroup_errno_case(pmu, type, config);
}

/* write @val to CPU 1's online file: 0 if it took */
static int cpu1_online(const char *val)
{
	int fd = open("/sys/devices/system/cpu/cpu1/online", O_WRONLY);
	int ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, 1) == 1;
	close(fd);
	return ok ? 0 : -1;
}

/* an event's reading, printed */
static struct rd rd_show(int fd, const char *when, const char *what)
{
	struct rd r = rd(fd);

	printf("# hotplug, %s: %s on cpu 1: %llu, enabled %llu, running %llu\n",
	       when, what, (unsigned long long)r.val,
	       (unsigned long long)r.ena, (unsigned long long)r.run);
	return r;
}

/*
 * CPU hotplug, where CPU 1 is a domain of its own (the harness): while
 * it is offline its domains have no reading CPU (cpumask "0", an open on
 * it ENODEV). As in 6.12, the events on a CPU that goes offline stop for
 * good: an amd_l3 event, and the core's cpu-clock and instructions
 * events beside it, count nothing and their times stand still, even
 * once the CPU is back.
 */
static void hotplug_case(void)
{
	static const char *const what[3] = {
		"amd_l3 lookups", "cpu-clock", "instructions",
	};
	struct rd before[3], off[3], on[3];
	struct perf_event_attr a;
	char mask[64], msg[200];
	int fd[3], fd2, err, i;

	if (same_l3 || same_pkg) {
		printf("ok # SKIP hotplug: CPU 1 shares CPU 0's domains\n");
		return;
	}
	fd[0] = open_unc(l3_type, L3_LOOKUPS, 1, -1);
	a = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	fd[1] = sys_open(&a, -1, 1, -1);
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	fd[2] = sys_open(&a, -1, 1, -1);
	if (fd[0] < 0 || fd[1] < 0 || fd[2] < 0) {
		check(0, "hotplug: amd_l3, cpu-clock and instructions on cpu 1");
		return;
	}
	for (i = 0; i < 3; i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	pin(1);
	sweep(miss_buf, MISS_LINES);
	pin(0);
	for (i = 0; i < 3; i++)
		before[i] = rd_show(fd[i], "before", what[i]);
	check_range("hotplug: the amd_l3 event on cpu 1 counted its sweep",
		    before[0].val, MISS_LINES, SLACK);
	if (cpu1_online("0")) {
		printf("ok # SKIP hotplug: CPU 1 cannot go offline\n");
		for (i = 0; i < 3; i++)
			close(fd[i]);
		return;
	}
	read_str(DEV "amd_l3/cpumask", mask, sizeof(mask));
	check(!strcmp(mask, "0"), "hotplug: CPU 1 offline: amd_l3/cpumask is 0");
	read_str(DEV "amd_df/cpumask", mask, sizeof(mask));
	check(!strcmp(mask, "0"), "hotplug: CPU 1 offline: amd_df/cpumask is 0");
	fd2 = open_unc(l3_type, L3_LOOKUPS, 1, -1);
	err = fd2 < 0 ? errno : 0;
	printf("%s hotplug: an open on offline cpu 1: %s\n",
	       err == ENODEV ? "ok" : "not ok", err ? strerror(err) : "opens");
	fact("an amd_l3 open on an offline CPU: %s",
	     err ? strerror(err) : "opens");
	if (fd2 >= 0)
		close(fd2);
	for (i = 0; i < 3; i++)
		off[i] = rd_show(fd[i], "offline", what[i]);
	/* only the way down (the hotplug thread's own lines) counts */
	snprintf(msg, sizeof(msg),
		 "hotplug: the amd_l3 event stopped on the way down (%llu more lines)",
		 (unsigned long long)(off[0].val - before[0].val));
	check(off[0].val - before[0].val < MISS_LINES / 8, msg);

	cpu1_online("1");
	read_str(DEV "amd_l3/cpumask", mask, sizeof(mask));
	check(!strcmp(mask, "0-1"), "hotplug: CPU 1 back: amd_l3/cpumask is 0-1");
	read_str(DEV "amd_df/cpumask", mask, sizeof(mask));
	check(!strcmp(mask, "0-1"), "hotplug: CPU 1 back: amd_df/cpumask is 0-1");
	pin(1);
	sweep(miss_buf, MISS_LINES);
	pin(0);
	for (i = 0; i < 3; i++) {
		on[i] = rd_show(fd[i], "back", what[i]);
		snprintf(msg, sizeof(msg),
			 "hotplug: CPU 1 back: %s stands still (count and times as offline)",
			 what[i]);
		check(on[i].val == off[i].val && on[i].ena == off[i].ena &&
		      on[i].run == off[i].run, msg);
		close(fd[i]);
	}
	fact("events on a CPU that went offline stay off once it is back (count and times stand)");
}

int main(int argc, char **argv)
{
	char *buf;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* pmu-uncore-perf.sh's workload: 20 sweeps of 16 MiB on CPU N */
	if (argc > 2 && !strcmp(argv[1], "sweep")) {
		int i;

		pin(atoi(argv[2]));
		buf = mmap(NULL, MISS_LINES * 64, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (buf == MAP_FAILED)
			return 1;
		for (i = 0; i < 20; i++)
			sweep(buf, MISS_LINES);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "kmsg"))
		return print_kmsg();
	if (cpu_is_intel()) {
		printf("ok # SKIP amd_l3 and amd_df are AMD's\n");
		return 0;
	}
	pin(0);
	buf = mmap(NULL, 32 << 20, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		check(0, "mmap");
		return 1;
	}
	hit_buf = buf;
	miss_buf = buf + (16 << 20);
	l3_type = pmu_type("amd_l3");
	df_type = pmu_type("amd_df");
	if (l3_type < 0 || df_type < 0) {
		check(0, "the amd_l3 and amd_df PMUs exist");
		return 1;
	}
	if (rdmsr(0, MSR_L3_CFG) == ~0ULL) {
		check(0, "/dev/cpu/0/msr reads ChL3PmcCfg0");
		return 1;
	}
	sysfs_case();
	counting_case();
	filter_case();
	ioctl_case();
	wrap_case();
	group_case();
	overcommit_case("amd_l3", l3_type, L3_LOOKUPS, L3_CTRS);
	overcommit_case("amd_df", df_type, DF_DRAM0, DF_CTRS);
	errno_case("amd_l3", l3_type, L3_LOOKUPS, df_type, DF_DRAM0);
	errno_case("amd_df", df_type, DF_DRAM0, l3_type, L3_LOOKUPS);
	hotplug_case();
	return fails ? 1 : 0;
}
