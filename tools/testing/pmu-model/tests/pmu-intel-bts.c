// SPDX-License-Identifier: GPL-2.0
/*
 * The intel_bts PMU (0021): the branch trace store written straight into
 * an event's AUX area, 24-byte records {from, to, flags}, what perf's
 * intel_bts decoder reads. A loop of N iterations leaves N - 1 records
 * from its jnz to its dec; the data ring gets ITRACE_START and one
 * PERF_RECORD_AUX per stretch written. As 6.12: any attr opens, one
 * event a context and none beside a branch stack or legacy BTS event
 * (EBUSY), areas of any power-of-two size; a writable area the loop
 * overfills ends TRUNCATED with whole records (where its stretches end
 * is the driver's choice, printed); an overwrite area holds the newest
 * records, one AUX record at aux_head for the whole area. The records
 * name kernel addresses whatever the attr excludes, so an unprivileged
 * user needs perf_event_paranoid <= 1 (EACCES at 2). With no area to
 * store into the event is not put on the CPU: a flexible one runs once
 * an area is mapped and its task is scheduled in again, a pinned one
 * goes into error (read: 0 bytes) and stays there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <linux/perf_event.h>

#include "perf_sys.h"
#include "pmu-bts.h"
#include "pmu-check.h"
#include "pmu-ring.h"
#include "pmu-unthrottle.h"

#define LOOPS		5000
#define DATA_PAGES	16
#define BTS_DIR		"/sys/bus/event_source/devices/intel_bts"

static int bts_type = -1;

static void ibts_attr(struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = bts_type;
	attr->exclude_kernel = 1;
	attr->disabled = 1;
}

struct area {
	int fd;
	struct perf_event_mmap_page *pc;
	unsigned char *data, *aux;
	size_t aux_size;
};

static int area_map(struct area *a, int aux_pages, int prot)
{
	long ps = sysconf(_SC_PAGESIZE);

	a->pc = mmap(NULL, (DATA_PAGES + 1) * ps, PROT_READ | PROT_WRITE,
		     MAP_SHARED, a->fd, 0);
	if (a->pc == MAP_FAILED)
		return -errno;
	a->data = (unsigned char *)a->pc + ps;
	a->aux_size = aux_pages * ps;
	a->pc->aux_offset = (DATA_PAGES + 1) * ps;
	a->pc->aux_size = a->aux_size;
	a->aux = mmap(NULL, a->aux_size, prot, MAP_SHARED, a->fd,
		      a->pc->aux_offset);
	if (a->aux == MAP_FAILED) {
		int err = errno;

		munmap(a->pc, (DATA_PAGES + 1) * ps);
		return -err;
	}
	return 0;
}

static void area_unmap(struct area *a)
{
	long ps = sysconf(_SC_PAGESIZE);

	munmap(a->aux, a->aux_size);
	munmap(a->pc, (DATA_PAGES + 1) * ps);
}

struct seen {
	int aux_recs, itrace, other;
	uint64_t aux_bytes, first_off, flags_or;
	uint64_t loop, kfrom, kto, rest, flagged, zero;
};

/* the data ring's records, then the AUX records of each PERF_RECORD_AUX */
static void walk(struct area *a, struct seen *s, int verbose)
{
	uint64_t head = __atomic_load_n(&a->pc->data_head, __ATOMIC_ACQUIRE);
	long ps = sysconf(_SC_PAGESIZE);
	uint64_t pos = 0;

	memset(s, 0, sizeof(*s));
	if (head > (uint64_t)DATA_PAGES * ps)
		head = (uint64_t)DATA_PAGES * ps;
	while (pos < head) {
		struct perf_event_header *h = (void *)(a->data + pos);
		uint64_t *b = (uint64_t *)(h + 1);

		if (!h->size)
			break;
		pos += h->size;
		if (h->type == PERF_RECORD_ITRACE_START) {
			s->itrace++;
			continue;
		}
		if (h->type != PERF_RECORD_AUX) {
			s->other++;
			if (verbose)
				printf("# record type %u size %u\n",
				       h->type, h->size);
			continue;
		}
		if (verbose)
			printf("# AUX offset %#llx size %#llx flags "
			       "%#llx\n", (unsigned long long)b[0],
			       (unsigned long long)b[1],
			       (unsigned long long)b[2]);
		if (!s->aux_recs++)
			s->first_off = b[0];
		s->aux_bytes += b[1];
		s->flags_or |= b[2];
		for (uint64_t off = 0; off + 24 <= b[1]; off += 24) {
			uint64_t r[3];
			uint64_t at = (b[0] + off) % a->aux_size;

			if (at + 24 > a->aux_size) {
				size_t first = a->aux_size - at;

				memcpy(r, a->aux + at, first);
				memcpy((char *)r + first, a->aux, 24 - first);
			} else {
				memcpy(r, a->aux + at, 24);
			}
			if (!r[0] && !r[1] && !r[2])
				s->zero++;
			else if (r[0] == (uintptr_t)bts_loop_jnz &&
				 r[1] == (uintptr_t)bts_loop_dec)
				s->loop++;
			else if ((int64_t)r[0] < 0)
				s->kfrom++;
			else if ((int64_t)r[1] < 0)
				s->kto++;
			else
				s->rest++;
			if (r[2])
				s->flagged++;
		}
	}
}

/* 6.12 takes any config, a period, the kernel (root), inherit */
static void rules(void)
{
	static const char *const what[] = {
		"user only", "with the kernel", "config 1", "a sample period",
		"a CPU event", "kernel only", "inherit",
	};
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
		char buf[80];
		int err;

		ibts_attr(&attr);
		if (i == 1)
			attr.exclude_kernel = 0;
		if (i == 2)
			attr.config = 1;
		if (i == 3)
			attr.sample_period = 1000;
		if (i == 5) {
			attr.exclude_kernel = 0;
			attr.exclude_user = 1;
		}
		if (i == 6)
			attr.inherit = 1;
		err = i == 4 ? open_errno(&attr, -1, 0) :
			       open_errno(&attr, 0, -1);
		snprintf(buf, sizeof(buf), "intel_bts opens: %s", what[i]);
		check_val(!err, buf, err, 0);
	}
}

/* a user-only task event as uid 1000: EACCES at paranoid 2, not at 1 */
static void privilege(void)
{
	struct perf_event_attr attr;
	char old[32] = "2";
	int level;

	for (level = 2; level >= 1; level--) {
		int status = 0, err;
		char buf[80];
		pid_t pid;

		snprintf(buf, sizeof(buf), "%d", level);
		sysctl("perf_event_paranoid", buf, level == 2 ? old : NULL);
		pid = fork();
		if (!pid) {
			if (setresgid(1000, 1000, 1000) ||
			    setresuid(1000, 1000, 1000))
				_exit(255);
			ibts_attr(&attr);
			_exit(open_errno(&attr, 0, -1));
		}
		waitpid(pid, &status, 0);
		err = WIFEXITED(status) ? WEXITSTATUS(status) : 255;
		snprintf(buf, sizeof(buf), "uid 1000, paranoid %d: %s", level,
			 level > 1 ? "EACCES" : "opens");
		check_val(err == (level > 1 ? EACCES : 0), buf, err,
			  level > 1 ? EACCES : 0);
	}
	sysctl("perf_event_paranoid", old, NULL);
}

/* enabled at open, before any area: what the event's times say */
static void no_area_case(int pinned)
{
	struct perf_event_attr attr;
	const char *kind = pinned ? "pinned" : "flexible";
	uint64_t v[3] = { 0 };
	char buf[120];
	struct area a;
	struct seen s;
	int n;

	ibts_attr(&attr);
	attr.disabled = 0;
	attr.pinned = pinned;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (a.fd < 0) {
		printf("not ok no area, %s: open: %s\n", kind, strerror(errno));
		fails++;
		return;
	}
	bts_loop(LOOPS);
	n = read(a.fd, v, sizeof(v));
	snprintf(buf, sizeof(buf), "no area, %s: %s", kind, pinned ?
		 "in error (read: 0 bytes)" : "enabled, never running");
	if (pinned)
		check_val(n == 0, buf, n, 0);
	else
		check(n == sizeof(v) && v[1] > 0 && !v[2], buf);
	if (area_map(&a, 64, PROT_READ | PROT_WRITE)) {
		check(0, "area mapped");
		close(a.fd);
		return;
	}
	/* switched out and back in: where the core tries the event again */
	usleep(2000);
	bts_loop(LOOPS);
	ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0);
	n = read(a.fd, v, sizeof(v));
	walk(&a, &s, 0);
	snprintf(buf, sizeof(buf), "then an area, %s: %s", kind, pinned ?
		 "still in error, no records" :
		 "running, the loop's records");
	if (pinned)
		check(n == 0 && !s.loop, buf);
	else
		check_val(n == sizeof(v) && v[2] > 0 && s.loop == LOOPS - 1,
			  buf, s.loop, LOOPS - 1);
	area_unmap(&a);
	close(a.fd);
}

/*
 * A pinned task event bound to CPU 0 (make diff's seed 2 attr 564): in
 * error only once its task is on CPU 0, where it would go on; from CPU
 * 1 it reads as an event that never ran
 */
static void cpu_bound_case(void)
{
	struct perf_event_attr attr;
	uint64_t v[3] = { 0 };
	cpu_set_t set;
	int fd, n0, n1;

	ibts_attr(&attr);
	attr.disabled = 0;
	attr.pinned = 1;
	attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			   PERF_FORMAT_TOTAL_TIME_RUNNING;
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	sched_setaffinity(0, sizeof(set), &set);
	fd = sys_perf_event_open(&attr, 0, 0, -1, 0);
	bts_loop(LOOPS);
	n1 = fd < 0 ? -1 : read(fd, v, sizeof(v));
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	bts_loop(LOOPS);
	n0 = fd < 0 ? -1 : read(fd, v, sizeof(v));
	check_val(n1 == sizeof(v) && !v[2], "no area, pinned to CPU 0, "
		  "task on CPU 1: reads, never ran", n1, sizeof(v));
	check_val(n0 == 0, "... then on CPU 0: in error (read: 0 bytes)",
		  n0, 0);
	if (fd >= 0)
		close(fd);
}

static void sizes(void)
{
	static const int pages[] = { 1, 2, 4, 16, 64 };
	struct perf_event_attr attr;
	unsigned int i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++) {
		struct area a;
		int err, err_ro;

		ibts_attr(&attr);
		a.fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		err = area_map(&a, pages[i], PROT_READ | PROT_WRITE);
		if (!err)
			area_unmap(&a);
		close(a.fd);
		a.fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
		err_ro = area_map(&a, pages[i], PROT_READ);
		if (!err_ro)
			area_unmap(&a);
		close(a.fd);
		check_val(!err && !err_ro, "an area of that many pages maps, "
			  "writable and read-only", pages[i], pages[i]);
	}
}

/*
 * An overwrite area: the records stored in circles over its whole
 * records (the bytes at its end that hold none are not written), the
 * newest ending at aux_head. Counts those of the loop and the empty
 * slots, from the newest back.
 */
static void walk_overwrite(struct area *a, uint64_t head, struct seen *s)
{
	uint64_t slots = a->aux_size / 24, i;

	memset(s, 0, sizeof(*s));
	for (i = 1; i <= slots; i++) {
		uint64_t *r = (uint64_t *)(a->aux +
					   ((head / 24 + slots - i) % slots) * 24);

		if (!r[0] && !r[1] && !r[2])
			s->zero++;
		else if (r[0] == (uintptr_t)bts_loop_jnz &&
			 r[1] == (uintptr_t)bts_loop_dec)
			s->loop++;
		else
			s->rest++;
	}
}

static int trace_start(struct area *a, int aux_pages, int prot,
		       const char *name)
{
	struct perf_event_attr attr;
	int err;

	ibts_attr(&attr);
	a->fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (a->fd < 0) {
		printf("not ok %s: open: %s\n", name, strerror(errno));
		fails++;
		return -1;
	}
	err = area_map(a, aux_pages, prot);
	if (err) {
		printf("not ok %s: mmap: %s\n", name, strerror(-err));
		fails++;
		close(a->fd);
		return -1;
	}
	return 0;
}

/* all of the loop in one stretch of a large enough writable area */
static void trace_rw(void)
{
	struct area a;
	struct seen s;

	if (trace_start(&a, 64, PROT_READ | PROT_WRITE, "rw"))
		return;
	ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(LOOPS);
	ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0);
	walk(&a, &s, 0);
	check_val(s.loop == LOOPS - 1, "rw: the loop's taken branches, each "
		  "a record", s.loop, LOOPS - 1);
	check_val(s.itrace == 1, "rw: one ITRACE_START", s.itrace, 1);
	check_val(s.aux_recs == 1 && !s.first_off && !s.flags_or,
		  "rw: one PERF_RECORD_AUX at 0, no flags", s.aux_recs, 1);
	check_val(a.pc->aux_head == s.aux_bytes && s.aux_bytes % 24 == 0,
		  "rw: aux_head is where the whole records end",
		  a.pc->aux_head, s.aux_bytes);
	check(!s.kto && !s.zero, "rw: no record into the kernel, none empty");
	area_unmap(&a);
	close(a.fd);
}

/*
 * A writable area the loop overfills: the records in order up to where
 * it filled, the last stretch TRUNCATED, every record whole
 */
static void trace_full(int pages, const char *name)
{
	struct area a;
	struct seen s;
	char what[120];

	if (trace_start(&a, pages, PROT_READ | PROT_WRITE, name))
		return;
	ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(LOOPS);
	ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0);
	walk(&a, &s, 1);
	snprintf(what, sizeof(what), "%s: TRUNCATED, no record empty, aux_head "
		 "inside the area", name);
	check_val((s.flags_or & PERF_AUX_FLAG_TRUNCATED) && !s.zero &&
		  a.pc->aux_head < a.aux_size && s.aux_bytes % 24 == 0, what,
		  a.pc->aux_head, a.aux_size);
	printf("# %s: %llu loop records of %llu bytes in %d AUX records\n",
	       name, (unsigned long long)s.loop,
	       (unsigned long long)s.aux_bytes, s.aux_recs);
	snprintf(what, sizeof(what), "%s: most of the area is the loop's",
		 name);
	check_val(s.loop * 24 > a.aux_size * 3 / 4 && s.loop < LOOPS, what,
		  s.loop * 24, a.aux_size);
	area_unmap(&a);
	close(a.fd);
}

/* read-only: the newest records, aux_head where they end */
static void trace_overwrite(int pages, int loops, const char *name)
{
	struct area a;
	struct seen s, d;
	uint64_t head, slots;
	char what[120];

	if (trace_start(&a, pages, PROT_READ, name))
		return;
	slots = a.aux_size / 24;
	ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(loops);
	ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0);
	head = a.pc->aux_head;
	walk(&a, &d, 0);
	walk_overwrite(&a, head, &s);
	snprintf(what, sizeof(what), "%s: one AUX record at aux_head, the "
		 "whole area, OVERWRITE", name);
	check_val(d.aux_recs == 1 && d.first_off == head &&
		  d.aux_bytes == a.aux_size &&
		  d.flags_or == PERF_AUX_FLAG_OVERWRITE && head % 24 == 0 &&
		  head < slots * 24, what, head, d.first_off);
	if ((uint64_t)loops > slots) {
		snprintf(what, sizeof(what), "%s: full of the loop's newest "
			 "records but the last few", name);
		check_val(s.loop + 8 >= slots && !s.zero, what, s.loop, slots);
	} else {
		snprintf(what, sizeof(what), "%s: the loop's %d branches, the "
			 "rest of the area empty", name, loops - 1);
		check_val(s.loop == (uint64_t)loops - 1 &&
			  s.zero == slots - head / 24, what, s.loop, loops - 1);
	}
	area_unmap(&a);
	close(a.fd);
}

/* beside another intel_bts event, a legacy BTS event, an LBR event */
static void beside(void)
{
	struct perf_event_attr attr, other;
	int a, b;

	ibts_attr(&attr);
	a = sys_perf_event_open(&attr, 0, -1, -1, 0);
	b = sys_perf_event_open(&attr, 0, -1, -1, 0);
	expect_errno(b, EBUSY, "a second intel_bts event on the task");
	b = -1;
	if (b >= 0)
		close(b);
	b = sys_perf_event_open(&attr, -1, 0, -1, 0);
	expect_errno(b, EBUSY, "an intel_bts cpu event beside");
	b = -1;
	if (b >= 0)
		close(b);
	memset(&other, 0, sizeof(other));
	other.size = sizeof(other);
	other.type = PERF_TYPE_HARDWARE;
	other.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	other.sample_period = 1;
	other.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	other.exclude_kernel = 1;
	b = sys_perf_event_open(&other, 0, -1, -1, 0);
	expect_errno(b, EBUSY, "legacy BTS beside intel_bts");
	b = -1;
	if (b >= 0)
		close(b);
	other.config = PERF_COUNT_HW_CPU_CYCLES;
	other.sample_period = 100000;
	other.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_BRANCH_STACK;
	other.branch_sample_type = PERF_SAMPLE_BRANCH_ANY;
	b = sys_perf_event_open(&other, 0, -1, -1, 0);
	expect_errno(b, EBUSY, "LBR event beside intel_bts");
	b = -1;
	if (b >= 0)
		close(b);
	close(a);
	/* and intel_bts opened second */
	a = sys_perf_event_open(&other, 0, -1, -1, 0);
	b = sys_perf_event_open(&attr, 0, -1, -1, 0);
	expect_errno(b, EBUSY, "intel_bts beside an LBR event");
	b = -1;
	if (b >= 0)
		close(b);
	if (a >= 0)
		close(a);
	other.config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS;
	other.sample_period = 1;
	other.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_ADDR;
	a = sys_perf_event_open(&other, 0, -1, -1, 0);
	b = sys_perf_event_open(&attr, 0, -1, -1, 0);
	expect_errno(b, EBUSY, "intel_bts beside legacy BTS");
	b = -1;
	if (b >= 0)
		close(b);
	if (a >= 0)
		close(a);
}

/*
 * An overwrite area traced twice: the second round goes on around the
 * circle from where the first left aux_head
 */
static void trace_overwrite_twice(void)
{
	uint64_t head1, head2, slots;
	struct area a;
	char what[120];

	if (trace_start(&a, 16, PROT_READ, "overwrite twice"))
		return;
	slots = a.aux_size / 24;
	ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(500);
	ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0);
	head1 = a.pc->aux_head;
	ioctl(a.fd, PERF_EVENT_IOC_ENABLE, 0);
	bts_loop(500);
	ioctl(a.fd, PERF_EVENT_IOC_DISABLE, 0);
	head2 = a.pc->aux_head;
	snprintf(what, sizeof(what), "overwrite twice: the second round "
		 "goes on from the first's aux_head (%#llx)",
		 (unsigned long long)head1);
	check_val(head1 && head2 == (2 * head1) % (slots * 24), what, head2,
		  (2 * head1) % (slots * 24));
	area_unmap(&a);
	close(a.fd);
}

int main(void)
{
	long long type;
	cpu_set_t set;
	FILE *fp;

	fp = fopen(BTS_DIR "/type", "r");
	if (!fp || fscanf(fp, "%lld", &type) != 1) {
		check(!cpu_is_intel(), "intel_bts exists on Intel (and not "
		      "on AMD)");
		return fails ? 1 : 0;
	}
	fclose(fp);
	bts_type = type;
	/* a drain of thousands of records: no rate lowered for later tests */
	unthrottle();
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	rules();
	privilege();
	no_area_case(0);
	no_area_case(1);
	cpu_bound_case();
	beside();
	sizes();
	trace_rw();
	trace_full(16, "full 16 pages");
	trace_full(2, "full 2 pages");
	trace_overwrite(4, LOOPS, "overwrite 4 pages");
	trace_overwrite(16, 500, "overwrite 16 pages, short");
	trace_overwrite_twice();
	return fails ? 1 : 0;
}
