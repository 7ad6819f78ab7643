// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-pebs-shared: PEBS records that serve two events, and PEBS samples
 * that find the ring full, held to the stock kernel's results on the
 * Skylake (record format 3) and Ice Lake (adaptive) models.
 *
 * Two load events (MEM_INST_RETIRED.ALL_LOADS, precise_ip 2) in one
 * group count the same loads. Where both counters wrap at one load the
 * model writes one record for both (pmu-model.rst, "PEBS"): each event
 * still gets a sample from it. So each event's ring holds exactly count /
 * period samples (count read at the end), periods 2/2, 2/3 and 4/2 alike,
 * no PERF_RECORD_LOST_SAMPLES and a PERF_FORMAT_LOST of 0; with equal
 * periods the two rings hold the same samples. Stock logs lost samples
 * only for records it cannot tell apart, which neither record format
 * makes.
 *
 * A large-PEBS event (period 1, IP|TID: drained in batches) over 409600
 * loads into a 1 MiB ring: the ring takes as many 24-byte samples as fit,
 * and PERF_FORMAT_LOST counts the rest: samples + lost is the count, less
 * a few loads that wrapped the counter but left no record (3 to 7 on
 * either kernel alone, 17 seen under load: their number follows the
 * interrupts that land in the loop, and under icount the virtual clock
 * counts the other vCPU's instructions too). So the gap may be at most
 * 1/1000 of the count (409): a kernel that counted no lost samples would
 * be 366000 short, one that missed one per drain over 1250 short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

#include "pmu-check.h"
#include "pmu-ring.h"
#include "pmu-unthrottle.h"

#define LOADS		0x81d0		/* MEM_INST_RETIRED.ALL_LOADS */
#define N_LINES		64
#define BIG_LOADS	409600
#define MAX_KEPT	256

void shared_ld(void *buf, long n);
asm(".text\n"
    ".globl shared_ld\n"
    "shared_ld:\n"
    "	mov %rsi, %rcx\n"
    "1:\n"
    "	mov (%rdi), %rax\n"
    "	add $64, %rdi\n"
    "	dec %rcx\n"
    "	jnz 1b\n"
    "	ret\n");

static int open_loads(uint64_t period, uint64_t type, int group)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_RAW,
		.config = LOADS,
		.precise_ip = 2,
		.sample_period = period,
		.sample_type = type,
		.read_format = PERF_FORMAT_LOST,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = group < 0,
	};

	return sys_perf_event_open(&attr, 0, -1, group, 0);
}

/* what a ring holds: samples (the first MAX_KEPT kept), lost records */
struct tally {
	int samples, lost_recs;
	uint64_t kept[MAX_KEPT][2];
};

static void tally_ring(struct perf_event_mmap_page *pc, unsigned char *data,
		       struct tally *t)
{
	uint64_t head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	uint64_t pos = 0;

	memset(t, 0, sizeof(*t));
	if (head > (uint64_t)RING_PAGES * sysconf(_SC_PAGESIZE))
		head = (uint64_t)RING_PAGES * sysconf(_SC_PAGESIZE);
	while (pos < head) {
		struct perf_event_header *h = (void *)(data + pos);
		uint64_t *v = (uint64_t *)(h + 1);

		if (!h->size)
			break;
		if (h->type == PERF_RECORD_SAMPLE) {
			if (t->samples < MAX_KEPT &&
			    h->size >= sizeof(*h) + 2 * sizeof(uint64_t))
				memcpy(t->kept[t->samples], v,
				       sizeof(t->kept[0]));
			t->samples++;
		} else if (h->type == PERF_RECORD_LOST_SAMPLES) {
			t->lost_recs++;
		}
		pos += h->size;
	}
}

static void shared_case(uint64_t p0, uint64_t p1)
{
	static char buf[N_LINES * 64] __attribute__((aligned(64)));
	static struct tally t[2];
	struct perf_event_mmap_page *pc[2];
	unsigned char *data[2];
	uint64_t period[2] = { p0, p1 }, rv[2][2];
	int fd[2], i, same = 1;
	char what[160];

	fd[0] = open_loads(p0, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR, -1);
	fd[1] = fd[0] < 0 ? -1 :
		open_loads(p1, PERF_SAMPLE_IP | PERF_SAMPLE_ADDR, fd[0]);
	snprintf(what, sizeof(what), "periods %llu/%llu: group opened",
		 (unsigned long long)p0, (unsigned long long)p1);
	check(fd[1] >= 0, what);
	if (fd[1] < 0) {
		if (fd[0] >= 0)
			close(fd[0]);
		return;
	}
	for (i = 0; i < 2; i++)
		data[i] = ring_map(fd[i], &pc[i]);
	if (!data[0] || !data[1]) {
		check(0, "rings mapped");
		return;
	}
	shared_ld(buf, N_LINES);		/* warm: no record */
	ioctl(fd[0], PERF_EVENT_IOC_ENABLE, 0);
	shared_ld(buf, N_LINES);
	shared_ld(buf, N_LINES);
	ioctl(fd[0], PERF_EVENT_IOC_DISABLE, 0);
	for (i = 0; i < 2; i++) {
		if (read(fd[i], rv[i], sizeof(rv[i])) != sizeof(rv[i]))
			memset(rv[i], 0xff, sizeof(rv[i]));
		tally_ring(pc[i], data[i], &t[i]);
		snprintf(what, sizeof(what),
			 "periods %llu/%llu: event %d's samples (count %llu / period)",
			 (unsigned long long)p0, (unsigned long long)p1, i,
			 (unsigned long long)rv[i][0]);
		check_val(t[i].samples == (int)(rv[i][0] / period[i]) &&
			  rv[i][0] >= 2 * N_LINES, what, t[i].samples,
			  rv[i][0] / period[i]);
		snprintf(what, sizeof(what),
			 "periods %llu/%llu: event %d: no LOST_SAMPLES record, PERF_FORMAT_LOST 0",
			 (unsigned long long)p0, (unsigned long long)p1, i);
		check(!t[i].lost_recs && !rv[i][1], what);
	}
	check_val(rv[0][0] == rv[1][0], "both events counted the same loads",
		  rv[1][0], rv[0][0]);
	if (p0 == p1) {
		for (i = 0; i < t[0].samples && i < MAX_KEPT; i++)
			if (memcmp(t[0].kept[i], t[1].kept[i],
				   sizeof(t[0].kept[0])))
				same = 0;
		snprintf(what, sizeof(what),
			 "periods %llu/%llu: both rings hold the same IPs and addresses",
			 (unsigned long long)p0, (unsigned long long)p1);
		check(same && t[0].samples == t[1].samples, what);
	}
	for (i = 0; i < 2; i++) {
		ring_unmap(pc[i]);
		close(fd[i]);
	}
}

static void full_ring_case(void)
{
	static char big[4096 * 64] __attribute__((aligned(64)));
	long fit = (long)RING_PAGES * sysconf(_SC_PAGESIZE) /
		   (sizeof(struct perf_event_header) + 2 * sizeof(uint64_t));
	struct perf_event_mmap_page *pc;
	static struct tally t;
	unsigned char *data;
	uint64_t rv[2];
	long i, sum;
	int fd;

	fd = open_loads(1, PERF_SAMPLE_IP | PERF_SAMPLE_TID, -1);
	check(fd >= 0, "large PEBS event opened");
	if (fd < 0)
		return;
	data = ring_map(fd, &pc);
	if (!data) {
		check(0, "ring mapped");
		close(fd);
		return;
	}
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	for (i = 0; i < BIG_LOADS; i += 4096)
		shared_ld(big, 4096);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, rv, sizeof(rv)) != sizeof(rv))
		memset(rv, 0, sizeof(rv));
	tally_ring(pc, data, &t);
	check_val(t.samples == fit, "full ring: as many samples as fit",
		  t.samples, fit);
	check_val(!t.lost_recs, "full ring: no LOST_SAMPLES record (no room)",
		  t.lost_recs, 0);
	sum = t.samples + (long)rv[1];
	printf("# full ring: count %llu, samples %d, lost %llu, gap %lld\n",
	       (unsigned long long)rv[0], t.samples,
	       (unsigned long long)rv[1], (long long)rv[0] - sum);
	check_val(rv[0] >= BIG_LOADS && sum <= (long)rv[0] &&
		  sum >= (long)(rv[0] - rv[0] / 1000),
		  "full ring: samples + PERF_FORMAT_LOST = the count, less <= 1/1000",
		  sum, rv[0]);
	ring_unmap(pc);
	close(fd);
}

int main(void)
{
	if (!cpu_is_intel()) {
		printf("ok # SKIP PEBS is Intel's\n");
		return 0;
	}
	unthrottle();
	shared_case(2, 2);
	shared_case(2, 3);
	shared_case(4, 2);
	full_ring_case();
	return fails ? 1 : 0;
}
