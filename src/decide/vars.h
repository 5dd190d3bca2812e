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
 * VARs for @vars (in CU order, their type ids those of the types @out
 * comes after) and their DATASEC, appended to @out.
 */
int vars__emit(struct btf_concat *out, const struct elf_symtab *syms,
	       const struct var_cand *vars, size_t nr,
	       const struct decl_tag *tags);

#endif
