// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel PT's output through a Table of Physical Addresses (ToPA) over an
 * AUX area: the tables, and the arithmetic between positions in the area
 * and the output registers.
 *
 * Each physically contiguous chunk of the area (a page, or a chunk of
 * 2^order pages where the core allocated one: its first page has the
 * order in page_private()) is one output region and one ToPA entry, in
 * the area's order, so the CPU fills the area from its first byte to its
 * last. A table is one page: up to 511 entries and an END entry that
 * points to the next table, the last table's END to the first, so the
 * output is a circle over the area. Region n is entry n % 511 of table
 * n / 511.
 *
 * A writable area bounds each stretch (pt_topa_bound()): STOP goes on
 * the last region that ends within the room the reader left, since the
 * CPU can only stop where a region fills. INT goes on the same region
 * (the PMI that ends the stretch), on the one where the reader's wakeup
 * point falls, and on the one before STOP: its PMI opens the next
 * stretch with the room the reader has freed meanwhile, so a reader that
 * keeps up never sees the CPU stop. An overwrite area has no STOP nor
 * INT: the CPU goes around it until the event stops.
 *
 * The CPU may cache entries while it traces, so the marks change only
 * while IA32_RTIT_CTL.TraceEn is clear. One output handle is open on an
 * area at a time, so one CPU at a time sets and clears them.
 */

#include <linux/bitops.h>
#include <linux/gfp.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include <asm/io.h>

#include "pt.h"

/* a ToPA entry (Intel SDM, "Table of Physical Addresses (ToPA)") */
#define TOPA_END		BIT_ULL(0)
#define TOPA_INT		BIT_ULL(2)
#define TOPA_STOP		BIT_ULL(4)
#define TOPA_SIZE_SHIFT		6	/* bits 9:6: the region is 4K << size */
#define TOPA_SIZE_MAX		15
#define TOPA_BASE		GENMASK_ULL(51, 12)

/* one table page: its entries, the last slot for END */
#define TOPA_SLOTS		(PAGE_SIZE / sizeof(u64))
#define TOPA_DATA		(TOPA_SLOTS - 1)

/*
 * IA32_RTIT_OUTPUT_MASK_PTRS in ToPA mode: bits 6:0 read as ones, the
 * entry's index in the current table, the offset in its region
 */
#define PTRS_LOWER		GENMASK_ULL(6, 0)
#define PTRS_INDEX_SHIFT	7
#define PTRS_INDEX		GENMASK_ULL(31, PTRS_INDEX_SHIFT)
#define PTRS_OFFSET_SHIFT	32

/* the regions a stretch marks: STOP, the one before, the wakeup's */
#define PT_TOPA_MARKS		3

/**
 * struct pt_topa - the ToPA tables of one AUX area (its setup_aux state)
 * @size: the area's size in bytes, a power of two
 * @overwrite: a read-only (snapshot) area: no STOP nor INT
 * @per_table: regions per table (511, or 1 without multiple entries)
 * @nr_tables: how many tables
 * @nr_regions: how many regions (chunks of the area)
 * @tables: each table's page
 * @table_phys: each table's physical address (OUTPUT_BASE)
 * @reg_off: each region's first byte in the area, and @size after the
 *	last, so region n is reg_off[n] up to reg_off[n + 1]
 * @marks: the regions carrying STOP or INT now, -1 for none
 * @gap: the last stretch said TRUNCATED and none started since
 * @pages: the area's pages (kernel addresses), for pt_topa_copy()
 * @shift: log2 of the region size when every region has the same size
 *	(the common case: then a byte's region is a shift, not a search),
 *	else 0
 */
struct pt_topa {
	unsigned long	size;
	bool		overwrite;
	unsigned int	per_table;
	unsigned int	nr_tables;
	unsigned int	nr_regions;
	u64		**tables;
	u64		*table_phys;
	unsigned long	*reg_off;
	int		marks[PT_TOPA_MARKS];
	bool		gap;
	void		**pages;
	unsigned int	shift;
};

static u64 *pt_topa_entry(const struct pt_topa *tp, unsigned int r)
{
	return &tp->tables[r / tp->per_table][r % tp->per_table];
}

/* the region holding byte @off of the area */
static unsigned int pt_topa_region(const struct pt_topa *tp,
				   unsigned long off)
{
	unsigned int lo = 0, hi = tp->nr_regions - 1;

	if (tp->shift)
		return off >> tp->shift;
	while (lo < hi) {
		unsigned int mid = (lo + hi + 1) / 2;

		if (tp->reg_off[mid] <= off)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

static unsigned long pt_topa_end(const struct pt_topa *tp, unsigned int r)
{
	return tp->reg_off[r + 1];
}

/**
 * pt_topa_free - free the tables pt_topa_alloc() made
 * @tp: the tables, or NULL
 */
void pt_topa_free(struct pt_topa *tp)
{
	unsigned int t;

	if (!tp)
		return;
	for (t = 0; tp->tables && t < tp->nr_tables; t++) {
		if (tp->tables[t])
			free_page((unsigned long)tp->tables[t]);
	}
	kfree(tp->tables);
	kfree(tp->table_phys);
	kvfree(tp->reg_off);
	kvfree(tp->pages);
	kfree(tp);
}

/* one entry per chunk, in the area's order; false for a chunk ToPA can't take */
static bool pt_topa_fill(struct pt_topa *tp, void **pages, int nr_pages)
{
	unsigned int r = 0, t;
	int i = 0;

	while (i < nr_pages) {
		unsigned long order = page_private(virt_to_page(pages[i]));
		u64 phys = virt_to_phys(pages[i]);

		/* the core's chunks are naturally aligned buddy blocks */
		if (order > TOPA_SIZE_MAX || i + (1 << order) > nr_pages ||
		    !IS_ALIGNED(phys, PAGE_SIZE << order))
			return false;
		tp->reg_off[r] = (unsigned long)i << PAGE_SHIFT;
		*pt_topa_entry(tp, r) = (phys & TOPA_BASE) |
					(order << TOPA_SIZE_SHIFT);
		i += 1 << order;
		r++;
	}
	tp->reg_off[r] = tp->size;
	/* regions all of one size: found by a shift */
	tp->shift = ilog2(tp->size / tp->nr_regions);
	for (r = 0; r <= tp->nr_regions; r++) {
		if (tp->reg_off[r] != (unsigned long)r << tp->shift) {
			tp->shift = 0;
			break;
		}
	}
	/* each table ends in END to the next; the last one's to the first */
	for (t = 0; t < tp->nr_tables; t++) {
		unsigned int used = min(tp->per_table,
					tp->nr_regions - t * tp->per_table);

		tp->tables[t][used] = TOPA_END |
			tp->table_phys[(t + 1) % tp->nr_tables];
	}
	return true;
}

/* how many chunks: a bad order counts as large, pt_topa_fill() refuses it */
static unsigned int pt_topa_count(void **pages, int nr_pages)
{
	unsigned long i = 0, order;
	unsigned int n = 0;

	for (; i < nr_pages; n++) {
		order = page_private(virt_to_page(pages[i]));
		i += 1UL << min(order, TOPA_SIZE_MAX + 1UL);
	}
	return n;
}

/**
 * pt_topa_alloc - build the ToPA tables over an AUX area
 * @node: the NUMA node for the tables
 * @pages: the area's pages, as setup_aux() gets them
 * @nr_pages: how many (a power of two)
 * @overwrite: the area is read-only (a snapshot): the CPU goes around it
 * @multi: the CPU takes several entries per table (CPUID 0x14.0:ECX[1]);
 *	without, the area must be one chunk
 *
 * Sleeps. Return: the tables, or NULL (no memory, or an area the CPU
 * cannot take).
 */
struct pt_topa *pt_topa_alloc(int node, void **pages, int nr_pages,
			      bool overwrite, bool multi)
{
	struct pt_topa *tp;
	unsigned int t;

	tp = kzalloc_node(sizeof(*tp), GFP_KERNEL, node);
	if (!tp)
		return NULL;
	tp->size = (unsigned long)nr_pages << PAGE_SHIFT;
	tp->overwrite = overwrite;
	tp->per_table = multi ? TOPA_DATA : 1;
	tp->nr_regions = pt_topa_count(pages, nr_pages);
	tp->nr_tables = DIV_ROUND_UP(tp->nr_regions, tp->per_table);
	memset(tp->marks, -1, sizeof(tp->marks));
	/* without multiple entries the one table is the whole circle */
	if (!multi && tp->nr_regions > 1)
		goto fail;
	tp->tables = kcalloc_node(tp->nr_tables, sizeof(*tp->tables),
				  GFP_KERNEL, node);
	tp->table_phys = kcalloc_node(tp->nr_tables, sizeof(*tp->table_phys),
				      GFP_KERNEL, node);
	tp->reg_off = kvcalloc(tp->nr_regions + 1, sizeof(*tp->reg_off),
			       GFP_KERNEL);
	tp->pages = kvmalloc_array(nr_pages, sizeof(*tp->pages), GFP_KERNEL);
	if (!tp->tables || !tp->table_phys || !tp->reg_off || !tp->pages)
		goto fail;
	memcpy(tp->pages, pages, nr_pages * sizeof(*tp->pages));
	for (t = 0; t < tp->nr_tables; t++) {
		struct page *p = alloc_pages_node(node, GFP_KERNEL | __GFP_ZERO,
						  0);

		if (!p)
			goto fail;
		tp->tables[t] = page_address(p);
		tp->table_phys[t] = page_to_phys(p);
	}
	if (!pt_topa_fill(tp, pages, nr_pages))
		goto fail;
	return tp;
fail:
	pt_topa_free(tp);
	return NULL;
}

/**
 * pt_topa_size - the size of the area under @tp, in bytes
 * @tp: the tables
 *
 * Return: the size.
 */
unsigned long pt_topa_size(const struct pt_topa *tp)
{
	return tp->size;
}

/**
 * pt_topa_overwrite - whether the area under @tp is a snapshot area
 * @tp: the tables
 *
 * Return: true for a read-only (overwrite) area.
 */
bool pt_topa_overwrite(const struct pt_topa *tp)
{
	return tp->overwrite;
}

/**
 * pt_topa_gap - note whether the trace in the area under @tp has a gap
 * @tp: the tables
 * @gap: true when a stretch says TRUNCATED, false when one starts
 *
 * Called by the handle's owner.
 *
 * Return: what the last call noted: the gap was told already.
 */
bool pt_topa_gap(struct pt_topa *tp, bool gap)
{
	bool was = tp->gap;

	tp->gap = gap;
	return was;
}

/**
 * pt_topa_seek - the output registers that start the trace at @off
 * @tp: the tables
 * @off: a byte of the area
 * @sp: filled: @off, the registers, and an unbounded length
 *
 * Any context.
 */
void pt_topa_seek(const struct pt_topa *tp, unsigned long off,
		  struct pt_topa_span *sp)
{
	unsigned int r;

	off &= tp->size - 1;
	r = pt_topa_region(tp, off);
	sp->off = off;
	sp->len = 0;
	sp->base = tp->table_phys[r / tp->per_table];
	sp->ptrs = PTRS_LOWER |
		   ((u64)(r % tp->per_table) << PTRS_INDEX_SHIFT) |
		   ((u64)(off - tp->reg_off[r]) << PTRS_OFFSET_SHIFT);
}

static void pt_topa_mark(struct pt_topa *tp, int slot, unsigned int r,
			 u64 bits)
{
	*pt_topa_entry(tp, r) |= bits;
	tp->marks[slot] = r;
}

/**
 * pt_topa_bound - bound the stretch that starts at @sp->off
 * @tp: the tables of a writable area
 * @sp: from pt_topa_seek(); its length is set
 * @room: the bytes the reader left from there (at least 1)
 * @wake: the bytes from there to the reader's wakeup point (<= 0: due)
 *
 * The stretch ends where the last region that ends within @room ends:
 * STOP and INT go on that region, INT on the region before it (when
 * the stretch has two), so that the PMI opens the next stretch before
 * the CPU stops, and on the region where the wakeup point falls (the
 * first region when it is due). The marks stay until pt_topa_unmark().
 * Call with TraceEn clear. Any context.
 *
 * Return: false when not even the rest of the first region fits in
 * @room: the trace cannot start without overwriting unread data.
 */
bool pt_topa_bound(struct pt_topa *tp, struct pt_topa_span *sp,
		   unsigned long room, long wake)
{
	unsigned long mask = tp->size - 1, last, len;
	unsigned int first, stop, prev;

	/* the region of the room's last byte, if the room ends at its end */
	first = pt_topa_region(tp, sp->off);
	last = (sp->off + room - 1) & mask;
	stop = pt_topa_region(tp, last);
	if (last + 1 != pt_topa_end(tp, stop))
		stop = stop ? stop - 1 : tp->nr_regions - 1;
	/*
	 * the bytes up to that region's end; none means the whole circle,
	 * more than the room: the room ends inside the first region
	 */
	len = (pt_topa_end(tp, stop) - sp->off) & mask;
	if (!len || len > room)
		return false;
	sp->len = len;

	pt_topa_mark(tp, 0, stop, TOPA_STOP | TOPA_INT);
	if (stop != first) {
		prev = stop ? stop - 1 : tp->nr_regions - 1;
		pt_topa_mark(tp, 1, prev, TOPA_INT);
	}
	if (wake <= 0)
		pt_topa_mark(tp, 2, first, TOPA_INT);
	else if (wake < len)
		pt_topa_mark(tp, 2,
			     pt_topa_region(tp, (sp->off + wake - 1) & mask),
			     TOPA_INT);
	return true;
}

/**
 * pt_topa_unmark - take off the marks pt_topa_bound() set
 * @tp: the tables
 *
 * Call with TraceEn clear, before the handle that owned them ends.
 */
void pt_topa_unmark(struct pt_topa *tp)
{
	int i;

	for (i = 0; i < PT_TOPA_MARKS; i++) {
		if (tp->marks[i] >= 0)
			*pt_topa_entry(tp, tp->marks[i]) &=
				~(TOPA_STOP | TOPA_INT);
		tp->marks[i] = -1;
	}
}

/**
 * pt_topa_pos - the byte of the area the CPU writes next
 * @tp: the tables
 * @base: IA32_RTIT_OUTPUT_BASE, read with TraceEn clear
 * @ptrs: IA32_RTIT_OUTPUT_MASK_PTRS, likewise
 * @fallback: the answer when the registers name no entry of @tp
 *
 * A full region's offset is its size, and an index at a table's END
 * names the next table's first entry: both are where the next region
 * starts. Any context.
 *
 * Return: the offset in the area.
 */
unsigned long pt_topa_pos(const struct pt_topa *tp, u64 base, u64 ptrs,
			  unsigned long fallback)
{
	unsigned long idx = (ptrs & PTRS_INDEX) >> PTRS_INDEX_SHIFT;
	unsigned long off = ptrs >> PTRS_OFFSET_SHIFT;
	unsigned int t, r;

	for (t = 0; t < tp->nr_tables; t++) {
		if (tp->table_phys[t] == (base & TOPA_BASE))
			break;
	}
	if (t == tp->nr_tables || idx > tp->per_table)
		return fallback;
	r = t * tp->per_table + idx;
	if (r >= tp->nr_regions) {
		/* only the last table's END is past the last region */
		if (r != tp->nr_regions)
			return fallback;
		return 0;
	}
	off = min(off, pt_topa_end(tp, r) - tp->reg_off[r]);
	return (tp->reg_off[r] + off) & (tp->size - 1);
}

/**
 * pt_topa_copy - copy bytes of the area into an output handle
 * @tp: the tables
 * @handle: where to (a sample being written)
 * @from: the first byte, an offset in the area (taken modulo its size)
 * @len: how many, at most the area's size
 *
 * Any context (a sample's PERF_SAMPLE_AUX, in the PMI).
 */
void pt_topa_copy(const struct pt_topa *tp, struct perf_output_handle *handle,
		  unsigned long from, unsigned long len)
{
	while (len) {
		unsigned long off = from & (tp->size - 1);
		unsigned long in = off & (PAGE_SIZE - 1);
		unsigned long n = min(len, PAGE_SIZE - in);

		perf_output_copy(handle, tp->pages[off >> PAGE_SHIFT] + in, n);
		from += n;
		len -= n;
	}
}
