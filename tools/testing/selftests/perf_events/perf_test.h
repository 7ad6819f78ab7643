/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers for the perf_event counting-ABI selftests.
 *
 * Everything here is deliberately small: a raw perf_event_open() wrapper,
 * attr builders for software events, read helpers, CPU pinning and a
 * "touch N fresh anonymous pages" helper used for exact page-fault counts.
 */
#ifndef PERF_TEST_H
#define PERF_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"

/* Fallbacks so the tests build against older installed uapi headers. */
#ifndef PERF_ATTR_SIZE_VER6
#define PERF_ATTR_SIZE_VER6	120
#endif
#ifndef PERF_ATTR_SIZE_VER7
#define PERF_ATTR_SIZE_VER7	128
#endif
#ifndef PERF_ATTR_SIZE_VER8
#define PERF_ATTR_SIZE_VER8	136
#endif
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST	(1U << 4)
#endif
#ifndef PERF_FLAG_FD_CLOEXEC
#define PERF_FLAG_FD_CLOEXEC	(1UL << 3)
#endif
#ifndef PR_TASK_PERF_EVENTS_DISABLE
#define PR_TASK_PERF_EVENTS_DISABLE	31
#define PR_TASK_PERF_EVENTS_ENABLE	32
#endif
#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE		15
#endif

/* The attr size of the 6.12 ABI (VER8, "config3"). */
#define PT_ATTR_SIZE_612	PERF_ATTR_SIZE_VER8
/* Software event ids of the 6.12 ABI: 0 .. PERF_COUNT_SW_CGROUP_SWITCHES. */
#define PT_SW_CGROUP_SWITCHES	11
#define PT_SW_MAX_612		12

/* Offsets inside struct perf_event_attr (fixed by the ABI). */
#define PT_OFF_SIZE		4
#define PT_OFF_READ_FORMAT	32
#define PT_OFF_FLAGS		40
#define PT_OFF_CONFIG2		64
#define PT_OFF_RESERVED_2	110	/* __u16 __reserved_2 */
#define PT_OFF_RESERVED_3	116	/* __u32 __reserved_3 (aux_action since 6.13) */
#define PT_OFF_CONFIG3		128

/*
 * An attr buffer larger than any struct perf_event_attr a header may
 * define, for size/tail tests. Always accessed through .attr or .bytes.
 */
union pt_attr_buf {
	struct perf_event_attr attr;
	unsigned char bytes[8192];
	__u64 align;
};

static inline int sys_perf_event_open(void *attr, pid_t pid, int cpu,
				      int group_fd, unsigned long flags)
{
	return syscall(__NR_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/*
 * A disabled, counting software event that any user may open on itself at
 * perf_event_paranoid=2 (exclude_kernel=1, exclude_hv=1).
 */
static inline void pt_attr_sw(struct perf_event_attr *attr, __u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_SOFTWARE;
	attr->config = config;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

/* Open a disabled user-only software counter on self, any cpu. */
static inline int pt_open_sw(__u64 config, int group_fd, __u64 read_format)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	attr.read_format = read_format;
	return sys_perf_event_open(&attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Read exactly one u64 (read_format == 0). Returns ~0ULL on error. */
static inline __u64 pt_read1(int fd)
{
	__u64 v;

	if (read(fd, &v, sizeof(v)) != sizeof(v))
		return ~0ULL;
	return v;
}

struct pt_val3 {
	__u64 value;
	__u64 enabled;
	__u64 running;
};

/* For read_format = TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING. */
static inline int pt_read3(int fd, struct pt_val3 *v)
{
	return read(fd, v, sizeof(*v)) == sizeof(*v) ? 0 : -1;
}

static inline int pt_ioctl(int fd, unsigned long req)
{
	return ioctl(fd, req, 0);
}

static inline int pt_read_int_file(const char *path, long long *val)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*val = strtoll(buf, NULL, 0);
	return 0;
}

/* Write a string to a file; returns 0 or -errno. */
static inline int pt_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static inline int pt_write_int_file(const char *path, long long val)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%lld\n", val);
	return pt_write_file(path, buf);
}

#define PT_PARANOID "/proc/sys/kernel/perf_event_paranoid"

static inline int pt_paranoid(void)
{
	long long v = 2;

	pt_read_int_file(PT_PARANOID, &v);
	return (int)v;
}

/* True if this process may count kernel-side software events on itself. */
static inline bool pt_can_count_kernel(void)
{
	return geteuid() == 0 || pt_paranoid() < 2;
}

static inline int pt_nr_cpus(void)
{
	return (int)sysconf(_SC_NPROCESSORS_ONLN);
}

/* Pin the calling thread/process to one CPU. */
static inline int pt_pin_cpu(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}

/* Online CPU number 'idx' (0-based) of the caller's affinity mask, or -1. */
static inline int pt_nth_cpu(int idx)
{
	cpu_set_t set;
	int cpu;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && idx-- == 0)
			return cpu;
	return -1;
}

static inline long pt_page_size(void)
{
	return sysconf(_SC_PAGESIZE);
}

/*
 * Map npages of fresh anonymous private memory with THP disabled, so that
 * touching each page once causes exactly one minor fault per page.
 */
static inline char *pt_map_pages(int npages)
{
	long ps = pt_page_size();
	char *p = mmap(NULL, npages * ps, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	madvise(p, npages * ps, MADV_NOHUGEPAGE);
	return p;
}

/* Write one byte to each page (one write fault per untouched page). */
static inline void pt_touch(char *p, int npages)
{
	long ps = pt_page_size();
	int i;

	for (i = 0; i < npages; i++)
		((volatile char *)p)[i * ps] = 1;
}

static inline void pt_unmap_pages(char *p, int npages)
{
	munmap(p, npages * pt_page_size());
}

/* Map + touch + unmap N fresh pages: exactly N user page faults. */
static inline int pt_fault_pages(int npages)
{
	char *p = pt_map_pages(npages);

	if (!p)
		return -1;
	pt_touch(p, npages);
	pt_unmap_pages(p, npages);
	return 0;
}

static inline __u64 pt_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline __u64 pt_thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Burn 'ns' nanoseconds of this thread's own CPU time in user space
 * (not wall time, so that the amount of work done is the same on a
 * loaded machine).
 */
static inline void pt_spin_ns(__u64 ns)
{
	__u64 start = pt_thread_cpu_ns();

	while (pt_thread_cpu_ns() - start < ns)
		;
}

/*
 * Count exactly npages user page faults on fd: run ENABLE(ioc_arg) / touch
 * npages fresh pages / DISABLE(ioc_arg). The identical code path is first
 * run once with DISABLE in place of ENABLE on a throw-away mapping, so that
 * text, stack and vDSO faults of the path itself (e.g. after fork() left
 * the text unmapped in a test child) happen outside the counted window.
 */
static __attribute__((noinline, unused)) int pt_touch_window(int fd, int npages,
						      unsigned long ioc_arg)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		char *p = pt_map_pages(npages);

		if (!p)
			return -1;
		if (ioctl(fd, pass ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE,
			  ioc_arg))
			return -1;
		pt_touch(p, npages);
		/*
		 * Keep the window open for a few ms of CPU time: under TCG the
		 * kernel's clock can stand still for up to a tick, and tests
		 * assert that running time advanced.
		 */
		pt_spin_ns(2000000);
		if (ioctl(fd, PERF_EVENT_IOC_DISABLE, ioc_arg))
			return -1;
		pt_unmap_pages(p, npages);
	}
	return 0;
}

/* Sleep without burning CPU. */
static inline void pt_sleep_ns(__u64 ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/*
 * Drop to an unprivileged uid/gid in the current (already forked) process.
 * PR_SET_DUMPABLE is restored so that same-uid tasks can attach to us.
 */
static inline int pt_drop_privs(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) && geteuid() == 0)
		return -1;
	if (setresgid(gid, gid, gid))
		return -1;
	if (setresuid(uid, uid, uid))
		return -1;
	return prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
}

/* Wait for a child and return its exit status, or -1 if it did not exit. */
static inline int pt_wait_exit(pid_t pid)
{
	int status;

	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (!WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

#endif /* PERF_TEST_H */
