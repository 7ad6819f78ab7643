// SPDX-License-Identifier: GPL-2.0
/*
 * read(2) on a perf event fd: the exact byte layout for every combination
 * of PERF_FORMAT_{TOTAL_TIME_ENABLED,TOTAL_TIME_RUNNING,ID,LOST,GROUP}.
 *
 * Single event:  { value; [enabled]; [running]; [id]; [lost]; }
 * Group:         { nr; [enabled]; [running];
 *                  { value; [id]; [lost]; } cntr[nr]; }
 */
#include "perf_test.h"

#define TE	PERF_FORMAT_TOTAL_TIME_ENABLED
#define TR	PERF_FORMAT_TOTAL_TIME_RUNNING
#define ID	PERF_FORMAT_ID
#define LOST	PERF_FORMAT_LOST
#define NPAGES	16

static __u64 event_id(int fd)
{
	__u64 id = 0;

	if (ioctl(fd, PERF_EVENT_IOC_ID, &id))
		return ~0ULL;
	return id;
}

/* read_format with bit i of 'combo' selecting TE, TR, ID, LOST. */
static __u64 combo_format(int combo)
{
	return (combo & 1 ? TE : 0) | (combo & 2 ? TR : 0) |
	       (combo & 4 ? ID : 0) | (combo & 8 ? LOST : 0);
}

static int nbits(__u64 v)
{
	return __builtin_popcountll(v);
}

TEST(single_event_read_returns_8_bytes_per_field)
{
	int combo;

	for (combo = 0; combo < 16; combo++) {
		__u64 rf = combo_format(combo);
		__u64 buf[16];
		int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, rf);

		ASSERT_LE(0, fd);
		EXPECT_EQ(8 * (1 + nbits(rf)), read(fd, buf, sizeof(buf)))
			TH_LOG("read_format 0x%llx", (unsigned long long)rf);
		close(fd);
	}
}

TEST(single_event_fields_are_value_enabled_running_id_lost)
{
	int combo;

	for (combo = 0; combo < 16; combo++) {
		__u64 rf = combo_format(combo);
		__u64 buf[16], enabled = 0, running = 0;
		int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, rf);
		int i = 1;

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, pt_touch_window(fd, NPAGES, 0));
		ASSERT_EQ(8 * (1 + nbits(rf)), read(fd, buf, sizeof(buf)));

		EXPECT_EQ(NPAGES, buf[0]);
		if (rf & TE) {
			enabled = buf[i++];
			EXPECT_LT(0, enabled);
		}
		if (rf & TR) {
			running = buf[i++];
			EXPECT_LT(0, running);
		}
		if ((rf & TE) && (rf & TR))
			EXPECT_LE(running, enabled);
		if (rf & ID)
			EXPECT_EQ(event_id(fd), buf[i++]);
		if (rf & LOST)
			EXPECT_EQ(0, buf[i++]);
		close(fd);
	}
}

TEST(group_read_size_is_header_plus_entry_per_event)
{
	int combo;

	for (combo = 0; combo < 16; combo++) {
		__u64 rf = combo_format(combo) | PERF_FORMAT_GROUP;
		int per = 1 + !!(rf & ID) + !!(rf & LOST);
		int hdr = 1 + !!(rf & TE) + !!(rf & TR);
		__u64 buf[64];
		int leader, m1, m2;

		leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, rf);
		ASSERT_LE(0, leader);
		EXPECT_EQ(8 * (hdr + per), read(leader, buf, sizeof(buf)));
		EXPECT_EQ(1, buf[0]);
		m1 = pt_open_sw(PERF_COUNT_SW_DUMMY, leader, rf);
		ASSERT_LE(0, m1);
		m2 = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, leader, rf);
		ASSERT_LE(0, m2);
		EXPECT_EQ(8 * (hdr + 3 * per), read(leader, buf, sizeof(buf)))
			TH_LOG("read_format 0x%llx", (unsigned long long)rf);
		EXPECT_EQ(3, buf[0]);
		close(m2);
		close(m1);
		close(leader);
	}
}

TEST(group_read_lists_leader_then_members_in_creation_order)
{
	__u64 rf = PERF_FORMAT_GROUP | TE | TR | ID | LOST;
	__u64 buf[32];
	int fd[3], i;
	static const __u64 cfg[3] = {
		PERF_COUNT_SW_PAGE_FAULTS, PERF_COUNT_SW_DUMMY,
		PERF_COUNT_SW_PAGE_FAULTS_MIN,
	};
	static const __u64 expect[3] = { NPAGES, 0, NPAGES };

	for (i = 0; i < 3; i++) {
		fd[i] = pt_open_sw(cfg[i], i ? fd[0] : -1, rf);
		ASSERT_LE(0, fd[i]);
	}
	ASSERT_EQ(0, pt_touch_window(fd[0], NPAGES, PERF_IOC_FLAG_GROUP));

	ASSERT_EQ(8 * (3 + 3 * 3), read(fd[0], buf, sizeof(buf)));
	EXPECT_EQ(3, buf[0]);
	EXPECT_LT(0, buf[1]);
	EXPECT_LE(buf[2], buf[1]);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(expect[i], buf[3 + 3 * i + 0]) TH_LOG("entry %d", i);
		EXPECT_EQ(event_id(fd[i]), buf[3 + 3 * i + 1]) TH_LOG("entry %d", i);
		EXPECT_EQ(0, buf[3 + 3 * i + 2]) TH_LOG("entry %d", i);
	}
	for (i = 2; i >= 0; i--)
		close(fd[i]);
}

TEST(group_read_through_a_member_fd_returns_the_whole_group)
{
	__u64 rf = PERF_FORMAT_GROUP | ID;
	__u64 a[16], b[16];
	int leader, member;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, rf);
	ASSERT_LE(0, leader);
	member = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN, leader, rf);
	ASSERT_LE(0, member);
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, PERF_IOC_FLAG_GROUP));

	ASSERT_EQ(8 * 5, read(leader, a, sizeof(a)));
	ASSERT_EQ(8 * 5, read(member, b, sizeof(b)));
	EXPECT_EQ(0, memcmp(a, b, 8 * 5));
	EXPECT_EQ(2, b[0]);
	EXPECT_EQ(event_id(leader), b[2]);
	EXPECT_EQ(event_id(member), b[4]);
	close(member);
	close(leader);
}

/*
 * A group read returns the leader's times only. Members' own times must
 * still come out equal to the leader's when read alone, however many
 * group reads came between, and a member's count must be current in
 * every group read (page faults: exact).
 */
TEST(group_reads_keep_members_current_and_their_times_the_leaders)
{
	__u64 g[8], l[8], m[3], faults = 0;
	int leader, cs, pf, i;
	char *p;

	leader = pt_open_sw(PERF_COUNT_SW_TASK_CLOCK, -1,
			    PERF_FORMAT_GROUP | TE | TR);
	ASSERT_LE(0, leader);
	cs = pt_open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, leader, TE | TR);
	ASSERT_LE(0, cs);
	pf = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, leader, TE | TR);
	ASSERT_LE(0, pf);
	/* two rounds disabled first: the loop's own first-use faults */
	for (i = -2; i < 8; i++) {
		if (!i)
			ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_ENABLE,
					   PERF_IOC_FLAG_GROUP));
		p = pt_map_pages(NPAGES);
		ASSERT_NE(NULL, p);
		pt_touch(p, NPAGES);
		if (i >= 0)
			faults += NPAGES;
		ASSERT_EQ(8 * 6, read(leader, g, sizeof(g)));
		EXPECT_EQ(3, g[0]);
		EXPECT_EQ(g[1], g[2]);
		EXPECT_EQ(faults, g[5]) TH_LOG("group read %d", i);
		pt_unmap_pages(p, NPAGES);
		pt_spin_ns(500000);
	}
	ASSERT_EQ(0, ioctl(leader, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP));
	ASSERT_EQ(8 * 6, read(leader, l, sizeof(l)));
	EXPECT_LT(0, l[1]);
	EXPECT_LE(g[1], l[1]);
	EXPECT_EQ(faults, l[5]);
	ASSERT_EQ(sizeof(m), read(cs, m, sizeof(m)));
	EXPECT_EQ(l[1], m[1]);
	EXPECT_EQ(l[2], m[2]);
	EXPECT_EQ(l[4], m[0]);
	ASSERT_EQ(sizeof(m), read(pf, m, sizeof(m)));
	EXPECT_EQ(l[1], m[1]);
	EXPECT_EQ(l[2], m[2]);
	EXPECT_EQ(faults, m[0]);
	close(pf);
	close(cs);
	close(leader);
}

/*
 * A member that does not count in place (a clock: its count is computed
 * when read) is brought up to date by every group read, and the words
 * after it in the layout are the next member's: a task-clock member
 * grows from read to read, a page-fault member behind it is exact.
 */
TEST(group_read_brings_a_clock_member_up_to_date)
{
	__u64 g[10], id[3], prev = 0, faults = 0;
	int fd[3], i;
	char *p;

	fd[0] = pt_open_sw(PERF_COUNT_SW_TASK_CLOCK, -1,
			   PERF_FORMAT_GROUP | TE | TR | ID);
	ASSERT_LE(0, fd[0]);
	fd[1] = pt_open_sw(PERF_COUNT_SW_TASK_CLOCK, fd[0], 0);
	ASSERT_LE(0, fd[1]);
	fd[2] = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, fd[0], 0);
	ASSERT_LE(0, fd[2]);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, ioctl(fd[i], PERF_EVENT_IOC_ID, &id[i]));
	for (i = -2; i < 8; i++) {
		if (!i)
			ASSERT_EQ(0, ioctl(fd[0], PERF_EVENT_IOC_ENABLE,
					   PERF_IOC_FLAG_GROUP));
		p = pt_map_pages(NPAGES);
		ASSERT_NE(NULL, p);
		pt_touch(p, NPAGES);
		if (i >= 0)
			faults += NPAGES;
		pt_spin_ns(200000);
		/* nr, enabled, running, {value, id} x 3 */
		ASSERT_EQ(8 * 9, read(fd[0], g, sizeof(g)));
		EXPECT_EQ(3, g[0]);
		EXPECT_EQ(id[0], g[4]);
		EXPECT_EQ(id[1], g[6]);
		EXPECT_EQ(id[2], g[8]);
		EXPECT_EQ(faults, g[7]) TH_LOG("group read %d", i);
		if (i >= 0) {
			/* 200 us spun since the last read */
			EXPECT_LT(prev + 100000, g[5]) TH_LOG("group read %d", i);
			EXPECT_GE(g[1], g[5]);
		} else {
			EXPECT_EQ(0, g[5]);
		}
		prev = g[5];
		pt_unmap_pages(p, NPAGES);
	}
	for (i = 2; i >= 0; i--)
		close(fd[i]);
}

TEST(leader_without_format_group_reads_only_its_own_value)
{
	int leader, member;

	leader = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
	ASSERT_LE(0, leader);
	member = pt_open_sw(PERF_COUNT_SW_DUMMY, leader, 0);
	ASSERT_LE(0, member);
	ASSERT_EQ(0, pt_touch_window(leader, NPAGES, PERF_IOC_FLAG_GROUP));
	EXPECT_EQ(NPAGES, pt_read1(leader));
	EXPECT_EQ(0, pt_read1(member));
	close(member);
	close(leader);
}

TEST(read_into_too_small_buffer_fails_enospc)
{
	__u64 rf = TE | TR | ID | LOST;
	__u64 buf[32];
	int fd, member;

	fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, rf);
	ASSERT_LE(0, fd);
	errno = 0;
	EXPECT_EQ(-1, read(fd, buf, 8 * 5 - 1));
	EXPECT_EQ(ENOSPC, errno);
	errno = 0;
	EXPECT_EQ(-1, read(fd, buf, 0));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(8 * 5, read(fd, buf, 8 * 5));
	close(fd);

	fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, rf | PERF_FORMAT_GROUP);
	ASSERT_LE(0, fd);
	member = pt_open_sw(PERF_COUNT_SW_DUMMY, fd, rf | PERF_FORMAT_GROUP);
	ASSERT_LE(0, member);
	/* 3 header words + 2 * 3 entry words */
	errno = 0;
	EXPECT_EQ(-1, read(fd, buf, 8 * 9 - 1));
	EXPECT_EQ(ENOSPC, errno);
	errno = 0;
	EXPECT_EQ(-1, read(fd, buf, 8 * 6));
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_EQ(8 * 9, read(fd, buf, 8 * 9));
	close(member);
	close(fd);
}

TEST(read_into_bad_buffer_fails_efault)
{
	void *volatile bad = (void *)8;
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, TE | TR);

	ASSERT_LE(0, fd);
	errno = 0;
	EXPECT_EQ(-1, read(fd, bad, 24));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
}

/*
 * A read of one's own group writes the user's buffer with page faults
 * off; a page that is not present (never touched, or dropped) takes the
 * general path, which faults it in: the whole layout is there, also
 * where the first words had gone to a present page before the fault. A
 * read-only page or one with no access is EFAULT.
 */
TEST(group_read_into_absent_pages_faults_them_in)
{
	__u64 rf = PERF_FORMAT_GROUP | ID | TE | TR;
	static const __u64 cfg[4] = {
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
		PERF_COUNT_SW_CPU_CLOCK, PERF_COUNT_SW_CONTEXT_SWITCHES,
	};
	long pg = sysconf(_SC_PAGESIZE);
	__u64 ids[4], *buf, first;
	int fd[4], i, round;
	char *map;

	for (i = 0; i < 4; i++) {
		fd[i] = pt_open_sw(cfg[i], i ? fd[0] : -1, rf);
		ASSERT_LE(0, fd[i]);
		ids[i] = event_id(fd[i]);
	}
	map = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_EQ(0, ioctl(fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP));
	pt_spin_ns(1000000);

	/* two words on a present page, nine on one never touched */
	map[0] = 1;
	buf = (__u64 *)(map + pg - 16);
	for (round = 0; round < 2; round++) {
		EXPECT_EQ(8 * 11, read(fd[0], buf, 8 * 11))
			TH_LOG("round %d", round);
		EXPECT_EQ(4, buf[0]);
		EXPECT_LT(0, buf[1]);
		EXPECT_EQ(buf[1], buf[2]);
		for (i = 0; i < 4; i++)
			EXPECT_EQ(ids[i], buf[4 + 2 * i]) TH_LOG("member %d", i);
		/* the task-clock leader and the cpu-clock member counted */
		EXPECT_LT(0, buf[3]);
		EXPECT_LT(0, buf[7]);
		if (!round)
			first = buf[3];
		else
			EXPECT_LE(first, buf[3]);
		/* round 2: both pages dropped again */
		ASSERT_EQ(0, madvise(map, 2 * pg, MADV_DONTNEED));
		map[0] = 1;
	}

	/* from a writable page into one with no access; a read-only one */
	ASSERT_EQ(0, mprotect(map + 2 * pg, pg, PROT_NONE));
	errno = 0;
	EXPECT_EQ(-1, read(fd[0], map + 2 * pg - 16, 8 * 11));
	EXPECT_EQ(EFAULT, errno);
	ASSERT_EQ(0, mprotect(map + 3 * pg, pg, PROT_READ));
	errno = 0;
	EXPECT_EQ(-1, read(fd[0], map + 3 * pg, 8 * 11));
	EXPECT_EQ(EFAULT, errno);
	munmap(map, 4 * pg);
	for (i = 3; i >= 0; i--)
		close(fd[i]);
}

TEST(never_enabled_event_reads_zero_count_and_zero_times)
{
	__u64 buf[8];
	int fd = pt_open_sw(PERF_COUNT_SW_TASK_CLOCK, -1, TE | TR | LOST);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_fault_pages(NPAGES));
	pt_spin_ns(2000000);
	ASSERT_EQ(32, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(0, buf[0]);
	EXPECT_EQ(0, buf[1]);
	EXPECT_EQ(0, buf[2]);
	EXPECT_EQ(0, buf[3]);
	close(fd);
}

TEST(software_event_time_running_equals_time_enabled)
{
	struct pt_val3 v;
	int fd = pt_open_sw(PERF_COUNT_SW_PAGE_FAULTS, -1, TE | TR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_spin_ns(2000000);
	pt_sleep_ns(2000000);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_DISABLE));
	ASSERT_EQ(0, pt_read3(fd, &v));
	EXPECT_LT(0, v.enabled);
	/* A software event is never multiplexed out. */
	EXPECT_EQ(v.enabled, v.running);
	close(fd);
}

TEST(enabled_event_times_advance_between_reads)
{
	struct pt_val3 a, b;
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, TE | TR);

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_ioctl(fd, PERF_EVENT_IOC_ENABLE));
	pt_spin_ns(1000000);
	ASSERT_EQ(0, pt_read3(fd, &a));
	pt_spin_ns(1000000);
	ASSERT_EQ(0, pt_read3(fd, &b));
	EXPECT_LT(a.enabled, b.enabled);
	EXPECT_LT(a.running, b.running);
	EXPECT_LE(b.running, b.enabled);
	EXPECT_EQ(0, b.value);
	close(fd);
}

TEST(event_ids_are_unique_and_nonzero)
{
	int fd[8], i, j;
	__u64 id[8];

	for (i = 0; i < 8; i++) {
		fd[i] = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, ID);
		ASSERT_LE(0, fd[i]);
		id[i] = event_id(fd[i]);
		EXPECT_NE(0, id[i]);
		EXPECT_NE(~0ULL, id[i]);
		for (j = 0; j < i; j++)
			EXPECT_NE(id[j], id[i]);
	}
	for (i = 0; i < 8; i++)
		close(fd[i]);
}

TEST(id_ioctl_with_bad_pointer_fails_efault)
{
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);

	ASSERT_LE(0, fd);
	errno = 0;
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_ID, NULL));
	EXPECT_EQ(EFAULT, errno);
	close(fd);
}

TEST(read_ignores_file_position_and_fd_is_not_seekable)
{
	__u64 buf[4];
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);

	ASSERT_LE(0, fd);
	EXPECT_EQ(8, read(fd, buf, sizeof(buf)));
	EXPECT_EQ(8, read(fd, buf, sizeof(buf)));
	errno = 0;
	EXPECT_EQ(-1, lseek(fd, 0, SEEK_SET));
	EXPECT_EQ(ESPIPE, errno);
	errno = 0;
	EXPECT_EQ(-1, pread(fd, buf, sizeof(buf), 0));
	EXPECT_EQ(ESPIPE, errno);
	close(fd);
}

TEST(write_to_event_fd_fails_einval)
{
	__u64 v = 1;
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);

	ASSERT_LE(0, fd);
	errno = 0;
	EXPECT_EQ(-1, write(fd, &v, sizeof(v)));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST_HARNESS_MAIN
