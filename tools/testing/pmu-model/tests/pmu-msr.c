// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-msr: the register file of the TCG PMU model, through CPUID and
 * /dev/cpu/0/msr (rdmsr/wrmsr that fault give EIO): the CPUID leaves,
 * which MSRs exist, which bits are reserved, legacy and full-width
 * counter writes.  Intel (Skylake-PMU) or AMD (EPYC-PMU), as CPUID says.
 * Only writes that must fault, and writes to the last counter while no
 * perf event uses it (restored), so the kernel's PMU state is left alone.
 *
 * Then the msr PMU (/sys/bus/event_source/devices/msr, whose tsc event
 * every x86 CPU has): its events are software-context events, as in
 * 6.12, since the counters are free-running and never short. So an
 * msr/tsc/ event is a member of a group led by cycles, or leads a group
 * with a cycles member (both open and count), and while more hardware
 * events than counters multiplex, an msr/tsc/ event of the same task
 * runs the whole time it is enabled.
 *
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
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#define MSR_TYPE	"/sys/bus/event_source/devices/msr/type"
#define MSR_TSC		0	/* msr/tsc/: event=0x00 */
#define NHW		8	/* more than either model's general counters */
#define LOOPS		20000000L

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

static void spin(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

static int msr_type(void)
{
	FILE *fp = fopen(MSR_TYPE, "r");
	int type = -1;

	if (fp) {
		if (fscanf(fp, "%d", &type) != 1)
			type = -1;
		fclose(fp);
	}
	return type;
}

/* a counting event on this task, disabled unless a group member */
static int open_ev(uint32_t type, uint64_t config, int group, uint64_t fmt)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.disabled = group < 0;
	attr.read_format = fmt;
	return sys_perf_event_open(&attr, 0, -1, group, 0);
}

/*
 * A group of @lt/@lc with a member @mt/@mc: both open, and over a loop
 * both count, as one group (same times).
 */
static void group_of(uint32_t lt, uint64_t lc, uint32_t mt, uint64_t mc,
		     const char *name)
{
	uint64_t fmt = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		       PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct { uint64_t nr, enabled, running, v[2]; } r;
	int leader, member;
	char what[160];

	leader = open_ev(lt, lc, -1, fmt);
	snprintf(what, sizeof(what), "%s: the leader opens", name);
	check(leader >= 0, what);
	if (leader < 0)
		return;
	member = open_ev(mt, mc, leader, fmt);
	snprintf(what, sizeof(what), "%s: the member opens (%s)", name,
		 member >= 0 ? "ok" : strerror(errno));
	check(member >= 0, what);
	if (member >= 0) {
		memset(&r, 0, sizeof(r));
		ioctl(leader, PERF_EVENT_IOC_ENABLE, 0);
		spin(LOOPS / 10);
		ioctl(leader, PERF_EVENT_IOC_DISABLE, 0);
		snprintf(what, sizeof(what), "%s: read the group", name);
		check(read(leader, &r, sizeof(r)) == sizeof(r) && r.nr == 2,
		      what);
		printf("# %s: %llu %llu enabled %llu running %llu\n", name,
		       (unsigned long long)r.v[0], (unsigned long long)r.v[1],
		       (unsigned long long)r.enabled,
		       (unsigned long long)r.running);
		snprintf(what, sizeof(what), "%s: both count", name);
		check(r.v[0] > 0 && r.v[1] > 0 && r.running > 0, what);
		close(member);
	}
	close(leader);
}

/*
 * NHW branch events (general counters only), each its own group, and an
 * msr/tsc/ event: the branch events multiplex, the tsc event runs all
 * the time it is enabled.
 */
static void tsc_not_multiplexed(int type)
{
	uint64_t fmt = PERF_FORMAT_TOTAL_TIME_ENABLED |
		       PERF_FORMAT_TOTAL_TIME_RUNNING;
	struct { uint64_t v, enabled, running; } r, hw;
	int fd[NHW], tsc, i, short_run = 0;
	char what[160];

	for (i = 0; i < NHW; i++) {
		fd[i] = open_ev(PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_BRANCH_INSTRUCTIONS, -1, fmt);
		if (fd[i] < 0) {
			check(0, "a branch-instructions event opens");
			while (i--)
				close(fd[i]);
			return;
		}
	}
	tsc = open_ev(type, MSR_TSC, -1, fmt);
	check(tsc >= 0, "msr/tsc/ opens beside them");
	for (i = 0; i < NHW; i++)
		ioctl(fd[i], PERF_EVENT_IOC_ENABLE, 0);
	if (tsc >= 0)
		ioctl(tsc, PERF_EVENT_IOC_ENABLE, 0);
	spin(LOOPS);
	/* read while enabled: a disable would free a counter */
	for (i = 0; i < NHW; i++) {
		if (read(fd[i], &hw, sizeof(hw)) != sizeof(hw))
			continue;
		short_run += hw.running < hw.enabled;
	}
	check_val(short_run > 0, "branch events that ran less than enabled",
		  short_run, NHW);
	if (tsc >= 0) {
		memset(&r, 0, sizeof(r));
		check(read(tsc, &r, sizeof(r)) == sizeof(r), "read msr/tsc/");
		snprintf(what, sizeof(what),
			 "msr/tsc/ count %llu: running %llu == enabled %llu",
			 (unsigned long long)r.v,
			 (unsigned long long)r.running,
			 (unsigned long long)r.enabled);
		check(r.v > 0 && r.enabled > 0 && r.running == r.enabled,
		      what);
		close(tsc);
	}
	for (i = 0; i < NHW; i++)
		close(fd[i]);
}

static void msr_pmu(void)
{
	int type = msr_type();

	check(type > 0, "the msr PMU is registered (" MSR_TYPE ")");
	if (type <= 0)
		return;
	group_of(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, type, MSR_TSC,
		 "cycles leader, msr/tsc/ member");
	group_of(type, MSR_TSC, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
		 "msr/tsc/ leader, cycles member");
	tsc_not_multiplexed(type);
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
	close(fd);
	msr_pmu();
	return fails ? 1 : 0;
}
