// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/btf_builder.h"
#include "lib/btf_load.h"

/* libbpf's limit on type ids, which it checks every reference against. */
#define MAX_NR_TYPES	0x7fffffffU
/* Types followed at most by btf_builder__resolve_size(), as libbpf. */
#define MAX_RESOLVE_DEPTH	32

void btf_builder__init(struct btf_builder *b, unsigned int ptr_size)
{
	memset(b, 0, sizeof(*b));
	b->ptr_size = ptr_size;
}

void btf_builder__free(struct btf_builder *b)
{
	free(b->data);
	free(b->offs);
	btf_builder__init(b, b->ptr_size);
}

/* A type's info word, as libbpf makes it (no bound on @vlen). */
static uint32_t type_info(int kind, uint32_t vlen, bool kflag)
{
	return ((uint32_t)kflag << 31) | ((uint32_t)kind << 24) | vlen;
}

static int validate_type_id(int id)
{
	return id < 0 || (uint32_t)id > MAX_NR_TYPES ? -EINVAL : 0;
}

/* Room for @sz more bytes of records; NULL without memory. */
static void *btf_builder__room(struct btf_builder *b, size_t sz)
{
	if (b->len + sz > b->cap) {
		size_t cap = b->cap ? b->cap : 64 << 10;
		unsigned char *p;

		while (cap < b->len + sz)
			cap *= 2;
		if (cap > UINT32_MAX)
			return NULL;
		p = realloc(b->data, cap);
		if (!p)
			return NULL;
		b->data = p;
		b->cap = cap;
	}
	return b->data + b->len;
}

/* The last type, for its members; NULL if there is none. */
static struct btf_type *btf_builder__last(struct btf_builder *b)
{
	return btf_builder__type(b, b->nr);
}

/*
 * Counts the @sz bytes written after the last type (room made) as one
 * more of its members, enumerators or parameters; @kflag sets its kind
 * flag too (a bitfield, a negative enumerator).
 */
static void btf_builder__grow_last(struct btf_builder *b, size_t sz,
				   bool kflag)
{
	struct btf_type *t;

	b->len += sz;
	/* The room may have moved the records. */
	t = btf_builder__last(b);
	t->info = type_info(btf_kind(t), btf_vlen(t) + 1, kflag || btf_kflag(t));
}

/*
 * Makes the @sz bytes at the end of the records (room made) a new type:
 * its id, or -ENOMEM.
 */
static int btf_builder__commit(struct btf_builder *b, size_t sz)
{
	if (b->nr == b->cap_offs) {
		uint32_t cap = b->cap_offs ? b->cap_offs * 2 : 4096;
		uint32_t *p;

		if (b->nr >= MAX_NR_TYPES)
			return -ENOMEM;
		p = realloc(b->offs, (size_t)cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		b->offs = p;
		b->cap_offs = cap;
	}
	b->offs[b->nr++] = b->len;
	b->len += sz;
	return b->nr;
}

/* A record of its common part alone; its id or -ENOMEM. */
static int btf_builder__add_plain(struct btf_builder *b, uint32_t name_off,
				  uint32_t info, uint32_t size_or_type)
{
	struct btf_type *t = btf_builder__room(b, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->name_off = name_off;
	t->info = info;
	t->size = size_or_type;
	return btf_builder__commit(b, sizeof(*t));
}

int btf_builder__add_int(struct btf_builder *b, uint32_t name_off,
			 size_t byte_sz, int encoding)
{
	size_t sz = sizeof(struct btf_type) + sizeof(uint32_t);
	struct btf_type *t;

	if (!name_off)
		return -EINVAL;
	if (!byte_sz || (byte_sz & (byte_sz - 1)) || byte_sz > 16)
		return -EINVAL;
	if (encoding & ~(BTF_INT_SIGNED | BTF_INT_CHAR | BTF_INT_BOOL))
		return -EINVAL;
	t = btf_builder__room(b, sz);
	if (!t)
		return -ENOMEM;
	t->name_off = name_off;
	t->info = type_info(BTF_KIND_INT, 0, 0);
	t->size = byte_sz;
	*(uint32_t *)(t + 1) = ((uint32_t)encoding << 24) | (byte_sz * 8);
	return btf_builder__commit(b, sz);
}

int btf_builder__add_float(struct btf_builder *b, uint32_t name_off,
			   size_t byte_sz)
{
	if (!name_off)
		return -EINVAL;
	if (byte_sz != 2 && byte_sz != 4 && byte_sz != 8 && byte_sz != 12 &&
	    byte_sz != 16)
		return -EINVAL;
	return btf_builder__add_plain(b, name_off,
				      type_info(BTF_KIND_FLOAT, 0, 0), byte_sz);
}

int btf_builder__add_ref(struct btf_builder *b, int kind, uint32_t name_off,
			 int ref_type_id)
{
	if ((kind == BTF_KIND_TYPEDEF || kind == BTF_KIND_TYPE_TAG) &&
	    !name_off)
		return -EINVAL;
	if (validate_type_id(ref_type_id))
		return -EINVAL;
	return btf_builder__add_plain(b, name_off, type_info(kind, 0, 0),
				      ref_type_id);
}

int btf_builder__add_array(struct btf_builder *b, int index_type_id,
			   int elem_type_id, uint32_t nr_elems)
{
	size_t sz = sizeof(struct btf_type) + sizeof(struct btf_array);
	struct btf_type *t;
	struct btf_array *a;

	if (validate_type_id(index_type_id) || validate_type_id(elem_type_id))
		return -EINVAL;
	t = btf_builder__room(b, sz);
	if (!t)
		return -ENOMEM;
	t->name_off = 0;
	t->info = type_info(BTF_KIND_ARRAY, 0, 0);
	t->size = 0;
	a = btf_array(t);
	a->type = elem_type_id;
	a->index_type = index_type_id;
	a->nelems = nr_elems;
	return btf_builder__commit(b, sz);
}

int btf_builder__add_composite(struct btf_builder *b, int kind,
			       uint32_t name_off, uint32_t byte_sz)
{
	return btf_builder__add_plain(b, name_off, type_info(kind, 0, 0),
				      byte_sz);
}

int btf_builder__add_field(struct btf_builder *b, uint32_t name_off,
			   int type_id, uint32_t bit_offset, uint32_t bit_size)
{
	struct btf_type *t = btf_builder__last(b);
	struct btf_member *m;
	bool is_bitfield;

	if (!t || !btf_is_composite(t))
		return -EINVAL;
	if (validate_type_id(type_id))
		return -EINVAL;
	is_bitfield = bit_size || (bit_offset % 8 != 0);
	if (is_bitfield && (bit_size == 0 || bit_size > 255 ||
			    bit_offset > 0xffffff))
		return -EINVAL;
	if (btf_is_union(t) && bit_offset)
		return -EINVAL;
	m = btf_builder__room(b, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->name_off = name_off;
	m->type = type_id;
	m->offset = bit_offset | (bit_size << 24);
	btf_builder__grow_last(b, sizeof(*m), is_bitfield);
	return 0;
}

int btf_builder__add_enum(struct btf_builder *b, int kind, uint32_t name_off,
			  uint32_t byte_sz, bool is_signed)
{
	if (!byte_sz || (byte_sz & (byte_sz - 1)) || byte_sz > 8)
		return -EINVAL;
	return btf_builder__add_plain(b, name_off,
				      type_info(kind, 0, is_signed), byte_sz);
}

int btf_builder__add_enum_value(struct btf_builder *b, uint32_t name_off,
				int64_t value)
{
	struct btf_type *t = btf_builder__last(b);
	struct btf_enum *v;

	if (!t || !btf_is_enum(t))
		return -EINVAL;
	if (!name_off)
		return -EINVAL;
	if (value < INT_MIN || value > UINT_MAX)
		return -E2BIG;
	v = btf_builder__room(b, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->name_off = name_off;
	v->val = value;
	/* A value below 0 makes the enum signed, as libbpf does. */
	btf_builder__grow_last(b, sizeof(*v), value < 0);
	return 0;
}

int btf_builder__add_enum64_value(struct btf_builder *b, uint32_t name_off,
				  uint64_t value)
{
	struct btf_type *t = btf_builder__last(b);
	struct btf_enum64 *v;

	if (!t || !btf_is_enum64(t))
		return -EINVAL;
	if (!name_off)
		return -EINVAL;
	v = btf_builder__room(b, sizeof(*v));
	if (!v)
		return -ENOMEM;
	v->name_off = name_off;
	v->val_lo32 = (uint32_t)value;
	v->val_hi32 = value >> 32;
	btf_builder__grow_last(b, sizeof(*v), false);
	return 0;
}

int btf_builder__add_fwd(struct btf_builder *b, uint32_t name_off,
			 int fwd_kind)
{
	if (!name_off)
		return -EINVAL;
	switch (fwd_kind) {
	case BTF_FWD_STRUCT:
	case BTF_FWD_UNION:
		return btf_builder__add_plain(b, name_off,
					      type_info(BTF_KIND_FWD, 0,
							fwd_kind == BTF_FWD_UNION),
					      0);
	case BTF_FWD_ENUM:
		/* libbpf: an enum of no values and of an int's size */
		return btf_builder__add_enum(b, BTF_KIND_ENUM, name_off,
					     sizeof(int), false);
	default:
		return -EINVAL;
	}
}

int btf_builder__add_func_proto(struct btf_builder *b, int ret_type_id)
{
	if (validate_type_id(ret_type_id))
		return -EINVAL;
	return btf_builder__add_plain(b, 0, type_info(BTF_KIND_FUNC_PROTO, 0, 0),
				      ret_type_id);
}

int btf_builder__add_func_param(struct btf_builder *b, uint32_t name_off,
				int type_id)
{
	struct btf_type *t;
	struct btf_param *p;

	if (validate_type_id(type_id))
		return -EINVAL;
	t = btf_builder__last(b);
	if (!t || !btf_is_func_proto(t))
		return -EINVAL;
	p = btf_builder__room(b, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->name_off = name_off;
	p->type = type_id;
	btf_builder__grow_last(b, sizeof(*p), false);
	return 0;
}

int btf_builder__add_decl_tag(struct btf_builder *b, uint32_t value_off,
			      int ref_type_id, int component_idx)
{
	size_t sz = sizeof(struct btf_type) + sizeof(struct btf_decl_tag);
	struct btf_type *t;

	if (!value_off || component_idx < -1)
		return -EINVAL;
	if (validate_type_id(ref_type_id))
		return -EINVAL;
	t = btf_builder__room(b, sz);
	if (!t)
		return -ENOMEM;
	t->name_off = value_off;
	t->info = type_info(BTF_KIND_DECL_TAG, 0, false);
	t->type = ref_type_id;
	btf_decl_tag(t)->component_idx = component_idx;
	return btf_builder__commit(b, sz);
}

int btf_builder__seal(const struct btf_builder *b, const char *strs,
		      uint32_t strs_len, struct btf **btf)
{
	unsigned char *buf, *at;
	struct btf *out;
	int err;

	buf = btf_load__raw_new(b->len, strs_len ? strs_len : 1, &at);
	if (!buf)
		return -ENOMEM;
	if (b->len)
		memcpy(at, b->data, b->len);
	if (strs_len)
		memcpy(at + b->len, strs, strs_len);
	else
		at[b->len] = 0;
	err = btf_load__raw(buf, b->ptr_size, &out);
	if (err)
		return err;
	btf__free(*btf);
	*btf = out;
	return 0;
}

int64_t btf_builder__resolve_size(const struct btf_builder *b, uint32_t id)
{
	const struct btf_type *t = btf_builder__type(b, id);
	uint32_t nelems = 1;
	int64_t size = -1;
	int i;

	/* libbpf's void: id 0 and a FWD; NULL: an id past the last type */
	for (i = 0; i < MAX_RESOLVE_DEPTH && t && !btf_is_fwd(t); i++) {
		switch (btf_kind(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_DATASEC:
		case BTF_KIND_FLOAT:
			size = t->size;
			goto done;
		case BTF_KIND_PTR:
			size = b->ptr_size;
			goto done;
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_VAR:
		case BTF_KIND_DECL_TAG:
		case BTF_KIND_TYPE_TAG:
			id = t->type;
			break;
		case BTF_KIND_ARRAY:
			if (nelems && btf_array(t)->nelems > UINT32_MAX / nelems)
				return -E2BIG;
			nelems *= btf_array(t)->nelems;
			id = btf_array(t)->type;
			break;
		default:
			return -EINVAL;
		}
		t = btf_builder__type(b, id);
	}
done:
	if (size < 0)
		return -EINVAL;
	if (nelems && size > UINT32_MAX / nelems)
		return -E2BIG;
	return nelems * size;
}
