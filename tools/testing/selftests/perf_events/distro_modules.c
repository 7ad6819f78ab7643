// SPDX-License-Identifier: GPL-2.0
/*
 * The device PMU drivers that live outside our subsystem and that
 * Debian's config builds as modules (the data accelerators' idxd perfmon,
 * the RAPL powercap driver with its PMU) load into our kernel: every
 * symbol they take from the perf subsystem resolves (an unresolved one
 * makes finit_module() fail with ENOENT), and they unload again. The test
 * initramfs carries the test kernel's own copies in /tests/modules.
 * Without their hardware (none under QEMU) they register no PMU.
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

TEST(idxd_with_its_perfmon_loads_and_unloads)
{
	ASSERT_EQ(0, load("idxd_bus"));
	ASSERT_EQ(0, load("idxd"));
	EXPECT_TRUE(loaded("idxd"));
	EXPECT_EQ(0, unload("idxd"));
	EXPECT_EQ(0, unload("idxd_bus"));
	EXPECT_FALSE(loaded("idxd"));
}

TEST(rapl_common_with_its_pmu_loads_and_unloads)
{
	ASSERT_EQ(0, load("intel_rapl_common"));
	ASSERT_EQ(0, load("intel_rapl_msr"));
	EXPECT_TRUE(loaded("intel_rapl_msr"));
	EXPECT_EQ(0, unload("intel_rapl_msr"));
	EXPECT_EQ(0, unload("intel_rapl_common"));
	EXPECT_FALSE(loaded("intel_rapl_common"));
}

TEST_HARNESS_MAIN
