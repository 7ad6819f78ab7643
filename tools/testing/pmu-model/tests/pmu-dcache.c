// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-dcache: the model's cache model (pmu-model.rst, "Cache model")
 * seen through the generic cache events and the raw events behind them,
 * on both vendors: loads, stores, L1D misses, first-level DTLB misses and
 * page walks of known access patterns are exact.
 *
 * Each case sweeps a buffer with one access per line (stride 64) or per
 * page (stride 4096), twice: over n and over 2n lines or pages, each
 * measured by one group read before and one after. The difference of the
 * two deltas cancels the glue (the read() calls' own accesses: the same
 * code with the same cache state, since every sweep evicts all it can
 * reach), so it is exactly what the extra n accesses did:
 *
 * - a line sweep touches more lines per L1D set than the 8 ways, in
 *   order: each access misses; its pages are more per first-level DTLB
 *   set than the ways (Skylake 16 sets of 4, Zen one set of 64): each
 *   page misses once there, and hits the second level (it holds them all
 *   after a first sweep);
 * - a page sweep puts every access in the same L1D set, and more pages
 *   in each second-level DTLB set than its ways: every access misses the
 *   L1D and both DTLB levels (a walk).
 *
 * Intel's LL and NODE events count the model's offcore requests (L2
 * misses): a line sweep misses the L2 (256 KiB, 4 ways) at every line
 * and hits the L3 (8 MiB, 16 ways: it holds the 1 MiB after a first
 * sweep); a page sweep misses both at every page, and its L3 misses are
 * the local DRAM's.
 *
 * An interrupt or a preemption inside a measurement adds misses (almost
 * never takes one away): a case takes each count's smallest of up to TRIES
 * measurements (pmu-sweep.h).
 * Run as any user (user-space counts only).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "pmu-check.h"
#include "pmu-sweep.h"

#define CACHE(name, c, op, res) { name, PERF_TYPE_HW_CACHE, HWC(c, op, res) }
#define RAW(name, cfg) { name, PERF_TYPE_RAW, cfg }

static const struct sweep_case intel_cases[] = {
	{ "line loads", LINE, LINES, 0, {
		CACHE("L1D-read-access (loads)", L1D, READ, ACCESS),
		CACHE("L1D-read-miss (L1D fills)", L1D, READ, MISS),
		CACHE("dTLB-read-miss (load walks)", DTLB, READ, MISS),
		RAW("DTLB_LOAD_MISSES.STLB_HIT", 0x2008) },
	  { 64, 64, 0, 1 } },
	{ "page loads", PAGE, PAGES, 0, {
		CACHE("L1D-read-access (loads)", L1D, READ, ACCESS),
		CACHE("L1D-read-miss (L1D fills)", L1D, READ, MISS),
		CACHE("dTLB-read-miss (load walks)", DTLB, READ, MISS),
		RAW("DTLB_LOAD_MISSES.STLB_HIT", 0x2008) },
	  { 64, 64, 64, 0 } },
	{ "line stores", LINE, LINES, 1, {
		CACHE("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		CACHE("L1D-read-miss (L1D fills)", L1D, READ, MISS),
		CACHE("L1D-read-access (loads)", L1D, READ, ACCESS),
		RAW("DTLB_STORE_MISSES.STLB_HIT", 0x2049) },
	  { 64, 64, 0, 1 } },
	{ "page stores", PAGE, PAGES, 1, {
		CACHE("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		CACHE("dTLB-write-miss (store walks)", DTLB, WRITE, MISS),
		RAW("MEM_INST_RETIRED.STLB_MISS_STORES", 0x12d0),
		RAW("MEM_LOAD_RETIRED.L1_MISS", 0x08d1) },
	  { 64, 64, 64, 0 } },
	/* offcore: at most two response values in a group (two MSRs) */
	{ "line loads, offcore", LINE, LINES, 0, {
		CACHE("LLC-read-access (L2 misses)", LL, READ, ACCESS),
		CACHE("LLC-read-miss (L3 misses)", LL, READ, MISS),
		CACHE("L1D-read-access (loads)", L1D, READ, ACCESS),
		CACHE("L1D-read-miss (L1D fills)", L1D, READ, MISS) },
	  { 64, 0, 64, 64 } },
	{ "page loads, offcore", PAGE, PAGES, 0, {
		CACHE("LLC-read-access (L2 misses)", LL, READ, ACCESS),
		CACHE("node-read-access (local DRAM)", NODE, READ, ACCESS),
		CACHE("L1D-read-access (loads)", L1D, READ, ACCESS),
		CACHE("L1D-read-miss (L1D fills)", L1D, READ, MISS) },
	  { 64, 64, 64, 64 } },
	{ "page stores, offcore", PAGE, PAGES, 1, {
		CACHE("LLC-write-access (L2 misses)", LL, WRITE, ACCESS),
		CACHE("LLC-write-miss (L3 misses)", LL, WRITE, MISS),
		CACHE("L1D-write-access (stores)", L1D, WRITE, ACCESS),
		CACHE("L1D-read-access (loads)", L1D, READ, ACCESS) },
	  { 64, 64, 64, 0 } },
	{ NULL }
};

static const struct sweep_case amd_cases[] = {
	{ "line loads", LINE, LINES, 0, {
		CACHE("L1D-read-access (DC accesses)", L1D, READ, ACCESS),
		CACHE("L1D-read-miss (DC misses)", L1D, READ, MISS),
		CACHE("dTLB-read-access (L1 DTLB misses)", DTLB, READ, ACCESS),
		CACHE("dTLB-read-miss (L2 DTLB misses)", DTLB, READ, MISS) },
	  { 64, 64, 1, 0 } },
	{ "page loads", PAGE, PAGES, 0, {
		CACHE("L1D-read-access (DC accesses)", L1D, READ, ACCESS),
		CACHE("L1D-read-miss (DC misses)", L1D, READ, MISS),
		CACHE("dTLB-read-access (L1 DTLB misses)", DTLB, READ, ACCESS),
		CACHE("dTLB-read-miss (L2 DTLB misses)", DTLB, READ, MISS) },
	  { 64, 64, 64, 64 } },
	{ "line stores", LINE, LINES, 1, {
		RAW("LsDispatch.StDispatch", 0x0229),
		RAW("LsDispatch.LdDispatch", 0x0129),
		RAW("L2RequestG1.RdBlkX (store misses)", 0x4060),
		RAW("L2RequestG1.RdBlkL (load misses)", 0x8060) },
	  { 64, 0, 64, 0 } },
	{ "page stores", PAGE, PAGES, 1, {
		RAW("LsDispatch.StDispatch", 0x0229),
		CACHE("L1D-read-miss (DC misses)", L1D, READ, MISS),
		RAW("LsL1DTlbMiss (L1 DTLB misses)", 0xff45),
		RAW("LsL1DTlbMiss.L2Miss (walks)", 0xf045) },
	  { 64, 64, 64, 64 } },
	{ NULL }
};

static int is_amd(void)
{
	unsigned int a, b, c, d;

	asm volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0));
	return b == 0x68747541;	/* "Auth" */
}

int main(void)
{
	const struct sweep_case *cases = is_amd() ? amd_cases : intel_cases;

	setvbuf(stdout, NULL, _IOLBF, 0);
	return sweep_run_cases(cases);
}
