// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace's debug-register interface sits on the breakpoint layer. Until
 * that layer installs breakpoints, requests must fail cleanly with
 * EOPNOTSUPP (or, once it does, succeed), leave nothing half set up, and
 * leave the tracee able to run to completion.
 */
#include "perf_test.h"

#include <stddef.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "kselftest_harness.h"

#define DR_OFFSET(n) (offsetof(struct user, u_debugreg) + (n) * sizeof(long))

static volatile long watched;

static pid_t start_stopped_tracee(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0))
			_exit(10);
		raise(SIGSTOP);
		watched = 1;
		_exit(watched == 1 ? 0 : 11);
	}
	return pid;
}

static void finish_tracee(struct __test_metadata *_metadata, pid_t pid)
{
	int status;

	ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* a breakpoint that did get installed stops the tracee once */
	while (WIFSTOPPED(status)) {
		ASSERT_EQ(0, ptrace(PTRACE_CONT, pid, 0, 0));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
	}
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST(poke_dr0_and_dr7_fail_cleanly_or_work)
{
	unsigned long dr7 = 0x1 | (0x1UL << 16) | (0x3UL << 18); /* L0, W, len 4 */
	int status;
	long ret;
	pid_t pid = start_stopped_tracee();

	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFSTOPPED(status));

	ret = ptrace(PTRACE_POKEUSER, pid, DR_OFFSET(0), (long)&watched);
	if (ret) {
		EXPECT_EQ(EOPNOTSUPP, errno);
		/* nothing was recorded for the failed request */
		errno = 0;
		EXPECT_EQ(0, ptrace(PTRACE_PEEKUSER, pid, DR_OFFSET(0), 0));
		EXPECT_EQ(0, errno);
	}
	ret = ptrace(PTRACE_POKEUSER, pid, DR_OFFSET(7), dr7);
	if (ret) {
		EXPECT_EQ(EOPNOTSUPP, errno);
		errno = 0;
		EXPECT_EQ(0, ptrace(PTRACE_PEEKUSER, pid, DR_OFFSET(7), 0));
		EXPECT_EQ(0, errno);
	}
	finish_tracee(_metadata, pid);
}

TEST(disabling_dr7_with_nothing_set_succeeds)
{
	int status;
	pid_t pid = start_stopped_tracee();

	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, ptrace(PTRACE_POKEUSER, pid, DR_OFFSET(7), 0));
	finish_tracee(_metadata, pid);
}

TEST_HARNESS_MAIN
