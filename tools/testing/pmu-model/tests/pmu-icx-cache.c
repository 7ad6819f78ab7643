// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-icx-cache: the generic cache events (PERF_TYPE_HW_CACHE) on the TCG
 * PMU model's Icelake-PMU (0017), as the stock 6.12 kernel gives them
 * (skips on any other CPU model). The facts behind it were observed on
 * stock with the model's PMU_CORE_LOG trace (icx-cache-facts.md).
 *
 * Stock's Ice Lake table is Skylake's but for ITLB read access, which is
 * EINVAL. Checks:
 *
 * - the errno of perf_event_open() for every (cache 0-7, op 0-3, result
 *   0-2), one past each last included (EINVAL), and a few configs with
 *   bits above the result byte;
 * - as root, for each entry that opens (alone, on this task, pinned to
 *   CPU 0, enabled): the event select programmed while it counts, read
 *   back through /dev/cpu/0/msr (event, umask, edge, inv, cmask, USR,
 *   OS and EN), and for the offcore events (LL, NODE) the response
 *   register of the offcore event used (0x1a6 for 0xb7, 0x1a7 for 0xbb);
 * - exact user-space counts of the entries the model counts exactly, over
 *   pmu-dcache's sweeps (one load or store every 64 bytes or every 4 KiB,
 *   n and 2n of them: the difference of the two deltas is what the n
 *   extra accesses did) and over a nested branch loop: L1D and DTLB
 *   accesses are the loads and stores, L1D misses the L1D fills, DTLB
 *   misses the page walks, LL accesses the L2 misses (offcore requests),
 *   LL misses the L3 misses, NODE accesses the local DRAM's (the L3
 *   misses), NODE misses nothing (one node), BPU the branches and the
 *   mispredictions (one at each loop exit), L1I and ITLB misses nothing
 *   (the model has no instruction cache or TLB).
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
#define OFFCORE(v)	{ 0x01b7, v }	/* OFFCORE_RESPONSE_0 */
#define NONE		{ 0, 0 }
#define INVAL		{ INVALID, 0 }

/* stock 6.12 on Icelake-PMU, [cache][op][result] */
static const struct entry icx_cache[C(MAX)][OP_(MAX)][RES_(MAX)] = {
	[C(L1D)] = {
		[OP_(READ)]	= { LOADS, { 0x0151, 0 } },	/* L1D.REPLACEMENT */
		[OP_(WRITE)]	= { STORES, NONE },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
	[C(L1I)] = {
		[OP_(READ)]	= { NONE, { 0x0283, 0 } },	/* ICACHE_64B.IFTAG_MISS */
		[OP_(WRITE)]	= { INVAL, INVAL },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
	[C(LL)] = {
		[OP_(READ)]	= { OFFCORE(0x3fc0010001), OFFCORE(0x3ffc020001) },
		[OP_(WRITE)]	= { OFFCORE(0x3fc0010002), OFFCORE(0x3ffc020002) },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
	[C(DTLB)] = {
		/* DTLB_LOAD_MISSES / DTLB_STORE_MISSES.WALK_COMPLETED */
		[OP_(READ)]	= { LOADS, { 0x0e08, 0 } },
		[OP_(WRITE)]	= { STORES, { 0x0e49, 0 } },
		[OP_(PREFETCH)]	= { NONE, NONE },
	},
	[C(ITLB)] = {
		/* ITLB_MISSES.WALK_COMPLETED; read access EINVAL (Skylake 0x2085) */
		[OP_(READ)]	= { INVAL, { 0x0e85, 0 } },
		[OP_(WRITE)]	= { INVAL, INVAL },
		[OP_(PREFETCH)]	= { INVAL, INVAL },
	},
	[C(BPU)] = {
		/* BR_INST_RETIRED.ALL_BRANCHES, BR_MISP_RETIRED.ALL_BRANCHES */
		[OP_(READ)]	= { { 0x00c4, 0 }, { 0x00c5, 0 } },
		[OP_(WRITE)]	= { INVAL, INVAL },
		[OP_(PREFETCH)]	= { INVAL, INVAL },
	},
	[C(NODE)] = {
		[OP_(READ)]	= { OFFCORE(0x1fc4000001), OFFCORE(0x1ff8000001) },
		[OP_(WRITE)]	= { OFFCORE(0x1fc4000002), OFFCORE(0x1ff8000002) },
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

/*
 * @fd counts @config (expected @e): the event select with EN among
 * PERFEVTSEL0-3 and, for an offcore event, its response register
 */
static void check_regs(const char *name, const struct entry *e)
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
	if (!e->rsp)
		return;
	/* either offcore event will do, with its own register */
	if ((sel & 0xffff) == 0x01bb)
		rdmsr(0x1a7, &rsp);
	else
		rdmsr(0x1a6, &rsp);
	snprintf(what, sizeof(what), "%s: offcore response %#llx (expected %#llx)",
		 name, (unsigned long long)rsp, (unsigned long long)e->rsp);
	check(rsp == e->rsp, what);
}

static void test_config(const char *name, uint64_t config,
			const struct entry *e)
{
	int want = e->sel == INVALID ? EINVAL : e->sel ? 0 : ENOENT;
	int fd = perf_open(PERF_TYPE_HW_CACHE, config, 0, -1, 0);
	char what[128];

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
		check_regs(name, e);
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
					    in ? &icx_cache[c][o][r] : &inval);
			}
	/* ids, ops and results far out of range */
	test_config("cache 8", 8, &inval);
	test_config("cache 0xff", 0xff, &inval);
	test_config("op 0xff", 0xff << 8, &inval);
	test_config("result 0xff", 0xff << 16, &inval);
	/* bits 24-31 are ignored: L1D-read-access */
	test_config("L1D-read-access with bit 24", 1ULL << 24,
		    &icx_cache[C(L1D)][OP_(READ)][RES_(ACCESS)]);
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
		    &icx_cache[C(L1D)][OP_(READ)][RES_(ACCESS)]);
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

static const struct sweep_case cases[] = {
	{ "line loads", LINE, LINES, 0, {
		EV("L1D-read-access (loads)", L1D, READ, ACCESS),
		EV("L1D-read-miss (L1D fills)", L1D, READ, MISS),
		EV("DTLB-read-access (loads)", DTLB, READ, ACCESS),
		EV("DTLB-read-miss (load walks)", DTLB, READ, MISS) },
	  { 64, 64, 64, 0 } },
	{ "page loads", PAGE, PAGES, 0, {
		EV("L1D-read-access (loads)", L1D, READ, ACCESS),
		EV("L1D-read-miss (L1D fills)", L1D, READ, MISS),
		EV("DTLB-read-miss (load walks)", DTLB, READ, MISS),
		EV("BPU-read-access (branches)", BPU, READ, ACCESS) },
	  { 64, 64, 64, 64 } },
	{ "line stores", LINE, LINES, 1, {
		EV("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		EV("DTLB-write-access (stores)", DTLB, WRITE, ACCESS),
		EV("DTLB-write-miss (store walks)", DTLB, WRITE, MISS),
		EV("L1D-read-access (loads)", L1D, READ, ACCESS) },
	  { 64, 64, 0, 0 } },
	{ "page stores", PAGE, PAGES, 1, {
		EV("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		EV("DTLB-write-miss (store walks)", DTLB, WRITE, MISS),
		EV("L1D-read-miss (L1D fills)", L1D, READ, MISS),
		EV("BPU-read-miss (mispredictions)", BPU, READ, MISS) },
	  { 64, 64, 64, 0 } },
	/* offcore: at most two response values in a group (two MSRs) */
	{ "line loads, offcore", LINE, LINES, 0, {
		EV("LL-read-access (L2 misses)", LL, READ, ACCESS),
		EV("LL-read-miss (L3 misses)", LL, READ, MISS),
		EV("BPU-read-access (branches)", BPU, READ, ACCESS),
		EV("BPU-read-miss (mispredictions)", BPU, READ, MISS) },
	  { 64, 0, 64, 0 } },
	{ "page loads, offcore", PAGE, PAGES, 0, {
		EV("LL-read-access (L2 misses)", LL, READ, ACCESS),
		EV("NODE-read-access (local DRAM)", NODE, READ, ACCESS),
		EV("L1D-read-access (loads)", L1D, READ, ACCESS),
		EV("L1D-read-miss (L1D fills)", L1D, READ, MISS) },
	  { 64, 64, 64, 64 } },
	{ "page loads, offcore misses", PAGE, PAGES, 0, {
		EV("LL-read-miss (L3 misses)", LL, READ, MISS),
		EV("NODE-read-miss (remote DRAM)", NODE, READ, MISS),
		EV("DTLB-read-access (loads)", DTLB, READ, ACCESS),
		EV("DTLB-read-miss (load walks)", DTLB, READ, MISS) },
	  { 64, 0, 64, 64 } },
	{ "page stores, offcore", PAGE, PAGES, 1, {
		EV("LL-write-access (L2 misses)", LL, WRITE, ACCESS),
		EV("LL-write-miss (L3 misses)", LL, WRITE, MISS),
		EV("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		EV("DTLB-write-access (stores)", DTLB, WRITE, ACCESS) },
	  { 64, 64, 64, 64 } },
	{ "page stores, node", PAGE, PAGES, 1, {
		EV("NODE-write-access (local DRAM)", NODE, WRITE, ACCESS),
		EV("NODE-write-miss (remote DRAM)", NODE, WRITE, MISS),
		EV("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		EV("DTLB-write-miss (store walks)", DTLB, WRITE, MISS) },
	  { 64, 0, 64, 64 } },
	{ "branch loops", 0, BR_OUTER, 0, {
		EV("BPU-read-access (branches)", BPU, READ, ACCESS),
		EV("BPU-read-miss (mispredictions)", BPU, READ, MISS),
		EV("L1I-read-miss (no I-cache)", L1I, READ, MISS),
		EV("ITLB-read-miss (no ITLB)", ITLB, READ, MISS) },
	  { (BR_INNER + 1) * 64, 64, 0, 0 }, branches },
	{ NULL }
};

/* The model's Icelake-PMU: Ice Lake server (family 6, model 0x6a) */
static int is_icelake_pmu(void)
{
	unsigned int a, b, c, d, model;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	return ((a >> 8) & 0xf) == 6 && model == 0x6a;
}

int main(void)
{
	cpu_set_t set;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (!is_icelake_pmu()) {
		printf("ok # SKIP not the Icelake-PMU model\n");
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

	return sweep_run_cases(cases);
}
