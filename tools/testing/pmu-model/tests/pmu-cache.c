// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-cache: the generic cache events, the generic hardware events and
 * the validation of raw events on the "cpu" PMU of the TCG PMU model,
 * as one table of results that must be the same, line for line, on the
 * stock 6.12 kernel and on ours.
 *
 * For each PERF_TYPE_HW_CACHE (cache, op, result) triple, one past the
 * last of each included, and each PERF_TYPE_HARDWARE config up to
 * PERF_COUNT_HW_MAX: "ok" or the errno of perf_event_open(); for an
 * event that opens, the event select the kernel programmed (read back
 * through /dev/cpu/0/msr while it counts, pinned to CPU 0), the offcore
 * response registers (Intel), and its exact user-space count over a
 * loop of 1000 dec/jnz (the model counts a function of the instruction
 * stream). Then raw configs with reserved, TSX, AnyThread and extra
 * register bits, and pairs of offcore response events in one group.
 *
 * "pmu-cache dump" prints the table only; without an argument every
 * line is compared with the table measured on the stock kernel
 * (pmu-cache-expect.h). Run as root. Exit 0 when all lines match.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-cache-expect.h"

#define LOOPS		1000
#define MAX_LINES	512

static int amd;
static int msr_fd = -1;
static char *lines[MAX_LINES];
static int nlines;

static void out(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		exit(2);
	va_end(ap);
	if (nlines < MAX_LINES)
		lines[nlines++] = s;
}

static int rdmsr(unsigned int msr, unsigned long long *val)
{
	return pread(msr_fd, val, 8, msr) == 8 ? 0 : -1;
}

static void attr_init(struct perf_event_attr *attr, __u32 type, __u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static int perf_open(struct perf_event_attr *attr, int group)
{
	return sys_perf_event_open(attr, 0, -1, group, 0);
}

static void loop(void)
{
	unsigned long n = LOOPS;

	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
}

/*
 * AMD's L2 requests (0x60) with only the data cache's miss bits in the
 * unit mask: the model's L1D misses, not its LLC references
 */
static int l1d_miss_request(unsigned long long sel)
{
	unsigned int umask = (sel >> 8) & 0xff;

	return (sel & 0xff) == 0x60 && umask && !(umask & ~0xc8);
}

/*
 * An event select of the model's cache-model misses (L1D, DTLB, the
 * offcore requests that L2 misses make): their count over the loop
 * depends on what the kernel touched in between (its lines and pages
 * evict the test's), so it is not the same on every kernel; pmu-dcache
 * checks them on known access patterns instead
 */
static int cache_model_miss(unsigned long long sel)
{
	unsigned int ev = sel & 0xff, umask = (sel >> 8) & 0xff;

	if (amd)
		return !(sel & 0xf00000000ULL) &&
		       (ev == 0x45 || l1d_miss_request(sel));
	return ev == 0x51 || ev == 0x08 || ev == 0x49 || ev == 0xb7 ||
	       ev == 0xbb ||
	       (ev == 0xd1 && umask == 0x08) ||
	       (ev == 0xd0 && (umask == 0x11 || umask == 0x12));
}

/*
 * The event selects with EN set while the events count, and (Intel) the
 * fixed counter control and the two offcore response registers, as one
 * string. Returns 1 if one of them is an event the model counts as
 * LLC references or misses: one per 32 or 128 instructions the vCPU
 * executed, so a user-only count depends on where the kernel's
 * instructions put the boundaries and only "non-zero" is the same on
 * every kernel; 2 if one is a cache-model miss (no count is).
 */
static int regs(char *buf, size_t len)
{
	unsigned long long v;
	size_t n = 0;
	int i, nr = amd ? 6 : 4, llc = 0;

	buf[0] = 0;
	for (i = 0; i < nr; i++) {
		unsigned int msr = amd ? 0xc0010200 + 2 * i : 0x186 + i;

		if (rdmsr(msr, &v) || !(v & (1ULL << 22)))
			continue;
		n += snprintf(buf + n, len - n, " sel%d=%#llx", i, v);
		if (amd && !(v & 0xf00000000ULL) &&
		    ((v & 0xff) == 0x60 || (v & 0xff) == 0x64) &&
		    !l1d_miss_request(v))
			llc = 1;
		if (!amd && (v & 0xff) == 0x2e)
			llc = 1;
		if (cache_model_miss(v))
			llc = 2;
	}
	if (!amd) {
		if (!rdmsr(0x38d, &v) && v)
			n += snprintf(buf + n, len - n, " fixed_ctrl=%#llx", v);
		for (i = 0; i < 2; i++) {
			if (rdmsr(0x1a6 + i, &v))
				continue;
			n += snprintf(buf + n, len - n, " rsp%d=%#llx", i, v);
		}
	}
	return llc;
}

/* open @attr alone: the errno, or the registers and the loop's count */
static void measure(const char *what, struct perf_event_attr *attr)
{
	char buf[256];
	long long count = -1;
	int fd = perf_open(attr, -1), llc;

	if (fd < 0) {
		out("%s: %s", what, strerrorname_np(errno));
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop();
	llc = regs(buf, sizeof(buf));
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = -1;
	if (llc == 2)
		out("%s: ok (misses)%s", what, buf);
	else if (llc)
		out("%s: ok count%s%s", what, count > 0 ? ">0" : "=0", buf);
	else
		out("%s: ok count=%lld%s", what, count, buf);
	close(fd);
}

/* the errno of opening @attr as an unprivileged user, or "ok" */
static void as_user(const char *what, struct perf_event_attr *attr)
{
	int pipefd[2], err = -1;
	pid_t pid;

	if (pipe(pipefd))
		return;
	pid = fork();
	if (!pid) {
		int fd;

		if (setgid(65534) || setuid(65534))
			_exit(1);
		fd = perf_open(attr, -1);
		err = fd < 0 ? errno : 0;
		if (write(pipefd[1], &err, sizeof(err)) != sizeof(err))
			_exit(1);
		_exit(0);
	}
	if (read(pipefd[0], &err, sizeof(err)) != sizeof(err))
		err = -1;
	waitpid(pid, NULL, 0);
	close(pipefd[0]);
	close(pipefd[1]);
	out("%s as a user: %s", what, err < 0 ? "failed" :
	    err ? strerrorname_np(err) : "ok");
}

/*
 * Which config1 bits an event takes: each bit alone, grouped by the
 * answer (the errno, or ok) into masks.
 */
static void config1_bits(__u64 config)
{
	struct perf_event_attr attr;
	unsigned long long mask[8] = { 0 };
	int err[8], nerr = 0, i, j, fd, e;
	char buf[256];
	size_t n = 0;

	for (i = 0; i < 64; i++) {
		attr_init(&attr, PERF_TYPE_RAW, config);
		attr.config1 = 1ULL << i;
		fd = perf_open(&attr, -1);
		e = fd < 0 ? errno : 0;
		if (fd >= 0)
			close(fd);
		for (j = 0; j < nerr && err[j] != e; j++)
			;
		if (j == nerr) {
			if (nerr == 8)
				continue;
			err[nerr++] = e;
		}
		mask[j] |= 1ULL << i;
	}
	for (j = 0; j < nerr; j++)
		n += snprintf(buf + n, sizeof(buf) - n, " %s %#llx",
			      err[j] ? strerrorname_np(err[j]) : "ok", mask[j]);
	out("raw %#llx config1 one bit:%s", (unsigned long long)config, buf);
}

static const char *const caches[] = {
	"L1D", "L1I", "LL", "DTLB", "ITLB", "BPU", "NODE", "7",
};
static const char *const ops[] = { "read", "write", "prefetch", "op3" };
static const char *const results[] = { "access", "miss", "res2" };

static void hw_cache(void)
{
	struct perf_event_attr attr;
	char what[64];
	int c, o, r;

	for (c = 0; c <= PERF_COUNT_HW_CACHE_MAX; c++)
		for (o = 0; o <= PERF_COUNT_HW_CACHE_OP_MAX; o++)
			for (r = 0; r <= PERF_COUNT_HW_CACHE_RESULT_MAX; r++) {
				snprintf(what, sizeof(what), "cache %s-%s-%s",
					 caches[c], ops[o], results[r]);
				attr_init(&attr, PERF_TYPE_HW_CACHE,
					  c | o << 8 | r << 16);
				measure(what, &attr);
			}
	/* bits above the result: L1D-read-access with bit 24, bit 63 */
	attr_init(&attr, PERF_TYPE_HW_CACHE, 1ULL << 24);
	measure("cache L1D-read-access bit 24", &attr);
	attr_init(&attr, PERF_TYPE_HW_CACHE, 1ULL << 63);
	measure("cache L1D-read-access bit 63", &attr);
}

static void hardware(void)
{
	struct perf_event_attr attr;
	char what[64];
	int i;

	for (i = 0; i <= PERF_COUNT_HW_MAX; i++) {
		snprintf(what, sizeof(what), "hardware %d", i);
		attr_init(&attr, PERF_TYPE_HARDWARE, i);
		measure(what, &attr);
	}
}

static void raw(__u64 config, __u64 config1)
{
	struct perf_event_attr attr;
	char what[64];

	snprintf(what, sizeof(what), "raw %#llx config1 %#llx",
		 (unsigned long long)config, (unsigned long long)config1);
	attr_init(&attr, PERF_TYPE_RAW, config);
	attr.config1 = config1;
	measure(what, &attr);
}

/*
 * Two (or three) events in one group, each with its config1: whether
 * the group opens, and the registers while it counts.
 */
static void raw_group(int n, const __u64 *config, const __u64 *config1)
{
	struct perf_event_attr attr;
	char what[128], buf[256];
	int fd[3] = { -1, -1, -1 }, i, err = 0;
	size_t len = 0;

	len += snprintf(what + len, sizeof(what) - len, "group");
	for (i = 0; i < n; i++) {
		len += snprintf(what + len, sizeof(what) - len, " %#llx/%#llx",
				(unsigned long long)config[i],
				(unsigned long long)config1[i]);
		attr_init(&attr, PERF_TYPE_RAW, config[i]);
		attr.config1 = config1[i];
		fd[i] = perf_open(&attr, i ? fd[0] : -1);
		if (fd[i] < 0) {
			err = errno;
			break;
		}
	}
	if (err) {
		out("%s: member %d %s", what, i, strerrorname_np(err));
	} else {
		ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
		loop();
		regs(buf, sizeof(buf));
		ioctl(fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
		out("%s: ok%s", what, buf);
	}
	for (i = 0; i < n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/*
 * The "cpu" PMU's multiplexing interval (ms): the previous one, after
 * writing @ms; -1 if unknown
 */
static int mux_interval(int ms)
{
	const char *path =
		"/sys/bus/event_source/devices/cpu/perf_event_mux_interval_ms";
	int old = -1;
	FILE *f = fopen(path, "r");

	if (f) {
		if (fscanf(f, "%d", &old) != 1)
			old = -1;
		fclose(f);
	}
	f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", ms);
		fclose(f);
	}
	return old;
}

/*
 * Events that are not a group, each with its config1, enabled together:
 * the registers while they count and which of them got a counter (the
 * others wait for a rotation, which the caller puts off well beyond the
 * loop: on a slow debug kernel the default 4 ms could fall inside it).
 */
static void raw_separate(int n, const __u64 *config, const __u64 *config1)
{
	struct perf_event_attr attr;
	char what[128], buf[256], ran[32] = "";
	int fd[3] = { -1, -1, -1 }, i, err = 0;
	size_t len = 0;

	len += snprintf(what + len, sizeof(what) - len, "separate");
	for (i = 0; i < n; i++) {
		len += snprintf(what + len, sizeof(what) - len, " %#llx/%#llx",
				(unsigned long long)config[i],
				(unsigned long long)config1[i]);
		attr_init(&attr, PERF_TYPE_RAW, config[i]);
		attr.config1 = config1[i];
		attr.read_format = PERF_FORMAT_TOTAL_TIME_RUNNING;
		fd[i] = perf_open(&attr, -1);
		if (fd[i] < 0) {
			err = errno;
			break;
		}
	}
	if (err) {
		out("%s: event %d %s", what, i, strerrorname_np(err));
	} else {
		for (i = 0; i < n; i++)
			ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
		loop();
		regs(buf, sizeof(buf));
		/*
		 * read while all are enabled: once the first is disabled, a
		 * switch back to this task (a tick's preemption) may give a
		 * waiting event the register it freed
		 */
		for (i = 0; i < n; i++) {
			unsigned long long v[2] = { 0, 0 };

			if (read(fd[i], v, sizeof(v)) != sizeof(v))
				v[1] = 0;
			ran[i] = v[1] ? 'y' : 'n';
		}
		for (i = 0; i < n; i++)
			ioctl(fd[i], PERF_EVENT_IOC_DISABLE, 0);
		out("%s: ok ran=%s%s", what, ran, buf);
	}
	for (i = 0; i < n; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

static void raw_intel(void)
{
	static const __u64 two[] = { 0x01b7, 0x01b7 };
	static const __u64 bb[] = { 0x01bb, 0x01b7 };
	static const __u64 three[] = { 0x01b7, 0x01b7, 0x01b7 };
	static const __u64 same[] = { 0x10001, 0x10001, 0x10001 };
	static const __u64 diff[] = { 0x10001, 0x10002, 0x10004 };
	struct perf_event_attr attr;
	int mux;

	raw(0x00c4, 0);
	raw(0x00c4 | 1ULL << 21, 0);		/* AnyThread */
	raw(0x00c0 | 1ULL << 21, 0);		/* ... on a fixed counter */
	raw(0x00c4 | 1ULL << 19, 0);		/* pin control */
	raw(0x00c4 | 1ULL << 20, 0);		/* INT */
	raw(0x00c4 | 1ULL << 22, 0);		/* EN */
	raw(0x00c4 | 1ULL << 32, 0);		/* in_tx */
	raw(0x00c4 | 1ULL << 33, 0);		/* in_tx_cp */
	raw(0x00c4 | 1ULL << 34, 0);
	raw(0x00c4 | 1ULL << 40, 0);
	raw(0x00c4 | 1ULL << 63, 0);
	attr_init(&attr, PERF_TYPE_RAW, 0x00c4 | 1ULL << 21);
	as_user("raw 0x2000c4", &attr);
	raw(0x01c0, 0x10001);			/* config1 without extra reg */
	raw(0x01b7, 0);
	raw(0x01b7, 0x10001);
	raw(0x01b7, 0x3fffffffffULL);
	raw(0x01bb, 0x10001);
	raw(0x02b7, 0x10001);			/* another umask */
	raw(0x01b7 | 1ULL << 21, 0x10001);
	config1_bits(0x01b7);
	config1_bits(0x01bb);
	raw(0x01cd, 0);				/* load latency (ldlat) */
	raw(0x01cd, 3);
	config1_bits(0x01cd);
	raw(0x01c6, 0);				/* frontend */
	raw(0x01c6, 0x11);
	config1_bits(0x01c6);
	raw_group(2, two, same);
	raw_group(2, two, diff);
	raw_group(2, bb, diff);
	raw_group(3, three, same);
	raw_group(3, three, diff);
	mux = mux_interval(10000);
	raw_separate(2, two, diff);
	raw_separate(2, bb, diff);
	raw_separate(3, three, same);
	raw_separate(3, three, diff);
	if (mux > 0)
		mux_interval(mux);
}

static void raw_amd(void)
{
	struct perf_event_attr attr;

	raw(0x00c2, 0);
	raw(0x00c2 | 1ULL << 21, 0);		/* AnyThread: reserved */
	raw(0x00c2 | 1ULL << 19, 0);
	raw(0x00c2 | 1ULL << 20, 0);
	raw(0x00c2 | 1ULL << 22, 0);
	raw(0x00c2 | 1ULL << 32, 0);		/* event select 11:8 */
	raw(0x00c2 | 0xfULL << 32, 0);
	raw(0x00c2 | 1ULL << 36, 0);
	raw(0x00c2 | 1ULL << 40, 0);		/* GuestOnly */
	raw(0x00c2 | 1ULL << 41, 0);		/* HostOnly */
	raw(0x00c2 | 1ULL << 63, 0);
	attr_init(&attr, PERF_TYPE_RAW, 0x00c2 | 1ULL << 21);
	as_user("raw 0x2000c2", &attr);
	raw(0x01b7, 0x10001);
	raw(0x00c2, 1ULL << 63);
}

int main(int argc, char **argv)
{
	const char *const *expect;
	cpu_set_t cpus;
	char vendor[64] = "";
	FILE *f;
	int i, j, fails = 0, dump = argc > 1 && !strcmp(argv[1], "dump");

	setvbuf(stdout, NULL, _IONBF, 0);
	f = fopen("/proc/cpuinfo", "r");
	if (f) {
		char line[256];

		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "vendor_id : %63s", vendor) == 1)
				break;
		fclose(f);
	}
	amd = !strcmp(vendor, "AuthenticAMD");
	/* the counters read back are those of CPU 0, where this task runs */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	if (sched_setaffinity(0, sizeof(cpus), &cpus))
		perror("sched_setaffinity");
	msr_fd = open("/dev/cpu/0/msr", O_RDWR);
	if (msr_fd < 0)
		perror("/dev/cpu/0/msr");
	if (!amd) {
		unsigned long long zero = 0;

		/*
		 * The offcore response registers keep the last value a
		 * kernel wrote (it does not clear them when their events
		 * go): start from 0, whatever ran before
		 */
		for (i = 0; i < 2; i++)
			if (pwrite(msr_fd, &zero, 8, 0x1a6 + i) != 8)
				perror("wrmsr");
	}

	hardware();
	hw_cache();
	if (amd)
		raw_amd();
	else
		raw_intel();

	expect = amd ? pmu_cache_amd : pmu_cache_intel;
	/* no table for this vendor yet: print it, to be measured */
	if (!expect[0])
		dump = 1;
	for (i = 0, j = 0; i < nlines; i++) {
		if (dump) {
			printf("%s\n", lines[i]);
			continue;
		}
		if (expect[j] && !strcmp(expect[j], lines[i])) {
			printf("ok %s\n", lines[i]);
		} else {
			printf("not ok %s (expected %s)\n", lines[i],
			       expect[j] ? expect[j] : "nothing");
			fails++;
		}
		if (expect[j])
			j++;
	}
	for (; !dump && expect[j]; j++, fails++)
		printf("not ok missing: %s\n", expect[j]);
	if (dump)
		return 1;
	printf("%d of %d lines differ from the stock kernel's\n", fails, nlines);
	return fails ? 1 : 0;
}
