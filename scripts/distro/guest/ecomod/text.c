// SPDX-License-Identifier: GPL-2.0
#include <linux/utsname.h>
#include "ecomod.h"

const char *ecomod_text(void)
{
	return init_utsname()->release;
}
