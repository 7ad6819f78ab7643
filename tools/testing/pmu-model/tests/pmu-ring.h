/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For the model tests that read their samples back: the vendor of the CPU,
 * an event's ring buffer mapped, and its sample records walked once the
 * event is disabled. Static inline: a test need not use every one.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/perf_event.h>

/* data pages of a ring: enough for every sample of a test's workload */
#define RING_PAGES	256

/* the LBR format, and what the model makes of it, depend on the vendor */
static inline int cpu_is_intel(void)
{
	char buf[64];
	int intel = 0;
	FILE *fp;

	fp = fopen("/proc/cpuinfo", "r");
	while (fp && fgets(buf, sizeof(buf), fp))
		if (strstr(buf, "GenuineIntel"))
			intel = 1;
	if (fp)
		fclose(fp);
	return intel;
}

/*
 * Maps @fd's ring: the control page in *@pc, and returns the data area,
 * or NULL (errno set by mmap). Mapped writable, so that the kernel does
 * not overwrite unread records (perf_event_open(2)): data_tail stays 0, and
 * once the ring is full the newer records are lost, not wrapped around.
 */
static inline unsigned char *ring_map(int fd,
				      struct perf_event_mmap_page **pc)
{
	long ps = sysconf(_SC_PAGESIZE);

	*pc = mmap(NULL, (RING_PAGES + 1) * ps, PROT_READ | PROT_WRITE,
		   MAP_SHARED, fd, 0);
	if (*pc == MAP_FAILED)
		return NULL;
	return (unsigned char *)*pc + ps;
}

static inline void ring_unmap(struct perf_event_mmap_page *pc)
{
	munmap(pc, (RING_PAGES + 1) * sysconf(_SC_PAGESIZE));
}

/*
 * A walk over a ring's records, oldest first. data_head is read once, at
 * the start: the event is disabled by then, and a test's checks see one
 * consistent set of samples.
 */
struct ring_iter {
	unsigned char *data;
	uint64_t head, pos;
};

static inline void ring_iter_start(struct ring_iter *it,
				   struct perf_event_mmap_page *pc,
				   unsigned char *data)
{
	long ps = sysconf(_SC_PAGESIZE);

	it->data = data;
	it->pos = 0;
	it->head = __atomic_load_n(&pc->data_head, __ATOMIC_ACQUIRE);
	/*
	 * The records never wrap (see ring_map()): the data area holds them
	 * from offset 0. The limit only keeps a bad head inside the mapping.
	 */
	if (it->head > (uint64_t)RING_PAGES * ps)
		it->head = (uint64_t)RING_PAGES * ps;
}

/*
 * The body of the next PERF_RECORD_SAMPLE (its fields in sample_type
 * order), or NULL at the end. Other records are skipped; a record of size
 * 0 ends the walk, as nothing after it could be found.
 */
static inline uint64_t *ring_next_sample(struct ring_iter *it)
{
	while (it->pos < it->head) {
		struct perf_event_header *h = (void *)(it->data + it->pos);

		if (!h->size) {
			it->pos = it->head;
			break;
		}
		it->pos += h->size;
		if (h->type == PERF_RECORD_SAMPLE)
			return (uint64_t *)(h + 1);
	}
	return NULL;
}
