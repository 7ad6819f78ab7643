// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-pebs: precise sampling through PEBS on the Skylake model
 * (pmu-model.rst, "PEBS"), held to the stock kernel's results.
 *
 * The workloads are loops of one memory access each (pebs_ld: a load,
 * pebs_st: a store) over a buffer of n lines, one line apart, run twice
 * while the event is on. With a period of 2 events, the model writes a
 * record right after every second access, so for each precise_ip of the
 * load, store and load latency events:
 * - every sample taken in the loop is at one address: the access itself
 *   (precise_ip 2 and 3: the eventing IP, PERF_RECORD_MISC_EXACT_IP) or
 *   the instruction after it (precise_ip 1, not exact);
 * - the two runs give exactly n of them, their data addresses (ADDR)
 *   two lines apart, inside the buffer;
 * - data source and weight as the stock kernel reports them: the load
 *   latency event's decoded, a store's L1D hit or miss, no source for
 *   the other loads. The buffer fits the L1D and the first run brought
 *   it there (pmu-model.rst: an L1D hit, 4 cycles), so most samples of
 *   the second run are L1D hits; the kernel's work in between (enabling
 *   the event, the PMIs, a timer interrupt: more of it on a debug
 *   kernel) may have evicted some lines, whose samples must then report
 *   the L2 or L3 as stock does.
 * The loop's branch (jnz) sampled at precise_ip 2 gets every second
 * sample of it, with no data address. Precise cycles (cycles:p) count
 * every cycle (the model's 2 per instruction) as INST_RETIRED with inv
 * and cmask 16, at precise_ip 3 with the PREC_DIST unit mask on counter
 * 1, as stock programs them; open errors are stock's. Large PEBS: an
 * instructions:u event at precise_ip 2 whose samples need nothing but
 * the record (IP, TID, TIME) takes its samples with far fewer PMIs than
 * samples (the NMI count of /proc/interrupts), one with a callchain
 * with one PMI each, both as many as the loop's instructions make (the
 * callchains walked from the PMI's registers, not the record's: their
 * first user address is never the sample's eventing IP);
 * the PEBS event's count read as a group with a plain instructions:u
 * counter equals it, with records still in the buffer; two tasks taking
 * turns on CPU 0, each with its own such event, each get every sample
 * of their own loops with their own TID (the buffer is drained as a
 * task switches out). "pmu-pebs dump"
 * prints the samples; "pmu-pebs sweep" is pmu-mem.sh's workload. Root:
 * the event selects are read back through /dev/cpu/0/msr, and the
 * sample rate limit is lifted (a debug kernel's earlier PMIs lower it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-check.h"
#include "pmu-ring.h"
#include "pmu-unthrottle.h"

#define LINE		64
#define N_LINES		64		/* 4 KiB: fits the L1D */
#define PERIOD		2
#define BIG_SIZE	(32 << 20)

/* one access per iteration: rdi the buffer, rcx the count */
void pebs_ld(void *buf, long n);
void pebs_st(void *buf, long n);
extern const char pebs_ld_insn[], pebs_ld_next[], pebs_ld_jnz[];
extern const char pebs_st_insn[], pebs_st_next[];
asm(".text\n"
    ".globl pebs_ld, pebs_ld_insn, pebs_ld_next\n"
    "pebs_ld:\n"
    "	mov %rsi, %rcx\n"
    "1:\n"
    "pebs_ld_insn:\n"
    "	mov (%rdi), %rax\n"
    "pebs_ld_next:\n"
    "	add $64, %rdi\n"
    "	dec %rcx\n"
    ".globl pebs_ld_jnz\n"
    "pebs_ld_jnz:\n"
    "	jnz 1b\n"
    "	ret\n"
    ".globl pebs_st, pebs_st_insn, pebs_st_next\n"
    "pebs_st:\n"
    "	mov %rsi, %rcx\n"
    "1:\n"
    "pebs_st_insn:\n"
    "	mov %rcx, (%rdi)\n"
    "pebs_st_next:\n"
    "	add $64, %rdi\n"
    "	dec %rcx\n"
    "	jnz 1b\n"
    "	ret\n");

static int dump;

static int pebs_open(uint64_t config, uint64_t config1, int precise,
		     uint64_t period, uint64_t type)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = config < 0x10 ? PERF_TYPE_HARDWARE : PERF_TYPE_RAW,
		.config = config,
		.config1 = config1,
		.precise_ip = precise,
		.sample_period = period,
		.sample_type = type,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};

	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

struct pebs_sample {
	uint64_t ip, addr, weight, data_src;
	uint16_t misc;
};

#define SAMPLE_TYPE	(PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | \
			 PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC)
#define MAX_SAMPLES	4096

/*
 * The data sources the stock kernel reports (perf_mem_data_src): none
 * (not a memory event); a load of no decoded source; a store that hit
 * the L1D; a load latency record of an L1D hit with no DTLB miss
 */
#define SRC_NA		0x1e05080021ULL
#define SRC_LOAD	0x1e05080022ULL
#define SRC_STORE_L1	0x1e05080144ULL
#define SRC_STORE_MISS	0x1e05080184ULL
#define SRC_LDLAT_L1	0x10268100142ULL
#define SRC_LDLAT_L2	0x10468100442ULL
#define SRC_LDLAT_L3	0x10668100842ULL
/* ... an L3 miss (source unknown), and one that also missed the DTLBs */
#define SRC_LDLAT_MEM	0x10668080082ULL
#define SRC_LDLAT_WALK	0x10650080082ULL

/* a data source and weight a sample may report, the L1D hit's first */
struct src_weight {
	uint64_t src, weight;
};

static const struct src_weight sw_na[] = { { SRC_NA, 0 }, { 0 } };
static const struct src_weight sw_load[] = { { SRC_LOAD, 0 }, { 0 } };
static const struct src_weight sw_store[] = {
	{ SRC_STORE_L1, 0 }, { SRC_STORE_MISS, 0 }, { 0 }
};
static const struct src_weight sw_ldlat[] = {
	{ SRC_LDLAT_L1, 4 }, { SRC_LDLAT_L2, 14 }, { SRC_LDLAT_L3, 42 }, { 0 }
};

/* the samples of @fd's ring, in the layout of SAMPLE_TYPE */
static int pebs_samples(struct perf_event_mmap_page *pc, unsigned char *data,
			struct pebs_sample *s)
{
	struct ring_iter it;
	uint64_t *v;
	int n = 0;

	ring_iter_start(&it, pc, data);
	while ((v = ring_next_sample(&it)) && n < MAX_SAMPLES) {
		struct perf_event_header *h = (struct perf_event_header *)v - 1;

		s[n].ip = v[0];
		s[n].addr = v[1];
		s[n].weight = v[2];
		s[n].data_src = v[3];
		s[n].misc = h->misc;
		n++;
	}
	return n;
}

static struct pebs_sample samples[MAX_SAMPLES];

/*
 * Sample event @config (with @config1) at @precise over the loop @fn on
 * @buf, the buffer swept once before (warm); check what the samples
 * in the loop say
 */
static void pebs_case(const char *name, uint64_t config, uint64_t config1,
		      int precise, void (*fn)(void *, long), const char *insn,
		      const char *next, char *buf, const struct src_weight *sw)
{
	/* the loop's own samples: by data address, or (no data) by IP */
	int by_ip = sw == sw_na;
	int hits = 0, j;
	uint64_t want_ip = (uint64_t)(precise > 1 ? insn : next);
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	int fd, n, i, in = 0, ip_ok = 1, addr_ok = 1, src_ok = 1, run2 = 0;
	uint64_t last = 0;
	char what[160];

	fd = pebs_open(config, config1, precise, PERIOD, SAMPLE_TYPE);
	if (fd < 0) {
		snprintf(what, sizeof(what), "%s:%d opens (%s)", name, precise,
			 strerror(errno));
		check(0, what);
		return;
	}
	data = ring_map(fd, &pc);
	if (!data) {
		check(0, "ring mapped");
		close(fd);
		return;
	}
	fn(buf, N_LINES);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	fn(buf, N_LINES);
	fn(buf, N_LINES);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	n = pebs_samples(pc, data, samples);
	for (i = 0; i < n; i++) {
		struct pebs_sample *s = &samples[i];
		int exact = !!(s->misc & PERF_RECORD_MISC_EXACT_IP);

		if (dump)
			printf("# %s:%d ip %+ld addr %+ld weight %llu src %#llx misc %#x\n",
			       name, precise, (long)(s->ip - want_ip),
			       (long)(s->addr - (uint64_t)buf),
			       (unsigned long long)s->weight,
			       (unsigned long long)s->data_src, s->misc);
		if (by_ip ? s->ip != want_ip :
			    s->addr < (uint64_t)buf ||
			    s->addr >= (uint64_t)buf + N_LINES * LINE)
			continue;
		in++;
		if (s->ip != want_ip || exact != (precise > 1))
			ip_ok = 0;
		/*
		 * two lines on, or back for the second run (whose phase the
		 * loads and stores of call and ret in between may move)
		 */
		if (by_ip ? s->addr != 0 :
			    last && s->addr != last + PERIOD * LINE &&
			    s->addr > last - (N_LINES - PERIOD - 1) * LINE)
			addr_ok = 0;
		last = s->addr;
		if (in <= N_LINES / PERIOD)
			continue;
		run2++;
		for (j = 0; sw[j].src; j++)
			if (s->data_src == sw[j].src &&
			    s->weight == sw[j].weight)
				break;
		if (!sw[j].src)
			src_ok = 0;
		hits += j == 0;
	}
	snprintf(what, sizeof(what), "%s:%d samples in the loop", name,
		 precise);
	check_val(in == 2 * N_LINES / PERIOD, what, in, 2 * N_LINES / PERIOD);
	snprintf(what, sizeof(what), "%s:%d every sample at the %s%s", name,
		 precise, precise > 1 ? "access" : "instruction after it",
		 precise > 1 ? ", exact" : "");
	check(in && ip_ok, what);
	if (by_ip)
		snprintf(what, sizeof(what), "%s:%d no data address", name,
			 precise);
	else
		snprintf(what, sizeof(what),
			 "%s:%d data addresses %d lines apart", name, precise,
			 PERIOD);
	check(in && addr_ok, what);
	snprintf(what, sizeof(what),
		 "%s:%d data source %#llx, weight %llu: %d of %d (second run), the others as stock",
		 name, precise, (unsigned long long)sw[0].src,
		 (unsigned long long)sw[0].weight, hits, run2);
	check(run2 && src_ok && 2 * hits > run2, what);
	ring_unmap(pc);
	close(fd);
}

void pebs_ld_stride(void *buf, long n, long stride);
asm(".globl pebs_ld_stride\n"
    "pebs_ld_stride:\n"
    "	mov %rsi, %rcx\n"
    "1:	mov (%rdi), %rax\n"
    "	add %rdx, %rdi\n"
    "	dec %rcx\n"
    "	jnz 1b\n"
    "	ret\n");

/*
 * The load latency event (period 64) on @n loads @stride apart in @buf,
 * swept @warm times before (while a counter of loads has the model's
 * cache on): most samples must report @src and @weight (the other levels
 * of the model's cache, as stock decodes them). A debug kernel may be
 * throttled: at least 8 samples.
 */
static void ldlat_level(const char *what, char *buf, long n, long stride,
			int warm, uint64_t src, uint64_t weight)
{
	struct perf_event_mmap_page *pc;
	unsigned char *data;
	int fd, lfd, i, k, in = 0, hits = 0;
	char msg[160];

	lfd = pebs_open(0x81d0, 0, 0, 0, 0);
	ioctl(lfd, PERF_EVENT_IOC_ENABLE, 0);
	fd = pebs_open(0x1cd, 3, 2, 64, SAMPLE_TYPE);
	data = fd >= 0 ? ring_map(fd, &pc) : NULL;
	if (!data) {
		check(0, "load latency event opened and mapped");
		if (fd >= 0)
			close(fd);
		close(lfd);
		return;
	}
	for (i = 0; i < warm; i++)
		pebs_ld_stride(buf, n, stride);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	pebs_ld_stride(buf, n, stride);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	k = pebs_samples(pc, data, samples);
	for (i = 0; i < k; i++) {
		if (samples[i].addr < (uint64_t)buf ||
		    samples[i].addr >= (uint64_t)buf + n * stride)
			continue;
		in++;
		hits += samples[i].data_src == src &&
			samples[i].weight == weight;
	}
	snprintf(msg, sizeof(msg),
		 "load latency, %s: data source %#llx, weight %llu: %d of %d",
		 what, (unsigned long long)src, (unsigned long long)weight,
		 hits, in);
	check(in >= 8 && 2 * hits > in, msg);
	ring_unmap(pc);
	close(fd);
	close(lfd);
}

/* a plain instructions:u counter on self, in @group's group */
static int insns_member(int group)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return sys_perf_event_open(&attr, 0, -1, group, 0);
}

/* NMIs taken by every CPU so far */
static long nmi_count(void)
{
	char line[512];
	long total = 0;
	FILE *fp = fopen("/proc/interrupts", "r");

	while (fp && fgets(line, sizeof(line), fp)) {
		char *p = line;

		while (*p == ' ')
			p++;
		if (strncmp(p, "NMI:", 4))
			continue;
		for (p += 4; *p && *p != '\n';) {
			char *q;
			long v = strtol(p, &q, 10);

			if (q == p)
				break;
			total += v;
			p = q;
		}
	}
	if (fp)
		fclose(fp);
	return total;
}

#define LARGE_PERIOD	10007
#define LARGE_ITERS	300000

/* a loop of 2 instructions an iteration */
static void insn_loop(long n)
{
	asm volatile("1: dec %0\n\tjnz 1b" : "+r"(n));
}

/* A sample of IP and CALLCHAIN: is its first user address the IP? */
static int chain_starts_at_ip(const uint64_t *body)
{
	uint64_t ip = body[0], nr = body[1], i;

	for (i = 0; i + 1 < nr; i++)
		if (body[2 + i] == PERF_CONTEXT_USER)
			return body[3 + i] == ip;
	return 0;
}

/*
 * instructions:u at precise_ip 2, with @type, over LARGE_ITERS of
 * insn_loop; a plain instructions:u counter in its group. @large: the
 * samples must come with at most a quarter as many PMIs; else with one
 * each.
 */
static void large_case(const char *what, uint64_t type, int large)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.precise_ip = 2,
		.sample_period = LARGE_PERIOD,
		.sample_type = type,
		.read_format = PERF_FORMAT_GROUP,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_event_mmap_page *pc;
	uint64_t v[3] = { 0 }, *body, want;
	struct ring_iter it;
	unsigned char *data;
	int fd, pfd, n = 0, same = 0;
	long nmi;
	char msg[200];

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	pfd = fd >= 0 ? insns_member(fd) : -1;
	data = pfd >= 0 ? ring_map(fd, &pc) : NULL;
	if (!data) {
		snprintf(msg, sizeof(msg), "%s: opened and mapped", what);
		check(0, msg);
		return;
	}
	nmi = nmi_count();
	ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	insn_loop(LARGE_ITERS);
	/* read while records may wait in the buffer */
	if (read(fd, v, sizeof(v)) != sizeof(v))
		v[0] = 0;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	nmi = nmi_count() - nmi;
	ring_iter_start(&it, pc, data);
	while ((body = ring_next_sample(&it))) {
		n++;
		if (type & PERF_SAMPLE_CALLCHAIN)
			same += chain_starts_at_ip(body);
	}
	/*
	 * The callchain is the interrupted registers' (as in 6.12): its
	 * first user address is where the PMI came, past the record's
	 * eventing IP, which the sample's IP is
	 */
	if (type & PERF_SAMPLE_CALLCHAIN) {
		snprintf(msg, sizeof(msg),
			 "%s: %d of %d callchains start at the sample's IP, none from the PMI's registers",
			 what, same, n);
		check(same == 0, msg);
	}
	/* at least the loop's; the glue around it adds a few */
	want = 2 * LARGE_ITERS / LARGE_PERIOD;
	snprintf(msg, sizeof(msg), "%s: %d samples (at least %llu)", what, n,
		 (unsigned long long)want);
	check(n >= (int)want && n <= (int)want + 2, msg);
	snprintf(msg, sizeof(msg), "%s: %ld PMIs for %d samples (%s)", what,
		 nmi, n, large ? "at most a quarter" : "one each");
	check(large ? 4 * nmi <= n : nmi >= n, msg);
	snprintf(msg, sizeof(msg),
		 "%s: count %llu read as a group equals the plain counter's %llu",
		 what, (unsigned long long)v[1], (unsigned long long)v[2]);
	check(v[0] == 2 && v[1] && v[1] == v[2], msg);
	ring_unmap(pc);
	close(pfd);
	close(fd);
}

#define TURNS		20

/*
 * One side of two tasks taking turns on CPU 0 through two pipes: its own
 * large PEBS event (IP, TID) on itself, LARGE_ITERS / TURNS iterations
 * of insn_loop a turn. Returns the samples with its TID, or -1 if one
 * has another.
 */
static int turns(int in, int out, int first)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.precise_ip = 2,
		.sample_period = LARGE_PERIOD,
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	struct perf_event_mmap_page *pc;
	struct ring_iter it;
	unsigned char *data;
	uint64_t *body;
	int fd, i, n = 0, bad = 0;
	char c = 0;

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	data = fd >= 0 ? ring_map(fd, &pc) : NULL;
	if (!data)
		return -1;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < TURNS; i++) {
		if ((i || !first) && read(in, &c, 1) != 1)
			break;
		insn_loop(LARGE_ITERS / TURNS);
		if (write(out, &c, 1) != 1)
			break;
	}
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_iter_start(&it, pc, data);
	while ((body = ring_next_sample(&it))) {
		uint32_t tid = body[1] >> 32;

		if (tid == (uint32_t)syscall(SYS_gettid))
			n++;
		else
			bad++;
	}
	ring_unmap(pc);
	close(fd);
	return bad ? -1 : n;
}

static void switch_case(void)
{
	int ab[2], ba[2], status = 0, n;
	char msg[160];
	pid_t pid;

	if (pipe(ab) || pipe(ba)) {
		check(0, "pipes");
		return;
	}
	pid = fork();
	if (pid == 0)
		_exit(turns(ab[0], ba[1], 0) >= 2 * LARGE_ITERS / LARGE_PERIOD ?
		      0 : 1);
	n = turns(ba[0], ab[1], 1);
	waitpid(pid, &status, 0);
	snprintf(msg, sizeof(msg),
		 "large PEBS over %d switches: the parent's %d samples (at least %d), the child's, each with its own TID",
		 2 * TURNS, n, 2 * LARGE_ITERS / LARGE_PERIOD);
	check(n >= 2 * LARGE_ITERS / LARGE_PERIOD && WIFEXITED(status) &&
	      !WEXITSTATUS(status), msg);
}

/* the event select of general counter @i, through the msr driver */
static uint64_t evtsel(int i)
{
	uint64_t v = 0;
	int fd = open("/dev/cpu/0/msr", O_RDONLY);

	if (fd >= 0) {
		if (pread(fd, &v, sizeof(v), 0x186 + i) != sizeof(v))
			v = 0;
		close(fd);
	}
	return v;
}

static void cycles_case(int precise)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.precise_ip = precise,
		.sample_period = 1000000000,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	uint64_t c = 0, ins = 0, sel[4], want;
	int fd, ifd, i, on = -1;
	char what[160];

	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd < 0) {
		snprintf(what, sizeof(what), "cycles:%d opens (%s)", precise,
			 strerror(errno));
		check(0, what);
		return;
	}
	ifd = insns_member(fd);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
	for (i = 0; i < 4; i++)
		sel[i] = evtsel(i);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
	if (read(fd, &c, sizeof(c)) != sizeof(c) ||
	    read(ifd, &ins, sizeof(ins)) != sizeof(ins))
		c = ins = 0;
	if (dump)
		printf("# cycles:%d count %llu insns %llu evtsel %#llx %#llx %#llx %#llx\n",
		       precise, (unsigned long long)c, (unsigned long long)ins,
		       (unsigned long long)sel[0], (unsigned long long)sel[1],
		       (unsigned long long)sel[2], (unsigned long long)sel[3]);
	snprintf(what, sizeof(what),
		 "cycles:%d counts every cycle (2 an instruction)", precise);
	check_val(ins && c == 2 * ins, what, c, 2 * ins);
	for (i = 0; i < 4; i++)
		if (sel[i] & (1 << 22))
			on = i;
	/* event, unit mask, inv and cmask: no USR/OS/INT/EN */
	want = precise == 3 ? 0x108001c0 : 0x108000c0;
	snprintf(what, sizeof(what),
		 "cycles:%d as INST_RETIRED%s inv cmask 16, counter %d%s", precise,
		 precise == 3 ? ".PREC_DIST" : "", on,
		 precise == 3 ? " (only 1)" : "");
	check_val(on >= 0 && (sel[on] & 0xff80ffff) == want &&
		  (precise != 3 || on == 1), what,
		  on >= 0 ? (long long)(sel[on] & 0xff80ffff) : -1, want);
	snprintf(what, sizeof(what),
		 "cycles:%d without the counter's own interrupt", precise);
	check(on >= 0 && !(sel[on] & (1 << 20)), what);
	close(ifd);
	close(fd);
}

int main(int argc, char **argv)
{
	char *buf, *big;
	int p, fd;
	cpu_set_t cpus;

	/* the workload of pmu-mem.sh: 1 MiB, an access per line, 4 times */
	if (argc > 1 && !strcmp(argv[1], "sweep")) {
		buf = aligned_alloc(4096, 1 << 20);
		for (p = 0; p < 4; p++)
			pebs_ld(buf, (1 << 20) / LINE);
		for (p = 0; p < 4; p++)
			pebs_st(buf, (1 << 20) / LINE);
		return 0;
	}
	dump = argc > 1 && !strcmp(argv[1], "dump");
	if (!cpu_is_intel()) {
		printf("ok # SKIP PEBS is Intel's\n");
		return 0;
	}
	unthrottle();
	/* on CPU 0, where the msr reads look */
	CPU_ZERO(&cpus);
	CPU_SET(0, &cpus);
	sched_setaffinity(0, sizeof(cpus), &cpus);
	buf = aligned_alloc(4096, N_LINES * LINE);
	memset(buf, 0, N_LINES * LINE);

	for (p = 1; p <= 3; p++) {
		pebs_case("MEM_INST_RETIRED.ALL_LOADS", 0x81d0, 0, p, pebs_ld,
			  pebs_ld_insn, pebs_ld_next, buf, sw_load);
		pebs_case("MEM_INST_RETIRED.ALL_STORES", 0x82d0, 0, p, pebs_st,
			  pebs_st_insn, pebs_st_next, buf, sw_store);
		pebs_case("MEM_TRANS_RETIRED.LOAD_LATENCY", 0x1cd, 3, p,
			  pebs_ld, pebs_ld_insn, pebs_ld_next, buf, sw_ldlat);
	}
	pebs_case("branch-instructions", PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 0,
		  2, pebs_ld, pebs_ld_jnz, NULL, buf, sw_na);

	/* beyond the L1D: 64 KiB, 512 KiB, then memory, then page walks */
	big = mmap(NULL, BIG_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (big == MAP_FAILED) {
		check(0, "mmap");
		return 1;
	}
	ldlat_level("L2 hits", big, 1024, LINE, 1, SRC_LDLAT_L2, 14);
	ldlat_level("L3 hits", big, 8192, LINE, 1, SRC_LDLAT_L3, 42);
	ldlat_level("memory", big + (8 << 20), 8192, LINE, 0, SRC_LDLAT_MEM,
		    200);
	ldlat_level("memory, page walks", big + (16 << 20), 2048, 4096, 0,
		    SRC_LDLAT_WALK, 230);
	for (p = 1; p <= 3; p++)
		cycles_case(p);

	large_case("large PEBS, IP TID TIME",
		   PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME, 1);
	large_case("PEBS with callchains",
		   PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 0);
	switch_case();

	/* a precise event samples */
	fd = pebs_open(0x81d0, 0, 1, 0, SAMPLE_TYPE);
	expect_errno(fd, EINVAL, "precise MEM_INST_RETIRED.ALL_LOADS counting");
	/* and counts occurrences: no cmask, inv, edge, AnyThread */
	fd = pebs_open(0x10081d0, 0, 1, PERIOD, SAMPLE_TYPE);
	expect_errno(fd, EINVAL, "precise MEM_INST_RETIRED.ALL_LOADS cmask 1");
	fd = pebs_open(0x8000c0, 0, 1, PERIOD, SAMPLE_TYPE);
	expect_errno(fd, EINVAL, "precise INST_RETIRED inv");
	fd = pebs_open(0x400c4, 0, 2, PERIOD, SAMPLE_TYPE);
	expect_errno(fd, EINVAL, "precise BR_INST_RETIRED edge");
	fd = pebs_open(0x20003c, 0, 2, PERIOD, SAMPLE_TYPE);
	expect_errno(fd, EINVAL, "precise cycles AnyThread");
	return fails ? 1 : 0;
}
