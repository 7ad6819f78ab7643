// SPDX-License-Identifier: GPL-2.0
#include <linux/kernel.h>
#include "ecomod.h"

static const unsigned long ecomod_table[] = { 1, 2, 3, 5, 8, 13, 21, 34 };

unsigned long ecomod_table_sum(void)
{
	unsigned long s = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(ecomod_table); i++)
		s += ecomod_table[i];
	return s;
}
