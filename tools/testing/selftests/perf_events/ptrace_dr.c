// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace's debug-register interface (PTRACE_POKEUSER/PEEKUSER of
 * u_debugreg[0..7]) sits on the breakpoint layer: what a debugger writes
 * must read back, fire exactly on the watched accesses with a SIGTRAP
 * (TRAP_HWBKPT) stop and the hit in DR6, and settings the debug
 * registers cannot take must fail with nothing left behind.
 */
#include "perf_test.h"

#include <stddef.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <linux/hw_breakpoint.h>
#include "kselftest_harness.h"

#ifndef TRAP_HWBKPT
#define TRAP_HWBKPT	4
#endif

#define DR_OFFSET(n) (offsetof(struct user, u_debugreg) + (n) * sizeof(long))

/* DR7: local enable of DRn, R/W and LEN fields */
#define DR7_L(n)		(1UL << ((n) * 2))
#define DR7_RW(n, rw)		((unsigned long)(rw) << (16 + (n) * 4))
#define DR7_LEN(n, len)		((unsigned long)(len) << (18 + (n) * 4))
#define RW_EXEC		0
#define RW_WRITE	1
#define RW_IO		2
#define RW_RW		3
#define LEN_1		0
#define LEN_2		1
#define LEN_8		2
#define LEN_4		3
#define DR6_TRAP_BITS	0xfUL

static volatile long watched[4];

enum tracee_job { JOB_WRITE_3, JOB_WRITE_ALL, JOB_CALL, JOB_NONE };

static __attribute__((noinline)) int tracee_fn(int x)
{
	asm volatile("" : "+r" (x));
	return x * 2;
}

static void tracee(enum tracee_job job)
{
	int i;

	if (ptrace(PTRACE_TRACEME, 0, 0, 0))
		_exit(10);
	raise(SIGSTOP);
	switch (job) {
	case JOB_WRITE_3:
		for (i = 1; i <= 3; i++)
			watched[0] = i;
		break;
	case JOB_WRITE_ALL:
		for (i = 3; i >= 0; i--)
			watched[i] = 1;
		break;
	case JOB_CALL:
		if (tracee_fn(21) != 42)
			_exit(12);
		break;
	case JOB_NONE:
		break;
	}
	_exit(watched[0] == 3 || job != JOB_WRITE_3 ? 0 : 11);
}

static pid_t start_stopped_tracee(struct __test_metadata *_metadata,
				  enum tracee_job job)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		tracee(job);
	if (pid > 0) {
		EXPECT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFSTOPPED(status));
		EXPECT_EQ(SIGSTOP, WSTOPSIG(status));
	}
	return pid;
}

static int poke_dr(pid_t pid, int n, unsigned long val)
{
	return ptrace(PTRACE_POKEUSER, pid, DR_OFFSET(n), val) ? errno : 0;
}

static unsigned long peek_dr(pid_t pid, int n)
{
	return ptrace(PTRACE_PEEKUSER, pid, DR_OFFSET(n), 0);
}

/*
 * Continue the tracee until it exits, returning how many SIGTRAP stops it
 * made; each must be a hardware breakpoint stop, the DR6 bits of each
 * are ORed into *dr6.
 */
static int count_trap_stops(struct __test_metadata *_metadata, pid_t pid,
			    unsigned long *dr6)
{
	int status, stops = 0;
	siginfo_t si;

	*dr6 = 0;
	for (;;) {
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		if (!WIFSTOPPED(status))
			break;
		EXPECT_EQ(SIGTRAP, WSTOPSIG(status));
		ASSERT_EQ(0, ptrace(PTRACE_GETSIGINFO, pid, 0, &si));
		EXPECT_EQ(TRAP_HWBKPT, si.si_code);
		*dr6 |= peek_dr(pid, 6) & DR6_TRAP_BITS;
		stops++;
	}
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	return stops;
}

TEST(write_watchpoint_stops_on_each_write)
{
	unsigned long dr7 = DR7_L(0) | DR7_RW(0, RW_WRITE) | DR7_LEN(0, LEN_8);
	unsigned long dr6;
	pid_t pid = start_stopped_tracee(_metadata, JOB_WRITE_3);

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, poke_dr(pid, 0, (unsigned long)&watched[0]));
	ASSERT_EQ(0, poke_dr(pid, 7, dr7));
	EXPECT_EQ((unsigned long)&watched[0], peek_dr(pid, 0));
	EXPECT_EQ(dr7, peek_dr(pid, 7));
	EXPECT_EQ(3, count_trap_stops(_metadata, pid, &dr6));
	EXPECT_EQ(0x1, dr6);
}

TEST(all_four_debug_registers_work_at_once)
{
	unsigned long dr7 = 0, dr6;
	pid_t pid = start_stopped_tracee(_metadata, JOB_WRITE_ALL);
	int n;

	ASSERT_LT(0, pid);
	for (n = 0; n < 4; n++) {
		ASSERT_EQ(0, poke_dr(pid, n, (unsigned long)&watched[n]));
		dr7 |= DR7_L(n) | DR7_RW(n, RW_WRITE) | DR7_LEN(n, LEN_4);
	}
	ASSERT_EQ(0, poke_dr(pid, 7, dr7));
	EXPECT_EQ(dr7, peek_dr(pid, 7));
	EXPECT_EQ(4, count_trap_stops(_metadata, pid, &dr6));
	EXPECT_EQ(0xf, dr6);
}

TEST(execute_breakpoint_stops_at_the_function)
{
	unsigned long dr7 = DR7_L(2) | DR7_RW(2, RW_EXEC) | DR7_LEN(2, LEN_1);
	struct user_regs_struct regs;
	int status;
	pid_t pid = start_stopped_tracee(_metadata, JOB_CALL);

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, poke_dr(pid, 2, (unsigned long)tracee_fn));
	ASSERT_EQ(0, poke_dr(pid, 7, dr7));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));
	EXPECT_EQ(SIGTRAP, WSTOPSIG(status));
	ASSERT_EQ(0, ptrace(PTRACE_GETREGS, pid, 0, &regs));
	EXPECT_EQ((unsigned long)tracee_fn, regs.rip);
	EXPECT_EQ(0x4, peek_dr(pid, 6) & DR6_TRAP_BITS);
	/* off again: the tracee runs to its end */
	ASSERT_EQ(0, poke_dr(pid, 7, 0));
	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST(disabled_watchpoint_does_not_stop)
{
	unsigned long dr7 = DR7_L(0) | DR7_RW(0, RW_WRITE) | DR7_LEN(0, LEN_8);
	unsigned long dr6;
	pid_t pid = start_stopped_tracee(_metadata, JOB_WRITE_3);

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, poke_dr(pid, 0, (unsigned long)&watched[0]));
	ASSERT_EQ(0, poke_dr(pid, 7, dr7));
	ASSERT_EQ(0, poke_dr(pid, 7, 0));
	EXPECT_EQ(0, peek_dr(pid, 7));
	/* the address stays */
	EXPECT_EQ((unsigned long)&watched[0], peek_dr(pid, 0));
	EXPECT_EQ(0, count_trap_stops(_metadata, pid, &dr6));
}

TEST(settings_the_registers_cannot_take_fail_and_change_nothing)
{
	unsigned long good = DR7_L(0) | DR7_RW(0, RW_WRITE) | DR7_LEN(0, LEN_8);
	unsigned long dr6;
	pid_t pid = start_stopped_tracee(_metadata, JOB_WRITE_3);

	ASSERT_LT(0, pid);
	/* a user task cannot watch kernel memory */
	EXPECT_NE(0, poke_dr(pid, 1, 0xffffffff81000000UL));
	EXPECT_EQ(0, peek_dr(pid, 1));

	ASSERT_EQ(0, poke_dr(pid, 0, (unsigned long)&watched[0] + 4));
	/* 8 bytes at an address aligned to 4 */
	EXPECT_EQ(EINVAL, poke_dr(pid, 7, good));
	EXPECT_EQ(0, peek_dr(pid, 7));
	ASSERT_EQ(0, poke_dr(pid, 0, (unsigned long)&watched[0]));
	/* I/O breakpoints do not exist for user space */
	EXPECT_EQ(EINVAL, poke_dr(pid, 7, DR7_L(0) | DR7_RW(0, RW_IO)));
	EXPECT_EQ(0, peek_dr(pid, 7));
	/* an instruction breakpoint has length 1 in DR7 */
	EXPECT_EQ(EINVAL, poke_dr(pid, 7, DR7_L(0) | DR7_RW(0, RW_EXEC) |
					  DR7_LEN(0, LEN_4)));
	/* there are no DR4 and DR5 */
	EXPECT_EQ(EIO, poke_dr(pid, 4, 0));
	EXPECT_EQ(EIO, poke_dr(pid, 5, 0));

	/* after all that, a good setting still works */
	ASSERT_EQ(0, poke_dr(pid, 7, good));
	EXPECT_EQ(3, count_trap_stops(_metadata, pid, &dr6));
	EXPECT_EQ(0x1, dr6);
}

/*
 * ptrace's breakpoints are the tracee's breakpoints: once DR0-DR3 hold
 * an address each (disabled or not) a perf breakpoint on the tracee finds
 * no slot, and the other way round.
 */
TEST(ptrace_and_perf_breakpoints_share_the_slots)
{
	struct perf_event_attr attr;
	unsigned long dr6;
	int n, fd;
	pid_t pid = start_stopped_tracee(_metadata, JOB_NONE);

	ASSERT_LT(0, pid);
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_addr = (unsigned long)&watched[0];
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;

	for (n = 0; n < 3; n++)
		ASSERT_EQ(0, poke_dr(pid, n, (unsigned long)&watched[n]));
	fd = sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s", strerror(errno));
	/* the tracer's DR3 is the one that no longer fits */
	EXPECT_EQ(ENOSPC, poke_dr(pid, 3, (unsigned long)&watched[3]));
	close(fd);
	ASSERT_EQ(0, poke_dr(pid, 3, (unsigned long)&watched[3]));
	fd = sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(0, count_trap_stops(_metadata, pid, &dr6));
}

TEST(disabling_dr7_with_nothing_set_succeeds)
{
	unsigned long dr6;
	pid_t pid = start_stopped_tracee(_metadata, JOB_NONE);

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, poke_dr(pid, 7, 0));
	EXPECT_EQ(0, count_trap_stops(_metadata, pid, &dr6));
}

TEST_HARNESS_MAIN
