// SPDX-License-Identifier: GPL-2.0
/*
 * BPF programs on perf events, without clang: the programs are arrays of
 * struct bpf_insn loaded with bpf(2).
 *
 * - PERF_EVENT_IOC_SET_BPF on tracepoint (static and syscall) and kprobe
 *   events: the program sees every hit, and returning 0 hides the hit
 *   from the event (no count, no sample); PERF_EVENT_IOC_QUERY_BPF;
 * - BPF_PROG_TYPE_PERF_EVENT programs on software sampling events: run
 *   at each overflow, returning 0 suppresses the sample; the context's
 *   sample_period and addr, bpf_perf_prog_read_value(),
 *   bpf_get_attach_cookie();
 * - perf links (BPF_LINK_CREATE, BPF_PERF_EVENT) and their info;
 * - perf event arrays: bpf_perf_event_output() into a bpf-output event's
 *   buffer, bpf_perf_event_read() and _read_value() and their errnos;
 * - bpf_get_stackid() and bpf_get_stack() through perf's callchains;
 * - PERF_RECORD_KSYMBOL and PERF_RECORD_BPF_EVENT at load and unload;
 * - the errnos of misuse.
 *
 * Tracepoint programs run for every task: each one here first checks
 * that the current process is this test's. Root only.
 */
#include "perf_test.h"

#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <sys/mount.h>

#define TRACEFS		"/sys/kernel/tracing"
#define TP_GETPPID	TRACEFS "/events/syscalls/sys_enter_getppid/id"
#define TP_SIGNAL	TRACEFS "/events/signal/signal_generate/id"
#define KPROBE_TYPE	"/sys/bus/event_source/devices/kprobe/type"
#define KPROBE_FUNC	"__x64_sys_getppid"

/* ---- bpf(2) ------------------------------------------------------- */

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int map_create(__u32 type, __u32 key_size, __u32 value_size,
		      __u32 max_entries)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_type = type;
	attr.key_size = key_size;
	attr.value_size = value_size;
	attr.max_entries = max_entries;
	return sys_bpf(BPF_MAP_CREATE, &attr);
}

/* An array of @n u64 slots, all 0. */
static int array_create(int n)
{
	return map_create(BPF_MAP_TYPE_ARRAY, 4, 8, n);
}

static int map_update(int fd, __u32 key, const void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (__u64)(unsigned long)&key;
	attr.value = (__u64)(unsigned long)value;
	return sys_bpf(BPF_MAP_UPDATE_ELEM, &attr);
}

static int map_lookup(int fd, const void *key, void *value)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.map_fd = fd;
	attr.key = (__u64)(unsigned long)key;
	attr.value = (__u64)(unsigned long)value;
	return sys_bpf(BPF_MAP_LOOKUP_ELEM, &attr);
}

/* Slot @key of an array made by array_create(); ~0 on error. */
static __u64 slot(int fd, __u32 key)
{
	__u64 v;

	if (map_lookup(fd, &key, &v))
		return ~0ULL;
	return v;
}

static char verifier_log[65536];

struct prog {
	struct bpf_insn insn[128];
	int n;
};

static int prog_load(__u32 type, struct prog *p)
{
	union bpf_attr attr;
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = type;
	attr.insns = (__u64)(unsigned long)p->insn;
	attr.insn_cnt = p->n;
	attr.license = (__u64)(unsigned long)"GPL";
	memcpy(attr.prog_name, "perf_test", sizeof("perf_test"));
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0 && errno != EPERM) {
		/* load again with the log, for the test's output */
		int err = errno;

		attr.log_buf = (__u64)(unsigned long)verifier_log;
		attr.log_size = sizeof(verifier_log);
		attr.log_level = 1;
		sys_bpf(BPF_PROG_LOAD, &attr);
		fprintf(stderr, "# verifier: %s\n", verifier_log);
		errno = err;
	}
	return fd;
}

static int obj_info(int fd, void *info, __u32 len)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = len;
	attr.info.info = (__u64)(unsigned long)info;
	return sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr);
}

static __u32 prog_id(int fd)
{
	struct bpf_prog_info info;

	memset(&info, 0, sizeof(info));
	if (obj_info(fd, &info, sizeof(info)))
		return 0;
	return info.id;
}

static int link_create(int prog_fd, int perf_fd, __u64 cookie)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog_fd;
	attr.link_create.target_fd = perf_fd;
	attr.link_create.attach_type = BPF_PERF_EVENT;
	attr.link_create.perf_event.bpf_cookie = cookie;
	return sys_bpf(BPF_LINK_CREATE, &attr);
}

/* ---- instructions ------------------------------------------------- */

#define R0 BPF_REG_0
#define R1 BPF_REG_1
#define R2 BPF_REG_2
#define R3 BPF_REG_3
#define R4 BPF_REG_4
#define R5 BPF_REG_5
#define R6 BPF_REG_6
#define R7 BPF_REG_7
#define R8 BPF_REG_8
#define R10 BPF_REG_10

#define INSN(c, d, s, o, i)						\
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s),	\
			    .off = (o), .imm = (i) })

static int emit(struct prog *p, struct bpf_insn insn)
{
	p->insn[p->n] = insn;
	return p->n++;
}

/* the jump at @at lands here */
static void land(struct prog *p, int at)
{
	p->insn[at].off = p->n - at - 1;
}

static void mov_imm(struct prog *p, int dst, __s32 imm)
{
	emit(p, INSN(BPF_ALU64 | BPF_MOV | BPF_K, dst, 0, 0, imm));
}

static void mov_reg(struct prog *p, int dst, int src)
{
	emit(p, INSN(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0));
}

static void add_imm(struct prog *p, int dst, __s32 imm)
{
	emit(p, INSN(BPF_ALU64 | BPF_ADD | BPF_K, dst, 0, 0, imm));
}

static void ld_imm64(struct prog *p, int dst, __u64 v, int src)
{
	emit(p, INSN(BPF_LD | BPF_DW | BPF_IMM, dst, src, 0, (__u32)v));
	emit(p, INSN(0, 0, 0, 0, v >> 32));
}

static void ld_map(struct prog *p, int dst, int map_fd)
{
	ld_imm64(p, dst, map_fd, BPF_PSEUDO_MAP_FD);
}

static void ldx64(struct prog *p, int dst, int src, __s16 off)
{
	emit(p, INSN(BPF_LDX | BPF_DW | BPF_MEM, dst, src, off, 0));
}

static void stx64(struct prog *p, int dst, int src, __s16 off)
{
	emit(p, INSN(BPF_STX | BPF_DW | BPF_MEM, dst, src, off, 0));
}

static void call(struct prog *p, int func)
{
	emit(p, INSN(BPF_JMP | BPF_CALL, 0, 0, 0, func));
}

static void ret(struct prog *p, int value)
{
	mov_imm(p, R0, value);
	emit(p, INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0));
}

/* R0 = &map[key], or jump to the returned index's landing when absent */
static int lookup(struct prog *p, int map_fd, __u32 key)
{
	emit(p, INSN(BPF_ST | BPF_W | BPF_MEM, R10, 0, -4, key));
	mov_reg(p, R2, R10);
	add_imm(p, R2, -4);
	ld_map(p, R1, map_fd);
	call(p, BPF_FUNC_map_lookup_elem);
	return emit(p, INSN(BPF_JMP | BPF_JEQ | BPF_K, R0, 0, 0, 0));
}

/* map[key] += 1 (atomically); clobbers R0-R5 */
static void count(struct prog *p, int map_fd, __u32 key)
{
	int miss = lookup(p, map_fd, key);

	mov_imm(p, R1, 1);
	emit(p, INSN(BPF_STX | BPF_DW | BPF_ATOMIC, R0, R1, 0, BPF_ADD));
	land(p, miss);
}

/* map[key] = @reg (R6-R9); clobbers R0-R5 */
static void store(struct prog *p, int map_fd, __u32 key, int reg)
{
	int miss = lookup(p, map_fd, key);

	stx64(p, R0, reg, 0);
	land(p, miss);
}

/*
 * Start of a tracing program: the context to R6, and unless current is
 * a thread of this process, return @verdict at once. Returns the jump to
 * land on that return. Leaves pid_tgid in R8.
 */
static int only_us(struct prog *p)
{
	mov_reg(p, R6, R1);
	call(p, BPF_FUNC_get_current_pid_tgid);
	mov_reg(p, R8, R0);
	emit(p, INSN(BPF_ALU64 | BPF_RSH | BPF_K, R0, 0, 0, 32));
	return emit(p, INSN(BPF_JMP | BPF_JNE | BPF_K, R0, 0, 0, getpid()));
}

/* counts[0] += 1 for each hit of this process; returns @verdict */
static int load_counter(__u32 type, int counts, int verdict)
{
	struct prog p = { .n = 0 };
	int other = only_us(&p);

	count(&p, counts, 0);
	land(&p, other);
	ret(&p, verdict);
	return prog_load(type, &p);
}

/*
 * A PERF_EVENT program: counts[0] += 1, counts[1] = ctx->addr,
 * counts[2] = ctx->sample_period, counts[3] = bpf_get_attach_cookie(),
 * counts[4] = bpf_perf_prog_read_value()'s counter, counts[5] its
 * return; returns @verdict.
 */
static int load_pe_prog(int counts, int verdict)
{
	struct prog p = { .n = 0 };

	mov_reg(&p, R6, R1);
	count(&p, counts, 0);
	ldx64(&p, R7, R6, offsetof(struct bpf_perf_event_data, addr));
	store(&p, counts, 1, R7);
	ldx64(&p, R7, R6, offsetof(struct bpf_perf_event_data,
				  sample_period));
	store(&p, counts, 2, R7);
	mov_reg(&p, R1, R6);
	call(&p, BPF_FUNC_get_attach_cookie);
	mov_reg(&p, R7, R0);
	store(&p, counts, 3, R7);
	mov_reg(&p, R1, R6);
	mov_reg(&p, R2, R10);
	add_imm(&p, R2, -32);
	mov_imm(&p, R3, sizeof(struct bpf_perf_event_value));
	call(&p, BPF_FUNC_perf_prog_read_value);
	mov_reg(&p, R7, R0);
	store(&p, counts, 5, R7);
	ldx64(&p, R7, R10, -32);
	store(&p, counts, 4, R7);
	ret(&p, verdict);
	return prog_load(BPF_PROG_TYPE_PERF_EVENT, &p);
}

/* ---- perf events --------------------------------------------------- */

static int tracefs_id(const char *path)
{
	long long id;

	if (pt_read_int_file(path, &id) == 0)
		return (int)id;
	mount("tracefs", TRACEFS, "tracefs", 0, NULL);
	if (pt_read_int_file(path, &id) == 0)
		return (int)id;
	return -1;
}

/* A tracepoint event on this task, enabled; @period 0: counting. */
static int open_tp(const char *id_path, __u64 period)
{
	struct perf_event_attr attr;
	int id = tracefs_id(id_path);

	if (id < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = id;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_RAW;
	attr.wakeup_events = 1;
	return sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int open_kprobe(void)
{
	struct perf_event_attr attr;
	long long type;

	if (pt_read_int_file(KPROBE_TYPE, &type))
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.kprobe_func = (__u64)(unsigned long)KPROBE_FUNC;
	return sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* A software event on this task, enabled, kernel included. */
static int open_sw(__u64 config, __u64 period, __u64 sample_type)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.sample_period = period;
	attr.sample_type = sample_type;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr.disabled = 1;
	return sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void getppid_n(int n)
{
	int i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
}

static int samples_in(struct pt_rb *rb)
{
	struct pt_recs r;
	int n;

	if (pt_rb_drain(rb, &r))
		return -1;
	n = r.bad ? -1 : pt_recs_count(&r, PERF_RECORD_SAMPLE);
	pt_recs_free(&r);
	return n;
}

FIXTURE(bpf)
{
	int counts;
};

FIXTURE_SETUP(bpf)
{
	if (geteuid())
		SKIP(return, "root only");
	signal(SIGUSR1, SIG_IGN);
	self->counts = array_create(8);
	ASSERT_LE(0, self->counts) TH_LOG("array map: %s", strerror(errno));
}

FIXTURE_TEARDOWN(bpf)
{
	if (self->counts >= 0)
		close(self->counts);
}

/* ---- tracing events ------------------------------------------------- */

/*
 * A syscall tracepoint's program sees each of our 37 getppid calls; it
 * returns 1, so the event counts them too.
 */
TEST_F(bpf, syscall_tracepoint_program_sees_each_call)
{
	int tp = open_tp(TP_GETPPID, 0);
	int prog;

	ASSERT_LE(0, tp) TH_LOG("sys_enter_getppid: %s", strerror(errno));
	prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts, 1);
	ASSERT_LE(0, prog) TH_LOG("load: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog))
		TH_LOG("SET_BPF: %s", strerror(errno));
	getppid_n(37);
	EXPECT_EQ(37, slot(self->counts, 0));
	EXPECT_EQ(37, pt_read1(tp));
	close(tp);
	/* closed: the program is off the tracepoint */
	getppid_n(5);
	EXPECT_EQ(37, slot(self->counts, 0));
	close(prog);
}

/*
 * A static tracepoint (signal_generate, through perf's submit path): a
 * program returning 0 still sees each hit, and the event neither counts
 * nor samples any of them; a program returning 1 lets each through.
 */
TEST_F(bpf, tracepoint_program_verdict_decides_the_record)
{
	int verdict, tp, prog, i;
	struct pt_rb rb;

	for (verdict = 0; verdict <= 1; verdict++) {
		__u32 key = 0;
		__u64 zero = 0;

		ASSERT_EQ(0, map_update(self->counts, key, &zero));
		tp = open_tp(TP_SIGNAL, 1);
		ASSERT_LE(0, tp) TH_LOG("signal_generate: %s",
					strerror(errno));
		ASSERT_EQ(0, pt_rb_map(&rb, tp, 16));
		prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts,
				    verdict);
		ASSERT_LE(0, prog);
		ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog));
		for (i = 0; i < 11; i++)
			kill(getpid(), SIGUSR1);
		EXPECT_EQ(11, slot(self->counts, 0));
		EXPECT_EQ(verdict ? 11 : 0, pt_read1(tp));
		EXPECT_EQ(verdict ? 11 : 0, samples_in(&rb));
		pt_rb_unmap(&rb);
		close(tp);
		close(prog);
	}
}

TEST_F(bpf, kprobe_program_sees_each_hit)
{
	int kp = open_kprobe();
	int prog;

	if (kp < 0)
		SKIP(return, "no kprobe PMU");
	prog = load_counter(BPF_PROG_TYPE_KPROBE, self->counts, 0);
	ASSERT_LE(0, prog) TH_LOG("load: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(kp, PERF_EVENT_IOC_SET_BPF, prog))
		TH_LOG("SET_BPF: %s", strerror(errno));
	getppid_n(23);
	EXPECT_EQ(23, slot(self->counts, 0));
	/* the program said 0 each time: the event never counted */
	EXPECT_EQ(0, pt_read1(kp));
	close(kp);
	close(prog);
}

/* QUERY_BPF: the ids of the tracepoint's programs */
TEST_F(bpf, query_returns_the_attached_program)
{
	struct {
		struct perf_event_query_bpf q;
		__u32 ids[4];
	} query;
	int tp = open_tp(TP_GETPPID, 0);
	int prog;

	ASSERT_LE(0, tp);
	memset(&query, 0, sizeof(query));
	query.q.ids_len = 4;
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(0, query.q.prog_cnt);

	prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts, 1);
	ASSERT_LE(0, prog);
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog));
	memset(&query, 0, sizeof(query));
	query.q.ids_len = 4;
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(1, query.q.prog_cnt);
	EXPECT_EQ(prog_id(prog), query.q.ids[0]);
	EXPECT_NE(0, query.q.ids[0]);

	/* ids_len 0: only the count */
	memset(&query, 0, sizeof(query));
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(1, query.q.prog_cnt);
	close(tp);
	close(prog);
}

/* ---- misuse ---------------------------------------------------------- */

TEST_F(bpf, set_bpf_errnos)
{
	int tp = open_tp(TP_GETPPID, 0);
	int sw = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 0, 0);
	int tp_prog, pe_prog, kp_prog, tp_prog2;
	struct perf_event_query_bpf query = { .ids_len = 0 };

	ASSERT_LE(0, tp);
	ASSERT_LE(0, sw);
	tp_prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts, 1);
	tp_prog2 = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts, 1);
	kp_prog = load_counter(BPF_PROG_TYPE_KPROBE, self->counts, 1);
	pe_prog = load_pe_prog(self->counts, 1);
	ASSERT_LE(0, tp_prog);
	ASSERT_LE(0, tp_prog2);
	ASSERT_LE(0, kp_prog);
	ASSERT_LE(0, pe_prog);

	/* a non-tracing event takes only PERF_EVENT programs */
	EXPECT_EQ(-1, ioctl(sw, PERF_EVENT_IOC_SET_BPF, tp_prog));
	EXPECT_EQ(EINVAL, errno);
	/* a tracepoint only tracepoint programs */
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, pe_prog));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, kp_prog));
	EXPECT_EQ(EINVAL, errno);
	/* not a program */
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, -1));
	EXPECT_EQ(EBADF, errno);
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, self->counts));
	EXPECT_EQ(EINVAL, errno);
	/* one program per event */
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, tp_prog));
	EXPECT_EQ(-1, ioctl(tp, PERF_EVENT_IOC_SET_BPF, tp_prog2));
	EXPECT_EQ(EEXIST, errno);
	ASSERT_EQ(0, ioctl(sw, PERF_EVENT_IOC_SET_BPF, pe_prog));
	EXPECT_EQ(-1, ioctl(sw, PERF_EVENT_IOC_SET_BPF, pe_prog));
	EXPECT_EQ(EEXIST, errno);
	/* QUERY_BPF is for tracepoint events */
	EXPECT_EQ(-1, ioctl(sw, PERF_EVENT_IOC_QUERY_BPF, &query));
	EXPECT_EQ(EINVAL, errno);
	/* a perf link needs a perf event */
	EXPECT_EQ(-1, link_create(pe_prog, self->counts, 0));
	EXPECT_EQ(EBADF, errno);

	close(tp);
	close(sw);
	close(tp_prog);
	close(tp_prog2);
	close(kp_prog);
	close(pe_prog);
}

TEST_F(bpf, kprobe_takes_only_kprobe_programs)
{
	int kp = open_kprobe();
	int prog;

	if (kp < 0)
		SKIP(return, "no kprobe PMU");
	prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts, 1);
	ASSERT_LE(0, prog);
	EXPECT_EQ(-1, ioctl(kp, PERF_EVENT_IOC_SET_BPF, prog));
	EXPECT_EQ(EINVAL, errno);
	close(prog);
	prog = load_pe_prog(self->counts, 1);
	ASSERT_LE(0, prog);
	EXPECT_EQ(-1, ioctl(kp, PERF_EVENT_IOC_SET_BPF, prog));
	EXPECT_EQ(EINVAL, errno);
	close(prog);
	close(kp);
}

/* ---- PERF_EVENT programs --------------------------------------------- */

/*
 * Page faults sampled at each fault: the program runs at every overflow,
 * sees the faulting address and the period, and its verdict decides
 * whether the sample is written. Exactly @pages faults of our mapping.
 */
static void faults_under_program(struct __test_metadata *_metadata,
				 int counts, int verdict)
{
	const int pages = 13;
	long ps = pt_page_size();
	int fd, prog, ours = 0;
	struct perf_event_header *h;
	struct perf_event_attr attr;
	struct pt_recs r;
	struct pt_rb rb;
	char *p;

	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 1,
		     PERF_SAMPLE_ADDR | PERF_SAMPLE_TID);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 16));
	prog = load_pe_prog(counts, verdict);
	ASSERT_LE(0, prog) TH_LOG("load: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog))
		TH_LOG("SET_BPF: %s", strerror(errno));
	p = pt_map_pages(pages);
	ASSERT_NE(NULL, p);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pt_touch(p, pages);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));

	/* the program ran for each fault, ours among them */
	EXPECT_LE(pages, slot(counts, 0));
	EXPECT_EQ(1, slot(counts, 2));
	EXPECT_EQ(0, slot(counts, 5));
	/* the count is the event's, whatever the program said */
	EXPECT_LE(pages, pt_read1(fd));

	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	if (!verdict) {
		EXPECT_EQ(0, pt_recs_count(&r, PERF_RECORD_SAMPLE));
	} else {
		memset(&attr, 0, sizeof(attr));
		attr.sample_type = PERF_SAMPLE_ADDR | PERF_SAMPLE_TID;
		EXPECT_EQ(slot(counts, 0),
			  pt_recs_count(&r, PERF_RECORD_SAMPLE));
		pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
			struct pt_sample s;

			ASSERT_EQ(h->size - 8, pt_sample_parse(&attr, h, &s));
			if (s.addr >= (unsigned long)p &&
			    s.addr < (unsigned long)p + pages * ps)
				ours++;
		}
		EXPECT_EQ(pages, ours);
	}
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	pt_unmap_pages(p, pages);
	close(fd);
	close(prog);
}

TEST_F(bpf, perf_event_program_returning_0_drops_each_sample)
{
	faults_under_program(_metadata, self->counts, 0);
}

TEST_F(bpf, perf_event_program_returning_1_keeps_each_sample)
{
	faults_under_program(_metadata, self->counts, 1);
	/* the last fault the program saw was one of the mapping's pages */
	EXPECT_NE(0, slot(self->counts, 1));
}

/* The period of a sample, as the program sees it, and the clocks. */
TEST_F(bpf, program_sees_the_sample_period)
{
	int fd, prog;

	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 3, PERF_SAMPLE_TID);
	ASSERT_LE(0, fd);
	prog = load_pe_prog(self->counts, 1);
	ASSERT_LE(0, prog);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pt_fault_pages(12);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_LE(4, slot(self->counts, 0));
	EXPECT_EQ(3, slot(self->counts, 2));
	/* bpf_perf_prog_read_value(): the count at an overflow */
	EXPECT_EQ(0, slot(self->counts, 5));
	EXPECT_LE(12, slot(self->counts, 4));
	EXPECT_EQ(0, slot(self->counts, 4) % 3);
	close(fd);
	close(prog);
}

/* task-clock and cpu-clock sampling every 100 us of a 30 ms spin */
TEST_F(bpf, clock_samples_follow_the_verdict)
{
	__u64 clocks[] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_CPU_CLOCK };
	int c, verdict, fd, prog, n;
	struct pt_rb rb;

	for (c = 0; c < 2; c++) {
		for (verdict = 0; verdict <= 1; verdict++) {
			__u64 zero = 0;

			ASSERT_EQ(0, map_update(self->counts, 0, &zero));
			fd = open_sw(clocks[c], 100000, PERF_SAMPLE_TID);
			ASSERT_LE(0, fd);
			ASSERT_EQ(0, pt_rb_map(&rb, fd, 64));
			prog = load_pe_prog(self->counts, verdict);
			ASSERT_LE(0, prog);
			ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
			ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
			pt_spin_ns(30000000);
			ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
			n = samples_in(&rb);
			EXPECT_LT(0, slot(self->counts, 0));
			EXPECT_EQ(verdict ? slot(self->counts, 0) : 0, n);
			pt_rb_unmap(&rb);
			close(fd);
			close(prog);
		}
	}
}

static int prog_fd_by_id(__u32 id)
{
	union bpf_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_id = id;
	return sys_bpf(BPF_PROG_GET_FD_BY_ID, &attr);
}

/*
 * An inherited copy runs its parent's program (the child's faults are
 * counted by it), and the events' references on their programs go with
 * the events: once the fds are closed, the programs are gone.
 */
TEST_F(bpf, programs_are_inherited_and_released_with_their_events)
{
	struct perf_event_attr attr;
	int fd, tp, prog, again;
	pid_t child;
	__u32 id;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.sample_period = 1;
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	prog = load_pe_prog(self->counts, 1);
	ASSERT_LE(0, prog);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	id = prog_id(prog);
	close(prog);

	child = fork();
	ASSERT_LE(0, child);
	if (!child) {
		__u64 before = slot(self->counts, 0);

		pt_fault_pages(9);
		_exit(slot(self->counts, 0) - before >= 9 ? 0 : 1);
	}
	EXPECT_EQ(0, pt_wait_exit(child));
	/* the event holds the program */
	again = prog_fd_by_id(id);
	EXPECT_LE(0, again);
	close(again);
	close(fd);
	EXPECT_EQ(-1, prog_fd_by_id(id));
	EXPECT_EQ(ENOENT, errno);

	/* a tracepoint event's program leaves with it */
	tp = open_tp(TP_GETPPID, 0);
	ASSERT_LE(0, tp);
	prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts, 1);
	ASSERT_LE(0, prog);
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog));
	id = prog_id(prog);
	close(prog);
	close(tp);
	EXPECT_EQ(-1, prog_fd_by_id(id));
	EXPECT_EQ(ENOENT, errno);
}

/* ---- perf links ------------------------------------------------------- */

TEST_F(bpf, perf_link_attaches_with_a_cookie_until_closed)
{
	struct bpf_link_info info;
	int fd, prog, link, before;
	char path[64], buf[1024];

	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 1, PERF_SAMPLE_TID);
	ASSERT_LE(0, fd);
	prog = load_pe_prog(self->counts, 1);
	ASSERT_LE(0, prog);
	link = link_create(prog, fd, 0x1234abcd5678ULL);
	ASSERT_LE(0, link) TH_LOG("link: %s", strerror(errno));
	/* the link holds the event's program */
	EXPECT_EQ(-1, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	EXPECT_EQ(EEXIST, errno);
	EXPECT_EQ(-1, link_create(prog, fd, 0));
	EXPECT_EQ(EEXIST, errno);

	memset(&info, 0, sizeof(info));
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	EXPECT_EQ(BPF_LINK_TYPE_PERF_EVENT, info.type);
	EXPECT_EQ(prog_id(prog), info.prog_id);
	EXPECT_EQ(BPF_PERF_EVENT_EVENT, info.perf_event.type);
	EXPECT_EQ(PERF_TYPE_SOFTWARE, info.perf_event.event.type);
	EXPECT_EQ(PERF_COUNT_SW_PAGE_FAULTS, info.perf_event.event.config);
	EXPECT_EQ(0x1234abcd5678ULL, info.perf_event.event.cookie);
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", link);
	ASSERT_EQ(0, pt_read_file(path, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "link_type:\tperf"))
		TH_LOG("fdinfo: %s", buf);

	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pt_fault_pages(4);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_LE(4, slot(self->counts, 0));
	EXPECT_EQ(0x1234abcd5678ULL, slot(self->counts, 3));

	/* closed: the program is off the event, which takes another */
	close(link);
	before = slot(self->counts, 0);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pt_fault_pages(4);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	EXPECT_EQ(before, slot(self->counts, 0));
	EXPECT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog));
	close(fd);
	close(prog);
}

TEST_F(bpf, perf_link_on_a_tracepoint)
{
	struct bpf_link_info info;
	char name[64];
	int tp, prog, link;

	tp = open_tp(TP_GETPPID, 0);
	ASSERT_LE(0, tp);
	prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts, 1);
	ASSERT_LE(0, prog);
	link = link_create(prog, tp, 77);
	ASSERT_LE(0, link) TH_LOG("link: %s", strerror(errno));
	getppid_n(9);
	EXPECT_EQ(9, slot(self->counts, 0));

	memset(&info, 0, sizeof(info));
	info.perf_event.tracepoint.tp_name = (__u64)(unsigned long)name;
	info.perf_event.tracepoint.name_len = sizeof(name);
	ASSERT_EQ(0, obj_info(link, &info, sizeof(info)));
	EXPECT_EQ(BPF_LINK_TYPE_PERF_EVENT, info.type);
	EXPECT_EQ(BPF_PERF_EVENT_TRACEPOINT, info.perf_event.type);
	EXPECT_STREQ("sys_enter_getppid", name);
	EXPECT_EQ(77, info.perf_event.tracepoint.cookie);

	close(link);
	getppid_n(9);
	EXPECT_EQ(9, slot(self->counts, 0));
	close(tp);
	close(prog);
}

/* ---- perf event arrays ----------------------------------------------- */

#define OUT_MAGIC	0x5a5a0123456789a5ULL

/*
 * A tracepoint program writes 16 bytes (a magic, its pid_tgid) with
 * bpf_perf_event_output() to the bpf-output event of the current CPU;
 * counts[0] += 1 per call, counts[1] = its return.
 */
static int load_output_prog(int counts, int array)
{
	struct prog p = { .n = 0 };
	int other = only_us(&p);

	ld_imm64(&p, R7, OUT_MAGIC, 0);
	stx64(&p, R10, R7, -16);
	stx64(&p, R10, R8, -8);
	mov_reg(&p, R1, R6);
	ld_map(&p, R2, array);
	ld_imm64(&p, R3, BPF_F_CURRENT_CPU, 0);
	mov_reg(&p, R4, R10);
	add_imm(&p, R4, -16);
	mov_imm(&p, R5, 16);
	call(&p, BPF_FUNC_perf_event_output);
	mov_reg(&p, R7, R0);
	store(&p, counts, 1, R7);
	count(&p, counts, 0);
	land(&p, other);
	ret(&p, 1);
	return prog_load(BPF_PROG_TYPE_TRACEPOINT, &p);
}

TEST_F(bpf, perf_event_output_writes_raw_samples)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	int array, out, tp, prog, cpu, n = 0;
	int ncpus = pt_nr_cpus();
	struct pt_recs r;
	struct pt_rb rb;

	array = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, ncpus);
	ASSERT_LE(0, array) TH_LOG("perf event array: %s", strerror(errno));
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_BPF_OUTPUT;
	attr.sample_period = 1;
	attr.sample_type = PERF_SAMPLE_RAW | PERF_SAMPLE_TID;
	attr.wakeup_events = 1;
	/* one event following this task, in every CPU's slot */
	out = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, out);
	ASSERT_EQ(0, pt_rb_map(&rb, out, 16));
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_EQ(0, map_update(array, cpu, &out))
			TH_LOG("slot %d: %s", cpu, strerror(errno));

	tp = open_tp(TP_GETPPID, 0);
	ASSERT_LE(0, tp);
	prog = load_output_prog(self->counts, array);
	ASSERT_LE(0, prog);
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog));
	getppid_n(17);
	EXPECT_EQ(17, slot(self->counts, 0));
	EXPECT_EQ(0, slot(self->counts, 1));

	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		struct pt_sample s;
		__u64 words[2];

		ASSERT_EQ(h->size - 8, pt_sample_parse(&attr, h, &s));
		/* 16 bytes, padded so the record stays u64-aligned */
		ASSERT_EQ(20, s.raw_size);
		memcpy(words, s.raw, sizeof(words));
		EXPECT_EQ(OUT_MAGIC, words[0]);
		EXPECT_EQ(getpid(), words[1] >> 32);
		EXPECT_EQ(getpid(), s.pid);
		n++;
	}
	EXPECT_EQ(17, n);
	/* nothing else went to the buffer */
	EXPECT_EQ(r.nr, n);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(tp);
	close(prog);
	close(out);
	close(array);
}

/*
 * A tracepoint program reads the perf event array's slot @index with
 * bpf_perf_event_read_value() (counts[0] its return, [1..3] the value)
 * and bpf_perf_event_read() (counts[4]).
 */
static int load_read_prog(int counts, int array, __u64 index)
{
	struct prog p = { .n = 0 };
	int other = only_us(&p);

	ld_map(&p, R1, array);
	ld_imm64(&p, R2, index, 0);
	mov_reg(&p, R3, R10);
	add_imm(&p, R3, -32);
	mov_imm(&p, R4, sizeof(struct bpf_perf_event_value));
	call(&p, BPF_FUNC_perf_event_read_value);
	mov_reg(&p, R7, R0);
	store(&p, counts, 0, R7);
	ldx64(&p, R7, R10, -32);
	store(&p, counts, 1, R7);
	ldx64(&p, R7, R10, -24);
	store(&p, counts, 2, R7);
	ldx64(&p, R7, R10, -16);
	store(&p, counts, 3, R7);
	ld_map(&p, R1, array);
	ld_imm64(&p, R2, index, 0);
	call(&p, BPF_FUNC_perf_event_read);
	mov_reg(&p, R7, R0);
	store(&p, counts, 4, R7);
	land(&p, other);
	ret(&p, 1);
	return prog_load(BPF_PROG_TYPE_TRACEPOINT, &p);
}

/* Run the read program once on slot @index; its return (counts[0]). */
static long long read_through_bpf(int counts, int array, __u64 index)
{
	int tp = open_tp(TP_GETPPID, 0);
	int prog = load_read_prog(counts, array, index);
	long long ret = -1000;

	if (tp >= 0 && prog >= 0 &&
	    !ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog)) {
		syscall(SYS_getppid);
		ret = (long long)slot(counts, 0);
	}
	if (tp >= 0)
		close(tp);
	if (prog >= 0)
		close(prog);
	return ret;
}

TEST_F(bpf, perf_event_read_value_of_a_software_counter)
{
	int array, fd, cpu, ncpus = pt_nr_cpus();
	struct pt_val3 v;

	array = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, ncpus);
	ASSERT_LE(0, array);
	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 0, 0);
	ASSERT_LE(0, fd);
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_EQ(0, map_update(array, cpu, &fd));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pt_fault_pages(7);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));
	ASSERT_EQ(0, pt_read3(fd, &v));
	ASSERT_LE(7, v.value);

	/* stopped: the program reads exactly what read() did */
	EXPECT_EQ(0, read_through_bpf(self->counts, array,
				      BPF_F_CURRENT_CPU));
	EXPECT_EQ(v.value, slot(self->counts, 1));
	EXPECT_EQ(v.enabled, slot(self->counts, 2));
	EXPECT_EQ(v.running, slot(self->counts, 3));
	EXPECT_LT(0, slot(self->counts, 3));
	EXPECT_EQ(v.value, slot(self->counts, 4));
	close(fd);
	close(array);
}

TEST_F(bpf, perf_event_read_errnos)
{
	int array, fd, other, cpu, ncpus = pt_nr_cpus();
	struct perf_event_attr attr;

	array = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, ncpus + 1);
	ASSERT_LE(0, array);
	/* an empty slot */
	EXPECT_EQ(-ENOENT, read_through_bpf(self->counts, array,
					    BPF_F_CURRENT_CPU));
	/* past the end */
	EXPECT_EQ(-E2BIG, read_through_bpf(self->counts, array, ncpus + 1));
	/* flags beyond the index */
	EXPECT_EQ(-EINVAL, read_through_bpf(self->counts, array,
					    1ULL << 32));
	/*
	 * an inherited event cannot be read there (its children count
	 * elsewhere): refused at update with read_local's errno
	 */
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_PAGE_FAULTS;
	attr.inherit = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, map_update(array, 0, &fd));
	EXPECT_EQ(EOPNOTSUPP, errno);
	close(fd);
	/* not a perf event */
	EXPECT_EQ(-1, map_update(array, 0, &self->counts));
	EXPECT_EQ(EBADF, errno);

	/* an event of another task */
	other = fork();
	ASSERT_LE(0, other);
	if (!other) {
		pause();
		_exit(0);
	}
	attr.inherit = 0;
	fd = sys_perf_event_open(&attr, other, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	for (cpu = 0; cpu < ncpus; cpu++)
		ASSERT_EQ(0, map_update(array, cpu, &fd));
	EXPECT_EQ(-EINVAL, read_through_bpf(self->counts, array,
					    BPF_F_CURRENT_CPU));
	close(fd);
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);

	/* a CPU-wide event of another CPU */
	if (ncpus > 1) {
		pt_pin_cpu(0, 0);
		fd = sys_perf_event_open(&attr, -1, 1, -1,
					 PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, map_update(array, 0, &fd));
		EXPECT_EQ(-EINVAL, read_through_bpf(self->counts, array, 0));
		/* and this CPU's own */
		close(fd);
		fd = sys_perf_event_open(&attr, -1, 0, -1,
					 PERF_FLAG_FD_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, map_update(array, 0, &fd));
		EXPECT_EQ(0, read_through_bpf(self->counts, array, 0));
		close(fd);
	}
	close(array);
}

#define TEST_PMU_KO	"/tests/modules/perf_test_pmu.ko"
#define TEST_PMU_DEV	"/sys/bus/event_source/devices/"

/* the test module's PMU @name (device_pmu.c): its type, or -1 */
static int test_pmu_type(const char *name)
{
	char path[128];
	long long type;
	int fd;

	fd = open(TEST_PMU_KO, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST) {
		close(fd);
		return -1;
	}
	close(fd);
	snprintf(path, sizeof(path), TEST_PMU_DEV "%s/type", name);
	return pt_read_int_file(path, &type) ? -1 : (int)type;
}

/* the test PMU's "cpu" event (config 1: reads as 1 + the reading CPU) */
static int open_test_pmu(int type, int cpu)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = 1;
	return sys_perf_event_open(&attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

/*
 * An event of a scoped PMU bound to another CPU of this CPU's domain
 * reads here (the counter is the domain's), as in 6.12: BPF reads a
 * package's RAPL event from any CPU of the package that way. The test
 * module's system-wide PMU: its event on CPU 1 reads on CPU 0 as CPU 0's
 * count, 1; the module's PMU without a scope is EINVAL there.
 */
TEST_F(bpf, perf_event_read_of_a_scoped_event_of_another_cpu)
{
	int array, sys, mig, fd;

	if (pt_nr_cpus() < 2)
		SKIP(return, "one CPU");
	sys = test_pmu_type("perf_test_sys");
	mig = test_pmu_type("perf_test_mig");
	if (sys < 0 || mig < 0)
		SKIP(return, "no test module (" TEST_PMU_KO ")");
	array = map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, 4, 4, 2);
	ASSERT_LE(0, array);
	ASSERT_EQ(0, pt_pin_cpu(0, 0));

	fd = open_test_pmu(sys, 1);
	ASSERT_LE(0, fd) TH_LOG("perf_test_sys on CPU 1: %s", strerror(errno));
	ASSERT_EQ(0, map_update(array, 0, &fd));
	EXPECT_EQ(0, read_through_bpf(self->counts, array, 0));
	EXPECT_EQ(1, slot(self->counts, 1));
	EXPECT_LT(0, slot(self->counts, 2));
	EXPECT_EQ(slot(self->counts, 2), slot(self->counts, 3));
	EXPECT_EQ(1, slot(self->counts, 4));
	close(fd);

	fd = open_test_pmu(mig, 1);
	ASSERT_LE(0, fd) TH_LOG("perf_test_mig on CPU 1: %s", strerror(errno));
	ASSERT_EQ(0, map_update(array, 1, &fd));
	EXPECT_EQ(-EINVAL, read_through_bpf(self->counts, array, 1));
	close(fd);
	close(array);
	syscall(SYS_delete_module, "perf_test_pmu", O_NONBLOCK);
}

/* ---- stacks ---------------------------------------------------------- */

/*
 * With the program's context in R6: bpf_get_stackid(ctx, @stacks,
 * @stackid_flags) into counts[0], bpf_get_stack() of the user stack into
 * 64 bytes of the program's stack, its return into counts[1] and the
 * first entry into counts[2]
 */
static void emit_stack_calls(struct prog *p, int stacks, int counts,
			     __s32 stackid_flags)
{
	mov_reg(p, R1, R6);
	ld_map(p, R2, stacks);
	mov_imm(p, R3, stackid_flags);
	call(p, BPF_FUNC_get_stackid);
	mov_reg(p, R7, R0);
	store(p, counts, 0, R7);
	mov_reg(p, R1, R6);
	mov_reg(p, R2, R10);
	add_imm(p, R2, -64);
	mov_imm(p, R3, 64);
	mov_imm(p, R4, BPF_F_USER_STACK);
	call(p, BPF_FUNC_get_stack);
	mov_reg(p, R7, R0);
	store(p, counts, 1, R7);
	ldx64(p, R7, R10, -64);
	store(p, counts, 2, R7);
}

/*
 * A static tracepoint's program (signal_generate, in kill()) takes the
 * kernel stack with bpf_get_stackid() (counts[0]) and the user stack
 * with bpf_get_stack() (counts[1] its return, counts[2] the first
 * address). The registers are the tracepoint's, in the kernel.
 */
TEST_F(bpf, stack_helpers_walk_perf_callchains)
{
	struct prog p = { .n = 0 };
	__u64 ips[127];
	int stacks, tp, prog, other;
	__u32 id;

	stacks = map_create(BPF_MAP_TYPE_STACK_TRACE, 4, sizeof(ips), 16);
	ASSERT_LE(0, stacks) TH_LOG("stack map: %s", strerror(errno));
	other = only_us(&p);
	emit_stack_calls(&p, stacks, self->counts, 0);
	land(&p, other);
	ret(&p, 1);
	prog = prog_load(BPF_PROG_TYPE_TRACEPOINT, &p);
	ASSERT_LE(0, prog) TH_LOG("load: %s", strerror(errno));

	tp = open_tp(TP_SIGNAL, 0);
	ASSERT_LE(0, tp);
	ASSERT_EQ(0, ioctl(tp, PERF_EVENT_IOC_SET_BPF, prog));
	kill(getpid(), SIGUSR1);

	id = slot(self->counts, 0);
	ASSERT_GT(16, id) TH_LOG("stackid %lld", (long long)slot(self->counts, 0));
	memset(ips, 0, sizeof(ips));
	ASSERT_EQ(0, map_lookup(stacks, &id, ips));
	/* kernel addresses, no context markers */
	EXPECT_LE(0xffff800000000000ULL, ips[0]);
	EXPECT_GT((__u64)-4096, ips[0]);
	/* the user stack starts in this program's text */
	EXPECT_LE(8, (long long)slot(self->counts, 1));
	EXPECT_EQ(0, (long long)slot(self->counts, 1) % 8);
	EXPECT_NE(0, slot(self->counts, 2));
	EXPECT_GT(0x800000000000ULL, slot(self->counts, 2));
	close(tp);
	close(prog);
	close(stacks);
}

/*
 * A PERF_EVENT program on page faults sampled with PERF_SAMPLE_CALLCHAIN:
 * bpf_get_stackid() takes the user part of the sample's own callchain
 * (made for the program before it runs; without it the helper fails
 * with EFAULT), counts[0] its id for the last fault; bpf_get_stack()
 * copies it, counts[1] the bytes and counts[2] the first entry. The
 * faults come from user mode, so the kernel part is empty, as the
 * records show; the verdict 1 keeps each sample.
 */
TEST_F(bpf, perf_event_program_reads_the_sample_callchain)
{
	struct prog p = { .n = 0 };
	struct perf_event_attr attr;
	struct perf_event_header *h;
	__u64 ips[127];
	int stacks, fd, prog, n = 0;
	struct pt_recs r;
	struct pt_rb rb;
	__u32 id;

	stacks = map_create(BPF_MAP_TYPE_STACK_TRACE, 4, sizeof(ips), 16);
	ASSERT_LE(0, stacks) TH_LOG("stack map: %s", strerror(errno));
	mov_reg(&p, R6, R1);
	emit_stack_calls(&p, stacks, self->counts, BPF_F_USER_STACK);
	ret(&p, 1);
	prog = prog_load(BPF_PROG_TYPE_PERF_EVENT, &p);
	ASSERT_LE(0, prog) TH_LOG("load: %s\n%s", strerror(errno),
				   verifier_log);

	fd = open_sw(PERF_COUNT_SW_PAGE_FAULTS, 1,
		     PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 16));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog))
		TH_LOG("SET_BPF: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_ENABLE, 0));
	pt_fault_pages(8);
	ASSERT_EQ(0, ioctl(fd, PERF_EVENT_IOC_DISABLE, 0));

	id = slot(self->counts, 0);
	ASSERT_GT(16, id) TH_LOG("stackid %lld", (long long)slot(self->counts, 0));
	memset(ips, 0, sizeof(ips));
	ASSERT_EQ(0, map_lookup(stacks, &id, ips));
	/*
	 * the helpers skip the kernel part, which ends at the user marker:
	 * the marker, then where this program faulted
	 */
	EXPECT_EQ((__u64)PERF_CONTEXT_USER, ips[0]);
	EXPECT_NE(0, ips[1]);
	EXPECT_GT(0x800000000000ULL, ips[1]);
	/* bpf_get_stack() copied whole entries, the same first one */
	EXPECT_LE(16, (long long)slot(self->counts, 1));
	EXPECT_EQ(0, (long long)slot(self->counts, 1) % 8);
	EXPECT_EQ((__u64)PERF_CONTEXT_USER, slot(self->counts, 2));

	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	memset(&attr, 0, sizeof(attr));
	attr.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_CALLCHAIN;
	pt_recs_for_each(h, &r, PERF_RECORD_SAMPLE) {
		struct pt_sample s;

		ASSERT_EQ(h->size - 8, pt_sample_parse(&attr, h, &s));
		EXPECT_LE(2, s.nr_chain);
		EXPECT_EQ((__u64)PERF_CONTEXT_USER, s.chain[0]);
		n++;
	}
	EXPECT_LE(8, n);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
	close(prog);
	close(stacks);
}

/* ---- records of programs --------------------------------------------- */

struct ksymbol_rec {
	struct perf_event_header h;
	__u64 addr;
	__u32 len;
	__u16 ksym_type;
	__u16 flags;
	char name[];
};

struct bpf_event_rec {
	struct perf_event_header h;
	__u16 type;
	__u16 flags;
	__u32 id;
	__u8 tag[BPF_TAG_SIZE];
};

TEST_F(bpf, load_and_unload_write_ksymbol_and_bpf_event_records)
{
	struct perf_event_attr attr;
	struct perf_event_header *h;
	struct bpf_prog_info info;
	__u64 jited_ksym = 0;
	__u32 jited_len = 0;
	int fd, prog, kload = 0, kunload = 0, bload = 0, bunload = 0;
	char tag_hex[2 * BPF_TAG_SIZE + 1];
	struct pt_recs r;
	struct pt_rb rb;
	__u32 id;
	int i;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.ksymbol = 1;
	attr.bpf_event = 1;
	fd = sys_perf_event_open(&attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, pt_rb_map(&rb, fd, 16));

	prog = load_counter(BPF_PROG_TYPE_TRACEPOINT, self->counts, 1);
	ASSERT_LE(0, prog);
	memset(&info, 0, sizeof(info));
	info.nr_jited_ksyms = 1;
	info.jited_ksyms = (__u64)(unsigned long)&jited_ksym;
	info.nr_jited_func_lens = 1;
	info.jited_func_lens = (__u64)(unsigned long)&jited_len;
	ASSERT_EQ(0, obj_info(prog, &info, sizeof(info)));
	id = info.id;
	for (i = 0; i < BPF_TAG_SIZE; i++)
		sprintf(tag_hex + 2 * i, "%02x", info.tag[i]);
	close(prog);

	ASSERT_EQ(0, pt_rb_drain(&rb, &r));
	EXPECT_EQ(0, r.bad);
	pt_recs_for_each(h, &r, 0) {
		if (h->type == PERF_RECORD_KSYMBOL) {
			struct ksymbol_rec *k = (void *)h;

			if (k->addr != jited_ksym)
				continue;
			EXPECT_EQ(PERF_RECORD_KSYMBOL_TYPE_BPF, k->ksym_type);
			EXPECT_EQ(jited_len, k->len);
			EXPECT_EQ(0, strncmp(k->name, "bpf_prog_", 9));
			EXPECT_NE(NULL, strstr(k->name, tag_hex))
				TH_LOG("%s, tag %s", k->name, tag_hex);
			if (k->flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER)
				kunload++;
			else
				kload++;
		} else if (h->type == PERF_RECORD_BPF_EVENT) {
			struct bpf_event_rec *b = (void *)h;

			if (b->id != id)
				continue;
			EXPECT_EQ(0, memcmp(b->tag, info.tag, BPF_TAG_SIZE));
			EXPECT_EQ(0, b->flags);
			if (b->type == PERF_BPF_EVENT_PROG_LOAD) {
				/* after the program's symbol */
				EXPECT_EQ(1, kload);
				bload++;
			} else if (b->type == PERF_BPF_EVENT_PROG_UNLOAD) {
				EXPECT_EQ(1, kunload);
				bunload++;
			}
		}
	}
	EXPECT_NE(0, jited_ksym) TH_LOG("the program was not JIT-compiled");
	EXPECT_EQ(1, kload);
	EXPECT_EQ(1, kunload);
	EXPECT_EQ(1, bload);
	EXPECT_EQ(1, bunload);
	pt_recs_free(&r);
	pt_rb_unmap(&rb);
	close(fd);
}

TEST_HARNESS_MAIN
