// SPDX-License-Identifier: GPL-2.0
/*
 * End to end with a real BPF tracer: Debian's bpftrace (/usr/bin/bpftrace,
 * in the test initramfs) attaches its programs through perf events
 * (tracepoint, kprobe and uprobe PMUs, the cpu-clock of profile:) and
 * reads them back through the BPF maps and perf ring buffers.  The traced
 * process is this binary, run by bpftrace -c (which starts it only once
 * every probe is attached), as one of these workloads:
 *
 *   bpftrace_tool --write N    write(fd, buf, i) to /dev/null, i = 1 .. N
 *   bpftrace_tool --calls N    traced_fn(i) for i = 1 .. N
 *   bpftrace_tool --usdt N     N passes by an SDT probe with a semaphore
 *   bpftrace_tool --busy MS    MS ms of CPU in busy_loop_fn()
 *   bpftrace_tool --readzero MS  MS ms of 1 MiB reads from /dev/zero
 *
 * Every count and sum is exact: the programs filter on the workload's
 * pid (cpid).  The profile: tests sample, and check only that the hot
 * function dominates the stacks; their workload runs by itself, traced
 * with -p, so that it still lives when bpftrace prints (and symbolizes)
 * the stacks.  Fails if bpftrace is missing.  Slow under QEMU TCG (each
 * one-liner is compiled by LLVM in the guest).
 */
#pragma GCC optimize("no-omit-frame-pointer", "no-optimize-sibling-calls")
#include "perf_test.h"
#include "tool_sh.h"
#include <stdarg.h>
#include <sys/stat.h>

#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#define BPFTRACE	"/usr/bin/bpftrace"
#define TMO		600
/* the limit on one bpftrace run (compiling, attaching, the workload) */
#define RUN_LIMIT	"timeout -s KILL 300 "

static char exe[512];

/* The semaphore of SDT probe bpftrace_tool:tick (in section .probes). */
unsigned short bpftrace_tool_tick_semaphore __attribute__((section(".probes")));

static __attribute__((noipa)) long traced_fn(long i)
{
	return i * 3;
}

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

	/*
	 * The thread CPU clock is a system call, which on a busy TCG host
	 * took 11% of the samples with a check every 200000 iterations:
	 * check ten times less often, so the loop's own share stays ~99%.
	 */
	while (pt_thread_cpu_ns() - t0 < (__u64)ms * 1000000)
		busy_loop_fn(2000000);
	__asm__ volatile("" ::: "memory");
}

static __attribute__((noipa)) int read_zero_main(long ms)
{
	static char buf[1 << 20];
	__u64 t0 = pt_thread_cpu_ns();
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	while (pt_thread_cpu_ns() - t0 < (__u64)ms * 1000000)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			return 1;
	close(fd);
	return 0;
}

static int workload(char **argv)
{
	long n = atol(argv[2]), i, sum = 0, enabled = 0;
	static char buf[4096];
	int fd;

	if (!strcmp(argv[1], "--write")) {
		/* no other write(2) in this mode */
		fd = open("/dev/null", O_WRONLY);
		if (fd < 0 || n > (long)sizeof(buf))
			return 1;
		for (i = 1; i <= n; i++)
			if (write(fd, buf, i) != i)
				return 1;
		close(fd);
	} else if (!strcmp(argv[1], "--calls")) {
		for (i = 1; i <= n; i++)
			sum += traced_fn(i);
		printf("sum: %ld\n", sum);
	} else if (!strcmp(argv[1], "--usdt")) {
		for (i = 0; i < n; i++) {
			if (*(volatile unsigned short *)&bpftrace_tool_tick_semaphore)
				enabled++;
			STAP_PROBE1(bpftrace_tool, tick, i);
		}
		printf("enabled: %ld\n", enabled);
	} else if (!strcmp(argv[1], "--busy")) {
		busy_main(n);
	} else if (!strcmp(argv[1], "--readzero")) {
		return read_zero_main(n);
	} else {
		return 2;
	}
	fflush(stdout);
	return 0;
}

/* Lines of s that are exactly 'line'. */
static int count_exact_lines(const char *s, const char *line)
{
	size_t ll = strlen(line);
	int n = 0;

	while (s && *s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (len == ll && !memcmp(s, line, ll))
			n++;
		s = e ? e + 1 : NULL;
	}
	return n;
}

/*
 * Sum the counts of the stack map entries of bpftrace's text output
 *   @name[
 *       frame
 *       ...
 *   ]: count
 * into *total, and of those with a frame containing 'sym' into *with.
 */
static void stack_counts(const char *s, const char *name, const char *sym,
			 long *total, long *with)
{
	char open[64];
	const char *p = s, *end;

	*total = *with = 0;
	snprintf(open, sizeof(open), "%s[\n", name);
	while ((p = strstr(p, open))) {
		end = strstr(p, "]: ");
		if (!end)
			break;
		*total += atol(end + 3);
		if (memmem(p, end - p, sym, strlen(sym)))
			*with += atol(end + 3);
		p = end;
	}
}

FIXTURE(bpftrace) {
	char *out;
	char line[128];
};

FIXTURE_SETUP(bpftrace)
{
	self->out = NULL;
	/* a missing tool is a failure, not a skip */
	ASSERT_EQ(0, access(BPFTRACE, X_OK)) TH_LOG("no %s in the guest", BPFTRACE);
}

FIXTURE_TEARDOWN(bpftrace)
{
	free(self->out);
}

#define BT	RUN_LIMIT BPFTRACE " -q -e '%s' -c '%s %s'"

/* The exact text line "NAME: VALUE" of a printed map or value. */
#define EXPECT_MAP(name, fmt, ...) do {						\
	snprintf(self->line, sizeof(self->line), name ": " fmt, __VA_ARGS__);	\
	EXPECT_EQ(1, count_exact_lines(self->out, self->line))			\
		TH_LOG("no \"%s\" in:\n%s", self->line, self->out);		\
} while (0)

/*
 * The syscall tracepoints, N writes: those of write(2), counted, and the
 * raw ones with their fields.  (Without BTF, bpftrace reads a
 * tracepoint's fields through kernel headers, not in the guest, when
 * their types are the kernel's own: syscalls:sys_enter_write's size_t
 * count and the u64 it makes of every syscall argument.  The raw
 * tracepoints' long and unsigned long need none.)
 */
TEST_F_TIMEOUT(bpftrace, tracepoint_syscalls_exact, TMO)
{
	const int n = 500;
	char prog[1200];

	ASSERT_EQ(0, sh(&self->out, BT,
			"tracepoint:syscalls:sys_enter_write /pid == cpid/ { @enter = count(); } "
			"tracepoint:syscalls:sys_exit_write /pid == cpid/ { @exit = count(); }",
			exe, "--write 500")) TH_LOG("%s", self->out);
	EXPECT_MAP("@enter", "%d", n);
	EXPECT_MAP("@exit", "%d", n);
	free(self->out);
	snprintf(prog, sizeof(prog),
		 "tracepoint:raw_syscalls:sys_enter /pid == cpid && args->id == %d/ "
		 "{ @enter = count(); @count = sum(args->args[2]); } "
		 "tracepoint:raw_syscalls:sys_exit /pid == cpid && args->id == %d/ "
		 "{ @exit = count(); @ret = sum(args->ret); }", SYS_write, SYS_write);
	ASSERT_EQ(0, sh(&self->out, BT, prog, exe, "--write 500")) TH_LOG("%s", self->out);
	EXPECT_MAP("@enter", "%d", n);
	EXPECT_MAP("@exit", "%d", n);
	EXPECT_MAP("@count", "%d", n * (n + 1) / 2);
	EXPECT_MAP("@ret", "%d", n * (n + 1) / 2);
}

/* a kprobe and a kretprobe on /dev/null's write, with its argument */
TEST_F_TIMEOUT(bpftrace, kprobe_kretprobe_exact, TMO)
{
	const int n = 500;

	ASSERT_EQ(0, sh(&self->out, BT,
			"kprobe:write_null /pid == cpid/ "
			"{ @calls = count(); @count = sum(arg2); } "
			"kretprobe:write_null /pid == cpid/ "
			"{ @rets = count(); @ret = sum(retval); }",
			exe, "--write 500")) TH_LOG("%s", self->out);
	EXPECT_MAP("@calls", "%d", n);
	EXPECT_MAP("@rets", "%d", n);
	EXPECT_MAP("@count", "%d", n * (n + 1) / 2);
	EXPECT_MAP("@ret", "%d", n * (n + 1) / 2);
}

/* a uprobe and a uretprobe on a function of this binary */
TEST_F_TIMEOUT(bpftrace, uprobe_uretprobe_exact, TMO)
{
	const int n = 1000;
	char prog[1200];

	snprintf(prog, sizeof(prog),
		 "uprobe:%s:traced_fn /pid == cpid/ { @calls = count(); @args = sum(arg0); } "
		 "uretprobe:%s:traced_fn /pid == cpid/ { @rets = count(); @ret = sum(retval); }",
		 exe, exe);
	ASSERT_EQ(0, sh(&self->out, BT, prog, exe, "--calls 1000")) TH_LOG("%s", self->out);
	EXPECT_MAP("sum", "%d", 3 * n * (n + 1) / 2);
	EXPECT_MAP("@calls", "%d", n);
	EXPECT_MAP("@rets", "%d", n);
	EXPECT_MAP("@args", "%d", n * (n + 1) / 2);
	EXPECT_MAP("@ret", "%d", 3 * n * (n + 1) / 2);
}

/*
 * usdt: with its semaphore (the workload counts the passes that saw it
 * set: all of them); once bpftrace is gone, a new run sees it clear.
 */
TEST_F_TIMEOUT(bpftrace, usdt_semaphore_exact, TMO)
{
	const int n = 300;
	char prog[1200];

	snprintf(prog, sizeof(prog),
		 "usdt:%s:bpftrace_tool:tick /pid == cpid/ { @hits = count(); @args = sum(arg0); }",
		 exe);
	ASSERT_EQ(0, sh(&self->out, BT, prog, exe, "--usdt 300")) TH_LOG("%s", self->out);
	EXPECT_MAP("enabled", "%d", n);
	EXPECT_MAP("@hits", "%d", n);
	EXPECT_MAP("@args", "%d", n * (n - 1) / 2);
	free(self->out);
	ASSERT_EQ(0, sh(&self->out, "%s --usdt 300", exe)) TH_LOG("%s", self->out);
	EXPECT_MAP("enabled", "%d", 0);
}

/*
 * bpftrace -p on a workload that runs by itself (killed afterwards), its
 * program stopping after 3 s of profile:hz:99 samples of it.
 */
static int profile(char **out, const char *prog, const char *args)
{
	pid_t pid;
	int ret;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(exe, "bpftrace_tool", args, "30000", NULL);
		_exit(127);
	}
	ret = sh(out, RUN_LIMIT BPFTRACE " -q -p %d -e 'profile:hz:99 /pid == %d/ %s "
		 "interval:s:3 { exit(); }'", pid, pid, prog);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ret;
}

/* user stacks of busy_loop_fn() */
TEST_F_TIMEOUT(bpftrace, profile_ustack_hot_function, TMO)
{
	long total, with;

	ASSERT_EQ(0, profile(&self->out, "{ @u[ustack] = count(); }", "--busy"))
		TH_LOG("%s", self->out);
	stack_counts(self->out, "@u", "busy_loop_fn+", &total, &with);
	/* 99 Hz for 3 s */
	EXPECT_LE(200, total) TH_LOG("%s", self->out);
	EXPECT_LE(total * 9 / 10, with) TH_LOG("%ld of %ld:\n%s", with, total, self->out);
	stack_counts(self->out, "@u", "busy_main+", &total, &with);
	EXPECT_LE(total * 9 / 10, with) TH_LOG("%ld of %ld:\n%s", with, total, self->out);
}

/* kernel stacks of a workload that spends its time zeroing read(2) buffers */
TEST_F_TIMEOUT(bpftrace, profile_kstack_hot_function, TMO)
{
	long total, with;

	ASSERT_EQ(0, profile(&self->out, "{ @k[kstack] = count(); }", "--readzero"))
		TH_LOG("%s", self->out);
	stack_counts(self->out, "@k", "read_zero+", &total, &with);
	EXPECT_LE(200, total) TH_LOG("%s", self->out);
	/* (the samples in user mode have an empty kernel stack) */
	EXPECT_LE(total * 3 / 4, with) TH_LOG("%ld of %ld:\n%s", with, total, self->out);
	stack_counts(self->out, "@k", "ksys_read+", &total, &with);
	EXPECT_LE(total * 3 / 4, with) TH_LOG("%ld of %ld:\n%s", with, total, self->out);
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
	snprintf(tool_tmpdir, sizeof(tool_tmpdir), "/tmp/bpftrace_tool.%d", getpid());
	mkdir(tool_tmpdir, 0777);
	n = test_harness_run(argc, argv);
	if (system("rm -rf /tmp/bpftrace_tool.[0-9]*") < 0)
		n = n ? n : 1;
	return n;
}
