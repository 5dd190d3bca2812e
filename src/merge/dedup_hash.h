/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shallow hashes of BTF types, as libbpf's dedup computes them: equal types
 * hash equal, whatever they refer to.  Used to index a base (base_index.c)
 * and to match a module's types against it (split_dedup.c).
 */
#ifndef DWARF2BTF_DEDUP_HASH_H
#define DWARF2BTF_DEDUP_HASH_H

#include <stdbool.h>
#include <stdint.h>

struct btf;
struct btf_type;

uint64_t dedup_hash__name(const struct btf *btf, uint32_t off);
uint64_t dedup_hash__common(const struct btf *btf, const struct btf_type *t);
uint64_t dedup_hash__int_tag(const struct btf *btf, const struct btf_type *t);
uint64_t dedup_hash__enum(const struct btf *btf, const struct btf_type *t);
uint64_t dedup_hash__struct(const struct btf *btf, const struct btf_type *t);
uint64_t dedup_hash__array(const struct btf *btf, const struct btf_type *t);
uint64_t dedup_hash__proto(const struct btf *btf, const struct btf_type *t);
/* The hash a type is a candidate under; false for VAR and DATASEC. */
bool dedup_hash__type(const struct btf *btf, const struct btf_type *t,
		      uint64_t *h);

#endif /* DWARF2BTF_DEDUP_HASH_H */
