/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-CPU variables: one VAR per distinct address in .data..percpu and one
 * DATASEC listing them by offset, decided once all CUs are merged.
 */
#ifndef DWARF2BTF_VARS_H
#define DWARF2BTF_VARS_H

#include <stddef.h>
#include <stdint.h>

#include "cu_encoder.h"
#include "symtab.h"

struct btf;

struct var_entry {
	struct var_cand cand;	/* type_id is an id of the merged BTF */
	uint32_t cu_idx;
};

/* Returns the number of VARs added or -errno. */
int vars__emit(struct btf *btf, const struct elf_symtab *syms,
	       struct var_entry *vars, size_t nr);

#endif
