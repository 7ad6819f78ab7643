// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-lbr-task: the branch records of one task do not show in another's
 * samples while an event of the CPU keeps the branch stack recording.
 *
 * As root, on CPU 0: a CPU-wide branch-sampling event (branches:u, any
 * branch in user mode, a period too long to sample) keeps the stack
 * recording across context switches. This task samples its own branches
 * (the same filter, period 2) and sleeps while a child runs victim(), a
 * loop of LOOPS jumps, and exits; the stack then holds victim's jumps
 * when this task comes back. No sample of this task may hold a branch
 * from or to victim(): the stack is emptied for a task whose own branch
 * events come on.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#define LOOPS	1000
#define PAGES	64
#define STR_(x)	#x
#define STR(x)	STR_(x)

extern char victim_start[], victim_end[];

/* LOOPS iterations of dec/jnz, between victim_start and victim_end */
static __attribute__((noinline)) void victim(void)
{
	asm volatile(".globl victim_start\n"
		     "victim_start:\n\t"
		     "mov $" STR(LOOPS) ", %%ecx\n"
		     "1:\n\t"
		     "dec %%ecx\n\t"
		     "jnz 1b\n"
		     ".globl victim_end\n"
		     "victim_end:\n\t"
		     : : : "ecx", "cc");
}

static int open_branches(pid_t pid, int cpu, __u64 period, int disabled)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	attr.branch_sample_type = PERF_SAMPLE_BRANCH_ANY |
				  PERF_SAMPLE_BRANCH_USER;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = disabled;
	return sys_perf_event_open(&attr, pid, cpu, -1, 0);
}

static int in_victim(uint64_t addr)
{
	return addr >= (uintptr_t)victim_start && addr < (uintptr_t)victim_end;
}

int main(void)
{
	struct perf_event_mmap_page *pc;
	uint64_t head, pos, samples = 0, leaked = 0, records = 0;
	int cpu_fd, fd, status, go[2];
	long ps = sysconf(_SC_PAGESIZE);
	unsigned char *data;
	cpu_set_t set;
	pid_t pid;
	char c;

	setvbuf(stdout, NULL, _IONBF, 0);
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		printf("not ok sched_setaffinity: %s\n", strerror(errno));
		return 1;
	}
	cpu_fd = open_branches(-1, 0, 1ULL << 40, 0);
	if (cpu_fd < 0) {
		printf("not ok CPU-wide branch event: %s\n", strerror(errno));
		return 1;
	}
	fd = open_branches(0, -1, 2, 1);
	if (fd < 0) {
		printf("not ok task branch event: %s\n", strerror(errno));
		return 1;
	}
	pc = mmap(NULL, (PAGES + 1) * ps, PROT_READ | PROT_WRITE, MAP_SHARED,
		  fd, 0);
	if (pc == MAP_FAILED) {
		printf("not ok mmap: %s\n", strerror(errno));
		return 1;
	}
	data = (unsigned char *)pc + ps;
	if (pipe(go))
		return 1;
	pid = fork();
	if (pid == 0) {
		if (read(go[0], &c, 1) != 1)
			_exit(2);
		victim();
		syscall(SYS_exit_group, 0);
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	/* the child runs victim() while this task waits, off the CPU */
	if (write(go[1], "g", 1) != 1)
		return 1;
	waitpid(pid, &status, 0);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);

	head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	if (head > PAGES * ps)
		head = PAGES * ps;
	for (pos = 0; pos < head; ) {
		struct perf_event_header *h = (void *)(data + pos);
		uint64_t *p = (uint64_t *)(h + 1), nr, i;

		if (!h->size)
			break;
		pos += h->size;
		records++;
		if (h->type != PERF_RECORD_SAMPLE)
			continue;
		samples++;
		nr = p[1];		/* after PERF_SAMPLE_IP */
		for (i = 0; i < nr; i++) {
			struct perf_branch_entry *e =
				(void *)&p[2 + 3 * i];

			if (in_victim(e->from) || in_victim(e->to))
				leaked++;
		}
	}
	printf("%s samples of this task: %llu (of %llu records)\n",
	       samples ? "ok" : "not ok", (unsigned long long)samples,
	       (unsigned long long)records);
	printf("%s branch records from the other task's victim(): %llu "
	       "(expected 0)\n", leaked ? "not ok" : "ok",
	       (unsigned long long)leaked);
	close(fd);
	close(cpu_fd);
	return samples && !leaked ? 0 : 1;
}
