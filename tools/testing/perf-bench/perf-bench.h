/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What perf-bench.c (the metric table, the runner, the hot-path
 * metrics) and scale.c (the scale metrics) share.
 */
#ifndef PERF_BENCH_H
#define PERF_BENCH_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define MAX_EVENTS	256
#define MAX_REPS	31
#define WATCHDOG_S	120	/* per metric, guest seconds */

struct metric;
typedef int (*bench_fn)(const struct metric *m, long iters, double *ns);

struct metric {
	const char *name;
	bench_fn fn;
	long iters;		/* iterations per repetition (before -s) */
	int nr_events;
	int inherit;
	const char *unit;
	int hw;			/* hardware counters, not software events */
	int precise;		/* precise_ip of the sampling event (PEBS) */
	/*
	 * What the row costs without perf, for its own cost: a metric's
	 * name, optionally "*k" (k times it), "-" when the row is already
	 * a difference with the same work unmonitored, NULL for none.
	 */
	const char *floor;
	int size;		/* a scale row: its size; -1: the CPU count */
};

struct sw_event {
	uint64_t config;
	const char *name;
};

extern const struct sw_event sw_events[4];
extern int reps, settle_ms;
extern char errbuf[256];

/* The floor a metric prints (a run-time value: "@ns"), or NULL */
extern char floor_override[64];

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/* what a metric returns when this machine cannot run it (skip()) */
#define SKIPPED		(-2)

int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
	      int group_fd, unsigned long flags);
void sw_attr(struct perf_event_attr *a, int i, int disabled, int inherit,
	     uint64_t read_format);
int open_set(int *fds, int n, int inherit);
void close_set(int *fds, int n);
int read_count(int fd, uint64_t *val);
uint64_t rep_begin(void);
void spin(uint64_t ns);
int open_hw_set(int *fds, int n);
int check_muxed(int *fds, int n);
int sysctl_set(const char *name, long val, long *old);
void insn_loop(long n);

/* what a reader does with the records it drains (ring_drain()) */
struct rec_sink {
	char *out;
	size_t out_len, pos;
	uint64_t samples, lost, throttled, bytes;
};

void ring_drain(struct perf_event_mmap_page *pg, struct rec_sink *sink);

int b_null_syscall(const struct metric *m, long iters, double *ns);
int b_open_close(const struct metric *m, long iters, double *ns);
int b_ctxsw(const struct metric *m, long iters, double *ns);

/* scale.c */
extern char pingpong_cgroup[64];
int cg_enter(const char *dir);
int b_cgroup_switch(const struct metric *m, long iters, double *ns);
int b_open_close_busy(const struct metric *m, long iters, double *ns);
int b_threads(const struct metric *m, long iters, double *ns);
int b_syswide_stat(const struct metric *m, long iters, double *ns);
int b_syswide_record(const struct metric *m, long iters, double *ns);

/* tool.c */
int b_tool(const struct metric *m, long iters, double *ns);

#endif
