// SPDX-License-Identifier: GPL-2.0
/*
 * Address filters (PERF_EVENT_IOC_SET_FILTER on intel_pt, 0022's two
 * address ranges): the string's syntax and the errno of each fault, as
 * 6.12 gives them. Filters are separated by commas, blanks or newlines,
 * each "filter|start|stop ADDR[/SIZE][@FILE]", numbers as C writes them,
 * an empty string clears them. "filter" without a size, a size of 0, an
 * unknown action and a FILE that is a directory are EINVAL; a FILE that
 * is not there ENOENT; a third filter, a start or stop without a size
 * (intel_pt takes ranges only), and a filter on a file for an event that
 * follows no task EOPNOTSUPP. Addresses without a file are taken as they
 * are, kernel or user, whatever the event excludes. A software event
 * has no address filters: its SET_FILTER is the tracing one (EINVAL).
 */
#include <stdlib.h>
#include <sys/ioctl.h>

#include <linux/perf_event.h>

#include "perf_sys.h"
#include "pmu-check.h"

#define PT_DIR	"/sys/bus/event_source/devices/intel_pt"

static char exe[4096];

/* /proc/cpuinfo's flags name intel_pt */
static int cpu_has_pt(void)
{
	char line[4096];
	int has = 0;
	FILE *fp = fopen("/proc/cpuinfo", "r");

	while (fp && fgets(line, sizeof(line), fp))
		if (!strncmp(line, "flags", 5) && strstr(line, " intel_pt"))
			has = 1;
	if (fp)
		fclose(fp);
	return has;
}

static int open_event(int type, int pid, int cpu, int exclude_kernel)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = type,
		.disabled = 1,
		.exclude_kernel = exclude_kernel,
		.exclude_hv = 1,
	};

	if (type == PERF_TYPE_SOFTWARE)
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
	return sys_perf_event_open(&attr, pid, cpu, -1, 0);
}

/* SET_FILTER @fmt (one %s: this program's path) on @fd: errno @err */
static void filter(int fd, int err, const char *name, const char *fmt)
{
	char str[8192], what[300];
	int ret;

	snprintf(str, sizeof(str), fmt, exe, exe, exe);
	errno = 0;
	ret = ioctl(fd, PERF_EVENT_IOC_SET_FILTER, str);
	snprintf(what, sizeof(what), "%s: %s (expected %s)", name,
		 ret ? strerror(errno) : "0", err ? strerror(err) : "0");
	check(err ? ret == -1 && errno == err : ret == 0, what);
}

int main(int argc, char **argv)
{
	long long type;
	FILE *fp;
	int fd;

	fp = fopen(PT_DIR "/type", "r");
	if (!fp || fscanf(fp, "%lld", &type) != 1) {
		/* only where the CPU has PT (the alr boot's intel-pt=on) */
		check(!cpu_has_pt(), "intel_pt is registered where the CPU has PT");
		return fails ? 1 : 0;
	}
	fclose(fp);
	if (!realpath(argv[0], exe))
		return 1;

	fd = open_event(type, 0, -1, 1);
	check(fd >= 0, "a task's intel_pt event opens");
	filter(fd, 0, "filter on a file", "filter 0x1000/0x10@%s");
	filter(fd, EINVAL, "filter without a size", "filter 0x1000@%s");
	filter(fd, EOPNOTSUPP, "start without a size", "start 0x1000@%s");
	filter(fd, EOPNOTSUPP, "stop without a size", "stop 0x1000@%s");
	filter(fd, 0, "stop on a range", "stop 0x1000/0x10@%s");
	filter(fd, 0, "two, a comma between",
	       "filter 0x1000/0x10@%s,stop 0x2000/0x10@%s");
	filter(fd, 0, "two, a blank between",
	       "filter 0x1000/0x10@%s stop 0x2000/0x10@%s");
	filter(fd, 0, "two, a newline between",
	       "filter 0x1000/0x10@%s\nstop 0x2000/0x10@%s");
	filter(fd, EOPNOTSUPP, "three",
	       "filter 0x1000/0x10@%s,filter 0x2000/0x10@%s,filter 0x3000/0x10@%s");
	filter(fd, EINVAL, "size 0", "filter 0x1000/0@%s");
	filter(fd, 0, "a kernel address", "filter 0xffffffff81000000/0x1000");
	filter(fd, 0, "a user address", "filter 0x401000/0x1000");
	filter(fd, ENOENT, "no such file", "filter 0x1000/0x10@/nonexistent");
	filter(fd, EINVAL, "a directory", "filter 0x1000/0x10@/tmp");
	filter(fd, EINVAL, "an unknown action", "foo 0x1000/0x10");
	filter(fd, EINVAL, "an action without an address", "filter");
	filter(fd, 0, "empty: none", "");
	filter(fd, 0, "decimal", "filter 4096/16@%s");
	filter(fd, 0, "blanks around", "  filter   0x1000/0x10@%s  ");
	filter(fd, 0, "a comma after", "filter 0x1000/0x10@%s,");
	filter(fd, 0, "the top of the address space",
	       "filter 0xfffffffffffff000/0x2000@%s");
	close(fd);

	fd = open_event(type, 0, -1, 0);
	check(fd >= 0, "a task's intel_pt event with the kernel opens");
	filter(fd, 0, "a kernel address, kernel traced",
	       "filter 0xffffffff81000000/0x1000");
	close(fd);

	fd = open_event(type, -1, 0, 1);
	check(fd >= 0, "a CPU's intel_pt event opens");
	filter(fd, EOPNOTSUPP, "a file filter on a CPU's event",
	       "filter 0x1000/0x10@%s");
	filter(fd, 0, "an address filter on a CPU's event",
	       "filter 0xffffffff81000000/0x1000");
	close(fd);

	fd = open_event(PERF_TYPE_SOFTWARE, 0, -1, 1);
	check(fd >= 0, "a software event opens");
	filter(fd, EINVAL, "a file filter on a software event",
	       "filter 0x1000/0x10@%s");
	close(fd);

	fd = open_event(type, 0, -1, 1);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	filter(fd, 0, "on an enabled event", "filter 0x1000/0x10@%s");
	close(fd);
	return fails ? 1 : 0;
}
