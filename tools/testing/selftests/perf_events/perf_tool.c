// SPDX-License-Identifier: GPL-2.0
/*
 * End to end with the real tool: Debian's perf (/usr/bin/perf, in the test
 * initramfs) records, reports, scripts and counts this binary, which
 * re-executes itself as the workload:
 *
 *   perf_tool --busy MS     spin MS ms of CPU in busy_loop_fn()
 *   perf_tool --faults N    touch N fresh pages in fault_pages_fn()
 *   perf_tool --sleepy N    N short sleeps, each after a little work
 *
 * The checks are on the tool's output: the top symbol of `perf report`,
 * callchains in `perf script`, sample counts, switch records, and the
 * lines of `perf stat` in its interval, repeat and group modes. Skips if
 * perf is missing. Slow under QEMU TCG: every test has a long timeout.
 */
#pragma GCC optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")
#include "perf_test.h"
#include "tool_sh.h"
#include <stdarg.h>
#include <sys/stat.h>
#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#define PERF		"/usr/bin/perf"
#define TMO		600

static char exe[512];

static __attribute__((noipa)) unsigned long busy_loop_fn(unsigned long n)
{
	volatile unsigned long s = 0;
	unsigned long i;

	for (i = 0; i < n; i++)
		s += i * i;
	return s;
}

static __attribute__((noipa)) void busy_main(long ms)
{
	__u64 t0 = pt_thread_cpu_ns();

	while (pt_thread_cpu_ns() - t0 < (__u64)ms * 1000000)
		busy_loop_fn(200000);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noipa)) void fault_pages_fn(char *p, int n)
{
	long ps = pt_page_size();
	int i;

	for (i = 0; i < n; i++)
		((volatile char *)p)[i * ps] = 1;
	__asm__ volatile("" ::: "memory");
}

static int workload(int argc, char **argv)
{
	long n = atol(argv[2]);
	int i;

	if (!strcmp(argv[1], "--busy")) {
		busy_main(n);
	} else if (!strcmp(argv[1], "--faults")) {
		char *p = pt_map_pages(n);

		if (!p)
			return 1;
		fault_pages_fn(p, n);
	} else {
		for (i = 0; i < n; i++) {
			busy_loop_fn(10000);
			pt_sleep_ns(2000000);
		}
	}
	return 0;
}

/* The first line of `perf report` that is not a comment or empty. */
static void first_report_line(const char *s, char *line, size_t size)
{
	line[0] = 0;
	while (s && *s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (len && s[0] != '#' && strspn(s, " \t") < len) {
			snprintf(line, size, "%.*s", (int)len, s);
			return;
		}
		s = e ? e + 1 : NULL;
	}
}

/* Percentage at the start of a report line ("  98.33%  [.] sym"). */
static double line_percent(const char *line)
{
	return strtod(line, NULL);
}

FIXTURE(tool) {
	char data[300];
	char *out;
};

FIXTURE_SETUP(tool)
{
	self->out = NULL;
	if (access(PERF, X_OK))
		SKIP(return, "no %s", PERF);
	snprintf(self->data, sizeof(self->data), "%s/perf.data", tool_tmpdir);
}

FIXTURE_TEARDOWN(tool)
{
	free(self->out);
	unlink(self->data);
}

/*
 * perf record/report flags that keep the runs quiet and self-contained.
 * CG: callchain option for the unprivileged on 6.12, where a kernel
 * callchain is EACCES at perf_event_paranoid 2 (perf 6.1 does not fall
 * back by itself).
 */
#define REC	PERF " record -q -N -B -o %s"
#define CG	(pt_can_count_kernel() ? "" : "--user-callchains")
#define REP	PERF " report -i %s --stdio --no-children --sort sym -g none --no-inline"

TEST_F_TIMEOUT(tool, record_report_top_symbol_is_the_busy_function, TMO)
{
	char line[256];

	ASSERT_EQ(0, sh(&self->out, REC " -e cpu-clock -F 1000 -g %s -- %s --busy 400",
			self->data, CG, exe)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, REP, self->data)) TH_LOG("%s", self->out);
	first_report_line(self->out, line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, "busy_loop_fn")) TH_LOG("report:\n%s", self->out);
	EXPECT_LE(50.0, line_percent(line)) TH_LOG("%s", line);
}

TEST_F_TIMEOUT(tool, script_shows_samples_with_callchains, TMO)
{
	const char *p;
	int n;

	ASSERT_EQ(0, sh(&self->out, REC " -e cpu-clock -F 1000 -g %s -- %s --busy 300",
			self->data, CG, exe)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, PERF " script -i %s -F comm,tid,period,event,ip,sym",
			self->data)) TH_LOG("%s", self->out);
	/* sample header lines: comm tid period event */
	n = count_lines(self->out, "perf_tool");
	EXPECT_LE(50, n) TH_LOG("%d sample lines", n);
	EXPECT_LE(50, count_lines(self->out, "1000000 cpu-clock"));
	/* busy_loop_fn, called from busy_main: frame-pointer callchain */
	p = strstr(self->out, "busy_loop_fn\n");
	ASSERT_NE(NULL, p) TH_LOG("%.2000s", self->out);
	p = strchr(p, '\n') + 1;
	EXPECT_TRUE(strchr(p, '\n') && strstr(p, " busy_main\n") &&
		    strstr(p, " busy_main\n") < strchr(p, '\n')) TH_LOG("%.200s", p);
}

/*
 * --call-graph dwarf: user-mode samples carry user registers and 4 KiB of
 * user stack (perf 6.1 does not unwind this static binary further than
 * the sampled function, so only the recording is checked; the report is
 * read without inline expansion, which needs addr2line, not in the guest).
 */
TEST_F_TIMEOUT(tool, dwarf_call_graph_records_user_stack, TMO)
{
	char line[256];

#if defined(__aarch64__)
	/*
	 * With SVE, perf 6.1 adds VG (an extended register) to every event's
	 * user registers once a cycles event takes it, and a software PMU has
	 * no extended registers: "cpu-clock:u: PMU Hardware doesn't support
	 * sampling", on the stock kernel as on ours. cycles:u instead took no
	 * sample at all in one run in three under QEMU's PMUv3.
	 */
	if (getauxval(AT_HWCAP) & HWCAP_SVE)
		SKIP(return, "perf 6.1 asks a software event for SVE's VG");
#endif
	ASSERT_EQ(0, sh(&self->out, REC " -e cpu-clock:u -F 500 --call-graph dwarf,4096 %s -- %s --busy 200",
			self->data, CG, exe)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, PERF " evlist -v -i %s", self->data))
		TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_lines(self->out, "REGS_USER|STACK_USER")) TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_lines(self->out, "sample_stack_user: 4096"));
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, REP, self->data)) TH_LOG("%s", self->out);
	first_report_line(self->out, line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, "busy_loop_fn")) TH_LOG("report:\n%s", self->out);
}

TEST_F_TIMEOUT(tool, page_faults_every_fault_sampled, TMO)
{
	char line[256];
	int n;

	ASSERT_EQ(0, sh(&self->out, REC " -e page-faults -c 1 -d -- %s --faults 300",
			self->data, exe)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, PERF " script -i %s -F ip,sym", self->data))
		TH_LOG("%s", self->out);
	n = count_lines(self->out, "fault_pages_fn");
	EXPECT_EQ(300, n) TH_LOG("%.3000s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, REP, self->data)) TH_LOG("%s", self->out);
	first_report_line(self->out, line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, "fault_pages_fn")) TH_LOG("report:\n%s", self->out);
}

TEST_F_TIMEOUT(tool, switch_events, TMO)
{
	int outs, ins;

	ASSERT_EQ(0, sh(&self->out, REC " --switch-events -e cpu-clock -- %s --sleepy 20",
			self->data, exe)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, PERF " script -i %s --show-switch-events", self->data))
		TH_LOG("%s", self->out);
	outs = count_lines(self->out, "PERF_RECORD_SWITCH OUT");
	ins = count_lines(self->out, "PERF_RECORD_SWITCH IN");
	EXPECT_LE(20, outs) TH_LOG("%.3000s", self->out);
	EXPECT_LE(20, ins);
}

TEST_F_TIMEOUT(tool, record_pid, TMO)
{
	char line[256];
	pid_t pid;

	/*
	 * Busy until killed below: perf record -p fails if the task is
	 * gone before it attaches, and a loaded host can make perf's
	 * start-up take seconds
	 */
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		execl(exe, "perf_tool", "--busy", "120000", NULL);
		_exit(127);
	}
	pt_sleep_ns(200000000);
	EXPECT_EQ(0, sh(&self->out, REC " -e cpu-clock -F 1000 -p %d -- sleep 1",
			self->data, pid)) TH_LOG("%s", self->out);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, REP, self->data)) TH_LOG("%s", self->out);
	first_report_line(self->out, line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, "busy_loop_fn")) TH_LOG("report:\n%s", self->out);
}

TEST_F_TIMEOUT(tool, record_system_wide, TMO)
{
	char line[256];

	if (!pt_can_count_kernel())
		SKIP(return, "perf record -a needs root");
	ASSERT_EQ(0, sh(&self->out, REC " -a -e cpu-clock -F 1000 -- %s --busy 400",
			self->data, exe)) TH_LOG("%s", self->out);
	free(self->out);
	/* the other CPU idles: look at our workload's samples */
	ASSERT_EQ(0, sh(&self->out, REP " --comms perf_tool", self->data))
		TH_LOG("%s", self->out);
	first_report_line(self->out, line, sizeof(line));
	EXPECT_NE(NULL, strstr(line, "busy_loop_fn")) TH_LOG("report:\n%s", self->out);
}

TEST_F_TIMEOUT(tool, stat_interval, TMO)
{
	int n;

	ASSERT_EQ(0, sh(&self->out, PERF " stat -I 100 -e task-clock -- %s --busy 700", exe))
		TH_LOG("%s", self->out);
	/* one line per 100 ms interval (the last, after exit, may be empty) */
	n = count_lines(self->out, "task-clock") - count_lines(self->out, "not counted");
	EXPECT_LE(4, n) TH_LOG("%s", self->out);
	EXPECT_GE(1, count_lines(self->out, "not counted")) TH_LOG("%s", self->out);
}

TEST_F_TIMEOUT(tool, stat_repeat, TMO)
{
	ASSERT_EQ(0, sh(&self->out, PERF " stat -r 3 -e task-clock,page-faults -- %s --busy 50",
			exe)) TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_lines(self->out, "(3 runs)")) TH_LOG("%s", self->out);
	/*
	 * task-clock and the elapsed time with their spread (page-faults
	 * too, unless all three runs faulted exactly as often)
	 */
	EXPECT_LE(2, count_lines(self->out, "+-")) TH_LOG("%s", self->out);
}

TEST_F_TIMEOUT(tool, stat_group, TMO)
{
	const char *p;

	ASSERT_EQ(0, sh(&self->out, PERF " stat -x, -e '{task-clock,page-faults}' -- %s --faults 500",
			exe)) TH_LOG("%s", self->out);
	EXPECT_EQ(0, count_lines(self->out, "not counted")) TH_LOG("%s", self->out);
	EXPECT_EQ(0, count_lines(self->out, "not supported")) TH_LOG("%s", self->out);
	/* CSV: value,unit,event,... */
	p = strstr(self->out, ",page-faults");
	ASSERT_NE(NULL, p) TH_LOG("%s", self->out);
	while (p > self->out && p[-1] != '\n')
		p--;
	EXPECT_LE(500, atol(p)) TH_LOG("%s", self->out);
}

TEST_F_TIMEOUT(tool, stat_system_wide, TMO)
{
	if (!pt_can_count_kernel())
		SKIP(return, "perf stat -a needs root");
	ASSERT_EQ(0, sh(&self->out, PERF " stat -a -e cpu-clock,context-switches -- %s --sleepy 10",
			exe)) TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_lines(self->out, "cpu-clock")) TH_LOG("%s", self->out);
	EXPECT_EQ(0, count_lines(self->out, "not counted"));
}

/* perf top --stdio without a terminal, stopped with SIGINT after 30 s */
TEST_F_TIMEOUT(tool, top_stdio, TMO)
{
	int quiet[2];
	pid_t busy;

	if (!pt_can_count_kernel())
		SKIP(return, "perf top (system wide) needs root");
	/*
	 * With one vCPU under a loaded TCG host, perf top's start-up (proc
	 * synthesis, kallsyms) can outlast the 30 s run on any kernel; the
	 * smp2 boot checks it.
	 */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "perf top needs a second CPU to start in time under TCG");
	busy = fork();
	ASSERT_LE(0, busy);
	if (busy == 0) {
		execl(exe, "perf_tool", "--busy", "40000", NULL);
		_exit(127);
	}
	/*
	 * stdin a pipe that stays silent and never ends (this process holds
	 * its write end): on EOF perf top's key reader redraws its key menu
	 * in a loop and starves the sample reader on one CPU. A "sleep |"
	 * pipe could end first when the host is slow to start perf top.
	 */
	ASSERT_EQ(0, pipe(quiet));
	sh(&self->out, "sh -c 'timeout -s INT 30 " PERF
	   " top --stdio -e cpu-clock -d 5 -E 5 --comms perf_tool <&%d'",
	   quiet[0]);
	close(quiet[0]);
	close(quiet[1]);
	kill(busy, SIGKILL);
	waitpid(busy, NULL, 0);
	EXPECT_LE(1, count_lines(self->out, "PerfTop:")) TH_LOG("%.3000s", self->out);
	EXPECT_LE(1, count_lines(self->out, "busy_loop_fn")) TH_LOG("%.3000s", self->out);
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 3 && !strncmp(argv[1], "--", 2) && strcmp(argv[1], "--help"))
		return workload(argc, argv);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = 0;
	snprintf(tool_tmpdir, sizeof(tool_tmpdir), "/tmp/perf_tool.%d", getpid());
	mkdir(tool_tmpdir, 0777);
	n = test_harness_run(argc, argv);
	if (system("rm -rf /tmp/perf_tool.[0-9]*") < 0)
		n = n ? n : 1;
	return n;
}
