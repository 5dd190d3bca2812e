// SPDX-License-Identifier: GPL-2.0-only
/* Members whose type stays a declaration, made bytes (fwd_members.h). */
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/btf_ids.h"
#include "lib/u32_map.h"
#include "merge/fwd_members.h"

/* Chains of typedefs and qualifiers longer than this are left alone. */
#define FWD_CHAIN_MAX	32

/* The types the members get, found or added once needed. */
struct byte_types {
	struct btf *btf;
	uint32_t uchar;		/* INT "unsigned char"; 0 until known */
	uint32_t index;		/* INT "int", the arrays' index type */
	struct u32_map arrays;	/* element count + 1 -> ARRAY id */
};

/* Does type @id reach a FWD through typedefs, qualifiers and arrays? */
static bool type_is_fwd(const struct btf *btf, uint32_t id)
{
	int i;

	for (i = 0; i < FWD_CHAIN_MAX && id; i++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!t)
			return false;
		switch (btf_kind(t)) {
		case BTF_KIND_FWD:
			return true;
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			id = btf_array(t)->type;
			break;
		default:
			return false;
		}
	}
	return false;
}

/* Is @t the INT @name of @size bytes and @encoding? */
static bool is_int(const struct btf *btf, const struct btf_type *t,
		   const char *name, uint32_t size, int encoding)
{
	return btf_is_int(t) && t->size == size &&
	       btf_int_encoding(t) == encoding && btf_int_offset(t) == 0 &&
	       btf_int_bits(t) == size * 8 &&
	       !strcmp(btf__name_by_offset(btf, t->name_off), name);
}

/*
 * Finds the INTs "unsigned char" and "int" in @bt->btf, or adds them, and
 * the ARRAYs of unsigned char over int already there.  Returns 0 or
 * -errno.
 */
static int byte_types__init(struct byte_types *bt)
{
	struct btf *btf = bt->btf;
	uint32_t n = btf__type_cnt(btf), id;
	int err;

	for (id = 1; id < n && (!bt->uchar || !bt->index); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!bt->uchar && is_int(btf, t, "unsigned char", 1, 0))
			bt->uchar = id;
		else if (!bt->index && is_int(btf, t, "int", 4, BTF_INT_SIGNED))
			bt->index = id;
	}
	if (!bt->uchar) {
		err = btf__add_int(btf, "unsigned char", 1, 0);
		if (err < 0)
			return err;
		bt->uchar = err;
	}
	if (!bt->index) {
		err = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
		if (err < 0)
			return err;
		bt->index = err;
	}
	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_array *a;
		uint32_t old;

		if (!btf_is_array(t))
			continue;
		a = btf_array(t);
		if (a->type != bt->uchar || a->index_type != bt->index ||
		    u32_map__find(&bt->arrays, (uint64_t)a->nelems + 1, &old))
			continue;
		if (u32_map__add(&bt->arrays, (uint64_t)a->nelems + 1, id))
			return -ENOMEM;
	}
	return 0;
}

/* The id of `unsigned char[@nelems]`, found or added; or -errno. */
static int byte_types__array(struct byte_types *bt, uint32_t nelems)
{
	uint32_t id;
	int err;

	if (!bt->uchar) {
		err = byte_types__init(bt);
		if (err)
			return err;
	}
	if (u32_map__find(&bt->arrays, (uint64_t)nelems + 1, &id))
		return id;
	err = btf__add_array(bt->btf, bt->index, bt->uchar, nelems);
	if (err < 0)
		return err;
	id = err;
	return u32_map__add(&bt->arrays, (uint64_t)nelems + 1, id) ? -ENOMEM :
	       (int)id;
}

/*
 * The bit offset where member @i of struct or union @t ends as bytes: the
 * next member's that starts past it, or the end of @t.
 */
static uint32_t member_span_end(const struct btf_type *t, uint32_t i)
{
	uint32_t off = btf_member_bit_offset(t, i), j;

	if (btf_is_struct(t))
		for (j = i + 1; j < btf_vlen(t); j++)
			if (btf_member_bit_offset(t, j) > off)
				return btf_member_bit_offset(t, j);
	return t->size * 8;
}

/*
 * Does member @i of struct @t (at bit @off) run past the struct's end?
 * rustc describes an unsized tail ([u8] of str's bytes) as one element
 * in a struct of no room for it.
 */
static bool member_overruns(const struct btf *btf, const struct btf_type *t,
			    uint32_t i, uint32_t off)
{
	__s64 size;

	if (!btf_is_struct(t) || btf_member_bitfield_size(t, i))
		return false;
	size = btf__resolve_size(btf, btf_members(t)[i].type);
	return size > 0 && off + (uint64_t)size * 8 > (uint64_t)t->size * 8;
}

int fwd_members__to_bytes(struct btf *btf)
{
	const struct btf *base = btf__base_btf(btf);
	struct byte_types bt = { .btf = btf };
	uint32_t id, i, n = btf__type_cnt(btf);
	int nr = 0, err = 0;

	for (id = base ? btf__type_cnt(base) : 1; id < n && !err; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		uint32_t vlen;

		if (!btf_is_composite(t))
			continue;
		vlen = btf_vlen(t);
		for (i = 0; i < vlen; i++) {
			uint32_t off, end;
			int arr;

			/*
			 * Adding types moves them: @t is read again, and
			 * nothing of it is kept past an add.
			 */
			t = btf__type_by_id(btf, id);
			off = btf_member_bit_offset(t, i);
			end = member_span_end(t, i);
			if (!type_is_fwd(btf, btf_members(t)[i].type) &&
			    !member_overruns(btf, t, i, off))
				continue;
			/* A FWD is no bit-field: it starts on a byte. */
			if (off % 8 || end % 8 || end < off)
				continue;
			arr = byte_types__array(&bt, (end - off) / 8);
			if (arr < 0) {
				err = arr;
				break;
			}
			btf_members(btf_mut_type(btf, id))[i].type = arr;
			nr++;
		}
	}
	u32_map__free(&bt.arrays);
	return err ? err : nr;
}
