// SPDX-License-Identifier: GPL-2.0
/*
 * Side-band records (mmap, comm, fork, namespaces, ksymbol, bpf, text
 * poke) are written into ring buffers, which this kernel does not have
 * yet: with no event that could receive a record, each hook is a no-op.
 * The hooks are here so the rest of the kernel links against the
 * interface it will keep.
 */
#include "internal.h"

void perf_event_mmap(struct vm_area_struct *vma)
{
}

void perf_event_comm(struct task_struct *tsk, bool exec)
{
}

void perf_event_namespaces(struct task_struct *tsk)
{
}

void perf_event_fork(struct task_struct *tsk)
{
}

void perf_event_ksymbol(u16 ksym_type, u64 addr, u32 len, bool unregister,
			const char *sym)
{
}

void perf_event_bpf_event(struct bpf_prog *prog,
			  enum perf_bpf_event_type type, u16 flags)
{
}

void perf_event_text_poke(const void *addr, const void *old_bytes,
			  size_t old_len, const void *new_bytes,
			  size_t new_len)
{
}

void perf_event_update_userpage(struct perf_event *event)
{
}
EXPORT_SYMBOL_GPL(perf_event_update_userpage);

int get_callchain_buffers(int max_stack)
{
	return -EOPNOTSUPP;
}

void put_callchain_buffers(void)
{
}
