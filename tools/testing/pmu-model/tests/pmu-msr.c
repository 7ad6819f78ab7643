// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-msr: the register file of the TCG PMU model, through CPUID and
 * /dev/cpu/0/msr (rdmsr/wrmsr that fault give EIO): the CPUID leaves,
 * which MSRs exist, which bits are reserved, legacy and full-width
 * counter writes.  Intel (Skylake-PMU) or AMD (EPYC-PMU), as CPUID says.
 * Only writes that must fault, and writes to the last counter while no
 * perf event uses it (restored), so the kernel's PMU state is left alone.
 * Exit 0 on success, 1 on a failed check, 4 (skip) without the msr device.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "pmu-check.h"

static int fd;

static int rd(uint32_t msr, uint64_t *val)
{
	return pread(fd, val, 8, msr) == 8 ? 0 : -errno;
}

static int wr(uint32_t msr, uint64_t val)
{
	return pwrite(fd, &val, 8, msr) == 8 ? 0 : -errno;
}

static void exists(uint32_t msr)
{
	uint64_t v;
	char what[64];

	snprintf(what, sizeof(what), "rdmsr 0x%x", msr);
	check(rd(msr, &v) == 0, what);
}

static void absent(uint32_t msr)
{
	uint64_t v;
	char what[64];

	snprintf(what, sizeof(what), "rdmsr 0x%x faults", msr);
	check(rd(msr, &v) == -EIO, what);
}

static void bad_write(uint32_t msr, uint64_t val)
{
	char what[80];

	snprintf(what, sizeof(what), "wrmsr 0x%x <- 0x%llx faults", msr,
		 (unsigned long long)val);
	check(wr(msr, val) == -EIO, what);
}

/* write @val to @msr, read back @rmsr: must be @want; then write 0 */
static void write_read(uint32_t msr, uint64_t val, uint32_t rmsr,
		       uint64_t want)
{
	uint64_t got = ~0ULL;
	char what[120];

	if (wr(msr, val) == 0)
		rd(rmsr, &got);
	wr(msr, 0);
	snprintf(what, sizeof(what), "wrmsr 0x%x <- 0x%llx: 0x%x = 0x%llx (expected 0x%llx)",
		 msr, (unsigned long long)val, rmsr, (unsigned long long)got,
		 (unsigned long long)want);
	check(got == want, what);
}

static void intel(void)
{
	unsigned int a, b, c, d, i;
	uint64_t v = 0;

	__cpuid_count(0xa, 0, a, b, c, d);
	printf("# CPUID 0xA: %08x %08x %08x %08x\n", a, b, c, d);
	check(a == 0x07300404, "CPUID 0xA.EAX: v4, 4 counters, 48 bits, 7 events");
	check(b == 0, "CPUID 0xA.EBX: all architectural events");
	check(d == 0x603, "CPUID 0xA.EDX: 3 fixed counters, 48 bits");
	__cpuid(1, a, b, c, d);
	check(c & (1 << 15), "CPUID 1.ECX.PDCM");
	check(rd(0x345, &v) == 0 && v == 0x23c5,
	      "PERF_CAPABILITIES = 0x23c5 (full-width writes, PEBS format 3 trap-like with GPRs, LBR format 5)");

	for (i = 0; i < 4; i++) {
		exists(0xc1 + i);
		exists(0x186 + i);
		exists(0x4c1 + i);
	}
	for (i = 0; i < 3; i++)
		exists(0x309 + i);
	for (i = 0x38d; i <= 0x392; i++)
		exists(i);
	exists(0x1d9);
	exists(0x1c8);
	exists(0x1c9);
	exists(0x680);
	exists(0x69f);
	exists(0x6c0);
	exists(0xdc0);
	absent(0xc5);
	absent(0xc8);
	absent(0x18a);
	absent(0x4c5);
	absent(0x30c);

	bad_write(0x189, 1ULL << 32);		/* PERFEVTSEL3 reserved */
	bad_write(0x4c4, 1ULL << 48);		/* A_PMC3 above the width */
	bad_write(0x30b, 1ULL << 48);		/* FIXED_CTR2 above the width */
	bad_write(0x38d, 1ULL << 12);		/* FIXED_CTR_CTRL: no counter 3 */
	bad_write(0x38f, 1ULL << 4);		/* GLOBAL_CTRL: no PMC4 */
	bad_write(0x38f, 1ULL << 35);		/* GLOBAL_CTRL: no fixed 3 */
	bad_write(0x38e, 0);			/* GLOBAL_STATUS is read-only */
	bad_write(0x390, 1ULL << 4);		/* STATUS_RESET: no PMC4 */
	bad_write(0x345, 0);			/* PERF_CAPABILITIES: read-only */
	bad_write(0x1d9, 1ULL << 2);		/* DEBUGCTL reserved */
	bad_write(0x1c8, 1ULL << 10);		/* LBR_SELECT reserved */

	/* legacy writes sign-extend bit 31, full-width ones do not */
	write_read(0xc4, 0x80000000ULL, 0xc4, 0xffff80000000ULL);
	write_read(0x4c4, 0x123456789abcULL, 0xc4, 0x123456789abcULL);
}

static void amd(void)
{
	unsigned int a, b, c, d, i;

	__cpuid(0x80000001, a, b, c, d);
	check(c & (1 << 23), "CPUID 0x80000001.ECX.PerfCtrExtCore");
	check(c & (1 << 24), "CPUID 0x80000001.ECX.PerfCtrExtNB (data fabric)");
	check(c & (1 << 28), "CPUID 0x80000001.ECX.PerfCtrExtLLC (L3)");
	check(c & (1 << 22), "CPUID 0x80000001.ECX.TOPOEXT");
	__cpuid(0x80000022, a, b, c, d);
	printf("# CPUID 0x80000022: %08x %08x %08x %08x\n", a, b, c, d);
	check(a == 7, "CPUID 0x80000022.EAX: PerfMonV2, LbrExtV2, LbrAndPmcFreeze");
	check(b == (6 | 16 << 4 | 4 << 10),
	      "CPUID 0x80000022.EBX: 6 core counters, 16 LBR entries, 4 DF counters, no UMC counters");
	check(c == 0, "CPUID 0x80000022.ECX: no active UMC");

	for (i = 0; i < 12; i++)
		exists(0xc0010200 + i);
	for (i = 0; i < 8; i++)
		exists(0xc0010000 + i);
	for (i = 0; i < 4; i++)
		exists(0xc0000300 + i);
	absent(0xc001020c);
	absent(0xc0010217);
	exists(0x1d9);				/* DebugCtl */
	exists(0xc000010e);			/* LBR_SELECT */
	exists(0xc000010f);			/* DBG_EXTN_CFG */
	exists(0xc0010300);			/* LBR 0 FROM */
	exists(0xc001031f);			/* LBR 15 TO */
	absent(0xc0010320);			/* no LBR 16 */

	bad_write(0xc001020a, 1ULL << 19);	/* PerfEvtSel5 reserved */
	bad_write(0xc001020a, 1ULL << 36);	/* PerfEvtSel5 reserved */
	bad_write(0xc0000301, 1ULL << 6);	/* GlobalCtl: no counter 6 */
	bad_write(0xc0000300, 0);		/* GlobalStatus is read-only */
	check(wr(0xc0000302, ~0ULL) == 0, "GlobalStatusClr takes all ones");
	bad_write(0xc000010e, 1ULL << 9);	/* LBR_SELECT: no call stack */
	bad_write(0x1d9, 1ULL << 6);		/* DebugCtl reserved */

	/* the legacy counter 3 is core counter 3 */
	write_read(0xc0010007, 0x123456789abcULL, 0xc0010207, 0x123456789abcULL);

	/*
	 * The L3 (6) and data-fabric (4) counters (0016): the last of each
	 * written (no perf event uses them here), their controls without
	 * Enable
	 */
	for (i = 0; i < 12; i++)
		exists(0xc0010230 + i);
	for (i = 0; i < 8; i++)
		exists(0xc0010240 + i);
	absent(0xc001023c);
	absent(0xc001023f);
	absent(0xc0010248);
	absent(0xc001024f);
	bad_write(0xc001023a, 1ULL << 16);	/* ChL3PmcCfg5 reserved */
	bad_write(0xc001023a, 1ULL << 36);
	bad_write(0xc001023a, 1ULL << 58);
	bad_write(0xc0010246, 1ULL << 20);	/* DF PerfCtl3 reserved */
	bad_write(0xc0010246, 1ULL << 31);
	bad_write(0xc0010246, 1ULL << 38);
	bad_write(0xc001023c, 0);		/* no L3 counter 6 */
	bad_write(0xc0010248, 0);		/* no DF counter 4 */
	/* every field (and L3 bits 35:32) but Enable reads back */
	write_read(0xc001023a, 0x307dc0f0000ffffULL, 0xc001023a,
		   0x307dc0f0000ffffULL);
	write_read(0xc0010246, 0x3f0f00ffffULL, 0xc0010246, 0x3f0f00ffffULL);
	/* 48-bit counters: bits 63:48 are ignored */
	write_read(0xc001023b, 0xffff123456789abcULL, 0xc001023b,
		   0x123456789abcULL);
	write_read(0xc0010247, 0xffff123456789abcULL, 0xc0010247,
		   0x123456789abcULL);

	/* IBS (0015): no write enables sampling */
	__cpuid(0x80000001, a, b, c, d);
	check(c & (1 << 10), "CPUID 0x80000001.ECX.IBS");
	__cpuid(0x8000001b, a, b, c, d);
	printf("# CPUID 0x8000001B: %08x %08x %08x %08x\n", a, b, c, d);
	check(a == 0xdf,
	      "CPUID 0x8000001B.EAX = 0xdf: IBSFFV, FetchSam, OpSam, RdWrOpCnt, OpCnt, OpCntExt, RipInvalidChk");
	for (i = 0xc0011030; i <= 0xc001103a; i++)
		exists(i);
	for (i = 0xc001103b; i <= 0xc001103d; i++)
		absent(i);
	{
		uint64_t v = 0;

		check(rd(0xc001103a, &v) == 0 && v == 0x100,
		      "IBSCTL = 0x100 (LVT offset 0, valid)");
	}
	bad_write(0xc0011030, 1ULL << 59);	/* IbsFetchCtl: Zen 4 bits */
	bad_write(0xc0011033, 1ULL << 16);	/* IbsOpCtl: L3MissOnly */
	bad_write(0xc0011033, 1ULL << 27);	/* IbsOpCtl reserved */
	bad_write(0xc0011033, 1ULL << 59);	/* IbsOpCtl reserved */
	bad_write(0xc001103b, 0);		/* IbsBrTarget */
	/* the counts read back as written; reserved data bits are dropped */
	write_read(0xc0011033, 0x12345ULL << 32 | 0x7f00000 | 0x80000 | 0xffff,
		   0xc0011033, 0x12345ULL << 32 | 0x7f00000 | 0x80000 | 0xffff);
	write_read(0xc0011030, 0x1234ULL << 16 | 0x2000000000000ULL | 0x100,
		   0xc0011030, 0x1234ULL << 16 | 0x2000000000000ULL | 0x100);
	write_read(0xc0011037, ~0ULL, 0xc0011037, ~0x1e00ULL);
	write_read(0xc0011036, ~0ULL, 0xc0011036, 0xf7);
	write_read(0xc0011035, ~0ULL, 0xc0011035, 0x1fcffffffffULL);
	write_read(0xc0011038, 0xffff888012345678ULL, 0xc0011038,
		   0xffff888012345678ULL);
	check(wr(0xc001103a, 0) == 0, "IBSCTL ignores writes");
	{
		uint64_t v = 0;

		check(rd(0xc001103a, &v) == 0 && v == 0x100,
		      "IBSCTL still 0x100");
	}
}

int main(void)
{
	unsigned int a, b, c, d;
	char vendor[13];

	setvbuf(stdout, NULL, _IONBF, 0);
	fd = open("/dev/cpu/0/msr", O_RDWR);
	if (fd < 0) {
		perror("# SKIP: /dev/cpu/0/msr");
		return 4;
	}
	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	vendor[12] = 0;
	printf("# %s\n", vendor);
	if (!strcmp(vendor, "GenuineIntel"))
		intel();
	else if (!strcmp(vendor, "AuthenticAMD"))
		amd();
	else
		check(0, "a known vendor");
	return fails ? 1 : 0;
}
