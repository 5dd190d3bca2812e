/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Variables: a VAR each and a DATASEC per section (.data..percpu only, or
 * every data section with global_var), added once all CUs are merged.
 */
#ifndef DWARF2BTF_VARS_H
#define DWARF2BTF_VARS_H

#include <stddef.h>
#include <stdint.h>

#include "cu/fragment.h"
#include "input/symtab.h"

struct btf_concat;

/*
 * Appends to @out the VARs for @vars and their DATASECs.  @vars are in CU
 * order, and their type ids are those of the types @out comes after.
 * Returns the number of VARs added or a negative errno.
 */

int vars__emit(struct btf_concat *out, const struct elf_symtab *syms,
	       const struct var_cand *vars, size_t nr,
	       const struct decl_tag *tags);

#endif
