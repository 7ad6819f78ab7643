// SPDX-License-Identifier: GPL-2.0
/*
 * Ring-buffer modes with exact record streams, using page-fault samples
 * (sample_period 1, IP|TID|ADDR: 32 bytes each) on known fresh pages:
 * a writable mapping never overwrites and accounts what it drops; a
 * read-only mapping overwrites; write_backward; records wrapping around
 * the end of the buffer; PAUSE_OUTPUT; SET_OUTPUT and PERF_FLAG_FD_OUTPUT
 * with their errnos; REFRESH and PERIOD on a sampling event.
 */
#include "perf_test.h"
#include <pthread.h>

#define SAMPLE_SIZE	32
#define ST		(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_ADDR)

struct lost_rec {
	struct perf_event_header h;
	__u64 id, lost;
};

static int open_faults(int write_backward, __u64 period)
{
	struct perf_event_attr attr;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, period, ST);
	attr.write_backward = write_backward;
	return sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static __attribute__((noinline)) void touch_pages(char *p, int n)
{
	pt_touch(p, n);
}

/* Fault n fresh pages of 'p' with fd enabled (fd's own code path warm). */
static int fault_window(int fd, char *p, int n)
{
	char *warm = pt_map_pages(1);

	if (!warm)
		return -1;
	touch_pages(warm, 1);
	pt_unmap_pages(warm, 1);
	if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -1;
	touch_pages(p, n);
	return ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

static __u64 sample_addr(struct perf_event_header *h)
{
	return ((__u64 *)(h + 1))[2];
}

static __u64 page(char *p, int i)
{
	return (unsigned long)(p + (long)i * pt_page_size());
}

FIXTURE(rb) {
	int fd;
	char *p;
	int npages;
	struct pt_rb rb;
};

FIXTURE_SETUP(rb)
{
	self->npages = 1024;
	ASSERT_EQ(0, pt_pin_cpu(0, pt_nth_cpu(0)));
	self->p = pt_map_pages(self->npages);
	ASSERT_NE(NULL, self->p);
	self->fd = -1;
	memset(&self->rb, 0, sizeof(self->rb));
}

FIXTURE_TEARDOWN(rb)
{
	pt_rb_unmap(&self->rb);
	if (self->fd >= 0)
		close(self->fd);
	pt_unmap_pages(self->p, self->npages);
}

/*
 * Writable, one data page, 512 faults: the oldest samples are kept. The
 * kernel never fills a writable buffer completely (head == tail + size
 * would read as empty): 127 of the 128 32-byte slots are used.
 */
TEST_F(rb, writable_mapping_keeps_oldest_and_counts_lost)
{
	int n = 512, cap = pt_page_size() / SAMPLE_SIZE - 1, i = 0;
	struct perf_event_header *h;
	struct pt_recs r;

	self->fd = open_faults(0, 1);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 1));
	ASSERT_EQ(0, fault_window(self->fd, self->p, n));
	/* full: head stopped exactly at the capacity, tail still 0 */
	EXPECT_EQ(cap * SAMPLE_SIZE, pt_rb_head(&self->rb));
	EXPECT_EQ(0, self->rb.pg->data_tail);
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	EXPECT_EQ(cap, r.nr);
	pt_recs_for_each(h, &r, 0) {
		ASSERT_EQ(PERF_RECORD_SAMPLE, h->type);
		EXPECT_EQ(page(self->p, i), sample_addr(h));
		i++;
	}
	pt_recs_free(&r);
	/* room again: the next record is LOST with every dropped sample */
	ASSERT_EQ(0, fault_window(self->fd, self->p + n * pt_page_size(), 1));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	ASSERT_EQ(2, r.nr);
	h = pt_recs_next(&r, NULL, 0);
	ASSERT_EQ(PERF_RECORD_LOST, h->type);
	EXPECT_EQ(sizeof(struct lost_rec), h->size);
	EXPECT_EQ(n - cap, ((struct lost_rec *)h)->lost);
	h = pt_recs_next(&r, h, 0);
	ASSERT_EQ(PERF_RECORD_SAMPLE, h->type);
	EXPECT_EQ(page(self->p, n), sample_addr(h));
	pt_recs_free(&r);
}

/* Read-only: the kernel ignores data_tail and overwrites the oldest. */
TEST_F(rb, read_only_mapping_overwrites)
{
	int n = 512, i;
	__u64 head, pos;

	self->fd = open_faults(0, 1);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map_prot(&self->rb, self->fd, 1, PROT_READ));
	ASSERT_EQ(0, fault_window(self->fd, self->p, n));
	head = pt_rb_head(&self->rb);
	/* every sample was written, none lost */
	EXPECT_EQ((__u64)n * SAMPLE_SIZE, head);
	/* the newest 128 are in the buffer, at known offsets */
	for (i = n - 1, pos = head - SAMPLE_SIZE; pos + pt_page_size() >= head &&
	     i >= n - (int)(pt_page_size() / SAMPLE_SIZE); i--, pos -= SAMPLE_SIZE) {
		struct perf_event_header h;
		__u64 rec[4];

		pt_rb_copy(&self->rb, rec, pos, sizeof(rec));
		memcpy(&h, rec, sizeof(h));
		ASSERT_EQ(PERF_RECORD_SAMPLE, h.type);
		ASSERT_EQ(SAMPLE_SIZE, h.size);
		EXPECT_EQ(page(self->p, i), rec[3]);
	}
}

/* write_backward: head runs down from 0; the newest record is at head. */
TEST_F(rb, write_backward_newest_first)
{
	struct perf_event_header *h;
	int n = 32, i = 0;
	struct pt_recs r;
	__u64 head;

	self->fd = open_faults(1, 1);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map_prot(&self->rb, self->fd, 4, PROT_READ));
	ASSERT_EQ(0, fault_window(self->fd, self->p, n));
	head = pt_rb_head(&self->rb);
	EXPECT_EQ((__u64)0 - n * SAMPLE_SIZE, head);
	/* from head up to 0: newest to oldest */
	ASSERT_EQ(0, pt_rb_collect(&self->rb, head, 0, &r));
	EXPECT_EQ(n, r.nr);
	pt_recs_for_each(h, &r, 0) {
		ASSERT_EQ(PERF_RECORD_SAMPLE, h->type);
		EXPECT_EQ(page(self->p, n - 1 - i), sample_addr(h));
		i++;
	}
	pt_recs_free(&r);
}

TEST_F(rb, write_backward_overwrites_oldest)
{
	int n = 1000, cap = 4 * pt_page_size() / SAMPLE_SIZE, i = 0;
	struct perf_event_header *h;
	struct pt_recs r;
	__u64 head;

	self->fd = open_faults(1, 1);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map_prot(&self->rb, self->fd, 4, PROT_READ));
	ASSERT_EQ(0, fault_window(self->fd, self->p, n));
	head = pt_rb_head(&self->rb);
	EXPECT_EQ((__u64)0 - n * SAMPLE_SIZE, head);
	ASSERT_EQ(0, pt_rb_collect(&self->rb, head, head + cap * SAMPLE_SIZE, &r));
	EXPECT_EQ(cap, r.nr);
	pt_recs_for_each(h, &r, 0) {
		ASSERT_EQ(PERF_RECORD_SAMPLE, h->type);
		EXPECT_EQ(page(self->p, n - 1 - i), sample_addr(h));
		i++;
	}
	pt_recs_free(&r);
}

TEST_F(rb, write_backward_writable_mapping_allowed)
{
	self->fd = open_faults(1, 1);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(0, pt_rb_map(&self->rb, self->fd, 1));
}

/*
 * 40-byte records (IP|TID|ADDR|PERIOD) do not divide the 4096-byte buffer:
 * read in rounds, every record is found in order, one of them split
 * across the end of the buffer, nothing lost.
 */
TEST_F(rb, records_wrap_around_the_end)
{
	struct perf_event_attr attr;
	int round, i = 0, split = 0;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, ST | PERF_SAMPLE_PERIOD);
	self->fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 1));
	for (round = 0; round < 10; round++) {
		struct perf_event_header *h;
		struct pt_recs r;
		__u64 pos = self->rb.tail;

		ASSERT_EQ(0, fault_window(self->fd, self->p + i * pt_page_size(), 50));
		ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
		EXPECT_EQ(0, r.bad);
		EXPECT_EQ(50, r.nr);
		pt_recs_for_each(h, &r, 0) {
			ASSERT_EQ(PERF_RECORD_SAMPLE, h->type);
			ASSERT_EQ(40, h->size);
			EXPECT_EQ(page(self->p, i), sample_addr(h));
			EXPECT_EQ(1, ((__u64 *)(h + 1))[3]);
			if ((pos & (pt_page_size() - 1)) + h->size > (__u64)pt_page_size())
				split++;
			pos += h->size;
			i++;
		}
		pt_recs_free(&r);
	}
	EXPECT_EQ(500, i);
	/* 20000 bytes through a 4096-byte ring: crossed the end 4 times */
	EXPECT_LE(4, split);
}

TEST_F(rb, pause_output_drops_and_counts)
{
	struct perf_event_header *h;
	struct pt_recs r;

	self->fd = open_faults(0, 1);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1));
	ASSERT_EQ(0, fault_window(self->fd, self->p, 16));
	EXPECT_EQ(0, pt_rb_head(&self->rb));
	/* still counted */
	EXPECT_EQ(16, pt_read1(self->fd));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0));
	ASSERT_EQ(0, fault_window(self->fd, self->p + 16 * pt_page_size(), 1));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	ASSERT_EQ(2, r.nr);
	h = pt_recs_next(&r, NULL, 0);
	ASSERT_EQ(PERF_RECORD_LOST, h->type);
	EXPECT_EQ(16, ((struct lost_rec *)h)->lost);
	h = pt_recs_next(&r, h, 0);
	ASSERT_EQ(PERF_RECORD_SAMPLE, h->type);
	EXPECT_EQ(page(self->p, 16), sample_addr(h));
	pt_recs_free(&r);
}

TEST_F(rb, pause_output_needs_a_buffer)
{
	self->fd = open_faults(0, 1);
	ASSERT_LE(0, self->fd);
	EXPECT_EQ(-1, ioctl(self->fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1));
	EXPECT_EQ(EINVAL, errno);
}

/*
 * mmap of an event whose output is redirected: 6.12 maps the target's
 * buffer when the size matches (EINVAL otherwise), and the munmap of that
 * view detaches the event from the buffer (its output is lost until
 * SET_OUTPUT again); later kernels (6.18) refuse the mmap with EBUSY.
 */
static void check_redirected_mmap(struct __test_metadata *_metadata, int fd,
				  struct pt_rb *target, int pages)
{
	struct pt_rb view;

	if (!pt_kernel_is_612()) {
		EXPECT_EQ(-EBUSY, pt_rb_map(&view, fd, pages));
		return;
	}
	EXPECT_EQ(-EINVAL, pt_rb_map(&view, fd, pages * 2));
	ASSERT_EQ(0, pt_rb_map(&view, fd, pages));
	/* the same buffer: its user page shows our data_tail */
	target->pg->data_tail = 0x40;
	EXPECT_EQ(0x40, view.pg->data_tail);
	target->pg->data_tail = target->tail;
	pt_rb_unmap(&view);
}

/*
 * SET_OUTPUT: two events of this task share one buffer, told apart by id.
 * (Two sampling events hit by the same software event share one sample
 * record's data on 6.12 and 6.18: both samples then carry the same id.
 * So the second event here is task-clock, not a second page-fault event.)
 */
TEST_F(rb, set_output_shares_buffer)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct pt_rb rb2;
	int fd2, fd3, n1 = 0, n2 = 0;
	__u64 id1, id2;
	struct pt_recs r;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_ID);
	self->fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	fd3 = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd3);
	pt_attr_sample(&attr, PERF_COUNT_SW_TASK_CLOCK, 100000, PERF_SAMPLE_ID);
	fd2 = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_ID, &id1));
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_ID, &id2));
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	check_redirected_mmap(_metadata, fd2, &self->rb, 4);
	/* again to the same target, or moved to another buffer and back */
	EXPECT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	ASSERT_EQ(0, pt_rb_map(&rb2, fd3, 1));
	EXPECT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, fd3));
	EXPECT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	pt_rb_unmap(&rb2);
	close(fd3);
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, fault_window(self->fd, self->p, 8));
	pt_spin_user_ns(5000000);
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		__u64 id = ((__u64 *)(h + 1))[0];

		n1 += id == id1;
		n2 += id == id2;
	}
	EXPECT_EQ(8, n1);
	EXPECT_LE(1, n2);
	EXPECT_EQ(n1 + n2, r.nr);
	pt_recs_free(&r);
	/* -1 (as a long) clears it; then fd2 maps its own buffer */
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, -1L));
	ASSERT_EQ(0, pt_rb_map(&rb2, fd2, 2));
	pt_rb_unmap(&rb2);
	close(fd2);
}

TEST_F(rb, set_output_errnos)
{
	struct perf_event_attr attr;
	int other, c0, c1, back, clk, pid_fd, cpu1 = pt_nth_cpu(1);
	struct pt_rb rb2;
	pid_t child;

	self->fd = open_faults(0, 1);
	ASSERT_LE(0, self->fd);
	other = open_faults(0, 1);
	ASSERT_LE(0, other);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 1));
	/* itself, a non-perf fd, no fd */
	EXPECT_EQ(-1, ioctl(self->fd, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, 0));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, 1000));
	EXPECT_EQ(EBADF, errno);
	/* an event with its own mapping cannot be redirected */
	ASSERT_EQ(0, pt_rb_map(&rb2, other, 1));
	EXPECT_EQ(-1, ioctl(other, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	EXPECT_EQ(EINVAL, errno);
	pt_rb_unmap(&rb2);
	close(other);
	/* write_backward and clock must match */
	back = open_faults(1, 1);
	ASSERT_LE(0, back);
	EXPECT_EQ(-1, ioctl(back, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	EXPECT_EQ(EINVAL, errno);
	close(back);
	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, ST);
	attr.use_clockid = 1;
	attr.clockid = CLOCK_MONOTONIC;
	clk = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, clk);
	EXPECT_EQ(-1, ioctl(clk, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	EXPECT_EQ(EINVAL, errno);
	close(clk);
	/* CPU: both any-CPU (above), or the same CPU */
	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, ST);
	c0 = sys_perf_event_open(&attr, 0, pt_nth_cpu(0), -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, c0);
	/* the target must have a buffer */
	c1 = sys_perf_event_open(&attr, 0, pt_nth_cpu(0), -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, c1);
	EXPECT_EQ(-1, ioctl(c1, PERF_EVENT_IOC_SET_OUTPUT, c0));
	EXPECT_EQ(EINVAL, errno);
	close(c1);
	ASSERT_EQ(0, pt_rb_map(&rb2, c0, 1));
	EXPECT_EQ(-1, ioctl(c0, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	EXPECT_EQ(EINVAL, errno);
	if (cpu1 >= 0) {
		c1 = sys_perf_event_open(&attr, 0, cpu1, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, c1);
		EXPECT_EQ(-1, ioctl(c1, PERF_EVENT_IOC_SET_OUTPUT, c0));
		EXPECT_EQ(EINVAL, errno);
		close(c1);
	}
	/* another task's event cannot write into this task's buffer */
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pause();
		_exit(0);
	}
	pid_fd = sys_perf_event_open(&attr, child, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, pid_fd);
	EXPECT_EQ(-1, ioctl(pid_fd, PERF_EVENT_IOC_SET_OUTPUT, self->fd));
	EXPECT_EQ(EINVAL, errno);
	close(pid_fd);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	/* same CPU works */
	c1 = sys_perf_event_open(&attr, 0, pt_nth_cpu(0), -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, c1);
	EXPECT_EQ(0, ioctl(c1, PERF_EVENT_IOC_SET_OUTPUT, c0));
	close(c1);
	pt_rb_unmap(&rb2);
	close(c0);
}

TEST_F(rb, flag_fd_output_redirects_at_open)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct pt_recs r;
	__u64 id2;
	int fd2, n2 = 0;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_ID);
	self->fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	fd2 = sys_perf_event_open(&attr, 0, -1, self->fd, PERF_FLAG_FD_CLOEXEC |
				  PERF_FLAG_FD_OUTPUT | PERF_FLAG_FD_NO_GROUP);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_ID, &id2));
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0));
	pt_fault_pages(4);
	ASSERT_EQ(0, ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE)
		n2 += ((__u64 *)(h + 1))[0] == id2;
	EXPECT_LE(4, n2);
	pt_recs_free(&r);
	/* last: on 6.12, unmapping the view also drops the redirection */
	check_redirected_mmap(_metadata, fd2, &self->rb, 4);
	close(fd2);
}

/* REFRESH n: enabled for n overflows, then disabled */
TEST_F(rb, refresh_disables_after_n_overflows)
{
	struct pt_recs r;

	self->fd = open_faults(0, 1);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	touch_pages(self->p + 100 * pt_page_size(), 1);	/* warm */
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_REFRESH, 3));
	touch_pages(self->p, 16);
	EXPECT_EQ(3, pt_read1(self->fd));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	EXPECT_EQ(3, pt_recs_count(&r, PERF_RECORD_SAMPLE));
	pt_recs_free(&r);
	/* and again */
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_REFRESH, 2));
	touch_pages(self->p + 16 * pt_page_size(), 16);
	EXPECT_EQ(5, pt_read1(self->fd));
}

TEST_F(rb, refresh_errnos)
{
	struct perf_event_attr attr;
	int fd;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, ST);
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_REFRESH, 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	fd = open_faults(0, 0);		/* counting, not sampling */
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_REFRESH, 1));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

/*
 * PERIOD on a sampling event: every 4th fault is sampled. (Not with
 * PERF_SAMPLE_PERIOD: a counted software event then samples every hit.)
 */
TEST_F(rb, period_ioctl_changes_sampling)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	__u64 period = 4;
	struct pt_recs r;
	int i = 3;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_ADDR);
	self->fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, pt_rb_map(&self->rb, self->fd, 4));
	ASSERT_EQ(0, ioctl(self->fd, PERF_EVENT_IOC_PERIOD, &period));
	ASSERT_EQ(0, fault_window(self->fd, self->p, 64));
	ASSERT_EQ(0, pt_rb_drain(&self->rb, &r));
	EXPECT_EQ(16, pt_recs_count(&r, PERF_RECORD_SAMPLE));
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		EXPECT_EQ(page(self->p, i), ((__u64 *)(h + 1))[0]);
		i += 4;
	}
	pt_recs_free(&r);
	period = 0;
	EXPECT_EQ(-1, ioctl(self->fd, PERF_EVENT_IOC_PERIOD, &period));
	EXPECT_EQ(EINVAL, errno);
	period = 1ULL << 63;
	EXPECT_EQ(-1, ioctl(self->fd, PERF_EVENT_IOC_PERIOD, &period));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PERF_EVENT_IOC_PERIOD, NULL));
	EXPECT_EQ(EFAULT, errno);
}

/*
 * Buffer sharing never spans tasks on different CPUs: an event of a
 * sibling thread cannot SET_OUTPUT into this thread's buffer (EINVAL), so
 * one buffer is written from one CPU at a time, with nesting (interrupts)
 * as the only concurrency.
 */
static void *sibling_fn(void *arg)
{
	struct perf_event_attr attr;
	int *fds = arg, fd;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, ST);
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	fds[1] = fd < 0 ? -1000 : ioctl(fd, PERF_EVENT_IOC_SET_OUTPUT, fds[0]) ? errno : 0;
	if (fd >= 0)
		close(fd);
	return NULL;
}

TEST(set_output_to_sibling_thread_einval)
{
	struct perf_event_attr attr;
	struct pt_rb rb;
	int fds[2] = { -1, -1 };
	pthread_t th;

	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, ST);
	fds[0] = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fds[0]);
	ASSERT_EQ(0, pt_rb_map(&rb, fds[0], 1));
	ASSERT_EQ(0, pthread_create(&th, NULL, sibling_fn, fds));
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(EINVAL, fds[1]);
	pt_rb_unmap(&rb);
	close(fds[0]);
}

/*
 * Nested writers: task-clock samples every 100 us (hrtimer interrupt) into
 * the same buffer as page-fault samples, so timer records land in the
 * middle of fault records being written. Every record comes out whole,
 * the fault samples exactly once each and in order.
 */
TEST(nested_writers_fault_and_timer_samples)
{
	const int n = 3000;
	struct perf_event_attr attr;
	struct perf_event_header *h;
	int ffd, tfd, faults = 0, timers = 0, i;
	struct pt_recs r;
	struct pt_rb rb;
	char *p;

	ASSERT_EQ(0, pt_pin_cpu(0, pt_nth_cpu(0)));
	pt_attr_sample(&attr, PERF_COUNT_SW_PAGE_FAULTS, 1, ST);
	ffd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, ffd);
	/* (a 10 us hrtimer all but stops a guest that takes faults) */
	pt_attr_sample(&attr, PERF_COUNT_SW_TASK_CLOCK, 100000, ST);
	tfd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, tfd);
	/* 1 MiB: room for everything */
	ASSERT_EQ(0, pt_rb_map(&rb, ffd, 256));
	ASSERT_EQ(0, ioctl(tfd, PERF_EVENT_IOC_SET_OUTPUT, ffd));
	p = pt_map_pages(n + 1);
	ASSERT_NE(NULL, p);
	touch_pages(p + n * pt_page_size(), 1);
	pt_spin_user_ns(1000);	/* its own first faults before ffd counts */
	ASSERT_EQ(0, ioctl(tfd, PERF_EVENT_IOC_ENABLE, 0));
	ASSERT_EQ(0, ioctl(ffd, PERF_EVENT_IOC_ENABLE, 0));
	/*
	 * Some user time between the faults: an unprivileged user's
	 * task-clock samples only ticks that land in user mode, and on a
	 * busy host a guest's faults can take every tick
	 */
	for (i = 0; i < n; i += 100) {
		touch_pages(p + i * pt_page_size(), 100);
		pt_spin_user_ns(200000);
	}
	ASSERT_EQ(0, ioctl(ffd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, ioctl(tfd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	EXPECT_EQ(0, pt_recs_count(&r, PERF_RECORD_LOST));
	pt_recs_for_each(h, &r, 0) {
		ASSERT_EQ(PERF_RECORD_SAMPLE, h->type);
		ASSERT_EQ(SAMPLE_SIZE, h->size);
		if (sample_addr(h)) {
			EXPECT_EQ(page(p, faults), sample_addr(h));
			faults++;
		} else {
			timers++;
		}
	}
	EXPECT_EQ(n, faults);
	EXPECT_LT(0, timers);
	pt_recs_free(&r);
	pt_unmap_pages(p, n + 1);
	pt_rb_unmap(&rb);
	close(tfd);
	close(ffd);
}

/*
 * A reader thread drains a small writable buffer while this thread fills
 * it from another CPU: what the reader gets plus what LOST records count
 * is exactly every fault, and the samples it gets are in order.
 */
struct reader {
	struct pt_rb *rb;
	int cpu;
	volatile int stop;
	int samples, lost, bad, order_errors;
	__u64 last_addr;
};

static void *reader_fn(void *arg)
{
	struct reader *rd = arg;

	pt_pin_cpu(0, rd->cpu);
	for (;;) {
		struct perf_event_header *h;
		int stop = rd->stop;
		struct pt_recs r;

		if (pt_rb_drain(rd->rb, &r))
			rd->bad++;
		if (r.bad)
			rd->bad++;
		pt_recs_for_each(h, &r, 0) {
			if (h->type == PERF_RECORD_LOST) {
				rd->lost += ((struct lost_rec *)h)->lost;
			} else if (h->type == PERF_RECORD_SAMPLE) {
				__u64 a = sample_addr(h);

				if (a <= rd->last_addr)
					rd->order_errors++;
				rd->last_addr = a;
				rd->samples++;
			}
		}
		pt_recs_free(&r);
		if (stop)
			break;
	}
	return NULL;
}

TEST(reader_and_writer_on_two_cpus_account_for_every_sample)
{
	const int n = 3000;
	struct reader rd;
	struct pt_rb rb;
	pthread_t th;
	char *p;
	int fd, i, c1 = pt_nth_cpu(1), c0 = pt_nth_cpu(0);

	if (c1 < 0)
		SKIP(return, "needs 2 CPUs");
	ASSERT_EQ(0, pt_pin_cpu(0, c0));
	fd = open_faults(0, 1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 2));
	p = pt_map_pages(n + 2);
	ASSERT_NE(NULL, p);
	touch_pages(p + (n + 1) * pt_page_size(), 1);	/* warm */
	memset(&rd, 0, sizeof(rd));
	rd.rb = &rb;
	rd.cpu = c1;
	ASSERT_EQ(0, pthread_create(&th, NULL, reader_fn, &rd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	touch_pages(p, n);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	/* let the reader catch up, then one more sample brings any LOST */
	for (i = 0; i < 500 && __atomic_load_n(&rb.pg->data_tail, __ATOMIC_ACQUIRE) !=
			      pt_rb_head(&rb); i++)
		pt_sleep_ns(10000000);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	touch_pages(p + n * pt_page_size(), 1);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	rd.stop = 1;
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(0, rd.bad);
	EXPECT_EQ(0, rd.order_errors);
	EXPECT_EQ(n + 1, rd.samples + rd.lost);
	ksft_print_msg("reader got %d samples, %d lost\n", rd.samples, rd.lost);
	pt_unmap_pages(p, n + 2);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST_HARNESS_MAIN
