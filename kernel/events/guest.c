// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hypervisor's view of an interrupt: KVM (or Xen) registers callbacks
 * that say whether the PMI or tick being handled on this CPU interrupted
 * a guest, and where. The x86 sample code asks them so that such samples
 * carry PERF_RECORD_MISC_GUEST_KERNEL/USER and the guest's IP, not the
 * host's VM-exit path.
 *
 * One hypervisor at a time. The callbacks are read from NMI context: the
 * pointer is RCU-protected (an NMI is a sched-RCU reader) and
 * unregistering waits a grace period before the module may go.
 */

#include <linux/bug.h>
#include <linux/export.h>
#include <linux/jump_label.h>
#include <linux/perf_event.h>
#include <linux/rcupdate.h>

static struct perf_guest_info_callbacks __rcu *perf_guest_cbs;
/* no hypervisor: one patched-out branch per sample */
DEFINE_STATIC_KEY_FALSE(perf_guest_registered);
EXPORT_SYMBOL_GPL(perf_guest_registered);

/**
 * perf_register_guest_info_callbacks - a hypervisor module is ready
 * @cbs: its callbacks, which must stay valid until unregistered
 */
void perf_register_guest_info_callbacks(struct perf_guest_info_callbacks *cbs)
{
	if (WARN_ON_ONCE(rcu_access_pointer(perf_guest_cbs)))
		return;
	rcu_assign_pointer(perf_guest_cbs, cbs);
	static_branch_enable(&perf_guest_registered);
}
EXPORT_SYMBOL_GPL(perf_register_guest_info_callbacks);

/**
 * perf_unregister_guest_info_callbacks - a hypervisor module goes away
 * @cbs: what it registered
 *
 * Returns once no CPU can still be calling into @cbs.
 */
void perf_unregister_guest_info_callbacks(struct perf_guest_info_callbacks *cbs)
{
	if (WARN_ON_ONCE(rcu_access_pointer(perf_guest_cbs) != cbs))
		return;
	static_branch_disable(&perf_guest_registered);
	RCU_INIT_POINTER(perf_guest_cbs, NULL);
	synchronize_rcu();
}
EXPORT_SYMBOL_GPL(perf_unregister_guest_info_callbacks);

static struct perf_guest_info_callbacks *perf_guest(void)
{
	if (!static_branch_unlikely(&perf_guest_registered))
		return NULL;
	return rcu_dereference_sched(perf_guest_cbs);
}

/**
 * __perf_guest_state - perf_guest_state() once a hypervisor registered
 *
 * Return: PERF_GUEST_ACTIVE, with PERF_GUEST_USER if the guest was in
 * user mode; 0 for the host.
 */
unsigned int __perf_guest_state(void)
{
	struct perf_guest_info_callbacks *cbs = perf_guest();

	return cbs ? cbs->state() : 0;
}

/**
 * perf_guest_get_ip - the guest's instruction pointer
 *
 * Only meaningful after perf_guest_state() returned PERF_GUEST_ACTIVE
 * for the same interrupt.
 */
unsigned long perf_guest_get_ip(void)
{
	struct perf_guest_info_callbacks *cbs = perf_guest();

	return cbs ? cbs->get_ip() : 0;
}

/**
 * perf_guest_handle_intel_pt_intr - offer an Intel PT PMI to the guest
 *
 * Return: nonzero if the hypervisor took it.
 */
unsigned int perf_guest_handle_intel_pt_intr(void)
{
	struct perf_guest_info_callbacks *cbs = perf_guest();

	if (!cbs || !cbs->handle_intel_pt_intr)
		return 0;
	return cbs->handle_intel_pt_intr();
}
