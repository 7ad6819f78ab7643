/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pmu-unthrottle.h: for the model tests that count samples, as root:
 * unthrottle() lifts the sample rate limit and the kernel's lowering of
 * it (perf_cpu_time_max_percent = 0) until the program exits;
 * throttle_rate() sets a limit instead.
 */
#include <stdio.h>
#include <stdlib.h>

static char old_pct[32], old_rate[32];

static void restore(void);

static void sysctl(const char *name, const char *val, char *old)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/sys/kernel/%s", name);
	fp = fopen(path, "r");
	if (old && fp && !fgets(old, 32, fp))
		old[0] = 0;
	if (fp)
		fclose(fp);
	fp = fopen(path, "w");
	if (fp) {
		fputs(val, fp);
		fclose(fp);
	}
}

/*
 * The samples of a loop come in one tick: no throttling, and no rate
 * lowered because a debug kernel's PMI is slow (restored at the end)
 */
static inline void unthrottle(void)
{
	/* the rate cannot be written while the time limit is off */
	sysctl("perf_event_max_sample_rate", "100000", old_rate);
	sysctl("perf_cpu_time_max_percent", "0", old_pct);
	atexit(restore);
}

/*
 * For a test of throttling itself: @rate samples a second
 * (perf_event_max_sample_rate), which the kernel does not lower
 * meanwhile (restored at the end)
 */
static inline void throttle_rate(const char *rate)
{
	sysctl("perf_event_max_sample_rate", rate, old_rate);
	sysctl("perf_cpu_time_max_percent", "0", old_pct);
	atexit(restore);
}

static void restore(void)
{
	sysctl("perf_cpu_time_max_percent", old_pct, NULL);
	sysctl("perf_event_max_sample_rate", old_rate, NULL);
}
