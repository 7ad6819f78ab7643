/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The model tests' verdict lines ("ok WHAT" / "not ok WHAT", counted in
 * fails: a test exits non-zero when any failed) and the helpers several
 * of them use. Static: a test need not use every one.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fails;

static void check(int ok, const char *what)
{
	printf("%s %s\n", ok ? "ok" : "not ok", what);
	if (!ok)
		fails++;
}

/* a verdict on a value, printed with the one expected */
static inline void check_val(int ok, const char *what, long long got,
			     long long want)
{
	printf("%s %s: %lld (expected %lld)\n", ok ? "ok" : "not ok", what,
	       got, want);
	if (!ok)
		fails++;
}

/* @fd is an open that must have failed with @err */
static inline void expect_errno(int fd, int err, const char *what)
{
	char buf[200];

	snprintf(buf, sizeof(buf), "%s: %s (expected %s)", what,
		 fd >= 0 ? "opened" : strerror(errno), strerror(err));
	check(fd < 0 && errno == err, buf);
	if (fd >= 0)
		close(fd);
}

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * Print the kernel's log as /dev/kmsg holds it (the test runner's
 * dmesg -c clears the log buffer's reader, not /dev/kmsg), the text of
 * each record without its prefix.
 */
static inline int print_kmsg(void)
{
	char line[1024];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	ssize_t len;

	while (fd >= 0) {
		char *text;

		len = read(fd, line, sizeof(line) - 1);
		if (len < 0 && errno == EPIPE)
			continue;	/* overwritten records */
		if (len < 0)
			break;
		line[len] = 0;
		text = strchr(line, ';');
		printf("%s", text ? text + 1 : line);
	}
	if (fd >= 0)
		close(fd);
	return 0;
}
