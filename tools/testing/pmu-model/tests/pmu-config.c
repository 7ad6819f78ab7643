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
 * refusing everything). Exit 0 on success, 1 on a failed check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

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
	int fd = syscall(SYS_perf_event_open, attr, 0, -1, -1, 0);
	int got = fd < 0 ? errno : 0;

	printf("%s %s: %s (expected %s)\n", got == want ? "ok" : "not ok",
	       what, got ? strerror(got) : "opened",
	       want ? strerror(want) : "opened");
	if (got != want)
		fails++;
	if (fd >= 0)
		close(fd);
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
	return fails ? 1 : 0;
}
