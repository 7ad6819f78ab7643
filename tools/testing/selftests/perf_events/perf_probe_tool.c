// SPDX-License-Identifier: GPL-2.0
/*
 * perf probe end to end: Debian's perf (/usr/bin/perf, in the test
 * initramfs) puts uprobes on this very binary through tracefs
 * (perf probe -x), then counts and records them as tracepoint events
 * (perf stat, perf record, perf script).  The binary re-executes itself
 * as the workload:
 *
 *   perf_probe_tool --calls N   probed_fn(i) for i = 1 .. N
 *   perf_probe_tool --usdt N    N passes by an SDT probe with a semaphore
 *
 * Every count is exact, and so are the sums of the probes' arguments
 * (fetched from registers: the binary has no debug info).  Root only, as
 * perf probe writes tracefs' uprobe_events.  Fails if perf is missing.
 */
#include "perf_test.h"
#include "tool_sh.h"
#include <ctype.h>
#include <stdarg.h>
#include <sys/stat.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#define PERF		"/usr/bin/perf"
#define TMO		600
/* the group perf probe names after the binary */
#define GROUP		"probe_perf_probe_tool"
#define N_CALLS		1000
/* the first argument's and the return value's registers, perf probe's names */
#if defined(__aarch64__)
#define ARG0_REG	"%x0"
#define RET_REG		"%x0"
#else
#define ARG0_REG	"%di"
#define RET_REG		"%ax"
#endif
#define N_TICKS		300

static char exe[512];

/* The semaphore of SDT probe perf_probe_tool:tick (in section .probes). */
unsigned short perf_probe_tool_tick_semaphore __attribute__((section(".probes")));

static __attribute__((noipa)) long probed_fn(long i)
{
	return i * 3;
}

static int workload(char **argv)
{
	long n = atol(argv[2]), i, sum = 0, enabled = 0;

	if (!strcmp(argv[1], "--calls")) {
		for (i = 1; i <= n; i++)
			sum += probed_fn(i);
		printf("sum: %ld\n", sum);
	} else if (!strcmp(argv[1], "--usdt")) {
		for (i = 0; i < n; i++) {
			if (*(volatile unsigned short *)&perf_probe_tool_tick_semaphore)
				enabled++;
			STAP_PROBE1(perf_probe_tool, tick, i);
		}
		printf("enabled: %ld\n", enabled);
	} else {
		return 2;
	}
	return 0;
}

/* The sum of the numbers after every "key" in s. */
static long sum_after(const char *s, const char *key)
{
	long sum = 0;

	while ((s = strstr(s, key))) {
		s += strlen(key);
		sum += strtol(s, NULL, 0);
	}
	return sum;
}

/* The count of event 'ev' in perf stat -x, output ("1000,,ev,..."). */
static long stat_count(const char *s, const char *ev)
{
	char key[128];
	const char *p;

	snprintf(key, sizeof(key), ",,%s,", ev);
	p = strstr(s, key);
	if (!p)
		return -1;
	while (p > s && p[-1] != '\n')
		p--;
	return isdigit(*p) ? atol(p) : -1;
}

FIXTURE(probe) {
	char data[300];
	char *out;
};

FIXTURE_SETUP(probe)
{
	self->out = NULL;
	/* a missing tool is a failure, not a skip */
	ASSERT_EQ(0, access(PERF, X_OK)) TH_LOG("no %s in the guest", PERF);
	snprintf(self->data, sizeof(self->data), "%s/perf.data", tool_tmpdir);
}

FIXTURE_TEARDOWN(probe)
{
	char *out;

	/* every probe of the group goes, also after a failure */
	sh(&out, PERF " probe -q -d '" GROUP ":*'");
	free(out);
	free(self->out);
	unlink(self->data);
}

#define ADD_PROBE(spec) do {							\
	ASSERT_EQ(0, sh(&self->out, PERF " probe -x %s '%s'", exe, spec))	\
		TH_LOG("%s", self->out);					\
	free(self->out);							\
	self->out = NULL;							\
} while (0)

/* perf stat of a uprobe and a uretprobe: exact counts */
TEST_F_TIMEOUT(probe, stat_entry_and_return_exact, TMO)
{
	ADD_PROBE("probed_fn");
	ADD_PROBE("probed_fn%return");
	ASSERT_EQ(0, sh(&self->out, PERF " stat -x, -e " GROUP ":probed_fn -e "
			GROUP ":probed_fn__return -- %s --calls %d", exe, N_CALLS))
		TH_LOG("%s", self->out);
	EXPECT_EQ(N_CALLS, stat_count(self->out, GROUP ":probed_fn")) TH_LOG("%s", self->out);
	EXPECT_EQ(N_CALLS, stat_count(self->out, GROUP ":probed_fn__return"))
		TH_LOG("%s", self->out);
	/* the probes are on the file: a second run counts the same */
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, PERF " stat -x, -e " GROUP ":probed_fn -- %s --calls 7",
			exe)) TH_LOG("%s", self->out);
	EXPECT_EQ(7, stat_count(self->out, GROUP ":probed_fn")) TH_LOG("%s", self->out);
}

/*
 * perf record of the probes with arguments from registers: one sample per
 * hit, and the argument and return values of every one of them.
 */
TEST_F_TIMEOUT(probe, record_arguments_exact, TMO)
{
	const long n = N_CALLS;

	ADD_PROBE("probed_fn i=" ARG0_REG ":s64");
	ADD_PROBE("probed_fn%return r=" RET_REG ":s64");
	ASSERT_EQ(0, sh(&self->out, PERF " record -q -o %s -e " GROUP ":probed_fn -e "
			GROUP ":probed_fn__return -- %s --calls %ld", self->data, exe, n))
		TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, PERF " script -i %s -F event,trace", self->data))
		TH_LOG("%s", self->out);
	EXPECT_EQ(n, count_lines(self->out, GROUP ":probed_fn:")) TH_LOG("%.3000s", self->out);
	EXPECT_EQ(n, count_lines(self->out, GROUP ":probed_fn__return:"))
		TH_LOG("%.3000s", self->out);
	EXPECT_EQ(n * (n + 1) / 2, sum_after(self->out, " i=")) TH_LOG("%.3000s", self->out);
	EXPECT_EQ(3 * n * (n + 1) / 2, sum_after(self->out, " r=")) TH_LOG("%.3000s", self->out);
}

/*
 * perf probe on the binary's SDT note (perf buildid-cache --add scans
 * it): perf probe sets the semaphore, through the uprobe's reference
 * counter, only while the event is in use.
 */
TEST_F_TIMEOUT(probe, sdt_semaphore_exact, TMO)
{
	ASSERT_EQ(0, sh(&self->out, PERF " buildid-cache --add %s", exe)) TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, PERF " probe -x %s 'sdt_perf_probe_tool:tick' 2>&1", exe))
		TH_LOG("%s", self->out);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, PERF " stat -x, -e sdt_perf_probe_tool:tick -- %s --usdt %d",
			exe, N_TICKS)) TH_LOG("%s", self->out);
	EXPECT_EQ(N_TICKS, stat_count(self->out, "sdt_perf_probe_tool:tick")) TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_lines(self->out, "enabled: 300")) TH_LOG("%s", self->out);
	/* the probe is defined but not in use: the semaphore stays clear */
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, "%s --usdt %d", exe, N_TICKS)) TH_LOG("%s", self->out);
	EXPECT_EQ(1, count_lines(self->out, "enabled: 0")) TH_LOG("%s", self->out);
	free(self->out);
	self->out = NULL;
	EXPECT_EQ(0, sh(&self->out, PERF " probe -q -d 'sdt_perf_probe_tool:*'"))
		TH_LOG("%s", self->out);
}

int main(int argc, char **argv)
{
	ssize_t n;

	if (argc == 3 && !strncmp(argv[1], "--", 2) && strcmp(argv[1], "--help"))
		return workload(argv);
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = 0;
	snprintf(tool_tmpdir, sizeof(tool_tmpdir), "/tmp/perf_probe_tool.%d", getpid());
	mkdir(tool_tmpdir, 0777);
	n = test_harness_run(argc, argv);
	if (system("rm -rf /tmp/perf_probe_tool.[0-9]*") < 0)
		n = n ? n : 1;
	return n;
}
