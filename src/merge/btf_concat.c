// SPDX-License-Identifier: GPL-2.0-only
/*
 * Appending standalone BTFs, and types one by one (btf_concat.h), to a
 * BTF of our own or after one borrowed.  Strings are interned in an
 * open-addressing table of our own; a source offset is looked up once per
 * append (xlat), as libbpf's string map of one btf__add_btf() does.
 *
 * The table is not a u32_map because it holds every string of the merged
 * BTF, the largest table of a run: its slots are 8 bytes (a 32-bit hash
 * and the offset + 1) and grow by 2 once three quarters full, where a
 * u32_map's are 16 bytes and grow by 4 at half full.  Through a u32_map the
 * 6.1 vmlinux at -j2 peaked at 100 MB instead of 92 (medians of 5).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/btf_ids.h"
#include "lib/btf_load.h"
#include "lib/grow.h"
#include "lib/hash.h"
#include "merge/btf_concat.h"

#define SLOT_HASH(s)	((uint32_t)((s) >> 32))
#define SLOT_OFF1(s)	((uint32_t)(s))
#define MAX_STRS	0x7fffffffu	/* libbpf's bound on the string section */

/* What one append needs: the source's strings, and the id shift. */
struct concat_add {
	struct btf_concat *c;
	const char *strs;
	uint32_t strs_len;
	uint32_t nr_types;	/* the source's */
	uint32_t shift;
};

static int concat__grow_slots(struct btf_concat *c)
{
	size_t n = c->nr_slots ? c->nr_slots * 2 : 4096, i, j;
	uint64_t *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; i < c->nr_slots; i++) {
		uint64_t s = c->slots[i];

		if (!s)
			continue;
		for (j = SLOT_HASH(s) & (n - 1); slots[j]; j = (j + 1) & (n - 1))
			;
		slots[j] = s;
	}
	free(c->slots);
	c->slots = slots;
	c->nr_slots = n;
	return 0;
}

/* Our string at @off: borrowed, or of our own. */
static const char *concat__str(const struct btf_concat *c, uint32_t off)
{
	return off < c->base_strs_len ? c->base_strs + off :
	       c->strs + (off - c->base_strs_len);
}

/*
 * The slot of string @s (@len bytes, hash @h) or the empty one where it
 * would go; the table is never more than three quarters full.
 */
static uint64_t *concat__slot(struct btf_concat *c, const char *s, uint32_t h)
{
	size_t mask = c->nr_slots - 1, j;

	for (j = h & mask; c->slots[j]; j = (j + 1) & mask) {
		uint64_t v = c->slots[j];

		if (SLOT_HASH(v) == h &&
		    !strcmp(concat__str(c, SLOT_OFF1(v) - 1), s))
			break;
	}
	return &c->slots[j];
}

static int concat__room(struct btf_concat *c)
{
	if ((c->nr_used + 1) * 4 > c->nr_slots * 3)
		return concat__grow_slots(c);
	return 0;
}

/* The slot of string @s (@len bytes), found or to fill: *@slot, *@h. */
static int concat__find(struct btf_concat *c, const char *s, size_t len,
			uint64_t **slot, uint32_t *h)
{
	int err = concat__room(c);

	if (err)
		return err;
	*h = hash_name32(s, len);
	*slot = concat__slot(c, s, *h);
	return 0;
}

static void concat__fill(struct btf_concat *c, uint64_t *slot, uint32_t h,
			 uint32_t off)
{
	*slot = (uint64_t)h << 32 | (off + 1);
	c->nr_used++;
}

/* Index our string at @off, unless an equal one came first (libbpf's). */
static int concat__index(struct btf_concat *c, uint32_t off, size_t len)
{
	uint64_t *slot;
	uint32_t h;
	int err = concat__find(c, concat__str(c, off), len, &slot, &h);

	if (!err && !*slot)
		concat__fill(c, slot, h, off);
	return err;
}

/* Our offset of string @s (@len bytes), appended when new. */
static int concat__intern(struct btf_concat *c, const char *s, size_t len,
			  uint32_t *off)
{
	uint64_t *slot;
	uint32_t h;
	int err = concat__find(c, s, len, &slot, &h);

	if (err)
		return err;
	if (*slot) {
		*off = SLOT_OFF1(*slot) - 1;
		return 0;
	}
	if (c->base_strs_len + c->strs_len + len + 1 > MAX_STRS)
		return -E2BIG;
	if (grow_array((void **)&c->strs, &c->strs_cap, c->strs_len + len + 1,
		       1, 1 << 16))
		return -ENOMEM;
	memcpy(c->strs + c->strs_len, s, len + 1);
	*off = c->base_strs_len + c->strs_len;
	concat__fill(c, slot, h, *off);
	c->strs_len += len + 1;
	return 0;
}

static int concat__name(uint32_t *off, void *ctx)
{
	struct concat_add *a = ctx;
	struct btf_concat *c = a->c;
	uint32_t o = *off, ours;
	const char *s;
	size_t len;
	int err;

	if (!o)
		return 0;
	if (o >= a->strs_len)
		return -EINVAL;
	if (!c->xlat[o]) {
		s = a->strs + o;
		len = strnlen(s, a->strs_len - o);
		if (len == a->strs_len - o)
			return -EINVAL;
		err = concat__intern(c, s, len, &ours);
		if (err)
			return err;
		c->xlat[o] = ours + 1;
	}
	*off = c->xlat[o] - 1;
	return 0;
}

static int concat__id(uint32_t *id, void *ctx)
{
	struct concat_add *a = ctx;

	if (*id > a->nr_types)
		return -EINVAL;
	if (*id)
		*id += a->shift;
	return 0;
}

/* The type and string sections of @btf's raw bytes. */
static int raw_sections(const struct btf *btf, const unsigned char **types,
			uint32_t *types_len, const char **strs,
			uint32_t *strs_len)
{
	const struct btf_header *h;
	const unsigned char *raw;
	uint32_t size;

	if (btf__base_btf(btf))
		return -EINVAL;
	raw = btf__raw_data(btf, &size);
	if (!raw)
		return -ENOMEM;
	h = (const struct btf_header *)raw;
	if (size < sizeof(*h) || h->hdr_len < sizeof(*h) ||
	    h->hdr_len > size ||
	    h->type_off > size - h->hdr_len ||
	    h->type_len > size - h->hdr_len - h->type_off ||
	    h->str_off > size - h->hdr_len ||
	    h->str_len > size - h->hdr_len - h->str_off || !h->str_len)
		return -EINVAL;
	*types = raw + h->hdr_len + h->type_off;
	*types_len = h->type_len;
	*strs = (const char *)raw + h->hdr_len + h->str_off;
	*strs_len = h->str_len;
	return (*strs)[*strs_len - 1] ? -EINVAL : 0;
}

/* Every string of ours in the table, the first of equal ones kept. */
static int concat__index_all(struct btf_concat *c)
{
	size_t len, total = c->base_strs_len + c->strs_len;
	uint32_t off;
	int err;

	if (c->slots)
		memset(c->slots, 0, c->nr_slots * sizeof(*c->slots));
	c->nr_used = 0;
	for (off = 0; off < total; off += len + 1) {
		len = strlen(concat__str(c, off));
		err = concat__index(c, off, len);
		if (err)
			return err;
	}
	return 0;
}

/* @btf's sections as the borrowed part, nothing of our own. */
static int concat__set_base(struct btf_concat *c, const struct btf *btf)
{
	const unsigned char *types;
	const char *strs;
	uint32_t types_len, strs_len;
	int err = raw_sections(btf, &types, &types_len, &strs, &strs_len);

	if (err)
		return err;
	c->base_types = types;
	c->base_types_len = types_len;
	c->base_strs = strs;
	c->base_strs_len = strs_len;
	c->types_len = c->strs_len = 0;
	c->has_last = false;
	c->nr_types = btf__type_cnt(btf) - 1;
	c->nr_offs = 0;		/* indexed again when asked */
	return 0;
}

int btf_concat__reset(struct btf_concat *c, const struct btf *btf)
{
	int err = concat__set_base(c, btf);

	if (err)
		return err;
	if (grow_array((void **)&c->types, &c->types_cap, c->base_types_len,
		       1, 1 << 16) ||
	    grow_array((void **)&c->strs, &c->strs_cap, c->base_strs_len, 1,
		       1 << 16))
		return -ENOMEM;
	if (c->base_types_len)	/* c->types may still be NULL */
		memcpy(c->types, c->base_types, c->base_types_len);
	memcpy(c->strs, c->base_strs, c->base_strs_len);
	c->types_len = c->base_types_len;
	c->strs_len = c->base_strs_len;
	c->base_types = NULL;
	c->base_strs = NULL;
	c->base_types_len = c->base_strs_len = 0;
	return concat__index_all(c);
}

int btf_concat__borrow(struct btf_concat *c, const struct btf *btf)
{
	return concat__set_base(c, btf) ?: concat__index_all(c);
}

int btf_concat__add(struct btf_concat *c, const struct btf *src,
		    uint32_t *first)
{
	struct concat_add a = { .c = c, .shift = c->nr_types };
	const unsigned char *types;
	unsigned char *p, *end;
	uint32_t types_len, i;
	int err;

	if (!c->strs_len || c->base_strs_len)
		return -EINVAL;	/* never reset, or borrowed */
	err = raw_sections(src, &types, &types_len, &a.strs, &a.strs_len);
	if (err)
		return err;
	a.nr_types = btf__type_cnt(src) - 1;
	*first = a.shift + 1;
	if (!a.nr_types)
		return 0;
	if (!types_len)
		return -EINVAL;	/* types counted, none there */
	if ((uint64_t)c->nr_types + a.nr_types > 0x7fffffffu)
		return -E2BIG;
	if (grow_array((void **)&c->types, &c->types_cap,
		       c->types_len + types_len, 1, 1 << 16) ||
	    grow_array((void **)&c->xlat, &c->cap_xlat, a.strs_len,
		       sizeof(*c->xlat), 1 << 14))
		return -ENOMEM;
	memset(c->xlat, 0, a.strs_len * sizeof(*c->xlat));
	p = c->types + c->types_len;
	end = p + types_len;
	memcpy(p, types, types_len);
	for (i = 0; i < a.nr_types; i++) {
		struct btf_type *t = (struct btf_type *)p;

		if ((size_t)(end - p) < sizeof(*t) ||
		    (size_t)(end - p) < btf_type__size(t))
			return -EINVAL;
		err = btf_type__for_each_name(t, concat__name, &a) ?:
		      btf_type__for_each_id(t, concat__id, &a);
		if (err)
			return err;
		p += btf_type__size(t);
	}
	if (p != end)
		return -EINVAL;
	c->types_len += types_len;
	c->nr_types += a.nr_types;
	c->has_last = false;	/* parameters go to a type we added */
	return 0;
}

static uint32_t type_info(int kind, bool kflag, uint32_t vlen)
{
	return (uint32_t)kflag << 31 | (uint32_t)kind << 24 | (vlen & 0xffff);
}

/* Our offset of @name; NULL or "" is 0, as in libbpf. */
static int concat__name_off(struct btf_concat *c, const char *name,
			    uint32_t *off)
{
	*off = 0;
	if (!name || !*name)
		return 0;
	return concat__intern(c, name, strlen(name), off);
}

/*
 * Whether @id names a type there is (0: void): stricter than libbpf,
 * which takes any id under its bound.
 */
static bool concat__has_id(const struct btf_concat *c, uint32_t id)
{
	return id <= c->nr_types;
}

/*
 * A type with a name (interned first, as libbpf does) and a type or size
 * word, @extra bytes after it zeroed; its id, or -errno.
 */
static int concat__add_simple(struct btf_concat *c, int kind,
			      const char *name, bool need_name, uint32_t vlen,
			      bool kflag, uint32_t type, size_t extra)
{
	size_t size = sizeof(struct btf_type) + extra;
	struct btf_type *t;
	uint32_t off;
	int err;

	if ((!c->strs_len && !c->base_strs_len) ||
	    (need_name && (!name || !*name)))
		return -EINVAL;	/* never reset or borrowed; no name */
	if (c->nr_types >= 0x7ffffffeu)
		return -E2BIG;
	err = concat__name_off(c, name, &off);
	if (err)
		return err;
	if (grow_array((void **)&c->types, &c->types_cap, c->types_len + size,
		       1, 1 << 16))
		return -ENOMEM;
	t = (struct btf_type *)(c->types + c->types_len);
	memset(t, 0, size);
	t->name_off = off;
	t->info = type_info(kind, kflag, vlen);
	t->type = type;
	c->last = c->types_len;
	c->has_last = true;
	c->types_len += size;
	return ++c->nr_types;
}

/*
 * One more entry of @size bytes, zeroed, in *@e, for the last type we
 * added, which must be of @kind.  0 or -errno.
 */
static int concat__add_entry(struct btf_concat *c, int kind, size_t size,
			     void **e)
{
	struct btf_type *t;

	if (!c->has_last ||
	    btf_kind((struct btf_type *)(c->types + c->last)) != kind)
		return -EINVAL;
	if (btf_vlen((struct btf_type *)(c->types + c->last)) >= 0xffff)
		return -E2BIG;
	if (grow_array((void **)&c->types, &c->types_cap, c->types_len + size,
		       1, 1 << 16))
		return -ENOMEM;
	t = (struct btf_type *)(c->types + c->last);
	t->info = type_info(kind, btf_kflag(t), btf_vlen(t) + 1);
	*e = c->types + c->types_len;
	memset(*e, 0, size);
	c->types_len += size;
	return 0;
}

int btf_concat__add_ptr(struct btf_concat *c, uint32_t ref)
{
	if (!concat__has_id(c, ref))
		return -EINVAL;
	return concat__add_simple(c, BTF_KIND_PTR, NULL, false, 0, false, ref,
				  0);
}

int btf_concat__add_type_tag(struct btf_concat *c, const char *value,
			     uint32_t ref, bool attr)
{
	if (!concat__has_id(c, ref))
		return -EINVAL;
	return concat__add_simple(c, BTF_KIND_TYPE_TAG, value, true, 0, attr,
				  ref, 0);
}

int btf_concat__add_func_proto(struct btf_concat *c, uint32_t ret)
{
	if (!concat__has_id(c, ret))
		return -EINVAL;
	return concat__add_simple(c, BTF_KIND_FUNC_PROTO, NULL, false, 0,
				  false, ret, 0);
}

int btf_concat__add_func_param(struct btf_concat *c, const char *name,
			       uint32_t type)
{
	struct btf_param *p;
	uint32_t off;
	int err;

	if (!concat__has_id(c, type))
		return -EINVAL;
	err = concat__name_off(c, name, &off) ?:
	      concat__add_entry(c, BTF_KIND_FUNC_PROTO, sizeof(*p),
				(void **)&p);
	if (err)
		return err;
	p->name_off = off;
	p->type = type;
	return 0;
}

int btf_concat__add_func(struct btf_concat *c, const char *name, int linkage,
			 uint32_t proto)
{
	if (linkage < BTF_FUNC_STATIC || linkage > BTF_FUNC_EXTERN ||
	    !concat__has_id(c, proto))
		return -EINVAL;
	/* libbpf keeps the linkage where other kinds have vlen */
	return concat__add_simple(c, BTF_KIND_FUNC, name, true, linkage, false,
				  proto, 0);
}

int btf_concat__add_decl_tag(struct btf_concat *c, const char *value,
			     uint32_t ref, int component)
{
	int id;

	if (component < -1 || !concat__has_id(c, ref))
		return -EINVAL;
	id = concat__add_simple(c, BTF_KIND_DECL_TAG, value, true, 0, false,
				ref, sizeof(struct btf_decl_tag));
	if (id > 0)
		btf_decl_tag((struct btf_type *)(c->types + c->last))->
			component_idx = component;
	return id;
}

int btf_concat__add_var(struct btf_concat *c, const char *name, int linkage,
			uint32_t type)
{
	int id;

	if (linkage < BTF_VAR_STATIC || linkage > BTF_VAR_GLOBAL_EXTERN ||
	    !concat__has_id(c, type))
		return -EINVAL;
	id = concat__add_simple(c, BTF_KIND_VAR, name, true, 0, false, type,
				sizeof(struct btf_var));
	if (id > 0)
		btf_var((struct btf_type *)(c->types + c->last))->linkage =
			linkage;
	return id;
}

int btf_concat__add_datasec(struct btf_concat *c, const char *name,
			    uint32_t size)
{
	return concat__add_simple(c, BTF_KIND_DATASEC, name, true, 0, false,
				  size, 0);
}

int btf_concat__add_datasec_var_info(struct btf_concat *c, uint32_t var,
				     uint32_t offset, uint32_t size)
{
	struct btf_var_secinfo *v;
	int err;

	if (!var || !concat__has_id(c, var))
		return -EINVAL;
	err = concat__add_entry(c, BTF_KIND_DATASEC, sizeof(*v), (void **)&v);
	if (err)
		return err;
	v->type = var;
	v->offset = offset;
	v->size = size;
	return 0;
}

int btf_concat__raw(const struct btf_concat *c, unsigned char **out)
{
	unsigned char *p, *buf;

	buf = btf_load__raw_new(c->base_types_len + c->types_len,
				c->base_strs_len + c->strs_len, &p);
	if (!buf)
		return c->base_types_len + c->types_len + c->base_strs_len +
		       c->strs_len > UINT32_MAX - sizeof(struct btf_header) ?
		       -E2BIG : -ENOMEM;
	if (c->base_types_len)
		memcpy(p, c->base_types, c->base_types_len);
	p += c->base_types_len;
	if (c->types_len)
		memcpy(p, c->types, c->types_len);
	p += c->types_len;
	if (c->base_strs_len)
		memcpy(p, c->base_strs, c->base_strs_len);
	p += c->base_strs_len;
	if (c->strs_len)
		memcpy(p, c->strs, c->strs_len);
	*out = buf;
	return 0;
}

int btf_concat__to_btf(const struct btf_concat *c, unsigned int ptr_size,
		       struct btf **out)
{
	unsigned char *buf;
	int err = btf_concat__raw(c, &buf);

	return err ? err : btf_load__raw(buf, ptr_size, out);
}

void btf_concat__drop_index(struct btf_concat *c)
{
	free(c->slots);
	free(c->xlat);
	free(c->offs);
	c->slots = NULL;
	c->xlat = NULL;
	c->offs = NULL;
	c->nr_slots = c->nr_used = c->cap_xlat = 0;
	c->nr_offs = 0;
}

int btf_concat__type_ptrs(const struct btf_concat *c, struct btf_type **types)
{
	long lo = btf_records__index(c->base_types, c->base_types_len,
				  c->nr_types, types, NULL, 0, 0, NULL);
	long hi = lo < 0 ? -1 : btf_records__index(c->types, c->types_len,
						c->nr_types - lo, types, NULL,
						lo, 0, NULL);

	return hi < 0 || (size_t)(lo + hi) != c->nr_types ? -EINVAL : 0;
}

int btf_concat__index_types(struct btf_concat *c)
{
	long lo, hi;

	free(c->offs);
	c->nr_offs = 0;
	c->offs = malloc((c->nr_types ? c->nr_types : 1) * sizeof(*c->offs));
	if (!c->offs)
		return -ENOMEM;
	/* One offset space, borrowed records first: the raw bytes' order. */
	if ((uint64_t)c->base_types_len + c->types_len > UINT32_MAX)
		return -E2BIG;
	lo = btf_records__index(c->base_types, c->base_types_len, c->nr_types,
			     NULL, c->offs, 0, 0, NULL);
	hi = lo < 0 ? -1 : btf_records__index(c->types, c->types_len,
					   c->nr_types - lo, NULL, c->offs, lo,
					   c->base_types_len, NULL);
	if (hi < 0 || (size_t)(lo + hi) != c->nr_types)
		return -EINVAL;
	c->nr_offs = c->nr_types;
	return 0;
}

const struct btf_type *btf_concat__type_by_id(const struct btf_concat *c,
					      uint32_t id)
{
	uint32_t off;

	if (!id || id > c->nr_offs)
		return NULL;
	off = c->offs[id - 1];
	if (off < c->base_types_len)
		return (const struct btf_type *)(c->base_types + off);
	return (const struct btf_type *)(c->types + (off - c->base_types_len));
}

const char *btf_concat__name_by_offset(const struct btf_concat *c,
				       uint32_t off)
{
	return off < c->base_strs_len + c->strs_len ? concat__str(c, off) :
	       NULL;
}

void btf_concat__strs(const struct btf_concat *c, const char **lo,
		      uint32_t *lo_len, const char **hi, uint32_t *hi_len)
{
	*lo = c->base_strs;
	*lo_len = c->base_strs_len;
	*hi = c->strs;
	*hi_len = c->strs_len;
}

void btf_concat__free(struct btf_concat *c)
{
	free(c->types);
	free(c->strs);
	free(c->slots);
	free(c->xlat);
	free(c->offs);
	memset(c, 0, sizeof(*c));
}
