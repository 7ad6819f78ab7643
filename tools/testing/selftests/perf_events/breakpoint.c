// SPDX-License-Identifier: GPL-2.0
/*
 * PERF_TYPE_BREAKPOINT events counting: what attrs the x86 debug
 * registers take (types, lengths, alignment), exact hit counts of data
 * and instruction breakpoints, exclude_user/exclude_kernel, per-thread
 * and per-CPU breakpoints, migration between CPUs, the four-slot limit
 * (ENOSPC) and PERF_EVENT_IOC_MODIFY_ATTRIBUTES.
 */
#include "perf_test.h"

#include <pthread.h>
#include <linux/hw_breakpoint.h>

#include "kselftest_harness.h"

#define NR_SLOTS	4

static volatile __u64 watched[8] __attribute__((aligned(64)));
static volatile unsigned int uids[4] __attribute__((aligned(16)));
static volatile __u32 halves[2] __attribute__((aligned(8)));

static void bp_attr(struct perf_event_attr *attr, volatile void *addr,
		    int type, int len)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = PERF_TYPE_BREAKPOINT;
	attr->bp_addr = (unsigned long)addr;
	attr->bp_type = type;
	attr->bp_len = len;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

static int bp_open(volatile void *addr, int type, int len, pid_t pid, int cpu)
{
	struct perf_event_attr attr;

	bp_attr(&attr, addr, type, len);
	return sys_perf_event_open(&attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/* errno of a perf_event_open() that must fail, 0 if it succeeded */
static int bp_open_errno(struct perf_event_attr *attr)
{
	int fd = sys_perf_event_open(attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

static __attribute__((noinline)) void write_n(volatile __u64 *p, int n)
{
	int i;

	for (i = 0; i < n; i++)
		*p = i;
}

static __attribute__((noinline)) __u64 read_n(volatile __u64 *p, int n)
{
	__u64 sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += *p;
	return sum;
}

static __attribute__((noinline)) int bp_target_fn(int x)
{
	asm volatile("" : "+r" (x));
	return x + 1;
}

TEST(write_breakpoint_counts_each_write_exactly)
{
	static const int lens[] = { 1, 2, 4, 8 };
	int i, fd;

	for (i = 0; i < 4; i++) {
		fd = bp_open(&watched[0], HW_BREAKPOINT_W, lens[i], 0, -1);
		ASSERT_LE(0, fd) TH_LOG("len %d: %s", lens[i], strerror(errno));
		write_n(&watched[0], 10 + i);
		(void)read_n(&watched[0], 5);
		EXPECT_EQ(10 + i, pt_read1(fd)) TH_LOG("len %d", lens[i]);
		close(fd);
	}
}

TEST(read_write_breakpoint_counts_reads_and_writes)
{
	int fd = bp_open(&watched[1], HW_BREAKPOINT_RW, 8, 0, -1);

	ASSERT_LE(0, fd);
	write_n(&watched[1], 7);
	(void)read_n(&watched[1], 5);
	EXPECT_EQ(12, pt_read1(fd));
	close(fd);
}

TEST(neighbouring_bytes_do_not_hit)
{
	volatile __u8 *b = (volatile __u8 *)&watched[2];
	int fd = bp_open(b + 2, HW_BREAKPOINT_W, 2, 0, -1);

	ASSERT_LE(0, fd);
	b[0] = 1;
	b[1] = 1;
	b[4] = 1;
	b[2] = 1;	/* hit */
	b[3] = 1;	/* hit */
	b[7] = 1;
	EXPECT_EQ(2, pt_read1(fd));
	close(fd);
}

TEST(execute_breakpoint_counts_calls)
{
	int fd, i, x = 0;

	fd = bp_open((void *)bp_target_fn, HW_BREAKPOINT_X, sizeof(long), 0, -1);
	ASSERT_LE(0, fd);
	for (i = 0; i < 9; i++)
		x = bp_target_fn(x);
	EXPECT_EQ(9, x);
	EXPECT_EQ(9, pt_read1(fd));
	close(fd);
}

TEST(attrs_the_debug_registers_cannot_take_are_einval)
{
	struct perf_event_attr attr;

	bp_attr(&attr, &watched[0], HW_BREAKPOINT_EMPTY, 4);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	bp_attr(&attr, &watched[0], HW_BREAKPOINT_W | HW_BREAKPOINT_X, 4);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	bp_attr(&attr, &watched[0], HW_BREAKPOINT_W, 0);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	bp_attr(&attr, &watched[0], HW_BREAKPOINT_W, 9);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
#if defined(__aarch64__)
	/*
	 * arm64 watchpoints take loads alone and any length up to 8 (a
	 * byte mask); an instruction breakpoint of any length is made 4
	 */
	bp_attr(&attr, &watched[0], HW_BREAKPOINT_R, 4);
	EXPECT_EQ(0, bp_open_errno(&attr));
	bp_attr(&attr, &watched[0], HW_BREAKPOINT_W, 3);
	EXPECT_EQ(0, bp_open_errno(&attr));
	bp_attr(&attr, (void *)bp_target_fn, HW_BREAKPOINT_X, 1);
	EXPECT_EQ(0, bp_open_errno(&attr));
	/* a kernel address cannot be watched by a user-only event */
	bp_attr(&attr, (void *)0xffff800080000000UL, HW_BREAKPOINT_W, 4);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
#else
	/* x86 has no read-only watchpoint */
	bp_attr(&attr, &watched[0], HW_BREAKPOINT_R, 4);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	bp_attr(&attr, &watched[0], HW_BREAKPOINT_W, 3);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	/* an instruction breakpoint is sizeof(long) long */
	bp_attr(&attr, (void *)bp_target_fn, HW_BREAKPOINT_X, 1);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	bp_attr(&attr, (void *)bp_target_fn, HW_BREAKPOINT_X, 4);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	/* a kernel address cannot be watched by a user-only event */
	bp_attr(&attr, (void *)0xffffffff81000000UL, HW_BREAKPOINT_W, 4);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
#endif
}

TEST(misaligned_addresses_are_einval)
{
	volatile char *p = (volatile char *)&watched[0];
	struct perf_event_attr attr;

#if defined(__aarch64__)
	/* arm64 watches any bytes of one aligned doubleword */
	bp_attr(&attr, p + 1, HW_BREAKPOINT_W, 2);
	EXPECT_EQ(0, bp_open_errno(&attr));
	bp_attr(&attr, p + 2, HW_BREAKPOINT_W, 4);
	EXPECT_EQ(0, bp_open_errno(&attr));
	bp_attr(&attr, p + 4, HW_BREAKPOINT_W, 8);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	bp_attr(&attr, p + 7, HW_BREAKPOINT_W, 2);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
#else
	bp_attr(&attr, p + 1, HW_BREAKPOINT_W, 2);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	bp_attr(&attr, p + 2, HW_BREAKPOINT_W, 4);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
	bp_attr(&attr, p + 4, HW_BREAKPOINT_W, 8);
	EXPECT_EQ(EINVAL, bp_open_errno(&attr));
#endif
	/* aligned to the length is fine */
	bp_attr(&attr, p + 1, HW_BREAKPOINT_W, 1);
	EXPECT_EQ(0, bp_open_errno(&attr));
	bp_attr(&attr, p + 2, HW_BREAKPOINT_W, 2);
	EXPECT_EQ(0, bp_open_errno(&attr));
	bp_attr(&attr, p + 4, HW_BREAKPOINT_W, 4);
	EXPECT_EQ(0, bp_open_errno(&attr));
}

TEST(disable_enable_reset)
{
	int fd = bp_open(&watched[3], HW_BREAKPOINT_W, 8, 0, -1);

	ASSERT_LE(0, fd);
	write_n(&watched[3], 3);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	write_n(&watched[3], 100);
	EXPECT_EQ(3, pt_read1(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	write_n(&watched[3], 4);
	EXPECT_EQ(7, pt_read1(fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_RESET, 0));
	write_n(&watched[3], 2);
	EXPECT_EQ(2, pt_read1(fd));
	close(fd);
}

/* A user-mode write is a user hit: exclude_user drops it. */
TEST(exclude_user_drops_user_hits)
{
	struct perf_event_attr attr;
	int ufd, kfd, i;

	if (!pt_can_count_kernel())
		SKIP(return, "kernel-side counting needs root or paranoid < 2");

	bp_attr(&attr, &uids[0], HW_BREAKPOINT_W, 4);
	ufd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, ufd);
	attr.exclude_kernel = 0;
	attr.exclude_user = 1;
	kfd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, kfd);
	for (i = 0; i < 3; i++)
		uids[0] = i;
	EXPECT_EQ(3, pt_read1(ufd));
	EXPECT_EQ(0, pt_read1(kfd));
	close(ufd);
	close(kfd);
}

/*
 * Kernel-mode hits cannot be made exactly here: x86 refuses kernel
 * instruction breakpoints without kprobes, and under QEMU TCG the kernel's
 * own accesses to a watched user address (put_user, copy_to_user) do not
 * trap, on the stock kernel either.
 */

struct writer {
	pthread_barrier_t	*bar;
	volatile __u64		*addr;
	int			n;
	pid_t			tid;
};

static void *writer_thread(void *arg)
{
	struct writer *w = arg;

	w->tid = gettid();
	pthread_barrier_wait(w->bar);	/* tid published */
	pthread_barrier_wait(w->bar);	/* event opened */
	write_n(w->addr, w->n);
	return NULL;
}

TEST(per_thread_breakpoint_counts_only_its_thread)
{
	pthread_barrier_t bar;
	struct writer w;
	pthread_t th;
	int fd;

	ASSERT_EQ(0, pthread_barrier_init(&bar, NULL, 2));
	w = (struct writer){ .bar = &bar, .addr = &watched[4], .n = 11 };
	ASSERT_EQ(0, pthread_create(&th, NULL, writer_thread, &w));
	pthread_barrier_wait(&bar);

	fd = bp_open(&watched[4], HW_BREAKPOINT_W, 8, w.tid, -1);
	ASSERT_LE(0, fd);
	write_n(&watched[4], 5);	/* this thread: not counted */
	pthread_barrier_wait(&bar);
	ASSERT_EQ(0, pthread_join(th, NULL));
	EXPECT_EQ(11, pt_read1(fd));
	close(fd);
	pthread_barrier_destroy(&bar);
}

TEST(breakpoint_follows_its_task_across_cpus)
{
	int fd, i, cpu0 = pt_nth_cpu(0), cpu1 = pt_nth_cpu(1);
	cpu_set_t old;

	if (cpu1 < 0)
		SKIP(return, "needs 2 CPUs");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	fd = bp_open(&watched[5], HW_BREAKPOINT_W, 8, 0, -1);
	ASSERT_LE(0, fd);
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, pt_pin_cpu(0, i & 1 ? cpu1 : cpu0));
		EXPECT_EQ(i & 1 ? cpu1 : cpu0, sched_getcpu());
		write_n(&watched[5], 3);
	}
	EXPECT_EQ(18, pt_read1(fd));
	close(fd);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(old), &old));
}

TEST(breakpoint_inherited_by_a_child_counts_there)
{
	struct perf_event_attr attr;
	int fd;
	pid_t pid;

	bp_attr(&attr, &watched[6], HW_BREAKPOINT_W, 8);
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	write_n(&watched[6], 2);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		write_n(&watched[6], 30);
		_exit(0);
	}
	ASSERT_EQ(0, pt_wait_exit(pid));
	EXPECT_EQ(32, pt_read1(fd));
	close(fd);
}

/* ---- sampling ---------------------------------------------------------- */

struct bp_sample {
	struct perf_event_header	h;
	__u64				ip;
	__u32				pid, tid;
	__u64				addr;
};

/*
 * Each overflow writes a sample whose address is the watched one and whose
 * ip is the instruction after the store (the same one each time round the
 * loop).
 */
TEST(samples_carry_the_watched_address)
{
	static const int periods[] = { 1, 2 };
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct pt_recs r;
	struct pt_rb rb;
	int fd, i, n;
	__u64 ip;

	for (i = 0; i < 2; i++) {
		bp_attr(&attr, &watched[0], HW_BREAKPOINT_W, 8);
		attr.sample_period = periods[i];
		attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
				   PERF_SAMPLE_ADDR;
		attr.disabled = 1;
		fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, pt_rb_map(&rb, fd, 8));
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
		write_n(&watched[0], 6);
		ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
		EXPECT_EQ(6, pt_read1(fd));

		ASSERT_EQ(0, pt_rb_drain(&rb, &r));
		EXPECT_EQ(0, r.bad);
		n = 0;
		ip = 0;
		for (h = pt_recs_next(&r, NULL, PERF_RECORD_SAMPLE); h;
		     h = pt_recs_next(&r, h, PERF_RECORD_SAMPLE)) {
			struct bp_sample *s = (struct bp_sample *)h;

			ASSERT_EQ(sizeof(*s), h->size);
			EXPECT_EQ((unsigned long)&watched[0], s->addr);
			EXPECT_EQ(getpid(), s->pid);
			EXPECT_EQ(gettid(), s->tid);
			if (!n)
				ip = s->ip;
			EXPECT_EQ(ip, s->ip);
			n++;
		}
		EXPECT_EQ(6 / periods[i], n);
		EXPECT_NE(0, ip);
		EXPECT_GT(0x800000000000ULL, ip);
		pt_recs_free(&r);
		pt_rb_unmap(&rb);
		close(fd);
	}
}

/* ---- the four debug registers ------------------------------------------ */

#if defined(__aarch64__)
/* arm64 CPUs have 2 to 16 watchpoints (ID_AA64DFR0_EL1.WRPs) */
#define MAX_WRPS	16
static volatile __u64 more[MAX_WRPS + 1] __attribute__((aligned(64)));

/*
 * Watch more[0], more[1], ... until the task has no watchpoint left:
 * their fds in @fds, the number opened returned, errno the last open's
 */
static int fill_watchpoints(int fds[MAX_WRPS + 1])
{
	struct perf_event_attr attr;
	int n;

	for (n = 0; n <= MAX_WRPS; n++) {
		bp_attr(&attr, &more[n], HW_BREAKPOINT_W, 8);
		fds[n] = sys_perf_event_open(&attr, 0, -1, -1,
					     PERF_FLAG_FD_CLOEXEC);
		if (fds[n] < 0)
			break;
	}
	return n;
}
#endif

TEST(fifth_breakpoint_of_a_task_is_enospc)
{
	struct perf_event_attr attr;
	int fds[NR_SLOTS], fd, i;

	/* disabled breakpoints hold their slot too */
	for (i = 0; i < NR_SLOTS; i++) {
		bp_attr(&attr, &watched[i], HW_BREAKPOINT_W, 8);
		attr.disabled = i & 1;
		fds[i] = sys_perf_event_open(&attr, 0, -1, -1,
					     PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fds[i]) TH_LOG("slot %d: %s", i, strerror(errno));
	}
#if defined(__aarch64__)
	{
		/*
		 * arm64 has breakpoint registers apart from its watchpoints:
		 * with every watchpoint taken, an instruction breakpoint
		 * still fits
		 */
		int extra[MAX_WRPS + 1], n;

		n = fill_watchpoints(extra);
		EXPECT_EQ(ENOSPC, errno);
		EXPECT_GT(MAX_WRPS, n);
		bp_attr(&attr, (void *)bp_target_fn, HW_BREAKPOINT_X, 4);
		EXPECT_EQ(0, bp_open_errno(&attr));
		while (n > 0)
			close(extra[--n]);
	}
	close(fds[2]);
	fd = bp_open(&watched[4], HW_BREAKPOINT_W, 8, 0, -1);
	ASSERT_LE(0, fd);
#else
	bp_attr(&attr, &watched[4], HW_BREAKPOINT_W, 8);
	EXPECT_EQ(ENOSPC, bp_open_errno(&attr));
	bp_attr(&attr, (void *)bp_target_fn, HW_BREAKPOINT_X, sizeof(long));
	EXPECT_EQ(ENOSPC, bp_open_errno(&attr));

	/* a closed one gives its slot back */
	close(fds[2]);
	fd = bp_open(&watched[4], HW_BREAKPOINT_W, 8, 0, -1);
	ASSERT_LE(0, fd);
	EXPECT_EQ(ENOSPC, bp_open_errno(&attr));
#endif

	/* all four count at once */
	write_n(&watched[0], 1);
	write_n(&watched[4], 2);
	EXPECT_EQ(1, pt_read1(fds[0]));
	EXPECT_EQ(2, pt_read1(fd));
	close(fd);
	for (i = 0; i < NR_SLOTS; i++)
		if (i != 2)
			close(fds[i]);
}

TEST(each_task_has_its_own_four_slots)
{
	int fds[NR_SLOTS], i, go[2], done[2], status;
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(go));
	ASSERT_EQ(0, pipe(done));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int cfd[NR_SLOTS];

		for (i = 0; i < NR_SLOTS; i++) {
			cfd[i] = bp_open(&watched[i], HW_BREAKPOINT_W, 8, 0, -1);
			if (cfd[i] < 0)
				_exit(10 + i);
		}
		if (write(done[1], &c, 1) != 1 || read(go[0], &c, 1) != 1)
			_exit(2);
		write_n(&watched[0], 3);
		_exit(pt_read1(cfd[0]) == 3 ? 0 : 3);
	}
	ASSERT_EQ(1, read(done[0], &c, 1));
	for (i = 0; i < NR_SLOTS; i++) {
		fds[i] = bp_open(&watched[i], HW_BREAKPOINT_W, 8, 0, -1);
		ASSERT_LE(0, fds[i]) TH_LOG("slot %d: %s", i, strerror(errno));
	}
	write_n(&watched[0], 5);
	ASSERT_EQ(1, write(go[1], &c, 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_EQ(5, pt_read1(fds[0]));
	for (i = 0; i < NR_SLOTS; i++)
		close(fds[i]);
}

/*
 * CPU-wide breakpoints take slots from every task that may run on that
 * CPU; a task breakpoint bound to another CPU does not compete with them.
 */
TEST(cpu_and_task_breakpoints_share_the_slots)
{
	int cfd[2], tfd[NR_SLOTS], n = 0, i, cpu0 = pt_nth_cpu(0);
	int cpu1 = pt_nth_cpu(1);
	struct perf_event_attr attr;
	int fd;

	if (geteuid() != 0)
		SKIP(return, "CPU-wide breakpoints need root");
	if (cpu1 < 0)
		SKIP(return, "needs 2 CPUs");

	for (i = 0; i < 2; i++) {
		cfd[i] = bp_open(&watched[i], HW_BREAKPOINT_W, 8, -1, cpu0);
		ASSERT_LE(0, cfd[i]) TH_LOG("%s", strerror(errno));
	}
	/* this task may run on cpu0: two slots left for it */
	for (i = 0; i < 2; i++) {
		tfd[n] = bp_open(&watched[2 + i], HW_BREAKPOINT_W, 8, 0, -1);
		ASSERT_LE(0, tfd[n]) TH_LOG("%s", strerror(errno));
		n++;
	}
	bp_attr(&attr, &watched[4], HW_BREAKPOINT_W, 8);
	EXPECT_EQ(ENOSPC, bp_open_errno(&attr));
	/* ... nor bound to cpu0 ... */
	fd = bp_open(&watched[4], HW_BREAKPOINT_W, 8, 0, cpu0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOSPC, errno);
	/* ... but on cpu1 there are two more */
	for (i = 0; i < 2; i++) {
		tfd[n] = bp_open(&watched[4 + i], HW_BREAKPOINT_W, 8, 0, cpu1);
		ASSERT_LE(0, tfd[n]) TH_LOG("%s", strerror(errno));
		n++;
	}
	fd = bp_open(&watched[6], HW_BREAKPOINT_W, 8, 0, cpu1);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOSPC, errno);
	/* and a third CPU-wide one on cpu0 no longer fits */
	fd = bp_open(&watched[6], HW_BREAKPOINT_W, 8, -1, cpu0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOSPC, errno);

	for (i = 0; i < n; i++)
		close(tfd[i]);
	/* with the task's gone, cpu0 takes two more CPU-wide ones */
	tfd[0] = bp_open(&watched[2], HW_BREAKPOINT_W, 8, -1, cpu0);
	ASSERT_LE(0, tfd[0]);
	tfd[1] = bp_open(&watched[3], HW_BREAKPOINT_W, 8, -1, cpu0);
	ASSERT_LE(0, tfd[1]);
	fd = bp_open(&watched[4], HW_BREAKPOINT_W, 8, -1, cpu0);
	EXPECT_EQ(-1, fd);
	EXPECT_EQ(ENOSPC, errno);
	close(tfd[0]);
	close(tfd[1]);
	close(cfd[0]);
	close(cfd[1]);
}

TEST(cpu_wide_breakpoint_counts_on_its_cpu)
{
	int fd, cpu0 = pt_nth_cpu(0), cpu1 = pt_nth_cpu(1);
	cpu_set_t old;

	if (geteuid() != 0)
		SKIP(return, "CPU-wide breakpoints need root");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	fd = bp_open(&watched[7], HW_BREAKPOINT_W, 8, -1, cpu0);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_pin_cpu(0, cpu0));
	write_n(&watched[7], 4);
	if (cpu1 >= 0) {
		ASSERT_EQ(0, pt_pin_cpu(0, cpu1));
		write_n(&watched[7], 50);
	}
	EXPECT_EQ(4, pt_read1(fd));
	close(fd);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(old), &old));
}

/* ---- PERF_EVENT_IOC_MODIFY_ATTRIBUTES ---------------------------------- */

static int modify(int fd, struct perf_event_attr *attr)
{
	return ioctl(fd, PERF_EVENT_IOC_MODIFY_ATTRIBUTES, attr) ? errno : 0;
}

#if defined(__aarch64__)
/*
 * arm64 keeps watchpoints and breakpoints in registers of their own: a
 * watchpoint modified into an instruction breakpoint gives its
 * watchpoint slot back and takes a breakpoint slot (the core's slot
 * books, per type pool), so a watchpoint fits again afterwards
 */
TEST(modify_to_another_type_moves_the_slot)
{
	struct perf_event_attr attr;
	int fds[MAX_WRPS + 1], n, fd;

	n = fill_watchpoints(fds);
	ASSERT_EQ(ENOSPC, errno);
	ASSERT_LT(0, n);
	/* the last watchpoint becomes a breakpoint on a function */
	bp_attr(&attr, (void *)bp_target_fn, HW_BREAKPOINT_X, 4);
	ASSERT_EQ(0, modify(fds[n - 1], &attr));
	bp_attr(&attr, &more[n], HW_BREAKPOINT_W, 8);
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	EXPECT_LE(0, fd) TH_LOG("no watchpoint slot came back: %s",
				strerror(errno));
	/* and the pool is full again */
	bp_attr(&attr, &more[n + 0], HW_BREAKPOINT_W, 4);
	EXPECT_EQ(ENOSPC, bp_open_errno(&attr));
	/* the breakpoint counts its calls */
	bp_target_fn(1);
	bp_target_fn(2);
	EXPECT_EQ(2, pt_read1(fds[n - 1]));
	if (fd >= 0)
		close(fd);
	while (n > 0)
		close(fds[--n]);
}
#endif

TEST(modify_moves_the_breakpoint)
{
	struct perf_event_attr attr;
	__u32 v;
	int fd;

	bp_attr(&attr, &watched[0], HW_BREAKPOINT_W, 8);
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	write_n(&watched[0], 2);

	attr.bp_addr = (unsigned long)&watched[1];
	ASSERT_EQ(0, modify(fd, &attr));
	write_n(&watched[0], 10);
	write_n(&watched[1], 3);
	EXPECT_EQ(5, pt_read1(fd));

	/* type and length: a 4-byte RW breakpoint on the upper half */
	attr.bp_addr = (unsigned long)&halves[1];
	attr.bp_len = 4;
	attr.bp_type = HW_BREAKPOINT_RW;
	ASSERT_EQ(0, modify(fd, &attr));
	halves[1] = 1;
	halves[1] = 2;
	v = halves[1];	/* one read */
	EXPECT_EQ(2, v);
	halves[0] = 1;	/* the lower half: no hit */
	write_n(&watched[1], 2);
	EXPECT_EQ(8, pt_read1(fd));

	/* disabled through the attr, and enabled again */
	attr.disabled = 1;
	ASSERT_EQ(0, modify(fd, &attr));
	halves[1] = 3;
	EXPECT_EQ(8, pt_read1(fd));
	attr.disabled = 0;
	ASSERT_EQ(0, modify(fd, &attr));
	halves[1] = 4;
	halves[1] = 5;
	EXPECT_EQ(10, pt_read1(fd));
	close(fd);
}

TEST(modify_refuses_what_a_breakpoint_cannot_change)
{
	struct perf_event_attr attr, bad;
	int fd;

	bp_attr(&attr, &watched[2], HW_BREAKPOINT_W, 8);
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);

#if defined(__aarch64__)
	/* arm64 watches loads alone and 3 bytes; not a nothing, not 9 */
	bad = attr;
	bad.bp_type = HW_BREAKPOINT_EMPTY;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
	bad = attr;
	bad.bp_addr += 4;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
	bad = attr;
	bad.bp_len = 9;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
#else
	bad = attr;
	bad.bp_type = HW_BREAKPOINT_R;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
	bad = attr;
	bad.bp_addr += 4;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
	bad = attr;
	bad.bp_len = 3;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
#endif
	bad = attr;
	bad.sample_period = 5;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
	bad = attr;
	bad.exclude_user = 1;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
	bad = attr;
	bad.config = 1;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
	bad = attr;
	bad.type = PERF_TYPE_SOFTWARE;
	EXPECT_EQ(EINVAL, modify(fd, &bad));
	bad = attr;
	bad.size = 8;
	EXPECT_EQ(E2BIG, modify(fd, &bad));
	EXPECT_EQ(EFAULT, modify(fd, NULL));

	/* sig_data may change; nothing above changed the breakpoint */
	bad = attr;
	bad.sig_data = 0x1234;
	EXPECT_EQ(0, modify(fd, &bad));
	write_n(&watched[2], 3);
	EXPECT_EQ(3, pt_read1(fd));
	close(fd);
}

TEST(modify_of_other_events_is_eopnotsupp)
{
	struct perf_event_attr attr;
	int fd = pt_open_sw(PERF_COUNT_SW_DUMMY, -1, 0);

	ASSERT_LE(0, fd);
	pt_attr_sw(&attr, PERF_COUNT_SW_DUMMY);
	EXPECT_EQ(EOPNOTSUPP, modify(fd, &attr));
	/* a breakpoint attr for it: the type differs */
	bp_attr(&attr, &watched[0], HW_BREAKPOINT_W, 8);
	EXPECT_EQ(EINVAL, modify(fd, &attr));
	close(fd);
}

TEST_HARNESS_MAIN
