// SPDX-License-Identifier: GPL-2.0
/*
 * Who may open what, per /proc/sys/kernel/perf_event_paranoid:
 *
 *   -1, 0  unprivileged users may open per-CPU events
 *   1      ... but not per-CPU events; kernel counting on own tasks is ok
 *   2      ... and only user-space counting (exclude_kernel=1)
 *   3      (Debian CONFIG_SECURITY_PERF_EVENTS_RESTRICT) no
 *          unprivileged perf_event_open() at all
 *
 * plus the ptrace-style check for attaching to another task. Needs root:
 * every test changes the sysctl (restored by the fixture teardown, which
 * runs in the harness process even if the test dies) and drops to
 * uid/gid 1000 in a forked child.
 */
#include "perf_test.h"
#include <linux/capability.h>

#define TEST_UID	1000
#define TEST_GID	1000

FIXTURE(paranoid) {
	long long saved;
	bool have;
};

FIXTURE_SETUP(paranoid)
{
	if (geteuid() != 0)
		SKIP(return, "needs root to change perf_event_paranoid and uids");
	self->have = pt_read_int_file(PT_PARANOID, &self->saved) == 0;
	ASSERT_TRUE(self->have);
}

FIXTURE_TEARDOWN_PARENT(paranoid)
{
	if (self->have)
		pt_write_int_file(PT_PARANOID, self->saved);
}

static int set_paranoid(int level)
{
	return pt_write_int_file(PT_PARANOID, level);
}

/* Open a software dummy event; 0 on success else errno. */
static int try_open(pid_t pid, int cpu, bool exclude_kernel, bool exclude_user)
{
	struct perf_event_attr attr;
	int fd;

	pt_attr_sw(&attr, PERF_COUNT_SW_DUMMY);
	attr.exclude_kernel = exclude_kernel;
	attr.exclude_user = exclude_user;
	fd = sys_perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

struct open_args {
	pid_t pid;
	int cpu;
	bool exclude_kernel;
	bool exclude_user;
	bool target_own_child;		/* pid: fork a child of the user */
	bool child_undumpable;		/* that child clears PR_SET_DUMPABLE */
};

/*
 * In a forked child running as TEST_UID, try the open described by *a;
 * returns 0 on success, the errno on failure, or 255 if the child
 * could not be set up.
 */
static int open_as_user(const struct open_args *a)
{
	pid_t pid = fork();

	if (pid < 0)
		return 255;
	if (pid == 0) {
		pid_t target = a->pid;
		int go[2], r;

		if (pt_drop_privs(TEST_UID, TEST_GID))
			_exit(255);
		if (a->target_own_child) {
			char c;

			if (pipe(go))
				_exit(255);
			target = fork();
			if (target < 0)
				_exit(255);
			if (target == 0) {
				if (a->child_undumpable)
					prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
				close(go[1]);
				c = 'r';
				/* wait until the parent is done */
				if (read(go[0], &c, 1) < 0)
					_exit(1);
				_exit(0);
			}
			/* give the child time to clear dumpable */
			pt_sleep_ns(20000000);
		}
		r = try_open(target, a->cpu, a->exclude_kernel, a->exclude_user);
		if (a->target_own_child) {
			kill(target, SIGKILL);
			waitpid(target, NULL, 0);
		}
		_exit(r);
	}
	return pt_wait_exit(pid);
}

#define USER_SELF(_ek)		(&(struct open_args){ .pid = 0, .cpu = -1, .exclude_kernel = (_ek) })
#define USER_CPU(_cpu, _ek)	(&(struct open_args){ .pid = -1, .cpu = (_cpu), .exclude_kernel = (_ek) })

TEST_F(paranoid, level_2_user_may_count_user_space_of_itself)
{
	ASSERT_EQ(0, set_paranoid(2));
	EXPECT_EQ(0, open_as_user(USER_SELF(true)));
	EXPECT_EQ(0, open_as_user(&(struct open_args){ .pid = 0, .cpu = pt_nth_cpu(0),
						       .exclude_kernel = true }));
}

TEST_F(paranoid, level_2_user_counting_kernel_fails_eacces)
{
	ASSERT_EQ(0, set_paranoid(2));
	EXPECT_EQ(EACCES, open_as_user(USER_SELF(false)));
	/* kernel-only is still kernel counting */
	EXPECT_EQ(EACCES, open_as_user(&(struct open_args){ .pid = 0, .cpu = -1,
							    .exclude_user = true }));
}

TEST_F(paranoid, level_2_user_per_cpu_event_fails_eacces)
{
	ASSERT_EQ(0, set_paranoid(2));
	EXPECT_EQ(EACCES, open_as_user(USER_CPU(pt_nth_cpu(0), true)));
}

TEST_F(paranoid, level_1_user_may_count_kernel_of_itself)
{
	ASSERT_EQ(0, set_paranoid(1));
	EXPECT_EQ(0, open_as_user(USER_SELF(false)));
	EXPECT_EQ(0, open_as_user(USER_SELF(true)));
}

TEST_F(paranoid, level_1_user_per_cpu_event_fails_eacces)
{
	ASSERT_EQ(0, set_paranoid(1));
	EXPECT_EQ(EACCES, open_as_user(USER_CPU(pt_nth_cpu(0), true)));
	EXPECT_EQ(EACCES, open_as_user(USER_CPU(pt_nth_cpu(0), false)));
}

TEST_F(paranoid, level_0_user_may_open_per_cpu_events)
{
	ASSERT_EQ(0, set_paranoid(0));
	EXPECT_EQ(0, open_as_user(USER_CPU(pt_nth_cpu(0), true)));
	EXPECT_EQ(0, open_as_user(USER_CPU(pt_nth_cpu(0), false)));
}

TEST_F(paranoid, level_minus_1_user_may_open_per_cpu_events)
{
	ASSERT_EQ(0, set_paranoid(-1));
	EXPECT_EQ(0, open_as_user(USER_CPU(pt_nth_cpu(0), false)));
	EXPECT_EQ(0, open_as_user(USER_SELF(false)));
}

/* Is CONFIG_SECURITY_PERF_EVENTS_RESTRICT known to be off? */
static bool restrict_config_known_off(void)
{
	char line[256];
	bool off = false;
	FILE *f = popen("(zcat /proc/config.gz || cat /boot/config-$(uname -r)) 2>/dev/null"
			" | grep -c '^CONFIG_SECURITY_PERF_EVENTS_RESTRICT=y'", "r");

	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		off = atoi(line) == 0;
	pclose(f);
	/* "0" only counts if a config was actually readable */
	if (off && access("/proc/config.gz", R_OK) &&
	    system("test -r /boot/config-$(uname -r)") != 0)
		off = false;
	return off;
}

TEST_F(paranoid, level_3_user_open_fails_eacces)
{
	int r;

	ASSERT_EQ(0, set_paranoid(3));
	r = open_as_user(USER_SELF(true));
	if (r == 0 && restrict_config_known_off())
		SKIP(return, "kernel lacks CONFIG_SECURITY_PERF_EVENTS_RESTRICT: level 3 acts as 2");
	EXPECT_EQ(EACCES, r);
}

TEST_F(paranoid, user_attaching_to_another_users_task_fails_eacces)
{
	int levels[] = { 2, -1 };
	unsigned int i;
	pid_t victim = fork();

	ASSERT_LE(0, victim);
	if (victim == 0) {
		/* a task of a different uid, dumpable */
		if (pt_drop_privs(TEST_UID + 1, TEST_GID + 1))
			_exit(1);
		for (;;)
			pause();
	}
	pt_sleep_ns(20000000);
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		ASSERT_EQ(0, set_paranoid(levels[i]));
		EXPECT_EQ(EACCES, open_as_user(&(struct open_args){
			.pid = victim, .cpu = -1, .exclude_kernel = true }))
			TH_LOG("paranoid %d", levels[i]);
	}
	/* and root's init */
	EXPECT_EQ(EACCES, open_as_user(&(struct open_args){
		.pid = 1, .cpu = -1, .exclude_kernel = true }));
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
}

TEST_F(paranoid, user_may_attach_to_its_own_child)
{
	ASSERT_EQ(0, set_paranoid(2));
	EXPECT_EQ(0, open_as_user(&(struct open_args){
		.cpu = -1, .exclude_kernel = true, .target_own_child = true }));
}

TEST_F(paranoid, user_attaching_to_own_undumpable_task_fails_eacces)
{
	ASSERT_EQ(0, set_paranoid(2));
	EXPECT_EQ(EACCES, open_as_user(&(struct open_args){
		.cpu = -1, .exclude_kernel = true, .target_own_child = true,
		.child_undumpable = true }));
}

TEST_F(paranoid, user_attaching_to_nonexistent_pid_fails_esrch)
{
	long long pid_max = 32768;

	ASSERT_EQ(0, pt_read_int_file("/proc/sys/kernel/pid_max", &pid_max));
	ASSERT_EQ(0, set_paranoid(2));
	EXPECT_EQ(ESRCH, open_as_user(&(struct open_args){
		.pid = (pid_t)pid_max, .cpu = -1, .exclude_kernel = true }));
}

TEST_F(paranoid, kernel_counting_permission_is_checked_before_the_pid_lookup)
{
	long long pid_max = 32768;

	ASSERT_EQ(0, pt_read_int_file("/proc/sys/kernel/pid_max", &pid_max));
	ASSERT_EQ(0, set_paranoid(2));
	EXPECT_EQ(EACCES, open_as_user(&(struct open_args){
		.pid = (pid_t)pid_max, .cpu = -1, .exclude_kernel = false }));
}

TEST_F(paranoid, root_may_do_everything_at_level_2)
{
	ASSERT_EQ(0, set_paranoid(2));
	EXPECT_EQ(0, try_open(0, -1, false, false));
	EXPECT_EQ(0, try_open(-1, pt_nth_cpu(0), false, false));
	EXPECT_EQ(0, try_open(1, -1, false, false));
}

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

/* In a child: become TEST_UID keeping only CAP_PERFMON, then open per-CPU. */
TEST_F(paranoid, cap_perfmon_user_may_open_per_cpu_events_at_level_2)
{
	pid_t pid;

	ASSERT_EQ(0, set_paranoid(2));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct __user_cap_header_struct hdr = {
			.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0,
		};
		struct __user_cap_data_struct data[2] = { { 0 } };

		if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) ||
		    setgroups(0, NULL) || setresgid(TEST_GID, TEST_GID, TEST_GID) ||
		    setresuid(TEST_UID, TEST_UID, TEST_UID))
			_exit(255);
		data[CAP_PERFMON / 32].permitted = 1U << (CAP_PERFMON % 32);
		data[CAP_PERFMON / 32].effective = 1U << (CAP_PERFMON % 32);
		if (syscall(SYS_capset, &hdr, data))
			_exit(254);
		_exit(try_open(-1, pt_nth_cpu(0), false, false));
	}
	EXPECT_EQ(0, pt_wait_exit(pid));
}

TEST_HARNESS_MAIN
