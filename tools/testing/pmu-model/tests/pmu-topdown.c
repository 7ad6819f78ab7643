// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-topdown: TOPDOWN.SLOTS (fixed counter 3) and IA32_PERF_METRICS on
 * the TCG PMU model's Icelake-PMU (0017), as the stock 6.12 kernel gives
 * them to a user (skips on any other CPU model).
 *
 * The model counts 10 slots per instruction (5 a cycle, 2 cycles an
 * instruction): 1 retiring per instruction retired, 4 bad speculation per
 * mispredicted branch, 5 frontend bound per taken branch, the rest
 * backend bound, and PERF_METRICS holds their cumulative fractions of
 * 0xff.  Over a user loop of dec/jnz (2 instructions, 1 taken branch) the
 * bytes are 25 retiring, 0 bad speculation, 64 frontend and 166 backend
 * bound, and the stock driver reports each metric as slots * byte / 0xff.
 *
 * Checks: the cpu PMU's topdown events, caps and formats in sysfs; a
 * group {slots, retiring, bad-spec, fe-bound, be-bound} over two loop
 * lengths (slots by difference exactly 20 a loop iteration, each metric
 * exactly slots * byte / 0xff); what the user page's index gives rdpmc
 * (slots: fixed counter 3, metrics: PERF_METRICS, 1 << 29); TOPDOWN.SLOTS_P
 * (0xa4/0x01) on a general counter; the open errors stock returns; two
 * slots groups at once share fixed counter 3 by time.
 * "pmu-topdown facts" prints the values behind the checks ("# fact:").
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define CFG_SLOTS	0x0400		/* event=0x00,umask=0x4 */
#define CFG_RETIRING	0x8000		/* event=0x00,umask=0x80 */
#define CFG_BAD_SPEC	0x8100
#define CFG_FE_BOUND	0x8200
#define CFG_BE_BOUND	0x8300
#define CFG_SLOTS_P	0x01a4		/* TOPDOWN.SLOTS_P */
#define CFG_CYCLES	0x003c

#define SLOTS_PER_INSN	10
#define N1		100000
#define N2		200000
#define STR_(x)		#x
#define STR(x)		STR_(x)
/* PERF_METRICS over the dec/jnz loop: retiring, bad spec, fe, be */
static const unsigned int loop_bytes[4] = { 25, 0, 64, 166 };
static const uint64_t metric_cfg[4] = {
	CFG_RETIRING, CFG_BAD_SPEC, CFG_FE_BOUND, CFG_BE_BOUND
};
static const char * const metric_name[4] = {
	"retiring", "bad-spec", "fe-bound", "be-bound"
};

static int facts;
static int msr_fd = -1;

static void fact(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fact(const char *fmt, ...)
{
	va_list ap;

	if (!facts)
		return;
	printf("# fact: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A mark in the model's PMU_CORE_LOG: CPU 0 reads PERF_CAPABILITIES */
static void marker(const char *what)
{
	uint64_t v;

	if (!facts || msr_fd < 0)
		return;
	if (pread(msr_fd, &v, 8, 0x345) == 8)
		printf("# marker (rdmsr 0x345): %s\n", what);
}

static int open_ev(uint64_t config, int group, int excl_kernel,
		   uint64_t period)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_RAW;
	attr.config = config;
	attr.disabled = group < 0;
	attr.exclude_kernel = excl_kernel;
	attr.exclude_hv = excl_kernel;
	attr.sample_period = period;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return sys_perf_event_open(&attr, 0, -1, group, 0);
}

static void loop(unsigned long n)
{
	asm volatile("1:\n\t"
		     "dec %0\n\t"
		     "jnz 1b\n\t"
		     : "+r"(n) : : "cc");
}

struct grp {
	int fd[5];
	uint64_t val[5];	/* slots, then the metrics */
	uint64_t enabled, running;
};

static int grp_open(struct grp *g)
{
	int i;

	g->fd[0] = open_ev(CFG_SLOTS, -1, 1, 0);
	if (g->fd[0] < 0)
		return -1;
	for (i = 0; i < 4; i++) {
		g->fd[i + 1] = open_ev(metric_cfg[i], g->fd[0], 1, 0);
		if (g->fd[i + 1] < 0)
			return -1;
	}
	return 0;
}

static void grp_close(struct grp *g)
{
	int i;

	for (i = 4; i >= 0; i--)
		close(g->fd[i]);
}

static int grp_read(struct grp *g)
{
	uint64_t buf[3 + 5];
	int i;

	if (read(g->fd[0], buf, sizeof(buf)) != sizeof(buf) || buf[0] != 5)
		return -1;
	g->enabled = buf[1];
	g->running = buf[2];
	for (i = 0; i < 5; i++)
		g->val[i] = buf[3 + i];
	return 0;
}

static int grp_run(struct grp *g, unsigned long n)
{
	ioctl(g->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
	ioctl(g->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	loop(n);
	ioctl(g->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	return grp_read(g);
}

/* The model's Icelake-PMU: Ice Lake server, perfmon v5 with fixed counter 3 */
static int is_icelake_pmu(void)
{
	unsigned int a, b, c, d, model;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	if (((a >> 8) & 0xf) != 6 || model != 0x6a)
		return 0;
	if (!__get_cpuid(0xa, &a, &b, &c, &d))
		return 0;
	return (a & 0xff) >= 5 && (c & (1u << 3));
}

static void sysfs_file(const char *path, const char *want)
{
	char buf[256] = "", what[400];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n > 0 ? n : 0] = 0;
	if (n > 0 && buf[n - 1] == '\n')
		buf[n - 1] = 0;
	if (!want) {
		snprintf(what, sizeof(what), "%s absent", path);
		check(!f, what);
		return;
	}
	snprintf(what, sizeof(what), "%s: '%s' (expected '%s')", path, buf,
		 want);
	check(f && !strcmp(buf, want), what);
}

static void test_sysfs(void)
{
	static const char * const files[][2] = {
		{ "events/slots", "event=0x00,umask=0x4" },
		{ "events/topdown-retiring", "event=0x00,umask=0x80" },
		{ "events/topdown-bad-spec", "event=0x00,umask=0x81" },
		{ "events/topdown-fe-bound", "event=0x00,umask=0x82" },
		{ "events/topdown-be-bound", "event=0x00,umask=0x83" },
		{ "events/ref-cycles", "event=0x00,umask=0x03" },
		{ "caps/pmu_name", "icelake" },
		{ "caps/branches", "32" },
		{ "caps/max_precise", "3" },
		{ "format/any", NULL },	/* AnyThread deprecated */
		{ "format/frontend", "config1:0-23" },
		{ "format/ldlat", "config1:0-15" },
		/* no level-2 metrics on Ice Lake */
		{ "events/topdown-heavy-ops", NULL },
		{ "events/topdown-br-mispredict", NULL },
		{ "events/topdown-fetch-lat", NULL },
		{ "events/topdown-mem-bound", NULL },
	};
	char path[200];
	unsigned int i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path),
			 "/sys/bus/event_source/devices/cpu/%s", files[i][0]);
		sysfs_file(path, files[i][1]);
	}
}

/* A fresh group over @n loops: slots and metrics counted from 0 */
static int grp_fresh(struct grp *g, unsigned long n)
{
	int ret;

	if (grp_open(g)) {
		printf("not ok open the slots + 4 metrics group: %s\n",
		       strerror(errno));
		fails++;
		return -1;
	}
	ret = grp_run(g, n);
	if (ret) {
		printf("not ok read the group: %s\n", strerror(errno));
		fails++;
	}
	grp_close(g);
	return ret;
}

static void test_counts(void)
{
	static const int n[2] = { N1, N2 };
	struct grp g[2];
	char what[200];
	int i, k;

	for (k = 0; k < 2; k++) {
		marker(k ? "group N2" : "group N1");
		if (grp_fresh(&g[k], n[k]))
			return;
		fact("group {slots,topdown-retiring,-bad-spec,-fe-bound,-be-bound}:u (a fresh group) over %d loops: %llu %llu %llu %llu %llu, enabled %llu running %llu",
		     n[k], (unsigned long long)g[k].val[0],
		     (unsigned long long)g[k].val[1],
		     (unsigned long long)g[k].val[2],
		     (unsigned long long)g[k].val[3],
		     (unsigned long long)g[k].val[4],
		     (unsigned long long)g[k].enabled,
		     (unsigned long long)g[k].running);
		check(g[k].enabled == g[k].running && g[k].running > 0,
		      "the group ran all the time it was enabled");
		for (i = 0; i < 4; i++) {
			uint64_t want = g[k].val[0] * loop_bytes[i] / 0xff;

			snprintf(what, sizeof(what),
				 "topdown-%s = slots * %u / 0xff (rounded down) over %d loops",
				 metric_name[i], loop_bytes[i], n[k]);
			check_val(g[k].val[i + 1] == want, what,
				  g[k].val[i + 1], want);
		}
	}
	check_val(g[1].val[0] - g[0].val[0] == SLOTS_PER_INSN * 2 * (N2 - N1),
		  "slots: N2 - N1 more loop iterations count 20 slots each",
		  g[1].val[0] - g[0].val[0], SLOTS_PER_INSN * 2 * (N2 - N1));
}

/*
 * rdpmc(@ecx) around the loop: rdpmc, 3 movs and n (dec, jnz), so
 * 4 + 2n instructions; *@m gets rdpmc(@mecx) right after
 */
static uint64_t measure(uint32_t ecx, uint32_t mecx, uint64_t *m)
{
	uint32_t a0, d0, a1, d1, a2, d2;

	asm volatile("rdpmc\n\t"
		     "mov %%eax, %0\n\t"
		     "mov %%edx, %1\n\t"
		     "mov $" STR(N1) ", %%r10\n"
		     "1:\n\t"
		     "dec %%r10\n\t"
		     "jnz 1b\n\t"
		     "rdpmc\n\t"
		     "mov %%eax, %2\n\t"
		     "mov %%edx, %3\n\t"
		     "mov %7, %%ecx\n\t"
		     "rdpmc\n\t"
		     : "=&r"(a0), "=&r"(d0), "=&r"(a1), "=&r"(d1),
		       "=&a"(a2), "=&d"(d2), "+c"(ecx)
		     : "r"(mecx)
		     : "r10", "cc");
	*m = (uint64_t)d2 << 32 | a2;
	return ((((uint64_t)d1 << 32) | a1) - (((uint64_t)d0 << 32) | a0)) &
	       ((1ULL << 48) - 1);
}

static void test_rdpmc(void)
{
	struct perf_event_mmap_page *pc[5];
	uint32_t idx[5];
	struct grp g;
	uint64_t s1, m;
	char what[200];
	int i;

	if (grp_open(&g)) {
		printf("not ok rdpmc: open the group: %s\n", strerror(errno));
		fails++;
		return;
	}
	for (i = 0; i < 5; i++) {
		pc[i] = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
			     g.fd[i], 0);
		if (pc[i] == MAP_FAILED) {
			printf("not ok rdpmc: mmap: %s\n", strerror(errno));
			fails++;
			grp_close(&g);
			return;
		}
	}
	marker("rdpmc enable");
	ioctl(g.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (i = 0; i < 5; i++)
		idx[i] = pc[i]->index;
	s1 = measure(idx[0] - 1, idx[1] - 1, &m);
	ioctl(g.fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	marker("rdpmc disabled");
	for (i = 0; i < 5; i++)
		fact("userpg of %s: index 0x%x cap_user_rdpmc %d pmc_width %d offset %lld",
		     i ? metric_name[i - 1] : "slots", idx[i],
		     (int)pc[i]->cap_user_rdpmc, (int)pc[i]->pmc_width,
		     (long long)pc[i]->offset);
	fact("rdpmc slots over %d loops: %llu; rdpmc(1 << 29) after: 0x%llx",
	     N1, (unsigned long long)s1, (unsigned long long)m);
	check_val(idx[0] == (1u << 30 | 3) + 1,
		  "slots' user page index is fixed counter 3's (1 << 30 | 3) + 1",
		  idx[0], (1u << 30 | 3) + 1);
	for (i = 1; i < 5; i++) {
		snprintf(what, sizeof(what),
			 "topdown-%s's user page index is PERF_METRICS' (1 << 29) + 1",
			 metric_name[i - 1]);
		check_val(idx[i] == (1u << 29) + 1, what, idx[i],
			  (1u << 29) + 1);
	}
	check_val(s1 == SLOTS_PER_INSN * (4 + 2ULL * N1),
		  "rdpmc of slots around the loop: 10 an instruction", s1,
		  SLOTS_PER_INSN * (4 + 2ULL * N1));
	check_val(m == 0xa6400019,
		  "rdpmc(1 << 29) reads PERF_METRICS: bytes 25, 0, 64, 166",
		  m, 0xa6400019);
	for (i = 0; i < 5; i++)
		munmap(pc[i], sysconf(_SC_PAGESIZE));
	grp_close(&g);
}

static void test_slots_p(void)
{
	uint64_t buf[4];
	int fd = open_ev(CFG_SLOTS_P, -1, 1, 0);
	int ok;

	if (fd < 0) {
		printf("not ok TOPDOWN.SLOTS_P (0x01a4) opens: %s\n",
		       strerror(errno));
		fails++;
		return;
	}
	marker("slots_p");
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	loop(N1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ok = read(fd, buf, sizeof(buf)) == sizeof(buf);
	fact("TOPDOWN.SLOTS_P:u over %d loops: %llu", N1,
	     (unsigned long long)buf[3]);
	check(ok && buf[0] == 1 && buf[3] >= SLOTS_PER_INSN * 2ULL * N1 &&
	      buf[3] < SLOTS_PER_INSN * (2ULL * N1 + 1000),
	      "TOPDOWN.SLOTS_P (0x01a4, a general counter) counts 10 slots an instruction");
	close(fd);
}

static void test_errors(void)
{
	struct grp g;
	int lead, fd, i, m[4];

	/* a metric event alone, or leading a group */
	expect_errno(open_ev(CFG_RETIRING, -1, 1, 0), EINVAL,
		     "topdown-retiring alone (a group leader)");
	lead = open_ev(CFG_CYCLES, -1, 1, 0);
	expect_errno(open_ev(CFG_RETIRING, lead, 1, 0), EINVAL,
		     "topdown-retiring in a group led by cycles");
	/* slots as a member */
	fd = open_ev(CFG_SLOTS, lead, 1, 0);
	check(fd >= 0, "slots as a member of a cycles group opens");
	if (fd >= 0) {
		expect_errno(open_ev(CFG_RETIRING, lead, 1, 0), EINVAL,
			     "topdown-retiring after a slots member");
		close(fd);
	}
	close(lead);
	/* sampling */
	lead = open_ev(CFG_SLOTS, -1, 1, 0);
	expect_errno(open_ev(CFG_RETIRING, lead, 1, 100000), EINVAL,
		     "topdown-retiring with a sample period");
	fd = open_ev(CFG_RETIRING, lead, 0, 0);
	check(fd >= 0, "topdown-retiring with exclude_kernel unlike its leader opens");
	if (fd >= 0)
		close(fd);
	for (i = 0; i < 4; i++) {
		m[i] = open_ev(metric_cfg[i], lead, 1, 0);
		check(m[i] >= 0, "a metric event in a slots group");
	}
	expect_errno(open_ev(CFG_RETIRING, lead, 1, 0), EINVAL,
		     "a fifth metric event (retiring again)");
	for (i = 3; i >= 0; i--)
		if (m[i] >= 0)
			close(m[i]);
	close(lead);
	/* a slots leader that samples */
	lead = open_ev(CFG_SLOTS, -1, 1, 100000);
	check(lead >= 0, "slots with a sample period opens");
	if (lead >= 0) {
		expect_errno(open_ev(CFG_RETIRING, lead, 1, 0), EINVAL,
			     "topdown-retiring in a sampling slots group");
		close(lead);
	}
	/* two groups want fixed counter 3 */
	if (grp_open(&g) == 0) {
		struct grp h;

		if (grp_open(&h) == 0) {
			marker("two groups");
			ioctl(g.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
			ioctl(h.fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
			loop(20000000);
			ioctl(h.fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
			ioctl(g.fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
			grp_read(&g);
			grp_read(&h);
			/* the two share fixed counter 3 by time */
			check(g.running > g.enabled / 4 &&
			      g.running < g.enabled * 3 / 4 &&
			      h.running > h.enabled / 4 &&
			      h.running < h.enabled * 3 / 4,
			      "two slots groups at once take turns on fixed counter 3");
			fact("two slots groups at once: first enabled %llu running %llu slots %llu, second enabled %llu running %llu slots %llu",
			     (unsigned long long)g.enabled,
			     (unsigned long long)g.running,
			     (unsigned long long)g.val[0],
			     (unsigned long long)h.enabled,
			     (unsigned long long)h.running,
			     (unsigned long long)h.val[0]);
			grp_close(&h);
		}
		grp_close(&g);
	}
}

/*
 * A metric counts only as a member of its slots group: when the slots
 * leader closes, the metric does not go on as a group of its own but
 * into the error state, where read() gives 0 bytes (as 6.12)
 */
static void test_orphan(void)
{
	uint64_t buf[8];
	int slots, ret;
	ssize_t n;

	slots = open_ev(CFG_SLOTS, -1, 1, 0);
	ret = slots < 0 ? -1 : open_ev(CFG_RETIRING, slots, 1, 0);
	if (ret < 0) {
		check(0, "orphan: open {slots, topdown-retiring}:u");
		if (slots >= 0)
			close(slots);
		return;
	}
	ioctl(slots, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	loop(N1);
	n = read(ret, buf, sizeof(buf));
	check_val(n == 5 * 8, "orphan: the group's read before the leader closes",
		  n, 5 * 8);
	close(slots);
	loop(N1);
	n = read(ret, buf, sizeof(buf));
	check_val(n == 0,
		  "orphan: topdown-retiring's read after its slots leader closed",
		  n, 0);
	close(ret);
}

int main(int argc, char **argv)
{
	cpu_set_t set;

	setvbuf(stdout, NULL, _IONBF, 0);
	facts = argc > 1 && !strcmp(argv[1], "facts");
	if (!is_icelake_pmu()) {
		printf("ok # SKIP not the Icelake-PMU model\n");
		return 0;
	}
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	if (facts)
		msr_fd = open("/dev/cpu/0/msr", O_RDONLY);
	test_sysfs();
	test_counts();
	test_rdpmc();
	test_slots_p();
	test_errors();
	test_orphan();
	return fails ? 1 : 0;
}
