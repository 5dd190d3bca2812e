/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * With --verbose, we print pahole 1.31's lines for each function it leaves
 * out, in its words, so that scripts written against pahole's output work:
 *   NAME : skipping BTF encoding of function due to REASON
 * When prototypes differ, the line naming the difference comes first.
 */
#ifndef DWARF2BTF_FUNC_LOG_H
#define DWARF2BTF_FUNC_LOG_H

#include "decide/funcs.h"

/* This is a func_report callback; CTX is the FILE * to print to. */
void func_log__pahole(void *ctx, const struct btf *btf,
		      const struct elf_symtab *syms,
		      const struct func_param *params,
		      const struct func_decision *d);

#endif
