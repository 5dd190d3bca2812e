/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Function decisions, taken once every CU has been seen: which candidates
 * become BTF FUNCs.  docs/functions.md states the rules.
 */
#ifndef DWARF2BTF_FUNCS_H
#define DWARF2BTF_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include "cu/fragment.h"
#include "lib/encode_opts.h"
#include "input/symtab.h"

struct btf;

/*
 * Decide and append the BTF FUNCs to @btf, sorted by name.  @cands are in
 * CU order and their type ids are ids of @btf; their flags are updated.
 * Returns the number of FUNCs added or -errno.
 */
int funcs__emit(struct btf *btf, const struct elf_symtab *syms,
		const struct encode_opts *opts, struct func_cand *cands,
		size_t nr, const struct func_param *params,
		const struct decl_tag *tags);

#endif
