// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-lbr-stack: the LBR call stack (PERF_SAMPLE_BRANCH_CALL_STACK) of a
 * task survives its context switches, on the TCG PMU model (Intel: the
 * legacy LBR's call-stack mode; AMD has none: the open must fail).
 *
 * Two tasks on CPU 0 each sample instructions:u with period 997 and a
 * user call stack. The parent calls f1 > f2 > f3 > f4 > f5 (five nested
 * calls made after the event was enabled), where f5 loops, then blocks
 * in a pipe read while the child runs f3 > f4 > f5 with its own event
 * (so the LBRs hold the child's stack meanwhile), then loops again. Each
 * parent sample taken in either loop must end its stack, newest first,
 * with the five calls: after the switch as before it. The child's
 * samples hold its three, in its own event and in the copy it inherited
 * of the parent's (PERF_SAMPLE_TID tells them apart in the parent's
 * buffer).
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
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-ring.h"
#include "pmu-unthrottle.h"
#include "pmu-check.h"

/*
 * f1(%rdi = iterations, %rsi = function called between the loops):
 * five nested calls, then the loops in f5. f3 may be entered directly.
 */
asm(".text\n"
    ".globl f1, f2, f3, f4, f5, s1, s2, s3, s4, loop1, loop2, f5_end\n"
    "f1:\n"
    "s1:\n\tcall f2\n\tret\n"
    "f2:\n"
    "s2:\n\tcall f3\n\tret\n"
    "f3:\n"
    "s3:\n\tcall f4\n\tret\n"
    "f4:\n"
    "s4:\n\tcall f5\n\tret\n"
    "f5:\n\t"
    "push %rdi\n\t"
    "push %rsi\n\t"
    "mov %rdi, %rcx\n"
    "loop1:\n\t"
    "dec %rcx\n\t"
    "jnz loop1\n\t"
    "call *%rsi\n\t"
    "pop %rsi\n\t"
    "pop %rdi\n\t"
    "mov %rdi, %rcx\n"
    "loop2:\n\t"
    "dec %rcx\n\t"
    "jnz loop2\n\t"
    "ret\n"
    "f5_end:\n");

extern char f1[], f2[], f3[], f4[], f5[], s1[], s2[], s3[], s4[], loop1[], loop2[], f5_end[];
extern void f1_call(long n, void (*between)(void)) asm("f1");
extern void f3_call(long n, void (*between)(void)) asm("f3");

static int go[2], done[2];

static int open_event(int inherit)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_INSTRUCTIONS;
	attr.sample_period = 997;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			   PERF_SAMPLE_BRANCH_STACK;
	attr.inherit = inherit;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_CALL_STACK |
				  PERF_SAMPLE_BRANCH_USER;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	/* an inherited event's buffer is per CPU (both tasks run on 0) */
	return sys_perf_event_open(&attr, 0, inherit ? 0 : -1, -1, 0);
}

/* the parent, between its loops: let the child run, wait for it */
static void parent_between(void)
{
	char ch;

	if (write(go[1], "g", 1) != 1 || read(done[0], &ch, 1) != 1)
		exit(3);
}

static void nothing(void)
{
}

/*
 * Checks the samples in f5's loops: their newest entries must be the
 * calls at @sites (newest first) into the next function.
 */
static int check_samples(const char *who, pid_t pid,
			 struct perf_event_mmap_page *pc, unsigned char *data,
			 char **sites, char **targets, int n, int *before,
			 int *after)
{
	struct ring_iter it;
	uint64_t *p;
	int bad = 0;

	*before = *after = 0;
	ring_iter_start(&it, pc, data);
	/* each sample: ip, pid and tid, nr, nr entries */
	while ((p = ring_next_sample(&it))) {
		struct perf_branch_entry *e;
		uint64_t ip, nr;
		int i, ok;

		ip = p[0];
		if ((pid_t)(uint32_t)p[1] != pid)
			continue;
		nr = p[2];
		e = (void *)&p[3];
		if (ip >= (uintptr_t)loop1 && ip < (uintptr_t)loop2)
			(*before)++;
		else if (ip >= (uintptr_t)loop2 && ip < (uintptr_t)f5_end)
			(*after)++;
		else
			continue;
		ok = nr >= (uint64_t)n;
		/* a NULL site: the call from C, from anywhere */
		for (i = 0; ok && i < n; i++)
			ok = (!sites[i] || e[i].from == (uintptr_t)sites[i]) &&
			     e[i].to == (uintptr_t)targets[i];
		if (!ok && bad++ < 3) {
			printf("# %s: sample at %#llx holds %llu entries:",
			       who, (unsigned long long)ip,
			       (unsigned long long)nr);
			for (i = 0; i < (int)nr && i < 6; i++)
				printf(" %#llx/%#llx",
				       (unsigned long long)e[i].from,
				       (unsigned long long)e[i].to);
			printf("\n");
		}
	}
	return bad;
}

/* the child: waits for the parent to block, runs its three calls */
static int child(void)
{
	char *sites[] = { s4, s3, NULL }, *targets[] = { f5, f4, f3 };
	struct perf_event_mmap_page *pc;
	int fd, bad, before, after;
	unsigned char *data;
	char ch;

	fd = open_event(0);
	if (fd < 0)
		return 2;
	data = ring_map(fd, &pc);
	if (!data)
		return 2;
	if (read(go[0], &ch, 1) != 1)
		return 2;
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	f3_call(50000, nothing);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	bad = check_samples("child", getpid(), pc, data, sites, targets, 3,
			    &before, &after);
	printf("# child: %d + %d samples in the loops, %d bad\n", before,
	       after, bad);
	if (write(done[1], "d", 1) != 1)
		return 2;
	return bad || !before || !after;
}

int main(void)
{
	char *sites[] = { s4, s3, s2, s1, NULL };
	char *targets[] = { f5, f4, f3, f2, f1 };
	char *csites[] = { s4, s3, NULL }, *ctargets[] = { f5, f4, f3 };
	struct perf_event_mmap_page *pc;
	int fd, bad, before, after, status, intel;
	unsigned char *data;
	cpu_set_t set;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	unthrottle();
	intel = cpu_is_intel();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("not ok sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}
	fd = open_event(1);
	if (!intel) {
		/* no call-stack mode in LbrExtV2 */
		check(fd < 0 && errno == EOPNOTSUPP,
		      "amd: call-stack branch sampling refused (EOPNOTSUPP)");
		if (fd < 0)
			printf("# errno %d\n", errno);
		return fails ? 1 : 0;
	}
	if (fd < 0) {
		printf("not ok open: %s\n", strerror(errno));
		return 1;
	}
	data = ring_map(fd, &pc);
	if (!data || pipe(go) || pipe(done)) {
		printf("not ok mmap/pipe: %s\n", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0)
		_exit(child());
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	f1_call(50000, parent_between);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	waitpid(pid, &status, 0);
	check(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	      "the child's samples hold its three calls");
	bad = check_samples("parent", getpid(), pc, data, sites, targets, 5,
			    &before, &after);
	printf("# parent: %d samples before the switch, %d after, %d bad\n",
	       before, after, bad);
	check(before > 10 && after > 10, "parent samples in both loops");
	check(!bad, "the parent's five calls in every sample, after the "
	      "switch as before");
	/* the inherited copy in the child: its three, in this buffer */
	bad = check_samples("inherited", pid, pc, data, csites, ctargets, 3,
			    &before, &after);
	printf("# inherited: %d + %d samples in the loops, %d bad\n", before,
	       after, bad);
	check(before && after && !bad,
	      "the inherited event's samples hold the child's three calls");
	close(fd);
	return fails ? 1 : 0;
}
