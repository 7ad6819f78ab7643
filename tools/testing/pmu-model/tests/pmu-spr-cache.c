// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-spr-cache: the generic cache events (PERF_TYPE_HW_CACHE) on the TCG
 * PMU model's Sapphire Rapids variant (-cpu Icelake-PMU,arch-lbr=on,
 * model=143: family 6 model 0x8f with architectural LBRs, CPUID.7.EDX[19]),
 * as the stock 6.12 kernel gives them (skips on any other CPU). The facts
 * behind it were observed on stock with the model's PMU_CORE_LOG trace
 * (spr-cache-facts.md).
 *
 * Stock's Sapphire Rapids table differs from Ice Lake's: L1D read miss is
 * L2_RQSTS.ALL_DEMAND_DATA_RD (0xe124), L1I read miss L2_RQSTS.ALL_CODE_RD
 * (0xe424), the LL and NODE entries are OCR (0x012a) with their own
 * response values, the DTLB and ITLB misses are the walks of events 0x12,
 * 0x13 and 0x11, the BPU entries take umask 0x04, and NODE write is
 * ENOENT. Checks:
 *
 * - the errno of perf_event_open() for every (cache 0-7, op 0-3, result
 *   0-2), one past each last included (EINVAL), and a few configs with
 *   bits above the result byte;
 * - as root, for each entry that opens (alone, on this task, pinned to
 *   CPU 0, enabled): the event select programmed while it counts, read
 *   back through /dev/cpu/0/msr (event, umask, edge, inv, cmask, USR,
 *   OS and EN), for the offcore events (LL, NODE) the response register
 *   of the OCR event used (0x1a6 for 0x012a, 0x1a7 for 0x012b), and that
 *   no other extra register is programmed: the load-latency (0x3f6) and
 *   frontend (0x3f7) registers as they were before the open, PEBS_ENABLE
 *   0;
 * - exact user-space counts over pmu-dcache's sweeps (one load or store
 *   every 64 bytes or every 4 KiB, n and 2n of them: the difference of
 *   the two deltas is what the n extra accesses did) and over a nested
 *   branch loop: L1D and DTLB accesses are the loads and stores, BPU the
 *   branches and the mispredictions (one at each loop exit). The model
 *   counts Skylake's encodings of the rest (0x51, 0x08, 0x49, 0xb7), not
 *   these: L1D and L1I misses, LL, NODE, DTLB and ITLB misses count 0.
 *
 * An interrupt or a preemption inside a measurement adds misses (almost
 * never takes one away): a case takes each count's smallest of up to TRIES
 * measurements (pmu-sweep.h).
 */
#define _GNU_SOURCE
#include <cpuid.h>
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
#include "pmu-sweep.h"

#define INVALID		((uint64_t)-1)

struct entry {
	uint64_t sel;		/* event | umask << 8; 0 ENOENT, INVALID EINVAL */
	uint64_t rsp;		/* the offcore response register's value */
};

#define C(x)		PERF_COUNT_HW_CACHE_##x
#define OP_(x)		PERF_COUNT_HW_CACHE_OP_##x
#define RES_(x)		PERF_COUNT_HW_CACHE_RESULT_##x

#define LOADS		{ 0x81d0, 0 }	/* MEM_INST_RETIRED.ALL_LOADS */
#define STORES		{ 0x82d0, 0 }	/* MEM_INST_RETIRED.ALL_STORES */
#define OCR(v)		{ 0x012a, v }	/* OCR.* (the first OCR event) */
#define NONE		{ 0, 0 }
#define INVAL		{ INVALID, 0 }

/* stock 6.12 on the Sapphire Rapids variant, [cache][op][result] */
static const struct entry spr_cache[C(MAX)][OP_(MAX)][RES_(MAX)] = {
	[C(L1D)] = {
		/* L2_RQSTS.ALL_DEMAND_DATA_RD */
		[OP_(READ)]	= { LOADS, { 0xe124, 0 } },
		[OP_(WRITE)]	= { STORES, NONE },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
	[C(L1I)] = {
		[OP_(READ)]	= { NONE, { 0xe424, 0 } },	/* L2_RQSTS.ALL_CODE_RD */
		[OP_(WRITE)]	= { INVAL, INVAL },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
	[C(LL)] = {
		[OP_(READ)]	= { OCR(0x10001), OCR(0x3fbfc00001) },
		[OP_(WRITE)]	= { OCR(0x3f3ffc0002), OCR(0x3f3fc00002) },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
	[C(DTLB)] = {
		/* DTLB_LOAD_MISSES / DTLB_STORE_MISSES.WALK_COMPLETED */
		[OP_(READ)]	= { LOADS, { 0x0e12, 0 } },
		[OP_(WRITE)]	= { STORES, { 0x0e13, 0 } },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
	[C(ITLB)] = {
		/* ITLB_MISSES.WALK_COMPLETED; read access EINVAL */
		[OP_(READ)]	= { INVAL, { 0x0e11, 0 } },
		[OP_(WRITE)]	= { INVAL, INVAL },
		[OP_(PREFETCH)]	= { INVAL, INVAL },
	},
	[C(BPU)] = {
		/* BR_INST_RETIRED, BR_MISP_RETIRED umask 0x04 */
		[OP_(READ)]	= { { 0x04c4, 0 }, { 0x04c5, 0 } },
		[OP_(WRITE)]	= { INVAL, INVAL },
		[OP_(PREFETCH)]	= { INVAL, INVAL },
	},
	[C(NODE)] = {
		[OP_(READ)]	= { OCR(0x10c000001), OCR(0x3fb3000001) },
		[OP_(WRITE)]	= { NONE, NONE },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
};

static const char *const caches[] = {
	"L1D", "L1I", "LL", "DTLB", "ITLB", "BPU", "NODE", "cache7",
};
static const char *const ops[] = { "read", "write", "prefetch", "op3" };
static const char *const results[] = { "access", "miss", "result2" };

#define SEL_USR		(1ULL << 16)
#define SEL_OS		(1ULL << 17)
#define SEL_EN		(1ULL << 22)
/* event, umask, USR, OS, edge, EN, inv, cmask: not PC, INT or ANY */
#define SEL_MASK	0xffc7ffffULL

static int msr_fd = -1;

static int rdmsr(unsigned int msr, uint64_t *val)
{
	return pread(msr_fd, val, 8, msr) == 8 ? 0 : -1;
}

static int perf_open(uint32_t type, uint64_t config, int disabled, int group,
		     uint64_t read_format)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.disabled = disabled;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	a.read_format = read_format;
	return sys_perf_event_open(&a, 0, -1, group, 0);
}

static void short_loop(void)
{
	unsigned long n = 1000;

	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

/* the OCR event select on a counter, and its response register */
static unsigned int ocr_rsp_msr(uint64_t sel)
{
	return (sel & 0xffff) == 0x012b ? 0x1a7 : 0x1a6;
}

/*
 * @fd counts @config (expected @e): the event select with EN among
 * PERFEVTSEL0-3, for an offcore event its response register, and no
 * other extra register: MSR_PEBS_LD_LAT (0x3f6) and MSR_PEBS_FRONTEND
 * (0x3f7) as they were before the open (@ldlat, @fe), PEBS_ENABLE 0
 */
static void check_regs(const char *name, const struct entry *e,
		       uint64_t ldlat, uint64_t fe)
{
	uint64_t v, sel = 0, rsp = 0, want = e->sel | SEL_USR | SEL_EN;
	char what[256];
	int i, n = 0;

	for (i = 0; i < 4; i++)
		if (!rdmsr(0x186 + i, &v) && (v & SEL_EN)) {
			sel = v;
			n++;
		}
	snprintf(what, sizeof(what),
		 "%s: one event select enabled, %#llx (expected %#llx)", name,
		 (unsigned long long)(sel & SEL_MASK),
		 (unsigned long long)want);
	check(n == 1 && (sel & SEL_MASK) == want, what);
	v = ~0ULL;
	rdmsr(0x3f6, &v);
	snprintf(what, sizeof(what), "%s: load latency %#llx (unchanged %#llx)",
		 name, (unsigned long long)v, (unsigned long long)ldlat);
	check(v == ldlat, what);
	v = ~0ULL;
	rdmsr(0x3f7, &v);
	snprintf(what, sizeof(what), "%s: frontend %#llx (unchanged %#llx)",
		 name, (unsigned long long)v, (unsigned long long)fe);
	check(v == fe, what);
	v = ~0ULL;
	rdmsr(0x3f1, &v);
	snprintf(what, sizeof(what), "%s: PEBS_ENABLE %#llx (expected 0)",
		 name, (unsigned long long)v);
	check(v == 0, what);
	if (!e->rsp)
		return;
	/* either OCR event will do, with its own register */
	rdmsr(ocr_rsp_msr(sel), &rsp);
	snprintf(what, sizeof(what), "%s: offcore response %#llx (expected %#llx)",
		 name, (unsigned long long)rsp, (unsigned long long)e->rsp);
	check(rsp == e->rsp, what);
}

static void test_config(const char *name, uint64_t config,
			const struct entry *e)
{
	int want = e->sel == INVALID ? EINVAL : e->sel ? 0 : ENOENT;
	uint64_t ldlat = ~0ULL, fe = ~0ULL;
	char what[128];
	int fd;

	if (msr_fd >= 0) {
		rdmsr(0x3f6, &ldlat);
		rdmsr(0x3f7, &fe);
	}
	fd = perf_open(PERF_TYPE_HW_CACHE, config, 0, -1, 0);
	if (!want) {
		snprintf(what, sizeof(what), "%s (%#llx) opens: %s", name,
			 (unsigned long long)config,
			 fd < 0 ? strerror(errno) : "ok");
		check(fd >= 0, what);
	} else {
		snprintf(what, sizeof(what), "%s (%#llx)", name,
			 (unsigned long long)config);
		expect_errno(fd, want, what);
		return;
	}
	if (fd < 0)
		return;
	short_loop();
	if (msr_fd >= 0)
		check_regs(name, e, ldlat, fe);
	close(fd);
}

static void test_table(void)
{
	static const struct entry inval = INVAL;
	int c, o, r;
	char name[64];

	for (c = 0; c <= C(MAX); c++)
		for (o = 0; o <= OP_(MAX); o++)
			for (r = 0; r <= RES_(MAX); r++) {
				int in = c < C(MAX) && o < OP_(MAX) &&
					 r < RES_(MAX);

				snprintf(name, sizeof(name), "%s-%s-%s",
					 caches[c], ops[o], results[r]);
				test_config(name, c | o << 8 | r << 16,
					    in ? &spr_cache[c][o][r] : &inval);
			}
	/* ids, ops and results far out of range */
	test_config("cache 8", 8, &inval);
	test_config("cache 0xff", 0xff, &inval);
	test_config("op 0xff", 0xff << 8, &inval);
	test_config("result 0xff", 0xff << 16, &inval);
	/* bits 24-31 are ignored: L1D-read-access */
	test_config("L1D-read-access with bit 24", 1ULL << 24,
		    &spr_cache[C(L1D)][OP_(READ)][RES_(ACCESS)]);
	/*
	 * config[63:32] is the extended PMU type (uapi perf_event.h): type 1,
	 * the software PMU, has no cache events; an unknown type is ignored
	 */
	{
		static const struct entry noent = NONE;

		test_config("L1D-read-access of PMU type 1", 1ULL << 32,
			    &noent);
	}
	test_config("L1D-read-access of PMU type 0x80000000", 1ULL << 63,
		    &spr_cache[C(L1D)][OP_(READ)][RES_(ACCESS)]);
}

/*
 * A third OCR member: with a third response value it has no register
 * left (EINVAL); with the leader's value it shares the leader's and opens
 */
static void test_offcore_three(void)
{
	uint64_t third[2] = { HWC(NODE, READ, ACCESS), HWC(LL, READ, ACCESS) };
	int k;

	for (k = 0; k < 2; k++) {
		int fd1 = perf_open(PERF_TYPE_HW_CACHE, HWC(LL, READ, ACCESS),
				    0, -1, 0);
		int fd2 = fd1 < 0 ? -1 :
			  perf_open(PERF_TYPE_HW_CACHE, HWC(LL, READ, MISS), 0,
				    fd1, 0);
		int fd3 = fd2 < 0 ? -1 :
			  perf_open(PERF_TYPE_HW_CACHE, third[k], 0, fd1, 0);
		char what[160];

		if (k == 0) {
			expect_errno(fd3, EINVAL,
				     "group LL-read-access + LL-read-miss + NODE-read-access (a third response value)");
		} else {
			snprintf(what, sizeof(what),
				 "group LL-read-access + LL-read-miss + LL-read-access (the leader's value again) opens: %s",
				 fd3 < 0 ? strerror(errno) : "ok");
			check(fd3 >= 0, what);
			if (fd3 >= 0)
				close(fd3);
		}
		if (fd2 >= 0)
			close(fd2);
		if (fd1 >= 0)
			close(fd1);
	}
}

/*
 * Two OCR events with different response values in one group: each has
 * its own OCR event and register (0x012a with 0x1a6, 0x012b with 0x1a7)
 */
static void test_offcore_groups(void)
{
	static const struct { const char *name; uint64_t c1, c2, r1, r2; } g[] = {
		{ "group LL-read-access + LL-read-miss",
		  HWC(LL, READ, ACCESS), HWC(LL, READ, MISS),
		  0x10001, 0x3fbfc00001 },
		{ "group NODE-read-access + LL-write-miss",
		  HWC(NODE, READ, ACCESS), HWC(LL, WRITE, MISS),
		  0x10c000001, 0x3f3fc00002 },
	};
	unsigned int k;

	for (k = 0; k < sizeof(g) / sizeof(g[0]); k++) {
		uint64_t v, rsp, got[2] = { 0, 0 };
		int fd1, fd2, i, n = 0, ok = 1;
		char what[256];

		fd1 = perf_open(PERF_TYPE_HW_CACHE, g[k].c1, 0, -1, 0);
		fd2 = fd1 < 0 ? -1 :
		      perf_open(PERF_TYPE_HW_CACHE, g[k].c2, 0, fd1, 0);
		snprintf(what, sizeof(what), "%s opens: %s", g[k].name,
			 fd2 < 0 ? strerror(errno) : "ok");
		check(fd2 >= 0, what);
		if (fd2 < 0) {
			if (fd1 >= 0)
				close(fd1);
			continue;
		}
		short_loop();
		for (i = 0; i < 4; i++) {
			if (rdmsr(0x186 + i, &v) || !(v & SEL_EN))
				continue;
			rsp = ~0ULL;
			rdmsr(ocr_rsp_msr(v), &rsp);
			printf("# %s: PERFEVTSEL%d %#llx, response %#llx\n",
			       g[k].name, i, (unsigned long long)v,
			       (unsigned long long)rsp);
			ok &= (v & 0xffff) == 0x012a || (v & 0xffff) == 0x012b;
			if (n < 2)
				got[n] = (v & 0xffff) << 48 | rsp;
			n++;
		}
		ok &= n == 2 && (got[0] >> 48) != (got[1] >> 48);
		/* the two values, one on each register */
		ok &= ((got[0] & ((1ULL << 48) - 1)) == g[k].r1 &&
		       (got[1] & ((1ULL << 48) - 1)) == g[k].r2) ||
		      ((got[0] & ((1ULL << 48) - 1)) == g[k].r2 &&
		       (got[1] & ((1ULL << 48) - 1)) == g[k].r1);
		snprintf(what, sizeof(what),
			 "%s: OCR 0x012a and 0x012b, responses %#llx and %#llx",
			 g[k].name, (unsigned long long)g[k].r1,
			 (unsigned long long)g[k].r2);
		check(ok, what);
		close(fd2);
		close(fd1);
	}
	test_offcore_three();
}

/* counts: pmu-dcache's sweeps (pmu-sweep.h) */
/* the branch case: BR_OUTER loops of BR_INNER iterations */
#define BR_OUTER	10000
#define BR_INNER	4

/*
 * @n loops of BR_INNER iterations: n * (BR_INNER + 1) branches, and a
 * misprediction at each loop's exit (the inner ones and the outer)
 */
static void __attribute__((noinline)) branches(long n)
{
	long i;

	if (!n)
		return;
	asm volatile("1:	mov %2, %1\n"
		     "2:	dec %1\n"
		     "	jnz 2b\n"
		     "	dec %0\n"
		     "	jnz 1b\n"
		     : "+r"(n), "=&r"(i) : "i"(BR_INNER) : "cc");
}

#define EV(name, c, op, res)	{ name, PERF_TYPE_HW_CACHE, HWC(c, op, res) }

/*
 * Per case, the count per 64 extra accesses (or loops); the model counts
 * none of the miss events of this table (0)
 */
static const struct sweep_case cases[] = {
	{ "line loads", LINE, LINES, 0, {
		EV("L1D-read-access (loads)", L1D, READ, ACCESS),
		EV("L1D-read-miss (0xe124: 0)", L1D, READ, MISS),
		EV("DTLB-read-access (loads)", DTLB, READ, ACCESS),
		EV("DTLB-read-miss (0x0e12: 0)", DTLB, READ, MISS) },
	  { 64, 0, 64, 0 } },
	{ "page loads", PAGE, PAGES, 0, {
		EV("L1D-read-access (loads)", L1D, READ, ACCESS),
		EV("L1D-read-miss (0xe124: 0)", L1D, READ, MISS),
		EV("DTLB-read-miss (0x0e12: 0)", DTLB, READ, MISS),
		EV("BPU-read-access (branches)", BPU, READ, ACCESS) },
	  { 64, 0, 0, 64 } },
	{ "line stores", LINE, LINES, 1, {
		EV("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		EV("DTLB-write-access (stores)", DTLB, WRITE, ACCESS),
		EV("DTLB-write-miss (0x0e13: 0)", DTLB, WRITE, MISS),
		EV("L1D-read-access (loads)", L1D, READ, ACCESS) },
	  { 64, 64, 0, 0 } },
	{ "page stores", PAGE, PAGES, 1, {
		EV("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		EV("DTLB-write-miss (0x0e13: 0)", DTLB, WRITE, MISS),
		EV("L1D-read-miss (0xe124: 0)", L1D, READ, MISS),
		EV("BPU-read-miss (mispredictions)", BPU, READ, MISS) },
	  { 64, 0, 0, 0 } },
	/* offcore: at most two response values in a group (two MSRs) */
	{ "line loads, offcore", LINE, LINES, 0, {
		EV("LL-read-access (OCR: 0)", LL, READ, ACCESS),
		EV("LL-read-miss (OCR: 0)", LL, READ, MISS),
		EV("BPU-read-access (branches)", BPU, READ, ACCESS),
		EV("BPU-read-miss (mispredictions)", BPU, READ, MISS) },
	  { 0, 0, 64, 0 } },
	{ "page loads, offcore", PAGE, PAGES, 0, {
		EV("LL-read-access (OCR: 0)", LL, READ, ACCESS),
		EV("NODE-read-access (OCR: 0)", NODE, READ, ACCESS),
		EV("L1D-read-access (loads)", L1D, READ, ACCESS),
		EV("DTLB-read-access (loads)", DTLB, READ, ACCESS) },
	  { 0, 0, 64, 64 } },
	{ "page loads, offcore misses", PAGE, PAGES, 0, {
		EV("LL-read-miss (OCR: 0)", LL, READ, MISS),
		EV("NODE-read-miss (OCR: 0)", NODE, READ, MISS),
		EV("DTLB-read-access (loads)", DTLB, READ, ACCESS),
		EV("L1I-read-miss (0xe424: 0)", L1I, READ, MISS) },
	  { 0, 0, 64, 0 } },
	{ "page stores, offcore", PAGE, PAGES, 1, {
		EV("LL-write-access (OCR: 0)", LL, WRITE, ACCESS),
		EV("LL-write-miss (OCR: 0)", LL, WRITE, MISS),
		EV("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		EV("DTLB-write-access (stores)", DTLB, WRITE, ACCESS) },
	  { 0, 0, 64, 64 } },
	{ "branch loops", 0, BR_OUTER, 0, {
		EV("BPU-read-access (branches)", BPU, READ, ACCESS),
		EV("BPU-read-miss (mispredictions)", BPU, READ, MISS),
		EV("L1I-read-miss (0xe424: 0)", L1I, READ, MISS),
		EV("ITLB-read-miss (0x0e11: 0)", ITLB, READ, MISS) },
	  { (BR_INNER + 1) * 64, 64, 0, 0 }, branches },
	{ NULL }
};

/*
 * The model's Sapphire Rapids variant: family 6, model 0x8f, with
 * architectural LBRs (CPUID.(EAX=7,ECX=0):EDX[19])
 */
static int is_spr_model(void)
{
	unsigned int a, b, c, d, model;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	if (((a >> 8) & 0xf) != 6 || model != 0x8f)
		return 0;
	if (__get_cpuid_max(0, NULL) < 7)
		return 0;
	__cpuid_count(7, 0, a, b, c, d);
	return !!(d & (1U << 19));
}

int main(void)
{
	cpu_set_t set;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!is_spr_model()) {
		printf("ok # SKIP not the model's Sapphire Rapids variant (family 6 model 0x8f, arch LBR)\n");
		return 0;
	}
	/* the registers read back are those of CPU 0, where this task runs */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
	msr_fd = open("/dev/cpu/0/msr", O_RDONLY);
	if (msr_fd < 0)
		printf("ok # SKIP event selects: /dev/cpu/0/msr: %s\n",
		       strerror(errno));
	test_table();
	if (msr_fd >= 0)
		test_offcore_groups();

	return sweep_run_cases(cases);
}
