// SPDX-License-Identifier: GPL-2.0
/*
 * The user-visible overhead of perf: a fixed workload run plain, under
 * "perf record -F 4000 -g" and under "perf stat -d" (and "perf stat" of
 * four cache events), each as one run of the perf tool from fork to
 * exit. The workloads: busybox gzip of a fixed 512 KiB text file, tcc
 * compiling a fixed C file (skipped without tcc), and true (what perf
 * stat itself costs). At most 3 repetitions: a run takes a second. The rows need the
 * perf tool, which only the tool boot of bench.sh has; elsewhere they
 * are skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perf-bench.h"

#define GZ_IN	"/tmp/pb-gzip.in"
#define CC_IN	"/tmp/pb-cc.c"

/* 512 KiB of words drawn by a fixed LCG: text that compresses about 3:1 */
static int make_gzip_input(void)
{
	static const char *const words[] = {
		"perf", "event", "context", "counter", "sample", "ring", "buffer",
		"group", "leader", "sibling", "cgroup", "task", "switch", "clock",
		"period", "overflow", "record", "mmap", "read", "enable",
	};
	uint32_t x = 12345;
	long n = 0;
	FILE *fp;

	if (!access(GZ_IN, R_OK))
		return 0;
	fp = fopen(GZ_IN, "w");
	if (!fp)
		return fail("create %s: %s", GZ_IN, strerror(errno));
	while (n < (512L << 10)) {
		x = x * 1103515245 + 12345;
		n += fprintf(fp, "%s%c", words[(x >> 16) % 20],
			     (x >> 8) % 11 ? ' ' : '\n');
	}
	return fclose(fp) ? fail("write %s: %s", GZ_IN, strerror(errno)) : 0;
}

/* a C file of 400 small functions, no #include (tcc needs no headers) */
static int make_cc_input(void)
{
	FILE *fp;
	int i;

	if (!access(CC_IN, R_OK))
		return 0;
	fp = fopen(CC_IN, "w");
	if (!fp)
		return fail("create %s: %s", CC_IN, strerror(errno));
	for (i = 0; i < 400; i++)
		fprintf(fp, "int f%d(int *a, int n)\n{\n\tint s = %d, i;\n\n"
			"\tfor (i = 0; i < n; i++)\n\t\ts = s * 31 + a[i] %% %d;\n"
			"\treturn s ^ (s >> %d);\n}\n\n", i, i, i + 1, i % 13);
	return fclose(fp) ? fail("write %s: %s", CC_IN, strerror(errno)) : 0;
}

/* Run @argv with its output to /dev/null; 0 if it exited with 0 */
static int run(char *const argv[])
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (!pid) {
		int fd = open("/dev/null", O_WRONLY);

		dup2(fd, 1);
		dup2(fd, 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return fail("waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail("%s ... %s exited with status 0x%x", argv[0],
			    argv[1] ? argv[1] : "", status);
	return 0;
}

static int have(const char *path)
{
	return !access(path, X_OK);
}

/*
 * m->nr_events picks the workload (0 gzip, 1 tcc, 2 true), m->inherit the tool
 * (0 none, 1 perf record -F 4000 -g, 2 perf stat -d, 3 perf stat of
 * four cache events); one operation is one run.
 */
int b_tool(const struct metric *m, long iters, double *ns)
{
	char *gz[] = { "gzip", "-c", GZ_IN, NULL };
	char *cc[] = { "tcc", "-c", CC_IN, "-o", "/tmp/pb-cc.o", NULL };
	char *rec[] = { "perf", "record", "-q", "-F", "4000", "-g",
			"-o", "/tmp/pb-perf.data", "--" };
	char *stat[] = { "perf", "stat", "-d", "--" };
	char *cache[] = { "perf", "stat", "-e",
			  "L1-dcache-loads:u,L1-dcache-load-misses:u,"
			  "L1-icache-load-misses:u,dTLB-load-misses:u", "--" };
	char *tr[] = { "true", NULL };
	char *const *work = m->nr_events == 2 ? tr : m->nr_events ? cc : gz;
	char *argv[16];
	int n = 0, r, k;

	if (m->inherit && !have("/usr/bin/perf"))
		return skip("no perf tool in this boot (bench.sh's tool boot)");
	if (m->nr_events == 1 && !have("/usr/bin/tcc"))
		return skip("no tcc in this boot");
	if (m->nr_events == 1 ? make_cc_input() :
	    !m->nr_events ? make_gzip_input() : 0)
		return -1;
	switch (m->inherit) {
	case 1:
		memcpy(argv, rec, sizeof(rec));
		n = sizeof(rec) / sizeof(rec[0]);
		break;
	case 2:
		memcpy(argv, stat, sizeof(stat));
		n = sizeof(stat) / sizeof(stat[0]);
		break;
	case 3:
		memcpy(argv, cache, sizeof(cache));
		n = sizeof(cache) / sizeof(cache[0]);
		break;
	}
	for (k = 0; work[k]; k++)
		argv[n++] = work[k];
	argv[n] = NULL;
	for (r = -1; r < reps; r++) {
		uint64_t t0 = rep_begin();

		for (long i = 0; i < iters; i++)
			if (run(argv))
				return -1;
		if (r >= 0)
			ns[r] = (double)(now_ns() - t0) / iters;
	}
	unlink("/tmp/pb-perf.data");
	unlink("/tmp/pb-cc.o");
	return 0;
}
