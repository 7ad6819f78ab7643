// SPDX-License-Identifier: GPL-2.0
/*
 * pmu-config: what perf_event_open() refuses on the "cpu" PMU of the TCG
 * PMU model.
 *
 * - config1 and config2 of a raw event that takes no extra register
 *   (0xc0, instructions, on both vendors) are ignored: it opens, as on
 *   the stock 6.12 kernel.
 * - sample_regs_intr with XMM registers (PERF_REG_X86_XMM0 and up): only
 *   PEBS records hold them, and the event asks for none: EINVAL.
 * The same attrs without the XMM bits open (the check is not just
 * refusing everything).
 * - The generic hardware types' config[63:32] (PERF_PMU_TYPE_SHIFT): a
 *   registered PMU's type hands the event to that PMU, which takes it
 *   (the cpu PMU, counting the event config[31:0] names) or refuses it
 *   (software, tracepoint: ENOENT); a type no PMU has is ignored.
 * Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include "perf_sys.h"

/* asm/perf_regs.h: PERF_REG_X86_XMM0 */
#define XMM0_BIT	32

static int fails;

static void attr_init(struct perf_event_attr *attr, __u32 type, __u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->disabled = 1;
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
}

/* open @attr on self: want 0 for success, or the errno */
static void expect(const char *what, struct perf_event_attr *attr, int want)
{
	int fd = sys_perf_event_open(attr, 0, -1, -1, 0);
	int got = fd < 0 ? errno : 0;

	printf("%s %s: %s (expected %s)\n", got == want ? "ok" : "not ok",
	       what, got ? strerror(got) : "opened",
	       want ? strerror(want) : "opened");
	if (got != want)
		fails++;
	if (fd >= 0)
		close(fd);
}

static int is_amd(void)
{
	unsigned int a, b, c, d;

	asm volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(0));
	return b == 0x68747541;	/* "Auth" */
}

/* the type number of PMU @name in sysfs, or -1 */
static long long pmu_type(const char *name)
{
	char path[128];
	long long type = -1;
	FILE *f;

	snprintf(path, sizeof(path),
		 "/sys/bus/event_source/devices/%s/type", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &type) != 1)
		type = -1;
	fclose(f);
	return type;
}

/* the generic hardware events with a PMU type in config[63:32] */
static void extended_types(void)
{
	unsigned long long cpu = pmu_type("cpu");
	struct perf_event_attr attr;
	unsigned long long count = 0;
	int fd;

	attr_init(&attr, PERF_TYPE_HARDWARE,
		  cpu << 32 | PERF_COUNT_HW_INSTRUCTIONS);
	attr.disabled = 0;
	fd = sys_perf_event_open(&attr, 0, -1, -1, 0);
	if (fd >= 0 && read(fd, &count, sizeof(count)) != sizeof(count))
		count = 0;
	printf("%s instructions with the cpu PMU's type in config[63:32] counts: %llu\n",
	       fd >= 0 && count > 0 ? "ok" : "not ok", count);
	if (fd < 0 || !count)
		fails++;
	if (fd >= 0)
		close(fd);

	attr_init(&attr, PERF_TYPE_HARDWARE,
		  (unsigned long long)PERF_TYPE_SOFTWARE << 32);
	expect("cycles with the software PMU's type in config[63:32]", &attr,
	       ENOENT);
	attr_init(&attr, PERF_TYPE_HARDWARE,
		  (unsigned long long)PERF_TYPE_TRACEPOINT << 32);
	expect("cycles with the tracepoint PMU's type in config[63:32]",
	       &attr, ENOENT);
	attr_init(&attr, PERF_TYPE_HARDWARE, 0x99ULL << 32);
	expect("cycles with no PMU's type (0x99) in config[63:32]", &attr, 0);
	attr_init(&attr, PERF_TYPE_HW_CACHE,
		  (unsigned long long)PERF_TYPE_SOFTWARE << 32);
	expect("L1D read access with the software PMU's type in config[63:32]",
	       &attr, ENOENT);
	attr_init(&attr, PERF_TYPE_HW_CACHE, cpu << 32);
	expect("L1D read access with the cpu PMU's type in config[63:32]",
	       &attr, 0);
	attr_init(&attr, PERF_TYPE_HARDWARE, 1ULL << 63);
	expect("cycles with no PMU's type (bit 63) in config[63:32]", &attr, 0);
	/*
	 * precise cycles: Intel's PEBS; AMD's are not forwarded to ibs_op
	 * when they name the cpu PMU (ENOENT, as 6.12)
	 */
	attr_init(&attr, PERF_TYPE_HARDWARE, cpu << 32);
	attr.sample_period = 100000;
	attr.precise_ip = 2;
	expect("cycles:pp with the cpu PMU's type in config[63:32]", &attr,
	       is_amd() ? ENOENT : 0);
}

int main(void)
{
	struct perf_event_attr attr;

	setvbuf(stdout, NULL, _IONBF, 0);
	/* 0xc0: instructions retired, on both vendors */
	attr_init(&attr, PERF_TYPE_RAW, 0xc0);
	expect("raw 0xc0", &attr, 0);
	attr.config1 = 1;
	expect("raw 0xc0 with config1=1", &attr, 0);
	attr.config1 = 1ULL << 63;
	expect("raw 0xc0 with config1 bit 63", &attr, 0);
	attr.config1 = 0;
	attr.config2 = 1;
	expect("raw 0xc0 with config2=1", &attr, 0);

	attr_init(&attr, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS);
	attr.sample_period = 100000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR;
	attr.sample_regs_intr = 1ULL << 0;	/* AX */
	expect("instructions, regs_intr AX", &attr, 0);
	attr.sample_regs_intr |= 1ULL << XMM0_BIT;
	expect("instructions, regs_intr AX and XMM0", &attr, EINVAL);

	attr_init(&attr, PERF_TYPE_RAW, 0xc0);
	attr.sample_period = 100000;
	attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_REGS_INTR;
	attr.sample_regs_intr = 3ULL << XMM0_BIT;
	expect("raw 0xc0, regs_intr XMM0", &attr, EINVAL);

	extended_types();
	return fails ? 1 : 0;
}
