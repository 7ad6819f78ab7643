// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-pfm: libpfm4 (Debian's libpfm4-dev, static) as its perf_examples
 * "self" uses it, on the calling thread, user mode only: pfm_initialize(),
 * each event of a per-vendor list encoded by
 * pfm_get_os_event_encoding(PFM_PLM3, PFM_OS_PERF_EVENT_EXT), all of them
 * opened as one group (the leader disabled), turned on and off with
 * prctl(PR_TASK_PERF_EVENTS_ENABLE / _DISABLE), read with
 * PERF_FORMAT_GROUP | ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING.
 *
 * Skylake-PMU: INST_RETIRED:ANY_P, BR_INST_RETIRED:ALL_BRANCHES,
 * UNHALTED_REFERENCE_CYCLES (libpfm's fixed-counter-only alias, config
 * 0x0300: fixed counter 2 alone can count it), L1D:REPLACEMENT,
 * MEM_INST_RETIRED:ALL_LOADS, perf::instructions and perf::cycles: the 4
 * general and 3 fixed counters, every one. EPYC-PMU (family 19h, Zen3):
 * RETIRED_INSTRUCTIONS, RETIRED_BRANCH_INSTRUCTIONS,
 * LS_DISPATCH:LD_DISPATCH, REQUESTS_TO_L2_GROUP1:RD_BLK_L (L1D load
 * misses), perf::instructions and perf::cycles: the 6 counters.
 *
 * The workload is pmu-dcache's line sweep: one load a 64-byte line over
 * n = 8192 lines, then 2n, from the same buffer (4 instructions and one
 * branch a line: mov, add, dec, jnz). Each sweep touches more lines per
 * L1D set than its 8 ways, in order, so every load of it misses the L1D
 * whatever the kernel did in between. The group is read around each
 * sweep and the difference of the two deltas (the glue around the
 * sweeps cancels) is exact under the model (pmu-model.rst, "Events"):
 * per extra line 4 instructions, 1 branch, 8 core cycles, 12 reference
 * cycles, 1 load, 1 L1D miss. Up to 3 tries (as pmu-dcache: the glue's
 * own stack lines must meet the same cache both times). Also: the group
 * read holds every event, in the order opened, with the ids
 * PERF_EVENT_IOC_ID gives, enabled = running (no event waited for a
 * counter); before prctl's enable nothing counts and after its disable
 * neither counts nor time moves.
 *
 * Each event's encoding is printed as "attr NAME: ..." lines (type,
 * config, config1, the exclude bits, the flags and cpu libpfm asks for):
 * pmu-pfm.sh compares them with the stock kernel's. Exit status 4
 * (skip) on a CPU that is neither model.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <perfmon/pfmlib_perf_event.h>

#include "pmu-check.h"

#define LINE		64
#define LINES		8192
#define BUF_SIZE	(2UL * LINES * LINE)
#define MAXEV		8
#define TRIES		3

struct pfm_ev {
	const char *name;
	long per_line;		/* expected count per extra line swept */
};

static const struct pfm_ev intel_evs[] = {
	{ "INST_RETIRED:ANY_P", 4 },
	{ "BR_INST_RETIRED:ALL_BRANCHES", 1 },
	{ "UNHALTED_REFERENCE_CYCLES", 12 },
	{ "L1D:REPLACEMENT", 1 },
	{ "MEM_INST_RETIRED:ALL_LOADS", 1 },
	{ "perf::instructions", 4 },
	{ "perf::cycles", 8 },
	{ NULL, 0 }
};

static const struct pfm_ev amd_evs[] = {
	{ "RETIRED_INSTRUCTIONS", 4 },
	{ "RETIRED_BRANCH_INSTRUCTIONS", 1 },
	{ "LS_DISPATCH:LD_DISPATCH", 1 },
	{ "REQUESTS_TO_L2_GROUP1:RD_BLK_L", 1 },
	{ "perf::instructions", 4 },
	{ "perf::cycles", 8 },
	{ NULL, 0 }
};

struct group_read {
	uint64_t nr, enabled, running;
	struct { uint64_t value, id; } cnt[MAXEV];
};

static char *buf;
static int nev, fds[MAXEV];
static uint64_t ids[MAXEV];

/* one load every 64 bytes from @p, @n times */
static void __attribute__((noinline)) sweep(char *p, long n)
{
	if (!n)
		return;
	asm volatile("1:	mov (%0), %%rax\n"
		     "	add %2, %0\n"
		     "	dec %1\n"
		     "	jnz 1b\n"
		     : "+r"(p), "+r"(n) : "r"((long)LINE) : "rax", "memory");
}

static int group_read(struct group_read *r)
{
	size_t want = 3 * 8 + nev * 16;

	return read(fds[0], r, sizeof(*r)) == (ssize_t)want;
}

/* a group read's layout: nr, the times, the events in order, their ids */
static int check_layout(const struct group_read *r, const char *when)
{
	char what[200];
	int i, ok = r->nr == (uint64_t)nev;

	for (i = 0; ok && i < nev; i++)
		ok = r->cnt[i].id == ids[i];
	snprintf(what, sizeof(what),
		 "%s: group read of %" PRIu64 " events (%d), ids in order",
		 when, r->nr, nev);
	check(ok, what);
	return ok;
}

/* the deltas over one sweep of @n; 0 if the group was not on throughout */
static int measure(long n, int64_t *d)
{
	struct group_read r0, r1;
	int i;

	if (!group_read(&r0))
		return 0;
	sweep(buf, n);
	if (!group_read(&r1))
		return 0;
	for (i = 0; i < nev; i++)
		d[i] = r1.cnt[i].value - r0.cnt[i].value;
	return r1.enabled == r1.running && r1.enabled > r0.enabled;
}

static int is_intel(void)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int intel = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f) && intel < 0) {
		if (!strncmp(line, "vendor_id", 9))
			intel = strstr(line, "GenuineIntel") != NULL;
	}
	fclose(f);
	return intel;
}

int main(void)
{
	struct perf_event_attr attr[MAXEV];
	const struct pfm_ev *evs;
	struct group_read r0, r1;
	int64_t d1[MAXEV], d2[MAXEV];
	char what[300];
	int i, t, ret, ok, vendor;

	setvbuf(stdout, NULL, _IOLBF, 0);
	vendor = is_intel();
	if (vendor < 0) {
		printf("ok # SKIP no vendor_id in /proc/cpuinfo\n");
		return 4;
	}
	evs = vendor ? intel_evs : amd_evs;

	ret = pfm_initialize();
	if (ret != PFM_SUCCESS) {
		printf("not ok pfm_initialize: %s\n", pfm_strerror(ret));
		return 1;
	}

	for (nev = 0; evs[nev].name; nev++) {
		pfm_perf_encode_arg_t arg;
		struct perf_event_attr *a = &attr[nev];
		char *fstr = NULL;

		memset(a, 0, sizeof(*a));
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.attr = a;
		arg.fstr = &fstr;
		ret = pfm_get_os_event_encoding(evs[nev].name, PFM_PLM3,
						PFM_OS_PERF_EVENT_EXT, &arg);
		if (ret != PFM_SUCCESS) {
			printf("not ok encode %s: %s\n", evs[nev].name,
			       pfm_strerror(ret));
			return 1;
		}
		printf("attr %s: %s\n", evs[nev].name, fstr);
		printf("attr %s: type %u config %#llx config1 %#llx"
		       " exclude user %d kernel %d hv %d idle %d host %d"
		       " guest %d precise_ip %d cpu %d flags %#x\n",
		       evs[nev].name, a->type, (unsigned long long)a->config,
		       (unsigned long long)a->config1, a->exclude_user,
		       a->exclude_kernel, a->exclude_hv, a->exclude_idle,
		       a->exclude_host, a->exclude_guest, a->precise_ip,
		       arg.cpu, arg.flags);
		free(fstr);
	}

	buf = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (buf == MAP_FAILED) {
		printf("not ok mmap: %s\n", strerror(errno));
		return 1;
	}
	memset(buf, 1, BUF_SIZE);

	/* as "self" opens them: the leader disabled, prctl turns it on */
	for (i = 0; i < nev; i++) {
		attr[i].size = sizeof(attr[i]);
		attr[i].disabled = !i;
		attr[i].read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID |
				      PERF_FORMAT_TOTAL_TIME_ENABLED |
				      PERF_FORMAT_TOTAL_TIME_RUNNING;
		fds[i] = perf_event_open(&attr[i], 0, -1, i ? fds[0] : -1, 0);
		snprintf(what, sizeof(what), "open %s%s", evs[i].name,
			 i ? " into the group" : " as the group leader");
		if (fds[i] < 0) {
			printf("not ok %s: %s\n", what, strerror(errno));
			return 1;
		}
		if (ioctl(fds[i], PERF_EVENT_IOC_ID, &ids[i])) {
			printf("not ok %s: PERF_EVENT_IOC_ID: %s\n", what,
			       strerror(errno));
			return 1;
		}
		check(1, what);
	}

	/* nothing counts before the enable */
	sweep(buf, LINES);
	ok = group_read(&r0);
	check(ok, "group read before PR_TASK_PERF_EVENTS_ENABLE");
	if (!ok || !check_layout(&r0, "disabled"))
		return 1;
	for (i = 0, ok = r0.enabled == 0 && r0.running == 0; i < nev; i++)
		ok &= r0.cnt[i].value == 0;
	snprintf(what, sizeof(what), "before the enable: all counts 0, enabled"
		 " %" PRIu64 " running %" PRIu64 " ns", r0.enabled, r0.running);
	check(ok, what);

	if (prctl(PR_TASK_PERF_EVENTS_ENABLE, 0, 0, 0, 0)) {
		printf("not ok PR_TASK_PERF_EVENTS_ENABLE: %s\n",
		       strerror(errno));
		return 1;
	}
	/* every line of both sweeps out of the L1D */
	sweep(buf, 2 * LINES);
	ok = 0;
	for (t = 1; t <= TRIES && !ok; t++) {
		ok = measure(LINES, d1);
		ok &= measure(2 * LINES, d2);
		snprintf(what, sizeof(what), "try %d: the group counted"
			 " throughout both sweeps (enabled = running)", t);
		check(ok, what);
		for (i = 0; ok && i < nev; i++)
			ok = d2[i] - d1[i] == LINES * evs[i].per_line;
	}
	for (i = 0; i < nev; i++) {
		snprintf(what, sizeof(what), "%s over %d more lines (try %d;"
			 " sweeps %" PRId64 " and %" PRId64 ")", evs[i].name,
			 LINES, t - 1, d1[i], d2[i]);
		check_val(d2[i] - d1[i] == LINES * evs[i].per_line, what,
			  d2[i] - d1[i], LINES * evs[i].per_line);
	}

	if (prctl(PR_TASK_PERF_EVENTS_DISABLE, 0, 0, 0, 0)) {
		printf("not ok PR_TASK_PERF_EVENTS_DISABLE: %s\n",
		       strerror(errno));
		return 1;
	}
	ok = group_read(&r0);
	sweep(buf, LINES);
	ok &= group_read(&r1);
	check(ok, "group reads after PR_TASK_PERF_EVENTS_DISABLE");
	if (!ok || !check_layout(&r1, "enabled and disabled"))
		return 1;
	for (i = 0, ok = 1; i < nev; i++)
		ok &= r1.cnt[i].value == r0.cnt[i].value && r0.cnt[i].value;
	ok &= r1.enabled == r0.enabled && r1.running == r0.running &&
	      r1.enabled == r1.running && r1.enabled > 0;
	snprintf(what, sizeof(what), "after the disable: no count moves over"
		 " a sweep, nor the times (enabled = running)");
	check(ok, what);

	for (i = 0; i < nev; i++)
		close(fds[i]);
	pfm_terminate();
	return fails ? 1 : 0;
}
