// SPDX-License-Identifier: GPL-2.0
/*
 * The BPF side of pmu-bpf (built with clang -target bpf, loaded through
 * libbpf from the ELF object embedded in pmu-bpf):
 *
 * on_sample: a BPF_PROG_TYPE_PERF_EVENT program on a hardware sampling
 * event; each overflow writes the sample's period and IP into the perf
 * event array "samples" and drops the event's own sample (returns 0).
 *
 * on_getppid: a kprobe program on the getppid system call; for the test's
 * own process it takes a branch snapshot (bpf_get_branch_snapshot) into
 * "snap". The helper's documentation asks for it first thing; the two
 * helper calls before it branch only in the kernel, which the test's
 * user-only branch filter does not record.
 *
 * on_getpgid: a kprobe program on the getpgid system call; for the test's
 * own process it reads each event of the perf event array "cpu0"
 * (events bound to CPU 0) with bpf_perf_event_read_value() into "reads",
 * with the CPU it ran on.
 */
#include <linux/bpf.h>
#include <linux/bpf_perf_event.h>
#include <linux/perf_event.h>
#include <bpf/bpf_helpers.h>

#define SNAP_MAX	32

struct snap {
	__u32 pid;		/* set by the test: the process to snapshot */
	__u32 runs;		/* snapshots taken */
	__s64 ret;		/* what the helper returned */
	struct perf_branch_entry e[SNAP_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
} samples SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct snap);
} snap SEC(".maps");

struct out {
	__u64 period;
	__u64 ip;
};

SEC("perf_event")
int on_sample(struct bpf_perf_event_data *ctx)
{
	struct out o = {
		.period = ctx->sample_period,
		.ip = ctx->regs.rip,
	};

	bpf_perf_event_output(ctx, &samples, BPF_F_CURRENT_CPU, &o, sizeof(o));
	return 0;
}

SEC("kprobe")
int on_getppid(void *ctx)
{
	__u32 key = 0;
	struct snap *s = bpf_map_lookup_elem(&snap, &key);
	long ret;

	if (!s || s->pid != bpf_get_current_pid_tgid() >> 32)
		return 0;
	/* straight into the map: the stack has no room for 32 entries */
	ret = bpf_get_branch_snapshot(s->e, sizeof(s->e), 0);
	s->ret = ret;
	s->runs++;
	return 0;
}

#define CPU0_EVENTS	2

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(int));
	__uint(value_size, sizeof(int));
	__uint(max_entries, CPU0_EVENTS);
} cpu0 SEC(".maps");

struct reads {
	__u32 pid;		/* set by the test: the process to read for */
	__u32 runs;
	__u32 cpu;		/* where the program last ran */
	__u32 pad;
	__s64 ret[CPU0_EVENTS];
	struct bpf_perf_event_value v[CPU0_EVENTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct reads);
} reads SEC(".maps");

SEC("kprobe")
int on_getpgid(void *ctx)
{
	__u32 key = 0;
	struct reads *r = bpf_map_lookup_elem(&reads, &key);

	if (!r || r->pid != bpf_get_current_pid_tgid() >> 32)
		return 0;
	r->cpu = bpf_get_smp_processor_id();
	r->ret[0] = bpf_perf_event_read_value(&cpu0, 0, &r->v[0],
					      sizeof(r->v[0]));
	r->ret[1] = bpf_perf_event_read_value(&cpu0, 1, &r->v[1],
					      sizeof(r->v[1]));
	r->runs++;
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
