// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BTF side of `dwarf2btf layout` (btf_shapes.h): every struct's and
 * union's shape, made once, and two indexes into them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "layout/btf_shapes.h"
#include "lib/hash.h"

/* The prefix of the DECL_TAG that keeps a C++ type's original name. */
#define CXX_TAG		"cxx:"

static bool is_composite(const struct btf_type *t)
{
	return btf_is_struct(t) || btf_is_union(t);
}

/* A name's key in by_name: nonzero, as u32_map keys must be. */
static uint64_t name_key(const char *name)
{
	return hash_str(name) | 1;
}

/*
 * btf_shapes__fill() makes shape @i of struct or union @id, its members
 * at @m.
 */
static void btf_shapes__fill(struct btf_shapes *s, size_t i, uint32_t id,
			     struct shape_member *m)
{
	const struct btf_type *t = btf__type_by_id(s->btf, id);
	const struct btf_member *bm = btf_members(t);
	struct shape *sh = &s->shapes[i];
	size_t k;

	sh->kind = btf_is_union(t) ? SHAPE_UNION : SHAPE_STRUCT;
	sh->size = t->size;
	sh->name = btf__name_by_offset(s->btf, t->name_off);
	if (!sh->name)
		sh->name = "";
	sh->nr = btf_vlen(t);
	sh->m = m;
	for (k = 0; k < sh->nr; k++, bm++) {
		uint32_t bits = btf_member_bitfield_size(t, k);
		long long size;
		const char *name = btf__name_by_offset(s->btf, bm->name_off);

		m[k].bit_off = btf_member_bit_offset(t, k);
		m[k].name = name && *name ? name : NULL;
		if (bits) {
			m[k].bit_size = bits;
			continue;
		}
		size = btf__resolve_size(s->btf, bm->type);
		m[k].bit_size = size < 0 ? SHAPE_SIZE_BAD : (uint64_t)size * 8;
	}
	s->ids[i] = id;
	shape__sort(sh);
}

/*
 * btf_shapes__index_tags() adds to by_name the original name each
 * "cxx:NAME" DECL_TAG on a whole struct or union gives it; @of_id maps a
 * type id to its shape index + 1.
 */
static int btf_shapes__index_tags(struct btf_shapes *s, const uint32_t *of_id,
				  uint32_t nr_types)
{
	uint32_t id;

	for (id = 1; id < nr_types; id++) {
		const struct btf_type *t = btf__type_by_id(s->btf, id);
		const char *v;

		if (!btf_is_decl_tag(t) || btf_decl_tag(t)->component_idx != -1 ||
		    t->type >= nr_types || !of_id[t->type])
			continue;
		v = btf__name_by_offset(s->btf, t->name_off);
		if (!v || strncmp(v, CXX_TAG, strlen(CXX_TAG)))
			continue;
		if (u32_map__add(&s->by_name, name_key(v + strlen(CXX_TAG)),
				 of_id[t->type] - 1))
			return -ENOMEM;
	}
	return 0;
}

int btf_shapes__new(struct btf_shapes *s, const struct btf *btf)
{
	uint32_t nr_types = btf__type_cnt(btf), id, *of_id;
	size_t nr = 0, nr_members = 0, i = 0;
	struct shape_member *m;
	int err = -ENOMEM;

	memset(s, 0, sizeof(*s));
	s->btf = btf;
	for (id = 1; id < nr_types; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (is_composite(t)) {
			nr++;
			nr_members += btf_vlen(t);
		}
	}
	of_id = calloc(nr_types, sizeof(*of_id));
	s->shapes = calloc(nr ? nr : 1, sizeof(*s->shapes));
	s->ids = calloc(nr ? nr : 1, sizeof(*s->ids));
	s->members = calloc(nr_members ? nr_members : 1, sizeof(*s->members));
	if (!of_id || !s->shapes || !s->ids || !s->members)
		goto out;
	m = s->members;
	for (id = 1; id < nr_types; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!is_composite(t))
			continue;
		btf_shapes__fill(s, i, id, m);
		m += btf_vlen(t);
		of_id[id] = i + 1;
		if (u32_map__add(&s->by_outline,
				 shape__outline_hash(&s->shapes[i]) | 1, i) ||
		    (*s->shapes[i].name &&
		     u32_map__add(&s->by_name, name_key(s->shapes[i].name), i)))
			goto out;
		i++;
	}
	s->nr = nr;
	err = btf_shapes__index_tags(s, of_id, nr_types);
out:
	free(of_id);
	if (err)
		btf_shapes__free(s);
	return err;
}

void btf_shapes__free(struct btf_shapes *s)
{
	free(s->shapes);
	free(s->ids);
	free(s->members);
	u32_map__free(&s->by_outline);
	u32_map__free(&s->by_name);
	memset(s, 0, sizeof(*s));
}

long btf_shapes__find(const struct btf_shapes *s, const struct shape *d,
		      bool by_name)
{
	uint64_t key = shape__outline_hash(d) | 1;
	const struct u32_map_slot *slot = NULL;

	while ((slot = u32_map__next(&s->by_outline, key, slot))) {
		const struct shape *b = &s->shapes[slot->val];

		if ((!by_name || !strcmp(b->name, d->name)) &&
		    shape__match(d, b))
			return slot->val;
	}
	return -1;
}

long btf_shapes__closest(const struct btf_shapes *s, const struct shape *d,
			 const char *name)
{
	const struct u32_map_slot *slot = NULL;
	long best = -1;
	size_t best_at = 0;
	bool best_kind = false;

	while ((slot = u32_map__next(&s->by_name, name_key(name), slot))) {
		const struct shape *b = &s->shapes[slot->val];
		size_t at = shape__first_diff(d, b);
		bool kind = b->kind == d->kind;

		/*
		 * The same kind first, then the longest agreement (SIZE_MAX:
		 * every member agrees).
		 */
		if (best < 0 || (kind && !best_kind) ||
		    (kind == best_kind && at > best_at)) {
			best = slot->val;
			best_at = at;
			best_kind = kind;
		}
	}
	return best;
}
