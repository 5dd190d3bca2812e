/* SPDX-License-Identifier: GPL-2.0-only */
/* Visiting the type id fields of a BTF type, whatever its kind. */
#ifndef DWARF2BTF_BTF_IDS_H
#define DWARF2BTF_BTF_IDS_H

#include <stdint.h>

struct btf;
struct btf_type;

/*
 * libbpf keeps the types it builds or reads in memory of its own that
 * stays writable: ids and names are patched in place.
 */
struct btf_type *btf_mut_type(const struct btf *btf, uint32_t id);

typedef int (*btf_id_fn)(uint32_t *id, void *ctx);

/*
 * Calls FN on every field of T that holds a type id, in order; returns the
 * first nonzero value FN returns, -EINVAL for a kind it does not know.
 */
int btf_type__for_each_id(struct btf_type *t, btf_id_fn fn, void *ctx);

#endif
