// SPDX-License-Identifier: GPL-2.0-only
/*
 * Intel last branch records (LBR): what KVM asks about the host's LBRs.
 * There is no LBR driver yet.
 */

#include <linux/export.h>
#include <linux/string.h>

#include <asm/perf_event.h>

/**
 * x86_perf_get_lbr - describe the host's LBR stack to KVM
 * @lbr: filled with the number of entries and the first FROM, TO and
 *	INFO MSRs, and whether call-stack mode is available
 *
 * Zeroed when no LBR driver is active: KVM then offers no LBRs to its
 * guests.
 */
void x86_perf_get_lbr(struct x86_pmu_lbr *lbr)
{
	memset(lbr, 0, sizeof(*lbr));
}
EXPORT_SYMBOL_GPL(x86_perf_get_lbr);
