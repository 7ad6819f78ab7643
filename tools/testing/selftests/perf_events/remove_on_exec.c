// SPDX-License-Identifier: GPL-2.0
/*
 * attr.remove_on_exec: an event opened on a task stops following it at
 * its next execve(). The count stays readable and final, and the fd hangs
 * up (POLLHUP) like that of a task that exited.
 */
#include "perf_test.h"

#include <poll.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define NPAGES		16
#define EXEC_PAGES	256

/* after exec: fault many fresh pages, which must not be counted */
static int exec_child_main(void)
{
	return pt_fault_pages(EXEC_PAGES) ? 1 : 0;
}

TEST(remove_on_exec_event_stops_counting_at_exec_and_hangs_up)
{
	struct perf_event_attr attr;
	int go[2], fd, status;
	struct pollfd pfd;
	char c = 0;
	__u64 count;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		if (pt_fault_pages(NPAGES))
			_exit(3);
		execl("/proc/self/exe", "remove_on_exec", "--exec-child",
		      (char *)NULL);
		_exit(4);
	}

	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	attr.remove_on_exec = 1;
	fd = sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);

	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	count = pt_read1(fd);
	/* the pages before exec, and what exec itself faults in before the
	 * new image runs; none of the EXEC_PAGES after it
	 */
	EXPECT_LE(NPAGES, count);
	EXPECT_GT(NPAGES + EXEC_PAGES / 2, count);

	pfd.fd = fd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLHUP);
	close(fd);
	close(go[0]);
	close(go[1]);
}

TEST(event_without_remove_on_exec_keeps_counting_after_exec)
{
	struct perf_event_attr attr;
	int go[2], fd, status;
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		execl("/proc/self/exe", "remove_on_exec", "--exec-child",
		      (char *)NULL);
		_exit(4);
	}

	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	fd = sys_perf_event_open(&attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	EXPECT_LE(EXEC_PAGES, pt_read1(fd));
	close(fd);
	close(go[0]);
	close(go[1]);
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--exec-child"))
		return exec_child_main();
	return test_harness_run(argc, argv);
}
