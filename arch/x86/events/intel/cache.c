// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generic cache events (PERF_TYPE_HW_CACHE) on Skylake cores, from
 * Intel's public Skylake event list (tools/perf/pmu-events/arch/x86/
 * skylake, skylakex): which event counts each (cache, op, result); and
 * Ice Lake's and Sapphire Rapids' (below).
 *
 * Accesses to the L1 data cache and the data TLB are the retired loads
 * and stores; the misses are the L1 replacements and the completed page
 * walks. The last level cache and the memory node have no core event:
 * they are offcore response events (0x01b7) whose register value is in
 * intel_skl_cache_extra. The branch unit is the retired branches and
 * mispredictions. What the core cannot count is 0 (ENOENT), what makes
 * no sense (writing instructions) X86_CACHE_INVALID.
 */

#include <linux/init.h>
#include <linux/string.h>

#include "../perf_event.h"

#define C(x)		PERF_COUNT_HW_CACHE_##x
#define OP_(x)		PERF_COUNT_HW_CACHE_OP_##x
#define RES_(x)		PERF_COUNT_HW_CACHE_RESULT_##x

/* MEM_INST_RETIRED.ALL_LOADS / ALL_STORES */
#define SKL_LOADS		0x81d0
#define SKL_STORES		0x82d0
/* L1D.REPLACEMENT */
#define SKL_L1D_REPL		0x0151
/* ICACHE_64B.IFTAG_MISS */
#define SKL_ICACHE_MISS		0x0283
/* DTLB_LOAD_MISSES / DTLB_STORE_MISSES .WALK_COMPLETED */
#define SKL_DTLB_LOAD_WALK	0x0e08
#define SKL_DTLB_STORE_WALK	0x0e49
/* ITLB_MISSES.STLB_HIT and .WALK_COMPLETED */
#define SKL_ITLB_STLB_HIT	0x2085
#define SKL_ITLB_WALK		0x0e85
/* BR_INST_RETIRED.ALL_BRANCHES, BR_MISP_RETIRED.ALL_BRANCHES */
#define SKL_BRANCHES		0x00c4
#define SKL_BRANCH_MISSES	0x00c5
/* OFFCORE_RESPONSE_0 */
#define SKL_OFFCORE		0x01b7

#define INVALID			X86_CACHE_INVALID

const x86_cache_table_t intel_skl_cache_events = {
	[C(L1D)] = {
		[OP_(READ)]	= { SKL_LOADS,		SKL_L1D_REPL },
		[OP_(WRITE)]	= { SKL_STORES,		0 },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(L1I)] = {
		[OP_(READ)]	= { 0,			SKL_ICACHE_MISS },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(LL)] = {
		[OP_(READ)]	= { SKL_OFFCORE,	SKL_OFFCORE },
		[OP_(WRITE)]	= { SKL_OFFCORE,	SKL_OFFCORE },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(DTLB)] = {
		[OP_(READ)]	= { SKL_LOADS,		SKL_DTLB_LOAD_WALK },
		[OP_(WRITE)]	= { SKL_STORES,		SKL_DTLB_STORE_WALK },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(ITLB)] = {
		[OP_(READ)]	= { SKL_ITLB_STLB_HIT,	SKL_ITLB_WALK },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
	[C(BPU)] = {
		[OP_(READ)]	= { SKL_BRANCHES,	SKL_BRANCH_MISSES },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
	[C(NODE)] = {
		[OP_(READ)]	= { SKL_OFFCORE,	SKL_OFFCORE },
		[OP_(WRITE)]	= { SKL_OFFCORE,	SKL_OFFCORE },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
};

/*
 * MSR_OFFCORE_RSP_x values: request type in bits 15:0, supplier in
 * 29:16, snoop response in 37:30. The responses are those the stock
 * kernel programs (read back from the PMU model's registers): LL takes
 * any response (16) or an L3 miss (no supplier 17, a DRAM 29:26), with
 * any snoop (37:30); NODE the local DRAM (26) or a remote one (29:27),
 * with any snoop but the non-DRAM one (36:30).
 */
#define RSP_DEMAND_DATA_RD	0x0000000001ULL
#define RSP_DEMAND_RFO		0x0000000002ULL
#define RSP_ANY_SNOOP		0x3fc0000000ULL
#define RSP_ANY_RESPONSE	(RSP_ANY_SNOOP | 0x0000010000ULL)
#define RSP_L3_MISS		(RSP_ANY_SNOOP | 0x003c020000ULL)
#define RSP_DRAM		0x1fc4000000ULL
#define RSP_REMOTE_DRAM		0x1ff8000000ULL

const x86_cache_table_t intel_skl_cache_extra = {
	[C(LL)] = {
		[OP_(READ)]	= { RSP_DEMAND_DATA_RD | RSP_ANY_RESPONSE,
				    RSP_DEMAND_DATA_RD | RSP_L3_MISS },
		[OP_(WRITE)]	= { RSP_DEMAND_RFO | RSP_ANY_RESPONSE,
				    RSP_DEMAND_RFO | RSP_L3_MISS },
	},
	[C(NODE)] = {
		[OP_(READ)]	= { RSP_DEMAND_DATA_RD | RSP_DRAM,
				    RSP_DEMAND_DATA_RD | RSP_REMOTE_DRAM },
		[OP_(WRITE)]	= { RSP_DEMAND_RFO | RSP_DRAM,
				    RSP_DEMAND_RFO | RSP_REMOTE_DRAM },
	},
};

/*
 * Ice Lake's: Skylake's, but an ITLB read access is EINVAL (there is no
 * STLB-hit event to count it with), as 6.12 has it on the model
 */
x86_cache_table_t intel_icl_cache_events __ro_after_init;

/**
 * intel_icl_cache_init - fill intel_icl_cache_events
 */
void __init intel_icl_cache_init(void)
{
	memcpy(intel_icl_cache_events, intel_skl_cache_events,
	       sizeof(intel_icl_cache_events));
	intel_icl_cache_events[C(ITLB)][OP_(READ)][RES_(ACCESS)] = INVALID;
}

/*
 * Sapphire Rapids' (its public event list; as 6.12 programs them on the
 * model): the L1D misses are L2_RQSTS.ALL_DEMAND_DATA_RD, the L1I ones
 * L2_RQSTS.ALL_CODE_RD; the page walks are
 * DTLB_LOAD/STORE_MISSES.WALK_COMPLETED and ITLB_MISSES.WALK_COMPLETED;
 * LL and NODE are the offcore response event 0x2a. A store's miss, the
 * ITLB's access and NODE writes have no event.
 */
#define SPR_L1D_MISS		0xe124
#define SPR_L1I_MISS		0xe424
#define SPR_DTLB_LOAD_WALK	0x0e12
#define SPR_DTLB_STORE_WALK	0x0e13
#define SPR_ITLB_WALK		0x0e11
#define SPR_BRANCHES		0x04c4
#define SPR_BRANCH_MISSES	0x04c5
#define SPR_OFFCORE		0x012a

const x86_cache_table_t intel_spr_cache_events = {
	[C(L1D)] = {
		[OP_(READ)]	= { SKL_LOADS,		SPR_L1D_MISS },
		[OP_(WRITE)]	= { SKL_STORES,		0 },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(L1I)] = {
		[OP_(READ)]	= { 0,			SPR_L1I_MISS },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(LL)] = {
		[OP_(READ)]	= { SPR_OFFCORE,	SPR_OFFCORE },
		[OP_(WRITE)]	= { SPR_OFFCORE,	SPR_OFFCORE },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(DTLB)] = {
		[OP_(READ)]	= { SKL_LOADS,		SPR_DTLB_LOAD_WALK },
		[OP_(WRITE)]	= { SKL_STORES,		SPR_DTLB_STORE_WALK },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
	[C(ITLB)] = {
		[OP_(READ)]	= { INVALID,		SPR_ITLB_WALK },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
	[C(BPU)] = {
		[OP_(READ)]	= { SPR_BRANCHES,	SPR_BRANCH_MISSES },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
	[C(NODE)] = {
		[OP_(READ)]	= { SPR_OFFCORE,	SPR_OFFCORE },
		[OP_(WRITE)]	= { 0,			0 },
		[OP_(PREFETCH)]	= { 0,			0 },
	},
};

/*
 * Its offcore values, as 6.12 writes them to MSR_OFFCORE_RSP_0 on the
 * model (the same request bits as Skylake's, other supplier and snoop
 * selections)
 */
const x86_cache_table_t intel_spr_cache_extra = {
	[C(LL)] = {
		[OP_(READ)]	= { 0x10001ULL, 0x3fbfc00001ULL },
		[OP_(WRITE)]	= { 0x3f3ffc0002ULL, 0x3f3fc00002ULL },
	},
	[C(NODE)] = {
		[OP_(READ)]	= { 0x10c000001ULL, 0x3fb3000001ULL },
	},
};

/*
 * A hybrid CPU's Atom (Gracemont; its public event list, as 6.12
 * programs them on the model): the L1 data cache and data TLB accesses
 * are the retired loads and stores, the instruction cache's
 * ICACHE.ACCESSES and .MISSES, the page walks
 * DTLB_LOAD/STORE_MISSES.WALK_COMPLETED and ITLB_MISSES.WALK_COMPLETED;
 * LL is the offcore response event 0x01b7. The L1D misses, prefetches
 * and NODE have no event.
 */
#define GRT_ICACHE_ACCESS	0x0380
#define GRT_ICACHE_MISS		0x0280
#define GRT_ITLB_WALK		0x0481
#define GRT_OFFCORE		0x01b7

const x86_cache_table_t intel_grt_cache_events = {
	[C(L1D)] = {
		[OP_(READ)]	= { SKL_LOADS,		0 },
		[OP_(WRITE)]	= { SKL_STORES,		0 },
	},
	[C(L1I)] = {
		[OP_(READ)]	= { GRT_ICACHE_ACCESS,	GRT_ICACHE_MISS },
		[OP_(WRITE)]	= { INVALID,		INVALID },
	},
	[C(LL)] = {
		[OP_(READ)]	= { GRT_OFFCORE,	GRT_OFFCORE },
		[OP_(WRITE)]	= { GRT_OFFCORE,	GRT_OFFCORE },
	},
	[C(DTLB)] = {
		[OP_(READ)]	= { SKL_LOADS,		SKL_DTLB_LOAD_WALK },
		[OP_(WRITE)]	= { SKL_STORES,		SKL_DTLB_STORE_WALK },
	},
	[C(ITLB)] = {
		[OP_(READ)]	= { INVALID,		GRT_ITLB_WALK },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
	[C(BPU)] = {
		[OP_(READ)]	= { SKL_BRANCHES,	SKL_BRANCH_MISSES },
		[OP_(WRITE)]	= { INVALID,		INVALID },
		[OP_(PREFETCH)]	= { INVALID,		INVALID },
	},
};

/* its offcore values (demand data reads; RFOs), any response or a miss */
const x86_cache_table_t intel_grt_cache_extra = {
	[C(LL)] = {
		[OP_(READ)]	= { 0x10001ULL, 0x3f04000001ULL },
		[OP_(WRITE)]	= { 0x10002ULL, 0x3f04000002ULL },
	},
};
