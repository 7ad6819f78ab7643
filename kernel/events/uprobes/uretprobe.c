// SPDX-License-Identifier: GPL-2.0
/*
 * uretprobes: the consumers' ret_handler() runs when a probed function
 * returns.
 *
 * At the probe hit the return address on the user stack is replaced by
 * the trampoline's (slot 0 of the XOL area) and a return instance
 * remembers the original one, the probed function and the stack pointer
 * at entry. Each task keeps its instances as a stack, newest first, at
 * most MAX_URETPROBE_DEPTH deep. The trampoline enters the kernel (the
 * arch's uretprobe syscall, or a breakpoint the trap path recognises by
 * its address) and uprobe_handle_trampoline() runs the ret_handlers and
 * sends the task to the original return address.
 *
 * A probed function entered with the trampoline already as its return
 * address (a tail call from another probed function) adds a "chained"
 * instance: both return at once, through the older one's address.
 *
 * Frames left without returning (longjmp, exceptions) leave instances
 * behind; the stack pointer tells them apart (arch_uretprobe_is_alive()),
 * at the next hit and at the next return, and they are dropped without
 * running their handlers.
 *
 * Task context, may sleep; the instances are the task's own.
 */
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "uprobes.h"

static void free_instance(struct uprobe_task *utask, struct return_instance *ri)
{
	utask->depth--;
	uprobe_put(ri->uprobe);
	kfree(ri);
}

static struct return_instance *pop_instance(struct uprobe_task *utask)
{
	struct return_instance *ri = utask->return_instances;

	/* unlinked first: a callchain taken in an NMI reads the list */
	WRITE_ONCE(utask->return_instances, ri->next);
	barrier();
	free_instance(utask, ri);
	return utask->return_instances;
}

/* Drop the instances of frames the stack has already left. */
static void drop_dead_instances(struct uprobe_task *utask, enum rp_check ctx,
				struct pt_regs *regs)
{
	struct return_instance *ri = utask->return_instances;

	while (ri && !arch_uretprobe_is_alive(ri, ctx, regs))
		ri = pop_instance(utask);
}

/**
 * uprobe_prepare_return - hijack the return address at a probe hit
 * @uprobe: the probe whose consumers have ret_handlers
 * @regs: the user registers at the function's entry
 */
void uprobe_prepare_return(struct uprobe *uprobe, struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;
	struct return_instance *ri;
	unsigned long trampoline, orig_ret_vaddr;
	bool chained;

	if (utask->depth >= MAX_URETPROBE_DEPTH) {
		pr_warn_ratelimited("uprobe: omit uretprobe due to nestedness limit pid/tgid=%d/%d\n",
				    current->pid, current->tgid);
		return;
	}
	trampoline = uprobe_xol_trampoline();
	if (!trampoline)
		return;
	ri = kmalloc(sizeof(*ri), GFP_KERNEL);
	if (!ri)
		return;

	orig_ret_vaddr = arch_uretprobe_hijack_return_addr(trampoline, regs);
	if (orig_ret_vaddr == -1)
		goto free;

	chained = orig_ret_vaddr == trampoline;
	drop_dead_instances(utask, chained ? RP_CHECK_CHAIN_CALL : RP_CHECK_CALL,
			    regs);
	if (chained) {
		if (!utask->return_instances) {
			/* the trampoline's address with nothing to return to */
			pr_warn_ratelimited("uprobe: %s:%d return address points to the trampoline, sending SIGSEGV\n",
					    current->comm, current->pid);
			force_sig(SIGSEGV);
			goto free;
		}
		orig_ret_vaddr = utask->return_instances->orig_ret_vaddr;
	}

	ri->uprobe = uprobe_get(uprobe);
	ri->func = instruction_pointer(regs);
	ri->stack = user_stack_pointer(regs);
	ri->orig_ret_vaddr = orig_ret_vaddr;
	ri->chained = chained;
	ri->next = utask->return_instances;
	/* linked once whole: a callchain taken in an NMI reads the list */
	barrier();
	WRITE_ONCE(utask->return_instances, ri);
	utask->depth++;
	return;
free:
	kfree(ri);
}

static void run_ret_handlers(struct return_instance *ri, struct pt_regs *regs)
{
	struct uprobe *uprobe = ri->uprobe;
	struct uprobe_consumer *uc;
	int idx;

	idx = srcu_read_lock(&uprobes_srcu);
	list_for_each_entry_srcu(uc, &uprobe->consumers, cons_node,
				 srcu_read_lock_held(&uprobes_srcu))
		if (uc->ret_handler)
			uc->ret_handler(uc, ri->func, regs);
	srcu_read_unlock(&uprobes_srcu, idx);
}

/**
 * uprobe_handle_trampoline - a probed function returned to the trampoline
 * @regs: the user registers, the return address already popped
 *
 * Runs the ret_handlers of the instances returning now and sets the
 * instruction pointer to their original return address. Instances of
 * frames left without a return are dropped. A task with no instance is
 * not returning from a probed function: it gets SIGILL.
 */
void uprobe_handle_trampoline(struct pt_regs *regs)
{
	struct uprobe_task *utask = current->utask;
	struct return_instance *ri, *last, *next;
	bool returning;

	if (!utask || !utask->return_instances)
		goto sigill;

	ri = utask->return_instances;
	do {
		/* a chained group returns as one, through its oldest */
		last = ri;
		while (last->chained && last->next)
			last = last->next;
		next = last->next;
		/*
		 * The group returning is the oldest whose frame the stack
		 * left: the next one's frame is still live (or there is none).
		 */
		returning = !next || arch_uretprobe_is_alive(next, RP_CHECK_RET,
							     regs);
		if (returning)
			instruction_pointer_set(regs, last->orig_ret_vaddr);
		/*
		 * The group leaves the pending returns before its handlers
		 * run: a user callchain taken in them (perf_callchain_fix_
		 * uretprobes()) maps the trampolines still on the stack to
		 * the instances of the frames above, not to this one.
		 */
		WRITE_ONCE(utask->return_instances, next);
		barrier();
		for (;;) {
			struct return_instance *older = ri->next;
			bool done = ri == last;

			if (returning)
				run_ret_handlers(ri, regs);
			free_instance(utask, ri);
			if (done)
				break;
			ri = older;
		}
		ri = next;
	} while (!returning);
	return;

sigill:
	pr_warn_ratelimited("uprobe: %s:%d failed to handle uretprobe, sending SIGILL\n",
			    current->comm, current->pid);
	force_sig(SIGILL);
}

/* The task leaves its mm: forget its pending returns. */
void uprobe_free_return_instances(struct uprobe_task *utask)
{
	while (utask->return_instances)
		pop_instance(utask);
}

/**
 * uprobe_dup_return_instances - a forked child returns where its parent does
 * @parent: the parent's uprobe_task
 * @child: the child's, empty
 *
 * Return: 0 or -ENOMEM (the child then has a partial stack of instances).
 */
int uprobe_dup_return_instances(struct uprobe_task *parent,
				struct uprobe_task *child)
{
	struct return_instance *ri, **tail = &child->return_instances;

	for (ri = parent->return_instances; ri; ri = ri->next) {
		struct return_instance *copy = kmemdup(ri, sizeof(*ri), GFP_KERNEL);

		if (!copy)
			return -ENOMEM;
		uprobe_get(copy->uprobe);
		copy->next = NULL;
		*tail = copy;
		tail = &copy->next;
		child->depth++;
	}
	return 0;
}
