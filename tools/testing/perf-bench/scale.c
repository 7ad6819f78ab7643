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
 *   syswide_record     perf record -a at the highest lossless rate, as
 *                      ns per sample per CPU (named after the CPU count)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

/* ---- perf record -a ---------------------------------------------------- */

#define SR_PAGES	256		/* 1 MiB of records per CPU */
#define SR_SAMPLES	32768		/* periods per CPU in a run */
#define SR_PERIOD	500		/* the first period tried */
#define SR_RUNGS	6

struct sr_cpu {
	int fd;
	struct perf_event_mmap_page *pg;
	size_t len;
};

struct sr_run {
	struct sr_cpu *cpu;
	int ncpu, stopfd;
	uint64_t period;
	struct rec_sink sink;
};

/* perf record's one reader: poll() on every CPU's buffer, any CPU */
static void *sr_reader(void *arg)
{
	struct sr_run *rn = arg;
	struct pollfd pfd[9];
	cpu_set_t set;
	int stop = 0, i;

	CPU_ZERO(&set);
	for (i = 0; i < rn->ncpu; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
	for (i = 0; i < rn->ncpu; i++)
		pfd[i] = (struct pollfd){ .fd = rn->cpu[i].fd, .events = POLLIN };
	pfd[rn->ncpu] = (struct pollfd){ .fd = rn->stopfd, .events = POLLIN };
	while (!stop) {
		if (poll(pfd, rn->ncpu + 1, -1) < 0 && errno != EINTR)
			break;
		stop = pfd[rn->ncpu].revents != 0;
		for (i = 0; i < rn->ncpu; i++)
			ring_drain(rn->cpu[i].pg, &rn->sink);
	}
	return NULL;
}

struct sr_worker {
	int cpu;
	long loops;
};

static void *sr_work(void *arg)
{
	struct sr_worker *w = arg;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(w->cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
	insn_loop(w->loops);
	return NULL;
}

/* One run at rn->period: 0 lossless, 1 lost or throttled, -1 failed */
static int sr_run_once(struct sr_run *rn, double *ns)
{
	struct sr_worker w[8];
	pthread_t rd, th[8];
	uint64_t one = 1, t0;
	int i, ret = 0;

	rn->sink.samples = rn->sink.lost = rn->sink.throttled = 0;
	for (i = 0; i < rn->ncpu; i++)
		if (ioctl(rn->cpu[i].fd, PERF_EVENT_IOC_PERIOD, &rn->period))
			return fail("PERF_EVENT_IOC_PERIOD: %s", strerror(errno));
	rn->stopfd = eventfd(0, EFD_CLOEXEC);
	if (rn->stopfd < 0)
		return fail("eventfd: %s", strerror(errno));
	if (pthread_create(&rd, NULL, sr_reader, rn)) {
		close(rn->stopfd);
		return fail("pthread_create failed");
	}
	t0 = now_ns();
	for (i = 0; i < rn->ncpu; i++)
		ioctl(rn->cpu[i].fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < rn->ncpu; i++) {
		w[i] = (struct sr_worker){ i, (long)(rn->period * SR_SAMPLES / 2) };
		if (pthread_create(&th[i], NULL, sr_work, &w[i])) {
			ret = fail("pthread_create failed");
			rn->ncpu = i;
			break;
		}
	}
	for (i = 0; i < rn->ncpu; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < rn->ncpu; i++)
		ioctl(rn->cpu[i].fd, PERF_EVENT_IOC_DISABLE, 0);
	if (write(rn->stopfd, &one, sizeof(one)) != sizeof(one))
		ret = fail("eventfd write: %s", strerror(errno));
	pthread_join(rd, NULL);
	close(rn->stopfd);
	*ns = (double)(now_ns() - t0) /
	      ((double)(rn->sink.samples ? rn->sink.samples : 1) / rn->ncpu);
	if (ret)
		return ret;
	if (rn->sink.samples < (uint64_t)SR_SAMPLES * rn->ncpu / 2)
		return fail("%llu samples at period %llu on %d CPUs",
			    (unsigned long long)rn->sink.samples,
			    (unsigned long long)rn->period, rn->ncpu);
	return rn->sink.lost || rn->sink.throttled ? 1 : 0;
}

/*
 * syswide_record: perf record -a at the highest lossless rate: on each
 * CPU a system-wide instructions:u event samples (IP, TID, TIME, CPU)
 * into its own 1 MiB buffer while a task per CPU runs SR_SAMPLES periods,
 * and one reader thread, free to run anywhere, drains every buffer as
 * perf record does (poll(), each record copied out). From SR_PERIOD the
 * period doubles while a run loses records or is throttled. The row is
 * guest ns per sample per CPU at the first lossless period (lower is
 * better), named after the CPU count.
 */
int b_syswide_record(const struct metric *m, long iters, double *ns)
{
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), i, r, k, ret = -1;
	long old_rate = 0, old_pct = 0, was;
	struct sr_cpu cpu[8] = { 0 };
	struct sr_run rn = { .cpu = cpu };
	long page = sysconf(_SC_PAGESIZE);

	(void)m;
	(void)iters;
	if (ncpu < 1 || ncpu > 8)
		return fail("%d CPUs: 1 to 8 supported", ncpu);
	rn.sink.out_len = 4 << 20;
	rn.sink.out = malloc(rn.sink.out_len);
	if (!rn.sink.out)
		return fail("out of memory");
	if (sysctl_set("perf_event_max_sample_rate", 100000000, &old_rate))
		goto out_free;
	if (sysctl_set("perf_cpu_time_max_percent", 0, &old_pct))
		goto out_rate;
	for (i = 0; i < ncpu; i++) {
		struct perf_event_attr a = {
			.size = sizeof(a),
			.type = PERF_TYPE_HARDWARE,
			.config = PERF_COUNT_HW_INSTRUCTIONS,
			.sample_period = SR_PERIOD,
			.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				       PERF_SAMPLE_TIME | PERF_SAMPLE_CPU,
			.disabled = 1,
			.exclude_kernel = 1,
			.exclude_hv = 1,
			.watermark = 1,
			.wakeup_watermark = SR_PAGES * page / 4,
		};

		cpu[i].fd = perf_open(&a, -1, i, -1, PERF_FLAG_FD_CLOEXEC);
		if (cpu[i].fd < 0) {
			fail("perf_event_open(instructions:u, CPU %d): %s", i,
			     strerror(errno));
			goto out;
		}
		rn.ncpu = i + 1;
		cpu[i].len = (SR_PAGES + 1) * page;
		cpu[i].pg = mmap(NULL, cpu[i].len, PROT_READ | PROT_WRITE,
				 MAP_SHARED, cpu[i].fd, 0);
		if (cpu[i].pg == MAP_FAILED) {
			cpu[i].pg = NULL;
			fail("mmap: %s", strerror(errno));
			goto out;
		}
	}
	for (r = -1; r < reps; r++) {
		double v = 0;

		rep_begin();
		for (k = 0, rn.period = SR_PERIOD; k < SR_RUNGS; k++, rn.period *= 2) {
			int res = sr_run_once(&rn, &v);

			if (res < 0)
				goto out;
			if (!res)
				break;
		}
		if (k == SR_RUNGS) {
			fail("records lost even at period %llu",
			     (unsigned long long)rn.period / 2);
			goto out;
		}
		if (r >= 0)
			ns[r] = v;
	}
	ret = 0;
out:
	for (i = 0; i < rn.ncpu; i++) {
		if (cpu[i].pg)
			munmap(cpu[i].pg, cpu[i].len);
		close(cpu[i].fd);
	}
	sysctl_set("perf_cpu_time_max_percent", old_pct, &was);
out_rate:
	sysctl_set("perf_event_max_sample_rate", old_rate, &was);
out_free:
	free(rn.sink.out);
	return ret;
}
