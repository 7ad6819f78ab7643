// SPDX-License-Identifier: GPL-2.0
/*
 * An AUX PMU driver for the selftests (aux_area.c), built out of tree as
 * a module: a tracer with no hardware behind it, which uses the AUX
 * driver API (setup_aux/free_aux, perf_aux_output_begin/end/skip/flag,
 * perf_get_aux, perf_event_itrace_started, perf_report_aux_output_id,
 * perf_log_lost_samples) as instruction tracers do, so that a test can
 * check what the core does with an AUX area on any machine.
 *
 * Like a tracer, an event opens its output handle when it starts and
 * writes its "trace" when it stops: attr.config bytes, byte i of the
 * stream (its running offset) being (i * 7 + 1) & 0xff, or as many as
 * fit (PERF_AUX_FLAG_TRUNCATED). attr.config1 bits:
 *   0  call perf_event_itrace_started() in add()
 *   1  report attr.config2 as the stream's hardware id in add()
 *   2  log attr.config2 lost samples at each stop
 *   3  skip 8 bytes before each stretch (perf_aux_output_skip)
 *
 * Three PMUs:
 *   perf_test_aux       the tracer; snapshot_aux() copies the newest
 *                       bytes of the stream into a sample
 *                       (PERF_SAMPLE_AUX);
 *   perf_test_aux_nosg  a tracer with PERF_PMU_CAP_AUX_NO_SG, without
 *                       snapshots;
 *   perf_test_aux_out   a counter that does nothing, with
 *                       PERF_PMU_CAP_AUX_OUTPUT (as PEBS is, into PT),
 *                       whose aux_output_match() takes perf_test_aux's
 *                       events as the AUX leader of its aux_output ones.
 * live_bufs (a module parameter) counts the areas set up and not yet
 * freed; last_order is the order of the largest physically contiguous
 * chunk of the last area set up (setup_aux refuses an area whose chunks
 * are not what their first pages' private fields say).
 *
 * Stock 6.12 exports neither perf_output_copy() nor
 * perf_event_itrace_started() nor perf_log_lost_samples() to modules:
 * built with PERF_TEST_STOCK (for the stock kernel) the driver copies
 * snapshots by hand (test_aux_copy()) and refuses config1 bits 0 and 2,
 * and full_api (a module parameter) says 0, so that the tests of those
 * skip there.
 */
#include <linux/module.h>
#include <linux/perf_event.h>
#include <linux/slab.h>
#include <linux/mm.h>

enum {
	TEST_AUX_ITRACE_STARTED	= 1 << 0,
	TEST_AUX_HW_ID		= 1 << 1,
	TEST_AUX_LOST		= 1 << 2,
	TEST_AUX_SKIP		= 1 << 3,
};
#define TEST_AUX_SKIP_BYTES	8

static atomic_t live_bufs = ATOMIC_INIT(0);
static int last_order;
module_param(last_order, int, 0444);
MODULE_PARM_DESC(last_order, "the largest chunk of the last area set up");
module_param_named(live_bufs, live_bufs.counter, int, 0444);
MODULE_PARM_DESC(live_bufs, "AUX areas set up and not yet freed");

#ifdef PERF_TEST_STOCK
#define TEST_AUX_FULL_API	0
#else
#define TEST_AUX_FULL_API	1
#endif
static int full_api = TEST_AUX_FULL_API;
module_param(full_api, int, 0444);
MODULE_PARM_DESC(full_api, "itrace_started and lost samples built");

struct test_aux_buf {
	void	**pages;
	int	nr_pages;
	bool	overwrite;
};

struct test_aux_event {
	struct perf_output_handle handle;
	bool		open;
};

static struct pmu test_aux_pmu, test_aux_nosg_pmu, test_aux_out_pmu;

static void test_aux_destroy(struct perf_event *event)
{
	kfree(event->pmu_private);
}

static int test_aux_event_init(struct perf_event *event)
{
	struct test_aux_event *te;

	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	if (!event->attr.config || event->attr.config > (1 << 20) ||
	    event->attr.config1 & ~0xfULL)
		return -EINVAL;
	if (!full_api &&
	    (event->attr.config1 & (TEST_AUX_ITRACE_STARTED | TEST_AUX_LOST)))
		return -EOPNOTSUPP;
	te = kzalloc(sizeof(*te), GFP_KERNEL);
	if (!te)
		return -ENOMEM;
	event->pmu_private = te;
	event->destroy = test_aux_destroy;
	return 0;
}

static void test_aux_write(struct test_aux_buf *buf, unsigned long head,
			   unsigned long len)
{
	unsigned long size = (unsigned long)buf->nr_pages << PAGE_SHIFT;
	unsigned long i, off;

	for (i = 0; i < len; i++) {
		off = (head + i) & (size - 1);
		((u8 *)buf->pages[off >> PAGE_SHIFT])[off & ~PAGE_MASK] =
			((head + i) * 7 + 1) & 0xff;
	}
}

static void test_aux_start(struct perf_event *event, int flags)
{
	struct test_aux_event *te = event->pmu_private;

	if (te->open)
		return;
	event->hw.state = PERF_HES_STOPPED;
	if (!perf_aux_output_begin(&te->handle, event))
		return;
	te->open = true;
	event->hw.state = 0;
}

static void test_aux_stop(struct perf_event *event, int flags)
{
	struct test_aux_event *te = event->pmu_private;
	struct perf_output_handle *handle = &te->handle;
	unsigned long len = event->attr.config;
	struct test_aux_buf *buf;

	if (!te->open)
		goto out;
	buf = perf_get_aux(handle);
	if ((event->attr.config1 & TEST_AUX_SKIP) &&
	    perf_aux_output_skip(handle, TEST_AUX_SKIP_BYTES))
		len = 0;
	if (buf->overwrite) {
		test_aux_write(buf, handle->head, len);
		handle->head += len;
	} else {
		if (len > handle->size) {
			len = handle->size;
			perf_aux_output_flag(handle, PERF_AUX_FLAG_TRUNCATED);
		}
		test_aux_write(buf, handle->head, len);
	}
#ifndef PERF_TEST_STOCK
	if (event->attr.config1 & TEST_AUX_LOST)
		perf_log_lost_samples(event, event->attr.config2);
#endif
	perf_aux_output_end(handle, len);
	te->open = false;
out:
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int test_aux_add(struct perf_event *event, int flags)
{
#ifndef PERF_TEST_STOCK
	if (event->attr.config1 & TEST_AUX_ITRACE_STARTED)
		perf_event_itrace_started(event);
#endif
	if (event->attr.config1 & TEST_AUX_HW_ID)
		perf_report_aux_output_id(event, event->attr.config2);
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
	if (flags & PERF_EF_START)
		test_aux_start(event, flags);
	return 0;
}

static void test_aux_del(struct perf_event *event, int flags)
{
	test_aux_stop(event, PERF_EF_UPDATE);
}

static void test_aux_read(struct perf_event *event)
{
}

/*
 * Copy @len bytes into a sample being written. Stock 6.12 does not
 * export perf_output_copy(): there the bytes go to the handle's current
 * stretch directly, and what does not fit in it is left to the core's
 * padding (a snapshot near the start of a fresh buffer always fits).
 */
static unsigned long test_aux_copy(struct perf_output_handle *handle,
				   const void *src, unsigned long len)
{
#ifdef PERF_TEST_STOCK
	len = min(len, handle->size);
	memcpy(handle->addr, src, len);
	handle->addr += len;
	handle->size -= len;
	return len;
#else
	return len - perf_output_copy(handle, src, len);
#endif
}

/*
 * The newest @size bytes of the stream (those before the area's head,
 * as this tracer writes only when it stops), copied into a sample.
 */
static long test_aux_snapshot(struct perf_event *event,
			      struct perf_output_handle *handle,
			      unsigned long size)
{
	struct test_aux_event *te = event->pmu_private;
	struct test_aux_buf *buf;
	unsigned long bufsize, head, from, off, n, done = 0;

	if (!te->open)
		return 0;
	buf = perf_get_aux(&te->handle);
	if (!buf)
		return 0;
	bufsize = (unsigned long)buf->nr_pages << PAGE_SHIFT;
	head = te->handle.head;
	size = min3(size, head, bufsize);
	from = head - size;
	while (done < size) {
		off = (from + done) & (bufsize - 1);
		n = min(size - done, PAGE_SIZE - (off & ~PAGE_MASK));
		n = test_aux_copy(handle, buf->pages[off >> PAGE_SHIFT] +
					  (off & ~PAGE_MASK), n);
		if (!n)
			break;
		done += n;
	}
	return done;
}

/* perf_test_aux_out's events write into perf_test_aux's areas only */
static int test_aux_output_match(struct perf_event *aux_event)
{
	return aux_event->pmu == &test_aux_pmu;
}

static int test_aux_out_event_init(struct perf_event *event)
{
	if (event->attr.type != event->pmu->type)
		return -ENOENT;
	return 0;
}

static int test_aux_out_add(struct perf_event *event, int flags)
{
	event->hw.state = flags & PERF_EF_START ? 0 : PERF_HES_STOPPED;
	return 0;
}

static void test_aux_out_del(struct perf_event *event, int flags)
{
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static void test_aux_out_start(struct perf_event *event, int flags)
{
	event->hw.state = 0;
}

static void *test_aux_setup(struct perf_event *event, void **pages,
			    int nr_pages, bool overwrite)
{
	struct test_aux_buf *buf;
	int i, j, order = 0, max_order = 0;

	/*
	 * The core's chunks: each physically contiguous, its order in its
	 * first page's private field; the largest is shown in last_order
	 */
	for (i = 0; i < nr_pages; i += 1 << order) {
		order = page_private(virt_to_page(pages[i]));
		if (order > 30 || i + (1 << order) > nr_pages)
			return NULL;
		for (j = 1; j < 1 << order; j++)
			if (pages[i + j] != pages[i] + j * PAGE_SIZE)
				return NULL;
		max_order = max(max_order, order);
	}
	WRITE_ONCE(last_order, max_order);
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->pages = pages;
	buf->nr_pages = nr_pages;
	buf->overwrite = overwrite;
	atomic_inc(&live_bufs);
	return buf;
}

static void test_aux_free(void *data)
{
	kfree(data);
	atomic_dec(&live_bufs);
}

/*
 * The tracers take the software context, as 6.12's tracers do, so that
 * they can lead a group of hardware events (aux_output members).
 */
#define TEST_AUX_TRACER(caps, snapshot)				\
{								\
	.module		= THIS_MODULE,				\
	.task_ctx_nr	= perf_sw_context,			\
	.capabilities	= PERF_PMU_CAP_ITRACE | (caps),		\
	.event_init	= test_aux_event_init,			\
	.add		= test_aux_add,				\
	.del		= test_aux_del,				\
	.start		= test_aux_start,			\
	.stop		= test_aux_stop,			\
	.read		= test_aux_read,			\
	.setup_aux	= test_aux_setup,			\
	.free_aux	= test_aux_free,			\
	.snapshot_aux	= (snapshot),				\
}

static struct pmu test_aux_pmu = TEST_AUX_TRACER(0, test_aux_snapshot);
static struct pmu test_aux_nosg_pmu =
	TEST_AUX_TRACER(PERF_PMU_CAP_AUX_NO_SG, NULL);

static struct pmu test_aux_out_pmu = {
	.module		= THIS_MODULE,
	.task_ctx_nr	= perf_hw_context,
	.capabilities	= PERF_PMU_CAP_AUX_OUTPUT,
	.aux_output_match = test_aux_output_match,
	.event_init	= test_aux_out_event_init,
	.add		= test_aux_out_add,
	.del		= test_aux_out_del,
	.start		= test_aux_out_start,
	.stop		= test_aux_out_del,
	.read		= test_aux_read,
};

static int __init test_aux_init(void)
{
	int err;

	err = perf_pmu_register(&test_aux_pmu, "perf_test_aux", -1);
	if (err)
		return err;
	err = perf_pmu_register(&test_aux_nosg_pmu, "perf_test_aux_nosg", -1);
	if (err)
		goto out_aux;
	err = perf_pmu_register(&test_aux_out_pmu, "perf_test_aux_out", -1);
	if (err)
		goto out_nosg;
	return 0;
out_nosg:
	perf_pmu_unregister(&test_aux_nosg_pmu);
out_aux:
	perf_pmu_unregister(&test_aux_pmu);
	return err;
}

static void __exit test_aux_exit(void)
{
	perf_pmu_unregister(&test_aux_out_pmu);
	perf_pmu_unregister(&test_aux_nosg_pmu);
	perf_pmu_unregister(&test_aux_pmu);
}

module_init(test_aux_init);
module_exit(test_aux_exit);
MODULE_DESCRIPTION("An AUX area PMU for the perf_events selftests");
MODULE_LICENSE("GPL");
