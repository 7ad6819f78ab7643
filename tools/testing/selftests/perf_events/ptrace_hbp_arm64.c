// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's ptrace hardware breakpoints and watchpoints (the NT_ARM_HW_BREAK
 * and NT_ARM_HW_WATCH regsets, what gdb uses). arch/arm64/kernel/ptrace.c
 * turns each slot into a perf event through our core's kernel API
 * (register_user_hw_breakpoint(), modify_user_hw_breakpoint()); a hit
 * stops the tracee with SIGTRAP, si_code TRAP_HWBKPT and the address.
 *
 * Other arches: every test skips (ptrace_dr is x86's).
 */
#include "perf_test.h"

#include <elf.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#if defined(__aarch64__)

#include <asm/ptrace.h>

/* DBGBCR/DBGWCR fields ptrace takes in ctrl */
#define CTRL_ENABLE		(1u << 0)
#define CTRL_EL0		(2u << 1)
#define CTRL_STORE		(2u << 3)
#define CTRL_BAS(mask)		((mask) << 5)

static volatile __u64 watched __attribute__((aligned(8)));

static __attribute__((noinline)) int hbp_target(int x)
{
	asm volatile("" : "+r"(x));
	return x + 1;
}

/* The tracee: stop, then store to watched and call hbp_target. */
static void tracee(void)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(10);
	raise(SIGSTOP);
	watched = 42;
	_exit(hbp_target(1) == 2 ? 0 : 11);
}

static int get_state(pid_t pid, int set, struct user_hwdebug_state *st)
{
	struct iovec iov = { .iov_base = st, .iov_len = sizeof(*st) };

	memset(st, 0, sizeof(*st));
	return ptrace(PTRACE_GETREGSET, pid, (void *)(long)set, &iov) ? -errno : 0;
}

/* slot 0 of @set at @addr with @ctrl (0: off) */
static int set_slot0(pid_t pid, int set, __u64 addr, __u32 ctrl)
{
	struct user_hwdebug_state st;
	struct iovec iov = { .iov_base = &st,
		.iov_len = offsetof(struct user_hwdebug_state, dbg_regs[1]) };

	memset(&st, 0, sizeof(st));
	st.dbg_regs[0].addr = addr;
	st.dbg_regs[0].ctrl = ctrl;
	return ptrace(PTRACE_SETREGSET, pid, (void *)(long)set, &iov) ? -errno : 0;
}

static pid_t start_stopped(void)
{
	int status;
	pid_t pid = fork();

	if (pid == 0)
		tracee();
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP)
		return -1;
	return pid;
}

/* continue to the next stop: its signal and siginfo, or exit (-1) */
static int cont_to_stop(pid_t pid, siginfo_t *si)
{
	int status;

	if (ptrace(PTRACE_CONT, pid, NULL, NULL) ||
	    waitpid(pid, &status, 0) != pid)
		return -2;
	if (!WIFSTOPPED(status))
		return -1;
	if (ptrace(PTRACE_GETSIGINFO, pid, NULL, si))
		return -2;
	return WSTOPSIG(status);
}

static int cont_to_exit(pid_t pid)
{
	int status;

	if (ptrace(PTRACE_CONT, pid, NULL, NULL) ||
	    waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

TEST(regsets_report_the_slots)
{
	struct user_hwdebug_state st;
	pid_t pid = start_stopped();

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, get_state(pid, NT_ARM_HW_WATCH, &st));
	/* the architecture has 2 to 16 of each */
	EXPECT_LE(2, st.dbg_info & 0xff);
	EXPECT_GE(16, st.dbg_info & 0xff);
	EXPECT_NE(0, (st.dbg_info >> 8) & 0xff);
	ASSERT_EQ(0, get_state(pid, NT_ARM_HW_BREAK, &st));
	EXPECT_LE(2, st.dbg_info & 0xff);
	EXPECT_GE(16, st.dbg_info & 0xff);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

TEST(watchpoint_stops_the_tracee_at_the_store)
{
	siginfo_t si;
	pid_t pid = start_stopped();

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, set_slot0(pid, NT_ARM_HW_WATCH, (unsigned long)&watched,
			       CTRL_ENABLE | CTRL_EL0 | CTRL_STORE |
			       CTRL_BAS(0xff)));
	ASSERT_EQ(SIGTRAP, cont_to_stop(pid, &si));
	EXPECT_EQ(TRAP_HWBKPT, si.si_code);
	EXPECT_EQ((unsigned long)&watched, (unsigned long)si.si_addr);
	/* off, as gdb does before it steps: the store completes */
	ASSERT_EQ(0, set_slot0(pid, NT_ARM_HW_WATCH, (unsigned long)&watched,
			       0));
	EXPECT_EQ(0, cont_to_exit(pid));
}

TEST(breakpoint_stops_the_tracee_at_the_function)
{
	siginfo_t si;
	pid_t pid = start_stopped();

	ASSERT_LT(0, pid);
	ASSERT_EQ(0, set_slot0(pid, NT_ARM_HW_BREAK, (unsigned long)hbp_target,
			       CTRL_ENABLE | CTRL_EL0 | CTRL_BAS(0xf)));
	ASSERT_EQ(SIGTRAP, cont_to_stop(pid, &si));
	EXPECT_EQ(TRAP_HWBKPT, si.si_code);
	EXPECT_EQ((unsigned long)hbp_target, (unsigned long)si.si_addr);
	ASSERT_EQ(0, set_slot0(pid, NT_ARM_HW_BREAK, (unsigned long)hbp_target,
			       0));
	EXPECT_EQ(0, cont_to_exit(pid));
}

TEST(bad_settings_are_refused)
{
	pid_t pid = start_stopped();

	ASSERT_LT(0, pid);
	/* a kernel address, and a byte mask running past the doubleword */
	EXPECT_EQ(-EINVAL, set_slot0(pid, NT_ARM_HW_WATCH,
				     0xffff800080000000UL,
				     CTRL_ENABLE | CTRL_EL0 | CTRL_STORE |
				     CTRL_BAS(0xff)));
	EXPECT_EQ(-EINVAL, set_slot0(pid, NT_ARM_HW_WATCH,
				     (unsigned long)&watched + 4,
				     CTRL_ENABLE | CTRL_EL0 | CTRL_STORE |
				     CTRL_BAS(0xff)));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

#else /* !__aarch64__ */

TEST(arm64_only)
{
	SKIP(return, "arm64's NT_ARM_HW_BREAK/HW_WATCH (ptrace_dr is x86's)");
}

#endif

TEST_HARNESS_MAIN
