// SPDX-License-Identifier: GPL-2.0
/*
 * The scale metrics of perf-bench: how a path's cost grows with the
 * number of events, cgroups, threads or CPUs. Each runs at a few sizes
 * (struct metric's size), and bench-report.py prints the cost per added
 * unit beside the ratio.
 *
 *   cgroup_switch_N    two tasks of two cgroups ping-ponging on CPU 0
 *                      while N cgroups each have two system-wide events
 *                      on CPU 0 (perf stat -a -G on a busy server)
 *   open_close_busy_N  open_close_1 with N enabled events already open on
 *                      the task and N on CPU 0
 *   threads_T, inherit_threads_T
 *                      start and join T threads, without and with 8
 *                      inherited counters (perf stat of a parallel build)
 *   syswide_stat       perf stat -a: 8 events opened, enabled, read and
 *                      closed on every CPU (the row is named after the
 *                      CPU count: bench.sh boots 2, 4 and 8 CPUs)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perf-bench.h"

#define CG_ROOT	"/sys/fs/cgroup"

char pingpong_cgroup[64];

/*
 * cgroup v2 at CG_ROOT (the bench initramfs mounts only sysfs), with a
 * controller enabled in the root's subtree_control as systemd does: the
 * implicit perf_event controller reaches new cgroups only after the
 * root's control masks were computed once.
 */
static int cg_mount(void)
{
	int fd, ok;

	if (access(CG_ROOT "/cgroup.procs", F_OK) &&
	    mount("none", CG_ROOT, "cgroup2", 0, NULL))
		return fail("mount cgroup2 on " CG_ROOT ": %s", strerror(errno));
	fd = open(CG_ROOT "/cgroup.subtree_control", O_WRONLY | O_CLOEXEC);
	ok = fd >= 0 && write(fd, "+pids", 5) == 5;
	if (fd >= 0)
		close(fd);
	return ok ? 0 : fail("enable pids in " CG_ROOT ": %s", strerror(errno));
}

/**
 * cg_enter - move the calling process into the cgroup directory @dir
 * @dir: its path
 *
 * Return: 0, or -1 with errbuf set.
 */
int cg_enter(const char *dir)
{
	char path[128], pid[16];
	int fd, len, ok;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	len = snprintf(pid, sizeof(pid), "%d\n", getpid());
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return fail("open %s: %s", path, strerror(errno));
	ok = write(fd, pid, len) == len;
	close(fd);
	return ok ? 0 : fail("write %s: %s", path, strerror(errno));
}

static void cg_name(char *buf, size_t len, int i)
{
	snprintf(buf, len, CG_ROOT "/pb%d", i);
}

/* The system-wide events of a cgroup: what perf stat -a -G counts first */
static const uint64_t cg_events[2] = {
	PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
};

/*
 * cgroup_switch_N: cgroups pb0..pb(N-1) (and pbx) each with cpu-clock and
 * context-switches on CPU 0; this task in pb0, its ping-pong partner in
 * pb1 (in pbx, which nobody monitors, when N is 1); one operation is a
 * round trip, two switches from one cgroup to the other. N = 0 is the
 * floor: the same two cgroups, no event.
 */
int b_cgroup_switch(const struct metric *m, long iters, double *ns)
{
	int n = m->size, nd = n < 2 ? 2 : n, nfds = 0, ret = -1, i, j;
	int *fds = calloc(2 * nd, sizeof(int));
	struct metric pp = *m;
	char dir[64];
	uint64_t v;

	if (!fds)
		return fail("out of memory");
	if (cg_mount())
		goto out_free;
	for (i = 0; i < nd; i++) {
		cg_name(dir, sizeof(dir), i < n || i == 0 ? i : 1000);
		if (mkdir(dir, 0755) && errno != EEXIST) {
			fail("mkdir %s: %s", dir, strerror(errno));
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		int cg;

		cg_name(dir, sizeof(dir), i);
		cg = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cg < 0) {
			fail("open %s: %s", dir, strerror(errno));
			goto out;
		}
		for (j = 0; j < 2; j++) {
			struct perf_event_attr a = {
				.size = sizeof(a),
				.type = PERF_TYPE_SOFTWARE,
				.config = cg_events[j],
			};

			fds[nfds] = perf_open(&a, cg, 0, -1,
					      PERF_FLAG_PID_CGROUP |
					      PERF_FLAG_FD_CLOEXEC);
			if (fds[nfds] < 0) {
				fail("perf_event_open(cgroup %s, CPU 0): %s",
				     dir, strerror(errno));
				close(cg);
				goto out;
			}
			nfds++;
		}
		close(cg);
	}
	cg_name(dir, sizeof(dir), 0);
	if (cg_enter(dir))
		goto out;
	cg_name(pingpong_cgroup, sizeof(pingpong_cgroup), n >= 2 ? 1 : 1000);
	pp.nr_events = 0;
	pp.hw = 0;
	pp.inherit = 0;
	if (b_ctxsw(&pp, iters, ns))
		goto out;
	/* sanity: pb0's context-switches saw every switch out of this task */
	if (n && read_count(fds[1], &v))
		goto out;
	if (n && v < (uint64_t)iters * reps) {
		fail("pb0's context-switches counted %llu, expected >= %ld",
		     (unsigned long long)v, iters * reps);
		goto out;
	}
	ret = 0;
out:
	close_set(fds, nfds);
	cg_enter(CG_ROOT);
	for (i = 0; i < nd; i++) {
		cg_name(dir, sizeof(dir), i < n || i == 0 ? i : 1000);
		rmdir(dir);
	}
out_free:
	free(fds);
	return ret;
}

static int raise_nofile(long want)
{
	struct rlimit rl = { want, want };

	if (setrlimit(RLIMIT_NOFILE, &rl))
		return fail("setrlimit(RLIMIT_NOFILE, %ld): %s", want,
			    strerror(errno));
	return 0;
}

/*
 * open_close_busy_N: N enabled counting events on this task (the four of
 * sw_events in turn) and N on CPU 0 (context-switches, cpu-migrations,
 * page-faults, cpu-clock in turn), then open_close_1.
 */
int b_open_close_busy(const struct metric *m, long iters, double *ns)
{
	static const uint64_t cpu_ev[4] = {
		PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS,
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_CPU_CLOCK,
	};
	int n = m->size, nfds = 0, ret = -1, i;
	int *fds = calloc(2 * n, sizeof(int));
	struct metric one = *m;

	if (!fds)
		return fail("out of memory");
	if (raise_nofile(2L * n + 64))
		goto out;
	for (i = 0; i < 2 * n; i++) {
		struct perf_event_attr a;
		int cpu = i < n ? -1 : 0;

		sw_attr(&a, i, 0, 0, 0);
		if (cpu == 0)
			a.config = cpu_ev[i % 4];
		fds[i] = perf_open(&a, cpu < 0 ? 0 : -1, cpu, -1,
				   PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0) {
			fail("perf_event_open #%d (%s): %s", i,
			     cpu < 0 ? "task" : "CPU 0", strerror(errno));
			goto out;
		}
		nfds++;
	}
	one.nr_events = 1;
	ret = b_open_close(&one, iters, ns);
out:
	close_set(fds, nfds);
	free(fds);
	return ret;
}

static void *thread_fn(void *arg)
{
	return arg;
}

/*
 * threads_T (nr_events 0) and inherit_threads_T (8 inherit=1 counters on
 * this task, opened first): one operation starts T threads on CPU 0 and
 * joins them all.
 */
int b_threads(const struct metric *m, long iters, double *ns)
{
	int n = m->nr_events, t = m->size, ret = -1, r;
	int fds[MAX_EVENTS];
	pthread_t th[256];
	pthread_attr_t attr;
	uint64_t before = 0, after;

	if (t > 256)
		return fail("too many threads");
	if (n && open_set(fds, n, 1))
		return fail("perf_event_open(inherit=1 x%d): %s", n,
			    strerror(errno));
	if (n && read_count(fds[0], &before))
		goto out;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 << 10);
	for (r = -1; r < reps; r++) {
		long it = r < 0 ? iters / 4 + 1 : iters;
		uint64_t t0 = rep_begin();

		for (long i = 0; i < it; i++) {
			int k, e;

			for (k = 0; k < t; k++) {
				e = pthread_create(&th[k], &attr, thread_fn, NULL);
				if (e) {
					fail("pthread_create #%d: %s", k, strerror(e));
					while (k--)
						pthread_join(th[k], NULL);
					goto out_attr;
				}
			}
			for (k = 0; k < t; k++)
				pthread_join(th[k], NULL);
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	/* sanity: the threads' task-clock came back to the parent's event */
	if (n) {
		if (read_count(fds[0], &after))
			goto out_attr;
		if (after <= before) {
			fail("inherited task-clock did not advance");
			goto out_attr;
		}
	}
	ret = 0;
out_attr:
	pthread_attr_destroy(&attr);
out:
	if (n)
		close_set(fds, n);
	return ret;
}

/*
 * syswide_stat: what perf stat -a does with its default events on C
 * CPUs: open 8 disabled events (cpu-clock, context-switches,
 * cpu-migrations, page-faults, cycles, instructions, branches,
 * branch-misses) on every CPU, enable each, read each, close each.
 * The floor is the 4 * 8 * C system calls as getppid().
 */
int b_syswide_stat(const struct metric *m, long iters, double *ns)
{
	static const struct { uint32_t type; uint64_t config; } ev[8] = {
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
		{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
		{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	};
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), nfd, r, c, e, k;
	int fds[8 * 8];
	uint64_t v[3];

	(void)m;
	if (ncpu < 1 || ncpu > 8)
		return fail("%d CPUs: 1 to 8 supported", ncpu);
	nfd = 8 * ncpu;
	snprintf(floor_override, sizeof(floor_override), "null_syscall*%d",
		 4 * nfd);
	for (r = -1; r < reps; r++) {
		uint64_t t0 = rep_begin();

		for (long i = 0; i < iters; i++) {
			k = 0;
			for (c = 0; c < ncpu; c++) {
				for (e = 0; e < 8; e++, k++) {
					struct perf_event_attr a = {
						.size = sizeof(a),
						.type = ev[e].type,
						.config = ev[e].config,
						.disabled = 1,
						.read_format =
						PERF_FORMAT_TOTAL_TIME_ENABLED |
						PERF_FORMAT_TOTAL_TIME_RUNNING,
					};

					fds[k] = perf_open(&a, -1, c, -1,
							   PERF_FLAG_FD_CLOEXEC);
					if (fds[k] < 0) {
						fail("perf_event_open(CPU %d, event %d): %s",
						     c, e, strerror(errno));
						close_set(fds, k);
						return -1;
					}
				}
			}
			for (k = 0; k < nfd; k++)
				ioctl(fds[k], PERF_EVENT_IOC_ENABLE, 0);
			for (k = 0; k < nfd; k++) {
				if (read(fds[k], v, sizeof(v)) != sizeof(v)) {
					fail("read: %s", strerror(errno));
					close_set(fds, nfd);
					return -1;
				}
			}
			close_set(fds, nfd);
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	return 0;
}
