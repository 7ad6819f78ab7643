// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup events: perf_event_open() with PERF_FLAG_PID_CGROUP, the
 * perf_event controller on cgroup v2, PERF_SAMPLE_CGROUP,
 * PERF_RECORD_CGROUP, the cgroup-switches software event, and perf's
 * cgroup options (stat -G, stat --for-each-cgroup, record --all-cgroups).
 *
 * Child processes pinned to one CPU move themselves into the test's
 * cgroups (ptA, ptB under /sys/fs/cgroup, cgroup v2, mounted here if it
 * is not) and make exact numbers of page faults there; the cgroup events
 * on that CPU must see exactly the faults made while a task of their
 * cgroup, or of one below it, ran. Needs root.
 */
#include "perf_test.h"
#include <dirent.h>
#include <sys/stat.h>

#define CG_ROOT		PT_CGROUP_ROOT
#define CG_A		CG_ROOT "/ptA"
#define CG_B		CG_ROOT "/ptB"
#define CG_A1		CG_A "/ptA1"
#define NPAGES_A	300
#define NPAGES_B	200
/* faults besides the touched pages (the cgroup.procs writes, exit) */
#define SLACK		20

#ifndef PERF_FLAG_PID_CGROUP
#define PERF_FLAG_PID_CGROUP	(1UL << 2)
#endif
#ifndef PERF_SAMPLE_CGROUP
#define PERF_SAMPLE_CGROUP	(1U << 21)
#endif
#ifndef PERF_RECORD_CGROUP
#define PERF_RECORD_CGROUP	19
#endif

static int cg_open(const char *cg)
{
	return open(cg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* the cgroup id: what name_to_handle_at() says of the directory */
static __u64 cg_id(const char *cg)
{
	struct {
		struct file_handle fh;
		__u64 id;
	} h = { .fh.handle_bytes = sizeof(__u64) };
	int mnt;

	if (name_to_handle_at(AT_FDCWD, cg, &h.fh, &mnt, 0))
		return 0;
	return h.id;
}

/* a page-fault counter of cgroup @cgfd on @cpu, or -errno */
static int cg_event(int cgfd, int cpu, __u64 config, int group)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = sys_perf_event_open(&attr, cgfd, cpu, group,
				 PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * A child on @cpu: @na pages touched in @a, then @nb in @b (NULL: none),
 * then back to the root cgroup.
 */
static pid_t cg_child(int cpu, const char *a, int na, const char *b, int nb)
{
	pid_t pid = fork();
	char *pa, *pb;

	if (pid)
		return pid;
	if (pt_pin_cpu(0, cpu))
		_exit(10);
	pa = pt_map_pages(na);
	pb = nb ? pt_map_pages(nb) : NULL;
	if (!pa || (nb && !pb))
		_exit(11);
	if (pt_cgroup_enter(a))
		_exit(12);
	pt_touch(pa, na);
	if (b) {
		if (pt_cgroup_enter(b))
			_exit(13);
		pt_touch(pb, nb);
	}
	if (pt_cgroup_enter(CG_ROOT))
		_exit(14);
	_exit(0);
}

FIXTURE(cg) {
	int a, b, a1;
	int cpu;
};

FIXTURE_SETUP(cg)
{
	if (geteuid())
		SKIP(return, "cgroups need root");
	ASSERT_EQ(0, pt_cgroup_mount()) TH_LOG("mount cgroup2: %s", strerror(errno));
	mkdir(CG_A, 0755);
	mkdir(CG_B, 0755);
	mkdir(CG_A1, 0755);
	self->a = cg_open(CG_A);
	self->b = cg_open(CG_B);
	self->a1 = cg_open(CG_A1);
	ASSERT_LE(0, self->a);
	ASSERT_LE(0, self->b);
	ASSERT_LE(0, self->a1);
	self->cpu = pt_nth_cpu(pt_nr_cpus() - 1);
}

FIXTURE_TEARDOWN(cg)
{
	if (geteuid())
		return;
	close(self->a);
	close(self->b);
	close(self->a1);
	rmdir(CG_A1);
	rmdir(CG_A);
	rmdir(CG_B);
}

TEST_F(cg, events_count_only_while_their_cgroup_runs)
{
	int fa = cg_event(self->a, self->cpu, PERF_COUNT_SW_PAGE_FAULTS, -1);
	int fb = cg_event(self->b, self->cpu, PERF_COUNT_SW_PAGE_FAULTS, -1);
	struct pt_val3 va, vb;
	pid_t pid;

	ASSERT_LE(0, fa) TH_LOG("open: %s", strerror(-fa));
	ASSERT_LE(0, fb);
	pid = cg_child(self->cpu, CG_A, NPAGES_A, CG_B, NPAGES_B);
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, pt_read3(fa, &va));
	ASSERT_EQ(0, pt_read3(fb, &vb));
	EXPECT_LE(NPAGES_A, va.value);
	EXPECT_GE(NPAGES_A + SLACK, va.value);
	EXPECT_LE(NPAGES_B, vb.value);
	EXPECT_GE(NPAGES_B + SLACK, vb.value);
	close(fa);
	close(fb);
}

TEST_F(cg, a_cgroup_counts_its_descendants)
{
	int fa = cg_event(self->a, self->cpu, PERF_COUNT_SW_PAGE_FAULTS, -1);
	int fa1 = cg_event(self->a1, self->cpu, PERF_COUNT_SW_PAGE_FAULTS, -1);
	struct pt_val3 va, va1;
	pid_t pid;

	ASSERT_LE(0, fa);
	ASSERT_LE(0, fa1);
	pid = cg_child(self->cpu, CG_A1, NPAGES_A, NULL, 0);
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, pt_read3(fa, &va));
	ASSERT_EQ(0, pt_read3(fa1, &va1));
	EXPECT_LE(NPAGES_A, va1.value);
	EXPECT_GE(NPAGES_A + SLACK, va1.value);
	EXPECT_LE(va1.value, va.value);
	EXPECT_GE(va1.value + SLACK, va.value);
	close(fa);
	close(fa1);
}

/*
 * A group's member outlives its closed leader as a group of its own, and
 * still goes on at every switch into its cgroup (a cgroup switch offers
 * the PMU only the groups of the two cgroups' chains: the member must be
 * on its cgroup's list once it leads).
 */
TEST_F(cg, a_closed_leaders_member_keeps_counting)
{
	int leader = cg_event(self->a, self->cpu, PERF_COUNT_SW_PAGE_FAULTS, -1);
	int member, other;
	struct pt_val3 v, vo;
	pid_t pid;

	ASSERT_LE(0, leader);
	member = cg_event(self->a, self->cpu, PERF_COUNT_SW_PAGE_FAULTS, leader);
	ASSERT_LE(0, member);
	other = cg_event(self->b, self->cpu, PERF_COUNT_SW_PAGE_FAULTS, -1);
	ASSERT_LE(0, other);
	close(leader);
	pid = cg_child(self->cpu, CG_A, NPAGES_A, CG_B, NPAGES_B);
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, pt_read3(member, &v));
	ASSERT_EQ(0, pt_read3(other, &vo));
	EXPECT_LE(NPAGES_A, v.value);
	EXPECT_GE(NPAGES_A + SLACK, v.value);
	EXPECT_LE(NPAGES_B, vo.value);
	EXPECT_GE(NPAGES_B + SLACK, vo.value);
	close(member);
	close(other);
}

TEST_F(cg, other_cpus_see_nothing)
{
	int other = pt_nr_cpus() > 1 ? pt_nth_cpu(0) : -1;
	struct pt_val3 v;
	pid_t pid;
	int fd;

	if (other < 0 || other == self->cpu)
		SKIP(return, "one CPU");
	fd = cg_event(self->a, other, PERF_COUNT_SW_PAGE_FAULTS, -1);
	ASSERT_LE(0, fd);
	pid = cg_child(self->cpu, CG_A, NPAGES_A, NULL, 0);
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, pt_read3(fd, &v));
	EXPECT_EQ(0, v.value);
	close(fd);
}

/*
 * time_enabled is the cgroup's time on the CPU: a task that sleeps most
 * of the time gives its cgroup little, however long the event is open.
 */
TEST_F(cg, time_enabled_is_the_cgroups_time)
{
	int fd = cg_event(self->a, self->cpu, PERF_COUNT_SW_CPU_CLOCK, -1);
	__u64 t0 = pt_now_ns(), wall;
	struct pt_val3 v;
	pid_t pid;

	ASSERT_LE(0, fd);
	pid = fork();
	if (!pid) {
		if (pt_pin_cpu(0, self->cpu) || pt_cgroup_enter(CG_A))
			_exit(1);
		pt_spin_ns(30000000);
		pt_sleep_ns(300000000);
		pt_cgroup_enter(CG_ROOT);
		_exit(0);
	}
	ASSERT_EQ(0, pt_wait_exit(pid));
	wall = pt_now_ns() - t0;
	ASSERT_EQ(0, pt_read3(fd, &v));
	TH_LOG("enabled %llu running %llu count %llu of %llu ns",
	       (unsigned long long)v.enabled, (unsigned long long)v.running,
	       (unsigned long long)v.value, (unsigned long long)wall);
	EXPECT_LE(25000000, v.enabled);
	EXPECT_GT(wall / 2, v.enabled);
	EXPECT_EQ(v.enabled, v.running);
	close(fd);
}

TEST_F(cg, open_errors)
{
	int fd, leader, i;

	/* a cgroup is watched on one CPU */
	fd = cg_event(self->a, -1, PERF_COUNT_SW_PAGE_FAULTS, -1);
	EXPECT_EQ(-EINVAL, fd);
	/* not a cgroup directory */
	fd = open("/", O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBADF, cg_event(fd, self->cpu, PERF_COUNT_SW_PAGE_FAULTS,
				   -1));
	close(fd);
	/* no such fd */
	EXPECT_EQ(-EBADF, cg_event(1000, self->cpu, PERF_COUNT_SW_PAGE_FAULTS,
				   -1));
	/*
	 * ... also with callchains asked for, which are set up after the
	 * cgroup (the EBADF comes first): the refusal takes none, drops
	 * none, and callchain events work on
	 */
	for (i = 0; i < 3; i++) {
		struct perf_event_attr attr;

		pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
		attr.sample_period = 1;
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN;
		EXPECT_EQ(-1, sys_perf_event_open(&attr, 1000, self->cpu, -1,
						  PERF_FLAG_PID_CGROUP));
		EXPECT_EQ(EBADF, errno);
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		EXPECT_LE(0, fd);
		if (fd >= 0)
			close(fd);
	}
	/* a group watches one cgroup */
	leader = cg_event(self->a, self->cpu, PERF_COUNT_SW_PAGE_FAULTS, -1);
	ASSERT_LE(0, leader);
	EXPECT_EQ(-EINVAL, cg_event(self->b, self->cpu,
				    PERF_COUNT_SW_PAGE_FAULTS, leader));
	fd = cg_event(self->a, self->cpu, PERF_COUNT_SW_CPU_CLOCK, leader);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
	close(leader);
}

TEST_F(cg, sample_cgroup_is_the_tasks_cgroup_id)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct pt_sample s;
	struct pt_recs r = {};
	struct pt_rb rb;
	__u64 id = cg_id(CG_A);
	int fd, n = 0;

	ASSERT_NE(0, id);
	ASSERT_EQ(0, pt_pin_cpu(0, self->cpu));
	ASSERT_EQ(0, pt_cgroup_enter(CG_A));
	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1,
		       PERF_SAMPLE_IP | PERF_SAMPLE_CGROUP);
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	pt_fault_pages(10);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	pt_cgroup_enter(CG_ROOT);
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		ASSERT_EQ(h->size - sizeof(*h), pt_sample_parse(&attr, h, &s));
		EXPECT_EQ(id, s.cgroup);
		n++;
	}
	EXPECT_LE(10, n);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST_F(cg, record_cgroup_names_a_new_cgroup)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct pt_recs r = {};
	struct pt_rb rb;
	int fd, found = 0;
	__u64 id;

	pt_attr_sw(&attr, PERF_COUNT_SW_DUMMY);
	attr.cgroup = 1;
	attr.disabled = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
	rmdir(CG_ROOT "/ptC");
	ASSERT_EQ(0, mkdir(CG_ROOT "/ptC", 0755));
	id = cg_id(CG_ROOT "/ptC");
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_CGROUP) {
		__u64 rid;

		memcpy(&rid, h + 1, sizeof(rid));
		if (rid != id)
			continue;
		EXPECT_STREQ("/ptC", (char *)(h + 1) + sizeof(rid));
		EXPECT_EQ(0, h->size % 8);
		found++;
	}
	EXPECT_EQ(1, found);
	rmdir(CG_ROOT "/ptC");
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

/*
 * Side-band records of a cgroup event: a child in @cg on @cpu names
 * itself @name (COMM), maps an anonymous executable page (MMAP2), makes
 * the cgroup @sub (CGROUP), forks (FORK) a grandchild that runs
 * /bin/true (COMM exec, MMAP2) and exits (EXIT), then exits itself; it
 * stays in @cg throughout and reports the grandchild and the page on
 * @wfd. Every switch of either is a SWITCH_CPU_WIDE.
 */
struct sb_report {
	pid_t gpid;
	__u64 map;
};

static pid_t sb_child(int cpu, const char *cg, const char *name,
		      const char *sub, int wfd)
{
	struct sb_report rep;
	pid_t pid = fork();
	int status;
	void *p;

	if (pid)
		return pid;
	if (pt_pin_cpu(0, cpu) || pt_cgroup_enter(cg))
		_exit(10);
	if (prctl(PR_SET_NAME, name, 0, 0, 0))
		_exit(11);
	p = mmap(NULL, pt_page_size(), PROT_READ | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(12);
	if (mkdir(sub, 0755))
		_exit(13);
	rep.map = (unsigned long)p;
	rep.gpid = fork();
	if (!rep.gpid) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(14);
	}
	if (rep.gpid < 0 || waitpid(rep.gpid, &status, 0) != rep.gpid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		_exit(15);
	if (write(wfd, &rep, sizeof(rep)) != sizeof(rep))
		_exit(16);
	_exit(0);
}

#define SB_SAMPLE	(PERF_SAMPLE_TID | PERF_SAMPLE_TIME)
#define CG_SB_A		CG_A "/ptSbA"
#define CG_SB_B		CG_B "/ptSbB"

/* FORK, EXIT: pid, ppid, tid, ptid; COMM, MMAP2: pid, tid */
struct sb_body {
	__u32 id[4];
};

/*
 * 6.12 offers a side-band record to a cgroup event only while the task
 * that makes it is in the event's cgroup (or below): a monitor of ptA
 * sees ptA's processes' names, mappings, forks, exits and switches, and
 * nothing of ptB's (nor of the root cgroup's tasks: this test's own).
 */
TEST_F(cg, side_band_records_are_the_cgroups_own)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct sb_report ra, rb_;
	struct pt_id_trailer t;
	struct pt_recs r = {};
	struct pt_rb rb;
	int fd, pfd[2], comm_a = 0, comm_exec = 0, fork_a = 0, exit_g = 0;
	int exit_a = 0, map_a = 0, map_g = 0, switch_a = 0, switch_g = 0;
	int cgrp_a = 0, stray = 0, from_b = 0, other = 0;
	pid_t pa, pb, me = getpid();

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.sample_type = SB_SAMPLE;
	attr.sample_id_all = 1;
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.comm = 1;
	attr.task = 1;
	attr.context_switch = 1;
	attr.cgroup = 1;
	fd = sys_perf_event_open(&attr, self->a, self->cpu, -1,
				 PERF_FLAG_PID_CGROUP | PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open: %s", strerror(errno));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 64));
	ASSERT_EQ(0, pipe(pfd));
	rmdir(CG_SB_A);
	rmdir(CG_SB_B);

	pa = sb_child(self->cpu, CG_A, "cgsbA", CG_SB_A, pfd[1]);
	ASSERT_EQ(0, pt_wait_exit(pa));
	ASSERT_EQ((ssize_t)sizeof(ra), read(pfd[0], &ra, sizeof(ra)));
	pb = sb_child(self->cpu, CG_B, "cgsbB", CG_SB_B, pfd[1]);
	ASSERT_EQ(0, pt_wait_exit(pb));
	ASSERT_EQ((ssize_t)sizeof(rb_), read(pfd[0], &rb_, sizeof(rb_)));
	rmdir(CG_SB_A);
	rmdir(CG_SB_B);

	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	pt_recs_for_each(h, &r, 0) {
		struct sb_body b = {};
		const char *str;

		pt_id_trailer_parse(SB_SAMPLE, h, &t);
		if (h->type != PERF_RECORD_SWITCH_CPU_WIDE &&
		    h->type != PERF_RECORD_CGROUP)
			memcpy(&b, h + 1, sizeof(b));
		/*
		 * only A's two processes ran in A; a task reaped before
		 * its last switch out (on another CPU, by its parent) has
		 * no pid left to say, idle's switch out says preempted
		 */
		if (t.pid != pa && t.pid != ra.gpid &&
		    !(h->type == PERF_RECORD_SWITCH_CPU_WIDE && !t.pid &&
		      h->misc == PERF_RECORD_MISC_SWITCH_OUT))
			stray++;
		if (t.pid == pb || t.pid == rb_.gpid || b.id[0] == pb ||
		    b.id[0] == rb_.gpid) {
			if (from_b++ < 3)
				TH_LOG("type %u of %d (B: %d, %d)", h->type,
				       t.pid, pb, rb_.gpid);
		}
		switch (h->type) {
		case PERF_RECORD_COMM:
			str = (const char *)(h + 1) + 8;
			if (!strcmp(str, "cgsbB"))
				from_b++;
			if (b.id[0] == pa && b.id[1] == pa &&
			    h->misc == 0 && !strcmp(str, "cgsbA"))
				comm_a++;
			else if (b.id[0] == ra.gpid && b.id[1] == ra.gpid &&
				 h->misc == PERF_RECORD_MISC_COMM_EXEC &&
				 !strcmp(str, "true"))
				comm_exec++;
			else
				other++;
			break;
		case PERF_RECORD_MMAP2: {
			__u64 addr, len;

			memcpy(&addr, (char *)(h + 1) + 8, 8);
			memcpy(&len, (char *)(h + 1) + 16, 8);
			if (b.id[0] == pa && b.id[1] == pa && addr == ra.map &&
			    len == (__u64)pt_page_size() &&
			    !strcmp((char *)(h + 1) + 64, "//anon"))
				map_a++;
			else if (b.id[0] == ra.gpid && b.id[1] == ra.gpid)
				map_g++;
			else
				other++;
			break;
		}
		case PERF_RECORD_FORK:
			if (b.id[0] == ra.gpid && b.id[1] == pa &&
			    b.id[2] == ra.gpid && b.id[3] == pa)
				fork_a++;
			else
				other++;
			break;
		case PERF_RECORD_EXIT:
			if (b.id[0] == ra.gpid && b.id[1] == pa &&
			    b.id[2] == ra.gpid && b.id[3] == pa)
				exit_g++;
			else if (b.id[0] == pa && b.id[1] == me &&
				 b.id[2] == pa && b.id[3] == me)
				exit_a++;
			else
				other++;
			break;
		case PERF_RECORD_SWITCH_CPU_WIDE:
			switch_a += t.pid == pa;
			switch_g += t.pid == ra.gpid;
			break;
		case PERF_RECORD_CGROUP:
			str = (const char *)(h + 1) + 8;
			if (!strcmp(str, "/ptB/ptSbB"))
				from_b++;
			else if (!strcmp(str, "/ptA/ptSbA"))
				cgrp_a++;
			else
				other++;
			break;
		default:
			TH_LOG("record type %u", h->type);
			other++;
		}
	}
	TH_LOG("%d records: switches %d (child), %d (its child); exec maps %d",
	       r.nr, switch_a, switch_g, map_g);
	EXPECT_EQ(0, from_b);
	EXPECT_EQ(0, stray);
	EXPECT_EQ(0, other);
	EXPECT_EQ(1, comm_a);
	EXPECT_EQ(1, comm_exec);
	EXPECT_EQ(1, map_a);
	EXPECT_LE(1, map_g);
	EXPECT_EQ(1, cgrp_a);
	EXPECT_EQ(1, fork_a);
	EXPECT_EQ(1, exit_g);
	EXPECT_EQ(1, exit_a);
	EXPECT_LE(1, switch_a);
	EXPECT_LE(1, switch_g);
	close(pfd[0]);
	close(pfd[1]);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

/* a counter of this task's switches, kernel included (root) */
static int switch_counter(__u64 config)
{
	struct perf_event_attr attr;

	pt_attr_sw(&attr, config);
	attr.exclude_kernel = 0;
	return sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * Two tasks on one CPU, this one in @cga and a child in @cgb, take
 * turns @n times through pipes; this task's cgroup and context switches.
 */
static void ping_pong(int cpu, const char *cga, const char *cgb, int n,
		      __u64 *cgsw, __u64 *ctxsw)
{
	int p1[2], p2[2], i, fcg, fcs;
	pid_t pid;
	char c = 0;

	if (pipe(p1) || pipe(p2))
		return;
	pid = fork();
	if (!pid) {
		if (pt_pin_cpu(0, cpu) || pt_cgroup_enter(cgb))
			_exit(1);
		for (i = 0; i < n; i++)
			if (read(p1[0], &c, 1) != 1 || write(p2[1], &c, 1) != 1)
				_exit(2);
		pt_cgroup_enter(CG_ROOT);
		_exit(0);
	}
	pt_pin_cpu(0, cpu);
	pt_cgroup_enter(cga);
	fcg = switch_counter(PT_SW_CGROUP_SWITCHES);
	fcs = switch_counter(PERF_COUNT_SW_CONTEXT_SWITCHES);
	/*
	 * The cgroup-switch window nests inside the context-switch one: a
	 * preemption between the two ioctls (the child, woken by our last
	 * read, may run first) then counts in both or in the outer only.
	 */
	ioctl(fcs, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fcg, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < n; i++)
		if (write(p1[1], &c, 1) != 1 || read(p2[0], &c, 1) != 1)
			break;
	ioctl(fcg, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fcs, PERF_EVENT_IOC_DISABLE, 0);
	*cgsw = pt_read1(fcg);
	*ctxsw = pt_read1(fcs);
	close(fcg);
	close(fcs);
	pt_cgroup_enter(CG_ROOT);
	pt_wait_exit(pid);
	close(p1[0]);
	close(p1[1]);
	close(p2[0]);
	close(p2[1]);
}

/*
 * Every switch to the other cgroup's task is a cgroup switch (and a
 * context switch); between two tasks of one cgroup there are none, but
 * for an occasional one to the idle task (the root cgroup).
 */
TEST_F(cg, cgroup_switches_count_switches_between_cgroups)
{
	__u64 across = 0, cs_across = 0, within = 0, cs_within = 0;

	ping_pong(self->cpu, CG_A, CG_B, 200, &across, &cs_across);
	ping_pong(self->cpu, CG_A, CG_A, 200, &within, &cs_within);
	TH_LOG("across: %llu cgroup switches of %llu; within: %llu of %llu",
	       (unsigned long long)across, (unsigned long long)cs_across,
	       (unsigned long long)within, (unsigned long long)cs_within);
	EXPECT_LE(200, across);
	EXPECT_GE(cs_across, across);
	EXPECT_LE(200, cs_within);
	EXPECT_GT(20, within);
}

/*
 * The perf tool's cases: perf record -a and perf report under KASAN and
 * lockdep in TCG take 25 s on one vCPU, beside the harness's default of 30.
 */
#define PERF_TOOL_TMO	120

/* run @cmd; 0 if its output has every string of @want */
static int run_has(const char *cmd, const char *const *want, int nwant)
{
	char buf[8192];
	size_t len = 0, n;
	FILE *f = popen(cmd, "r");
	int i, miss = 0;

	if (!f)
		return -1;
	while (len < sizeof(buf) - 1 &&
	       (n = fread(buf + len, 1, sizeof(buf) - 1 - len, f)) > 0)
		len += n;
	buf[len] = 0;
	pclose(f);
	for (i = 0; i < nwant; i++)
		if (!strstr(buf, want[i])) {
			printf("# '%s' not in the output of %s:\n%s\n",
			       want[i], cmd, buf);
			miss++;
		}
	return miss;
}

TEST_F_TIMEOUT(cg, perf_stat_G_counts_a_cgroup, PERF_TOOL_TMO)
{
	static const char *const want[] = { "page-faults", "ptA" };

	EXPECT_EQ(0, run_has("perf stat -a -x, -e page-faults -G ptA "
			     "-- sleep 0.2 2>&1", want, 2));
}

TEST_F_TIMEOUT(cg, perf_stat_for_each_cgroup, PERF_TOOL_TMO)
{
	static const char *const want[] = { "ptA", "ptB", "task-clock" };

	EXPECT_EQ(0, run_has("perf stat -a -x, -e task-clock "
			     "--for-each-cgroup ptA,ptB -- sleep 0.2 2>&1",
			     want, 3));
}

TEST_F_TIMEOUT(cg, perf_record_all_cgroups_names_them, PERF_TOOL_TMO)
{
	static const char *const want[] = { "/ptA" };
	pid_t pid;

	pid = fork();
	if (!pid) {
		if (pt_cgroup_enter(CG_A))
			_exit(1);
		for (;;)
			pt_spin_ns(1000000);
	}
	EXPECT_EQ(0, system("perf record -q -B -a --all-cgroups -e cpu-clock -c 1000000 "
			    "-o /tmp/cg.data -- sleep 0.5 >/dev/null 2>&1"));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	EXPECT_EQ(0, run_has("perf report -i /tmp/cg.data --stdio "
			     "--sort cgroup 2>&1", want, 1));
	unlink("/tmp/cg.data");
}

TEST_HARNESS_MAIN
