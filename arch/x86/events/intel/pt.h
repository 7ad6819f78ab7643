/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interfaces between the files of the intel_pt PMU: pt.c (capabilities,
 * sysfs, registration, the entry points the rest of the kernel calls),
 * pt_topa.c (the ToPA tables over an AUX area) and pt_pmu.c (the PMU's
 * callbacks and its PMI).
 */
#ifndef _ARCH_X86_EVENTS_INTEL_PT_H
#define _ARCH_X86_EVENTS_INTEL_PT_H

#include <linux/perf_event.h>
#include <linux/types.h>

struct pt_topa;

/**
 * struct pt_topa_span - where a stretch of trace goes in an AUX area
 * @off: the byte of the area it starts at
 * @len: how many bytes it may take before the CPU stops (the end of the
 *	STOP region); unbounded (0) in an overwrite area
 * @base: IA32_RTIT_OUTPUT_BASE for its start: the table of its entry
 * @ptrs: IA32_RTIT_OUTPUT_MASK_PTRS for its start: entry and offset
 */
struct pt_topa_span {
	unsigned long	off;
	unsigned long	len;
	u64		base;
	u64		ptrs;
};

struct pt_topa *pt_topa_alloc(int node, void **pages, int nr_pages,
			      bool overwrite, bool multi);
void pt_topa_free(struct pt_topa *tp);
unsigned long pt_topa_size(const struct pt_topa *tp);
bool pt_topa_overwrite(const struct pt_topa *tp);
bool pt_topa_gap(struct pt_topa *tp, bool gap);
void pt_topa_seek(const struct pt_topa *tp, unsigned long off,
		  struct pt_topa_span *sp);
bool pt_topa_bound(struct pt_topa *tp, struct pt_topa_span *sp,
		   unsigned long room, long wake);
void pt_topa_unmark(struct pt_topa *tp);
unsigned long pt_topa_pos(const struct pt_topa *tp, u64 base, u64 ptrs,
			  unsigned long fallback);
void pt_topa_copy(const struct pt_topa *tp, struct perf_output_handle *handle,
		  unsigned long from, unsigned long len);

/* pt_pmu.c */
extern struct pmu pt_pmu;
void pt_pmu_emergency_stop(void);
void pt_pmu_vmx(bool on);
int pt_addr_filters_validate(const struct perf_addr_range *r, unsigned int nr);

#endif /* _ARCH_X86_EVENTS_INTEL_PT_H */
