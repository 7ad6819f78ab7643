// SPDX-License-Identifier: GPL-2.0
/*
 * perf-bench: micro-benchmarks of the perf_event core's software-event
 * paths, run inside a QEMU guest by scripts/bench/bench.sh (make bench).
 *
 *   perf-bench [-r REPS] [-s SCALE] [-z SETTLE_MS] [-l] [METRIC...]
 *
 * Every metric runs in a child process of its own (pinned to CPU 0, with
 * an alarm as a watchdog), does one warm-up pass, then REPS repetitions
 * of N iterations each, every repetition preceded by SETTLE_MS of sleep
 * (default 20) and timed with clock_gettime(CLOCK_MONOTONIC), and prints
 *
 *   @@BENCH-REPS <metric> <ns/op of each repetition, in order>
 *   @@BENCH <metric> <median> <min> <max> <unit> reps=<r> iters=<n>
 *
 * (ns per operation; median/min/max over the repetitions), or
 *
 *   @@BENCH-FAIL <metric> <reason>
 *
 * when a syscall the metric needs fails (e.g. a feature our kernel does
 * not have yet), a sanity check on the counts fails, or the child dies.
 * The last line is "@@BENCH-END ok=<n> failed=<n>"; the exit status is 1
 * if any metric failed.  -s scales every iteration count (default 1.0),
 * -l lists the metrics.
 *
 * Most metrics use software events; pmi_sample, pebs_sample, read_hw_1,
 * rdpmc_self, ctxsw_mux_24, bpf_sample and lossless_hw need a hardware PMU (the
 * TCG PMU model; pebs_sample its PEBS) and fail without one; uprobe_hit needs
 * the uprobe PMU.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "perf-bench.h"

int reps = 7;
int settle_ms = 20;
char errbuf[256];
char floor_override[64];

/*
 * A metric that this machine cannot run (no PEBS on AMD, no Intel PT, no
 * perf tool in this boot): why, for an n/a row; always returns SKIPPED.
 */
int skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return SKIPPED;
}

/* Record why a metric failed; always returns -1. */
int fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	return -1;
}

int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	return syscall(SYS_perf_event_open, attr, pid, cpu, group_fd, flags);
}

/*
 * The software events "perf stat" counts by default; event i of a set
 * uses sw_events[i % 4], so a set always starts with task-clock.
 */
const struct sw_event sw_events[4] = {
	{ PERF_COUNT_SW_TASK_CLOCK,	  "task-clock" },
	{ PERF_COUNT_SW_CONTEXT_SWITCHES, "context-switches" },
	{ PERF_COUNT_SW_CPU_MIGRATIONS,	  "cpu-migrations" },
	{ PERF_COUNT_SW_PAGE_FAULTS,	  "page-faults" },
};

void sw_attr(struct perf_event_attr *a, int i, int disabled,
		    int inherit, uint64_t read_format)
{
	memset(a, 0, sizeof(*a));
	a->size = sizeof(*a);
	a->type = PERF_TYPE_SOFTWARE;
	a->config = sw_events[i % 4].config;
	a->disabled = disabled;
	a->inherit = inherit;
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->read_format = read_format;
}

/* Open n independent, enabled counting events on the calling task. */
int open_set(int *fds, int n, int inherit)
{
	struct perf_event_attr a;
	int i;

	for (i = 0; i < n; i++) {
		sw_attr(&a, i, 0, inherit, 0);
		fds[i] = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0) {
			int err = errno;

			while (i--)
				close(fds[i]);
			errno = err;
			return -1;
		}
	}
	return 0;
}

void close_set(int *fds, int n)
{
	while (n--)
		close(fds[n]);
}

/* read() one plain counter (read_format 0). */
int read_count(int fd, uint64_t *val)
{
	ssize_t r = read(fd, val, sizeof(*val));

	if (r != sizeof(*val))
		return fail("read: %zd (%s)", r, r < 0 ? strerror(errno) : "short");
	return 0;
}

/*
 * Start of a timed repetition: first sleep settle_ms so that deferred work
 * of the previous one (RCU callbacks, task_work, kworkers) runs now, not
 * inside this one; every repetition then starts from the same state.
 */
uint64_t rep_begin(void)
{
	if (settle_ms) {
		struct timespec ts = { settle_ms / 1000, settle_ms % 1000 * 1000000L };

		nanosleep(&ts, NULL);
	}
	return now_ns();
}

/* Burn roughly @ns of CPU time (so that task-clock has something to count). */
void spin(uint64_t ns)
{
	uint64_t t0 = now_ns();

	while (now_ns() - t0 < ns)
		;
}

/* ---- open/close ----------------------------------------------------- */

int b_null_syscall(const struct metric *m, long iters, double *ns)
{
	int r;

	(void)m;
	for (r = -1; r < reps; r++) {
		uint64_t t0 = rep_begin();

		for (long i = 0; i < iters; i++)
			syscall(SYS_getppid);
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	return 0;
}

int b_open_close(const struct metric *m, long iters, double *ns)
{
	struct perf_event_attr a[MAX_EVENTS];
	int fds[MAX_EVENTS], n = m->nr_events, r, j;

	for (j = 0; j < n; j++)
		/* leader disabled, members follow it */
		sw_attr(&a[j], j, j == 0, 0,
			n > 1 ? PERF_FORMAT_GROUP | PERF_FORMAT_ID : 0);
	for (r = -1; r < reps; r++) {
		uint64_t t0 = rep_begin();

		for (long i = 0; i < iters; i++) {
			for (j = 0; j < n; j++) {
				fds[j] = perf_open(&a[j], 0, -1, j ? fds[0] : -1,
						   PERF_FLAG_FD_CLOEXEC);
				if (fds[j] < 0) {
					int err = errno;

					close_set(fds, j);
					return fail("perf_event_open(%s%s): %s",
						    sw_events[j % 4].name,
						    j ? ", group member" : "",
						    strerror(err));
				}
			}
			close_set(fds, n);
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	return 0;
}

/* ---- read ------------------------------------------------------------ */

static int b_read(const struct metric *m, long iters, double *ns)
{
	struct perf_event_attr a;
	int fds[MAX_EVENTS], n = m->nr_events, r, j;
	uint64_t fmt = PERF_FORMAT_TOTAL_TIME_ENABLED |
		       PERF_FORMAT_TOTAL_TIME_RUNNING;
	uint64_t buf[3 + 2 * MAX_EVENTS];
	size_t want;
	int ret = -1;

	if (n > 1)
		fmt |= PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	for (j = 0; j < n; j++) {
		sw_attr(&a, j, 0, 0, fmt);
		fds[j] = perf_open(&a, 0, -1, j ? fds[0] : -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[j] < 0) {
			int err = errno;

			close_set(fds, j);
			return fail("perf_event_open(%s%s): %s", sw_events[j % 4].name,
				    j ? ", group member" : "", strerror(err));
		}
	}
	/* nr, time_enabled, time_running, {value, id} x n  |  value, enabled, running */
	want = n > 1 ? (3 + 2 * n) * sizeof(uint64_t) : 3 * sizeof(uint64_t);
	spin(1000000);
	for (r = -1; r < reps; r++) {
		uint64_t t0 = rep_begin();

		for (long i = 0; i < iters; i++) {
			ssize_t got = read(fds[0], buf, sizeof(buf));

			if (got != (ssize_t)want) {
				fail("read: returned %zd, expected %zu (%s)", got, want,
				     got < 0 ? strerror(errno) : "wrong size");
				goto out;
			}
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	/* sanity: task-clock counted the spin, enabled time is non-zero */
	if (n > 1 && buf[0] != (uint64_t)n) {
		fail("group read: nr=%llu, expected %d", (unsigned long long)buf[0], n);
		goto out;
	}
	if ((n > 1 ? buf[3] : buf[0]) == 0 || buf[1] == 0) {
		fail("read: task-clock or time_enabled is 0 after 1ms of spinning");
		goto out;
	}
	ret = 0;
out:
	close_set(fds, n);
	return ret;
}

/* ---- ioctl ----------------------------------------------------------- */

static int b_ioctl(const struct metric *m, long iters, double *ns)
{
	struct perf_event_attr a;
	int fd, r, ret = -1;

	(void)m;
	sw_attr(&a, 0, 1, 0, 0);
	fd = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return fail("perf_event_open(task-clock): %s", strerror(errno));
	for (r = -1; r < reps; r++) {
		uint64_t t0 = rep_begin();

		for (long i = 0; i < iters; i++) {
			if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) ||
			    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0)) {
				fail("ioctl ENABLE/DISABLE: %s", strerror(errno));
				goto out;
			}
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	ret = 0;
out:
	close(fd);
	return ret;
}

/* Open n enabled hardware counters (alternately instructions:u and cycles:u) */
int open_hw_set(int *fds, int n)
{
	struct perf_event_attr a;
	int i;

	for (i = 0; i < n; i++) {
		memset(&a, 0, sizeof(a));
		a.size = sizeof(a);
		a.type = PERF_TYPE_HARDWARE;
		a.config = i % 2 ? PERF_COUNT_HW_CPU_CYCLES :
				   PERF_COUNT_HW_INSTRUCTIONS;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
				PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[i] = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fds[i] < 0) {
			int err = errno;

			close_set(fds, i);
			errno = err;
			return -1;
		}
	}
	return 0;
}

/* The events a context switch metric opens on one task (not inherited) */
static int open_events(const struct metric *m, int *fds)
{
	return m->hw ? open_hw_set(fds, m->nr_events) :
		       open_set(fds, m->nr_events, 0);
}

/*
 * After the ping-pong with more hardware events than counters: every
 * event counted, and at least one was multiplexed (running < enabled).
 */
int check_muxed(int *fds, int n)
{
	int muxed = 0;

	for (int j = 0; j < n; j++) {
		uint64_t v[3];

		if (read(fds[j], v, sizeof(v)) != sizeof(v))
			return fail("read: %s", strerror(errno));
		/*
		 * Rotation turns one group a tick: with more groups than
		 * that reaches in a run (ctxsw_groups_64, _256) an event may
		 * wait the whole run
		 */
		if ((!v[0] || !v[2]) && n <= 24)
			return fail("event %d: count %llu, running %llu: never on a counter",
				    j, (unsigned long long)v[0],
				    (unsigned long long)v[2]);
		muxed += v[2] < v[1];
	}
	if (!muxed)
		return fail("%d hardware events all ran all the time: not multiplexed",
			    n);
	return 0;
}

/* ---- context switches -------------------------------------------------- */

/*
 * Pipe ping-pong between this task and a forked partner, both on CPU 0.
 * One operation is a round trip: two context switches.  Without
 * m->inherit each task opens m->nr_events enabled counting events on
 * itself; with it, this task opens them with inherit=1 before forking and
 * the partner gets inherited copies. With m->hw the events are hardware
 * counters (ctxsw_mux_24: more groups than counters, so every switch-in
 * fits what it can and the multiplexing timer rotates the rest).
 */
int b_ctxsw(const struct metric *m, long iters, double *ns)
{
	int p2c[2], c2p[2], fds[MAX_EVENTS], n = m->nr_events, r, nfds = 0;
	unsigned char msg[2] = { 0, 0 };
	uint64_t val;
	pid_t pid;
	int ret = -1, status;

	if (pipe(p2c) || pipe(c2p))
		return fail("pipe: %s", strerror(errno));
	if (m->inherit) {
		if (open_set(fds, n, 1))
			return fail("perf_event_open(inherit=1 x%d): %s", n, strerror(errno));
		nfds = n;
	}
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int cfds[MAX_EVENTS];
		unsigned char c;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p2c[1]);
		close(c2p[0]);
		if (pingpong_cgroup[0] && cg_enter(pingpong_cgroup)) {
			msg[0] = 'E';
			msg[1] = errno;
			write(c2p[1], msg, 2);
			_exit(1);
		}
		if (!m->inherit && open_events(m, cfds)) {
			msg[0] = 'E';
			msg[1] = errno;
			write(c2p[1], msg, 2);
			_exit(1);
		}
		msg[0] = 'R';
		msg[1] = 0;
		write(c2p[1], msg, 2);
		while (read(p2c[0], &c, 1) == 1 && c != 'q')
			if (write(c2p[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	close(p2c[0]);
	close(c2p[1]);
	if (read(c2p[0], msg, 2) != 2 || msg[0] != 'R') {
		if (msg[0] == 'E')
			fail("partner: perf_event_open(x%d): %s%s", n,
			     strerror(msg[1]), m->hw ? " (no hardware PMU?)" : "");
		else
			fail("partner died during setup");
		goto out;
	}
	if (!m->inherit) {
		if (open_events(m, fds)) {
			fail("perf_event_open(x%d): %s%s", n, strerror(errno),
			     m->hw ? " (no hardware PMU?)" : "");
			goto out;
		}
		nfds = n;
	}
	for (r = -1; r < reps; r++) {
		long it = r < 0 ? iters / 4 + 1 : iters;
		uint64_t t0 = rep_begin();

		for (long i = 0; i < it; i++) {
			unsigned char c = 'x';

			if (write(p2c[1], &c, 1) != 1 || read(c2p[0], &c, 1) != 1) {
				fail("ping-pong: %s", strerror(errno));
				goto out;
			}
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	if (m->hw) {
		/*
		 * Rotation turns one group a tick: a faster switch makes a
		 * shorter run, which may end before the last group's first
		 * turn. Untimed rounds until every group has had one (at
		 * most about a guest second more).
		 */
		for (int extra = 0; check_muxed(fds, n) && extra < 50; extra++)
			for (long i = 0; i < 1000; i++) {
				unsigned char c = 'x';

				if (write(p2c[1], &c, 1) != 1 ||
				    read(c2p[0], &c, 1) != 1) {
					fail("ping-pong: %s", strerror(errno));
					goto out;
				}
			}
		if (check_muxed(fds, n))
			goto out;
	} else if (n) {
		/* sanity: our task-clock event counted something */
		if (read_count(fds[0], &val))
			goto out;
		if (!val) {
			fail("task-clock read 0 after the ping-pong");
			goto out;
		}
	}
	ret = 0;
out:
	write(p2c[1], "q", 1);
	close(p2c[1]);
	close(c2p[0]);
	if (waitpid(pid, &status, 0) == pid && ret == 0 &&
	    !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		ret = fail("partner exited with status 0x%x", status);
	close_set(fds, nfds);
	return ret;
}

/* ---- fork/exit --------------------------------------------------------- */

static int b_fork(const struct metric *m, long iters, double *ns)
{
	int fds[MAX_EVENTS], n = m->nr_events, r, ret = -1;
	uint64_t before, after;

	if (n && open_set(fds, n, 1))
		return fail("perf_event_open(inherit=1 x%d): %s", n, strerror(errno));
	if (n && read_count(fds[0], &before))
		goto out;
	for (r = -1; r < reps; r++) {
		long it = r < 0 ? iters / 4 + 1 : iters;
		uint64_t t0 = rep_begin();

		for (long i = 0; i < it; i++) {
			int status;
			pid_t pid = fork();

			if (pid < 0) {
				fail("fork: %s", strerror(errno));
				goto out;
			}
			if (pid == 0)
				_exit(0);
			if (waitpid(pid, &status, 0) != pid ||
			    !WIFEXITED(status) || WEXITSTATUS(status)) {
				fail("waitpid: %s, status 0x%x", strerror(errno), status);
				goto out;
			}
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	/* sanity: the inherited task-clock kept counting */
	if (n) {
		if (read_count(fds[0], &after))
			goto out;
		if (after <= before) {
			fail("inherited task-clock did not advance (%llu -> %llu)",
			     (unsigned long long)before, (unsigned long long)after);
			goto out;
		}
	}
	ret = 0;
out:
	if (n)
		close_set(fds, n);
	return ret;
}

/* ---- the PMI ----------------------------------------------------------- */

/* @n iterations of dec/jnz: 2n user instructions, no memory access */
void insn_loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n) : : "cc");
}

/* A disabled sampling event on the caller, with its buffer mapped */
struct sampler {
	int fd;
	size_t len;
	struct perf_event_mmap_page *pg;
};

/* Open @a (@what names it in errors) and map 1 + @pages pages; 0 or -1 */
static int sampler_open(struct sampler *sp, struct perf_event_attr *a,
			int pages, const char *what)
{
	void *map;

	a->size = sizeof(*a);
	a->exclude_kernel = 1;
	a->exclude_hv = 1;
	a->disabled = 1;
	sp->fd = perf_open(a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (sp->fd < 0)
		return fail("%s: %s", what, strerror(errno));
	sp->len = (1 + pages) * sysconf(_SC_PAGESIZE);
	map = mmap(NULL, sp->len, PROT_READ | PROT_WRITE, MAP_SHARED, sp->fd, 0);
	if (map == MAP_FAILED) {
		close(sp->fd);
		return fail("mmap: %s", strerror(errno));
	}
	sp->pg = map;
	return 0;
}

/* Everything written is consumed: the next repetition starts empty */
static void sampler_consume(struct sampler *sp)
{
	__atomic_store_n(&sp->pg->data_tail,
			 __atomic_load_n(&sp->pg->data_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

/* Unmap and close; with @ret 0, fails if no sample was ever written */
static int sampler_close(struct sampler *sp, int ret)
{
	if (!ret && !sp->pg->data_head)
		ret = fail("no samples written");
	munmap(sp->pg, sp->len);
	close(sp->fd);
	return ret;
}

/*
 * A PMI every 20011 instructions: 50000 a second under icount, half the
 * default perf_event_max_sample_rate, so that neither kernel throttles
 * (and bpf_sample's buffer stays empty). A repetition of pmi_sample and
 * bpf_sample (10^7 iterations) takes 1000 PMIs over about 20 ms: timer
 * ticks land in it and in its baseline alike, where with 200 PMIs (stop
 * 70) one tick more or less in a 2 ms window moved a row by 50 ns a
 * PMI. pebs_sample stays at 3 * 10^6 (300 records): with more, large PEBS
 * fills its buffer and drains dozens of records a PMI, and both kernels
 * then lower perf_event_max_sample_rate for the rest of the boot.
 */
#define PMI_PERIOD	20011
#define PMI_PAGES	16
/* a repetition's 1000 samples of 32 bytes, with room to spare */
#define PMI_SAMPLE_PAGES	64

/* Is /proc/cpuinfo's vendor_id @vendor? */
static int cpu_vendor_is(const char *vendor)
{
	char line[256];
	FILE *fp = fopen("/proc/cpuinfo", "r");
	int yes = 0;

	while (fp && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "vendor_id", 9)) {
			yes = strstr(line, vendor) != NULL;
			break;
		}
	if (fp)
		fclose(fp);
	return yes;
}

/*
 * pmi_sample's event: disabled instructions:u sampled every PMI_PERIOD;
 * pebs_sample's the same at precise_ip 2 (PEBS)
 */
static int pmi_open(struct sampler *sp, int precise)
{
	struct perf_event_attr a;

	if (precise && !cpu_vendor_is("GenuineIntel"))
		return skip("PEBS: not an Intel CPU");

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.precise_ip = precise;
	a.sample_period = PMI_PERIOD;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	return sampler_open(sp, &a, PMI_SAMPLE_PAGES,
			    "instructions:u (no hardware PMU?)");
}

/*
 * The warm-up and the repetitions of a sampling metric: the loop of
 * iters taken branches (2 * iters instructions) with @sp enabled less
 * the same loop without, per_iter samples an iteration, per sample
 */
static void sampler_reps(struct sampler *sp, long iters, double per_iter,
			 double *ns)
{
	double samples = iters * per_iter;
	int r;

	for (r = -1; r < reps; r++) {
		long it = r < 0 ? iters / 4 + 1 : iters;
		uint64_t t0, t1, t2;

		t0 = rep_begin();
		insn_loop(it);
		t1 = now_ns();
		ioctl(sp->fd, PERF_EVENT_IOC_ENABLE, 0);
		insn_loop(it);
		ioctl(sp->fd, PERF_EVENT_IOC_DISABLE, 0);
		t2 = now_ns();
		sampler_consume(sp);
		if (r >= 0)
			ns[r] = ((double)(t2 - t1) - (double)(t1 - t0)) / samples;
	}
}

/*
 * The cost of one sample taken by a hardware counter: instructions:u
 * sampled every PMI_PERIOD (IP, TID, TIME into a mapped buffer that the
 * loop empties between repetitions), on a loop of 2 * iters
 * instructions, less the same loop with the event disabled, per sample.
 * Under icount that is the PMI's path through the kernel: the NMI, the
 * driver, the overflow and the record. Needs a hardware PMU (the TCG PMU
 * model): fails otherwise. pebs_sample: the same event at precise_ip 2,
 * whose samples come from PEBS records (one record, one PMI).
 */
static int b_pmi(const struct metric *m, long iters, double *ns)
{
	struct sampler sp;

	int err = pmi_open(&sp, m->precise);

	if (err)
		return err;
	sampler_reps(&sp, iters, 2.0 / PMI_PERIOD, ns);
	return sampler_close(&sp, 0);
}

/*
 * The cost of one branch traced by the branch trace store: a branches
 * event with a period of 1 (gdb's "record btrace bts": IP and ADDR,
 * user only), whose samples are BTS records the PMI or the disable
 * drains, on a loop of iters taken branches (less the loop disabled),
 * per branch. The buffer holds a repetition's samples (24 bytes each).
 * Needs BTS (the TCG PMU model with 0021): fails otherwise.
 */
#define BTS_PAGES	256

static int b_bts(const struct metric *m, long iters, double *ns)
{
	struct perf_event_attr a;
	struct sampler sp;

	(void)m;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	if (sampler_open(&sp, &a, BTS_PAGES, "branches, period 1 (no BTS?)"))
		return -1;
	sampler_reps(&sp, iters, 1, ns);
	return sampler_close(&sp, 0);
}

/*
 * Intel PT (the TCG PMU model with 0022, -cpu ...,intel-pt=on): an
 * intel_pt//u event (pt, branch, tsc: perf's default terms on the model)
 * tracing the loop into a writable 4 MiB AUX area, which the loop drains
 * (aux_tail) between repetitions, so nothing is lost. Under icount the
 * time is the instructions': the model's packets cost none, so what is
 * measured is the kernel's share: the enable and disable, and the
 * driver's PMIs at each aux_watermark of trace (a stretch ends, its
 * PERF_RECORD_AUX, the next one starts). pt_loop: a loop of iters
 * branches (about iters / 6 bytes of TNT) with a 16 KiB watermark,
 * less the loop untraced, per loop. pt_aux_4m: the same with a 64 KiB
 * watermark, per KiB of trace the area received (the lossless rate's
 * inverse). Fails without PT, or if a repetition's trace did not all
 * arrive.
 */
#define PT_CONFIG	((1ULL << 0) | (1ULL << 10) | (1ULL << 13))
#define PT_AUX_SIZE	(4UL << 20)
#define PT_PAIRS	16

static int b_pt(const struct metric *m, long iters, double *ns)
{
	struct perf_event_attr a;
	struct sampler sp;
	uint64_t head = 0;
	void *aux;
	FILE *fp;
	int type, r;

	fp = fopen("/sys/bus/event_source/devices/intel_pt/type", "r");
	if (!fp || fscanf(fp, "%d", &type) != 1) {
		if (fp)
			fclose(fp);
		return skip("no intel_pt PMU (intel-pt=on?)");
	}
	fclose(fp);
	memset(&a, 0, sizeof(a));
	a.type = type;
	a.config = PT_CONFIG;
	a.aux_watermark = (m->nr_events ? 64 : 16) << 10;
	if (sampler_open(&sp, &a, PMI_PAGES, "intel_pt//u"))
		return -1;
	sp.pg->aux_offset = sp.len;
	sp.pg->aux_size = PT_AUX_SIZE;
	aux = mmap(NULL, PT_AUX_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   sp.fd, sp.len);
	if (aux == MAP_FAILED)
		return sampler_close(&sp, fail("mmap AUX: %s", strerror(errno)));
	for (r = -1; r < reps; r++) {
		long it = r < 0 ? iters / 4 + 1 : iters;
		double diff = 0, kib = 0;
		uint64_t t0, t1, t2, bytes;
		int k;

		rep_begin();
		/*
		 * PT_PAIRS pairs of the loop untraced and traced: a pair is
		 * shorter than a tick, and one tick more in either half
		 * would be most of a lone pair's difference
		 */
		for (k = 0; k < PT_PAIRS; k++) {
			t0 = now_ns();
			insn_loop(it);
			t1 = now_ns();
			ioctl(sp.fd, PERF_EVENT_IOC_ENABLE, 0);
			insn_loop(it);
			ioctl(sp.fd, PERF_EVENT_IOC_DISABLE, 0);
			t2 = now_ns();
			bytes = __atomic_load_n(&sp.pg->aux_head, __ATOMIC_ACQUIRE) - head;
			head += bytes;
			__atomic_store_n(&sp.pg->aux_tail, head, __ATOMIC_RELEASE);
			sampler_consume(&sp);
			/* at least a bit of TNT for each branch arrived */
			if (bytes < (uint64_t)it / 8) {
				munmap(aux, PT_AUX_SIZE);
				return sampler_close(&sp, fail("%llu bytes of trace for %ld branches",
							      (unsigned long long)bytes, it));
			}
			diff += (double)(t2 - t1) - (double)(t1 - t0);
			kib += bytes / 1024.0;
		}
		if (r >= 0)
			ns[r] = diff / (m->nr_events ? kib : PT_PAIRS);
	}
	munmap(aux, PT_AUX_SIZE);
	return sampler_close(&sp, 0);
}

/* ---- hardware counters: read() and rdpmc ----------------------------- */

/* An enabled instructions:u counter on the caller, its first page mapped */
static int hw_open_mapped(struct sampler *sp, uint64_t read_format)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_HARDWARE;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.read_format = read_format;
	if (sampler_open(sp, &a, 0, "instructions:u (no hardware PMU?)"))
		return -1;
	if (ioctl(sp->fd, PERF_EVENT_IOC_ENABLE, 0)) {
		munmap(sp->pg, sp->len);
		close(sp->fd);
		return fail("ioctl ENABLE: %s", strerror(errno));
	}
	return 0;
}

static inline uint64_t rdpmc(uint32_t counter)
{
	uint32_t lo, hi;

	asm volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return lo | (uint64_t)hi << 32;
}

/*
 * A self-read through the control page, as perf_event_open(2) gives it:
 * the lock sequence around index/offset/pmc_width and the time fields,
 * rdpmc of the counter, and the times scaled from the TSC. Returns the
 * count; 0 and *ok = 0 when the page says rdpmc may not be used.
 */
static uint64_t self_read(volatile struct perf_event_mmap_page *pc,
			  uint64_t *enabled, uint64_t *running, int *ok)
{
	uint64_t count, ena, run, cyc, delta, quot, rem;
	uint32_t seq, idx, width, shift, mult;
	uint64_t offset;

	do {
		seq = pc->lock;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		ena = pc->time_enabled;
		run = pc->time_running;
		idx = pc->index;
		offset = pc->offset;
		count = offset;
		*ok = pc->cap_user_rdpmc && idx;
		if (*ok) {
			width = pc->pmc_width;
			count += (int64_t)(rdpmc(idx - 1) << (64 - width)) >>
				 (64 - width);
		}
		if (pc->cap_user_time && ena != run) {
			shift = pc->time_shift;
			mult = pc->time_mult;
			cyc = __builtin_ia32_rdtsc();
			quot = cyc >> shift;
			rem = cyc & (((uint64_t)1 << shift) - 1);
			delta = pc->time_offset + quot * mult +
				((rem * mult) >> shift);
			ena += delta;
			if (idx)
				run += delta;
		}
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
	} while (pc->lock != seq);
	*enabled = ena;
	*running = run;
	return count;
}

/*
 * read() of an enabled hardware counter (instructions:u, with its times:
 * 24 bytes), the path rdpmc_self is the alternative to.
 */
static int b_read_hw(const struct metric *m, long iters, double *ns)
{
	uint64_t fmt = PERF_FORMAT_TOTAL_TIME_ENABLED |
		       PERF_FORMAT_TOTAL_TIME_RUNNING;
	uint64_t buf[3], last = 0;
	struct sampler sp;
	int r, ret = -1;

	(void)m;
	if (hw_open_mapped(&sp, fmt))
		return -1;
	for (r = -1; r < reps; r++) {
		uint64_t t0 = rep_begin();

		for (long i = 0; i < iters; i++) {
			if (read(sp.fd, buf, sizeof(buf)) != sizeof(buf)) {
				fail("read: %s", strerror(errno));
				goto out;
			}
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
		/* sanity: it counts, and runs all the time it is enabled */
		if (buf[0] <= last || buf[1] != buf[2]) {
			fail("instructions:u %llu after %llu, enabled %llu running %llu",
			     (unsigned long long)buf[0], (unsigned long long)last,
			     (unsigned long long)buf[1], (unsigned long long)buf[2]);
			goto out;
		}
		last = buf[0];
	}
	ret = 0;
out:
	munmap(sp.pg, sp.len);
	close(sp.fd);
	return ret;
}

/*
 * The same counter read in user space through its control page (seqlock
 * + rdpmc + the time fields), as perf's and PAPI's self-monitoring do.
 * Fails if the page does not offer rdpmc (cap_user_rdpmc, index), or if
 * the counts do not advance.
 */
static int b_rdpmc_self(const struct metric *m, long iters, double *ns)
{
	uint64_t val = 0, ena = 0, run = 0, last = 0, sum = 0;
	struct sampler sp;
	int r, ok = 1, ret = -1;

	(void)m;
	if (hw_open_mapped(&sp, 0))
		return -1;
	for (r = -1; r < reps; r++) {
		uint64_t t0 = rep_begin();

		for (long i = 0; i < iters && ok; i++) {
			val = self_read(sp.pg, &ena, &run, &ok);
			sum += val;
		}
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
		if (!ok) {
			fail("control page: cap_user_rdpmc %d, index %u",
			     (int)sp.pg->cap_user_rdpmc, sp.pg->index);
			goto out;
		}
		if (val <= last || ena != run) {
			fail("self-read: %llu after %llu, enabled %llu running %llu",
			     (unsigned long long)val, (unsigned long long)last,
			     (unsigned long long)ena, (unsigned long long)run);
			goto out;
		}
		last = val;
	}
	ret = sum ? 0 : fail("self-read summed to 0");
out:
	munmap(sp.pg, sp.len);
	close(sp.fd);
	return ret;
}

/* ---- software samples ------------------------------------------------- */

/* room for 3200 samples of 40 bytes: one repetition never loses any */
#define FAULT_PAGES	32

/*
 * The cost of writing one sample: page-faults sampled on every fault
 * (IP, TID, TIME, ADDR into a mapped buffer emptied between
 * repetitions), on iters faults of fresh anonymous pages, less the same
 * faults with the event disabled, per sample.
 */
static int b_sample_fault(const struct metric *m, long iters, double *ns)
{
	long page = sysconf(_SC_PAGESIZE);
	struct perf_event_attr a;
	struct sampler sp;
	int r, on;

	(void)m;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_PAGE_FAULTS;
	a.sample_period = 1;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR;
	if (sampler_open(&sp, &a, FAULT_PAGES, "page-faults"))
		return -1;
	for (r = -1; r < reps; r++) {
		long it = r < 0 ? iters / 4 + 1 : iters;
		uint64_t t[2];

		rep_begin();
		/* a warm-up pass (on = -1), so both measured ones find the
		 * page tables and allocator in the same state
		 */
		for (on = -1; on < 2; on++) {
			char *p = mmap(NULL, it * page, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			uint64_t t0;

			if (p == MAP_FAILED)
				return sampler_close(&sp, fail("mmap %ld pages: %s",
							       it, strerror(errno)));
			if (on > 0)
				ioctl(sp.fd, PERF_EVENT_IOC_ENABLE, 0);
			t0 = now_ns();
			for (long i = 0; i < it; i++)
				p[i * page] = 1;
			if (on >= 0)
				t[on] = now_ns() - t0;
			if (on > 0)
				ioctl(sp.fd, PERF_EVENT_IOC_DISABLE, 0);
			munmap(p, it * page);
		}
		sampler_consume(&sp);
		if (r >= 0)
			ns[r] = ((double)t[1] - (double)t[0]) / it;
	}
	return sampler_close(&sp, 0);
}

/* ---- BPF on a sampling event, and a uprobe hit -------------------------- */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

/*
 * The cost a BPF_PROG_TYPE_PERF_EVENT program adds to a hardware sample:
 * pmi_sample's event and loop, with a program that reads the sample's
 * period and drops the sample (r0 = 0) attached by PERF_EVENT_IOC_SET_BPF,
 * less the same loop with the event disabled, per PMI. The path: the
 * NMI, the driver, the overflow, the program's run; no record.
 */
static int b_bpf_sample(const struct metric *m, long iters, double *ns)
{
	/* r1 = ctx->sample_period (offset: after the registers); r0 = 0 */
	struct bpf_insn prog[] = {
		{ .code = BPF_LDX | BPF_MEM | BPF_DW, .dst_reg = 1, .src_reg = 1,
		  .off = offsetof(struct bpf_perf_event_data, sample_period) },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	union bpf_attr ba;
	struct sampler sp;
	int r, pfd;

	(void)m;
	if (pmi_open(&sp, 0))
		return -1;
	memset(&ba, 0, sizeof(ba));
	ba.prog_type = BPF_PROG_TYPE_PERF_EVENT;
	ba.insns = (uintptr_t)prog;
	ba.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	ba.license = (uintptr_t)"GPL";
	pfd = sys_bpf(BPF_PROG_LOAD, &ba);
	if (pfd < 0)
		return sampler_close(&sp, fail("BPF_PROG_LOAD: %s", strerror(errno)));
	if (ioctl(sp.fd, PERF_EVENT_IOC_SET_BPF, pfd)) {
		close(pfd);
		return sampler_close(&sp, fail("SET_BPF: %s", strerror(errno)));
	}
	sampler_reps(&sp, iters, 2.0 / PMI_PERIOD, ns);
	close(pfd);
	/* the program dropped every sample: nothing may be in the buffer */
	if (sp.pg->data_head) {
		struct perf_event_header *h = (void *)((char *)sp.pg +
						       sysconf(_SC_PAGESIZE));

		r = fail("%llu bytes of records written, the first of type %u",
			 (unsigned long long)sp.pg->data_head, h->type);
	} else {
		r = 0;
	}
	munmap(sp.pg, sp.len);
	close(sp.fd);
	return r;
}

/* the function the uprobe is on: a call that does nothing else */
__attribute__((noinline)) void bench_uprobe_target(void)
{
	asm volatile("" ::: "memory");
}

/* The file offset of @addr in this program's file, from /proc/self/maps */
static long file_offset(const void *addr, char *path, size_t len)
{
	unsigned long lo, hi, off, a = (uintptr_t)addr;
	char line[512], file[256];
	long ret = -1;
	FILE *fp;

	fp = fopen("/proc/self/maps", "r");
	while (fp && ret < 0 && fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %255s", &lo, &hi,
			   &off, file) == 4 && a >= lo && a < hi) {
			snprintf(path, len, "%s", file);
			ret = a - lo + off;
		}
	}
	if (fp)
		fclose(fp);
	return ret;
}

/*
 * A uprobe hit: calls of a function of this program with a counting
 * event of the uprobe PMU on it, less the same calls with no probe there
 * (a disabled event's probe still traps), per call. The event is opened
 * enabled after the plain calls and closed after its own, so each
 * repetition installs and removes the probe outside the timed loops. The
 * path: the breakpoint trap, the uprobes core's lookup, the event's count,
 * the out-of-line single step.
 */
static int b_uprobe_hit(const struct metric *m, long iters, double *ns)
{
	struct perf_event_attr a;
	char path[256];
	uint64_t count;
	long off;
	int r, fd, type = -1;
	FILE *fp;

	(void)m;
	fp = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	if (!fp || fscanf(fp, "%d", &type) != 1)
		type = -1;
	if (fp)
		fclose(fp);
	if (type < 0)
		return fail("no uprobe PMU");
	off = file_offset((void *)bench_uprobe_target, path, sizeof(path));
	if (off < 0)
		return fail("bench_uprobe_target not in a file mapping");
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = type;
	a.config1 = (uintptr_t)path;	/* uprobe_path */
	a.config2 = off;		/* probe_offset */
	for (r = -1; r < reps; r++) {
		long it = r < 0 ? iters / 4 + 1 : iters;
		uint64_t t0, t1, t2;

		t0 = rep_begin();
		for (long i = 0; i < it; i++)
			bench_uprobe_target();
		t1 = now_ns();
		fd = perf_open(&a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0)
			return fail("uprobe on %s+%#lx: %s", path, off,
				    strerror(errno));
		t2 = now_ns();
		for (long i = 0; i < it; i++)
			bench_uprobe_target();
		t2 = now_ns() - t2;
		if (read_count(fd, &count)) {
			close(fd);
			return -1;
		}
		close(fd);
		if (count != (uint64_t)it)
			return fail("uprobe counted %llu hits, not %ld",
				    (unsigned long long)count, it);
		if (r >= 0)
			ns[r] = ((double)t2 - (double)(t1 - t0)) / it;
	}
	return 0;
}

/* ---- the lossless sample rate ------------------------------------------ */

#define LL_PAGES	256		/* 1 MiB of records */
#define LL_WATERMARK	(256 << 10)	/* the reader wakes a quarter full */
#define LL_RUNGS	6		/* periods tried: the first, then x2 */

/*
 * The reader of a lossless run, a thread on CPU 1 as perf record's would
 * be: it sleeps in poll() until the watermark, copies every record out
 * (to a buffer that stands for perf.data) and counts them.
 */
struct ll_reader {
	struct sampler *sp;
	int stopfd;
	struct rec_sink sink;
};

/**
 * ring_drain - copy every record between a buffer's tail and head out
 * @pg: the buffer's first page
 * @sink: where they go (a circular @out of @out_len bytes, which stands
 *	for perf.data), and the counts of samples, records lost, throttles
 *	and bytes
 *
 * As perf record's reader does; the tail then moves to the head.
 */
void ring_drain(struct perf_event_mmap_page *pg, struct rec_sink *sink)
{
	const char *data = (const char *)pg + pg->data_offset;
	uint64_t size = pg->data_size, tail = pg->data_tail;
	uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);

	while (tail < head) {
		const struct perf_event_header *h =
			(const void *)(data + (tail & (size - 1)));
		uint64_t off = tail & (size - 1), first = h->size;
		char *rec;

		if (sink->pos + h->size > sink->out_len)
			sink->pos = 0;
		rec = sink->out + sink->pos;
		if (off + first > size)
			first = size - off;
		memcpy(rec, data + off, first);
		memcpy(rec + first, data, h->size - first);
		if (h->type == PERF_RECORD_SAMPLE)
			sink->samples++;
		else if (h->type == PERF_RECORD_LOST)
			sink->lost += ((uint64_t *)rec)[2];
		else if (h->type == PERF_RECORD_THROTTLE)
			sink->throttled++;
		sink->pos += h->size;
		sink->bytes += h->size;
		tail += h->size;
	}
	__atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void *ll_read(void *arg)
{
	struct ll_reader *rd = arg;
	struct pollfd pfd[2] = {
		{ .fd = rd->sp->fd, .events = POLLIN },
		{ .fd = rd->stopfd, .events = POLLIN },
	};
	cpu_set_t set;
	int stop = 0;

	CPU_ZERO(&set);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	while (!stop) {
		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		stop = pfd[1].revents != 0;
		ring_drain(rd->sp->pg, &rd->sink);
	}
	return NULL;
}

/* One run at @period: the loop, with the reader draining; 0 if lossless */
static int ll_run(struct sampler *sp, uint64_t period, long samples,
		  double *ns, char *out, size_t out_len)
{
	struct ll_reader rd = { .sp = sp, .sink = { .out = out, .out_len = out_len } };
	uint64_t one = 1, t0;
	pthread_t th;
	int ret;

	if (ioctl(sp->fd, PERF_EVENT_IOC_PERIOD, &period))
		return fail("PERF_EVENT_IOC_PERIOD %llu: %s",
			    (unsigned long long)period, strerror(errno));
	rd.stopfd = eventfd(0, EFD_CLOEXEC);
	if (rd.stopfd < 0)
		return fail("eventfd: %s", strerror(errno));
	if (pthread_create(&th, NULL, ll_read, &rd)) {
		close(rd.stopfd);
		return fail("pthread_create failed");
	}
	t0 = now_ns();
	ioctl(sp->fd, PERF_EVENT_IOC_ENABLE, 0);
	/*
	 * @samples periods of this task's user time: under icount an
	 * instruction is a nanosecond, for task-clock as for the counter
	 * (no system call in the loop, so no sample falls in the kernel)
	 */
	insn_loop(period * samples / 2);
	ioctl(sp->fd, PERF_EVENT_IOC_DISABLE, 0);
	ret = write(rd.stopfd, &one, sizeof(one)) == sizeof(one) ? 0 : -1;
	pthread_join(th, NULL);
	*ns = (double)(now_ns() - t0) / (rd.sink.samples ? rd.sink.samples : 1);
	close(rd.stopfd);
	if (ret)
		return fail("eventfd write: %s", strerror(errno));
	if (rd.sink.bytes <= (uint64_t)LL_PAGES * sysconf(_SC_PAGESIZE))
		return fail("only %llu bytes of records at period %llu",
			    (unsigned long long)rd.sink.bytes,
			    (unsigned long long)period);
	return rd.sink.lost || rd.sink.throttled ? 1 : 0;
}

/* Write @val to /proc/sys/kernel/@name, the old value to @old; 0 or -1 */
int sysctl_set(const char *name, long val, long *old)
{
	char path[128];
	FILE *fp;
	int ok;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	fp = fopen(path, "r");
	if (!fp || fscanf(fp, "%ld", old) != 1) {
		if (fp)
			fclose(fp);
		return fail("read %s: %s", path, strerror(errno));
	}
	fclose(fp);
	fp = fopen(path, "w");
	ok = fp && fprintf(fp, "%ld\n", val) > 0;
	if (fp && fclose(fp))
		ok = 0;
	return ok ? 0 : fail("write %ld to %s: %s", val, path, strerror(errno));
}

/*
 * The highest sampling rate that a reader keeps up with, as ns per
 * sample (lower is better; 0.8 of stock is 1.25 times its rate): the
 * event samples (IP, TID, TIME) into a 1 MiB buffer, a reader thread on
 * CPU 1 drains it as perf record does (poll() at a quarter full, each
 * record copied out), and the loop runs for 49152 periods (1.9 MiB of
 * 40-byte records), so that the buffer overflows unless the reader keeps
 * up (a -s below 0.6 fails: the records would fit). The first
 * period is the smallest: if a run loses records (PERF_RECORD_LOST) or
 * is throttled, the period doubles. The throttle's rate limit is raised
 * out of the way for the metric (both kernels alike). lossless_hw:
 * instructions:u from a period of LL_HW_PERIOD (the rate is bounded by
 * the cost of a sample: the PMI, the record, the wakeup); lossless_tc:
 * task-clock from 10 us, 6.12's shortest clock period.
 */
#define LL_HW_PERIOD	250
#define LL_TC_PERIOD	10000

static int b_lossless(const struct metric *m, long iters, double *ns)
{
	long old_rate = 0, old_pct = 0;
	struct perf_event_attr a;
	struct sampler sp;
	size_t out_len = 4 << 20;
	char *out;
	int r, ret = -1;

	memset(&a, 0, sizeof(a));
	a.type = m->hw ? PERF_TYPE_HARDWARE : PERF_TYPE_SOFTWARE;
	a.config = m->hw ? PERF_COUNT_HW_INSTRUCTIONS : PERF_COUNT_SW_TASK_CLOCK;
	a.sample_period = m->hw ? LL_HW_PERIOD : LL_TC_PERIOD;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.watermark = 1;
	a.wakeup_watermark = LL_WATERMARK;
	out = malloc(out_len);
	if (!out)
		return fail("malloc");
	memset(out, 0, out_len);
	if (sysctl_set("perf_event_max_sample_rate", 100000000, &old_rate) ||
	    sysctl_set("perf_cpu_time_max_percent", 0, &old_pct))
		goto out_free;
	if (sampler_open(&sp, &a, LL_PAGES, m->hw ?
			 "instructions:u (no hardware PMU?)" : "task-clock"))
		goto out_sysctl;
	for (r = -1; r < reps; r++) {
		uint64_t period = a.sample_period;
		double v = 0;
		int k, lossy = 1;

		rep_begin();
		for (k = 0; k < LL_RUNGS && lossy; k++, period *= 2) {
			lossy = ll_run(&sp, period, iters, &v, out, out_len);
			if (lossy < 0)
				goto out_close;
		}
		if (lossy) {
			fail("records lost at every period up to %llu",
			     (unsigned long long)period / 2);
			goto out_close;
		}
		if (r >= 0)
			ns[r] = v;
	}
	ret = 0;
out_close:
	ret = sampler_close(&sp, ret);
out_sysctl:
	/* the rate may only be written while the percentage is not 0 */
	if (old_pct && sysctl_set("perf_cpu_time_max_percent", old_pct, &old_pct))
		ret = -1;
	if (old_rate && sysctl_set("perf_event_max_sample_rate", old_rate, &old_rate))
		ret = -1;
out_free:
	free(out);
	return ret;
}

/* ---- driver ------------------------------------------------------------ */

/* Iteration counts: about 20-40 ms of guest time per repetition. */
/*
 * The floor of a row (struct metric's floor) is its work without perf:
 * getppid() once per system call for the syscall rows, the ping-pong
 * without events for the switch rows, the bare fork for fork rows, "-"
 * where the row is already the difference with the same work unmonitored.
 */
#define SYS1	"null_syscall"
#define SYS2	"null_syscall*2"
#define CTX0	"ctxsw_0"

static const struct metric metrics[] = {
	{ "null_syscall",	 b_null_syscall, 100000, 0, 0, "ns/op", 0, 0 },
	{ "open_close_1",	 b_open_close,	 5000,   1, 0, "ns/op", 0, 0, SYS2 },
	{ "open_close_group4",	 b_open_close,	 1500,   4, 0, "ns/op", 0, 0,
	  "null_syscall*8" },
	{ "read_1",		 b_read,	 20000,  1, 0, "ns/op", 0, 0, SYS1 },
	{ "read_group4",	 b_read,	 20000,  4, 0, "ns/op", 0, 0, SYS1 },
	{ "ioctl_enable_disable", b_ioctl,	 15000,  1, 0, "ns/op", 0, 0, SYS2 },
	{ "ctxsw_0",		 b_ctxsw,	 4000,   0, 0, "ns/rt", 0, 0 },
	{ "ctxsw_1",		 b_ctxsw,	 4000,   1, 0, "ns/rt", 0, 0, CTX0 },
	{ "ctxsw_4",		 b_ctxsw,	 4000,   4, 0, "ns/rt", 0, 0, CTX0 },
	{ "ctxsw_16",		 b_ctxsw,	 2000,   16, 0, "ns/rt", 0, 0, CTX0 },
	{ "ctxsw_inherit_4",	 b_ctxsw,	 4000,   4, 1, "ns/rt", 0, 0, CTX0 },
	{ "ctxsw_inherit_16",	 b_ctxsw,	 2000,   16, 1, "ns/rt", 0, 0, CTX0 },
	{ "fork_exit_0",	 b_fork,	 200,    0, 0, "ns/op", 0, 0 },
	{ "fork_exit_inherit_4", b_fork,	 200,    4, 1, "ns/op", 0, 0,
	  "fork_exit_0" },
	{ "sample_fault",	 b_sample_fault, 2000,	 0, 0, "ns/sample", 0, 0, "-" },
	{ "pmi_sample",		 b_pmi,		 10000000, 0, 0, "ns/PMI", 0, 0, "-" },
	{ "pebs_sample",	 b_pmi,		 3000000, 0, 0, "ns/sample", 0, 2, "-" },
	{ "read_hw_1",		 b_read_hw,	 20000,  1, 0, "ns/op", 0, 0, SYS1 },
	{ "rdpmc_self",		 b_rdpmc_self,	 100000, 1, 0, "ns/op", 0, 0 },
	{ "ctxsw_mux_24",	 b_ctxsw,	 2000,   24, 0, "ns/rt", 1, 0, CTX0 },
	{ "bpf_sample",		 b_bpf_sample,	 10000000, 0, 0, "ns/PMI", 0, 0, "-" },
	{ "uprobe_hit",		 b_uprobe_hit,	 10000,  0, 0, "ns/hit", 0, 0, "-" },
	{ "lossless_hw",	 b_lossless,	 49152,	 0, 0, "ns/sample", 1, 0 },
	{ "lossless_tc",	 b_lossless,	 49152,	 0, 0, "ns/sample", 0, 0 },
	{ "bts_branch",		 b_bts,		 40000,	 0, 0, "ns/branch", 0, 0, "-" },
	{ "pt_loop",		 b_pt,		 200000, 0, 0, "ns/loop", 0, 0, "-" },
	{ "pt_aux_4m",		 b_pt,		 2000000, 1, 0, "ns/KiB", 0, 0, "-" },
	/* scale rows (scale.c) */
	{ "cgroup_switch_0",	 b_cgroup_switch, 2000,	 0, 0, "ns/rt", 0, 0, NULL, 0 },
	{ "cgroup_switch_1",	 b_cgroup_switch, 2000,	 0, 0, "ns/rt", 0, 0,
	  "cgroup_switch_0", 1 },
	{ "cgroup_switch_8",	 b_cgroup_switch, 2000,	 0, 0, "ns/rt", 0, 0,
	  "cgroup_switch_0", 8 },
	{ "cgroup_switch_64",	 b_cgroup_switch, 1000,	 0, 0, "ns/rt", 0, 0,
	  "cgroup_switch_0", 64 },
	{ "open_close_busy_1",	 b_open_close_busy, 3000, 0, 0, "ns/op", 0, 0, SYS2, 1 },
	{ "open_close_busy_1000", b_open_close_busy, 2000, 0, 0, "ns/op", 0, 0,
	  SYS2, 1000 },
	{ "open_close_busy_10000", b_open_close_busy, 1000, 0, 0, "ns/op", 0, 0,
	  SYS2, 10000 },
	{ "ctxsw_groups_16",	 b_ctxsw,	 1000,   16, 0, "ns/rt", 1, 0, CTX0, 16 },
	{ "ctxsw_groups_64",	 b_ctxsw,	 500,    64, 0, "ns/rt", 1, 0, CTX0, 64 },
	{ "ctxsw_groups_256",	 b_ctxsw,	 200,    256, 0, "ns/rt", 1, 0, CTX0, 256 },
	{ "threads_4",		 b_threads,	 200,	 0, 0, "ns/op", 0, 0, NULL, 4 },
	{ "threads_32",		 b_threads,	 40,	 0, 0, "ns/op", 0, 0, NULL, 32 },
	{ "threads_128",	 b_threads,	 10,	 0, 0, "ns/op", 0, 0, NULL, 128 },
	{ "inherit_threads_4",	 b_threads,	 200,	 8, 1, "ns/op", 0, 0,
	  "threads_4", 4 },
	{ "inherit_threads_32",	 b_threads,	 40,	 8, 1, "ns/op", 0, 0,
	  "threads_32", 32 },
	{ "inherit_threads_128", b_threads,	 10,	 8, 1, "ns/op", 0, 0,
	  "threads_128", 128 },
	{ "syswide_stat",	 b_syswide_stat, 20,	 0, 0, "ns/op", 0, 0, NULL, -1 },
	{ "syswide_record",	 b_syswide_record, 1,	 0, 0, "ns/sample", 1, 0, "-", -1 },
	/* user-visible overhead (tool.c): the tool boot of bench.sh */
	{ "tool_gzip",		 b_tool,	 1,	 0, 0, "ns/run", 0, 0 },
	{ "tool_gzip_record",	 b_tool,	 1,	 0, 1, "ns/run", 0, 0, "tool_gzip" },
	{ "tool_gzip_stat",	 b_tool,	 1,	 0, 2, "ns/run", 0, 0, "tool_gzip" },
	{ "tool_gzip_stat_cache4", b_tool,	 1,	 0, 3, "ns/run", 0, 0, "tool_gzip" },
	{ "tool_cc",		 b_tool,	 1,	 1, 0, "ns/run", 0, 0 },
	{ "tool_cc_record",	 b_tool,	 1,	 1, 1, "ns/run", 0, 0, "tool_cc" },
	{ "tool_cc_stat",	 b_tool,	 1,	 1, 2, "ns/run", 0, 0, "tool_cc" },
	{ "tool_true",		 b_tool,	 1,	 2, 0, "ns/run", 0, 0 },
	{ "tool_true_stat_cache4", b_tool,	 1,	 2, 3, "ns/run", 0, 0, "tool_true" },
};

#define NR_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Child side: run one metric and print its line. */
static int run_metric(const struct metric *m, double scale)
{
	double ns[MAX_REPS];
	long iters = (long)(m->iters * scale);
	int size = m->size;
	char name[64];
	cpu_set_t set;

	snprintf(name, sizeof(name), "%s", m->name);
	if (iters < 1)
		iters = 1;
	alarm(WATCHDOG_S);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("@@BENCH-FAIL %s sched_setaffinity(CPU 0): %s\n", m->name,
		       strerror(errno));
		return 1;
	}
	/* a run of the perf tool takes a guest second: 3 are enough */
	if (m->fn == b_tool && reps > 3)
		reps = 3;
	if (m->size < 0) {
		size = sysconf(_SC_NPROCESSORS_ONLN);
		snprintf(name, sizeof(name), "%s_%d", m->name, size);
	}
	switch (m->fn(m, iters, ns)) {
	case 0:
		break;
	case SKIPPED:
		printf("@@BENCH-SKIP %s %s\n", name, errbuf);
		return 0;
	default:
		printf("@@BENCH-FAIL %s %s\n", name, errbuf);
		return 1;
	}
	printf("@@BENCH-REPS %s", name);
	for (int r = 0; r < reps; r++)
		printf(" %.1f", ns[r]);
	printf("\n");
	qsort(ns, reps, sizeof(ns[0]), cmp_double);
	printf("@@BENCH %s %.1f %.1f %.1f %s reps=%d iters=%ld", name,
	       ns[reps / 2], ns[0], ns[reps - 1], m->unit, reps, iters);
	if (floor_override[0])
		printf(" floor=%s", floor_override);
	else if (m->floor)
		printf(" floor=%s", m->floor);
	if (size)
		printf(" size=%d", size);
	printf("\n");
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: perf-bench [-r REPS] [-s SCALE] [-z SETTLE_MS] [-l] [METRIC...]\n");
	return 2;
}

int main(int argc, char **argv)
{
	double scale = 1.0;
	int opt, ok = 0, failed = 0;
	size_t i;

	while ((opt = getopt(argc, argv, "r:s:z:l")) != -1) {
		switch (opt) {
		case 'r':
			reps = atoi(optarg);
			if (reps < 1 || reps > MAX_REPS)
				return usage();
			break;
		case 's':
			scale = atof(optarg);
			if (scale <= 0)
				return usage();
			break;
		case 'z':
			settle_ms = atoi(optarg);
			if (settle_ms < 0)
				return usage();
			break;
		case 'l':
			for (i = 0; i < NR_METRICS; i++)
				printf("%s %s\n", metrics[i].name, metrics[i].unit);
			return 0;
		default:
			return usage();
		}
	}
	for (int a = optind; a < argc; a++) {
		for (i = 0; i < NR_METRICS; i++)
			if (!strcmp(argv[a], metrics[i].name))
				break;
		if (i == NR_METRICS) {
			fprintf(stderr, "perf-bench: unknown metric %s\n", argv[a]);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("@@BENCH-BEGIN reps=%d scale=%g settle_ms=%d\n", reps, scale, settle_ms);

	for (i = 0; i < NR_METRICS; i++) {
		const struct metric *m = &metrics[i];
		int status, sel = optind == argc;
		pid_t pid;

		for (int a = optind; a < argc; a++)
			sel |= !strcmp(argv[a], m->name);
		if (!sel)
			continue;
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			printf("@@BENCH-FAIL %s fork: %s\n", m->name, strerror(errno));
			failed++;
			continue;
		}
		if (pid == 0)
			_exit(run_metric(m, scale));
		if (waitpid(pid, &status, 0) != pid) {
			printf("@@BENCH-FAIL %s waitpid: %s\n", m->name, strerror(errno));
			failed++;
		} else if (WIFSIGNALED(status)) {
			printf("@@BENCH-FAIL %s killed by signal %d%s\n", m->name,
			       WTERMSIG(status),
			       WTERMSIG(status) == SIGALRM ? " (watchdog)" : "");
			failed++;
		} else if (WEXITSTATUS(status)) {
			failed++;	/* the child printed why */
		} else {
			ok++;
		}
	}
	printf("@@BENCH-END ok=%d failed=%d\n", ok, failed);
	return failed ? 1 : 0;
}
