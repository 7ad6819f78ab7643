// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band records with exact contents: MMAP / MMAP2 (with build id),
 * COMM (prctl and exec), FORK / EXIT, SWITCH / SWITCH_CPU_WIDE,
 * NAMESPACES, LOST, READ (inherit_stat), THROTTLE / UNTHROTTLE, and the
 * sample_id_all trailer every one of them carries.
 *
 * Most tests use a dummy software event on the test process itself with
 * the full sample_id_all trailer (TID, TIME, ID, STREAM_ID, CPU,
 * IDENTIFIER), pinned to one CPU.
 */
#include "perf_test.h"
#include <elf.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define RB_PAGES	16
#define ID_ALL		(PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID | \
			 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | \
			 PERF_SAMPLE_IDENTIFIER)
#ifndef PERF_RECORD_MISC_MMAP_BUILD_ID
#define PERF_RECORD_MISC_MMAP_BUILD_ID	(1 << 14)
#endif

struct sb {
	int fd;
	int cpu;
	__u64 id;
	struct perf_event_attr attr;
	struct pt_rb rb;
	struct pt_recs recs;
};

static void sb_attr(struct perf_event_attr *attr)
{
	pt_attr_sw(attr, PERF_COUNT_SW_DUMMY);
	attr->sample_id_all = 1;
	attr->sample_type = ID_ALL;
	attr->disabled = 0;
}

/* Open attr (from sb_attr + flags) on pid/cpu and map it; 0 or -errno. */
static int sb_open_on(struct sb *sb, struct perf_event_attr *attr, pid_t pid,
		      int cpu)
{
	memset(sb, 0, sizeof(*sb));
	sb->attr = *attr;
	sb->cpu = cpu;
	sb->fd = sys_perf_event_open(attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (sb->fd < 0)
		return -errno;
	if (ioctl(sb->fd, PERF_EVENT_IOC_ID, &sb->id))
		return -errno;
	return pt_rb_map(&sb->rb, sb->fd, RB_PAGES);
}

/* On self, pinned to the first CPU of our mask. */
static int sb_open(struct sb *sb, struct perf_event_attr *attr)
{
	int cpu = pt_nth_cpu(0);
	int ret;

	if (pt_pin_cpu(0, cpu))
		return -errno;
	ret = sb_open_on(sb, attr, 0, -1);
	sb->cpu = cpu;
	return ret;
}

static void sb_close(struct sb *sb)
{
	pt_recs_free(&sb->recs);
	pt_rb_unmap(&sb->rb);
	if (sb->fd > 0)
		close(sb->fd);
}

static int sb_drain(struct sb *sb)
{
	pt_recs_free(&sb->recs);
	return pt_rb_drain(&sb->rb, &sb->recs);
}

/* Check the trailer of h against this task, this event and its CPU. */
#define CHECK_TRAILER(sb, h, pid_, tid_) do {				\
		struct pt_id_trailer __t;				\
		pt_id_trailer_parse((sb)->attr.sample_type, (h), &__t); \
		EXPECT_EQ((__u32)(pid_), __t.pid);			\
		EXPECT_EQ((__u32)(tid_), __t.tid);			\
		EXPECT_NE(0, __t.time);					\
		EXPECT_EQ((sb)->id, __t.id);				\
		EXPECT_EQ((sb)->id, __t.stream_id);			\
		EXPECT_EQ((__u32)(sb)->cpu, __t.cpu);			\
		EXPECT_EQ(0, __t.res);					\
		EXPECT_EQ((sb)->id, __t.identifier);			\
	} while (0)

static size_t align8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

/* A file of 'pages' pages in the current directory (or /tmp). */
static int make_file(char *path, size_t len, int pages)
{
	char buf[4096];
	int fd, i;

	snprintf(path, len, "/tmp/ptest-records-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < pages * (int)(pt_page_size() / sizeof(buf)); i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			return -1;
	return fd;
}

struct mmap_rec {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	char filename[];
};

struct mmap2_rec {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 addr, len, pgoff;
	union {
		struct {
			__u32 maj, min;
			__u64 ino, ino_generation;
		};
		struct {
			__u8 build_id_size, reserved_1;
			__u16 reserved_2;
			__u8 build_id[20];
		};
	};
	__u32 prot, flags;
	char filename[];
};

static struct perf_event_header *find_mmap_at(struct pt_recs *r, __u32 type,
					      void *addr)
{
	struct perf_event_header *h;

	pt_recs_for_each(h, r, type)
		if (((struct mmap_rec *)h)->addr == (unsigned long)addr)
			return h;
	return NULL;
}

TEST(mmap_record_of_exec_file_mapping)
{
	long ps = pt_page_size();
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct mmap_rec *m;
	char path[64];
	struct sb sb;
	void *p;
	int fd, n = 0;

	fd = make_file(path, sizeof(path), 4);
	ASSERT_LE(0, fd);
	sb_attr(&attr);
	attr.mmap = 1;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	p = mmap(NULL, 2 * ps, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, ps);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, sb_drain(&sb));
	EXPECT_EQ(0, sb.recs.bad);
	pt_recs_for_each(h, &sb.recs, PERF_RECORD_MMAP)
		n++;
	/* one record: the ring buffer's own mapping is not executable */
	EXPECT_EQ(1, n);
	h = find_mmap_at(&sb.recs, PERF_RECORD_MMAP, p);
	ASSERT_NE(NULL, h);
	m = (struct mmap_rec *)h;
	EXPECT_EQ(PERF_RECORD_MISC_USER, h->misc);
	EXPECT_EQ(getpid(), m->pid);
	EXPECT_EQ(pt_gettid(), m->tid);
	EXPECT_EQ(2 * ps, m->len);
	/* pgoff is the file offset in bytes */
	EXPECT_EQ(ps, m->pgoff);
	EXPECT_STREQ(path, m->filename);
	EXPECT_EQ(sizeof(*m) + align8(strlen(path) + 1) +
		  pt_id_trailer_size(ID_ALL), h->size);
	CHECK_TRAILER(&sb, h, getpid(), pt_gettid());
	munmap(p, 2 * ps);
	close(fd);
	unlink(path);
	sb_close(&sb);
}

TEST(data_mappings_need_mmap_data)
{
	long ps = pt_page_size();
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct mmap_rec *m;
	char path[64];
	struct sb sb;
	void *p, *anon;
	int fd;

	fd = make_file(path, sizeof(path), 2);
	ASSERT_LE(0, fd);
	sb_attr(&attr);
	attr.mmap = 1;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	p = mmap(NULL, ps, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, sb_drain(&sb));
	EXPECT_EQ(0, pt_recs_count(&sb.recs, PERF_RECORD_MMAP));
	munmap(p, ps);
	sb_close(&sb);

	attr.mmap_data = 1;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	p = mmap(NULL, ps, PROT_READ, MAP_PRIVATE, fd, ps);
	ASSERT_NE(MAP_FAILED, p);
	anon = mmap(NULL, 3 * ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, anon);
	ASSERT_EQ(0, sb_drain(&sb));
	h = find_mmap_at(&sb.recs, PERF_RECORD_MMAP, p);
	ASSERT_NE(NULL, h);
	m = (struct mmap_rec *)h;
	EXPECT_EQ(PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, h->misc);
	EXPECT_EQ(ps, m->len);
	EXPECT_EQ(ps, m->pgoff);
	EXPECT_STREQ(path, m->filename);
	h = find_mmap_at(&sb.recs, PERF_RECORD_MMAP, anon);
	ASSERT_NE(NULL, h);
	m = (struct mmap_rec *)h;
	EXPECT_EQ(PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_DATA, h->misc);
	EXPECT_EQ(3 * ps, m->len);
	EXPECT_STREQ("//anon", m->filename);
	EXPECT_EQ(sizeof(*m) + 8 + pt_id_trailer_size(ID_ALL), h->size);
	CHECK_TRAILER(&sb, h, getpid(), pt_gettid());
	munmap(anon, 3 * ps);
	munmap(p, ps);
	close(fd);
	unlink(path);
	sb_close(&sb);
}

TEST(mmap2_record_has_inode_prot_flags)
{
	long ps = pt_page_size();
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct mmap2_rec *m;
	struct stat st;
	char path[64];
	struct sb sb;
	void *p;
	int fd;

	fd = make_file(path, sizeof(path), 2);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, fstat(fd, &st));
	sb_attr(&attr);
	attr.mmap = 1;
	attr.mmap2 = 1;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	p = mmap(NULL, 2 * ps, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, sb_drain(&sb));
	/* mmap2 replaces mmap */
	EXPECT_EQ(0, pt_recs_count(&sb.recs, PERF_RECORD_MMAP));
	h = find_mmap_at(&sb.recs, PERF_RECORD_MMAP2, p);
	ASSERT_NE(NULL, h);
	m = (struct mmap2_rec *)h;
	EXPECT_EQ(PERF_RECORD_MISC_USER, h->misc);
	EXPECT_EQ(getpid(), m->pid);
	EXPECT_EQ(pt_gettid(), m->tid);
	EXPECT_EQ(2 * ps, m->len);
	EXPECT_EQ(0, m->pgoff);
	EXPECT_EQ(major(st.st_dev), m->maj);
	EXPECT_EQ(minor(st.st_dev), m->min);
	EXPECT_EQ(st.st_ino, m->ino);
	EXPECT_EQ(PROT_READ | PROT_EXEC, m->prot);
	EXPECT_EQ(MAP_PRIVATE, m->flags);
	EXPECT_STREQ(path, m->filename);
	EXPECT_EQ(sizeof(*m) + align8(strlen(path) + 1) +
		  pt_id_trailer_size(ID_ALL), h->size);
	CHECK_TRAILER(&sb, h, getpid(), pt_gettid());
	munmap(p, 2 * ps);
	close(fd);
	unlink(path);
	sb_close(&sb);
}

/* The GNU build id of an ELF file, from its PT_NOTE segments. */
static int elf_build_id(const char *path, unsigned char *id, int max)
{
	static unsigned char buf[1 << 16];
	Elf64_Ehdr *eh = (void *)buf;
	int fd = open(path, O_RDONLY), i;
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < (ssize_t)sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return -1;
	for (i = 0; i < eh->e_phnum; i++) {
		Elf64_Phdr *ph = (void *)(buf + eh->e_phoff + i * eh->e_phentsize);
		size_t off, end;

		if (ph->p_type != PT_NOTE || ph->p_offset + ph->p_filesz > (size_t)n)
			continue;
		off = ph->p_offset;
		end = off + ph->p_filesz;
		while (off + sizeof(Elf64_Nhdr) <= end) {
			Elf64_Nhdr *nh = (void *)(buf + off);
			size_t desc = off + sizeof(*nh) + align8(0) +
				      ((nh->n_namesz + 3) & ~3U);

			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(buf + off + sizeof(*nh), "GNU", 4) &&
			    (int)nh->n_descsz <= max) {
				memcpy(id, buf + desc, nh->n_descsz);
				return nh->n_descsz;
			}
			off = desc + ((nh->n_descsz + 3) & ~3U);
		}
	}
	return -1;
}

TEST(mmap2_build_id)
{
	long ps = pt_page_size();
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct mmap2_rec *m;
	unsigned char id[20];
	char exe[256];
	struct sb sb;
	int fd, idlen;
	ssize_t n;
	void *p;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ASSERT_LT(0, n);
	exe[n] = 0;
	idlen = elf_build_id(exe, id, sizeof(id));
	if (idlen <= 0)
		SKIP(return, "test binary has no GNU build id note");
	fd = open(exe, O_RDONLY);
	ASSERT_LE(0, fd);
	sb_attr(&attr);
	attr.mmap = 1;
	attr.mmap2 = 1;
	attr.build_id = 1;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	p = mmap(NULL, ps, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, p);
	ASSERT_EQ(0, sb_drain(&sb));
	h = find_mmap_at(&sb.recs, PERF_RECORD_MMAP2, p);
	ASSERT_NE(NULL, h);
	m = (struct mmap2_rec *)h;
	EXPECT_EQ(PERF_RECORD_MISC_USER | PERF_RECORD_MISC_MMAP_BUILD_ID, h->misc);
	EXPECT_EQ(idlen, m->build_id_size);
	EXPECT_EQ(0, memcmp(id, m->build_id, idlen));
	EXPECT_EQ(PROT_READ | PROT_EXEC, m->prot);
	EXPECT_EQ(MAP_PRIVATE, m->flags);
	EXPECT_STREQ(exe, m->filename);
	munmap(p, ps);
	close(fd);
	sb_close(&sb);
}

TEST(build_id_needs_mmap2)
{
	struct perf_event_attr attr;
	int fd;

	sb_attr(&attr);
	attr.mmap = 1;
	attr.build_id = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	/* 6.12 ignores build_id without mmap2 (no error) */
	EXPECT_LE(0, fd);
	close(fd);
}

struct comm_rec {
	struct perf_event_header h;
	__u32 pid, tid;
	char comm[];
};

TEST(comm_record_from_prctl_and_trailer_order)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct comm_rec *c;
	char old[32] = "";
	__u64 *t;
	struct sb sb;

	prctl(PR_GET_NAME, old);
	sb_attr(&attr);
	attr.comm = 1;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	ASSERT_EQ(0, prctl(PR_SET_NAME, "ptest-comm"));
	ASSERT_EQ(0, sb_drain(&sb));
	prctl(PR_SET_NAME, old);
	EXPECT_EQ(1, pt_recs_count(&sb.recs, PERF_RECORD_COMM));
	h = pt_recs_next(&sb.recs, NULL, PERF_RECORD_COMM);
	ASSERT_NE(NULL, h);
	c = (struct comm_rec *)h;
	EXPECT_EQ(0, h->misc);
	EXPECT_EQ(getpid(), c->pid);
	EXPECT_EQ(pt_gettid(), c->tid);
	EXPECT_STREQ("ptest-comm", c->comm);
	/* 8 header + 8 pid/tid + 16 comm + 48 trailer */
	ASSERT_EQ(80, h->size);
	/* the trailer, field by field: pid/tid, time, id, stream_id, cpu, identifier */
	t = (__u64 *)((char *)h + 32);
	EXPECT_EQ(((__u64)pt_gettid() << 32) | getpid(), t[0]);
	EXPECT_NE(0, t[1]);
	EXPECT_EQ(sb.id, t[2]);
	EXPECT_EQ(sb.id, t[3]);
	EXPECT_EQ((__u64)sb.cpu, t[4]);
	EXPECT_EQ(sb.id, t[5]);
	sb_close(&sb);
}

TEST(no_trailer_without_sample_id_all)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	char old[32] = "";
	struct sb sb;

	prctl(PR_GET_NAME, old);
	sb_attr(&attr);
	attr.comm = 1;
	attr.sample_id_all = 0;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	ASSERT_EQ(0, prctl(PR_SET_NAME, "ptest-abcdefgh"));
	ASSERT_EQ(0, sb_drain(&sb));
	prctl(PR_SET_NAME, old);
	h = pt_recs_next(&sb.recs, NULL, PERF_RECORD_COMM);
	ASSERT_NE(NULL, h);
	EXPECT_EQ(8 + 8 + 16, h->size);
	sb_close(&sb);
}

static int exec_child_main(int in)
{
	char c;

	/* wait for the parent to attach, then exit */
	return read(in, &c, 1) == 1 ? 0 : 1;
}

/* fork a child that waits for a byte, then execs us with --exec-child */
static pid_t fork_exec_child(int *go)
{
	int p2c[2];
	pid_t pid;

	if (pipe(p2c))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c, fdbuf[16];

		close(p2c[1]);
		if (read(p2c[0], &c, 1) != 1)
			_exit(10);
		snprintf(fdbuf, sizeof(fdbuf), "%d", p2c[0]);
		execl("/proc/self/exe", "records", "--exec-child", fdbuf, NULL);
		_exit(11);
	}
	close(p2c[0]);
	*go = p2c[1];
	return pid;
}

static void comm_exec_case(struct __test_metadata *_metadata, int comm_exec)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct comm_rec *c = NULL;
	struct sb sb;
	int go, n = 0;
	pid_t pid;

	pid = fork_exec_child(&go);
	ASSERT_LT(0, pid);
	sb_attr(&attr);
	attr.comm = 1;
	attr.comm_exec = comm_exec;
	attr.sample_type = PERF_SAMPLE_TID;
	ASSERT_EQ(0, sb_open_on(&sb, &attr, pid, -1));
	ASSERT_EQ(1, write(go, "g", 1));	/* exec */
	usleep(100000);
	ASSERT_EQ(1, write(go, "x", 1));	/* exit */
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, sb_drain(&sb));
	pt_recs_for_each(h, &sb.recs, PERF_RECORD_COMM) {
		c = (struct comm_rec *)h;
		n++;
	}
	ASSERT_EQ(1, n);
	/* set on every exec COMM, whether or not attr.comm_exec asked */
	EXPECT_EQ(PERF_RECORD_MISC_COMM_EXEC, c->h.misc);
	EXPECT_EQ(pid, c->pid);
	EXPECT_EQ(pid, c->tid);
	/* the name comes from the exec'd path: /proc/self/exe -> "exe" */
	EXPECT_STREQ("exe", c->comm);
	EXPECT_EQ(8 + 8 + align8(strlen(c->comm) + 1) + 8, c->h.size);
	close(go);
	sb_close(&sb);
}

TEST(comm_record_on_exec_with_comm_exec)
{
	comm_exec_case(_metadata, 1);
}

TEST(comm_record_on_exec_without_comm_exec)
{
	comm_exec_case(_metadata, 0);
}

struct task_rec {
	struct perf_event_header h;
	__u32 pid, ppid, tid, ptid;
	__u64 time;
};

static void *thread_fn(void *arg)
{
	*(pid_t *)arg = pt_gettid();
	return NULL;
}

TEST(fork_records_for_process_and_thread)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct task_rec *f;
	pthread_t th;
	pid_t child, ttid = 0;
	struct sb sb;
	int n = 0;

	sb_attr(&attr);
	attr.task = 1;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(0);
	ASSERT_EQ(0, pt_wait_exit(child));
	ASSERT_EQ(0, pthread_create(&th, NULL, thread_fn, &ttid));
	ASSERT_EQ(0, pthread_join(th, NULL));
	ASSERT_EQ(0, sb_drain(&sb));
	EXPECT_EQ(0, sb.recs.bad);
	pt_recs_for_each(h, &sb.recs, PERF_RECORD_FORK) {
		f = (struct task_rec *)h;
		EXPECT_EQ(sizeof(*f) + pt_id_trailer_size(ID_ALL), h->size);
		EXPECT_EQ(0, h->misc);
		CHECK_TRAILER(&sb, h, getpid(), pt_gettid());
		EXPECT_NE(0, f->time);
		if (n == 0) {
			EXPECT_EQ(child, f->pid);
			EXPECT_EQ(getpid(), f->ppid);
			EXPECT_EQ(child, f->tid);
			EXPECT_EQ(pt_gettid(), f->ptid);
		} else if (n == 1) {
			EXPECT_EQ(getpid(), f->pid);
			EXPECT_EQ(getpid(), f->ppid);
			EXPECT_EQ(ttid, f->tid);
			EXPECT_EQ(pt_gettid(), f->ptid);
		}
		n++;
	}
	EXPECT_EQ(2, n);
	/* a non-inherited event does not follow the child to its exit */
	EXPECT_EQ(0, pt_recs_count(&sb.recs, PERF_RECORD_EXIT));
	sb_close(&sb);
}

/*
 * A child whose perf context is an exact clone of ours may, on a context
 * switch between the two on one CPU, swap contexts with us; the child then
 * exits holding our original event, and its EXIT record carries our
 * stream_id and no READ record is written. A non-inherited event in our
 * context (returned fd) keeps the child's context from being a clone, so
 * the child always runs and exits with its own inherited events.
 */
static int no_ctx_swap(void)
{
	return pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);
}

TEST(exit_record_of_inherited_child)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct task_rec *e = NULL;
	struct pt_id_trailer t;
	pid_t child;
	struct sb sb;
	int n = 0, cpu = pt_nth_cpu(0), xfd;

	ASSERT_EQ(0, pt_pin_cpu(0, cpu));
	sb_attr(&attr);
	attr.task = 1;
	attr.inherit = 1;
	/* inherited events must be per CPU to be mapped */
	ASSERT_EQ(0, sb_open_on(&sb, &attr, 0, cpu));
	xfd = no_ctx_swap();
	ASSERT_LE(0, xfd);
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		_exit(0);
	ASSERT_EQ(0, pt_wait_exit(child));
	ASSERT_EQ(0, sb_drain(&sb));
	EXPECT_EQ(1, pt_recs_count(&sb.recs, PERF_RECORD_FORK));
	pt_recs_for_each(h, &sb.recs, PERF_RECORD_EXIT) {
		e = (struct task_rec *)h;
		n++;
	}
	ASSERT_EQ(1, n);
	EXPECT_EQ(child, e->pid);
	EXPECT_EQ(getpid(), e->ppid);
	EXPECT_EQ(child, e->tid);
	EXPECT_EQ(pt_gettid(), e->ptid);
	EXPECT_EQ(sizeof(*e) + pt_id_trailer_size(ID_ALL), e->h.size);
	pt_id_trailer_parse(ID_ALL, &e->h, &t);
	/* written by the exiting child through its inherited event */
	EXPECT_EQ(child, t.pid);
	EXPECT_EQ(child, t.tid);
	EXPECT_EQ(cpu, t.cpu);
	/* id (and identifier) name the parent event, stream_id the child's */
	EXPECT_EQ(sb.id, t.id);
	EXPECT_EQ(sb.id, t.identifier);
	EXPECT_NE(sb.id, t.stream_id);
	EXPECT_NE(0, t.stream_id);
	close(xfd);
	sb_close(&sb);
}

/* SWITCH: a sleep switches out (not preempted) and back in. */
TEST(switch_records_for_sleep)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	int outs = 0, ins = 0, prev_out = 0, voluntary = 0;
	struct sb sb;

	sb_attr(&attr);
	attr.context_switch = 1;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	pt_sleep_ns(10000000);
	pt_sleep_ns(10000000);
	ASSERT_EQ(0, ioctl(sb.fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, sb_drain(&sb));
	EXPECT_EQ(0, pt_recs_count(&sb.recs, PERF_RECORD_SWITCH_CPU_WIDE));
	pt_recs_for_each(h, &sb.recs, PERF_RECORD_SWITCH) {
		int out = !!(h->misc & PERF_RECORD_MISC_SWITCH_OUT);

		EXPECT_EQ(8 + pt_id_trailer_size(ID_ALL), h->size);
		CHECK_TRAILER(&sb, h, getpid(), pt_gettid());
		/* out and in alternate, starting with out */
		EXPECT_NE(prev_out, out);
		prev_out = out;
		if (out) {
			/* blocked in nanosleep: not a preemption */
			voluntary += h->misc == PERF_RECORD_MISC_SWITCH_OUT;
			EXPECT_TRUE(h->misc == PERF_RECORD_MISC_SWITCH_OUT ||
				    h->misc == (PERF_RECORD_MISC_SWITCH_OUT |
						PERF_RECORD_MISC_SWITCH_OUT_PREEMPT));
			outs++;
		} else {
			EXPECT_EQ(0, h->misc);
			ins++;
		}
	}
	EXPECT_LE(2, outs);
	/* one per sleep (a preemption may come in between) */
	EXPECT_LE(2, voluntary);
	EXPECT_EQ(outs, ins);
	sb_close(&sb);
}

TEST(switch_out_preempt_when_runnable)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	int preempt = 0, i;
	struct sb sb;
	pid_t spinner;

	sb_attr(&attr);
	attr.context_switch = 1;
	attr.sample_id_all = 0;
	ASSERT_EQ(0, sb_open(&sb, &attr));
	/* a spinner on our CPU; sched_yield() leaves us runnable */
	spinner = fork();
	ASSERT_LE(0, spinner);
	if (spinner == 0) {
		close(sb.fd);
		for (;;)
			;
	}
	for (i = 0; i < 20; i++) {
		sched_yield();
		pt_spin_user_ns(1000000);
	}
	ASSERT_EQ(0, ioctl(sb.fd, PERF_EVENT_IOC_DISABLE, 0));
	kill(spinner, SIGKILL);
	waitpid(spinner, NULL, 0);
	ASSERT_EQ(0, sb_drain(&sb));
	pt_recs_for_each(h, &sb.recs, PERF_RECORD_SWITCH) {
		EXPECT_EQ(8, h->size);
		if (h->misc == (PERF_RECORD_MISC_SWITCH_OUT |
				PERF_RECORD_MISC_SWITCH_OUT_PREEMPT))
			preempt++;
		else
			EXPECT_TRUE(h->misc == 0 || h->misc == PERF_RECORD_MISC_SWITCH_OUT);
	}
	EXPECT_LE(1, preempt);
	sb_close(&sb);
}

struct switch_cw_rec {
	struct perf_event_header h;
	__u32 next_prev_pid, next_prev_tid;
};

/*
 * SWITCH_CPU_WIDE on a CPU-wide event (root): a pipe ping-pong between
 * us and a child on one CPU; our switch-out names the child as next, the
 * child's switch-in names us as prev.
 */
TEST(switch_cpu_wide_names_next_and_prev)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	int p2c[2], c2p[2], i, out_to_child = 0, child_in_from_us = 0;
	int cpu = pt_nth_cpu(0);
	struct sb sb;
	pid_t child;
	char c = 0;

	if (!pt_can_count_kernel())
		SKIP(return, "CPU-wide events need root or perf_event_paranoid < 1");
	ASSERT_EQ(0, pt_pin_cpu(0, cpu));
	ASSERT_EQ(0, pipe(p2c));
	ASSERT_EQ(0, pipe(c2p));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		while (read(p2c[0], &c, 1) == 1 && c != 'q')
			if (write(c2p[1], &c, 1) != 1)
				break;
		_exit(0);
	}
	sb_attr(&attr);
	attr.context_switch = 1;
	attr.exclude_kernel = 0;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
	ASSERT_EQ(0, sb_open_on(&sb, &attr, -1, cpu));
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(1, write(p2c[1], "p", 1));
		ASSERT_EQ(1, read(c2p[0], &c, 1));
	}
	ASSERT_EQ(0, ioctl(sb.fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(1, write(p2c[1], "q", 1));
	ASSERT_EQ(0, pt_wait_exit(child));
	ASSERT_EQ(0, sb_drain(&sb));
	EXPECT_EQ(0, pt_recs_count(&sb.recs, PERF_RECORD_SWITCH));
	pt_recs_for_each(h, &sb.recs, PERF_RECORD_SWITCH_CPU_WIDE) {
		struct switch_cw_rec *s = (struct switch_cw_rec *)h;
		struct pt_id_trailer t;

		ASSERT_EQ(8 + 8 + 16, h->size);
		pt_id_trailer_parse(attr.sample_type, h, &t);
		EXPECT_EQ(cpu, t.cpu);
		if (t.pid == (__u32)getpid() && (h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    s->next_prev_pid == (__u32)child) {
			EXPECT_EQ(child, s->next_prev_tid);
			out_to_child++;
		}
		if (t.pid == (__u32)child && !(h->misc & PERF_RECORD_MISC_SWITCH_OUT) &&
		    s->next_prev_pid == (__u32)getpid())
			child_in_from_us++;
	}
	EXPECT_LE(5, out_to_child);
	EXPECT_LE(5, child_in_from_us);
	sb_close(&sb);
}

struct ns_rec {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 nr;
	struct { __u64 dev, ino; } ns[];
};

static const char *const ns_files[] = {
	"net", "uts", "ipc", "pid", "user", "mnt", "cgroup",
};

static int namespaces_child(void)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct ns_rec *n;
	struct sb sb;
	unsigned int i;

	sb_attr(&attr);
	attr.namespaces = 1;
	attr.sample_type = PERF_SAMPLE_TID;
	if (sb_open(&sb, &attr))
		return 20;
	if (unshare(CLONE_NEWUTS))
		return 21;
	if (sb_drain(&sb))
		return 22;
	h = pt_recs_next(&sb.recs, NULL, PERF_RECORD_NAMESPACES);
	if (!h || pt_recs_count(&sb.recs, PERF_RECORD_NAMESPACES) != 1)
		return 23;
	n = (struct ns_rec *)h;
	if (n->pid != (__u32)getpid() || n->tid != (__u32)pt_gettid())
		return 24;
	if (n->nr != ARRAY_SIZE(ns_files))
		return 25;
	if (h->size != 8 + 16 + 16 * n->nr + 8)
		return 26;
	for (i = 0; i < ARRAY_SIZE(ns_files); i++) {
		char path[64];
		struct stat st;

		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns_files[i]);
		if (stat(path, &st))
			continue;	/* namespace type not configured */
		if (n->ns[i].ino != st.st_ino)
			return 30 + i;
		if (n->ns[i].dev != st.st_dev)
			return 40 + i;
	}
	return 0;
}

TEST(namespaces_record_on_unshare)
{
	struct perf_event_attr attr;
	pid_t pid;

	sb_attr(&attr);
	attr.namespaces = 1;
	if (geteuid() != 0) {
		/* namespaces records need CAP_SYS_ADMIN */
		EXPECT_EQ(-1, sys_perf_event_open(&attr, 0, -1, -1, 0));
		EXPECT_EQ(EACCES, errno);
		return;
	}
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(namespaces_child());
	EXPECT_EQ(0, pt_wait_exit(pid));
}

struct lost_rec {
	struct perf_event_header h;
	__u64 id, lost;
};

static __attribute__((noinline)) void touch_pages(char *p, int n)
{
	pt_touch(p, n);
}

/*
 * A writable mapping never overwrites: with a one-page buffer, page-fault
 * samples beyond its capacity are dropped and counted; the next record
 * written after the reader makes room is LOST with the exact number.
 */
TEST(lost_record_counts_every_dropped_sample)
{
	const int npages = 512;
	struct perf_event_attr attr;
	struct perf_event_header *h;
	int kept, kept2, lost = 0, nlost = 0;
	char *p, *warm;
	struct pt_rb rb;
	struct pt_recs r;
	__u64 id;
	int fd;

	ASSERT_EQ(0, pt_pin_cpu(0, pt_nth_cpu(0)));
	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1,
		       PERF_SAMPLE_IP | PERF_SAMPLE_TID);
	attr.sample_id_all = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ID, &id));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 1));
	p = pt_map_pages(npages + 1);
	warm = pt_map_pages(1);
	ASSERT_NE(NULL, p);
	touch_pages(warm, 1);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	touch_pages(p, npages);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	kept = pt_recs_count(&r, PERF_RECORD_SAMPLE);
	/* 24-byte samples into 4096 bytes: the buffer filled up exactly */
	EXPECT_EQ(pt_page_size() / 24, kept);
	EXPECT_EQ(0, pt_recs_count(&r, PERF_RECORD_LOST));
	pt_recs_free(&r);
	/* one more fault now that there is room */
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	touch_pages(p + npages * pt_page_size(), 1);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	h = pt_recs_next(&r, NULL, 0);
	ASSERT_NE(NULL, h);
	/* LOST comes first, then the sample */
	EXPECT_EQ(PERF_RECORD_LOST, h->type);
	pt_recs_for_each(h, &r, PERF_RECORD_LOST) {
		struct lost_rec *l = (struct lost_rec *)h;
		struct pt_id_trailer t;

		EXPECT_EQ(sizeof(*l) + 8, h->size);
		EXPECT_EQ(id, l->id);
		pt_id_trailer_parse(attr.sample_type, h, &t);
		EXPECT_EQ(getpid(), t.pid);
		lost += l->lost;
		nlost++;
	}
	kept2 = pt_recs_count(&r, PERF_RECORD_SAMPLE);
	EXPECT_EQ(1, nlost);
	EXPECT_EQ(1, kept2);
	EXPECT_EQ(npages, kept + lost);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

struct read_rec {
	struct perf_event_header h;
	__u32 pid, tid;
	__u64 value, id;
};

/*
 * inherit_stat: on 6.18 an inherited child's count comes back as a READ
 * record when it exits (read_format of the event: here value and id),
 * written through the child's event. 6.12 writes no READ record there
 * (checked on the stock 6.12 kernel under QEMU): the count only folds
 * into the parent event.
 */
TEST(read_record_at_inherited_child_exit)
{
	const int npages = 16;
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct read_rec *rr = NULL;
	int cpu = pt_nth_cpu(0), n = 0, xfd;
	__u64 before[2];
	struct pt_id_trailer t;
	struct sb sb;
	char *pages;
	pid_t pid;

	ASSERT_EQ(0, pt_pin_cpu(0, cpu));
	pages = pt_map_pages(npages);
	ASSERT_NE(NULL, pages);
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	attr.inherit = 1;
	attr.inherit_stat = 1;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_ID | PERF_SAMPLE_STREAM_ID;
	attr.read_format = PERF_FORMAT_ID;
	ASSERT_EQ(0, sb_open_on(&sb, &attr, 0, cpu));
	xfd = no_ctx_swap();
	ASSERT_LE(0, xfd);
	ASSERT_EQ(sizeof(before), read(sb.fd, before, sizeof(before)));
	/* a vfork child shares our mm: its only faults are the pages */
	pid = vfork();
	if (pid == 0) {
		pt_touch(pages, npages);
		_exit(0);
	}
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, sb_drain(&sb));
	pt_recs_for_each(h, &sb.recs, PERF_RECORD_READ) {
		rr = (struct read_rec *)h;
		n++;
	}
	if (pt_kernel_is_612()) {
		__u64 val[2] = { 0, 0 };

		EXPECT_EQ(0, n);
		ASSERT_EQ(sizeof(val), read(sb.fd, val, sizeof(val)));
		/* the child's faults are in our count (with a few of our own) */
		EXPECT_LE(npages, val[0] - before[0]);
		EXPECT_GE(npages + 16, val[0] - before[0]);
		EXPECT_EQ(sb.id, val[1]);
		close(xfd);
		sb_close(&sb);
		return;
	}
	ASSERT_EQ(1, n);
	EXPECT_EQ(0, rr->h.misc);
	EXPECT_EQ(sizeof(*rr) + 24, rr->h.size);
	EXPECT_EQ(pid, rr->pid);
	EXPECT_EQ(pid, rr->tid);
	EXPECT_EQ(npages, rr->value);
	EXPECT_EQ(sb.id, rr->id);
	pt_id_trailer_parse(attr.sample_type, &rr->h, &t);
	EXPECT_EQ(pid, t.pid);
	EXPECT_EQ(sb.id, t.id);
	EXPECT_NE(sb.id, t.stream_id);
	close(xfd);
	sb_close(&sb);
}

TEST(no_read_record_without_inherit_stat)
{
	struct perf_event_attr attr;
	int cpu = pt_nth_cpu(0), xfd;
	struct sb sb;
	pid_t pid;

	ASSERT_EQ(0, pt_pin_cpu(0, cpu));
	pt_attr_sw(&attr, PERF_COUNT_SW_PAGE_FAULTS);
	attr.disabled = 0;
	attr.inherit = 1;
	attr.task = 1;
	attr.sample_id_all = 1;
	attr.sample_type = PERF_SAMPLE_TID;
	ASSERT_EQ(0, sb_open_on(&sb, &attr, 0, cpu));
	xfd = no_ctx_swap();
	ASSERT_LE(0, xfd);
	pid = fork();
	if (pid == 0)
		_exit(0);
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, sb_drain(&sb));
	EXPECT_EQ(1, pt_recs_count(&sb.recs, PERF_RECORD_EXIT));
	EXPECT_EQ(0, pt_recs_count(&sb.recs, PERF_RECORD_READ));
	close(xfd);
	sb_close(&sb);
}

/*
 * An inherited sampling event (per CPU, as perf record opens them) writes
 * the child's samples into the parent's buffer: exactly one per page the
 * vfork child touches, with the child's pid/tid, the parent event's id
 * and the child event's own stream_id.
 */
TEST(inherited_sampling_writes_child_samples_to_parent_buffer)
{
	const int npages = 16;
	struct perf_event_attr attr;
	struct perf_event_header *h;
	int cpu = pt_nth_cpu(0), n = 0, xfd;
	__u64 stream = 0;
	struct pt_rb rb;
	struct pt_recs r;
	char *pages;
	__u64 id;
	pid_t pid;
	int fd;

	ASSERT_EQ(0, pt_pin_cpu(0, cpu));
	pages = pt_map_pages(npages);
	ASSERT_NE(NULL, pages);
	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1,
		       PERF_SAMPLE_TID | PERF_SAMPLE_ADDR | PERF_SAMPLE_ID |
		       PERF_SAMPLE_STREAM_ID);
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ID, &id));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 16));
	xfd = no_ctx_swap();
	ASSERT_LE(0, xfd);
	/* enabled only in the child (inherit copies the enabled state) */
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pid = vfork();
	if (pid == 0) {
		pt_touch(pages, npages);
		_exit(0);
	}
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_LT(0, pid);
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		struct pt_sample s;

		ASSERT_EQ(h->size - 8, pt_sample_parse(&attr, h, &s));
		if (s.pid != (__u32)pid)
			continue;
		EXPECT_EQ(pid, s.tid);
		EXPECT_EQ((unsigned long)(pages + n * pt_page_size()), s.addr);
		EXPECT_EQ(id, s.id);
		EXPECT_NE(id, s.stream_id);
		if (n)
			EXPECT_EQ(stream, s.stream_id);
		stream = s.stream_id;
		n++;
	}
	EXPECT_EQ(npages, n);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(xfd);
	close(fd);
}

struct throttle_rec {
	struct perf_event_header h;
	__u64 time, id, stream_id;
};

#define MAX_RATE "/proc/sys/kernel/perf_event_max_sample_rate"

FIXTURE(throttle) {
	long long saved_rate;
	bool restore;
};

FIXTURE_SETUP(throttle)
{
	self->restore = false;
	if (geteuid() != 0)
		SKIP(return, "lowering perf_event_max_sample_rate needs root");
	ASSERT_EQ(0, pt_read_int_file(MAX_RATE, &self->saved_rate));
	ASSERT_EQ(0, pt_write_int_file(MAX_RATE, 1000));
	self->restore = true;
}

FIXTURE_TEARDOWN(throttle)
{
	if (self->restore)
		pt_write_int_file(MAX_RATE, self->saved_rate);
}

/*
 * At perf_event_max_sample_rate 1000 an event may take 1000/HZ samples per
 * tick: task-clock sampling every 10 us throttles (THROTTLE record, no
 * more samples until) a later tick unthrottles it (UNTHROTTLE). Software
 * events that overflow once per hit (page faults with period 1) are never
 * throttled: only the hrtimer-driven clocks are.
 */
TEST_F(throttle, throttle_and_unthrottle_records)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	int thr = 0, unthr = 0, samples;
	__u64 last_time = 0, id, t0, spun;
	struct pt_rb rb;
	struct pt_recs r;
	int fd;

	ASSERT_EQ(0, pt_pin_cpu(0, pt_nth_cpu(0)));
	pt_attr_sample(&attr, PERF_COUNT_SW_TASK_CLOCK, 10000,
		       PERF_SAMPLE_TID | PERF_SAMPLE_TIME);
	attr.sample_id_all = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ID, &id));
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 64));
	t0 = pt_thread_cpu_ns();
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	/* several ticks of CPU time */
	pt_spin_user_ns(100000000);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	spun = pt_thread_cpu_ns() - t0;
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	samples = pt_recs_count(&r, PERF_RECORD_SAMPLE);
	/* far fewer samples than one per 10 us */
	EXPECT_GT(spun / 10000 / 4, samples);
	pt_recs_for_each(h, &r, 0) {
		struct throttle_rec *t = (struct throttle_rec *)h;

		if (h->type != PERF_RECORD_THROTTLE && h->type != PERF_RECORD_UNTHROTTLE)
			continue;
		EXPECT_EQ(sizeof(*t) + 16, h->size);
		EXPECT_EQ(id, t->id);
		EXPECT_EQ(id, t->stream_id);
		EXPECT_LE(last_time, t->time);
		last_time = t->time;
		/* throttle and unthrottle alternate */
		if (h->type == PERF_RECORD_THROTTLE) {
			EXPECT_EQ(thr, unthr);
			thr++;
		} else {
			EXPECT_EQ(thr, unthr + 1);
			unthr++;
		}
	}
	EXPECT_LE(1, thr);
	/* the last throttle may still be in force when we disable */
	EXPECT_LE(thr - 1, unthr);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST(ksymbol_and_text_poke_attrs)
{
	struct perf_event_attr attr;
	int fd;

	/* no BPF, kprobes or modules in the test kernel: only the attr is checked */
	sb_attr(&attr);
	attr.ksymbol = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	EXPECT_LE(0, fd);
	close(fd);
	sb_attr(&attr);
	attr.text_poke = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (pt_can_count_kernel()) {
		EXPECT_LE(0, fd);
	} else if (pt_kernel_is_612()) {
		/* 6.12: kernel text changes are for the privileged (6.18: anyone) */
		EXPECT_EQ(-1, fd);
		EXPECT_EQ(EACCES, errno);
	}
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "--exec-child"))
		return exec_child_main(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
