/* SPDX-License-Identifier: GPL-2.0 */
#ifndef ECOMOD_H
#define ECOMOD_H
unsigned long ecomod_table_sum(void);
const char *ecomod_text(void);
#endif
