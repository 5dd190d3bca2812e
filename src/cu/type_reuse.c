// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cu/type_reuse.h"
#include "lib/grow.h"
#include "lib/hash.h"
#include "lib/key_set.h"

/* Slots of the names' memo: a batch defines about 8 k struct names. */
#define TYPE_REUSE_MEMO	(1u << 13)

void type_reuse__clear(struct type_reuse *r)
{
	u32_map__clear(&r->by_key);
	u32_map__clear(&r->by_name);
	r->nr_types = 0;
	r->nr_names = 0;
	if (r->memo)
		memset(r->memo, 0, TYPE_REUSE_MEMO * sizeof(*r->memo));
}

uint64_t type_reuse__name_key(struct type_reuse *r, const char *s)
{
	struct type_reuse_memo *m;

	if (!r->memo)
		r->memo = calloc(TYPE_REUSE_MEMO, sizeof(*r->memo));
	if (!r->memo)
		return key_set__name_key(s, false);
	m = &r->memo[hash_int((uintptr_t)s) & (TYPE_REUSE_MEMO - 1)];
	if (m->s != s) {
		m->s = s;
		m->id = key_set__name_key(s, false);
	}
	return m->id;
}

void type_reuse__free(struct type_reuse *r)
{
	u32_map__free(&r->by_key);
	u32_map__free(&r->by_name);
	free(r->types);
	free(r->names);
	free(r->memo);
	memset(r, 0, sizeof(*r));
}

static bool type_key__eq(struct type_key x, struct type_key y)
{
	return x.a == y.a && x.b == y.b;
}

uint32_t type_reuse__find(const struct type_reuse *r, struct type_key key)
{
	const struct u32_map_slot *s = NULL;

	while ((s = u32_map__next(&r->by_key, key.a | 1, s)))
		if (type_key__eq(r->types[s->val].key, key))
			return r->types[s->val].id;
	return 0;
}

int type_reuse__add(struct type_reuse *r, struct type_key key, uint32_t id)
{
	if (r->nr_types >= UINT32_MAX ||
	    grow_array((void **)&r->types, &r->cap_types, r->nr_types + 1,
		       sizeof(*r->types), 1024))
		return -ENOMEM;
	r->types[r->nr_types] = (struct type_reuse_type){ key, id };
	if (u32_map__add(&r->by_key, key.a | 1, r->nr_types))
		return -ENOMEM;
	r->nr_types++;
	return 0;
}

static struct type_reuse_name *type_reuse__name(const struct type_reuse *r,
						uint64_t name)
{
	const struct u32_map_slot *s = NULL;

	while ((s = u32_map__next(&r->by_name, name | 1, s)))
		if (r->names[s->val].name == name)
			return &r->names[s->val];
	return NULL;
}

/* The entry of @name, added if new; NULL without memory. */
static struct type_reuse_name *type_reuse__add_name(struct type_reuse *r,
						    uint64_t name)
{
	struct type_reuse_name *n = type_reuse__name(r, name);

	if (n)
		return n;
	if (r->nr_names >= UINT32_MAX ||
	    grow_array((void **)&r->names, &r->cap_names, r->nr_names + 1,
		       sizeof(*r->names), 256) ||
	    u32_map__add(&r->by_name, name | 1, r->nr_names))
		return NULL;
	n = &r->names[r->nr_names++];
	*n = (struct type_reuse_name){ .name = name };
	return n;
}

int type_reuse__define(struct type_reuse *r, uint64_t name,
		       struct type_key def, bool keyed)
{
	struct type_reuse_name *n = type_reuse__add_name(r, name);

	if (!n)
		return -ENOMEM;
	if (!keyed || (n->defined && !type_key__eq(n->def, def)))
		n->contested = true;
	if (!n->defined)
		n->def = def;
	n->defined = true;
	return 0;
}

int type_reuse__declare(struct type_reuse *r, uint64_t name)
{
	struct type_reuse_name *n = type_reuse__add_name(r, name);

	if (!n)
		return -ENOMEM;
	n->declared = true;
	return 0;
}

bool type_reuse__mixed(const struct type_reuse *r, uint64_t name)
{
	const struct type_reuse_name *n = type_reuse__name(r, name);

	return n && n->defined && n->declared;
}

bool type_reuse__contested(const struct type_reuse *r, uint64_t name)
{
	const struct type_reuse_name *n = type_reuse__name(r, name);

	return n && n->contested;
}
