// SPDX-License-Identifier: GPL-2.0
/*
 * The device PMU drivers that live outside our subsystem and that
 * Debian's config builds as modules (the data accelerators' idxd perfmon,
 * the RAPL powercap driver with its PMU) load into our kernel: every
 * symbol they take from the perf subsystem resolves (an unresolved one
 * makes finit_module() fail with ENOENT), and they unload again. The test
 * initramfs carries the test kernel's own copies in /tests/modules.
 * Without their hardware (none under QEMU) they register no PMU; idxd's
 * init even refuses a CPU without MOVDIR64B (ENODEV), which it can only
 * say once the module is linked: an unresolved symbol is ENOENT before.
 */
#include "perf_test.h"

#define MOD_DIR	"/tests/modules/"

static int load(const char *name)
{
	char path[128];
	int fd, err = 0;

	snprintf(path, sizeof(path), MOD_DIR "%s.ko", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
		err = -errno;
	close(fd);
	return err;
}

static int unload(const char *name)
{
	return syscall(SYS_delete_module, name, O_NONBLOCK) ? -errno : 0;
}

static bool loaded(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) == 0;
}

static bool cpu_has(const char *flag)
{
	char line[4096], word[64];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(word, sizeof(word), " %s", flag);
	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5)) {
			line[strcspn(line, "\n")] = ' ';
			found = strstr(line, word) != NULL;
			break;
		}
	if (f)
		fclose(f);
	return found;
}

TEST(idxd_with_its_perfmon_links_and_unloads)
{
	int err;

	ASSERT_EQ(0, load("idxd_bus"));
	err = load("idxd");
	if (cpu_has("movdir64b")) {
		ASSERT_EQ(0, err);
		EXPECT_TRUE(loaded("idxd"));
		EXPECT_EQ(0, unload("idxd"));
	} else {
		/* linked, then refused by its init */
		ASSERT_EQ(-ENODEV, err);
		EXPECT_FALSE(loaded("idxd"));
	}
	EXPECT_EQ(0, unload("idxd_bus"));
}

TEST(rapl_common_with_its_pmu_loads_and_unloads)
{
	ASSERT_EQ(0, load("iosf_mbi"));
	ASSERT_EQ(0, load("intel_rapl_common"));
	ASSERT_EQ(0, load("intel_rapl_msr"));
	EXPECT_TRUE(loaded("intel_rapl_msr"));
	EXPECT_EQ(0, unload("intel_rapl_msr"));
	EXPECT_EQ(0, unload("intel_rapl_common"));
	EXPECT_EQ(0, unload("iosf_mbi"));
	EXPECT_FALSE(loaded("intel_rapl_common"));
}

TEST_HARNESS_MAIN
