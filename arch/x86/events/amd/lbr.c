// SPDX-License-Identifier: GPL-2.0-only
/*
 * AMD Last Branch Record Extension Version 2 (CPUID 0x80000022 EAX bit 1,
 * the depth in EBX[9:4]): LBR_STACK_n FROM/TO pairs at
 * MSR_AMD_SAMP_BR_FROM + 2n (+1), entry 0 always the newest; FROM holds
 * the address and Mispredict (bit 63), TO the address in bits 60:0 with
 * Valid (63) and Spec (62); an entry with neither is empty. The filter,
 * MSR_AMD64_LBR_SELECT, has the layout of Intel's (suppress bits: CPL,
 * then the kinds) and no call-stack mode. DBG_EXTN_CFG.LBRV2EN records;
 * DebugCtl.FreezeLbrsOnPmi freezes the stack on a PMI until the PMI
 * clears PerfCntrGlobalStatus bit 58.
 */

#include <linux/bitops.h>
#include <linux/perf_event.h>
#include <linux/string.h>

#include <asm/debugreg.h>
#include <asm/msr.h>
#include <asm/perf_event.h>

#include "../perf_event.h"

#define AMD_LBR_MAX		16
#define AMD_LBR_FROM_MISPRED	BIT_ULL(63)
#define AMD_LBR_TO_VALID	BIT_ULL(63)
#define AMD_LBR_TO_SPEC		BIT_ULL(62)
#define AMD_LBR_IP_BITS		58

static int amd_lbr_select(struct perf_event *event, u64 *sel)
{
	u64 bst = event->attr.branch_sample_type, kinds;
	int err;

	if (bst & PERF_SAMPLE_BRANCH_CALL_STACK)
		return -EOPNOTSUPP;
	err = x86_lbr_kinds(bst, &kinds);
	if (err)
		return err;
	*sel = x86_lbr_sel(bst, kinds);
	return 0;
}

static void amd_lbr_enable(u64 sel)
{
	u64 cfg;

	wrmsrl(MSR_AMD64_LBR_SELECT, sel);
	update_debugctlmsr(get_debugctlmsr() | DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);
	rdmsrl(MSR_AMD_DBG_EXTN_CFG, cfg);
	wrmsrl(MSR_AMD_DBG_EXTN_CFG, cfg | DBG_EXTN_CFG_LBRV2EN);
}

static void amd_lbr_disable(void)
{
	u64 cfg;

	rdmsrl(MSR_AMD_DBG_EXTN_CFG, cfg);
	wrmsrl(MSR_AMD_DBG_EXTN_CFG, cfg & ~DBG_EXTN_CFG_LBRV2EN);
	update_debugctlmsr(get_debugctlmsr() & ~DEBUGCTLMSR_FREEZE_LBRS_ON_PMI);
}

static void amd_lbr_reset(void)
{
	int i;

	for (i = 0; i < amd_lbr_v2.nr; i++) {
		wrmsrl(MSR_AMD_SAMP_BR_FROM + 2 * i, 0);
		wrmsrl(MSR_AMD_SAMP_BR_FROM + 2 * i + 1, 0);
	}
}

/* the address bits of an entry, sign-extended to a canonical address */
static u64 amd_lbr_ip(u64 val)
{
	return (u64)((s64)(val << (64 - AMD_LBR_IP_BITS)) >>
		     (64 - AMD_LBR_IP_BITS));
}

/*
 * LBR_TO's Valid and Spec bits: a retired branch (valid), one executed
 * speculatively on the path that retired (both), or on a wrong path
 * (spec alone)
 */
static u8 amd_lbr_spec(u64 to)
{
	if (!(to & AMD_LBR_TO_VALID))
		return PERF_BR_SPEC_WRONG_PATH;
	if (to & AMD_LBR_TO_SPEC)
		return PERF_BR_SPEC_CORRECT_PATH;
	return PERF_BR_NON_SPEC_CORRECT_PATH;
}

/* LbrExtV2 has no top of stack: entry 0 is always the newest */
static int amd_lbr_read(struct perf_branch_entry *e, u64 *hw_idx)
{
	u64 from, to;
	int i, n = 0;

	for (i = 0; i < amd_lbr_v2.nr; i++) {
		rdmsrl(MSR_AMD_SAMP_BR_FROM + 2 * i + 1, to);
		if (!(to & (AMD_LBR_TO_VALID | AMD_LBR_TO_SPEC)))
			continue;
		rdmsrl(MSR_AMD_SAMP_BR_FROM + 2 * i, from);
		memset(&e[n], 0, sizeof(e[n]));
		e[n].from = amd_lbr_ip(from);
		e[n].to = amd_lbr_ip(to);
		e[n].mispred = !!(from & AMD_LBR_FROM_MISPRED);
		e[n].predicted = !(from & AMD_LBR_FROM_MISPRED);
		e[n].spec = amd_lbr_spec(to);
		n++;
	}
	*hw_idx = 0;
	return n;
}

struct x86_lbr_ops amd_lbr_v2 = {
	.nr		= AMD_LBR_MAX,
	.select		= amd_lbr_select,
	.enable		= amd_lbr_enable,
	.disable	= amd_lbr_disable,
	.reset		= amd_lbr_reset,
	.read		= amd_lbr_read,
};

/**
 * amd_lbr_init - size the stack from CPUID; 0, or -ENODEV without one
 */
int __init amd_lbr_init(void)
{
	union cpuid_0x80000022_ebx ebx;

	if (!boot_cpu_has(X86_FEATURE_AMD_LBR_V2))
		return -ENODEV;
	ebx.full = cpuid_ebx(0x80000022);
	amd_lbr_v2.nr = min_t(int, ebx.split.lbr_v2_stack_sz, AMD_LBR_MAX);
	return amd_lbr_v2.nr ? 0 : -ENODEV;
}
