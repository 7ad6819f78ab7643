// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-lbr-type: the branch type (PERF_SAMPLE_BRANCH_TYPE_SAVE) and the
 * hardware index (PERF_SAMPLE_BRANCH_HW_INDEX) of branch records on the
 * TCG PMU model, as root.
 *
 * Types: user-mode instructions are sampled with period 97, recording
 * user and kernel branches, while blob() runs one instance of each
 * branch kind: jmp rel8, jmp
 * rel32, jmp through a register, call rel32, call through a register,
 * ret, jcc rel32 and rel8 (taken), a syscall (getppid) and the sysret
 * back. Every record from or to blob() is reduced to "FROM TO type
 * new_type spec priv", FROM and TO being blob()'s labels, "K" for a
 * kernel address, "C" for main()'s code, "@" for any other address in
 * blob() (an interrupt's return lands anywhere), and the sorted set of
 * distinct lines must be the expected table (6.12 on the model). The
 * decoding reads the instruction at FROM, so a type needs no hardware
 * support. Samples are taken in user mode only: the stack then always
 * reaches back to the sysret, but the syscall shows only when the
 * kernel's getppid path took fewer branches than the stack holds (not
 * on a debug kernel): that line is checked when it appears.
 *
 * Hardware index: instructions:u with period 1000 on a loop of dec/jnz
 * (two instructions, one taken branch), recording conditional branches
 * in user mode only: between two samples exactly 500 branches were
 * recorded, so hw_idx (the index of the newest record, the top of the
 * stack) advances by 500 modulo the depth on Intel. It must lie in
 * [0, depth). On AMD (LbrExtV2 has no top of stack, its entry 0 is the
 * newest) it is 0; with architectural LBRs (0018) stock reports -1
 * (no index), or in some boots 0, now that the model's arch-LBR CPU has
 * adaptive PEBS (0019; 0 before). The model's
 * LbrExtV2 entries are all retired branches: spec is
 * PERF_BR_NON_SPEC_CORRECT_PATH there, in every mode, and
 * PERF_BR_SPEC_NA on Intel. Without TYPE_SAVE no record has a type,
 * except with architectural LBRs (their LBR_INFO has it).
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-ring.h"
#include "pmu-unthrottle.h"

extern char blob[], blob_end[], loop_blob[], loop_blob_end[];

/* one of each kind per iteration; %rdi iterations */
asm(".text\n"
    ".globl blob, blob_end\n"
    "blob:\n\t"
    "mov %rdi, %rcx\n"
    "top:\n"
    "jmp8:\n\t"
    "jmp a\n"
    "a:\n"
    "jmp32:\n\t"
    ".byte 0xe9\n\t.long 0\n"
    "b:\n\t"
    "lea c(%rip), %rax\n"
    "ijmp:\n\t"
    "jmp *%rax\n"
    "c:\n"
    "call32:\n\t"
    "call fn\n"
    "d:\n\t"
    "lea fn(%rip), %rax\n"
    "icall:\n\t"
    "call *%rax\n"
    "e:\n\t"
    "push %rcx\n\t"
    "mov $110, %eax\n"		/* getppid */
    "sys:\n\t"
    "syscall\n"
    "f:\n\t"
    "pop %rcx\n\t"
    "cmp %eax, %eax\n"
    "jcc32:\n\t"
    ".byte 0x0f, 0x84\n\t.long 0\n"
    "g:\n\t"
    "dec %rcx\n"
    "jcc8:\n\t"
    "jnz top\n"
    "out:\n\t"
    "ret\n"
    "fn:\n"
    "ret_:\n\t"
    "ret\n"
    "blob_end:\n"
    ".globl loop_blob, loop_blob_end\n"
    "loop_blob:\n\t"
    "mov %rdi, %rcx\n"
    "1:\n\t"
    "dec %rcx\n\t"
    "jnz 1b\n\t"
    "ret\n"
    "loop_blob_end:\n");

extern char top[], jmp8[], a[], jmp32[], b[], ijmp[], c[], call32[], d[],
	icall[], e[], sys[], f[], jcc32[], g[], jcc8[], out[], fn[], ret_[];

/* branch sites first: a site may also be the target of the branch before */
static const struct {
	const char *name;
	char *addr;
} sites[] = {
	{ "jmp8", jmp8 }, { "jmp32", jmp32 }, { "ijmp", ijmp },
	{ "call32", call32 }, { "icall", icall }, { "sys", sys },
	{ "jcc32", jcc32 }, { "jcc8", jcc8 }, { "out", out }, { "ret", ret_ },
}, targets[] = {
	{ "blob", blob }, { "top", top }, { "a", a }, { "b", b }, { "c", c },
	{ "d", d }, { "e", e }, { "f", f }, { "g", g }, { "fn", fn },
};

/* the table of 6.12 on the model: "FROM TO type new_type spec priv" */
static const char *const expect[] = {
	"K f 8 0 0",
	"call32 fn 4 0 0",
	"icall fn 5 0 0",
	"ijmp c 3 0 0",
	"jcc32 g 1 0 0",
	"jcc8 top 1 0 0",
	"jmp32 b 2 0 0",
	"jmp8 a 2 0 0",
	"ret d 6 0 0",
	"ret e 6 0 0",
	/* seen if the kernel's path is short; blob()'s return if a sample
	 * comes soon after it
	 */
	"sys K 7 0 0",
	"out C 6 0 0",
};
#define NEXPECT_SEEN	(sizeof(expect) / sizeof(expect[0]) - 2)

static int fails;

static void check(int ok, const char *fmt, const char *what)
{
	printf("%s ", ok ? "ok" : "not ok");
	printf(fmt, what);
	printf("\n");
	if (!ok)
		fails++;
}

static int open_event(uint64_t bst, int user_only, uint64_t period)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = bst;
	attr.exclude_kernel = user_only;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

/* @addr's name as the source (@from) or the target of a branch */
static const char *label(uint64_t addr, int from)
{
	unsigned int i;

	if (addr >= 0xffff800000000000ULL)
		return "K";
	for (i = 0; from && i < sizeof(sites) / sizeof(sites[0]); i++)
		if (addr == (uintptr_t)sites[i].addr)
			return sites[i].name;
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++)
		if (addr == (uintptr_t)targets[i].addr)
			return targets[i].name;
	for (i = 0; !from && i < sizeof(sites) / sizeof(sites[0]); i++)
		if (addr == (uintptr_t)sites[i].addr)
			return sites[i].name;
	if (addr >= (uintptr_t)blob && addr < (uintptr_t)blob_end)
		return "@";
	return "C";
}

static int in_blob(uint64_t addr)
{
	return addr >= (uintptr_t)blob && addr < (uintptr_t)blob_end;
}

static int cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static char *lines[4096];
static int nirq, nlines, bad_spec, spec_want, plain_typed, plain_spec;

/* without TYPE_SAVE: no type */
static void plain_of(uint64_t ip, uint64_t hw_idx, uint64_t nr,
		     struct perf_branch_entry *e)
{
	uint64_t i;

	for (i = 0; i < nr; i++)
		if (e[i].type || e[i].new_type || e[i].priv)
			plain_typed++;
		else if (e[i].spec != spec_want)
			plain_spec++;
}

static void types_of(uint64_t ip, uint64_t hw_idx, uint64_t nr,
		     struct perf_branch_entry *e)
{
	char line[128];
	uint64_t i;
	int j;

	for (i = 0; i < nr; i++) {
		if (!in_blob(e[i].from) && !in_blob(e[i].to))
			continue;
		/*
		 * an interrupt or exception into the kernel, and its return
		 * (an iret: to f too, where an interrupt pending at the
		 * sysret is taken; the sysret's own record must be seen)
		 */
		if ((in_blob(e[i].from) && e[i].from != (uintptr_t)sys &&
		     e[i].to >= 0xffff800000000000ULL) ||
		    (in_blob(e[i].to) &&
		     (e[i].to != (uintptr_t)f || e[i].type == PERF_BR_ERET) &&
		     e[i].from >= 0xffff800000000000ULL)) {
			if (nirq++ < 8)
				printf("# irq %s/%s %#llx -> %#llx type %u\n",
				       label(e[i].from, 1), label(e[i].to, 0),
				       (unsigned long long)e[i].from,
				       (unsigned long long)e[i].to,
				       (unsigned int)e[i].type);
			continue;
		}
		if (e[i].spec != spec_want)
			bad_spec++;
		snprintf(line, sizeof(line), "%s %s %u %u %u",
			 label(e[i].from, 1), label(e[i].to, 0),
			 (unsigned int)e[i].type, (unsigned int)e[i].new_type,
			 (unsigned int)e[i].priv);
		for (j = 0; j < nlines; j++)
			if (!strcmp(lines[j], line))
				break;
		if (j == nlines && nlines < 4096)
			lines[nlines++] = strdup(line);
	}
}

static int depth, nidx, bad_idx, deltas[64], last_idx = -1, first_idx = -1;
static int loop_samples, no_idx;

static void idx_of(uint64_t ip, uint64_t hw_idx, uint64_t nr,
		   struct perf_branch_entry *e)
{
	if (ip < (uintptr_t)loop_blob || ip >= (uintptr_t)loop_blob_end) {
		last_idx = -1;
		return;
	}
	loop_samples++;
	if (hw_idx == ~0ULL)
		no_idx++;
	if (hw_idx >= (uint64_t)depth) {
		if (bad_idx++ < 3)
			printf("# hw_idx %#llx\n", (unsigned long long)hw_idx);
		last_idx = -1;
		return;
	}
	if (loop_samples == 1) {
		printf("# first hw_idx %llu\n", (unsigned long long)hw_idx);
		first_idx = hw_idx;
	}
	if (last_idx >= 0) {
		deltas[(hw_idx - last_idx) & (depth - 1)]++;
		nidx++;
	}
	last_idx = hw_idx;
}

/*
 * Samples @code(@iters) with @bst and @period, then calls @fn for each
 * sample (ip, nr, hw_idx, nr entries). Returns the number of samples, or
 * -1 when the event (named @what) or its ring cannot be had.
 */
static int record(const char *what, uint64_t bst, uint64_t period,
		  char *code, long iters,
		  void (*fn)(uint64_t ip, uint64_t hw_idx, uint64_t nr,
			     struct perf_branch_entry *e))
{
	struct perf_event_mmap_page *pc;
	struct ring_iter it;
	unsigned char *data;
	uint64_t *p;
	int fd, n = 0;

	fd = open_event(bst, 1, period);
	if (fd < 0) {
		printf("not ok open (%s): %s\n", what, strerror(errno));
		return -1;
	}
	data = ring_map(fd, &pc);
	if (!data) {
		printf("not ok mmap: %s\n", strerror(errno));
		return -1;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	((void (*)(long))code)(iters);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ring_iter_start(&it, pc, data);
	while ((p = ring_next_sample(&it))) {
		fn(p[0], p[2], p[1], (void *)&p[3]);
		n++;
	}
	/* the checks need only what @fn kept */
	ring_unmap(pc);
	close(fd);
	return n;
}

int main(void)
{
	int i, n, intel, arch;
	FILE *fp;

	setvbuf(stdout, NULL, _IONBF, 0);
	unthrottle();
	fp = fopen("/sys/bus/event_source/devices/cpu/caps/branches", "r");
	if (!fp || fscanf(fp, "%d", &depth) != 1 || depth <= 0) {
		printf("not ok no caps/branches\n");
		return 1;
	}
	fclose(fp);
	intel = cpu_is_intel();
	/* architectural LBRs (0018): no top of stack, as AMD's */
	arch = !system("grep -qw arch_lbr /proc/cpuinfo");
	printf("# %s%s, %d entries\n", intel ? "intel" : "amd",
	       arch ? " (architectural LBRs)" : "", depth);
	/* LbrExtV2 says whether a branch was speculative; legacy LBR not */
	spec_want = intel ? PERF_BR_SPEC_NA : PERF_BR_NON_SPEC_CORRECT_PATH;

	/* the types */
	n = record("types", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		   PERF_SAMPLE_BRANCH_KERNEL | PERF_SAMPLE_BRANCH_TYPE_SAVE |
		   PERF_SAMPLE_BRANCH_HW_INDEX, 97, blob, 1000, types_of);
	if (n < 0)
		return 1;
	qsort(lines, nlines, sizeof(lines[0]), cmp);
	printf("# %d samples, %d distinct records of blob()\n", n, nlines);
	for (i = 0; i < nlines; i++) {
		unsigned int j;

		for (j = 0; j < sizeof(expect) / sizeof(expect[0]); j++)
			if (!strcmp(expect[j], lines[i]))
				break;
		check(j < sizeof(expect) / sizeof(expect[0]),
		      "record %s is expected", lines[i]);
	}
	check(!bad_spec, "every record's spec is %s",
	      intel ? "0 (not available)" : "2 (non-speculative, correct path)");
	for (i = 0; i < (int)NEXPECT_SEEN; i++) {
		int j;

		for (j = 0; j < nlines; j++)
			if (!strcmp(expect[i], lines[j]))
				break;
		check(j < nlines, "record %s seen", expect[i]);
	}

	/* no TYPE_SAVE */
	n = record("plain", PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER |
		   PERF_SAMPLE_BRANCH_HW_INDEX, 997, blob, 300, plain_of);
	if (n < 0)
		return 1;
	printf("# plain: %d samples, %d typed, %d other spec\n", n,
	       plain_typed, plain_spec);
	if (arch)
		/* architectural LBRs (0018): LBR_INFO has the type */
		check(n > 0 && plain_typed, "%s", "architectural LBRs: "
		      "records have a type without TYPE_SAVE");
	else
		check(n > 0 && !plain_typed, "%s",
		      "without TYPE_SAVE no record has a type");
	check(n > 0 && !plain_spec, "%s", "without TYPE_SAVE the same spec");

	/* the hardware index */
	if (record("hw_idx", PERF_SAMPLE_BRANCH_COND | PERF_SAMPLE_BRANCH_USER |
		   PERF_SAMPLE_BRANCH_HW_INDEX, 1000, loop_blob, 30000,
		   idx_of) < 0)
		return 1;
	printf("# %d samples in the loop, %d hw_idx out of range, %d deltas\n",
	       loop_samples, bad_idx, nidx);
	for (i = 0; i < depth; i++)
		if (deltas[i])
			printf("# delta %d: %d\n", i, deltas[i]);
	if (intel && !arch) {
		check(loop_samples >= 50, "%s", "samples in the loop");
		check(!bad_idx, "%s", "hw_idx below the depth");
		check(nidx >= 49 && deltas[500 & (depth - 1)] >= nidx - 2,
		      "%s", "hw_idx advances by the branches between samples");
	} else if (arch) {
		/*
		 * architectural LBRs with adaptive PEBS (the model's 0019 on
		 * this CPU model): stock reports no hardware index (-1), or
		 * in some boots 0 (entry 0 is the newest), in every sample
		 */
		check(loop_samples >= 50 &&
		      (no_idx == loop_samples ||
		       (first_idx == 0 && deltas[0] == nidx)), "%s",
		      "hw_idx is -1 (not available) or 0 in every sample");
	} else {
		check(loop_samples >= 50 && first_idx == 0 &&
		      deltas[0] == nidx, "%s",
		      "hw_idx is 0 in every sample (entry 0 is the newest)");
	}
	return fails ? 1 : 0;
}
