// SPDX-License-Identifier: GPL-2.0
/*
 * perf_fuzz: random perf_event_open(2) attrs, two ways.
 *
 *   perf_fuzz diff SEED N
 *	N attrs from SEED, the same on every kernel: prints one line per
 *	attr with what the kernel answered (open's errno; for an open
 *	event the read size, mmap, ioctl and first-sample answers). Run on
 *	two kernels, the outputs must be identical (scripts/fuzz/perf-diff.sh).
 *
 *   perf_fuzz show SEED I
 *	The attr (and pid, cpu, group, flags) of line I of "diff SEED N".
 *
 *   perf_fuzz fuzz SEED SECONDS [WORKERS]
 *	WORKERS processes (default 4) that open mostly-valid random events
 *	(groups, inheritance, sampling into buffers, SET_OUTPUT, ioctls,
 *	breakpoints, tracepoints, kprobes, hardware events; as root also
 *	cgroup events of a few nested cgroups, which the root workers move
 *	in and out of) and close, map, unmap, read, fork, exec and prctl at
 *	random, with CPU hotplug churn when run as root. Anything wrong shows as a kernel report on the
 *	console, which the harness (scripts/fuzz/fuzz.sh) looks for.
 *
 *   perf_fuzz cycles N
 *	N rounds of open, mmap, munmap, close (for kmemleak).
 *
 *   perf_fuzz
 *	make test's short run: 90 s of fuzz on 2+ CPUs (skipped on one).
 */
#include "perf_test.h"

#include <asm/perf_regs.h>
#include <dirent.h>
#include <linux/hw_breakpoint.h>
#include <signal.h>
#include <sys/wait.h>

static __u64 rng_state;

static __u64 rnd(void)
{
	/* xorshift64*: the same sequence on every machine */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

static unsigned int rn(unsigned int n)
{
	return n ? (unsigned int)(rnd() % n) : 0;
}

/* true with probability pct/100 */
static int chance(unsigned int pct)
{
	return rn(100) < pct;
}

static int watched_var[4];

/*
 * The PMUs in /sys/bus/event_source/devices beyond the fixed types
 * (cpu on the PMU model, ibs_op, uncore, power, msr, cstate_*, ...),
 * in name order so that every kernel with the same PMUs draws the same
 * attrs, each with the configs of its events/ files, built through its
 * format/ fields, and the mask of all config bits its format names.
 */
#define MAX_PMUS	48
#define MAX_PMU_CFGS	48

struct fuzz_pmu {
	char name[40];
	__u32 type;
	int nr_cfgs;
	__u64 cfg[MAX_PMU_CFGS][3];	/* config, config1, config2 */
	__u64 mask[3];
};

static struct fuzz_pmu pmus[MAX_PMUS];
static int nr_pmus;
static unsigned long long nr_pmu_opened[MAX_PMUS];

/* format/<term> as "config1:0-7,32-35": where the term's value goes */
static int pmu_term_place(const char *dir, const char *term, __u64 val,
			  __u64 cfg[3], __u64 mask[3])
{
	char path[1024], buf[128], *p, *tok;
	int which, lo, hi, bit = 0, b;

	snprintf(path, sizeof(path), "%s/format/%s", dir, term);
	if (pt_read_file(path, buf, sizeof(buf)))
		return -1;
	p = strchr(buf, ':');
	if (!p)
		return -1;
	*p++ = 0;
	if (!strcmp(buf, "config"))
		which = 0;
	else if (!strcmp(buf, "config1"))
		which = 1;
	else if (!strcmp(buf, "config2"))
		which = 2;
	else
		return -1;
	for (tok = strtok(p, ",\n"); tok; tok = strtok(NULL, ",\n")) {
		if (sscanf(tok, "%d-%d", &lo, &hi) != 2)
			hi = lo = atoi(tok);
		for (b = lo; b <= hi && b < 64; b++, bit++) {
			mask[which] |= 1ULL << b;
			if (cfg && bit < 64 && (val >> bit & 1))
				cfg[which] |= 1ULL << b;
		}
	}
	return 0;
}

static void pmu_load_events(struct fuzz_pmu *pmu, const char *dir)
{
	char path[1024], buf[256], *tok, *eq, *save;
	struct dirent **ev;
	__u64 cfg[3];
	int i, n;

	snprintf(path, sizeof(path), "%s/events", dir);
	n = scandir(path, &ev, NULL, alphasort);
	for (i = 0; i < n; i++) {
		if (ev[i]->d_name[0] != '.' && !strchr(ev[i]->d_name, '.') &&
		    pmu->nr_cfgs < MAX_PMU_CFGS) {
			snprintf(path, sizeof(path), "%s/events/%s", dir,
				 ev[i]->d_name);
			memset(cfg, 0, sizeof(cfg));
			if (!pt_read_file(path, buf, sizeof(buf))) {
				for (tok = strtok_r(buf, ",\n", &save); tok;
				     tok = strtok_r(NULL, ",\n", &save)) {
					eq = strchr(tok, '=');
					if (eq)
						*eq++ = 0;
					pmu_term_place(dir, tok,
						       eq ? strtoull(eq, NULL, 0) : 1,
						       cfg, pmu->mask);
				}
				memcpy(pmu->cfg[pmu->nr_cfgs++], cfg, sizeof(cfg));
			}
		}
		free(ev[i]);
	}
	if (n > 0)
		free(ev);
}

static void pmus_load(void)
{
	static const char root[] = "/sys/bus/event_source/devices";
	char dir[320], path[1024];
	struct dirent **d, **f;
	long long type;
	int i, j, n, nf;

	n = scandir(root, &d, NULL, alphasort);
	for (i = 0; i < n; i++) {
		struct fuzz_pmu *pmu = &pmus[nr_pmus];

		snprintf(dir, sizeof(dir), "%s/%s", root, d[i]->d_name);
		snprintf(path, sizeof(path), "%s/type", dir);
		if (d[i]->d_name[0] != '.' && nr_pmus < MAX_PMUS &&
		    !pt_read_int_file(path, &type) &&
		    type != PERF_TYPE_SOFTWARE && type != PERF_TYPE_BREAKPOINT &&
		    type != PERF_TYPE_TRACEPOINT) {
			memset(pmu, 0, sizeof(*pmu));
			snprintf(pmu->name, sizeof(pmu->name), "%.39s",
				 d[i]->d_name);
			pmu->type = type;
			/* every format field's bits, for random configs */
			snprintf(path, sizeof(path), "%s/format", dir);
			nf = scandir(path, &f, NULL, alphasort);
			for (j = 0; j < nf; j++) {
				if (f[j]->d_name[0] != '.')
					pmu_term_place(dir, f[j]->d_name, 0,
						       NULL, pmu->mask);
				free(f[j]);
			}
			if (nf > 0)
				free(f);
			pmu_load_events(pmu, dir);
			nr_pmus++;
		}
		free(d[i]);
	}
	if (n > 0)
		free(d);
}

static int last_pmu = -1;

/* an attr for one of the sysfs PMUs: a listed event, or random format bits */
static void gen_pmu_event(struct perf_event_attr *a)
{
	struct fuzz_pmu *pmu;
	int i = rn(nr_pmus);

	pmu = &pmus[i];
	last_pmu = i;
	a->type = pmu->type;
	if (pmu->nr_cfgs && chance(70)) {
		__u64 *cfg = pmu->cfg[rn(pmu->nr_cfgs)];

		a->config = cfg[0];
		a->config1 = cfg[1];
		a->config2 = cfg[2];
	} else {
		a->config = rnd() & (chance(90) ? pmu->mask[0] : ~0ULL);
		/*
		 * a few bits only, now and then: a PMU that refuses the
		 * terms its CPU lacks (intel_pt's) opens with few set
		 */
		if (chance(40))
			a->config &= rnd() & rnd() & rnd() & rnd();
		a->config1 = rnd() & pmu->mask[1];
		a->config2 = rnd() & pmu->mask[2];
	}
}

static __u32 attr_size(void)
{
	static const __u32 sizes[] = { 64, 72, 80, 96, 104, 112, 120, 128, 136 };

	if (chance(80))
		return sizeof(struct perf_event_attr);
	if (chance(70))
		return sizes[rn(9)];
	return rn(300);
}

static void gen_breakpoint(struct perf_event_attr *a)
{
	static const __u32 types[] = { HW_BREAKPOINT_R, HW_BREAKPOINT_W,
				       HW_BREAKPOINT_RW, HW_BREAKPOINT_X, 0, 7 };
	static const __u64 lens[] = { 1, 2, 4, 8, 3, 16 };

	a->type = PERF_TYPE_BREAKPOINT;
	a->bp_type = types[rn(6)];
	a->bp_len = lens[rn(6)];
	if (a->bp_type == HW_BREAKPOINT_X && chance(80))
		a->bp_len = sizeof(long);
	a->bp_addr = chance(85) ? (unsigned long)&watched_var[rn(4)] :
		     chance(50) ? 0xffffffff81000000ULL : rnd();
	if (a->bp_type == HW_BREAKPOINT_X)
		a->bp_addr = (unsigned long)&rnd;
}

/* A random attr, mostly valid for a user at paranoid 2. */
static void gen_attr(struct perf_event_attr *a, int for_fuzz)
{
	__u64 bits;

	memset(a, 0, sizeof(*a));
	a->size = attr_size();
	last_pmu = -1;
	/* the PMUs of the machine (more of them on the PMU model) */
	if (nr_pmus && chance(for_fuzz ? 30 : 15)) {
		gen_pmu_event(a);
		goto flags;
	}
	switch (rn(20)) {
	case 0 ... 8:
		a->type = PERF_TYPE_SOFTWARE;
		a->config = chance(95) ? rn(12) : rnd();
		break;
	case 9 ... 11:
		gen_breakpoint(a);
		break;
	case 12 ... 13:
		a->type = PERF_TYPE_HARDWARE;
		a->config = chance(90) ? rn(10) : rnd();
		break;
	case 14:
		a->type = PERF_TYPE_HW_CACHE;
		a->config = rn(7) | rn(3) << 8 | rn(2) << 16;
		break;
	case 15:
		a->type = PERF_TYPE_RAW;
		a->config = chance(50) ? 0xc0 : rnd() & 0xffffffff;
		break;
	case 16:
		a->type = PERF_TYPE_TRACEPOINT;
		a->config = rn(2000);
		break;
	case 17:
		a->type = PERF_TYPE_MAX + rn(12);
		a->config = rn(16);
		break;
	default:
		a->type = rnd();
		a->config = rnd();
		break;
	}
	if (for_fuzz && a->type == PERF_TYPE_SOFTWARE && chance(30))
		a->config = PERF_COUNT_SW_TASK_CLOCK;
flags:

	a->disabled = chance(50);
	a->inherit = chance(25);
	a->pinned = chance(8);
	a->exclusive = chance(5);
	a->exclude_user = chance(10);
	a->exclude_kernel = chance(80);
	a->exclude_hv = chance(80);
	a->exclude_idle = chance(5);
	a->mmap = chance(15);
	a->comm = chance(15);
	a->freq = chance(15);
	a->inherit_stat = chance(10);
	a->enable_on_exec = chance(10);
	a->task = chance(10);
	a->watermark = chance(10);
	a->precise_ip = chance(10) ? rn(4) : 0;
	a->mmap_data = chance(5);
	a->sample_id_all = chance(40);
	a->exclude_host = chance(5);
	a->exclude_guest = chance(5);
	a->exclude_callchain_kernel = chance(40);
	a->exclude_callchain_user = chance(10);
	a->mmap2 = chance(10);
	a->comm_exec = chance(10);
	a->use_clockid = chance(10);
	a->context_switch = chance(10);
	a->write_backward = chance(5);
	a->namespaces = chance(3);
	a->ksymbol = chance(5);
	a->bpf_event = chance(3);
	a->aux_output = chance(2);
	a->cgroup = chance(2);
	a->text_poke = chance(2);
	a->build_id = chance(3);
	a->inherit_thread = chance(5);
	a->remove_on_exec = chance(10);
	a->sigtrap = chance(4);
	if (chance(2))
		a->__reserved_1 = rnd();

	if (a->freq)
		a->sample_freq = chance(80) ? 1 + rn(5000) : rnd();
	else if (chance(50))
		a->sample_period = chance(60) ? 1 + rn(5) :
				   chance(50) ? 1 + rn(100000) : rnd();

	bits = rnd() & ((PERF_SAMPLE_WEIGHT_STRUCT << 1) - 1);
	if (chance(70))
		bits &= PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_ADDR | PERF_SAMPLE_READ |
			PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_ID |
			PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD |
			PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_RAW |
			PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_REGS_USER |
			PERF_SAMPLE_STACK_USER | PERF_SAMPLE_DATA_SRC |
			PERF_SAMPLE_WEIGHT | PERF_SAMPLE_PHYS_ADDR |
			PERF_SAMPLE_DATA_PAGE_SIZE | PERF_SAMPLE_CODE_PAGE_SIZE;
	if (chance(3))
		bits |= 1ULL << (24 + rn(40));
	a->sample_type = bits;
	a->read_format = rnd() & 31;
	if (chance(3))
		a->read_format |= 1ULL << (5 + rn(59));
	a->wakeup_events = chance(70) ? rn(4) : rnd();
	if (last_pmu < 0) {
		a->config1 = chance(90) ? 0 : rnd();
		a->config2 = chance(90) ? 0 : rnd();
	}
	if (chance(20))
		a->branch_sample_type = rnd() & ((1ULL << 20) - 1);
	if (chance(10))
		a->sample_type |= PERF_SAMPLE_BRANCH_STACK;
	if (chance(20))
		a->sample_regs_user = chance(70) ? rnd() & 0xff0fffULL :
				      rnd();
	if (chance(20))
		a->sample_regs_intr = chance(70) ? rnd() & 0xff0fffULL :
				      rnd();
	/* the XMM registers (PERF_REG_X86_XMM0 = 32 on): PEBS records them */
	if (chance(8))
		a->sample_regs_intr |= rnd() & ~0ULL << 32;
	if (chance(3))
		a->sample_regs_user |= rnd() & ~0ULL << 32;
	if (chance(20))
		a->sample_stack_user = chance(70) ? rn(8192) & ~7U : rnd();
	a->clockid = chance(80) ? rn(12) : rnd();
	if (chance(20))
		a->sample_max_stack = rn(200);
	if (chance(3))
		a->aux_watermark = rnd();
	if (chance(3))
		a->aux_sample_size = rn(1 << 16);
	if (chance(3))
		a->aux_action = rnd();
	a->sig_data = rnd();
	if (chance(3))
		a->config3 = rnd();
}

/* ---- diff mode ---------------------------------------------------------- */

static int diff_fds[16];
static int nr_diff_fds;

static void close_all(void)
{
	while (nr_diff_fds)
		close(diff_fds[--nr_diff_fds]);
}

/*
 * One touch of a fresh page: a page-fault sampling event sees exactly
 * one fault; its record size is printed when nothing in it varies
 * between kernels (callchains, stacks, raw data, branch stacks do).
 */
static void sample_once(int fd, struct perf_event_attr *a, char *out, size_t n)
{
	__u64 varies = PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_STACK_USER |
		       PERF_SAMPLE_RAW | PERF_SAMPLE_BRANCH_STACK;
	struct perf_event_header *h;
	struct pt_rb rb;
	struct pt_recs r;
	int err;

	err = pt_rb_map(&rb, fd, 1);
	if (err) {
		snprintf(out, n, " mmap=%d", -err);
		return;
	}
	if (a->type != PERF_TYPE_SOFTWARE ||
	    a->config != PERF_COUNT_SW_PAGE_FAULTS || a->freq ||
	    a->sample_period != 1 || a->exclude_user || a->disabled ||
	    a->enable_on_exec || (a->sample_type & varies)) {
		snprintf(out, n, " mmap=0");
		pt_rb_unmap(&rb);
		return;
	}
	pt_fault_pages(1);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (pt_rb_drain(&rb, &r)) {
		snprintf(out, n, " mmap=0 drain=bad");
	} else {
		h = pt_recs_next(&r, NULL, PERF_RECORD_SAMPLE);
		snprintf(out, n, " mmap=0 sample=%d", h ? h->size : -1);
		pt_recs_free(&r);
	}
	pt_rb_unmap(&rb);
}

/* perf_fuzz show SEED I: print attr I of SEED instead of opening it */
static int show = -1;

static void gen_target(struct perf_event_attr *a, pid_t *pid, int *cpu,
		       int *group, unsigned long *flags)
{
	int want;

	gen_attr(a, 0);
	*pid = chance(75) ? 0 : chance(70) ? -1 : 1;
	*cpu = *pid == -1 ? (chance(90) ? 0 : (int)rn(200) - 1) :
	       chance(80) ? -1 : (int)rn(3);
	want = chance(30);
	*group = rn(16);
	if (!want)
		*group = -1;
	*flags = chance(90) ? PERF_FLAG_FD_CLOEXEC :
		 chance(60) ? rn(16) : rnd();
}

static void print_attr(struct perf_event_attr *a, pid_t pid, int cpu,
		       int group, unsigned long flags)
{
	const __u64 *w = (const __u64 *)a;
	unsigned int i;

	printf("pid %d cpu %d group(slot) %d flags %#lx\n", pid, cpu, group,
	       flags);
	printf("type %u size %u config %#llx\n", a->type, a->size,
	       (unsigned long long)a->config);
	/* the rest as raw words, named by offset */
	for (i = 0; i < sizeof(*a) / 8; i++)
		printf("  +%3u %#018llx\n", i * 8, (unsigned long long)w[i]);
}

static void diff_one(int i)
{
	/* zero past the struct: a larger size reads a zero tail */
	union pt_attr_buf ab = { };
	struct perf_event_attr a;
	char sample[64] = "";
	unsigned long flags;
	int fd, cpu, group = -1, want_group, ret;
	pid_t pid;
	__u64 buf[512], id;

	if (nr_diff_fds >= 14)
		close_all();
	/* as many random numbers whatever the kernel answers */
	gen_target(&a, &pid, &cpu, &want_group, &flags);
	if (show >= 0) {
		if (i == show)
			print_attr(&a, pid, cpu, want_group, flags);
		return;
	}
	/*
	 * A group gets a fresh leader of its own (one of a few kinds), so
	 * that one kernel's different answer to an earlier attr cannot
	 * change what later ones are asked.
	 */
	if (want_group >= 0) {
		struct perf_event_attr l;

		pt_attr_sw(&l, want_group & 1 ? PERF_COUNT_SW_DUMMY :
			   PERF_COUNT_SW_TASK_CLOCK);
		l.read_format = want_group & 2 ? PERF_FORMAT_GROUP |
						  PERF_FORMAT_ID : 0;
		l.inherit = !!(want_group & 4);
		l.pinned = !!(want_group & 8);
		group = sys_perf_event_open(&l, pid, cpu, -1,
					    PERF_FLAG_FD_CLOEXEC);
		if (group < 0) {
			printf("%d leader=%d\n", i, errno);
			return;
		}
		diff_fds[nr_diff_fds++] = group;
	}

	ab.attr = a;
	fd = sys_perf_event_open(&ab, pid, cpu, group, flags);
	if (fd < 0) {
		printf("%d open=%d\n", i, errno);
		return;
	}
	ret = read(fd, buf, sizeof(buf));
	printf("%d open=ok read=%d", i, ret < 0 ? -errno : ret);
	ret = ioctl(fd, PERF_EVENT_IOC_ID, &id);
	printf(" id=%d", ret < 0 ? errno : 0);
	ret = ioctl(fd, PERF_EVENT_IOC_PERIOD, &(__u64){ i % 3 });
	printf(" period=%d", ret < 0 ? errno : 0);
	ret = ioctl(fd, PERF_EVENT_IOC_SET_FILTER, "common_pid == 1");
	printf(" filter=%d", ret < 0 ? errno : 0);
	ret = ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 1);
	printf(" pause=%d", ret < 0 ? errno : 0);
	ret = ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, 0);
	if (pid == 0 && cpu == -1 && !a.inherit)
		sample_once(fd, &a, sample, sizeof(sample));
	printf("%s\n", sample);
	diff_fds[nr_diff_fds++] = fd;
}

static int diff_main(__u64 seed, int n)
{
	int i;

	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	setvbuf(stdout, NULL, _IOLBF, 0);
	pmus_load();
	for (i = 0; i < n; i++)
		diff_one(i);
	close_all();
	return 0;
}

/* ---- fuzz mode ---------------------------------------------------------- */

#define MAX_FDS		64
#define MAX_MAPS	16

struct map {
	void *addr;
	size_t len;
};

static int fds[MAX_FDS];
static struct map maps[MAX_MAPS];
static __u64 nr_ops, nr_opened, nr_cgroup_opened;

/*
 * Root: cgroup v2 directories for cgroup events (pf1 and pf2 under pf0,
 * so that a switch leaves and enters chains of ancestors); their fds
 * are opened before the workers fork
 */
#define CG_ROOT		PT_CGROUP_ROOT
static const char *const cg_dirs[] = {
	CG_ROOT "/pf0", CG_ROOT "/pf0/pf1", CG_ROOT "/pf0/pf2", CG_ROOT "/pf3",
};
#define NR_CG		(sizeof(cg_dirs) / sizeof(cg_dirs[0]))
static int cg_fds[NR_CG] = { -1, -1, -1, -1 };

static void cgroups_setup(void)
{
	unsigned int i;

	if (geteuid() || pt_cgroup_mount())
		return;
	for (i = 0; i < NR_CG; i++) {
		mkdir(cg_dirs[i], 0755);
		cg_fds[i] = open(cg_dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
}

static void cgroups_teardown(void)
{
	int i;

	for (i = NR_CG - 1; i >= 0; i--) {
		if (cg_fds[i] < 0)
			continue;
		close(cg_fds[i]);
		rmdir(cg_dirs[i]);
	}
}

/* a root worker moves itself to one of the cgroups, or back to the root */
static void op_cgroup_move(void)
{
	unsigned int i = rn(NR_CG + 1);

	if (geteuid() || cg_fds[0] < 0)
		return;
	pt_cgroup_enter(i < NR_CG ? cg_dirs[i] : CG_ROOT);
}

static int pick_fd(void)
{
	int i, n = 0, idx[MAX_FDS];

	for (i = 0; i < MAX_FDS; i++)
		if (fds[i] >= 0)
			idx[n++] = i;
	return n ? idx[rn(n)] : -1;
}

static void op_open(void)
{
	struct perf_event_attr a;
	int slot, group = -1, g, fd, cpu;
	unsigned long flags;
	pid_t pid = 0;

	for (slot = 0; slot < MAX_FDS && fds[slot] >= 0; slot++)
		;
	if (slot == MAX_FDS)
		return;
	gen_attr(&a, 1);
	/* mostly valid: fix the size, and drop what is rarely interesting */
	if (chance(85))
		a.size = sizeof(a);
	if (chance(80))
		a.aux_action = a.__reserved_1 = 0;
	if (chance(50))
		a.sigtrap = 0;
	g = pick_fd();
	if (g >= 0 && chance(40))
		group = fds[g];
	cpu = chance(70) ? -1 : rn(pt_nr_cpus());
	if (geteuid() == 0 && chance(15)) {
		pid = -1;
		if (cpu < 0)
			cpu = 0;
	}
	flags = chance(95) ? PERF_FLAG_FD_CLOEXEC : rn(16);
	if (geteuid() == 0 && cg_fds[0] >= 0 && chance(12)) {
		/* a cgroup event: a CPU's, watching a cgroup's fd */
		pid = cg_fds[rn(NR_CG)];
		if (cpu < 0)
			cpu = rn(pt_nr_cpus());
		flags |= PERF_FLAG_PID_CGROUP;
	}
	fd = sys_perf_event_open(&a, pid, cpu, group, flags);
	if (fd >= 0) {
		fds[slot] = fd;
		nr_opened++;
		if (flags & PERF_FLAG_PID_CGROUP)
			nr_cgroup_opened++;
		if (last_pmu >= 0)
			nr_pmu_opened[last_pmu]++;
	}
}

static void op_close(void)
{
	int i = pick_fd();

	if (i >= 0) {
		close(fds[i]);
		fds[i] = -1;
	}
}

static void op_mmap(void)
{
	int i = pick_fd(), m, prot;
	long ps = pt_page_size();
	size_t len;
	void *p;

	if (i < 0)
		return;
	for (m = 0; m < MAX_MAPS && maps[m].addr; m++)
		;
	if (m == MAX_MAPS)
		return;
	len = (1 + (chance(90) ? (1 << rn(5)) : rn(9))) * ps;
	prot = chance(80) ? PROT_READ | PROT_WRITE : PROT_READ;
	p = mmap(NULL, len, prot, MAP_SHARED, fds[i],
		 chance(95) ? 0 : ps * rn(4));
	if (p == MAP_FAILED)
		return;
	maps[m].addr = p;
	maps[m].len = len;
	/*
	 * and an AUX area behind the data pages (intel_bts, on the PMU
	 * model): its size a power of two pages or not, at the end of the
	 * data or elsewhere, read-write or read-only (overwrite)
	 */
	for (m = 0; m < MAX_MAPS && maps[m].addr; m++)
		;
	if (m == MAX_MAPS || !(prot & PROT_WRITE) || !chance(30))
		return;
	{
		struct perf_event_mmap_page *pc = p;
		size_t aux_len = (chance(90) ? (1 << rn(5)) : 1 + rn(9)) * ps;
		__u64 off = chance(90) ? len : ps * rn(40);

		pc->aux_offset = off;
		pc->aux_size = aux_len;
		p = mmap(NULL, aux_len,
			 chance(70) ? PROT_READ | PROT_WRITE : PROT_READ,
			 MAP_SHARED, fds[i], off);
		if (p != MAP_FAILED) {
			maps[m].addr = p;
			maps[m].len = aux_len;
		}
	}
}

static void op_munmap(void)
{
	int m = rn(MAX_MAPS);

	if (!maps[m].addr)
		return;
	if (chance(20)) {
		/* read the control page and the data as a reader would */
		volatile __u64 head = ((struct perf_event_mmap_page *)
				       maps[m].addr)->data_head;
		(void)head;
	}
	munmap(maps[m].addr, maps[m].len);
	maps[m].addr = NULL;
}

static const char *const set_filters[] = {
	"common_pid != 0",
	"garbage(",
	"",
	"filter 0x401000/0x1000@/proc/self/exe",
	"filter 0x1000/0x100@/proc/self/exe,stop 0x2000/0x10@/proc/self/exe",
	"stop 0x1000/0x100@/proc/self/exe",
	"start 0x1000@/proc/self/exe",
	"filter 0xffffffff81000000/0x1000000",
	"filter 0x1000/0x10 filter 0x2000/0x10 filter 0x3000/0x10",
	"filter 0x1000/0@/proc/self/exe",
	"filter 0x1000/0x10@/tmp",
	"filter 0x1000/0x10@/nonexistent",
	"filter 0xfffffffffffff000/0x2000@/proc/self/exe",
	"tracestop 0x1000/0x10",
};

static void op_ioctl(void)
{
	static const unsigned long reqs[] = {
		PERF_EVENT_IOC_ENABLE, PERF_EVENT_IOC_DISABLE,
		PERF_EVENT_IOC_REFRESH, PERF_EVENT_IOC_RESET,
		PERF_EVENT_IOC_PERIOD, PERF_EVENT_IOC_SET_OUTPUT,
		PERF_EVENT_IOC_SET_FILTER, PERF_EVENT_IOC_ID,
		PERF_EVENT_IOC_PAUSE_OUTPUT, PERF_EVENT_IOC_MODIFY_ATTRIBUTES,
		PERF_EVENT_IOC_QUERY_BPF, PERF_EVENT_IOC_SET_BPF,
	};
	int i = pick_fd(), j;
	unsigned long req;
	__u64 v = rn(4);
	struct perf_event_attr a;

	if (i < 0)
		return;
	req = reqs[rn(sizeof(reqs) / sizeof(reqs[0]))];
	switch (req) {
	case PERF_EVENT_IOC_SET_OUTPUT:
		j = pick_fd();
		ioctl(fds[i], req, chance(80) && j >= 0 ? fds[j] : -1);
		break;
	case PERF_EVENT_IOC_SET_FILTER:
		/* tracing filters, and address filters (intel_pt) */
		ioctl(fds[i], req, set_filters[rn(sizeof(set_filters) /
						  sizeof(set_filters[0]))]);
		break;
	case PERF_EVENT_IOC_PERIOD:
	case PERF_EVENT_IOC_ID:
		ioctl(fds[i], req, &v);
		break;
	case PERF_EVENT_IOC_MODIFY_ATTRIBUTES:
		gen_breakpoint(&a);
		a.size = sizeof(a);
		ioctl(fds[i], req, &a);
		break;
	default:
		ioctl(fds[i], req, chance(80) ? rn(3) : rnd());
		break;
	}
}

static void op_read(void)
{
	__u64 buf[256];
	int i = pick_fd();

	if (i >= 0 && read(fds[i], buf, chance(90) ? sizeof(buf) : rn(64)) < 0)
		return;
}

static void op_fork(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		pt_fault_pages(1 + rn(4));
		if (chance(30))
			execl("/proc/self/exe", "perf_fuzz", "--exit", NULL);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

static void op_misc(void)
{
	switch (rn(4)) {
	case 0:
		prctl(chance(50) ? PR_TASK_PERF_EVENTS_DISABLE :
		      PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0);
		break;
	case 1:
		watched_var[rn(4)]++;
		break;
	case 2:
		pt_fault_pages(1);
		break;
	default:
		if (chance(30))
			op_cgroup_move();
		sched_yield();
		break;
	}
}

/* the sigtrap events a worker opens on itself signal it: nothing to do */
static void on_sigtrap(int sig)
{
}

static void fuzz_worker(__u64 seed, int seconds)
{
	__u64 end = pt_now_ns() + (__u64)seconds * 1000000000ULL;
	int i;

	signal(SIGTRAP, on_sigtrap);

	rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
	for (i = 0; i < MAX_FDS; i++)
		fds[i] = -1;
	while (pt_now_ns() < end) {
		switch (rn(16)) {
		case 0 ... 4:
			op_open();
			break;
		case 5 ... 6:
			op_close();
			break;
		case 7 ... 8:
			op_mmap();
			break;
		case 9:
			op_munmap();
			break;
		case 10 ... 11:
			op_ioctl();
			break;
		case 12:
			op_read();
			break;
		case 13:
			if (chance(10))
				op_fork();
			break;
		default:
			op_misc();
			break;
		}
		nr_ops++;
	}
	printf("worker seed %llu: %llu ops, %llu events opened (%llu cgroup events)\n",
	       (unsigned long long)seed, (unsigned long long)nr_ops,
	       (unsigned long long)nr_opened,
	       (unsigned long long)nr_cgroup_opened);
	for (i = 0; i < nr_pmus; i++)
		if (nr_pmu_opened[i])
			printf("worker seed %llu: %llu %s events opened\n",
			       (unsigned long long)seed, nr_pmu_opened[i],
			       pmus[i].name);
	exit(0);
}

/* Root: take CPUs other than 0 offline and back, until told to stop. */
static void hotplug_churn(int seconds)
{
	__u64 end = pt_now_ns() + (__u64)seconds * 1000000000ULL;
	int ncpu = pt_nr_cpus(), n = 0;
	char path[64];

	while (pt_now_ns() < end && ncpu > 1) {
		int cpu = 1 + rn(ncpu - 1);

		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/online", cpu);
		if (!pt_write_file(path, "0")) {
			usleep(20000);
			pt_write_file(path, "1");
			n++;
		}
		usleep(50000);
	}
	printf("hotplug: %d offline/online cycles\n", n);
	exit(0);
}

static int fuzz_main(__u64 seed, int seconds, int workers)
{
	pid_t pids[64], hp = -1;
	int i, status, bad = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (workers > 64)
		workers = 64;
	pmus_load();
	cgroups_setup();
	printf("perf_fuzz: seed %llu, %d s, %d workers, %d sysfs PMUs\n",
	       (unsigned long long)seed, seconds, workers, nr_pmus);
	for (i = 0; i < workers; i++) {
		pids[i] = fork();
		if (pids[i] != 0)
			continue;
		/* half of them as a user at the default paranoia */
		if ((i & 1) && geteuid() == 0 && pt_drop_privs(1000, 1000))
			exit(3);
		fuzz_worker(seed + i, seconds);
	}
	if (geteuid() == 0) {
		hp = fork();
		if (hp == 0) {
			rng_state = seed;
			hotplug_churn(seconds);
		}
	}
	for (i = 0; i < workers; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("worker %d (seed %llu) ended badly: status %#x\n",
			       i, (unsigned long long)seed + i, status);
			bad = 1;
		}
	}
	if (hp > 0)
		waitpid(hp, NULL, 0);
	cgroups_teardown();
	printf("perf_fuzz: done\n");
	return bad;
}

/*
 * perf_fuzz cycles N: open, map, unmap and close N times (kmemleak and
 * refcount checks look at what is left afterwards).
 */
static int cycles_main(long n)
{
	long i, ps = pt_page_size(), bad = 0;
	int fd, fd2;
	void *p;

	for (i = 0; i < n; i++) {
		fd = pt_open_sw(i & 1 ? PERF_COUNT_SW_DUMMY :
				PERF_COUNT_SW_PAGE_FAULTS, -1, 0);
		fd2 = pt_open_sw(PERF_COUNT_SW_DUMMY, fd, 0);
		if (fd < 0 || fd2 < 0) {
			bad++;
			break;
		}
		p = mmap(NULL, (1 + (1 << (i & 3))) * ps,
			 PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED) {
			bad++;
		} else {
			if ((i & 7) == 0 &&
			    ioctl(fd2, PERF_EVENT_IOC_SET_OUTPUT, fd))
				bad++;
			munmap(p, (1 + (1 << (i & 3))) * ps);
		}
		close(fd2);
		close(fd);
	}
	printf("cycles: %ld, %ld failed\n", i, bad);
	return bad ? 1 : 0;
}

/*
 * No arguments (make test): 120 seconds of fuzz with 4 workers and
 * hotplug churn on two or more CPUs; a kselftest skip on one.
 * PERF_FUZZ_SECONDS in the environment (a kernel argument, which the
 * kernel passes to init) sets another length: make test's arm64 boot
 * fuzzes the same core for 60 seconds through the arm64 driver.
 */
static int in_test_main(void)
{
	const char *env = getenv("PERF_FUZZ_SECONDS");
	__u64 seed = pt_now_ns();
	int seconds = env ? atoi(env) : 120;

	if (pt_nr_cpus() < 2) {
		printf("perf_fuzz: skipped on one CPU\n");
		return 4;
	}
	return fuzz_main(seed, seconds > 0 ? seconds : 120, 4);
}

/* perf_test.h brings the kselftest harness, which this program does not use */
static int (*unused_harness)(int, char **) __attribute__((unused)) =
	test_harness_run;

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "--exit"))
		return 0;
	if (argc == 1)
		return in_test_main();
	if (argc == 3 && !strcmp(argv[1], "cycles"))
		return cycles_main(atol(argv[2]));
	if (argc == 4 && !strcmp(argv[1], "diff"))
		return diff_main(strtoull(argv[2], NULL, 0), atoi(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "show")) {
		show = atoi(argv[3]);
		return diff_main(strtoull(argv[2], NULL, 0), show + 1);
	}
	if ((argc == 4 || argc == 5) && !strcmp(argv[1], "fuzz"))
		return fuzz_main(strtoull(argv[2], NULL, 0), atoi(argv[3]),
				 argc == 5 ? atoi(argv[4]) : 4);
	fprintf(stderr, "usage: perf_fuzz diff SEED N | fuzz SEED SECONDS [WORKERS]\n");
	return 2;
}
