// SPDX-License-Identifier: GPL-2.0
/*
 * gdb's hardware watchpoints, end to end: gdb -batch sets a `watch` (and
 * an `awatch`) on a global of this very program, run with --target (no
 * debug info, hence the casts in the expressions), and
 * must report every change through the debug registers (ptrace's
 * u_debugreg, on the breakpoint layer), never falling back to software
 * watchpoints or failing to insert them.
 *
 * The watchpoints are set before `run`, with no breakpoint: under QEMU TCG
 * a single-step (gdb stepping over a breakpoint) while a watchpoint is
 * armed hangs the guest, the stock kernel's too.
 */
#include "perf_test.h"

#include <limits.h>

#include "kselftest_harness.h"

#define GDB	"/usr/bin/gdb"

volatile int gdb_watched;
volatile int gdb_sink;

/* the debuggee: three writes, then (for awatch) one read */
static __attribute__((noinline)) void target_main(void)
{
	int i;

	for (i = 1; i <= 3; i++)
		gdb_watched = i;
	gdb_sink = gdb_watched;
}

/* Run gdb -batch with @cmds against this program; its output in @out. */
static int run_gdb(const char *const *cmds, char *out, size_t size)
{
	char self[PATH_MAX];
	const char *argv[32];
	int p[2], n = 0, status;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	r = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (r < 0)
		return -1;
	self[r] = 0;

	argv[n++] = GDB;
	argv[n++] = "-nx";
	argv[n++] = "-batch";
	for (; *cmds; cmds++) {
		argv[n++] = "-ex";
		argv[n++] = *cmds;
	}
	argv[n++] = "--args";
	argv[n++] = self;
	argv[n++] = "--target";
	argv[n] = NULL;

	if (pipe(p))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		execv(GDB, (char **)argv);
		_exit(127);
	}
	close(p[1]);
	while (len < size - 1 && (r = read(p[0], out + len, size - 1 - len)) > 0)
		len += r;
	out[len] = 0;
	close(p[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static int count_of(const char *s, const char *what)
{
	int n = 0;

	while ((s = strstr(s, what))) {
		n++;
		s += strlen(what);
	}
	return n;
}

static char out[1 << 16];

/* gdb starts slowly under TCG on a loaded host: more than the default 30s */
FIXTURE(gdb) { };
FIXTURE_SETUP(gdb) { }
FIXTURE_TEARDOWN(gdb) { }

TEST_F_TIMEOUT(gdb, watch_reports_each_write, 110)
{
	static const char *const cmds[] = {
		"watch *(int *)&gdb_watched", "run",
		"continue", "continue", "continue", NULL,
	};

	if (access(GDB, X_OK))
		SKIP(return, "no " GDB);
	ASSERT_EQ(0, run_gdb(cmds, out, sizeof(out))) TH_LOG("%s", out);

	EXPECT_NE(NULL, strstr(out, "Hardware watchpoint 1: *(int *)&gdb_watched"))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "Software watchpoint")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "Could not insert")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Old value = 0\nNew value = 1"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Old value = 1\nNew value = 2"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Old value = 2\nNew value = 3"))
		TH_LOG("%s", out);
	EXPECT_EQ(3, count_of(out, "New value =")) TH_LOG("%s", out);
	/* the watchpoint goes out of use as the program runs to its end */
	EXPECT_NE(NULL, strstr(out, "exited normally")) TH_LOG("%s", out);
}

TEST_F_TIMEOUT(gdb, awatch_reports_reads_and_writes, 110)
{
	static const char *const cmds[] = {
		"awatch *(int *)&gdb_watched", "run",
		"continue", "continue", "continue", "continue", NULL,
	};

	if (access(GDB, X_OK))
		SKIP(return, "no " GDB);
	ASSERT_EQ(0, run_gdb(cmds, out, sizeof(out))) TH_LOG("%s", out);

	EXPECT_NE(NULL,
		  strstr(out, "Hardware access (read/write) watchpoint 1: "))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "Could not insert")) TH_LOG("%s", out);
	/* three writes, then the read of the last value */
	EXPECT_EQ(3, count_of(out, "New value =")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "Value = 3")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "exited normally")) TH_LOG("%s", out);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--target")) {
		target_main();
		return 0;
	}
	return test_harness_run(argc, argv);
}
