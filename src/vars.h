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

struct btf;

/* VARs for @vars (in CU order, type ids of @btf) and their DATASEC. */
int vars__emit(struct btf *btf, const struct var_cand *vars, size_t nr,
	       const struct decl_tag *tags);

#endif
