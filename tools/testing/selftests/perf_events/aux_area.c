// SPDX-License-Identifier: GPL-2.0
/*
 * The AUX area (the second mapping of a ring buffer, at aux_offset),
 * through the test module modules/perf_test_aux.c: a tracer that opens
 * its output handle when its event starts and writes attr.config bytes
 * of a known stream ((i * 7 + 1) & 0xff at running offset i) when it
 * stops. Its events are CPU events here, enabled and disabled from the
 * CPU they count on, so that each ENABLE/DISABLE pair is exactly one
 * start and one stop, one stretch of the stream and one PERF_RECORD_AUX.
 *
 * What is checked: the mmap rules and errnos of the area, the AUX
 * records (offset, size, flags) and aux_head, the bytes, truncation when
 * the reader does not move aux_tail, overwrite mode (a read-only area),
 * the aux_watermark wakeup, ITRACE_START, AUX_OUTPUT_HW_ID and
 * LOST_SAMPLES records, skip, unmapping while the tracer runs, SET_OUTPUT
 * between AUX PMUs, a PMU that needs one contiguous chunk, the mlock
 * limit, and that every area the driver set up is freed.
 *
 * Needs root (module loading); skips where the module is missing.
 */
#include "perf_test.h"

#include <linux/hw_breakpoint.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define MODULE_PATH	"/tests/modules/perf_test_aux.ko"
#define MODULE_NAME	"perf_test_aux"
#define AUX_DIR		"/sys/bus/event_source/devices/perf_test_aux"
#define NOSG_DIR	"/sys/bus/event_source/devices/perf_test_aux_nosg"
#define LIVE_BUFS	"/sys/module/perf_test_aux/parameters/live_bufs"
#define MLOCK_KB	"/proc/sys/kernel/perf_event_mlock_kb"
#define FULL_API	"/sys/module/perf_test_aux/parameters/full_api"
#define LAST_ORDER	"/sys/module/perf_test_aux/parameters/last_order"

enum {
	AUX_ITRACE_STARTED	= 1 << 0,
	AUX_HW_ID		= 1 << 1,
	AUX_LOST		= 1 << 2,
	AUX_SKIP		= 1 << 3,
};

#define DATA_PAGES	8

/* The last area's free drops its module reference just after free_aux. */
static int unload_module(void)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (!syscall(SYS_delete_module, MODULE_NAME, O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			break;
		usleep(10000);
	}
	return errno;
}

static long long live_bufs(void)
{
	long long n;

	return pt_read_int_file(LIVE_BUFS, &n) ? -1 : n;
}

/* Was the module built with what stock does not export (see the module)? */
static bool full_api(void)
{
	long long n;

	return !pt_read_int_file(FULL_API, &n) && n;
}

/* The areas are freed by a work item after the last unmap: wait for it. */
static long long live_bufs_settled(void)
{
	long long n = live_bufs();
	int i;

	for (i = 0; i < 200 && n > 0; i++) {
		usleep(10000);
		n = live_bufs();
	}
	return n;
}

static __u8 stream_byte(__u64 i)
{
	return (i * 7 + 1) & 0xff;
}

/* FIXTURE_DATA(aux), named for the helpers below */
#define aux_fixture _test_data_aux

FIXTURE(aux) {
	int type, nosg;
	long ps;
	int fd;
	struct pt_rb rb;
	void *area;
	size_t area_len;
};

FIXTURE_SETUP(aux)
{
	int err;

	self->fd = -1;
	self->area = NULL;
	if (geteuid() != 0)
		SKIP(return, "needs root to load modules");
	err = pt_load_module(MODULE_PATH);
	if (err == -ENOENT)
		SKIP(return, "no %s", MODULE_PATH);
	if (err == -ENOSYS)
		SKIP(return, "kernel without modules");
	ASSERT_EQ(0, err);
	self->type = pt_pmu_type(AUX_DIR);
	self->nosg = pt_pmu_type(NOSG_DIR);
	ASSERT_LT(0, self->type);
	ASSERT_LT(0, self->nosg);
	self->ps = pt_page_size();
	/* the events count on CPU 0, and we enable them from there */
	ASSERT_EQ(0, pt_pin_cpu(0, 0));
}

FIXTURE_TEARDOWN(aux)
{
	if (geteuid() != 0)
		return;
	if (self->area)
		munmap(self->area, self->area_len);
	pt_rb_unmap(&self->rb);
	if (self->fd >= 0)
		close(self->fd);
	/* every area the driver set up was given back to it */
	EXPECT_EQ(0, live_bufs_settled());
	EXPECT_EQ(0, unload_module());
}

static void aux_attr(struct perf_event_attr *attr, int type, __u64 bytes,
		     __u64 flags)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = bytes;
	attr->config1 = flags;
	attr->disabled = 1;
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CPU;
}

static int aux_open_cpu0(int type, __u64 bytes, __u64 flags)
{
	struct perf_event_attr attr;

	aux_attr(&attr, type, bytes, flags);
	return sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
}

/* Place the area after the data pages and map it; 0 or -errno. */
static int map_area(struct __test_metadata *_metadata, struct aux_fixture *self,
		    int pages, int prot)
{
	void *p;

	self->rb.pg->aux_offset = (1 + DATA_PAGES) * self->ps;
	self->rb.pg->aux_size = pages * self->ps;
	p = mmap(NULL, pages * self->ps, prot, MAP_SHARED, self->fd,
		 self->rb.pg->aux_offset);
	if (p == MAP_FAILED)
		return -errno;
	self->area = p;
	self->area_len = pages * self->ps;
	return 0;
}

/* An event on CPU 0 writing @bytes a stretch, its buffer and area mapped. */
static void setup_tracer(struct __test_metadata *_metadata,
			 struct aux_fixture *self, __u64 bytes, __u64 flags,
			 int pages, int prot)
{
	self->fd = aux_open_cpu0(self->type, bytes, flags);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	ASSERT_EQ(0, map_area(_metadata, self, pages, prot));
	ASSERT_EQ(1, live_bufs());
}

/* One start and one stop of the tracer: one stretch of its stream. */
static void stretch(struct __test_metadata *_metadata, int fd)
{
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
}

struct aux_rec {
	struct perf_event_header header;
	__u64 offset;
	__u64 size;
	__u64 flags;
	__u32 pid, tid;		/* sample_id: PERF_SAMPLE_TID */
	__u32 cpu, res;		/* PERF_SAMPLE_CPU */
};

static __u64 aux_head(struct aux_fixture *self)
{
	return __atomic_load_n(&self->rb.pg->aux_head, __ATOMIC_ACQUIRE);
}

/* Are the area's bytes for stream offsets [from, to) the stream's? */
static bool stream_in_area(struct aux_fixture *self, __u64 from, __u64 to)
{
	const __u8 *a = self->area;
	__u64 i;

	for (i = from; i < to; i++)
		if (a[i % self->area_len] != stream_byte(i))
			return false;
	return true;
}

/* The mapping rules: where and how large, and on what. */
TEST_F(aux, mmap_rules_and_errnos)
{
	int fd2, sw;
	void *p;

	self->fd = aux_open_cpu0(self->type, 100, 0);
	ASSERT_LE(0, self->fd);
	/* no data buffer yet: nothing says where the area goes */
	p = mmap(NULL, 4 * self->ps, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, (1 + DATA_PAGES) * self->ps);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);

	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	self->rb.pg->aux_offset = (1 + DATA_PAGES) * self->ps;
	self->rb.pg->aux_size = 4 * self->ps;
	/* a size other than aux_size */
	p = mmap(NULL, 2 * self->ps, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, self->rb.pg->aux_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* an offset other than aux_offset */
	p = mmap(NULL, 4 * self->ps, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, (2 + DATA_PAGES) * self->ps);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* a private mapping */
	p = mmap(NULL, 4 * self->ps, PROT_READ | PROT_WRITE, MAP_PRIVATE,
		 self->fd, self->rb.pg->aux_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* not a power of two */
	self->rb.pg->aux_size = 3 * self->ps;
	p = mmap(NULL, 3 * self->ps, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, self->rb.pg->aux_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	/* over the data pages */
	self->rb.pg->aux_offset = DATA_PAGES * self->ps;
	self->rb.pg->aux_size = 4 * self->ps;
	p = mmap(NULL, 4 * self->ps, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, self->rb.pg->aux_offset);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, live_bufs());

	/* right: set up once, a second view of the same area */
	ASSERT_EQ(0, map_area(_metadata, self, 4, PROT_READ | PROT_WRITE));
	EXPECT_EQ(1, live_bufs());
	p = mmap(NULL, 4 * self->ps, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, self->rb.pg->aux_offset);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(1, live_bufs());
	/* the area is mapped: another size is refused */
	self->rb.pg->aux_size = 8 * self->ps;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 8 * self->ps, PROT_READ | PROT_WRITE,
				   MAP_SHARED, self->fd,
				   self->rb.pg->aux_offset));
	EXPECT_EQ(EINVAL, errno);
	munmap(p, 4 * self->ps);

	/* a PMU without an AUX area */
	sw = pt_open_sw(PERF_COUNT_SW_TASK_CLOCK, -1, 0);
	ASSERT_LE(0, sw);
	p = mmap(NULL, (1 + DATA_PAGES) * self->ps, PROT_READ | PROT_WRITE,
		 MAP_SHARED, sw, 0);
	ASSERT_NE(MAP_FAILED, p);
	((struct perf_event_mmap_page *)p)->aux_offset =
		(1 + DATA_PAGES) * self->ps;
	((struct perf_event_mmap_page *)p)->aux_size = 4 * self->ps;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 4 * self->ps, PROT_READ | PROT_WRITE,
				   MAP_SHARED, sw, (1 + DATA_PAGES) * self->ps));
	EXPECT_EQ(EOPNOTSUPP, errno);
	munmap(p, (1 + DATA_PAGES) * self->ps);
	close(sw);

	/* SET_OUTPUT: into the same PMU's buffer, not another AUX PMU's */
	fd2 = aux_open_cpu0(self->type, 100, 0);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	close(fd2);
	fd2 = aux_open_cpu0(self->nosg, 100, 0);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-1, ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	EXPECT_EQ(EINVAL, errno);
	close(fd2);
}

/*
 * Five stretches of 100 bytes: five AUX records at offsets 0, 100, ...
 * with no flags, aux_head at 500, the stream's bytes in the area, and an
 * ITRACE_START naming us before each start (the driver never says it
 * started).
 */
TEST_F(aux, records_and_head)
{
	struct perf_event_header *h;
	struct pt_recs r;
	int i, n = 0, it = 0;

	setup_tracer(_metadata, self, 100, 0, 2, PROT_READ | PROT_WRITE);
	for (i = 0; i < 5; i++)
		stretch(_metadata, self->fd);
	EXPECT_EQ(500, aux_head(self));
	EXPECT_TRUE(stream_in_area(self, 0, 500));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	EXPECT_EQ(0, r.bad);
	pt_recs_for_each(h, &r, 0) {
		if (h->type == PERF_RECORD_AUX) {
			struct aux_rec *a = (void *)h;

			ASSERT_EQ(sizeof(*a), h->size);
			EXPECT_EQ(100 * n, a->offset);
			EXPECT_EQ(100, a->size);
			EXPECT_EQ(0, a->flags);
			EXPECT_EQ(0, a->cpu);
			n++;
		} else if (h->type == PERF_RECORD_ITRACE_START) {
			__u32 *p = (void *)(h + 1);

			ASSERT_EQ(sizeof(*h) + 8 + 16, h->size);
			EXPECT_EQ(getpid(), p[0]);
			EXPECT_EQ(pt_gettid(), p[1]);
			/* its sample_id is ours too */
			EXPECT_EQ(getpid(), p[2]);
			/* every start has its ITRACE_START before its data */
			EXPECT_EQ(n, it);
			it++;
		}
	}
	EXPECT_EQ(5, n);
	EXPECT_EQ(5, it);
	pt_recs_free(&r);
}

/* A driver that reports where its trace starts gets one ITRACE_START. */
TEST_F(aux, itrace_start_until_the_driver_reports)
{
	struct pt_recs r;
	int i;

	if (!full_api())
		SKIP(return, "the module lacks what stock does not export");
	setup_tracer(_metadata, self, 100, AUX_ITRACE_STARTED, 2,
		     PROT_READ | PROT_WRITE);
	for (i = 0; i < 4; i++)
		stretch(_metadata, self->fd);
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	EXPECT_EQ(1, pt_recs_count(&r, PERF_RECORD_ITRACE_START));
	EXPECT_EQ(4, pt_recs_count(&r, PERF_RECORD_AUX));
	pt_recs_free(&r);
}

/*
 * A reader that never moves aux_tail: the second stretch fits in part
 * (TRUNCATED; one byte stays free, so that a full area is not an empty
 * one), the third finds no room and writes nothing, the event staying
 * enabled; once the reader catches up, a stretch flows whole again.
 */
TEST_F(aux, full_area_truncates_then_stops)
{
	struct perf_event_header *h;
	struct pt_val3 v1, v2;
	struct pt_recs r;
	__u64 ps = self->ps, want[][3] = {
		{ 0, 3000, 0 },
		{ 3000, ps - 1 - 3000, PERF_AUX_FLAG_TRUNCATED },
		{ ps - 1, 3000, 0 },
	};
	int n = 0, fd;
	struct perf_event_attr attr;

	/* reads of time_enabled tell whether the event is still on */
	aux_attr(&attr, self->type, 3000, 0);
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	self->fd = fd;
	ASSERT_EQ(0, pt_rb_map(&self->rb, fd, DATA_PAGES));
	ASSERT_EQ(0, map_area(_metadata, self, 1, PROT_READ | PROT_WRITE));

	stretch(_metadata, fd);
	stretch(_metadata, fd);
	EXPECT_EQ(ps - 1, aux_head(self));
	/* no room: the tracer does not start, but the event stays on */
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	usleep(20000);
	ASSERT_EQ(0, pt_read3(fd, &v1));
	usleep(20000);
	ASSERT_EQ(0, pt_read3(fd, &v2));
	EXPECT_LT(v1.enabled, v2.enabled);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(ps - 1, aux_head(self));

	/* the reader catches up */
	self->rb.pg->aux_tail = ps - 1;
	stretch(_metadata, fd);
	EXPECT_EQ(ps - 1 + 3000, aux_head(self));
	EXPECT_TRUE(stream_in_area(self, ps - 1, ps - 1 + 3000));

	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_AUX) {
		struct aux_rec *a = (void *)h;

		ASSERT_GT(3, n);
		EXPECT_EQ(want[n][0], a->offset);
		EXPECT_EQ(want[n][1], a->size);
		EXPECT_EQ(want[n][2], a->flags);
		n++;
	}
	EXPECT_EQ(3, n);
	pt_recs_free(&r);
}

/*
 * A read-only area is overwritten: every stretch flows whole, its record
 * says OVERWRITE, and the area holds the newest bytes of the stream.
 */
TEST_F(aux, overwrite_mode_keeps_the_newest)
{
	struct perf_event_header *h;
	struct pt_recs r;
	int i, n = 0;

	setup_tracer(_metadata, self, 3000, 0, 1, PROT_READ);
	for (i = 0; i < 3; i++)
		stretch(_metadata, self->fd);
	EXPECT_EQ(9000, aux_head(self));
	EXPECT_TRUE(stream_in_area(self, 9000 - self->ps, 9000));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_AUX) {
		struct aux_rec *a = (void *)h;

		EXPECT_EQ(3000, a->size);
		EXPECT_EQ(PERF_AUX_FLAG_OVERWRITE, a->flags);
		TH_LOG("overwrite record %d: offset %llu", n,
		       (unsigned long long)a->offset);
		n++;
	}
	EXPECT_EQ(3, n);
	pt_recs_free(&r);
}

/* aux_watermark bytes written wake the reader; fewer do not. */
TEST_F(aux, watermark_wakes_the_reader)
{
	struct perf_event_attr attr;
	struct pollfd pfd;

	aux_attr(&attr, self->type, 100, 0);
	attr.aux_watermark = 250;
	self->fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	ASSERT_EQ(0, map_area(_metadata, self, 2, PROT_READ | PROT_WRITE));
	pfd.fd = self->fd;
	pfd.events = POLLIN;

	stretch(_metadata, self->fd);
	stretch(_metadata, self->fd);
	EXPECT_EQ(0, poll(&pfd, 1, 50));
	stretch(_metadata, self->fd);
	EXPECT_EQ(1, poll(&pfd, 1, 1000));
	EXPECT_EQ(POLLIN, pfd.revents & POLLIN);
}

/*
 * The stream's hardware id and lost samples, as the driver reports them
 * (a module on stock cannot report lost samples: see the module).
 */
TEST_F(aux, hw_id_and_lost_samples_records)
{
	struct perf_event_header *h;
	struct perf_event_attr attr;
	struct pt_recs r;
	int ids = 0, lost = 0, want_lost = full_api() ? 2 : 0;

	aux_attr(&attr, self->type, 100, AUX_HW_ID | (want_lost ? AUX_LOST : 0));
	attr.config2 = 0x1234;
	self->fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	ASSERT_EQ(0, map_area(_metadata, self, 2, PROT_READ | PROT_WRITE));
	stretch(_metadata, self->fd);
	stretch(_metadata, self->fd);
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	pt_recs_for_each(h, &r, 0) {
		__u64 *v = (void *)(h + 1);
		__u32 *id = (void *)(v + 1);

		if (h->type != PERF_RECORD_AUX_OUTPUT_HW_ID &&
		    h->type != PERF_RECORD_LOST_SAMPLES)
			continue;
		ASSERT_EQ(sizeof(*h) + 8 + 16, h->size);
		EXPECT_EQ(0x1234, v[0]);
		EXPECT_EQ(getpid(), id[0]);
		EXPECT_EQ(0, id[2]);
		if (h->type == PERF_RECORD_AUX_OUTPUT_HW_ID)
			ids++;
		else
			lost++;
	}
	EXPECT_EQ(2, ids);
	EXPECT_EQ(want_lost, lost);
	EXPECT_EQ(2, pt_recs_count(&r, PERF_RECORD_AUX));
	pt_recs_free(&r);
}

/* Skipped bytes count as written; the record starts after them. */
TEST_F(aux, skip_moves_the_head)
{
	struct perf_event_header *h;
	struct pt_recs r;
	__u64 want = 8;
	int n = 0;

	setup_tracer(_metadata, self, 100, AUX_SKIP, 2,
		     PROT_READ | PROT_WRITE);
	stretch(_metadata, self->fd);
	stretch(_metadata, self->fd);
	EXPECT_EQ(216, aux_head(self));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_AUX) {
		struct aux_rec *a = (void *)h;

		TH_LOG("skip record %d: offset %llu size %llu", n,
		       (unsigned long long)a->offset,
		       (unsigned long long)a->size);
		EXPECT_EQ(want, a->offset);
		EXPECT_EQ(100, a->size);
		want += 108;
		n++;
	}
	EXPECT_EQ(2, n);
	pt_recs_free(&r);
}

/*
 * The area unmapped while the tracer runs: the stretch it was writing
 * still gets its record and moves aux_head, the area is freed when the
 * tracer lets go of it, and an area mapped anew (of another size)
 * continues the stream where it was.
 */
TEST_F(aux, unmap_while_tracing)
{
	struct pt_recs r;

	setup_tracer(_metadata, self, 100, 0, 2, PROT_READ | PROT_WRITE);
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0));
	munmap(self->area, self->area_len);
	self->area = NULL;
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(100, aux_head(self));
	EXPECT_EQ(0, live_bufs_settled());

	ASSERT_EQ(0, map_area(_metadata, self, 4, PROT_READ | PROT_WRITE));
	EXPECT_EQ(1, live_bufs());
	stretch(_metadata, self->fd);
	EXPECT_EQ(200, aux_head(self));
	EXPECT_TRUE(stream_in_area(self, 100, 200));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	EXPECT_EQ(2, pt_recs_count(&r, PERF_RECORD_AUX));
	pt_recs_free(&r);
}

/*
 * The data buffer unmapped first: the area keeps the buffer and its
 * writer, so the stream and its record still arrive.
 */
TEST_F(aux, area_outlives_data_mapping)
{
	struct pt_recs r;

	setup_tracer(_metadata, self, 100, 0, 2, PROT_READ | PROT_WRITE);
	pt_rb_unmap(&self->rb);
	stretch(_metadata, self->fd);
	EXPECT_TRUE(stream_in_area(self, 0, 100));
	/* the same buffer, mapped again */
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	EXPECT_EQ(100, aux_head(self));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	EXPECT_EQ(1, pt_recs_count(&r, PERF_RECORD_AUX));
	pt_recs_free(&r);
}

static long long last_order(void)
{
	long long n;

	return pt_read_int_file(LAST_ORDER, &n) ? -1 : n;
}

/*
 * The pages' chunks, as 6.12 lays them out: single pages for a PMU that
 * can scatter; for one that cannot (AUX_NO_SG), chunks as large as the
 * area when it is overwritten, or as the watermark (by default half the
 * area) when the reader moves aux_tail.
 */
TEST_F(aux, chunks_of_the_area)
{
	struct perf_event_attr attr;

	/* a scattering PMU: pages */
	setup_tracer(_metadata, self, 100, 0, 16, PROT_READ | PROT_WRITE);
	EXPECT_EQ(0, last_order());
	munmap(self->area, self->area_len);
	self->area = NULL;
	pt_rb_unmap(&self->rb);
	close(self->fd);

	/* NO_SG, read-write: half the area a chunk */
	self->fd = aux_open_cpu0(self->nosg, 100, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	ASSERT_EQ(0, map_area(_metadata, self, 16, PROT_READ | PROT_WRITE));
	EXPECT_EQ(3, last_order());
	stretch(_metadata, self->fd);
	EXPECT_EQ(100, aux_head(self));
	munmap(self->area, self->area_len);
	self->area = NULL;

	/* NO_SG, read-only: the whole area */
	ASSERT_EQ(0, map_area(_metadata, self, 16, PROT_READ));
	EXPECT_EQ(4, last_order());
	munmap(self->area, self->area_len);
	self->area = NULL;
	pt_rb_unmap(&self->rb);
	close(self->fd);

	/* NO_SG, read-write with the watermark at the whole area */
	aux_attr(&attr, self->nosg, 100, 0);
	attr.aux_watermark = 16 * self->ps;
	self->fd = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	ASSERT_EQ(0, map_area(_metadata, self, 16, PROT_READ | PROT_WRITE));
	EXPECT_EQ(4, last_order());
}

/*
 * The area counts against perf_event_mlock_kb like the data pages: a
 * user with no RLIMIT_MEMLOCK gets EPERM for an area past the allowance.
 */
TEST_F(aux, mlock_limit_counts_the_area)
{
	char old[32];
	pid_t pid;

	/* the allowance is per CPU: six pages in all */
	if (6 % pt_nr_cpus())
		SKIP(return, "6 pages do not divide among %d CPUs",
		     pt_nr_cpus());
	ASSERT_EQ(0, pt_read_file(MLOCK_KB, old, sizeof(old)));
	/* 1 + 2 data pages and a 2-page area fit; a 4-page one does not */
	ASSERT_EQ(0, pt_write_int_file(MLOCK_KB, 6 / pt_nr_cpus() *
				       self->ps / 1024));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct rlimit rl = { 0, 0 };
		struct perf_event_attr attr;
		struct pt_rb rb;
		long ps = pt_page_size();
		void *p;
		int fd;

		if (setrlimit(RLIMIT_MEMLOCK, &rl) || pt_drop_privs(1000, 1000))
			_exit(10);
		aux_attr(&attr, self->type, 100, 0);
		attr.exclude_kernel = 1;
		attr.exclude_hv = 1;
		fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		if (fd < 0)
			_exit(11);
		if (pt_rb_map(&rb, fd, 2))
			_exit(12);
		rb.pg->aux_offset = 3 * ps;
		rb.pg->aux_size = 4 * ps;
		p = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 3 * ps);
		if (p != MAP_FAILED || errno != EPERM)
			_exit(13);
		rb.pg->aux_size = 2 * ps;
		p = mmap(NULL, 2 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 3 * ps);
		if (p == MAP_FAILED)
			_exit(14);
		_exit(0);
	}
	EXPECT_EQ(0, pt_wait_exit(pid));
	pt_write_file(MLOCK_KB, old);
}

/*
 * PAUSE_OUTPUT pauses the data buffer, not the AUX stream (as in 6.12):
 * the stretch while paused moves aux_head, but its AUX record is lost.
 */
TEST_F(aux, pause_output_pauses_the_records_only)
{
	struct pt_recs r;

	setup_tracer(_metadata, self, 100, 0, 2, PROT_READ | PROT_WRITE);
	stretch(_metadata, self->fd);
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1));
	stretch(_metadata, self->fd);
	EXPECT_EQ(200, aux_head(self));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0));
	stretch(_metadata, self->fd);
	EXPECT_EQ(300, aux_head(self));
	EXPECT_TRUE(stream_in_area(self, 0, 300));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	TH_LOG("AUX records: %d, LOST: %d", pt_recs_count(&r, PERF_RECORD_AUX),
	       pt_recs_count(&r, PERF_RECORD_LOST));
	EXPECT_EQ(2, pt_recs_count(&r, PERF_RECORD_AUX));
	pt_recs_free(&r);
}

/* Open an event on CPU 0 in @group; its fd, or -errno. */
static int probe_open(int type, __u64 config, __u64 st, __u32 ass,
		      int aux_output, int group)
{
	struct perf_event_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	attr.sample_period = st ? 1 : 0;
	attr.sample_type = st;
	attr.aux_sample_size = ass;
	attr.aux_output = aux_output;
	fd = sys_perf_event_open(&attr, -1, 0, group, 0);
	return fd < 0 ? -errno : fd;
}

/*
 * A sample of a group led by the tracer carries a snapshot of the
 * tracer's newest bytes (PERF_SAMPLE_AUX, aux_sample_size): the stream
 * written by the stretch before, which is all there is.
 */
TEST_F(aux, sample_carries_an_aux_snapshot)
{
	struct perf_event_header *h;
	struct perf_event_attr attr;
	struct pt_recs r;
	char *page;
	int fd, n = 0;

	setup_tracer(_metadata, self, 100, 0, 2, PROT_READ | PROT_WRITE);
	stretch(_metadata, self->fd);
	ASSERT_EQ(100, aux_head(self));

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_AUX;
	attr.aux_sample_size = 64;
	fd = sys_perf_event_open(&attr, -1, 0, self->fd,
				 PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	page = mmap(NULL, self->ps, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);

	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE,
			   PERF_IOC_FLAG_GROUP));
	page[0] = 1;
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE,
			   PERF_IOC_FLAG_GROUP));
	munmap(page, self->ps);

	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		__u64 *v = (void *)(h + 1);
		__u8 *data = (void *)(v + 2);
		int i;

		/* TID, then the size of the snapshot and its bytes */
		ASSERT_EQ(sizeof(*h) + 16 + v[1], h->size);
		if (n++)
			continue;
		EXPECT_EQ(64, v[1]);
		for (i = 0; i < 64 && i < v[1]; i++)
			EXPECT_EQ(stream_byte(36 + i), data[i]);
	}
	EXPECT_LT(0, n);
	pt_recs_free(&r);
	close(fd);
}

/*
 * The group rules: a snapshot needs a leader whose driver makes them,
 * aux_output a leader whose driver takes the member, and neither can
 * do without an AUX leader.
 */
TEST_F(aux, group_rules_of_snapshots_and_aux_output)
{
	int out = pt_pmu_type("/sys/bus/event_source/devices/perf_test_aux_out");
	static int watched;
	struct perf_event_attr attr;
	int lead, lnosg, fd, bp;

	ASSERT_LT(0, out);
	lead = aux_open_cpu0(self->type, 100, 0);
	lnosg = aux_open_cpu0(self->nosg, 100, 0);
	ASSERT_LE(0, lead);
	ASSERT_LE(0, lnosg);
	/* probe_open() gives the fd or -errno */
	fd = probe_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS,
			PERF_SAMPLE_AUX, 64, 0, lead);
	EXPECT_LE(0, fd);
	close(fd);
	EXPECT_EQ(-EINVAL, probe_open(PERF_TYPE_SOFTWARE,
				      PERF_COUNT_SW_PAGE_FAULTS,
				      PERF_SAMPLE_AUX, 64, 0, lnosg));
	EXPECT_EQ(-EINVAL, probe_open(PERF_TYPE_SOFTWARE,
				      PERF_COUNT_SW_PAGE_FAULTS,
				      PERF_SAMPLE_AUX, 64, 0, -1));
	fd = probe_open(out, 0, 0, 0, 1, lead);
	EXPECT_LE(0, fd);
	close(fd);
	EXPECT_EQ(-EINVAL, probe_open(out, 0, 0, 0, 1, lnosg));
	EXPECT_EQ(-EINVAL, probe_open(out, 0, 0, 0, 1, -1));
	/* not both at once */
	EXPECT_EQ(-EINVAL, probe_open(out, 0, PERF_SAMPLE_AUX, 64, 1, lead));
	/* a hardware event may join a group a tracer leads */
	fd = probe_open(out, 0, 0, 0, 0, lead);
	EXPECT_LE(0, fd);
	close(fd);
	/* or one a breakpoint leads: its PMU is a software-context one too */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_BREAKPOINT;
	attr.bp_type = HW_BREAKPOINT_W;
	attr.bp_addr = (unsigned long)&watched;
	attr.bp_len = HW_BREAKPOINT_LEN_4;
	bp = sys_perf_event_open(&attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, bp);
	fd = probe_open(out, 0, 0, 0, 0, bp);
	EXPECT_LE(0, fd);
	close(fd);
	close(bp);
	/* a PMU that cannot write into an AUX area */
	EXPECT_EQ(-EOPNOTSUPP, probe_open(PERF_TYPE_SOFTWARE,
					  PERF_COUNT_SW_PAGE_FAULTS, 0, 0, 1,
					  lead));
	close(lead);
	close(lnosg);
}

/*
 * An inherited CPU event: the child's copy writes into the origin's
 * area, after an ITRACE_START naming the child.
 */
TEST_F(aux, inherited_copy_writes_into_the_origin_area)
{
	struct perf_event_header *h;
	struct perf_event_attr attr;
	struct pt_recs r;
	__u64 next = 0;
	int child_starts = 0, n = 0;
	pid_t pid;

	aux_attr(&attr, self->type, 100, 0);
	attr.inherit = 1;
	self->fd = sys_perf_event_open(&attr, 0, 0, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	ASSERT_EQ(0, map_area(_metadata, self, 4, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		usleep(1000);
		_exit(0);
	}
	ASSERT_EQ(0, pt_wait_exit(pid));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0));

	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	pt_recs_for_each(h, &r, 0) {
		if (h->type == PERF_RECORD_ITRACE_START) {
			__u32 *p = (void *)(h + 1);

			child_starts += p[0] == (__u32)pid;
		} else if (h->type == PERF_RECORD_AUX) {
			struct aux_rec *a = (void *)h;

			/* one stream, whoever wrote it */
			EXPECT_EQ(next, a->offset);
			EXPECT_EQ(100, a->size);
			next += a->size;
			n++;
		}
	}
	EXPECT_LT(0, child_starts);
	EXPECT_LT(1, n);
	EXPECT_EQ(next, aux_head(self));
	EXPECT_TRUE(stream_in_area(self, 0, next));
	pt_recs_free(&r);
}

struct race_arg {
	int fd;
	long ps;
	struct perf_event_mmap_page *pg;
	int stop;
	int maps;
};

static void *race_mapper(void *p)
{
	struct race_arg *a = p;

	while (!__atomic_load_n(&a->stop, __ATOMIC_RELAXED)) {
		void *m = mmap(NULL, 2 * a->ps, PROT_READ | PROT_WRITE,
			       MAP_SHARED, a->fd, a->pg->aux_offset);

		if (m != MAP_FAILED) {
			a->maps++;
			munmap(m, 2 * a->ps);
		}
	}
	return NULL;
}

/*
 * The area mapped and unmapped over and over while the tracer starts and
 * stops on another CPU's behalf: nothing splats (KASAN, lockdep) and
 * every area is freed.
 */
TEST_F(aux, map_unmap_races_a_running_tracer)
{
	struct race_arg a;
	pthread_t t;
	int i;

	self->fd = aux_open_cpu0(self->type, 100, 0);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, DATA_PAGES));
	self->rb.pg->aux_offset = (1 + DATA_PAGES) * self->ps;
	self->rb.pg->aux_size = 2 * self->ps;
	a.fd = self->fd;
	a.ps = self->ps;
	a.pg = self->rb.pg;
	a.stop = 0;
	a.maps = 0;
	ASSERT_EQ(0, pthread_create(&t, NULL, race_mapper, &a));
	for (i = 0; i < 2000; i++) {
		ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ENABLE, 0));
		ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_DISABLE, 0));
		/* the reader keeps up, so a start finds room */
		self->rb.pg->aux_tail = self->rb.pg->aux_head;
	}
	__atomic_store_n(&a.stop, 1, __ATOMIC_RELAXED);
	pthread_join(t, NULL);
	TH_LOG("%d mappings during 2000 stretches", a.maps);
	EXPECT_LT(0, a.maps);
}

TEST_HARNESS_MAIN
