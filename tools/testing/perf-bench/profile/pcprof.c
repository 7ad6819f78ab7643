// SPDX-License-Identifier: GPL-2.0
/*
 * pcprof: a QEMU TCG plugin for profile.sh. Counts, per start address of
 * a kernel translation block, the guest instructions it executed and how
 * often it ran (inline adds: no callback per block); user space is one
 * total. Writes "ADDR INSNS EXECS" lines, and "user INSNS", at exit to
 * out=FILE (default /tmp/pcprof.out).
 */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct blk { uint64_t pc; uint64_t insns; uint64_t execs; };
static GHashTable *tab;
static uint64_t user_insns;
static const char *out = "/tmp/pcprof.out";

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t pc = qemu_plugin_tb_vaddr(tb);
	size_t n = qemu_plugin_tb_n_insns(tb);
	struct blk *b;

	if (pc < 0xffff800000000000ULL) {
		qemu_plugin_register_vcpu_tb_exec_inline(tb,
			QEMU_PLUGIN_INLINE_ADD_U64, &user_insns, n);
		return;
	}
	b = g_hash_table_lookup(tab, &pc);
	if (!b) {
		b = g_new0(struct blk, 1);
		b->pc = pc;
		g_hash_table_insert(tab, &b->pc, b);
	}
	qemu_plugin_register_vcpu_tb_exec_inline(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, &b->insns, n);
	qemu_plugin_register_vcpu_tb_exec_inline(tb,
		QEMU_PLUGIN_INLINE_ADD_U64, &b->execs, 1);
}

static void dump(gpointer k, gpointer v, gpointer f)
{
	struct blk *b = v;
	if (b->insns)
		fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n", b->pc, b->insns, b->execs);
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out, "w");
	if (!f)
		return;
	fprintf(f, "user %" PRIu64 "\n", user_insns);
	g_hash_table_foreach(tab, dump, f);
	fclose(f);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
	const qemu_info_t *info, int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (g_str_has_prefix(argv[i], "out="))
			out = g_strdup(argv[i] + 4);
	tab = g_hash_table_new(g_int64_hash, g_int64_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
