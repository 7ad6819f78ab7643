// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-bpf: BPF programs on the TCG PMU model's hardware events, through
 * libbpf, the way BPF tools use them (the programs are pmu-bpf.bpf.c,
 * built by clang and embedded here as an ELF object).
 *
 * 1. on_sample, a BPF_PROG_TYPE_PERF_EVENT program, attached with
 *    bpf_program__attach_perf_event() to cycles:u sampling every PERIOD
 *    on this task, writes each sample's period and IP into a perf event
 *    array read with libbpf's perf_buffer. Over a loop of known length:
 *    exactly count / PERIOD records (one per overflow), none lost, each
 *    with period PERIOD and an IP inside the loop.
 * 2. on_getppid, a kprobe program on getppid, calls
 *    bpf_get_branch_snapshot() while an event of this task has the
 *    branch stack recording user branches (ANY | USER). The task, just
 *    before its getppid, runs a loop (taken jnz, over and over) then a
 *    chain of 8 jumps: the snapshot holds the whole stack
 *    (caps/branches entries), newest first the 8 jumps, then the loop's
 *    jnz. Without such an event, the whole stack as it was left.
 * 3. on_getpgid, a kprobe program on getpgid, reads events bound to CPU
 *    0 from a perf event array (bpf_perf_event_read_value(), that is
 *    perf_event_read_local()) while the task runs on CPU 1: the power
 *    PMU's energy-pkg, whose counter is the package's (the PMU's scope),
 *    reads as on CPU 0 when CPU 1 is in CPU 0's package and die, as in
 *    6.12, and is EINVAL from another package (the harness boots one
 *    CPU per socket: the same-package case is bpf_perf's, on a
 *    system-wide test PMU); cpu-clock, a CPU's own, is EINVAL. On CPU 0
 *    both read.
 *
 * Root. Exit 0 on success, 1 on a failed check, 4 when the CPU has no
 * branch stack for part 2 (never on the model).
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
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "perf_sys.h"

#include "pmu-check.h"
#include "pmu-unthrottle.h"

#define PERIOD		100003
#define LOOPS		2000000
#define SNAP_MAX	32
#define CHAIN		8

/* the ELF object of pmu-bpf.bpf.c (pmu-bpf-obj.S) */
extern const char pmu_bpf_obj[], pmu_bpf_obj_end[];

/* must match pmu-bpf.bpf.c */
struct snap {
	uint32_t pid;
	uint32_t runs;
	int64_t ret;
	struct perf_branch_entry e[SNAP_MAX];
};

struct out {
	uint64_t period;
	uint64_t ip;
};

/*
 * count_loop(n): n rounds of dec/jnz. snap_run: 64 rounds of dec/jnz,
 * then jumps bj0 -> bt0 ... bj7 -> bt7, then getppid() through a raw
 * SYSCALL: no user branch between the last jump and the kernel.
 */
asm(".text\n"
    ".globl count_loop, count_loop_end, snap_run, snap_jnz, snap_top\n"
    ".globl bj0, bj1, bj2, bj3, bj4, bj5, bj6, bj7\n"
    ".globl bt0, bt1, bt2, bt3, bt4, bt5, bt6, bt7\n"
    "count_loop:\n\t"
    "mov %rdi, %rcx\n"
    "1:\n\t"
    "dec %rcx\n\t"
    "jnz 1b\n\t"
    "ret\n"
    "count_loop_end:\n"
    "snap_run:\n\t"
    "mov $64, %ecx\n"
    "snap_top:\n\t"
    "dec %ecx\n"
    "snap_jnz:\n\t"
    "jnz snap_top\n"
    "bj0:\tjmp bt0\n\tud2\nbt0:\n"
    "bj1:\tjmp bt1\n\tud2\nbt1:\n"
    "bj2:\tjmp bt2\n\tud2\nbt2:\n"
    "bj3:\tjmp bt3\n\tud2\nbt3:\n"
    "bj4:\tjmp bt4\n\tud2\nbt4:\n"
    "bj5:\tjmp bt5\n\tud2\nbt5:\n"
    "bj6:\tjmp bt6\n\tud2\nbt6:\n"
    "bj7:\tjmp bt7\n\tud2\nbt7:\n\t"
    "mov $110, %eax\n\t"	/* __NR_getppid */
    "syscall\n\t"
    "ret\n");

extern char count_loop[], count_loop_end[], snap_jnz[], snap_top[];
extern char bj0[], bj1[], bj2[], bj3[], bj4[], bj5[], bj6[], bj7[];
extern char bt0[], bt1[], bt2[], bt3[], bt4[], bt5[], bt6[], bt7[];
extern void count_loop_call(long n) asm("count_loop");
extern void snap_run_call(void) asm("snap_run");

/* must match pmu-bpf.bpf.c */
#define CPU0_EVENTS	2

struct reads {
	uint32_t pid;
	uint32_t runs;
	uint32_t cpu;
	uint32_t pad;
	int64_t ret[CPU0_EVENTS];
	struct bpf_perf_event_value v[CPU0_EVENTS];
};

static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int open_event(uint64_t period, uint64_t bst)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_HARDWARE;
	attr.config = PERF_COUNT_HW_CPU_CYCLES;
	attr.sample_period = period;
	attr.sample_type = PERF_SAMPLE_IP;
	if (bst) {
		attr.sample_type |= PERF_SAMPLE_BRANCH_STACK;
		attr.branch_sample_type = bst;
	}
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	attr.disabled = 1;
	return sys_perf_event_open(&attr, 0, -1, -1, 0);
}

struct seen {
	long n, bad_period, bad_ip;
	unsigned long long lost;
};

static void on_out(void *ctx, int cpu, void *data, __u32 size)
{
	struct seen *s = ctx;
	struct out *o = data;

	s->n++;
	if (size < sizeof(*o) || o->period != PERIOD)
		s->bad_period++;
	else if (o->ip < (uintptr_t)count_loop ||
		 o->ip >= (uintptr_t)count_loop_end)
		s->bad_ip++;
}

static void on_lost(void *ctx, int cpu, __u64 cnt)
{
	((struct seen *)ctx)->lost += cnt;
}

static void part_sample(struct bpf_object *obj)
{
	struct bpf_program *prog;
	struct perf_buffer *pb;
	struct bpf_link *link;
	struct seen s = { 0 };
	uint64_t count = 0;
	char buf[160];
	int fd;

	fd = open_event(PERIOD, 0);
	check(fd >= 0, "cycles:u sampling event opens");
	if (fd < 0)
		return;
	prog = bpf_object__find_program_by_name(obj, "on_sample");
	link = prog ? bpf_program__attach_perf_event(prog, fd) : NULL;
	check(link != NULL, "on_sample attaches to it (libbpf)");
	pb = perf_buffer__new(bpf_object__find_map_fd_by_name(obj, "samples"),
			      64, on_out, on_lost, &s, NULL);
	check(pb != NULL, "libbpf's perf_buffer on the perf event array");
	if (!link || !pb)
		goto out;

	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	count_loop_call(LOOPS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	perf_buffer__consume(pb);

	snprintf(buf, sizeof(buf), "cycles:u over %d loops: %llu", LOOPS,
		 (unsigned long long)count);
	check(count >= LOOPS, buf);
	check_val(s.n == (long)(count / PERIOD),
		  "records the program wrote (one per overflow)", s.n,
		  count / PERIOD);
	check_val(!s.lost, "records lost", s.lost, 0);
	check_val(!s.bad_period, "records whose period is not the event's",
		  s.bad_period, 0);
	check_val(!s.bad_ip, "records whose IP is outside the loop",
		  s.bad_ip, 0);
out:
	perf_buffer__free(pb);
	bpf_link__destroy(link);
	close(fd);
}

static int lbr_depth(void)
{
	FILE *fp = fopen("/sys/bus/event_source/devices/cpu/caps/branches",
			 "r");
	int n = 0;

	if (fp && fscanf(fp, "%d", &n) != 1)
		n = 0;
	if (fp)
		fclose(fp);
	return n;
}

/* Runs snap_run with @fd (or none) enabled; the snapshot it got. */
static int snapshot(int map, int fd, struct snap *s)
{
	uint32_t key = 0;

	memset(s, 0, sizeof(*s));
	s->pid = getpid();
	if (bpf_map_update_elem(map, &key, s, BPF_ANY))
		return -1;
	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	snap_run_call();
	if (fd >= 0)
		ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	return bpf_map_lookup_elem(map, &key, s);
}

static void part_snapshot(struct bpf_object *obj)
{
	char *from[CHAIN] = { bj7, bj6, bj5, bj4, bj3, bj2, bj1, bj0 };
	char *to[CHAIN] = { bt7, bt6, bt5, bt4, bt3, bt2, bt1, bt0 };
	int depth = lbr_depth(), want, i, fd, map, bad;
	struct bpf_program *prog;
	struct bpf_link *link;
	struct snap s;
	char buf[160];

	want = depth < SNAP_MAX ? depth : SNAP_MAX;
	prog = bpf_object__find_program_by_name(obj, "on_getppid");
	link = prog ? bpf_program__attach_kprobe(prog, false,
						 "__x64_sys_getppid") : NULL;
	check(link != NULL, "on_getppid attaches to __x64_sys_getppid (libbpf)");
	map = bpf_object__find_map_fd_by_name(obj, "snap");
	if (!link || map < 0)
		goto out;

	/*
	 * No event records branches: the stack holds what it last recorded
	 * (6.12 copies it all the same)
	 */
	check(!snapshot(map, -1, &s) && s.runs == 1,
	      "the program ran once without a branch event");
	check_val(s.ret == (int64_t)(want * sizeof(struct perf_branch_entry)),
		  "snapshot bytes without a branch event", s.ret,
		  want * sizeof(struct perf_branch_entry));

	fd = open_event(1ULL << 40, PERF_SAMPLE_BRANCH_ANY |
				    PERF_SAMPLE_BRANCH_USER);
	check(fd >= 0, "cycles:u with a user branch stack opens");
	if (fd < 0)
		goto out;
	check(!snapshot(map, fd, &s) && s.runs == 1,
	      "the program ran once with the branch event on");
	check_val(s.ret == (int64_t)(want * sizeof(struct perf_branch_entry)),
		  "snapshot bytes (the whole stack)", s.ret,
		  want * sizeof(struct perf_branch_entry));
	for (i = 0, bad = 0; i < CHAIN; i++) {
		snprintf(buf, sizeof(buf),
			 "entry %d: %#llx -> %#llx, the jump %p -> %p", i,
			 (unsigned long long)s.e[i].from,
			 (unsigned long long)s.e[i].to, from[i], to[i]);
		check(s.e[i].from == (uintptr_t)from[i] &&
		      s.e[i].to == (uintptr_t)to[i], buf);
	}
	for (i = CHAIN; i < want; i++)
		bad += s.e[i].from != (uintptr_t)snap_jnz ||
		       s.e[i].to != (uintptr_t)snap_top;
	check_val(!bad, "older entries that are not the loop's jnz", bad, 0);
	close(fd);
out:
	bpf_link__destroy(link);
}

static int power_type(void)
{
	FILE *fp = fopen("/sys/bus/event_source/devices/power/type", "r");
	int type = -1;

	if (fp) {
		if (fscanf(fp, "%d", &type) != 1)
			type = -1;
		fclose(fp);
	}
	return type;
}

/* a counting event bound to CPU 0 */
static int open_cpu0(uint32_t type, uint64_t config)
{
	struct perf_event_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = type;
	attr.config = config;
	return sys_perf_event_open(&attr, -1, 0, -1, 0);
}

static int topo_id(int cpu, const char *what)
{
	char path[128];
	FILE *fp;
	int id = -1;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, what);
	fp = fopen(path, "r");
	if (fp) {
		if (fscanf(fp, "%d", &id) != 1)
			id = -1;
		fclose(fp);
	}
	return id;
}

/* on_getpgid's reads of the "cpu0" events from @cpu */
static int read_from(int map, int cpu, struct reads *r)
{
	uint32_t key = 0;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return -1;
	memset(r, 0, sizeof(*r));
	r->pid = getpid();
	if (bpf_map_update_elem(map, &key, r, BPF_ANY))
		return -1;
	syscall(SYS_getpgid, 0);
	return bpf_map_lookup_elem(map, &key, r);
}

static void part_read_other_cpu(struct bpf_object *obj)
{
	int type = power_type(), pkg = -1, clk = -1, arr, map, key, same;
	struct bpf_program *prog;
	struct bpf_link *link;
	struct reads r;
	char buf[200];

	prog = bpf_object__find_program_by_name(obj, "on_getpgid");
	link = prog ? bpf_program__attach_kprobe(prog, false,
						 "__x64_sys_getpgid") : NULL;
	check(link != NULL, "on_getpgid attaches to __x64_sys_getpgid (libbpf)");
	arr = bpf_object__find_map_fd_by_name(obj, "cpu0");
	map = bpf_object__find_map_fd_by_name(obj, "reads");
	check(type > 0, "the power PMU is registered");
	if (!link || arr < 0 || map < 0 || type <= 0)
		goto out;
	pkg = open_cpu0(type, 2);
	clk = open_cpu0(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
	check(pkg >= 0 && clk >= 0, "energy-pkg and cpu-clock open on CPU 0");
	if (pkg < 0 || clk < 0)
		goto out;
	key = 0;
	check(!bpf_map_update_elem(arr, &key, &pkg, BPF_ANY),
	      "energy-pkg into the perf event array");
	key = 1;
	check(!bpf_map_update_elem(arr, &key, &clk, BPF_ANY),
	      "cpu-clock into the perf event array");
	/* some energy and time to read */
	count_loop_call(LOOPS);

	same = topo_id(0, "physical_package_id") ==
	       topo_id(1, "physical_package_id") &&
	       topo_id(0, "die_id") == topo_id(1, "die_id");
	check(!read_from(map, 1, &r) && r.runs == 1 && r.cpu == 1,
	      "the program ran once, on CPU 1");
	snprintf(buf, sizeof(buf),
		 "energy-pkg of CPU 0 read on CPU 1 (%s package): %lld, count %llu enabled %llu running %llu",
		 same ? "the same" : "another", (long long)r.ret[0],
		 (unsigned long long)r.v[0].counter,
		 (unsigned long long)r.v[0].enabled,
		 (unsigned long long)r.v[0].running);
	if (same)
		check(r.ret[0] == 0 && r.v[0].counter > 0 &&
		      r.v[0].enabled > 0 && r.v[0].running > 0, buf);
	else
		check(r.ret[0] == -EINVAL, buf);
	check_val(r.ret[1] == -EINVAL, "cpu-clock of CPU 0 read on CPU 1",
		  r.ret[1], -EINVAL);

	check(!read_from(map, 0, &r) && r.runs == 1 && r.cpu == 0,
	      "the program ran once, on CPU 0");
	check_val(r.ret[0] == 0, "energy-pkg read on CPU 0", r.ret[0], 0);
	check_val(r.ret[1] == 0, "cpu-clock read on CPU 0", r.ret[1], 0);
out:
	if (pkg >= 0)
		close(pkg);
	if (clk >= 0)
		close(clk);
	bpf_link__destroy(link);
}

int main(void)
{
	struct bpf_object *obj;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* a debug kernel's slow PMIs must not throttle the sampled loop */
	unthrottle();
	libbpf_set_print(quiet);
	obj = bpf_object__open_mem(pmu_bpf_obj, pmu_bpf_obj_end - pmu_bpf_obj,
				   NULL);
	err = libbpf_get_error(obj);
	check(!err, "the BPF object opens (libbpf)");
	if (err)
		return 1;
	err = bpf_object__load(obj);
	check(!err, "its programs and maps load");
	if (err)
		return 1;
	part_sample(obj);
	if (lbr_depth() > 0)
		part_snapshot(obj);
	else
		printf("# no branch stack: snapshot part not run\n");
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		part_read_other_cpu(obj);
	else
		printf("# one CPU: the read from another CPU not run\n");
	bpf_object__close(obj);
	return fails ? 1 : 0;
}
