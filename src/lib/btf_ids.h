/* SPDX-License-Identifier: GPL-2.0-only */
/* The fields of a BTF type, whatever its kind: its size, ids and names. */
#ifndef DWARF2BTF_BTF_IDS_H
#define DWARF2BTF_BTF_IDS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/btf.h>

struct btf;
struct btf_type;

/*
 * Returns type @id of @btf without const.  libbpf keeps the types it
 * builds or reads in memory of its own that stays writable, so ids and
 * names are patched in place.
 */
struct btf_type *btf_mut_type(const struct btf *btf, uint32_t id);

/*
 * What type records refer to, for a check made once they are counted:
 * the largest type id and string offset they hold, and whether a decl
 * tag's component index is below -1.
 */
struct btf_refs_max {
	uint32_t id;
	uint32_t name;
	bool bad_component;
};

/* Takes the type ids and string offsets of @t into @m. */
void btf_type__refs_max(const struct btf_type *t, struct btf_refs_max *m);

/*
 * Walks the type records of a type section, @len bytes at @p, @room of
 * them at most, each of a kind from INT to ENUM64, and notes where each
 * starts: a pointer in @types[@at + i], or else, counted from @start, an
 * offset in @offs[@at + i] (both may be NULL: only counted).  With @refs,
 * it also takes in what each record refers to.  Returns their count, or
 * -1 for a record cut short, of no known kind, or past @room.
 */
long btf_records__index(const unsigned char *p, size_t len, size_t room,
			struct btf_type **types, uint32_t *offs, size_t at,
			size_t start, struct btf_refs_max *refs);

/*
 * A visitor of one type id or string offset, which it may rewrite; a
 * nonzero return stops the walk.
 */
typedef int (*btf_id_fn)(uint32_t *id, void *ctx);

/*
 * Calls FN on every field of T that holds a type id, in order; returns the
 * first nonzero value FN returns, -EINVAL for a kind it does not know.
 * Inline, so that the compiler can inline FN too: the callers run it on
 * every type of a base.
 */
static inline int btf_type__for_each_id(struct btf_type *t, btf_id_fn fn,
					void *ctx)
{
	int i, n = btf_vlen(t), err = 0;

	switch (btf_kind(t)) {
	case BTF_KIND_UNKN:
	case BTF_KIND_INT:
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return 0;
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_TYPE_TAG:
	case BTF_KIND_DECL_TAG:
		return fn(&t->type, ctx);
	case BTF_KIND_ARRAY:
		return fn(&btf_array(t)->type, ctx) ?:
		       fn(&btf_array(t)->index_type, ctx);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; !err && i < n; i++)
			err = fn(&btf_members(t)[i].type, ctx);
		return err;
	case BTF_KIND_FUNC_PROTO:
		err = fn(&t->type, ctx);
		for (i = 0; !err && i < n; i++)
			err = fn(&btf_params(t)[i].type, ctx);
		return err;
	case BTF_KIND_DATASEC:
		for (i = 0; !err && i < n; i++)
			err = fn(&btf_var_secinfos(t)[i].type, ctx);
		return err;
	default:
		return -EINVAL;
	}
}

/*
 * Returns the bytes of a type record: the common part and what its kind
 * adds.  INT, VAR and DECL_TAG add one 32-bit word.
 */
static inline size_t btf_type__size(const struct btf_type *t)
{
	size_t n = sizeof(*t), v = btf_vlen(t);

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_VAR:
	case BTF_KIND_DECL_TAG:
		return n + sizeof(uint32_t);
	case BTF_KIND_ARRAY:
		return n + sizeof(struct btf_array);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return n + v * sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return n + v * sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return n + v * sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return n + v * sizeof(struct btf_param);
	case BTF_KIND_DATASEC:
		return n + v * sizeof(struct btf_var_secinfo);
	default:
		return n;
	}
}

/*
 * Calls FN on every field of T that holds a string offset, in libbpf's
 * order (the type's name, then its members', enumerators' or parameters'),
 * which decides where btf__add_btf() puts new strings.
 */
static inline int btf_type__for_each_name(struct btf_type *t, btf_id_fn fn,
					  void *ctx)
{
	int i, n = btf_vlen(t), err = fn(&t->name_off, ctx);

	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		for (i = 0; !err && i < n; i++)
			err = fn(&btf_members(t)[i].name_off, ctx);
		return err;
	case BTF_KIND_ENUM:
		for (i = 0; !err && i < n; i++)
			err = fn(&btf_enum(t)[i].name_off, ctx);
		return err;
	case BTF_KIND_ENUM64:
		for (i = 0; !err && i < n; i++)
			err = fn(&btf_enum64(t)[i].name_off, ctx);
		return err;
	case BTF_KIND_FUNC_PROTO:
		for (i = 0; !err && i < n; i++)
			err = fn(&btf_params(t)[i].name_off, ctx);
		return err;
	default:
		return err;
	}
}

#endif
