// SPDX-License-Identifier: GPL-2.0-only
/*
 * Users of the branch hardware that cannot share it, as in 6.12: the
 * intel_bts PMU's events, the intel_pt PMU's events (on models older
 * than Skylake), and the branch stack events with the legacy BTS event
 * (those two share). Counted system-wide, from an event's creation to
 * its destruction: an event of one kind is refused (EBUSY) while an
 * event of another kind exists anywhere, enabled or not.
 */

#include <linux/errno.h>
#include <linux/spinlock.h>

#include "perf_event.h"

static DEFINE_SPINLOCK(x86_excl_lock);
static int x86_excl_users[X86_EXCL_NR];

/**
 * x86_excl_get - a new event of @kind
 * @kind: what of the branch hardware it uses
 *
 * Return: 0, or -EBUSY while events of another kind exist.
 */
int x86_excl_get(enum x86_excl_kind kind)
{
	int i, err = 0;

	spin_lock(&x86_excl_lock);
	for (i = 0; i < X86_EXCL_NR; i++) {
		if (i != kind && x86_excl_users[i])
			err = -EBUSY;
	}
	if (!err)
		x86_excl_users[kind]++;
	spin_unlock(&x86_excl_lock);
	return err;
}

/**
 * x86_excl_put - an event of @kind is destroyed
 * @kind: as given to x86_excl_get()
 */
void x86_excl_put(enum x86_excl_kind kind)
{
	spin_lock(&x86_excl_lock);
	WARN_ON_ONCE(!x86_excl_users[kind]--);
	spin_unlock(&x86_excl_lock);
}
