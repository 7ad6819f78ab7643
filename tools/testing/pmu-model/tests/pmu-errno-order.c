// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-errno-order: which errno perf_event_open() gives, and so in which
 * order the checks run, where an attr breaks several rules, on the TCG
 * PMU model: the values the stock 6.12 kernel gives on it (make diff
 * found ours differing).
 *
 * Everywhere: the software PMU refuses a branch stack before its config;
 * the msr PMU opens one (a counting event: nothing recorded); a PMU's
 * capabilities rule out the extended registers first, then exclude
 * bits, then sampling; a cgroup fd that is not a cgroup is EBADF before
 * the clock and the callchain depth are looked at.
 * Intel (Skylake-PMU): a precise counting event is EINVAL before its
 * config is looked up; branch instructions with a period of 1 (6.12's
 * BTS, which the model lacks) are EOPNOTSUPP before anything but the
 * config, and PERF_EVENT_IOC_PERIOD cannot make an event that; aux_output
 * without precise_ip is EINVAL; the legacy LBRs take the transaction
 * kinds, refuse branch counters and the call stack with other kinds;
 * AnyThread's permission (EACCES, as uid 1000) comes after all these.
 * AMD (EPYC-PMU): a precise event goes to IBS before its config and
 * registers are checked; IBS checks its config before the branch stack
 * and takes use_clockid.
 *
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "perf_sys.h"
#include "pmu-check.h"

#ifndef PERF_SAMPLE_BRANCH_COUNTERS
#define PERF_SAMPLE_BRANCH_COUNTERS	(1U << 19)
#endif

#define PERIOD		100000
#define EXT_REG		(1ULL << 40)	/* an XMM register */
#define ANYTHREAD	(1ULL << 21)
#define BR_USER_ANY	(PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY)
#define BR_USER_CS	(PERF_SAMPLE_BRANCH_USER | \
			 PERF_SAMPLE_BRANCH_CALL_STACK)
#define CLOCK_BAD	12345
#define CLOCK_COARSE	6		/* CLOCK_MONOTONIC_COARSE: not perf's */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int sys_open(struct perf_event_attr *a, pid_t pid, int cpu,
		    unsigned long flags)
{
	return sys_perf_event_open(a, pid, cpu, -1,
		       flags | PERF_FLAG_FD_CLOEXEC);
}

/* a user-space event of @type, sampling every @period (0: counting) */
static struct perf_event_attr attr(__u32 type, __u64 config, __u64 period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config = config;
	a.sample_period = period;
	a.sample_type = PERF_SAMPLE_IP;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return a;
}

/* with a branch stack of @bst */
static struct perf_event_attr br(__u32 type, __u64 config, __u64 period,
				 __u64 bst)
{
	struct perf_event_attr a = attr(type, config, period);

	a.sample_type |= PERF_SAMPLE_BRANCH_STACK;
	a.branch_sample_type = bst;
	return a;
}

/* the open's errno, 0 if it opened */
static int open_err(struct perf_event_attr *a, pid_t pid, int cpu,
		    unsigned long flags)
{
	int fd = sys_open(a, pid, cpu, flags);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* the same as uid 1000, at the boot's perf_event_paranoid (2) */
static int open_err_user(struct perf_event_attr *a, pid_t pid, int cpu)
{
	pid_t child = fork();
	int status;

	if (child == 0) {
		if (setgid(1000) || setuid(1000))
			_exit(255);
		_exit(open_err(a, pid, cpu, 0));
	}
	if (child < 0 || waitpid(child, &status, 0) != child ||
	    !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static const char *err_name(int err)
{
	return err ? strerror(err) : "opens";
}

static void verdict(int got, int want, const char *what)
{
	char buf[300];

	snprintf(buf, sizeof(buf), "%s: %s (expected %s)", what,
		 got < 0 ? "no result" : err_name(got), err_name(want));
	check(got == want, buf);
}

/* @a opened by this task (root), for itself: @want (0: it opens) */
static void expect(struct perf_event_attr a, int want, const char *what)
{
	verdict(open_err(&a, 0, -1, 0), want, what);
}

/* @a, CPU-wide on CPU 0 */
static void expect_cpu(struct perf_event_attr a, int want, const char *what)
{
	verdict(open_err(&a, -1, 0, 0), want, what);
}

/* @a opened by uid 1000, for itself (@cpu -1) or CPU-wide */
static void expect_user(struct perf_event_attr a, int cpu, int want,
			const char *what)
{
	verdict(open_err_user(&a, cpu < 0 ? 0 : -1, cpu), want, what);
}

static int pmu_type(const char *pmu)
{
	char path[128];
	int type = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/event_source/devices/%s/type",
		 pmu);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &type) != 1)
			type = -1;
		fclose(f);
	}
	return type;
}

static int cpu_is_amd(void)
{
	char line[256];
	int amd = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "AuthenticAMD"))
			amd = 1;
	if (f)
		fclose(f);
	return amd;
}

static int pmu_name_is(const char *name)
{
	char buf[64] = "";
	FILE *f = fopen("/sys/bus/event_source/devices/cpu/caps/pmu_name", "r");

	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = 0;
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = 0;
	return !strcmp(buf, name);
}

/* both vendors: the core and the software and msr PMUs */
static void common(void)
{
	struct perf_event_attr a;
	int msr = pmu_type("msr"), cg;

	/* the software PMU refuses a branch stack, whatever the config */
	a = br(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, PERIOD,
	       BR_USER_ANY);
	expect(a, EOPNOTSUPP, "software cpu-clock, branch stack");
	a.config = 99;
	expect(a, EOPNOTSUPP, "software config 99, branch stack");
	a.type = 99;
	expect(a, ENOENT, "type 99, branch stack");

	if (msr < 0) {
		check(0, "the msr PMU is registered");
	} else {
		/* msr/tsc/ counting: the branch stack is never recorded */
		a = br(msr, 0, 0, PERF_SAMPLE_BRANCH_ANY);
		a.exclude_kernel = 0;
		a.exclude_hv = 0;
		expect(a, 0, "msr tsc, counting, branch stack");
		/* no extended registers, before no exclude bits */
		a = attr(msr, 0, 0);
		a.sample_regs_intr = EXT_REG;
		expect(a, EOPNOTSUPP,
		       "msr tsc, exclude_kernel, XMM in sample_regs_intr");
	}

	/* a directory that is not a cgroup's: before the clock and depth */
	cg = open("/", O_RDONLY | O_DIRECTORY);
	a = attr(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY, 1000);
	a.exclude_kernel = 0;
	a.exclude_hv = 0;
	verdict(open_err(&a, cg, 0, PERF_FLAG_PID_CGROUP), EBADF,
		"cgroup event, fd of / (not a cgroup)");
	a.use_clockid = 1;
	a.clockid = CLOCK_COARSE;
	verdict(open_err(&a, cg, 0, PERF_FLAG_PID_CGROUP), EBADF,
		"cgroup event, fd of /, clockid MONOTONIC_COARSE");
	a.clockid = CLOCK_BAD;
	verdict(open_err(&a, cg, 0, PERF_FLAG_PID_CGROUP), EBADF,
		"cgroup event, fd of /, clockid 12345");
	a.use_clockid = 0;
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	a.sample_max_stack = 200;
	verdict(open_err(&a, cg, 0, PERF_FLAG_PID_CGROUP), EBADF,
		"cgroup event, fd of /, sample_max_stack 200");
	a = attr(PERF_TYPE_SOFTWARE, 99, 1000);
	a.exclude_kernel = 0;
	a.exclude_hv = 0;
	verdict(open_err(&a, cg, 0, PERF_FLAG_PID_CGROUP), ENOENT,
		"cgroup event, fd of /, software config 99");
	if (cg >= 0)
		close(cg);
}

/* whether /proc/cpuinfo's flags have @flag */
static int cpu_flag(const char *flag)
{
	char line[4096], *p;
	size_t len = strlen(flag);
	int found = 0;
	FILE *fp = fopen("/proc/cpuinfo", "r");

	while (fp && !found && fgets(line, sizeof(line), fp)) {
		if (strncmp(line, "flags", 5))
			continue;
		for (p = strstr(line, flag); p; p = strstr(p + 1, flag))
			if (p[-1] == ' ' && (p[len] == ' ' || p[len] == '\n'))
				found = 1;
		break;
	}
	if (fp)
		fclose(fp);
	return found;
}

/* BTS, precise counting events and aux_output (Skylake-PMU) */
static void intel_events(void)
{
	struct perf_event_attr a;
	__u64 val;
	int fd, bts;

	/*
	 * branch instructions with a period of 1: 6.12's BTS, user space
	 * only; where the CPU has none (before 0021) refused before anything
	 * but the config, else the later checks decide
	 */
	bts = cpu_flag("bts");
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1);
	expect(a, bts ? 0 : EOPNOTSUPP, "BTS: branches, period 1");
	a.exclude_kernel = 0;
	expect(a, EOPNOTSUPP, "BTS: branches, period 1, kernel too");
	a = attr(PERF_TYPE_RAW, 0xc4, 1);
	expect(a, bts ? 0 : EOPNOTSUPP, "BTS: raw 0xc4, period 1");
	a = attr(PERF_TYPE_HW_CACHE, PERF_COUNT_HW_CACHE_BPU, 1);
	expect(a, bts ? 0 : EOPNOTSUPP, "BTS: cache BPU read access, period 1");
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1);
	a.precise_ip = 1;
	expect(a, EOPNOTSUPP, "BTS: branches, period 1, precise_ip 1");
	a.precise_ip = 0;
	a.use_clockid = 1;
	a.clockid = CLOCK_BAD;
	expect(a, bts ? EINVAL : EOPNOTSUPP,
	       "BTS: branches, period 1, clockid 12345");
	a.use_clockid = 0;
	a.sample_type |= PERF_SAMPLE_CALLCHAIN;
	a.sample_max_stack = 200;
	expect(a, bts ? EOVERFLOW : EOPNOTSUPP,
	       "BTS: branches, period 1, sample_max_stack 200");
	a = br(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1,
	       BR_USER_ANY | PERF_SAMPLE_BRANCH_COUNTERS);
	expect(a, bts ? EINVAL : EOPNOTSUPP,
	       "BTS: branches, period 1, branch counters");
	a = br(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1,
	       BR_USER_ANY);
	expect(a, bts ? 0 : EOPNOTSUPP, "BTS: branches, period 1, branch stack");
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1);
	expect_user(a, 0, bts ? EACCES : EOPNOTSUPP,
		    "BTS: branches, period 1, CPU-wide, uid 1000");
	a.aux_output = 1;
	expect(a, bts ? EINVAL : EOPNOTSUPP,
	       "BTS: branches, period 1, aux_output");
	/* not BTS */
	a = attr(PERF_TYPE_RAW, 0x1c4, 1);
	expect(a, 0, "raw 0x1c4, period 1");
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0);
	a.freq = 1;
	a.sample_freq = 1;
	expect(a, 0, "branches, frequency 1");
	fd = sys_open(&a, 0, -1, 0);
	val = 1;
	verdict(fd < 0 ? -1 : ioctl(fd, PERF_EVENT_IOC_PERIOD, &val) ? errno : 0,
		0, "branches, frequency 1: IOC_PERIOD 1 (frequency)");
	if (fd >= 0)
		close(fd);
	/* nor does a new period make one */
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 2);
	fd = sys_open(&a, 0, -1, 0);
	verdict(fd < 0 ? errno : 0, 0, "branches, period 2");
	val = 1;
	verdict(fd < 0 ? -1 : ioctl(fd, PERF_EVENT_IOC_PERIOD, &val) ? errno : 0,
		EINVAL, "branches, period 2: IOC_PERIOD 1");
	val = 2;
	verdict(fd < 0 ? -1 : ioctl(fd, PERF_EVENT_IOC_PERIOD, &val) ? errno : 0,
		0, "branches, period 2: IOC_PERIOD 2");
	if (fd >= 0)
		close(fd);

	/* a precise event samples: a counting one is refused first */
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 0);
	a.precise_ip = 1;
	expect(a, EINVAL, "stalled-cycles-frontend (none), precise, counting");
	a.sample_period = PERIOD;
	expect(a, ENOENT, "stalled-cycles-frontend (none), precise, sampling");

	/* aux_output steers PEBS records: only a precise event */
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, PERIOD);
	a.aux_output = 1;
	expect(a, EINVAL, "cycles, aux_output");
	a.sample_period = 0;
	expect(a, EINVAL, "cycles, counting, aux_output");
	a.config = PERF_COUNT_HW_STALLED_CYCLES_FRONTEND;
	expect(a, ENOENT, "stalled-cycles-frontend (none), aux_output");
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, PERIOD);
	a.aux_output = 1;
	a.precise_ip = 1;
	expect(a, EOPNOTSUPP, "cycles, precise, aux_output (no AUX event)");
}

/* the legacy LBRs' branch_sample_type (Skylake-PMU) */
static void intel_lbr(void)
{
	static const struct {
		__u64 bst;
		const char *name;
	} cs_refused[] = {
		{ PERF_SAMPLE_BRANCH_ANY, "any" },
		{ PERF_SAMPLE_BRANCH_ANY_CALL, "any_call" },
		{ PERF_SAMPLE_BRANCH_ANY_RETURN, "any_ret" },
		{ PERF_SAMPLE_BRANCH_IND_CALL, "ind_call" },
		{ PERF_SAMPLE_BRANCH_COND, "cond" },
		{ PERF_SAMPLE_BRANCH_ABORT_TX, "abort_tx" },
		{ PERF_SAMPLE_BRANCH_IN_TX, "in_tx" },
		{ PERF_SAMPLE_BRANCH_NO_TX, "no_tx" },
	}, cs_taken[] = {
		{ PERF_SAMPLE_BRANCH_IND_JUMP, "ind_jump" },
		{ PERF_SAMPLE_BRANCH_CALL, "call" },
		{ PERF_SAMPLE_BRANCH_NO_FLAGS, "no_flags" },
		{ PERF_SAMPLE_BRANCH_HW_INDEX, "hw_index" },
	};
	struct perf_event_attr a;
	char what[128];
	unsigned int i;

	/* the transaction kinds: taken (no TSX, they filter nothing) */
	a = br(PERF_TYPE_HARDWARE, 0, PERIOD,
	       PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ABORT_TX);
	expect(a, 0, "branch stack u,abort_tx");
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER |
			       PERF_SAMPLE_BRANCH_IN_TX;
	expect(a, 0, "branch stack u,in_tx");
	a.branch_sample_type = BR_USER_ANY | PERF_SAMPLE_BRANCH_NO_TX;
	expect(a, 0, "branch stack u,any,no_tx");
	a.branch_sample_type = PERF_SAMPLE_BRANCH_USER |
			       PERF_SAMPLE_BRANCH_ABORT_TX |
			       PERF_SAMPLE_BRANCH_IN_TX |
			       PERF_SAMPLE_BRANCH_NO_TX;
	expect(a, 0, "branch stack u,abort_tx,in_tx,no_tx");
	expect_cpu(a, 0, "branch stack u,abort_tx,in_tx,no_tx, CPU-wide");

	/* no branch counters: EINVAL, counting or not */
	a.branch_sample_type = BR_USER_ANY | PERF_SAMPLE_BRANCH_COUNTERS;
	expect(a, EINVAL, "branch stack u,any,counters");
	a.sample_period = 0;
	a.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK;
	expect(a, EINVAL, "branch stack u,any,counters, counting, READ");

	/* the call stack with another kind */
	for (i = 0; i < ARRAY_SIZE(cs_refused); i++) {
		a = br(PERF_TYPE_HARDWARE, 0, PERIOD,
		       BR_USER_CS | cs_refused[i].bst);
		snprintf(what, sizeof(what), "branch stack u,call_stack,%s",
			 cs_refused[i].name);
		expect(a, EINVAL, what);
		a.sample_period = 0;
		snprintf(what, sizeof(what),
			 "branch stack u,call_stack,%s, counting",
			 cs_refused[i].name);
		expect(a, EINVAL, what);
	}
	for (i = 0; i < ARRAY_SIZE(cs_taken); i++) {
		a = br(PERF_TYPE_HARDWARE, 0, PERIOD,
		       BR_USER_CS | cs_taken[i].bst);
		snprintf(what, sizeof(what), "branch stack u,call_stack,%s",
			 cs_taken[i].name);
		expect(a, 0, what);
	}
	/* 6.12 lets a counting event with READ in sample_type through */
	a = br(PERF_TYPE_HARDWARE, 0, 0, BR_USER_CS | PERF_SAMPLE_BRANCH_ANY);
	a.sample_type = PERF_SAMPLE_READ | PERF_SAMPLE_BRANCH_STACK;
	expect(a, 0, "branch stack u,call_stack,any, counting, READ");
	a.sample_period = PERIOD;
	expect(a, EINVAL, "branch stack u,call_stack,any, sampling, READ");
	a = br(PERF_TYPE_HARDWARE, 0, 0, BR_USER_CS | PERF_SAMPLE_BRANCH_COND);
	a.sample_type |= PERF_SAMPLE_READ;
	expect(a, 0, "branch stack u,call_stack,cond, counting, IP|READ");
}

/* AnyThread's permission comes after the EINVALs above (uid 1000) */
static void intel_anythread(void)
{
	struct perf_event_attr a;

	a = attr(PERF_TYPE_RAW, ANYTHREAD | 0x3c, PERIOD);
	expect_user(a, -1, EACCES, "uid 1000: AnyThread cycles");
	a.aux_output = 1;
	expect_user(a, -1, EINVAL, "uid 1000: AnyThread cycles, aux_output");
	a = attr(PERF_TYPE_RAW, ANYTHREAD | 0x3c, 0);
	a.precise_ip = 1;
	expect_user(a, -1, EINVAL,
		    "uid 1000: AnyThread cycles, precise, counting");
	a = br(PERF_TYPE_RAW, ANYTHREAD | 0x3c, PERIOD,
	       BR_USER_ANY | PERF_SAMPLE_BRANCH_COUNTERS);
	expect_user(a, -1, EINVAL,
		    "uid 1000: AnyThread cycles, branch counters");
	a.branch_sample_type = BR_USER_CS | PERF_SAMPLE_BRANCH_ANY;
	expect_user(a, -1, EINVAL,
		    "uid 1000: AnyThread cycles, branch stack u,call_stack,any");
	/* before the PEBS event select (edge is refused) */
	a = attr(PERF_TYPE_RAW, ANYTHREAD | (1ULL << 18) | 0x3c, PERIOD);
	a.precise_ip = 1;
	expect_user(a, -1, EACCES, "uid 1000: AnyThread cycles, edge, precise");
}

/* precise events go to IBS first; IBS's order; the uncore's (EPYC-PMU) */
static void amd(void)
{
	int op = pmu_type("ibs_op"), l3 = pmu_type("amd_l3");
	struct perf_event_attr a;

	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_MAX, PERIOD);
	a.precise_ip = 1;
	expect(a, ENOENT, "hardware config 10 (none), precise");
	a = attr(PERF_TYPE_HW_CACHE, 0x106, PERIOD);	/* L1I write miss */
	a.precise_ip = 2;
	expect(a, ENOENT, "cache L1I write access (none), precise 2");
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 0);
	a.precise_ip = 3;
	a.sample_regs_intr = EXT_REG;
	expect(a, EOPNOTSUPP, "cache-misses, precise 3, counting, XMM");
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, PERIOD);
	a.precise_ip = 1;
	a.sample_regs_intr = EXT_REG;
	expect(a, ENOENT, "cache-misses, precise, XMM");
	/* cycles:p is ibs_op's: its capabilities (no XMM) decide */
	a = attr(PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, PERIOD);
	a.exclude_kernel = 0;
	a.exclude_hv = 0;
	a.precise_ip = 1;
	a.sample_regs_intr = EXT_REG;
	expect(a, EOPNOTSUPP, "cycles, precise, XMM (to ibs_op)");
	a.sample_regs_intr = 0;
	a.sample_period = 0;
	expect(a, EINVAL, "cycles, precise, counting (to ibs_op)");

	if (op < 0) {
		check(0, "the ibs_op PMU is registered");
	} else {
		a = br(op, 1ULL << 62, PERIOD, BR_USER_ANY);
		a.exclude_kernel = 0;
		a.exclude_hv = 0;
		expect_cpu(a, EINVAL, "ibs_op config bit 62, branch stack");
		a.sample_period = 0;
		expect_cpu(a, EINVAL,
			   "ibs_op config bit 62, counting, branch stack");
		a.config = 0;
		expect_cpu(a, EOPNOTSUPP, "ibs_op, counting, branch stack");
		a = attr(op, 0, PERIOD);
		a.exclude_kernel = 0;
		a.exclude_hv = 0;
		a.use_clockid = 1;
		a.clockid = CLOCK_MONOTONIC;
		expect_cpu(a, 0, "ibs_op, clockid MONOTONIC");
		a.use_clockid = 0;
		a.exclude_kernel = 1;
		a.sample_regs_intr = EXT_REG;
		expect_cpu(a, EOPNOTSUPP, "ibs_op, exclude_kernel, XMM");
		/* period 0, the raw max count (16: 256 ops): it samples */
		a = attr(op, 0x10, 0);
		a.exclude_kernel = 0;
		a.exclude_hv = 0;
		expect_cpu(a, 0, "ibs_op, period in the config's max count");
		a.sample_regs_intr = EXT_REG;
		expect_cpu(a, EOPNOTSUPP,
			   "ibs_op, period in the config's max count, XMM");
	}

	if (l3 < 0) {
		check(0, "the amd_l3 PMU is registered");
	} else {
		a = attr(l3, 0x6, 1000);
		a.exclude_hv = 0;
		expect_cpu(a, EINVAL, "amd_l3, sampling, exclude_kernel");
		a = attr(l3, 0x6, 0);
		a.exclude_kernel = 0;
		a.exclude_hv = 0;
		a.sample_regs_intr = EXT_REG;
		verdict(open_err(&a, 0, 0, 0), EOPNOTSUPP,
			"amd_l3, task event, XMM");
		a.exclude_kernel = 1;
		expect_cpu(a, EOPNOTSUPP, "amd_l3, exclude_kernel, XMM");
	}
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	common();
	if (cpu_is_amd()) {
		amd();
	} else if (pmu_name_is("skylake")) {
		intel_events();
		intel_lbr();
		intel_anythread();
	} else {
		printf("# not Skylake: only the vendor-neutral checks\n");
	}
	return fails ? 1 : 0;
}
