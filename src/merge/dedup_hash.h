/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shallow hashes of BTF types, as libbpf's dedup computes them in
 * btf_hash_common(), btf_hash_int_decl_tag(), btf_hash_enum(),
 * btf_hash_struct(), btf_hash_array() and btf_hash_fnproto(): a hash
 * covers a type's name and own fields, not what it refers to, so equal
 * types hash equal.  libbpf hashes a name's offset, which after its string
 * dedup stands for the name; here the name itself is hashed, because the
 * base's and a module's offsets of one name differ.  The hashes index a
 * base (base_index.c) and match a module's types against it
 * (btf_dedup.c).
 */
#ifndef DWARF2BTF_DEDUP_HASH_H
#define DWARF2BTF_DEDUP_HASH_H

#include <stdbool.h>
#include <stdint.h>
#include <bpf/btf.h>

#include "lib/hash.h"

/* The functions are inline, since indexing a base hashes its 100 k types. */

/* Combines as libbpf's hash_combine() does: h * 31 + v. */
static inline uint64_t hash_mix(uint64_t h, uint64_t v)
{
	return h * 31 + v;
}

/*
 * Where the names of the types hashed are.  Offsets below base_len are in
 * BASE; those from base_len on are BTF's strings, less base_len, or, when
 * there is no BTF, the HI_LEN bytes at HI.  A whole BTF has no BASE
 * (base_len 0).  The split dedup gives a module's types the offsets of
 * split BTF (btf_dedup.c): a name the base has at its offset there, any
 * other after the base's strings.  A merged BTF still in its
 * concatenation (btf_concat.h) has its borrowed strings as BASE and its
 * own as HI.
 */
struct dedup_strs {
	const struct btf *btf;
	const char *base;
	uint32_t base_len;
	const char *hi;
	uint32_t hi_len;
};

/* The name at OFF, or NULL for a bad offset. */
static inline const char *dedup_strs__at(const struct dedup_strs *strs,
					 uint32_t off)
{
	if (off < strs->base_len)
		return strs->base + off;
	off -= strs->base_len;
	if (strs->btf)
		return btf__name_by_offset(strs->btf, off);
	return off < strs->hi_len ? strs->hi + off : NULL;
}

/* Hashes the name at OFF; a bad offset hashes as the empty name. */
static inline uint64_t dedup_hash__name(const struct dedup_strs *strs,
					uint32_t off)
{
	const char *s = dedup_strs__at(strs, off);

	return hash_str(s ? s : "");
}

/* Hashes name, info and size, as libbpf's btf_hash_common(). */
static inline uint64_t dedup_hash__common(const struct dedup_strs *strs,
					  const struct btf_type *t)
{
	return hash_mix(hash_mix(dedup_hash__name(strs, t->name_off), t->info), t->size);
}

/*
 * Hashes name and info (the kind), which is what is compared before the
 * type that the typedef names is walked.
 */
static inline uint64_t dedup_hash__typedef(const struct dedup_strs *strs,
					   const struct btf_type *t)
{
	return hash_mix(dedup_hash__name(strs, t->name_off), t->info);
}

/*
 * Hashes the common part and the word after the type: an INT's encoding
 * or a DECL_TAG's component index, as libbpf's btf_hash_int_decl_tag().
 */
static inline uint64_t dedup_hash__int_tag(const struct dedup_strs *strs,
					   const struct btf_type *t)
{
	return hash_mix(dedup_hash__common(strs, t), *(const uint32_t *)(t + 1));
}

/*
 * Hashes the name only, so that an enum without values (a declaration)
 * hashes as a full one does, as in libbpf's btf_hash_enum().
 */
static inline uint64_t dedup_hash__enum(const struct dedup_strs *strs,
					const struct btf_type *t)
{
	return dedup_hash__name(strs, t->name_off);
}

/* Hashes the common part and each member's name and offset, not type. */
static inline uint64_t dedup_hash__struct(const struct dedup_strs *strs,
					  const struct btf_type *t)
{
	const struct btf_member *m = btf_members(t);
	uint64_t h = dedup_hash__common(strs, t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++)
		h = hash_mix(hash_mix(h, dedup_hash__name(strs, m->name_off)), m->offset);
	return h;
}

/* Hashes the common part, the element and index type ids and the count. */
static inline uint64_t dedup_hash__array(const struct dedup_strs *strs,
					 const struct btf_type *t)
{
	const struct btf_array *a = btf_array(t);
	uint64_t h = dedup_hash__common(strs, t);

	return hash_mix(hash_mix(hash_mix(h, a->type), a->index_type),
			a->nelems);
}

/* Hashes the common part and each parameter's name and type id. */
static inline uint64_t dedup_hash__proto(const struct dedup_strs *strs,
					 const struct btf_type *t)
{
	const struct btf_param *p = btf_params(t);
	uint64_t h = dedup_hash__common(strs, t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, p++)
		h = hash_mix(hash_mix(h, dedup_hash__name(strs, p->name_off)), p->type);
	return h;
}

/*
 * Sets *H to the hash that type T is a dedup candidate under; returns
 * false for VAR and DATASEC, which libbpf's dedup never merges.
 */
static inline bool dedup_hash__type(const struct dedup_strs *strs,
				    const struct btf_type *t, uint64_t *h)
{
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_DECL_TAG:
		*h = dedup_hash__int_tag(strs, t);
		return true;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		*h = dedup_hash__enum(strs, t);
		return true;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		*h = dedup_hash__struct(strs, t);
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
		*h = dedup_hash__typedef(strs, t);
		return true;
	case BTF_KIND_ARRAY:
		*h = dedup_hash__array(strs, t);
		return true;
	case BTF_KIND_FUNC_PROTO:
		*h = dedup_hash__proto(strs, t);
		return true;
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
		return false;
	default:
		*h = dedup_hash__common(strs, t);
		return true;
	}
}

#endif /* DWARF2BTF_DEDUP_HASH_H */
