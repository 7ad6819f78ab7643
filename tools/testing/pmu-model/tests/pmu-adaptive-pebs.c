// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-adaptive-pebs: adaptive PEBS (record format 4, PEBS_BASELINE) on
 * the Icelake-PMU model (pmu-model.rst, 0019), held to the stock
 * kernel's results.
 *
 * The workload (ad_work) sets RBX, RBP, RDX, R8-R15 and XMM0-XMM15 to
 * known values, then runs a loop of five instructions over a buffer of
 * N lines: ld: load line i's first quadword (0xa000 + i) into RAX; st:
 * store RCX (N - i) at line i + 8; add: RSI += 64; dec: RCX -= 1; jnz.
 * It runs once to warm the caches, then once with the event enabled.
 * Every sample taken in the loop then says, from its registers, which
 * instruction it is after (the loop invariants of each position), so:
 * - instructions:u at precise_ip 1, 2, 3 (stock: fixed counter 0):
 *   the sample IP is the eventing instruction with
 *   PERF_RECORD_MISC_EXACT_IP at 2 and 3, the next one (not exact) at 1,
 *   and the GPRs (REGS_INTR) are those right after the eventing
 *   instruction, RIP included; exactly count / period samples (the
 *   count read back), no record lost;
 * - the XMM registers (REGS_INTR XMM0-15) are the loop's;
 * - a branch stack (any branch, user) taken with PEBS holds the loop's
 *   jnz -> ld, as many as the loop has taken (up to 32), newest first;
 * - mem-loads (ldlat 3) and mem-stores at period 1: one sample per
 *   access, at the access, its data address, stock's data source and
 *   weight (an L1D hit: the buffer fits the L1D);
 * - large PEBS: a sample type the record holds takes far fewer PMIs
 *   than samples; with XMM registers or a callchain, one PMI a sample;
 * - two PEBS events with different needs (basic and memory info) on one
 *   CPU each get exactly their own samples;
 * - the open errors of stock (XMM registers as user registers too).
 * "pmu-adaptive-pebs facts" prints what the checks are made of. Root:
 * the sample rate limit is lifted, the NMI count read. Skips on any
 * other CPU model than Icelake-PMU.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-check.h"
#include "pmu-ring.h"
#include "pmu-unthrottle.h"

#define N_LINES		256		/* 16 KiB: fits the L1D */
#define PERIOD		7
#define MAX_SAMPLES	8192

void ad_work(void *buf, long n);
extern const char ad_ld[], ad_st[], ad_add[], ad_dec[], ad_jnz[], ad_end[];
extern const uint64_t ad_xmm[32];
asm(".text\n"
    ".globl ad_work, ad_ld, ad_st, ad_add, ad_dec, ad_jnz, ad_end\n"
    "ad_work:\n"
    "	push %rbx\n	push %rbp\n	push %r12\n	push %r13\n"
    "	push %r14\n	push %r15\n"
    "	lea ad_xmm(%rip), %rax\n"
    "	movdqu 0(%rax), %xmm0\n	movdqu 16(%rax), %xmm1\n"
    "	movdqu 32(%rax), %xmm2\n	movdqu 48(%rax), %xmm3\n"
    "	movdqu 64(%rax), %xmm4\n	movdqu 80(%rax), %xmm5\n"
    "	movdqu 96(%rax), %xmm6\n	movdqu 112(%rax), %xmm7\n"
    "	movdqu 128(%rax), %xmm8\n	movdqu 144(%rax), %xmm9\n"
    "	movdqu 160(%rax), %xmm10\n	movdqu 176(%rax), %xmm11\n"
    "	movdqu 192(%rax), %xmm12\n	movdqu 208(%rax), %xmm13\n"
    "	movdqu 224(%rax), %xmm14\n	movdqu 240(%rax), %xmm15\n"
    "	movabs $0xb1b1b1b1b1b1b1b1, %rbx\n"
    "	movabs $0xb2b2b2b2b2b2b2b2, %rbp\n"
    "	movabs $0xd5d5d5d5d5d5d5d5, %rdx\n"
    "	movabs $0x0808080808080808, %r8\n"
    "	movabs $0x0909090909090909, %r9\n"
    "	movabs $0x1010101010101010, %r10\n"
    "	movabs $0x1111111111111111, %r11\n"
    "	movabs $0x1212121212121212, %r12\n"
    "	movabs $0x1313131313131313, %r13\n"
    "	movabs $0x1414141414141414, %r14\n"
    "	movabs $0x1515151515151515, %r15\n"
    "	mov %rsi, %rcx\n"
    "	mov %rdi, %rsi\n"
    "ad_ld:\n"
    "	mov (%rsi), %rax\n"
    "ad_st:\n"
    "	mov %rcx, 8(%rsi)\n"
    "ad_add:\n"
    "	add $64, %rsi\n"
    "ad_dec:\n"
    "	dec %rcx\n"
    "ad_jnz:\n"
    "	jnz ad_ld\n"
    "ad_end:\n"
    "	pop %r15\n	pop %r14\n	pop %r13\n	pop %r12\n"
    "	pop %rbp\n	pop %rbx\n"
    "	ret\n"
    ".section .rodata\n"
    ".balign 16\n"
    ".globl ad_xmm\n"
    "ad_xmm:\n"
    "	.quad 0x0000000000000000, 0x00000000000000ff\n"
    "	.quad 0x0101010101010100, 0x01010101010101ff\n"
    "	.quad 0x0202020202020200, 0x02020202020202ff\n"
    "	.quad 0x0303030303030300, 0x03030303030303ff\n"
    "	.quad 0x0404040404040400, 0x04040404040404ff\n"
    "	.quad 0x0505050505050500, 0x05050505050505ff\n"
    "	.quad 0x0606060606060600, 0x06060606060606ff\n"
    "	.quad 0x0707070707070700, 0x07070707070707ff\n"
    "	.quad 0x0808080808080800, 0x08080808080808ff\n"
    "	.quad 0x0909090909090900, 0x09090909090909ff\n"
    "	.quad 0x0a0a0a0a0a0a0a00, 0x0a0a0a0a0a0a0aff\n"
    "	.quad 0x0b0b0b0b0b0b0b00, 0x0b0b0b0b0b0b0bff\n"
    "	.quad 0x0c0c0c0c0c0c0c00, 0x0c0c0c0c0c0c0cff\n"
    "	.quad 0x0d0d0d0d0d0d0d00, 0x0d0d0d0d0d0d0dff\n"
    "	.quad 0x0e0e0e0e0e0e0e00, 0x0e0e0e0e0e0e0eff\n"
    "	.quad 0x0f0f0f0f0f0f0f00, 0x0f0f0f0f0f0f0fff\n"
    ".text\n");

/* perf_regs x86: the GPRs (no segments) and XMM0-15, two halves each */
enum { R_AX, R_BX, R_CX, R_DX, R_SI, R_DI, R_BP, R_SP, R_IP, R_FLAGS,
       R_R8 = 16, R_R15 = 23, R_XMM0 = 32 };
#define GPR_MASK	(0x3ffULL | (0xffULL << R_R8))
#define XMM_MASK	(0xffffffffULL << R_XMM0)

/* the data sources stock reports (perf_mem_data_src) */
#define SRC_LDLAT_L1	0x10268100142ULL
#define SRC_LDLAT_L2	0x10468100442ULL
#define SRC_LDLAT_L3	0x10668100842ULL
#define SRC_STORE_L1	0x1e05080144ULL

/* the loop's instructions */
static const char *const insn[] = { ad_ld, ad_st, ad_add, ad_dec, ad_jnz };
static const char *const insn_name[] = { "ld", "st", "add", "dec", "jnz" };

static uint64_t *buf;
static int facts;

struct sample {
	uint64_t ip, time, addr, weight, data_src, phys;
	uint16_t misc;
	uint32_t pid, tid;
	uint64_t regs[64];
	uint64_t nbr, br[32][3];
};

static struct sample samples[MAX_SAMPLES];

struct ad_event {
	const char *name;
	uint32_t type;
	uint64_t config, config1;
	int precise;
	uint64_t period;
	uint64_t sample_type, regs, branch;
	int freq;
};

static int ad_open(const struct ad_event *e, int group)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = e->type,
		.config = e->config,
		.config1 = e->config1,
		.precise_ip = e->precise,
		.sample_period = e->period,
		.freq = e->freq,
		.sample_type = e->sample_type,
		.sample_regs_intr = e->regs,
		.branch_sample_type = e->branch,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = group < 0,
	};

	return sys_perf_event_open(&attr, 0, -1, group, 0);
}

/* the samples in @pc's ring, decoded by @e's sample type */
static int ad_samples(const struct ad_event *e,
		      struct perf_event_mmap_page *pc, unsigned char *data,
		      struct sample *s, int max)
{
	struct ring_iter it;
	uint64_t *v;
	int n = 0, i;

	ring_iter_start(&it, pc, data);
	while ((v = ring_next_sample(&it)) && n < max) {
		struct perf_event_header *h = (struct perf_event_header *)v - 1;
		struct sample *p = &s[n++];

		memset(p, 0, sizeof(*p));
		p->misc = h->misc;
		if (e->sample_type & PERF_SAMPLE_IP)
			p->ip = *v++;
		if (e->sample_type & PERF_SAMPLE_TID) {
			p->pid = (uint32_t)*v;
			p->tid = *v++ >> 32;
		}
		if (e->sample_type & PERF_SAMPLE_TIME)
			p->time = *v++;
		if (e->sample_type & PERF_SAMPLE_ADDR)
			p->addr = *v++;
		if (e->sample_type & PERF_SAMPLE_CALLCHAIN)
			v += *v + 1;
		if (e->sample_type & PERF_SAMPLE_BRANCH_STACK) {
			p->nbr = *v++;
			for (i = 0; i < (int)p->nbr && i < 32; i++) {
				p->br[i][0] = v[3 * i];
				p->br[i][1] = v[3 * i + 1];
				p->br[i][2] = v[3 * i + 2];
			}
			v += 3 * p->nbr;
		}
		if (e->sample_type & (PERF_SAMPLE_WEIGHT |
				      PERF_SAMPLE_WEIGHT_STRUCT))
			p->weight = *v++;
		if (e->sample_type & PERF_SAMPLE_DATA_SRC)
			p->data_src = *v++;
		if (e->sample_type & PERF_SAMPLE_REGS_INTR) {
			if (*v++) {
				for (i = 0; i < 64; i++)
					if (e->regs & (1ULL << i))
						p->regs[i] = *v++;
			}
		}
		if (e->sample_type & PERF_SAMPLE_PHYS_ADDR)
			p->phys = *v++;
	}
	return n;
}

/* PERF_RECORD_LOST records in the ring */
static uint64_t ring_lost(struct perf_event_mmap_page *pc, unsigned char *data)
{
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = 0, lost = 0;

	while (pos < head) {
		struct perf_event_header *h = (void *)(data + pos);

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_LOST)
			lost += ((uint64_t *)(h + 1))[1];
		pos += h->size;
	}
	return lost;
}

/* NMIs taken by every CPU so far */
static long nmi_count(void)
{
	char line[1024], *p;
	long total = 0;
	FILE *fp = fopen("/proc/interrupts", "r");

	while (fp && fgets(line, sizeof(line), fp)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "NMI:", 4))
			continue;
		p += 4;
		for (;;) {
			char *end;
			long v = strtol(p, &end, 10);

			if (end == p)
				break;
			total += v;
			p = end;
		}
	}
	if (fp)
		fclose(fp);
	return total;
}

/* The loop position (0-4) of the instruction at @ip, or -1 */
static int loop_pos(uint64_t ip)
{
	int k;

	for (k = 0; k < 5; k++)
		if (ip == (uint64_t)insn[k])
			return k;
	return -1;
}

/*
 * Do the registers of @s say they are right after the loop instruction
 * @k?  0 if not; else 1 + the loop branches taken so far.
 */
static int regs_after(const struct sample *s, int k)
{
	const uint64_t *r = s->regs;
	uint64_t j = (r[R_SI] - (uint64_t)buf) / 64;

	if (r[R_SI] < (uint64_t)buf || (r[R_SI] - (uint64_t)buf) % 64 ||
	    j > N_LINES)
		return 0;
	if (r[R_BX] != 0xb1b1b1b1b1b1b1b1ULL ||
	    r[R_BP] != 0xb2b2b2b2b2b2b2b2ULL ||
	    r[R_DX] != 0xd5d5d5d5d5d5d5d5ULL ||
	    r[R_R8] != 0x0808080808080808ULL ||
	    r[R_R8 + 1] != 0x0909090909090909ULL ||
	    r[R_R8 + 2] != 0x1010101010101010ULL ||
	    r[R_R8 + 3] != 0x1111111111111111ULL ||
	    r[R_R8 + 4] != 0x1212121212121212ULL ||
	    r[R_R8 + 5] != 0x1313131313131313ULL ||
	    r[R_R8 + 6] != 0x1414141414141414ULL ||
	    r[R_R15] != 0x1515151515151515ULL)
		return 0;
	switch (k) {
	case 0:		/* ld, st: line j loaded, RCX N - j */
	case 1:
		if (r[R_AX] != 0xa000 + j || r[R_CX] != N_LINES - j)
			return 0;
		return 1 + j;
	case 2:		/* add: RSI past line j - 1, RCX not yet counted */
		if (!j || r[R_AX] != 0xa000 + j - 1 ||
		    r[R_CX] != N_LINES - j + 1)
			return 0;
		return j;
	default:	/* dec, jnz */
		if (!j || r[R_AX] != 0xa000 + j - 1 || r[R_CX] != N_LINES - j)
			return 0;
		return 1 + (k == 4 && r[R_CX] ? j : j - 1);
	}
}

/*
 * Run the workload under @e (and @e2 on the same CPU if set), sampled;
 * the samples in @s, their number returned, the counts in @count, the
 * lost records in @lost, the NMIs taken in @nmi
 */
static int ad_run(const struct ad_event *e, const struct ad_event *e2,
		  struct sample *s, uint64_t *count, uint64_t *lost,
		  long *nmi, int *n2, uint64_t *count2, struct sample *s2)
{
	struct perf_event_mmap_page *pc, *pc2 = NULL;
	unsigned char *data, *data2 = NULL;
	int fd, fd2 = -1, n;
	long nmi0;

	fd = ad_open(e, -1);
	if (fd < 0) {
		printf("# %s: open: %s\n", e->name, strerror(errno));
		return -1;
	}
	data = ring_map(fd, &pc);
	if (e2) {
		fd2 = ad_open(e2, -1);
		if (fd2 >= 0)
			data2 = ring_map(fd2, &pc2);
		if (!data2) {
			printf("# %s: open: %s\n", e2->name, strerror(errno));
			return -1;
		}
	}
	if (!data) {
		printf("# %s: mmap: %s\n", e->name, strerror(errno));
		close(fd);
		return -1;
	}
	nmi0 = nmi_count();
	ad_work(buf, N_LINES);
	if (fd2 >= 0)
		ioctl(fd2, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	ad_work(buf, N_LINES);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (fd2 >= 0)
		ioctl(fd2, PERF_EVENT_IOC_DISABLE, 0);
	*nmi = nmi_count() - nmi0;
	if (read(fd, count, sizeof(*count)) != sizeof(*count))
		*count = 0;
	n = ad_samples(e, pc, data, s, MAX_SAMPLES);
	*lost = ring_lost(pc, data);
	if (fd2 >= 0) {
		if (read(fd2, count2, sizeof(*count2)) != sizeof(*count2))
			*count2 = 0;
		*n2 = ad_samples(e2, pc2, data2, s2, MAX_SAMPLES);
		*lost += ring_lost(pc2, data2);
		ring_unmap(pc2);
		close(fd2);
	}
	ring_unmap(pc);
	close(fd);
	return n;
}

static void print_sample(const struct ad_event *e, const struct sample *s)
{
	int i, k = loop_pos(s->ip);

	printf("#   ip %#lx (%s)%s time %lu", (unsigned long)s->ip,
	       k >= 0 ? insn_name[k] : "-",
	       s->misc & PERF_RECORD_MISC_EXACT_IP ? " exact" : "",
	       (unsigned long)s->time);
	if (e->sample_type & PERF_SAMPLE_ADDR)
		printf(" addr %+ld", (long)(s->addr - (uint64_t)buf));
	if (e->sample_type & (PERF_SAMPLE_WEIGHT | PERF_SAMPLE_WEIGHT_STRUCT))
		printf(" weight %#lx", (unsigned long)s->weight);
	if (e->sample_type & PERF_SAMPLE_DATA_SRC)
		printf(" src %#lx", (unsigned long)s->data_src);
	if (e->sample_type & PERF_SAMPLE_PHYS_ADDR)
		printf(" phys %#lx", (unsigned long)s->phys);
	if (e->regs & GPR_MASK)
		printf(" ax %#lx cx %#lx si %+ld ip %#lx flags %#lx bx %#lx",
		       (unsigned long)s->regs[R_AX],
		       (unsigned long)s->regs[R_CX],
		       (long)(s->regs[R_SI] - (uint64_t)buf),
		       (unsigned long)s->regs[R_IP],
		       (unsigned long)s->regs[R_FLAGS],
		       (unsigned long)s->regs[R_BX]);
	if (e->regs & XMM_MASK)
		printf(" xmm0 %#lx:%#lx xmm15 %#lx:%#lx",
		       (unsigned long)s->regs[R_XMM0],
		       (unsigned long)s->regs[R_XMM0 + 1],
		       (unsigned long)s->regs[R_XMM0 + 30],
		       (unsigned long)s->regs[R_XMM0 + 31]);
	if (e->sample_type & PERF_SAMPLE_BRANCH_STACK) {
		printf(" nbr %lu", (unsigned long)s->nbr);
		for (i = 0; i < (int)s->nbr && i < 3; i++)
			printf(" %#lx->%#lx/%#lx", (unsigned long)s->br[i][0],
			       (unsigned long)s->br[i][1],
			       (unsigned long)s->br[i][2]);
	}
	printf("\n");
}

#define INSNS(p)	{ "instructions:u p" #p, PERF_TYPE_HARDWARE, \
			  PERF_COUNT_HW_INSTRUCTIONS, 0, p, PERIOD, \
			  PERF_SAMPLE_IP | PERF_SAMPLE_TIME | \
			  PERF_SAMPLE_REGS_INTR, GPR_MASK, 0, 0 }

/*
 * instructions:u at @e->precise with the GPRs: every sample in the loop
 * at the eventing instruction (exact) or the next one (precise 1), its
 * registers right after the eventing one; count / period samples
 */
static void case_insns(const struct ad_event *e)
{
	uint64_t count, lost;
	long nmi;
	int n = ad_run(e, NULL, samples, &count, &lost, &nmi, NULL, NULL,
		       NULL);
	int i, in = 0, ok_ip = 1, ok_regs = 1, ok_exact = 1, pos[5] = { 0 };
	char what[200];

	if (n < 0) {
		check(0, e->name);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct sample *s = &samples[i];
		int k = loop_pos(s->ip), ev;

		if (facts && i < 12)
			print_sample(e, s);
		if (k < 0)
			continue;
		in++;
		/* precise 1: the sample IP is the next instruction */
		ev = e->precise > 1 ? k : (k + 4) % 5;
		pos[ev]++;
		if (!regs_after(s, ev))
			ok_regs = 0;
		if (s->regs[R_IP] != s->ip)
			ok_ip = 0;
		if (!!(s->misc & PERF_RECORD_MISC_EXACT_IP) != (e->precise > 1))
			ok_exact = 0;
	}
	if (facts)
		printf("# %s: %d samples, %d in the loop (ld %d st %d add %d dec %d jnz %d), count %lu, lost %lu, NMIs %ld\n",
		       e->name, n, in, pos[0], pos[1], pos[2], pos[3], pos[4],
		       (unsigned long)count, (unsigned long)lost, nmi);
	snprintf(what, sizeof(what), "%s: %d samples = count %lu / %d, none lost",
		 e->name, n, (unsigned long)count, PERIOD);
	check(n == (int)(count / PERIOD) && !lost && n > 0, what);
	snprintf(what, sizeof(what), "%s: %d samples in the loop, each position %d..%d",
		 e->name, in, 5 * N_LINES / PERIOD / 5 - 1,
		 5 * N_LINES / PERIOD / 5 + 1);
	for (i = 0; i < 5; i++)
		if (pos[i] < 5 * N_LINES / PERIOD / 5 - 1 ||
		    pos[i] > 5 * N_LINES / PERIOD / 5 + 1)
			in = 0;
	check(in >= 5 * N_LINES / PERIOD - 1 && in <= 5 * N_LINES / PERIOD + 1,
	      what);
	snprintf(what, sizeof(what), "%s: the IP is the %s instruction%s",
		 e->name, e->precise > 1 ? "eventing" : "next",
		 e->precise > 1 ? ", exact" : ", not exact");
	check(ok_exact, what);
	snprintf(what, sizeof(what), "%s: the GPRs are those after the eventing instruction, RIP the sample IP",
		 e->name);
	check(ok_regs && ok_ip, what);
}


/* XMM0-15 (REGS_INTR) in the loop: the values ad_work loaded */
static void case_xmm(void)
{
	static const struct ad_event e = {
		"instructions:u p2 xmm", PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_INSTRUCTIONS, 0, 2, PERIOD,
		PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR, XMM_MASK, 0, 0
	};
	uint64_t count, lost;
	long nmi;
	int n = ad_run(&e, NULL, samples, &count, &lost, &nmi, NULL, NULL,
		       NULL);
	int i, j, in = 0, ok = 1;
	char what[200];

	for (i = 0; i < n; i++) {
		if (facts && i >= 6 && i < 8)
			print_sample(&e, &samples[i]);
		if (loop_pos(samples[i].ip) < 0)
			continue;
		in++;
		for (j = 0; j < 32; j++)
			if (samples[i].regs[R_XMM0 + j] != ad_xmm[j])
				ok = 0;
	}
	if (facts)
		printf("# %s: %d samples, %d in the loop, count %lu, lost %lu, NMIs %ld\n",
		       e.name, n, in, (unsigned long)count,
		       (unsigned long)lost, nmi);
	snprintf(what, sizeof(what), "%s: %d samples = count %lu / %d, none lost, one PMI each (%ld NMIs)",
		 e.name, n, (unsigned long)count, PERIOD, nmi);
	check(n > 0 && n == (int)(count / PERIOD) && !lost && nmi >= n, what);
	snprintf(what, sizeof(what), "%s: XMM0-15 of the %d samples in the loop are the loop's",
		 e.name, in);
	check(ok && in >= 5 * N_LINES / PERIOD - 1, what);
}

/*
 * A branch stack (any branch, user) with PEBS: the loop's taken jnz ->
 * ld, newest first, as many as taken so far (up to 32)
 */
static void case_branches(void)
{
	static const struct ad_event e = {
		"instructions:u p2 -b", PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_INSTRUCTIONS, 0, 2, PERIOD,
		PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK |
		PERF_SAMPLE_REGS_INTR, GPR_MASK,
		PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER, 0
	};
	uint64_t count, lost;
	long nmi;
	int n = ad_run(&e, NULL, samples, &count, &lost, &nmi, NULL, NULL,
		       NULL);
	int i, j, in = 0, ok = 1, full = 0;
	char what[200];

	for (i = 0; i < n; i++) {
		const struct sample *s = &samples[i];
		int k = loop_pos(s->ip), taken;

		if (facts && (i == 8 || i == 150))
			print_sample(&e, s);
		if (k < 0)
			continue;
		in++;
		taken = regs_after(s, k) - 1;
		if (taken < 0 || s->nbr > 32) {
			if (facts && ok)
				print_sample(&e, s);
			ok = 0;
			continue;
		}
		if (taken >= 32 && s->nbr == 32)
			full++;
		for (j = 0; j < taken && j < (int)s->nbr; j++)
			if (s->br[j][0] != (uint64_t)ad_jnz ||
			    s->br[j][1] != (uint64_t)ad_ld) {
				if (facts && ok)
					printf("# bad entry %d of %d, taken %d\n",
					       j, (int)s->nbr, taken);
				if (facts && ok)
					print_sample(&e, s);
				ok = 0;
			}
	}
	if (facts)
		printf("# %s: %d samples, %d in the loop (%d with 32 loop branches), count %lu, lost %lu, NMIs %ld\n",
		       e.name, n, in, full, (unsigned long)count,
		       (unsigned long)lost, nmi);
	snprintf(what, sizeof(what), "%s: %d samples = count %lu / %d, none lost, large PEBS (%ld NMIs)",
		 e.name, n, (unsigned long)count, PERIOD, nmi);
	check(n > 0 && n == (int)(count / PERIOD) && !lost && 4 * nmi <= n,
	      what);
	snprintf(what, sizeof(what), "%s: 32 entries, the loop's jnz -> ld newest first, in all %d samples in the loop",
		 e.name, in);
	check(ok && in >= 5 * N_LINES / PERIOD - 1 && full > in / 2, what);
	(void)j;
}

/*
 * mem-loads (ldlat 3) and mem-stores at period 1: one sample per access
 * of the loop, at the access (exact), its address, source and weight
 */
static void case_mem(int store)
{
	static const struct ad_event ev[] = {
		{ "mem-loads:upp", PERF_TYPE_RAW, 0x1cd, 3, 2, 1,
		  PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
		  PERF_SAMPLE_DATA_SRC, 0, 0, 0 },
		{ "mem-stores:upp", PERF_TYPE_RAW, 0x82d0, 0, 2, 1,
		  PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
		  PERF_SAMPLE_DATA_SRC, 0, 0, 0 },
	};
	const struct ad_event *e = &ev[store];
	uint64_t count, lost;
	long nmi;
	int n = ad_run(e, NULL, samples, &count, &lost, &nmi, NULL, NULL,
		       NULL);
	int i, in = 0, ok_addr = 1, ok_src = 1, ok_exact = 1, l1 = 0, l2 = 0;
	const char *want = store ? ad_st : ad_ld;
	char what[200];

	for (i = 0; i < n; i++) {
		const struct sample *s = &samples[i];

		if (facts && i < 3)
			print_sample(e, s);
		if (s->ip != (uint64_t)want)
			continue;
		if (facts && (in < 3 || in == 100 || in == 255))
			print_sample(e, s);
		if (s->addr != (uint64_t)buf + 64 * in + 8 * store)
			ok_addr = 0;
		if (!(s->misc & PERF_RECORD_MISC_EXACT_IP))
			ok_exact = 0;
		if (store) {
			if (s->data_src != SRC_STORE_L1 || s->weight)
				ok_src = 0;
		} else if (s->data_src == SRC_LDLAT_L1 && s->weight == 4) {
			l1++;
		} else if (s->data_src == SRC_LDLAT_L2 && s->weight == 14) {
			l2++;
		} else if (!(s->data_src == SRC_LDLAT_L2 && s->weight == 14) &&
			   !(s->data_src == SRC_LDLAT_L3 && s->weight == 42)) {
			ok_src = 0;
		}
		in++;
	}
	if (facts)
		printf("# %s: %d samples, %d at the access (%d L1D, %d L2), count %lu, lost %lu, NMIs %ld\n",
		       e->name, n, in, l1, l2, (unsigned long)count,
		       (unsigned long)lost, nmi);
	/* stock starts a period of 1 at -2: the first sample takes two */
	snprintf(what, sizeof(what), "%s: %d samples = count %lu - 1, none lost, large PEBS (%ld NMIs)",
		 e->name, n, (unsigned long)count, nmi);
	check(n > 0 && n == (int)count - 1 && !lost && 4 * nmi <= n, what);
	snprintf(what, sizeof(what), "%s: %d samples at the access, exact, one per line in order",
		 e->name, in);
	check(in == N_LINES && ok_addr && ok_exact, what);
	snprintf(what, sizeof(what), "%s: data source and weight as stock's%s",
		 e->name, store ? " (L1D hit, 0)" : " (L1D 4, L2 14, L3 42 cycles)");
	check(ok_src, what);
}

/*
 * Two PEBS events on one CPU, one with a basic record (instructions) and
 * one with memory info (mem-loads): each gets exactly its samples
 */
static void case_two(void)
{
	static const struct ad_event e1 = {
		"instructions:upp", PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_INSTRUCTIONS, 0, 2, PERIOD,
		PERF_SAMPLE_IP, 0, 0, 0
	};
	static const struct ad_event e2 = {
		"mem-loads:upp", PERF_TYPE_RAW, 0x1cd, 3, 2, 1,
		PERF_SAMPLE_IP | PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
		PERF_SAMPLE_DATA_SRC, 0, 0, 0
	};
	static struct sample s2[MAX_SAMPLES];
	uint64_t count, count2, lost;
	long nmi;
	int n2 = 0, n = ad_run(&e1, &e2, samples, &count, &lost, &nmi, &n2,
			       &count2, s2);
	int i, in = 0, in2 = 0, ok = 1;
	char what[200];

	for (i = 0; i < n; i++)
		if (loop_pos(samples[i].ip) >= 0)
			in++;
	for (i = 0; i < n2; i++) {
		if (s2[i].ip != (uint64_t)ad_ld)
			continue;
		if (s2[i].addr != (uint64_t)buf + 64 * in2)
			ok = 0;
		in2++;
	}
	if (facts)
		printf("# two events: %d + %d samples (%d, %d in the loop), counts %lu %lu, lost %lu, NMIs %ld\n",
		       n, n2, in, in2, (unsigned long)count,
		       (unsigned long)count2, (unsigned long)lost, nmi);
	/*
	 * the loads' counter starts at -2 (at least two events away): when
	 * enabled alone, and on stock again as the instructions event
	 * joins it (stock schedules the context's events out and in at an
	 * enable; ours leaves the running ones be)
	 */
	snprintf(what, sizeof(what), "instructions:upp + mem-loads:upp: %d = %lu / %d and %d = %lu - 1 or 2 samples, none lost",
		 n, (unsigned long)count, PERIOD, n2, (unsigned long)count2);
	check(n > 0 && n == (int)(count / PERIOD) &&
	      (n2 == (int)count2 - 2 || n2 == (int)count2 - 1) && !lost, what);
	check(ok && in2 == N_LINES && in >= 5 * N_LINES / PERIOD - 1,
	      "instructions:upp + mem-loads:upp: each its own samples, the loads' addresses in order");
}

/* A callchain: one PMI per sample (no large PEBS), none lost */
static void case_callchain(void)
{
	static const struct ad_event e = {
		"instructions:upp -g", PERF_TYPE_HARDWARE,
		PERF_COUNT_HW_INSTRUCTIONS, 0, 2, PERIOD,
		PERF_SAMPLE_IP | PERF_SAMPLE_CALLCHAIN, 0, 0, 0
	};
	uint64_t count, lost;
	long nmi;
	int n = ad_run(&e, NULL, samples, &count, &lost, &nmi, NULL, NULL,
		       NULL);
	char what[200];

	if (facts)
		printf("# %s: %d samples, count %lu, lost %lu, NMIs %ld\n",
		       e.name, n, (unsigned long)count, (unsigned long)lost,
		       nmi);
	snprintf(what, sizeof(what), "%s: %d samples = count %lu / %d, none lost, one PMI each (%ld NMIs)",
		 e.name, n, (unsigned long)count, PERIOD, nmi);
	check(n > 0 && n == (int)(count / PERIOD) && !lost && nmi >= n, what);
}

/* perf_event_open of @e: the errno (0: opened) */
static int open_errno(const struct ad_event *e)
{
	int fd = ad_open(e, -1);

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	return errno;
}

/*
 * XMM registers as user registers: EINVAL whatever the precise level and
 * sample type (only a PEBS record has them, and only the interrupted
 * context's)
 */
static void case_user_xmm(void)
{
	static const struct {
		const char *name;
		int precise;
		uint64_t sample_type, regs;
	} cases[] = {
		{ "user XMM0", 0, PERF_SAMPLE_REGS_USER, 1ULL << 32 },
		{ "user XMM0 at precise_ip 2", 2, PERF_SAMPLE_REGS_USER,
		  1ULL << 32 },
		{ "user AX and XMM15", 0, PERF_SAMPLE_REGS_USER,
		  1 | (1ULL << 62) },
		{ "user XMM0 without REGS_USER", 0, 0, 1ULL << 32 },
	};
	char what[200];
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct perf_event_attr attr = {
			.size = sizeof(attr),
			.type = PERF_TYPE_HARDWARE,
			.config = PERF_COUNT_HW_INSTRUCTIONS,
			.precise_ip = cases[i].precise,
			.sample_period = PERIOD,
			.sample_type = PERF_SAMPLE_IP | cases[i].sample_type,
			.sample_regs_user = cases[i].regs,
			.exclude_kernel = 1,
			.exclude_hv = 1,
			.disabled = 1,
		};
		int fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		int err = fd < 0 ? errno : 0;

		if (fd >= 0)
			close(fd);
		snprintf(what, sizeof(what), "open %s: %s (expected %s)",
			 cases[i].name, err ? strerror(err) : "opened",
			 strerror(EINVAL));
		check(err == EINVAL, what);
	}
}

/* What stock opens and refuses */
static void case_errors(void)
{
	static const struct {
		struct ad_event e;
		int err;
	} cases[] = {
		{ { "XMM registers without precise_ip", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_INSTRUCTIONS, 0, 0, PERIOD,
		    PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR, XMM_MASK, 0, 0 },
		  EINVAL },
		{ { "XMM registers at precise_ip 1", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_INSTRUCTIONS, 0, 1, PERIOD,
		    PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR, XMM_MASK, 0, 0 },
		  0 },
		{ { "mem-loads precise_ip 3", PERF_TYPE_RAW, 0x1cd, 3, 3, 1,
		    PERF_SAMPLE_IP, 0, 0, 0 }, 0 },
		{ { "raw 0xc4 precise_ip 3", PERF_TYPE_RAW, 0xc4, 0, 3, 101,
		    PERF_SAMPLE_IP, 0, 0, 0 }, 0 },
		{ { "cycles precise_ip 3", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_CPU_CYCLES, 0, 3, 2003,
		    PERF_SAMPLE_IP, 0, 0, 0 }, 0 },
		{ { "ref-cycles precise_ip 1", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_REF_CPU_CYCLES, 0, 1, 2003,
		    PERF_SAMPLE_IP, 0, 0, 0 }, 0 },
		{ { "slots precise_ip 1", PERF_TYPE_RAW, 0x400, 0, 1, 2003,
		    PERF_SAMPLE_IP, 0, 0, 0 }, 0 },
		{ { "instructions precise_ip 2 freq 1000", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_INSTRUCTIONS, 0, 2, 1000,
		    PERF_SAMPLE_IP, 0, 0, 1 }, 0 },
		{ { "mem-loads ldlat 0x10000", PERF_TYPE_RAW, 0x1cd, 0x10000,
		    2, 1, PERF_SAMPLE_IP, 0, 0, 0 }, EINVAL },
		{ { "cmask 1 precise_ip 2", PERF_TYPE_RAW, 0x10000c0, 0, 2,
		    PERIOD, PERF_SAMPLE_IP, 0, 0, 0 }, 0 },
		{ { "branch stack call stack precise_ip 2", PERF_TYPE_HARDWARE,
		    PERF_COUNT_HW_INSTRUCTIONS, 0, 2, PERIOD,
		    PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK, 0,
		    PERF_SAMPLE_BRANCH_CALL_STACK | PERF_SAMPLE_BRANCH_USER,
		    0 }, 0 },
	};
	char what[200];
	int i, err;

	for (i = 0; i < (int)(sizeof(cases) / sizeof(cases[0])); i++) {
		err = open_errno(&cases[i].e);
		if (facts)
			printf("# open %s: %s\n", cases[i].e.name,
			       err ? strerror(err) : "ok");
		snprintf(what, sizeof(what), "open %s: %s (expected %s)",
			 cases[i].e.name, err ? strerror(err) : "opened",
			 cases[i].err ? strerror(cases[i].err) : "opened");
		check(err == cases[i].err, what);
	}
}

/* The model's Icelake-PMU: Ice Lake server, perfmon v5 (0017, 0019) */
static int is_icelake_pmu(void)
{
	unsigned int a, b, c, d, model;

	if (!__get_cpuid(1, &a, &b, &c, &d))
		return 0;
	model = ((a >> 4) & 0xf) | ((a >> 12) & 0xf0);
	if (((a >> 8) & 0xf) != 6 || model != 0x6a)
		return 0;
	if (!__get_cpuid(0xa, &a, &b, &c, &d))
		return 0;
	return (a & 0xff) >= 5;
}

int main(int argc, char **argv)
{
	static const struct ad_event insns[] = { INSNS(1), INSNS(2), INSNS(3) };
	int i;

	facts = argc > 1 && !strcmp(argv[1], "facts");
	if (!is_icelake_pmu()) {
		printf("ok # SKIP not the Icelake-PMU model\n");
		return 0;
	}
	unthrottle();
	buf = aligned_alloc(4096, (N_LINES + 1) * 64);
	for (i = 0; i <= N_LINES; i++)
		buf[i * 8] = 0xa000 + i;
	{
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
	for (i = 0; i < 3; i++)
		case_insns(&insns[i]);
	case_xmm();
	case_branches();
	case_mem(0);
	case_mem(1);
	case_two();
	case_callchain();
	case_errors();
	case_user_xmm();
	return fails ? 1 : 0;
}
