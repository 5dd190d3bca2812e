/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * --verbose: pahole 1.31's lines for each function it leaves out, in its
 * words, so that scripts written against pahole's output work:
 *   NAME : skipping BTF encoding of function due to REASON
 * preceded, when prototypes differ, by the line naming the difference.
 */
#ifndef DWARF2BTF_FUNC_LOG_H
#define DWARF2BTF_FUNC_LOG_H

#include "decide/funcs.h"

/* A func_report callback; CTX is the FILE * to print to. */
void func_log__pahole(void *ctx, const struct btf *btf,
		      const struct elf_symtab *syms,
		      const struct func_param *params,
		      const struct func_decision *d);

#endif
