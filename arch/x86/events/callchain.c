// SPDX-License-Identifier: GPL-2.0-only
/*
 * Stack walking for sample callchains: the kernel stack with the kernel's
 * unwinder, the user stack by frame pointers, without faulting (samples
 * may be taken in NMI context).
 */
#include <linux/perf_event.h>
#include <linux/uaccess.h>
#include <linux/uprobes.h>

#include <asm/stacktrace.h>
#include <asm/unwind.h>

/**
 * perf_callchain_kernel - the kernel part of a sample's callchain
 * @entry: the callchain being built
 * @regs: the registers of the sample
 *
 * Registers made up by perf_fetch_caller_regs() (no X86_EFLAGS_FIXED)
 * are not a trap frame: the walk then starts from their stack pointer.
 * A sample of a guest has no host callchain (and the guest's stack is
 * not walked).
 */
void perf_callchain_kernel(struct perf_callchain_entry_ctx *entry,
			   struct pt_regs *regs)
{
	struct unwind_state state;
	unsigned long addr;

	if (perf_guest_state())
		return;
	if (perf_callchain_store(entry, regs->ip))
		return;

	if (regs->flags & X86_EFLAGS_FIXED)
		unwind_start(&state, current, regs, NULL);
	else
		unwind_start(&state, current, NULL, (void *)regs->sp);

	for (; !unwind_done(&state); unwind_next_frame(&state)) {
		addr = unwind_get_return_address(&state);
		if (!addr || perf_callchain_store(entry, addr))
			return;
	}
}

struct perf_user_frame {
	unsigned long next_fp;
	unsigned long ret_addr;
};

/*
 * A uprobe's handlers run with the task stopped on the probed
 * instruction (uprobes' handler sets utask->auprobe around them). At a
 * function's first instruction, push %rbp or the endbr64 before it, the
 * frame is not set up: the caller's return address is at the stack
 * pointer, and the frame pointer chain, which starts one frame up,
 * would leave the caller out.
 */
static bool perf_user_at_func_entry(void)
{
#ifdef CONFIG_UPROBES
	static const u8 endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	struct uprobe_task *utask = current->utask;
	struct arch_uprobe *auprobe;

	if (!utask || utask->state != UTASK_RUNNING)
		return false;
	auprobe = READ_ONCE(utask->auprobe);
	if (!auprobe)
		return false;
	return auprobe->insn[0] == 0x55 ||
	       !memcmp(auprobe->insn, endbr64, sizeof(endbr64));
#else
	return false;
#endif
}

/**
 * perf_callchain_user - the user part of a sample's callchain
 * @entry: the callchain being built
 * @regs: the user registers to walk from
 *
 * Follows the chain of saved frame pointers from @regs->bp; stops at the
 * first frame that is not in user memory or cannot be read without a
 * fault.
 */
void perf_callchain_user(struct perf_callchain_entry_ctx *entry,
			 struct pt_regs *regs)
{
	struct perf_user_frame frame;
	unsigned long fp = regs->bp;

	if (perf_guest_state())
		return;
	if (perf_callchain_store(entry, regs->ip))
		return;
	if (!nmi_uaccess_okay())
		return;

	pagefault_disable();
	if (perf_user_at_func_entry()) {
		unsigned long ret;

		if (!__copy_from_user_inatomic(&ret,
					       (void __user *)regs->sp,
					       sizeof(ret)) &&
		    perf_callchain_store(entry, ret))
			goto out;
	}
	while (entry->nr < entry->max_stack) {
		if (fp & (sizeof(long) - 1) ||
		    fp >= TASK_SIZE_MAX - sizeof(frame) || !fp)
			break;
		if (__copy_from_user_inatomic(&frame,
					      (void __user *)fp,
					      sizeof(frame)))
			break;
		if (perf_callchain_store(entry, frame.ret_addr))
			break;
		/* frames go up the stack: anything else is a loop */
		if (frame.next_fp <= fp)
			break;
		fp = frame.next_fp;
	}
out:
	pagefault_enable();
}
