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
 * Two PMUs: perf_test_aux and perf_test_aux_nosg, the second with
 * PERF_PMU_CAP_AUX_NO_SG (its setup_aux refuses pages that are not one
 * physically contiguous chunk). live_bufs (a module parameter) counts
 * the areas set up and not yet freed.
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
module_param_named(live_bufs, live_bufs.counter, int, 0444);
MODULE_PARM_DESC(live_bufs, "AUX areas set up and not yet freed");

struct test_aux_buf {
	void	**pages;
	int	nr_pages;
	bool	overwrite;
};

struct test_aux_event {
	struct perf_output_handle handle;
	bool		open;
};

static struct pmu test_aux_pmu, test_aux_nosg_pmu;

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
	if (event->attr.config1 & TEST_AUX_LOST)
		perf_log_lost_samples(event, event->attr.config2);
	perf_aux_output_end(handle, len);
	te->open = false;
out:
	event->hw.state = PERF_HES_STOPPED | PERF_HES_UPTODATE;
}

static int test_aux_add(struct perf_event *event, int flags)
{
	if (event->attr.config1 & TEST_AUX_ITRACE_STARTED)
		perf_event_itrace_started(event);
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

static void *test_aux_setup(struct perf_event *event, void **pages,
			    int nr_pages, bool overwrite)
{
	struct test_aux_buf *buf;
	int i;

	if (event->pmu == &test_aux_nosg_pmu) {
		/* one chunk, whose order its first page carries */
		if (page_private(virt_to_page(pages[0])) != ilog2(nr_pages))
			return NULL;
		for (i = 1; i < nr_pages; i++)
			if (pages[i] != pages[0] + i * PAGE_SIZE)
				return NULL;
	}
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

#define TEST_AUX_PMU(caps)					\
{								\
	.module		= THIS_MODULE,				\
	.task_ctx_nr	= perf_hw_context,			\
	.capabilities	= PERF_PMU_CAP_ITRACE | (caps),		\
	.event_init	= test_aux_event_init,			\
	.add		= test_aux_add,				\
	.del		= test_aux_del,				\
	.start		= test_aux_start,			\
	.stop		= test_aux_stop,			\
	.read		= test_aux_read,			\
	.setup_aux	= test_aux_setup,			\
	.free_aux	= test_aux_free,			\
}

static struct pmu test_aux_pmu = TEST_AUX_PMU(0);
static struct pmu test_aux_nosg_pmu = TEST_AUX_PMU(PERF_PMU_CAP_AUX_NO_SG);

static int __init test_aux_init(void)
{
	int err;

	err = perf_pmu_register(&test_aux_pmu, "perf_test_aux", -1);
	if (err)
		return err;
	err = perf_pmu_register(&test_aux_nosg_pmu, "perf_test_aux_nosg", -1);
	if (err)
		perf_pmu_unregister(&test_aux_pmu);
	return err;
}

static void __exit test_aux_exit(void)
{
	perf_pmu_unregister(&test_aux_nosg_pmu);
	perf_pmu_unregister(&test_aux_pmu);
}

module_init(test_aux_init);
module_exit(test_aux_exit);
MODULE_DESCRIPTION("An AUX area PMU for the perf_events selftests");
MODULE_LICENSE("GPL");
