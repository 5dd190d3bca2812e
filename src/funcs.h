/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Function decisions, taken once every CU has been seen: which candidates
 * become BTF FUNCs.  docs/functions.md states the rules.
 */
#ifndef DWARF2BTF_FUNCS_H
#define DWARF2BTF_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include "cu_encoder.h"
#include "symtab.h"

struct btf;

/* A candidate after merging: its type ids are ids of the merged BTF. */
struct func_entry {
	struct func_cand cand;
	size_t seq;		/* position in CU order, then DIE order */
};

/*
 * Decide and append the BTF FUNCs to @btf, sorted by name.  @entries is
 * reordered.  Returns the number of FUNCs added or -errno.
 */
int funcs__emit(struct btf *btf, const struct elf_symtab *syms,
		struct func_entry *entries, size_t nr,
		const struct func_param *params);

#endif
