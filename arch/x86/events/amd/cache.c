// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic cache events (PERF_TYPE_HW_CACHE) on AMD Zen cores
 * (family 17h and 19h), from AMD's public event lists (the Processor
 * Programming Reference of each family; tools/perf/pmu-events/arch/x86/
 * amdzen1..3): which event counts each (cache, op, result).
 *
 * Zen counts data cache accesses and, as its misses, the L2 requests
 * the data cache makes; the lines the data cache prefetcher fills;
 * instruction fetches and their misses; the L1 TLB misses (L2 TLB
 * lookups) as the TLB accesses and those missing the L2 TLB too as the
 * misses. The L2 and L3 are not counted by the core (the L3 has its
 * own PMU), nor the memory node: 0 (ENOENT); what makes no sense
 * (writing instructions) is X86_CACHE_INVALID.
 */

#include "../perf_event.h"

#define C(x)		PERF_COUNT_HW_CACHE_##x
#define OP_(x)		PERF_COUNT_HW_CACHE_OP_##x

/* LsDcAccesses */
#define ZEN_DC_ACCESSES		0x0040
/* L2RequestG1 rd_blk_l, rd_blk_x, change_to_x: the DC's L2 requests */
#define ZEN_DC_MISSES		0xc860
/* LsHwPfDcFills, every source: lines the hardware prefetcher filled */
#define ZEN_DC_PREFETCH		0xff5a
/* IcFw32, IcFw32Miss: instruction fetches, and those missing the IC */
#define ZEN_IC_FETCHES		0x0080
#define ZEN_IC_MISSES		0x0081
/* LsL1DTlbMiss: every L1 DTLB miss; those that miss the L2 DTLB too */
#define ZEN_DTLB_ACCESSES	0xff45
#define ZEN_DTLB_MISSES		0xf045
/* BpL1TlbMissL2TlbHit, BpL1TlbMissL2TlbMiss (all page sizes) */
#define ZEN_ITLB_ACCESSES	0x0084
#define ZEN_ITLB_MISSES		0xff85
/* ExRetBrn, ExRetBrnMisp */
#define ZEN_BRANCHES		0x00c2
#define ZEN_BRANCH_MISSES	0x00c3

#define INVALID			X86_CACHE_INVALID

const x86_cache_table_t amd_zen_cache_events = {
	[C(L1D)] = {
		[OP_(READ)]	= { ZEN_DC_ACCESSES,	ZEN_DC_MISSES },
		[OP_(WRITE)]	= { 0,			0 },
		[OP_(PREFETCH)]	= { ZEN_DC_PREFETCH,	0 },
	},
	[C(L1I)] = {
		[OP_(READ)]	= { ZEN_IC_FETCHES,	ZEN_IC_MISSES },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(LL)] = {
		[OP_(READ)]	= { 0,			0 },
		[OP_(WRITE)]	= { 0,			0 },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(DTLB)] = {
		[OP_(READ)]	= { ZEN_DTLB_ACCESSES,	ZEN_DTLB_MISSES },
		[OP_(WRITE)]	= { 0,			0 },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(ITLB)] = {
		[OP_(READ)]	= { ZEN_ITLB_ACCESSES,	ZEN_ITLB_MISSES },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
	[C(BPU)] = {
		[OP_(READ)]	= { ZEN_BRANCHES,	ZEN_BRANCH_MISSES },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
	[C(NODE)] = {
		[OP_(READ)]	= { 0,			0 },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
};
