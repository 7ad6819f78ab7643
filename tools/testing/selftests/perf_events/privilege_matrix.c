// SPDX-License-Identifier: GPL-2.0
/*
 * The privilege matrix: perf_event_paranoid -1..3, times what is opened
 * (the caller itself, another task of its uid, a task of another uid, a
 * CPU, kernel samples, tracepoint raw data, a breakpoint on a kernel
 * address, a kprobe, an msr counter), times the one capability the
 * caller holds (none, CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYS_PTRACE). Every
 * cell must give the errno 6.12 gives (Documentation/admin-guide/
 * perf-security.rst; level 3 is Debian's SECURITY_PERF_EVENTS_RESTRICT),
 * measured on the stock kernel built from the same tree.
 *
 * Run as root: each cell is opened in a child that became uid 1000 and
 * kept only the capability of its column.
 */
#include "perf_test.h"
#include <linux/capability.h>
#include <linux/hw_breakpoint.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif

#define USER_UID	1000
#define OTHER_UID	1001

enum target {
	T_SELF, T_SAME_UID, T_OTHER_UID, T_CPU, T_KERNEL, T_TP_RAW,
	T_BP_KERNEL, T_KPROBE, T_MSR, NR_TARGETS
};

static const char * const target_name[NR_TARGETS] = {
	"self", "same-uid", "other-uid", "cpu", "kernel-samples",
	"tracepoint-raw", "bp-kernel", "kprobe", "msr",
};

enum cap { C_NONE, C_PERFMON, C_SYS_ADMIN, C_SYS_PTRACE, NR_CAPS };

static const char * const cap_name[NR_CAPS] = {
	"none", "CAP_PERFMON", "CAP_SYS_ADMIN", "CAP_SYS_PTRACE",
};

static const int cap_bit[NR_CAPS] = {
	-1, CAP_PERFMON, CAP_SYS_ADMIN, CAP_SYS_PTRACE,
};

#define NR_LEVELS	5	/* paranoid -1, 0, 1, 2, 3 */

/*
 * Expected errno per [level + 1][target][cap], as stock 6.12 answers:
 * the capability that lifts a paranoid rule is CAP_PERFMON (CAP_SYS_ADMIN
 * implies it); CAP_SYS_PTRACE lifts only the ptrace check on another
 * uid's task. Raw tracepoint data needs level -1 or CAP_PERFMON (EPERM);
 * a kprobe needs CAP_PERFMON whatever the level; a breakpoint on a
 * kernel address needs CAP_SYS_ADMIN (EPERM) once kernel counting is
 * allowed at all; an msr counter (not excluding the kernel) follows the
 * kernel rule. Level 3 lets only CAP_SYS_ADMIN open anything.
 */
static const int expected[NR_LEVELS][NR_TARGETS][NR_CAPS] = {
	/* -1 */ {
		[T_SELF]	= { 0, 0, 0, 0 },
		[T_SAME_UID]	= { 0, 0, 0, 0 },
		[T_OTHER_UID]	= { EACCES, 0, 0, 0 },
		[T_CPU]		= { 0, 0, 0, 0 },
		[T_KERNEL]	= { 0, 0, 0, 0 },
		[T_TP_RAW]	= { 0, 0, 0, 0 },
		[T_BP_KERNEL]	= { EPERM, EPERM, 0, EPERM },
		[T_KPROBE]	= { EACCES, 0, 0, EACCES },
		[T_MSR]		= { 0, 0, 0, 0 },
	},
	/* 0 */ {
		[T_SELF]	= { 0, 0, 0, 0 },
		[T_SAME_UID]	= { 0, 0, 0, 0 },
		[T_OTHER_UID]	= { EACCES, 0, 0, 0 },
		[T_CPU]		= { 0, 0, 0, 0 },
		[T_KERNEL]	= { 0, 0, 0, 0 },
		[T_TP_RAW]	= { EPERM, 0, 0, EPERM },
		[T_BP_KERNEL]	= { EPERM, EPERM, 0, EPERM },
		[T_KPROBE]	= { EACCES, 0, 0, EACCES },
		[T_MSR]		= { 0, 0, 0, 0 },
	},
	/* 1 */ {
		[T_SELF]	= { 0, 0, 0, 0 },
		[T_SAME_UID]	= { 0, 0, 0, 0 },
		[T_OTHER_UID]	= { EACCES, 0, 0, 0 },
		[T_CPU]		= { EACCES, 0, 0, EACCES },
		[T_KERNEL]	= { 0, 0, 0, 0 },
		[T_TP_RAW]	= { EPERM, 0, 0, EPERM },
		[T_BP_KERNEL]	= { EPERM, EPERM, 0, EPERM },
		[T_KPROBE]	= { EACCES, 0, 0, EACCES },
		[T_MSR]		= { 0, 0, 0, 0 },
	},
	/* 2 */ {
		[T_SELF]	= { 0, 0, 0, 0 },
		[T_SAME_UID]	= { 0, 0, 0, 0 },
		[T_OTHER_UID]	= { EACCES, 0, 0, 0 },
		[T_CPU]		= { EACCES, 0, 0, EACCES },
		[T_KERNEL]	= { EACCES, 0, 0, EACCES },
		[T_TP_RAW]	= { EPERM, 0, 0, EPERM },
		[T_BP_KERNEL]	= { EACCES, EPERM, 0, EACCES },
		[T_KPROBE]	= { EACCES, 0, 0, EACCES },
		[T_MSR]		= { EACCES, 0, 0, EACCES },
	},
	/* 3 */ {
		[T_SELF]	= { EACCES, EACCES, 0, EACCES },
		[T_SAME_UID]	= { EACCES, EACCES, 0, EACCES },
		[T_OTHER_UID]	= { EACCES, EACCES, 0, EACCES },
		[T_CPU]		= { EACCES, EACCES, 0, EACCES },
		[T_KERNEL]	= { EACCES, EACCES, 0, EACCES },
		[T_TP_RAW]	= { EACCES, EACCES, 0, EACCES },
		[T_BP_KERNEL]	= { EACCES, EACCES, 0, EACCES },
		[T_KPROBE]	= { EACCES, EACCES, 0, EACCES },
		[T_MSR]		= { EACCES, EACCES, 0, EACCES },
	},
};

/* What root looks up once for the cells: ids, types and an address. */
struct world {
	__u64 tp_id;
	int kprobe_type, msr_type;
	unsigned long kaddr;
	pid_t other;		/* a task of OTHER_UID, waiting */
	int other_go[2];
};

static int read_long(const char *path, long long *v)
{
	return pt_read_int_file(path, v);
}

static unsigned long kallsyms_addr(const char *name)
{
	char line[256], sym[200], t;
	unsigned long addr = 0, a;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx %c %199s", &a, &t, sym) == 3 &&
		    !strcmp(sym, name)) {
			addr = a;
			break;
		}
	}
	fclose(f);
	return addr;
}

/* Keep only @cap (or nothing) as uid USER_UID. */
static int become_user_with(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = { { 0 } };

	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setgroups(0, NULL) ||
	    setresgid(USER_UID, USER_UID, USER_UID) ||
	    setresuid(USER_UID, USER_UID, USER_UID))
		return -1;
	if (cap >= 0) {
		data[cap / 32].permitted = 1U << (cap % 32);
		data[cap / 32].effective = 1U << (cap % 32);
	}
	if (syscall(SYS_capset, &hdr, data))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

static int open_target(const struct world *w, enum target t, pid_t same)
{
	struct perf_event_attr attr;
	pid_t pid = 0;
	int cpu = -1, fd;

	pt_attr_sw(&attr, PERF_COUNT_SW_DUMMY);
	switch (t) {
	case T_SELF:
		break;
	case T_SAME_UID:
		pid = same;
		break;
	case T_OTHER_UID:
		pid = w->other;
		break;
	case T_CPU:
		pid = -1;
		cpu = pt_nth_cpu(0);
		break;
	case T_KERNEL:
		pt_attr_sw(&attr, PERF_COUNT_SW_CPU_CLOCK);
		attr.exclude_kernel = 0;
		attr.sample_period = 1000000;
		attr.sample_type = PERF_SAMPLE_IP;
		break;
	case T_TP_RAW:
		attr.type = PERF_TYPE_TRACEPOINT;
		attr.config = w->tp_id;
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_RAW;
		break;
	case T_BP_KERNEL:
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = PERF_TYPE_BREAKPOINT;
		attr.bp_type = HW_BREAKPOINT_W;
		attr.bp_addr = w->kaddr;
		attr.bp_len = HW_BREAKPOINT_LEN_8;
		attr.disabled = 1;
		break;
	case T_KPROBE:
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = w->kprobe_type;
		attr.config1 = (unsigned long)"do_sys_openat2";
		attr.disabled = 1;
		break;
	case T_MSR:
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = w->msr_type;
		attr.config = 0;	/* tsc */
		attr.disabled = 1;
		break;
	default:
		return EINVAL;
	}
	fd = sys_perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/*
 * One cell, in a child: become the user with @cap, start a task of that
 * same uid without capabilities (the same-uid target), open.
 */
static int cell(const struct world *w, enum target t, int cap)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int go[2], r;
		pid_t same;
		char c;

		if (pipe(go) || become_user_with(cap_bit[cap]))
			_exit(254);
		same = fork();
		if (same < 0)
			_exit(254);
		if (same == 0) {
			struct __user_cap_header_struct hdr = {
				.version = _LINUX_CAPABILITY_VERSION_3,
			};
			struct __user_cap_data_struct none[2] = { { 0 } };

			close(go[1]);
			if (syscall(SYS_capset, &hdr, none))
				_exit(1);
			_exit(read(go[0], &c, 1) < 0);
		}
		close(go[0]);
		r = open_target(w, t, same);
		close(go[1]);
		waitpid(same, NULL, 0);
		_exit(r);
	}
	return pt_wait_exit(pid);
}

FIXTURE(matrix) {
	struct world w;
	long long saved;
};

FIXTURE_SETUP(matrix)
{
	long long v;
	pid_t other;
	char c;

	if (geteuid() != 0)
		SKIP(return, "needs root to set perf_event_paranoid and uids");
	ASSERT_EQ(0, pt_read_int_file(PT_PARANOID, &self->saved));
	ASSERT_EQ(0, read_long("/sys/kernel/tracing/events/sched/sched_switch/id",
			       &v) == 0 ? 0 :
		  read_long("/sys/kernel/debug/tracing/events/sched/sched_switch/id",
			    &v));
	self->w.tp_id = v;
	ASSERT_EQ(0, read_long("/sys/bus/event_source/devices/kprobe/type", &v));
	self->w.kprobe_type = v;
	/* x86's msr PMU; where there is none (arm64) its cells are left out */
	self->w.msr_type = -1;
	if (!read_long("/sys/bus/event_source/devices/msr/type", &v))
		self->w.msr_type = v;
	self->w.kaddr = kallsyms_addr("jiffies_64");
	ASSERT_NE(0, self->w.kaddr);

	/* self is shared with the harness: the child must not write to it */
	ASSERT_EQ(0, pipe(self->w.other_go));
	other = fork();
	ASSERT_LE(0, other);
	if (other == 0) {
		close(self->w.other_go[1]);
		if (pt_drop_privs(OTHER_UID, OTHER_UID))
			_exit(1);
		_exit(read(self->w.other_go[0], &c, 1) < 0);
	}
	close(self->w.other_go[0]);
	self->w.other = other;
}

FIXTURE_TEARDOWN_PARENT(matrix)
{
	if (geteuid() != 0)
		return;
	pt_write_int_file(PT_PARANOID, self->saved);
	close(self->w.other_go[1]);
	waitpid(self->w.other, NULL, 0);
}

/*
 * Every cell, one line each where it differs; all must match. 180 cells
 * take 11-19 s, several times that on a loaded TCG host: the harness's
 * default 30 s would kill it with paranoid left at 3 for the tests after.
 */
TEST_F_TIMEOUT(matrix, every_cell_answers_as_6_12, 110)
{
	int level, t, cap, got, want, bad = 0, cells = 0;

	for (level = -1; level <= 3; level++) {
		ASSERT_EQ(0, pt_write_int_file(PT_PARANOID, level));
		for (t = 0; t < NR_TARGETS; t++) {
			if (t == T_MSR && self->w.msr_type < 0)
				continue;
			for (cap = 0; cap < NR_CAPS; cap++) {
				got = cell(&self->w, t, cap);
				want = expected[level + 1][t][cap];
#if defined(__aarch64__)
				/*
				 * arm64 takes no kernel breakpoint of a task
				 * (hw_breakpoint_arch_parse: EINVAL), once
				 * the paranoia check lets the open that far
				 */
				if (t == T_BP_KERNEL && want != EACCES)
					want = EINVAL;
#endif
				cells++;
				if (got == want)
					continue;
				bad++;
				ksft_print_msg("paranoid %d, %s, %s: %d (%s), expected %d (%s)\n",
					       level, target_name[t],
					       cap_name[cap], got,
					       got > 0 ? strerror(got) : "ok",
					       want,
					       want ? strerror(want) : "ok");
			}
		}
	}
	ksft_print_msg("%d cells, %d differ\n", cells, bad);
	EXPECT_EQ(0, bad);
}

TEST_HARNESS_MAIN
