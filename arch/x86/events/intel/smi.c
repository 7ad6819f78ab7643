// SPDX-License-Identifier: GPL-2.0-only
/*
 * freeze_on_smi, a file of Intel's core PMUs: 1 (the default) sets
 * IA32_DEBUGCTL.FREEZE_WHILE_SMM (bit 14) on every CPU, so that the
 * counters stop while the CPU is in system management mode and the
 * firmware's work is not counted against the interrupted task; 0
 * clears it.
 */

#include <linux/cpu.h>
#include <linux/device.h>
#include <linux/kstrtox.h>
#include <linux/mutex.h>
#include <linux/smp.h>
#include <linux/sysfs.h>

#include <asm/debugreg.h>
#include <asm/msr.h>

#include "../perf_event.h"

static DEFINE_MUTEX(intel_smi_lock);
/* on from boot, as in 6.12 (its file reads 1 and DEBUGCTL has the bit) */
static bool intel_freeze_on_smi = true;

/* this CPU's DEBUGCTL as the file says: IRQs off (a cross call) */
static void intel_smi_set(void *unused)
{
	u64 debugctl = get_debugctlmsr();

	if (READ_ONCE(intel_freeze_on_smi))
		debugctl |= DEBUGCTLMSR_FREEZE_IN_SMM;
	else
		debugctl &= ~DEBUGCTLMSR_FREEZE_IN_SMM;
	update_debugctlmsr(debugctl);
}

/**
 * intel_smi_cpu_reset - give this CPU's DEBUGCTL the freeze_on_smi setting
 *
 * Called as the CPU comes up (intel_cpu_reset()), IRQs off.
 */
void intel_smi_cpu_reset(void)
{
	intel_smi_set(NULL);
}

static ssize_t freeze_on_smi_show(struct device *dev,
				  struct device_attribute *attr, char *page)
{
	return sysfs_emit(page, "%d\n", READ_ONCE(intel_freeze_on_smi));
}

static ssize_t freeze_on_smi_store(struct device *dev,
				   struct device_attribute *attr,
				   const char *buf, size_t count)
{
	unsigned long val;
	int err;

	err = kstrtoul(buf, 0, &val);
	if (err)
		return err;
	if (val > 1)
		return -EINVAL;

	mutex_lock(&intel_smi_lock);
	if (intel_freeze_on_smi != val) {
		WRITE_ONCE(intel_freeze_on_smi, val);
		/* the CPUs that come up later take it at their reset */
		cpus_read_lock();
		on_each_cpu(intel_smi_set, NULL, 1);
		cpus_read_unlock();
	}
	mutex_unlock(&intel_smi_lock);
	return count;
}
static DEVICE_ATTR_RW(freeze_on_smi);

static struct attribute *intel_smi_attrs[] = {
	&dev_attr_freeze_on_smi.attr,
	NULL,
};

const struct attribute_group intel_smi_group = {
	.attrs	= intel_smi_attrs,
};
