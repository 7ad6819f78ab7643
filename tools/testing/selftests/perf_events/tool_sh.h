/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tool_sh.h: for the tests that drive command-line tools in the guest
 * (perf_tool, perf_probe_tool, bpftrace_tool). Each test binary sets
 * tool_tmpdir to its own scratch directory before running tests.
 */
#ifndef TOOL_SH_H
#define TOOL_SH_H

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

static char tool_tmpdir[256];

/*
 * Run a shell command line (printf format), stdout and stderr into 'out'
 * (malloc'ed, NUL-terminated), stdin /dev/null. Returns the exit status,
 * or -1.
 */
static int __attribute__((format(printf, 2, 3), unused))
sh(char **out, const char *fmt, ...)
{
	char cmd[4096], path[300];
	va_list ap;
	int status, fd;
	ssize_t n, len = 0, cap = 65536;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd) - 64, fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/out.txt", tool_tmpdir);
	strcat(cmd, " >");
	strcat(cmd, path);
	strcat(cmd, " 2>&1 </dev/null");
	status = system(cmd);
	*out = malloc(cap);
	if (!*out)
		return -1;
	(*out)[0] = 0;
	fd = open(path, O_RDONLY);
	if (fd >= 0) {
		while ((n = read(fd, *out + len, cap - 1 - len)) > 0) {
			len += n;
			if (len == cap - 1) {
				char *bigger = realloc(*out, cap * 2);

				if (!bigger)
					break;
				*out = bigger;
				cap *= 2;
			}
		}
		close(fd);
		(*out)[len] = 0;
	}
	if (status == -1 || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* Lines of s that contain needle. */
static int __attribute__((unused))
count_lines(const char *s, const char *needle)
{
	int n = 0;

	while (s && *s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);

		if (memmem(s, len, needle, strlen(needle)))
			n++;
		s = e ? e + 1 : NULL;
	}
	return n;
}

#endif
