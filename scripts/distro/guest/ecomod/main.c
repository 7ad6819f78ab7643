// SPDX-License-Identifier: GPL-2.0
#include <linux/module.h>
#include <linux/init.h>
#include "ecomod.h"

static int __init ecomod_init(void)
{
	pr_info("ecomod: loaded, table sum %lu, %s\n", ecomod_table_sum(),
		ecomod_text());
	return 0;
}

static void __exit ecomod_exit(void)
{
	pr_info("ecomod: unloaded\n");
}

module_init(ecomod_init);
module_exit(ecomod_exit);
MODULE_DESCRIPTION("perf image check: a module built from linux-headers");
MODULE_LICENSE("GPL");
