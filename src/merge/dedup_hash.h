/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shallow hashes of BTF types, as libbpf's dedup computes them: equal types
 * hash equal, whatever they refer to (a type's name and own fields).  Used to index a base (base_index.c)
 * and to match a module's types against it (split_dedup.c).
 */
#ifndef DWARF2BTF_DEDUP_HASH_H
#define DWARF2BTF_DEDUP_HASH_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/btf.h>

#include "lib/hash.h"

/* Inline: indexing a base hashes each of its 100 k types. */

static inline uint64_t hash_mix(uint64_t h, uint64_t v)
{
	return h * 31 + v;
}

static inline uint64_t dedup_hash__name(const struct btf *btf, uint32_t off)
{
	const char *s = btf__name_by_offset(btf, off);

	return hash_str(s ? s : "");
}

static inline uint64_t dedup_hash__common(const struct btf *btf, const struct btf_type *t)
{
	return hash_mix(hash_mix(dedup_hash__name(btf, t->name_off), t->info), t->size);
}

/* Name and kind: what is compared before the type it names is walked. */
static inline uint64_t dedup_hash__typedef(const struct btf *btf, const struct btf_type *t)
{
	return hash_mix(dedup_hash__name(btf, t->name_off), t->info);
}

static inline uint64_t dedup_hash__int_tag(const struct btf *btf, const struct btf_type *t)
{
	return hash_mix(dedup_hash__common(btf, t), *(const uint32_t *)(t + 1));
}

/* Names only: an enum without values (declared) matches a full one. */
static inline uint64_t dedup_hash__enum(const struct btf *btf, const struct btf_type *t)
{
	return dedup_hash__name(btf, t->name_off);
}

static inline uint64_t dedup_hash__struct(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	uint64_t h = dedup_hash__common(btf, t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		h = hash_mix(hash_mix(h, dedup_hash__name(btf, m->name_off)), m->offset);
	return h;
}

static inline uint64_t dedup_hash__array(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_array *a = btf_array(t);
	uint64_t h = dedup_hash__common(btf, t);

	return hash_mix(hash_mix(hash_mix(h, a->type), a->index_type),
			a->nelems);
}

static inline uint64_t dedup_hash__proto(const struct btf *btf, const struct btf_type *t)
{
	const struct btf_param *p = btf_params(t);
	uint64_t h = dedup_hash__common(btf, t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, p++)
		h = hash_mix(hash_mix(h, dedup_hash__name(btf, p->name_off)), p->type);
	return h;
}

/* The hash a type is a candidate under; false for VAR and DATASEC. */
static inline bool dedup_hash__type(const struct btf *btf,
				    const struct btf_type *t, uint64_t *h)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_DECL_TAG:
		*h = dedup_hash__int_tag(btf, t);
		return true;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*h = dedup_hash__enum(btf, t);
		return true;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		*h = dedup_hash__struct(btf, t);
		return true;
	case BTF_KIND_TYPEDEF:
		/*
		 * Where a module's typedef looks (libbpf after 1.8.0 files
		 * the base's here too).  libbpf 1.7 and 1.8.0 file the base's
		 * under dedup_hash__common(), where no module typedef looks:
		 * btf_dedup.c gets that by passing over base typedefs, and
		 * the other kinds' candidate lists keep their order, since a
		 * lookup passes over other kinds anyway.
		 */
		*h = dedup_hash__typedef(btf, t);
		return true;
	case BTF_KIND_ARRAY:
		*h = dedup_hash__array(btf, t);
		return true;
	case BTF_KIND_FUNC_PROTO:
		*h = dedup_hash__proto(btf, t);
		return true;
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
		return false;
	default:
		*h = dedup_hash__common(btf, t);
		return true;
	}
}

#endif /* DWARF2BTF_DEDUP_HASH_H */
