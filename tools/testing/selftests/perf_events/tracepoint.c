// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint events (PERF_TYPE_TRACEPOINT, config = the id in tracefs):
 * exact counts, filters (PERF_EVENT_IOC_SET_FILTER), and samples that
 * carry the tracepoint's record as PERF_SAMPLE_RAW, laid out as the
 * tracepoint's tracefs "format" file says; then perf record/script.
 *
 * The tracepoint is signal:signal_generate: it fires exactly once per
 * kill(), in the sender, even for an ignored signal, so the counts are
 * known. Root only: tracefs is root's.
 */
#include "perf_test.h"

#include <sys/mount.h>

#define TRACEFS		"/sys/kernel/tracing"
#define TP_DIR		TRACEFS "/events/signal/signal_generate"
/* per-CPU events in the test of a tracepoint about another task */
#define PT_MAX_CPUS	64

struct tp_field {
	int off;
	int size;
};

/* The tracepoint's id; mounts tracefs if needed; -1 if there is none. */
static int tp_id(void)
{
	long long id;

	if (pt_read_int_file(TP_DIR "/id", &id) == 0)
		return (int)id;
	mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (pt_read_int_file(TP_DIR "/id", &id) == 0)
		return (int)id;
	return -1;
}

/* Offset and size of field @name, from the format file; 0 or -1. */
static int tp_field(const char *name, struct tp_field *f)
{
	char line[512], want[80];
	FILE *fp = fopen(TP_DIR "/format", "r");
	int found = -1;

	if (!fp)
		return -1;
	snprintf(want, sizeof(want), " %s;", name);
	while (fgets(line, sizeof(line), fp)) {
		char *decl = strstr(line, "field:");
		char *semi, *off, *size;

		if (!decl)
			continue;
		semi = strchr(decl, ';');
		off = strstr(line, "offset:");
		size = strstr(line, "size:");
		if (!semi || !off || !size)
			continue;
		/* the declaration ends in " name;" */
		if (semi - decl < (long)strlen(want) - 1 ||
		    strncmp(semi - strlen(want) + 1, want, strlen(want)))
			continue;
		f->off = atoi(off + 7);
		f->size = atoi(size + 5);
		found = 0;
		break;
	}
	fclose(fp);
	return found;
}

static void tp_attr(struct perf_event_attr *attr, int id, __u64 period,
		    __u64 sample_type)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = PERF_TYPE_TRACEPOINT;
	attr->size = sizeof(*attr);
	attr->config = id;
	attr->sample_period = period;
	attr->sample_type = sample_type;
	attr->disabled = 1;
	attr->wakeup_events = 1;
}

/* @n signals to ourselves, ignored: @sigs[i % nsigs] */
static void send_signals(const int *sigs, int nsigs, int n)
{
	int i;

	for (i = 0; i < n; i++)
		kill(getpid(), sigs[i % nsigs]);
}

static int raw_int(const unsigned char *raw, struct tp_field f)
{
	int v = 0;

	memcpy(&v, raw + f.off, f.size < 4 ? f.size : 4);
	return v;
}

FIXTURE(tp)
{
	int id;
};

FIXTURE_SETUP(tp)
{
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	self->id = tp_id();
	if (self->id < 0)
		SKIP(return, "no " TP_DIR " (tracefs, CONFIG_EVENT_TRACING)");
}

FIXTURE_TEARDOWN(tp)
{
}

TEST_F(tp, counts_every_hit_exactly)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2 };
	struct perf_event_attr attr;
	int fd;

	tp_attr(&attr, self->id, 0, 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	send_signals(sigs, 2, 3);		/* not counted: disabled */
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	send_signals(sigs, 2, 7);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	send_signals(sigs, 2, 5);
	EXPECT_EQ(7, pt_read1(fd));
	close(fd);
}

TEST_F(tp, filter_selects_hits)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGUSR2 };
	struct perf_event_attr attr;
	int fd;

	tp_attr(&attr, self->id, 0, 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "nosuchfield == 1"));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "sig == 12"))
		TH_LOG("SET_FILTER: %s", strerror(errno));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	send_signals(sigs, 3, 9);		/* 3 SIGUSR1, 6 SIGUSR2 */
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(6, pt_read1(fd));
	close(fd);
}

/* The common fields are filled in before the filter sees the record */
TEST_F(tp, filter_on_common_pid)
{
	static const int sigs[] = { SIGUSR1 };
	struct perf_event_attr attr;
	char filter[64];
	int fd, fd2;

	tp_attr(&attr, self->id, 0, 0);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	fd2 = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd2);
	snprintf(filter, sizeof(filter), "common_pid == %d", pt_gettid());
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filter));
	snprintf(filter, sizeof(filter), "common_pid != %d", pt_gettid());
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_SET_FILTER, filter));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	ASSERT_EQ(0, pt_ioctl(fd2, PERF_EVENT_IOC_ENABLE));
	send_signals(sigs, 1, 5);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_ioctl(fd2, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(5, pt_read1(fd));
	EXPECT_EQ(0, pt_read1(fd2));
	close(fd);
	close(fd2);
}

/* A software event has no tracepoint filter to set */
TEST_F(tp, filter_on_a_software_event_is_einval)
{
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);

	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "sig == 12"));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST_F(tp, samples_carry_the_record_as_raw)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGUSR2, SIGUSR1 };
	struct tp_field type = { 0, 2 }, cpid, sig, pid;
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct pt_recs r;
	struct pt_rb rb;
	int fd, k = 0;

	ASSERT_EQ(0, tp_field("common_type", &type));
	ASSERT_EQ(0, tp_field("common_pid", &cpid));
	ASSERT_EQ(0, tp_field("sig", &sig));
	ASSERT_EQ(0, tp_field("pid", &pid));
	tp_attr(&attr, self->id, 1, PERF_SAMPLE_TID | PERF_SAMPLE_RAW);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	send_signals(sigs, 4, 12);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	EXPECT_EQ(12, pt_recs_count(&r, PERF_RECORD_SAMPLE));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		struct pt_sample s;

		ASSERT_EQ(h->size - 8, pt_sample_parse(&attr, h, &s));
		EXPECT_EQ(getpid(), s.pid);
		EXPECT_EQ(pt_gettid(), s.tid);
		/* u32 size + data end on a u64 boundary */
		EXPECT_EQ(4, s.raw_size % 8) TH_LOG("raw size %u", s.raw_size);
		ASSERT_LE(pid.off + pid.size, (int)s.raw_size);
		EXPECT_EQ(self->id, raw_int(s.raw, type) & 0xffff);
		EXPECT_EQ(pt_gettid(), raw_int(s.raw, cpid));
		EXPECT_EQ(sigs[k % 4], raw_int(s.raw, sig)) TH_LOG("sample %d", k);
		EXPECT_EQ(getpid(), raw_int(s.raw, pid));
		k++;
	}
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST_F(tp, period_three_samples_every_third_hit)
{
	static const int sigs[] = { SIGUSR1, SIGUSR2, SIGUSR1 };
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct tp_field sig;
	struct pt_recs r;
	struct pt_rb rb;
	int fd;

	ASSERT_EQ(0, tp_field("sig", &sig));
	tp_attr(&attr, self->id, 3, PERF_SAMPLE_RAW);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	send_signals(sigs, 3, 10);	/* hits 3, 6, 9: SIGUSR1 each */
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(10, pt_read1(fd));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(3, pt_recs_count(&r, PERF_RECORD_SAMPLE));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		struct pt_sample s;

		ASSERT_EQ(h->size - 8, pt_sample_parse(&attr, h, &s));
		EXPECT_EQ(SIGUSR1, raw_int(s.raw, sig));
	}
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

/* A child that sleeps in read() on @fd until it reads 'q' */
static pid_t sleeper(int fd)
{
	pid_t pid = fork();
	char c;

	if (pid == 0) {
		int i;

		/* the write ends too: the test's exit is then an EOF here */
		for (i = 3; i < 64; i++)
			if (i != fd)
				close(i);
		while (read(fd, &c, 1) == 1 && c != 'q')
			;
		_exit(0);
	}
	return pid;
}

/*
 * Wait until @pid is asleep in its read(): state S, and off the CPU
 * (a wait channel), as S alone is also the moment before it queues
 * itself on the pipe, when a write would wake nobody.
 */
static int wait_sleeping(pid_t pid)
{
	char path[64], wpath[64], buf[256], wchan[64], *st;
	int tries;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	snprintf(wpath, sizeof(wpath), "/proc/%d/wchan", pid);
	for (tries = 0; tries < 1000000; tries++) {
		if (pt_read_file(path, buf, sizeof(buf)))
			return -1;
		st = strrchr(buf, ')');
		if (st && st[1] == ' ' && st[2] == 'S' &&
		    !pt_read_file(wpath, wchan, sizeof(wchan)) &&
		    strstr(wchan, "pipe_read"))
			return 0;
		/* no timer sleep: its wakeup would be a sched_waking too */
		sched_yield();
	}
	return -1;
}

/*
 * sched:sched_waking fires in the waker but names the woken task
 * (__perf_task): the task's events bound to the waker's CPU count each
 * of its wakeups, so per-CPU events opened on a sleeping task add up to
 * its wakeups, and only its own (the filter on the record's pid keeps
 * out wakeups of others that happen while the task itself runs). An
 * event on all CPUs (cpu -1) of the task does not see them, as in 6.12.
 */
TEST(tracepoint_about_another_task_counts_in_its_context)
{
	struct perf_event_attr attr;
	int p[2][2], fd[2][PT_MAX_CPUS], any[2], i, t, cpu, ncpu;
	static const int wakeups[2] = { 5, 3 };
	long long id, sum;
	char filter[64];
	pid_t c[2];

	if (tp_id() < 0 ||
	    pt_read_int_file(TRACEFS "/events/sched/sched_waking/id", &id))
		SKIP(return, "no sched:sched_waking tracepoint");
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	ASSERT_GE(PT_MAX_CPUS, ncpu);
	for (t = 0; t < 2; t++) {
		ASSERT_EQ(0, pipe(p[t]));
		c[t] = sleeper(p[t][0]);
		ASSERT_LT(0, c[t]);
	}

	/*
	 * Disabled until filtered: the sleepers may still be running their
	 * first steps, and an unfiltered event of a running task counts
	 * every sched_waking on its CPU (an interrupt waking a kthread)
	 */
	tp_attr(&attr, id, 0, 0);
	for (t = 0; t < 2; t++) {
		snprintf(filter, sizeof(filter), "pid == %d", c[t]);
		for (cpu = 0; cpu < ncpu; cpu++) {
			fd[t][cpu] = sys_perf_event_open(&attr, c[t], cpu, -1, 0);
			ASSERT_LE(0, fd[t][cpu]) TH_LOG("open: %s", strerror(errno));
			ASSERT_EQ(0, ioctl(fd[t][cpu], PERF_EVENT_IOC_SET_FILTER,
					   filter));
			ASSERT_EQ(0, pt_ioctl(fd[t][cpu], PERF_EVENT_IOC_ENABLE));
		}
		any[t] = sys_perf_event_open(&attr, c[t], -1, -1, 0);
		ASSERT_LE(0, any[t]);
		ASSERT_EQ(0, ioctl(any[t], PERF_EVENT_IOC_SET_FILTER, filter));
		ASSERT_EQ(0, pt_ioctl(any[t], PERF_EVENT_IOC_ENABLE));
	}

	/* 5 wakeups of the first, 3 of the second, each asleep in read() */
	for (t = 0; t < 2; t++) {
		for (i = 0; i < wakeups[t]; i++) {
			ASSERT_EQ(0, wait_sleeping(c[t]));
			ASSERT_EQ(1, write(p[t][1], "x", 1));
		}
	}
	for (t = 0; t < 2; t++) {
		char per_cpu[256] = "";

		ASSERT_EQ(0, wait_sleeping(c[t]));
		sum = 0;
		for (cpu = 0; cpu < ncpu; cpu++) {
			long long v = pt_read1(fd[t][cpu]);
			size_t len = strlen(per_cpu);

			snprintf(per_cpu + len, sizeof(per_cpu) - len, " %lld", v);
			sum += v;
		}
		EXPECT_EQ(wakeups[t], sum) TH_LOG("task %d, per CPU:%s", t, per_cpu);
		EXPECT_EQ(0, pt_read1(any[t]));
	}

	for (t = 0; t < 2; t++) {
		for (cpu = 0; cpu < ncpu; cpu++)
			close(fd[t][cpu]);
		close(any[t]);
		ASSERT_EQ(1, write(p[t][1], "q", 1));
		waitpid(c[t], NULL, 0);
	}
}

/* The countdown to the next sample carries over context switches. */
TEST_F(tp, period_three_across_context_switches)
{
	struct perf_event_attr attr;
	struct pt_recs r;
	struct pt_rb rb;
	int fd, i;

	tp_attr(&attr, self->id, 3, PERF_SAMPLE_RAW);
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	for (i = 0; i < 9; i++) {
		kill(getpid(), SIGUSR1);
		/* off the CPU and back between any two hits */
		usleep(1000);
	}
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	EXPECT_EQ(9, pt_read1(fd));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(3, pt_recs_count(&r, PERF_RECORD_SAMPLE));
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

/*
 * A witness of every sched_waking of @pid: CPU-wide events (the CPU's
 * list of the tracepoint, not the woken task's context), each hit a
 * sample of the waker's pid, tid, CPU and kernel stack.
 */
struct tp_witness {
	int ncpu;
	int fd[PT_MAX_CPUS];
	struct pt_rb rb[PT_MAX_CPUS];
};

static int witness_open(struct tp_witness *w, long long id, pid_t pid)
{
	struct perf_event_attr attr;
	char filter[64];
	int cpu;

	w->ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	tp_attr(&attr, id, 1, PERF_SAMPLE_TID | PERF_SAMPLE_CPU |
		PERF_SAMPLE_CALLCHAIN);
	attr.exclude_callchain_user = 1;
	snprintf(filter, sizeof(filter), "pid == %d", pid);
	for (cpu = 0; cpu < w->ncpu; cpu++) {
		w->fd[cpu] = sys_perf_event_open(&attr, -1, cpu, -1, 0);
		if (w->fd[cpu] < 0 ||
		    ioctl(w->fd[cpu], PERF_EVENT_IOC_SET_FILTER, filter) ||
		    pt_rb_map(&w->rb[cpu], w->fd[cpu], 8) ||
		    pt_ioctl(w->fd[cpu], PERF_EVENT_IOC_ENABLE))
			return -1;
	}
	return 0;
}

/* The wakeups the witness saw; each logged when @log */
static int witness_close(struct __test_metadata *_metadata,
			 struct tp_witness *w, bool log)
{
	struct perf_event_header *h;
	struct pt_recs r;
	int cpu, n = 0;

	for (cpu = 0; cpu < w->ncpu; cpu++) {
		ioctl(w->fd[cpu], PERF_EVENT_IOC_DISABLE, 0);
		if (pt_rb_drain(&w->rb[cpu], &r))
			continue;
		pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
			struct {
				__u32 pid, tid, cpu, res;
				__u64 nr, ip[];
			} *s = (void *)(h + 1);
			char chain[256] = "";
			__u64 i;

			n++;
			for (i = 0; log && i < s->nr && i < 12; i++) {
				size_t len = strlen(chain);

				snprintf(chain + len, sizeof(chain) - len,
					 " %llx", (unsigned long long)s->ip[i]);
			}
			if (log)
				TH_LOG("waking by %u/%u on CPU %u:%s", s->pid,
				       s->tid, s->cpu, chain);
		}
		pt_recs_free(&r);
		pt_rb_unmap(&w->rb[cpu]);
		close(w->fd[cpu]);
	}
	return n;
}

/*
 * A hit about another task is counted but never sampled (as in 6.12): a
 * sample would be taken in the waker, with the waker's registers and
 * user stack, which are none of the woken task's business.
 */
TEST(tracepoint_about_another_task_is_counted_not_sampled)
{
	struct perf_event_attr attr;
	struct pt_rb rb[PT_MAX_CPUS];
	int p[2], fd[PT_MAX_CPUS], i, cpu, ncpu;
	struct pt_recs r;
	long long id, sum = 0, samples = 0;
	struct perf_event_header *h;
	struct tp_witness w;
	char filter[64], per_cpu[256] = "";
	int seen;
	pid_t c;

	if (tp_id() < 0 ||
	    pt_read_int_file(TRACEFS "/events/sched/sched_waking/id", &id))
		SKIP(return, "no sched:sched_waking tracepoint");
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	ASSERT_GE(PT_MAX_CPUS, ncpu);
	ASSERT_EQ(0, pipe(p));
	c = sleeper(p[0]);
	ASSERT_LT(0, c);

	ASSERT_EQ(0, witness_open(&w, id, c));
	/* disabled until filtered (as in the test above) */
	tp_attr(&attr, id, 1, PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN);
	snprintf(filter, sizeof(filter), "pid == %d", c);
	for (cpu = 0; cpu < ncpu; cpu++) {
		fd[cpu] = sys_perf_event_open(&attr, c, cpu, -1, 0);
		ASSERT_LE(0, fd[cpu]) TH_LOG("open: %s", strerror(errno));
		ASSERT_EQ(0, ioctl(fd[cpu], PERF_EVENT_IOC_SET_FILTER, filter));
		ASSERT_EQ(0, pt_rb_map(&rb[cpu], fd[cpu], 4));
		ASSERT_EQ(0, pt_ioctl(fd[cpu], PERF_EVENT_IOC_ENABLE));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, wait_sleeping(c));
		ASSERT_EQ(1, write(p[1], "x", 1));
	}
	ASSERT_EQ(0, wait_sleeping(c));
	for (cpu = 0; cpu < ncpu; cpu++) {
		long long v = pt_read1(fd[cpu]);
		size_t len = strlen(per_cpu);

		snprintf(per_cpu + len, sizeof(per_cpu) - len, " %lld", v);
		sum += v;
		ASSERT_EQ(0, pt_rb_drain(&rb[cpu], &r));
		samples += pt_recs_count(&r, PERF_RECORD_SAMPLE);
		pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
			__u64 *ip = (void *)(h + 1), k;

			TH_LOG("sample in CPU %d's event: ip %llx, %llu ips",
			       cpu, ip[0], ip[1]);
			for (k = 0; k < ip[1] && k < 16; k++)
				TH_LOG("  %llx", ip[2 + k]);
		}
		pt_recs_free(&r);
		pt_rb_unmap(&rb[cpu]);
		close(fd[cpu]);
	}
	seen = witness_close(_metadata, &w, sum != 4 || samples);
	EXPECT_EQ(4, sum) TH_LOG("%lld wakeups counted (per CPU:%s), %d seen",
				 sum, per_cpu, seen);
	EXPECT_EQ(0, samples) TH_LOG("%lld samples", samples);
	ASSERT_EQ(1, write(p[1], "q", 1));
	waitpid(c, NULL, 0);
}

/* perf record -e signal:signal_generate; perf script prints the fields */
TEST_F(tp, perf_record_and_script)
{
	char cmd[256], line[512];
	int seen = 0;
	pid_t child;
	FILE *fp;

	if (system("perf --version >/dev/null 2>&1"))
		SKIP(return, "no perf tool");
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		for (;;)
			pause();
	}
	snprintf(cmd, sizeof(cmd),
		 "perf record -q -e signal:signal_generate -o /tmp/tp.data "
		 "-- kill -USR1 %d 2>&1", child);
	EXPECT_EQ(0, system(cmd));
	snprintf(cmd, sizeof(cmd), "perf script -i /tmp/tp.data 2>/dev/null");
	fp = popen(cmd, "r");
	ASSERT_NE(NULL, fp);
	snprintf(cmd, sizeof(cmd), "pid=%d ", child);
	while (fgets(line, sizeof(line), fp)) {
		if (strstr(line, "signal:signal_generate:") &&
		    strstr(line, "sig=10 ") && strstr(line, cmd))
			seen++;
		else
			TH_LOG("%s", line);
	}
	pclose(fp);
	kill(child, SIGKILL);
	pt_wait_exit(child);
	unlink("/tmp/tp.data");
	/* perf's own SIGCHLD from kill's exit may be there too */
	EXPECT_EQ(1, seen);
}

TEST_HARNESS_MAIN
