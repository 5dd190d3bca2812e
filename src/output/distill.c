// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file makes distilled base BTF (pahole's distilled_base feature)
 * and relocates split BTF over it.
 *
 * A module's split BTF normally refers to its vmlinux's type ids, so it
 * only fits that one vmlinux.  Distilled, it refers instead to a small base
 * of its own (.BTF.base): the named INT, FLOAT and FWD types it uses, and
 * its named structs, unions and enums as empty types of their size; what
 * else it used of the base (pointers, typedefs, arrays, anonymous types)
 * moves into the split part.  Relocation maps that small base onto any
 * vmlinux by name (and size where that decides), as the kernel does when
 * it loads such a module.
 *
 * libbpf has both (btf__distill_base(), btf__relocate()) since 1.5, and
 * they are used when the installed libbpf has them.  Debian's 1.1 does
 * not, so the same rules are implemented here.  The relocation's rules
 * follow libbpf's btf_relocate.c.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/btf_ids.h"
#include "output/distill.h"
#include "lib/libbpf_compat.h"


/* MARKED is a base type the module uses that is not placed yet. */
#define MARKED	UINT32_MAX

/* The state of one distillation, done by distill__own(). */
struct distill {
	const struct btf *src;
	uint32_t nr_base;	/* The type count of the old base. */
	uint32_t *map;		/* Old base id to MARKED or the new id. */
	uint32_t diff;		/* The old split id minus the new split id. */
	char *msg;
	size_t msg_len;
};

static int distill__mark(uint32_t *id, void *ctx);

/* distill__mark_type() marks the base types that type @id refers to. */
static int distill__mark_type(struct distill *d, uint32_t id)
{
	return btf_type__for_each_id(btf_mut_type(d->src, id), distill__mark, d);
}

/*
 * distill__mark() marks a base type the split part refers to, and what it
 * needs in turn.  It is called for each type id in a type, and fails on a
 * kind that a distilled base cannot hold.
 */
static int distill__mark(uint32_t *idp, void *ctx)
{
	struct distill *d = ctx;
	const struct btf_type *t;
	uint32_t id = *idp;

	if (!id || id >= d->nr_base || d->map[id])
		return 0;
	t = btf__type_by_id(d->src, id);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_FWD:
	case BTF_KIND_ARRAY:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_PTR:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_TYPE_TAG:
		break;
	default:
		snprintf(d->msg, d->msg_len,
			 "split BTF refers to base type [%u] of kind %u", id,
			 btf_kind(t));
		return -EINVAL;
	}
	d->map[id] = MARKED;
	/*
	 * A named struct or union goes to the base empty, so its members
	 * are not needed.
	 */
	if (btf_is_composite(t) && t->name_off)
		return 0;
	return distill__mark_type(d, id);
}

/*
 * distill__place() adds the marked base types that go to the distilled
 * base (TO_BASE) or, the others, to the split part, in base id order.  The
 * named INT, FLOAT and FWD types and named composites and enums go to the
 * base; the composites and enums go there empty.
 */
static int distill__place(struct distill *d, struct btf *dst, bool to_base)
{
	uint32_t id;
	int nid;

	for (id = 1; id < d->nr_base; id++) {
		const struct btf_type *t = btf__type_by_id(d->src, id);
		const char *name = btf__name_by_offset(d->src, t->name_off);
		bool named = t->name_off != 0, base;

		if (d->map[id] != MARKED)
			continue;
		switch (btf_kind(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_FLOAT:
		case BTF_KIND_FWD:
			base = true;
			break;
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
			base = named;
			break;
		default:
			base = false;
		}
		if (base != to_base)
			continue;
		if (!to_base || !named || btf_is_int(t) || btf_is_float(t) ||
		    btf_is_fwd(t))
			nid = btf__add_type(dst, d->src, t);
		else if (btf_is_struct(t))
			nid = btf__add_struct(dst, name, t->size);
		else if (btf_is_union(t))
			nid = btf__add_union(dst, name, t->size);
		/* ENUM64s too, because relocation matches either by size. */
		else
			nid = btf__add_enum(dst, name, t->size);
		if (nid < 0)
			return nid;
		d->map[id] = nid;
	}
	return 0;
}

/*
 * distill__remap() changes one type id of the new split part: base ids go
 * through the map, and the split part's own ids move down by diff.
 */
static int distill__remap(uint32_t *id, void *ctx)
{
	const struct distill *d = ctx;

	if (!*id)
		return 0;
	if (*id < d->nr_base)
		*id = d->map[*id];
	else
		*id -= d->diff;
	return 0;
}

/*
 * distill__own() is our btf__distill_base().  It marks what the split
 * types use of the base, builds the distilled base, then copies the split
 * types followed by the base types that move into the split part, and
 * finally remaps every id in the split part.
 */
static int distill__own(const struct btf *src, struct btf **base_out,
			struct btf **split_out, char *msg, size_t msg_len)
{
	const struct btf *old_base = btf__base_btf(src);
	struct distill d = { .src = src, .msg = msg, .msg_len = msg_len };
	struct btf *base = NULL, *split = NULL;
	uint32_t n = btf__type_cnt(src), id;
	int err, nid;

	d.nr_base = btf__type_cnt(old_base);
	d.map = calloc(d.nr_base, sizeof(*d.map));
	base = btf__new_empty();
	if (!d.map || !base) {
		err = -ENOMEM;
		goto out;
	}
	btf__set_endianness(base, btf__endianness(src));
	for (id = d.nr_base, err = 0; !err && id < n; id++)
		err = distill__mark_type(&d, id);
	if (!err)
		err = distill__place(&d, base, true);
	if (err)
		goto out;
	split = btf__new_empty_split(base);
	if (!split) {
		err = -ENOMEM;
		goto out;
	}
	for (id = d.nr_base; id < n; id++) {
		nid = btf__add_type(split, src, btf__type_by_id(src, id));
		if (nid < 0) {
			err = nid;
			goto out;
		}
	}
	err = distill__place(&d, split, false);
	if (err)
		goto out;
	d.diff = d.nr_base - btf__type_cnt(base);
	n = btf__type_cnt(split);
	for (id = btf__type_cnt(base); !err && id < n; id++)
		err = btf_type__for_each_id(btf_mut_type(split, id),
					    distill__remap, &d);
out:
	free(d.map);
	if (err) {
		btf__free(split);
		btf__free(base);
		return err;
	}
	*base_out = base;
	*split_out = split;
	return 0;
}

/*
 * btf_distill() uses libbpf when it can (distill.h), and distill__own()
 * otherwise.
 */
int btf_distill(const struct btf *split, bool own, struct btf **base_out,
		struct btf **split_out, char *msg, size_t msg_len)
{
	*msg = '\0';
	*base_out = *split_out = NULL;
	if (!btf__base_btf(split))
		return -EINVAL;
	if (btf__distill_base && !own) {
		int err = btf__distill_base(split, base_out, split_out);

		return err < 0 ? (errno ? -errno : err) : 0;
	}
	return distill__own(split, base_out, split_out, msg, msg_len);
}

struct name_id {
	const char *name;
	uint32_t id;
};

/* Names sort by string, then by id, so that equal names stay in id order. */
static int name_id_cmp(const void *a, const void *b)
{
	const struct name_id *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* This returns the first of the sorted NAMES named NAME, or NULL. */
static struct name_id *name_id__first(struct name_id *names, size_t nr,
				   const char *name)
{
	size_t lo = 0, hi = nr, mid;

	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (strcmp(names[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < nr && !strcmp(names[lo].name, name) ? names + lo : NULL;
}

/* The state of one relocation, done by btf_relocate() without libbpf. */
struct relocate {
	const struct btf *split;	/* It is over the distilled base. */
	const struct btf *dist;
	const struct btf *base;		/* This is the new base. */
	uint32_t nr_dist, nr_base;
	uint32_t *map;			/* Distilled id to base id. */
	bool *embedded;			/* By distilled id: size must match. */
	char *msg;
	size_t msg_len;
};

/*
 * Distilled structs that a split struct holds by value need the same size
 * in the new base, because the split struct's layout depends on it.
 */
static void relocate__mark_embedded(struct relocate *r, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(r->split, id);
	int i;

	if (!btf_is_composite(t))
		return;
	for (i = 0; i < btf_vlen(t); i++) {
		uint32_t next = btf_members(t)[i].type;
		int depth = 0;

		/*
		 * The walk is bounded, because the input may loop
		 * (CONST -> itself).
		 */
		while (next && depth++ < 64) {
			const struct btf_type *m = btf__type_by_id(r->split, next);

			if (btf_is_array(m)) {
				next = btf_array(m)->type;
			} else if (btf_is_mod(m) || btf_is_typedef(m) ||
				   btf_is_type_tag(m)) {
				next = m->type;
			} else {
				if (btf_is_composite(m) && next < r->nr_dist)
					r->embedded[next] = true;
				next = 0;
			}
		}
	}
}

/*
 * relocate__fits() tells whether base type B, which has the name of
 * distilled type D, stands for D.  A struct or union must have D's size
 * when D is embedded or several base composites share the name.
 */
static bool relocate__fits(const struct relocate *r, uint32_t did,
			   const struct btf_type *d, const struct btf_type *b,
			   bool name_shared)
{
	switch (btf_kind(d)) {
	case BTF_KIND_FWD:
		if (btf_is_fwd(b))
			return btf_kflag(b) == btf_kflag(d);
		return btf_is_struct(b) ? !btf_kflag(d) :
		       btf_is_union(b) && btf_kflag(d);
	case BTF_KIND_INT:
		return btf_is_int(b) && b->size == d->size &&
		       btf_int_encoding(b) == btf_int_encoding(d);
	case BTF_KIND_FLOAT:
		return btf_is_float(b) && b->size == d->size;
	case BTF_KIND_ENUM:
		return btf_is_any_enum(b) && b->size == d->size;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (btf_kind(b) != btf_kind(d))
			return false;
		return b->size == d->size ||
		       (!r->embedded[did] && !name_shared);
	default:
		return false;
	}
}

/*
 * relocate__map() maps each distilled type to the one base type that fits
 * it.  It fails when a distilled type is not one a distilled base holds,
 * when two base types fit, or when none does.
 */
static int relocate__map(struct relocate *r)
{
	struct name_id *names = NULL, key = { 0 }, *it;
	uint32_t id, nr = 0, *composites = NULL, nr_comp = 0;
	int err = 0;

	names = calloc(r->nr_dist, sizeof(*names));
	composites = calloc(r->nr_base, sizeof(*composites));
	if (!names || !composites) {
		err = -ENOMEM;
		goto out;
	}
	for (id = 1; id < r->nr_dist; id++) {
		const struct btf_type *t = btf__type_by_id(r->dist, id);

		switch (btf_kind(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_FLOAT:
		case BTF_KIND_ENUM:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
		case BTF_KIND_FWD:
			if (t->name_off)
				break;
			/* fall through */
		default:
			snprintf(r->msg, r->msg_len,
				 "distilled base type [%u] (kind %u) is not a "
				 "named int, float, enum, struct, union or fwd",
				 id, btf_kind(t));
			err = -EINVAL;
			goto out;
		}
		names[nr].name = btf__name_by_offset(r->dist, t->name_off);
		names[nr++].id = id;
	}
	qsort(names, nr, sizeof(*names), name_id_cmp);
	/*
	 * The base's named composites are collected, to tell whether
	 * several share one name.
	 */
	for (id = 1; id < r->nr_base; id++) {
		const struct btf_type *t = btf__type_by_id(r->base, id);

		if (btf_is_composite(t) && t->name_off)
			composites[nr_comp++] = id;
	}
	for (id = 1; id < r->nr_base; id++) {
		const struct btf_type *b = btf__type_by_id(r->base, id);
		bool shared = false;

		if (!b->name_off || !(btf_is_int(b) || btf_is_float(b) ||
				      btf_is_any_enum(b) || btf_is_fwd(b) ||
				      btf_is_composite(b)))
			continue;
		key.name = btf__name_by_offset(r->base, b->name_off);
		it = name_id__first(names, nr, key.name);
		if (!it)
			continue;
		if (btf_is_composite(b)) {
			uint32_t k, same = 0;

			/*
			 * This quadratic count is rare, because only names
			 * that some distilled type has get here.
			 */
			for (k = 0; k < nr_comp && same < 2; k++)
				if (!strcmp(btf__name_by_offset(r->base,
					btf__type_by_id(r->base, composites[k])->name_off),
					key.name))
					same++;
			shared = same > 1;
		}
		for (; it < names + nr && !strcmp(it->name, key.name); it++) {
			const struct btf_type *d = btf__type_by_id(r->dist, it->id);

			if (!relocate__fits(r, it->id, d, b, shared))
				continue;
			if (r->map[it->id]) {
				snprintf(r->msg, r->msg_len,
					 "distilled base type '%s' matches base "
					 "types [%u] and [%u]", key.name,
					 r->map[it->id], id);
				err = -EINVAL;
				goto out;
			}
			r->map[it->id] = id;
		}
	}
	for (id = 1; id < r->nr_dist; id++) {
		if (r->map[id])
			continue;
		snprintf(r->msg, r->msg_len,
			 "distilled base type '%s' [%u] is not in the base",
			 btf__name_by_offset(r->dist,
					     btf__type_by_id(r->dist, id)->name_off),
			 id);
		err = -ENOENT;
		break;
	}
out:
	free(names);
	free(composites);
	return err;
}

/*
 * relocate__id() changes one type id: distilled ids go through the map,
 * and split ids move from after the distilled base to after the new base.
 */
static int relocate__id(uint32_t *id, void *ctx)
{
	const struct relocate *r = ctx;

	if (!*id)
		return 0;
	*id = *id < r->nr_dist ? r->map[*id] : *id - r->nr_dist + r->nr_base;
	return 0;
}

/*
 * relocate__libbpf() uses libbpf's btf__relocate() on a copy, because it
 * relocates in place.
 */
static int relocate__libbpf(const struct btf *split, const struct btf *base,
			    struct btf **out)
{
	const void *raw;
	struct btf *copy;
	__u32 size;
	int err;

	raw = btf__raw_data(split, &size);
	copy = raw ? btf__new_split(raw, size,
				    (struct btf *)btf__base_btf(split)) : NULL;
	if (!copy)
		return -ENOMEM;
	err = btf__relocate(copy, base);
	if (err) {
		btf__free(copy);
		return errno ? -errno : err;
	}
	*out = copy;
	return 0;
}

/*
 * btf_relocate() uses libbpf when it can (distill.h); otherwise it maps the
 * distilled base onto @base and copies the split types with their ids
 * changed.
 */
int btf_relocate(const struct btf *split, const struct btf *base, bool own,
		 struct btf **out, char *msg, size_t msg_len)
{
	struct relocate r = { .split = split, .base = base, .msg = msg,
			      .msg_len = msg_len };
	uint32_t n = btf__type_cnt(split), id;
	struct btf *btf = NULL;
	int err, nid;

	*msg = '\0';
	*out = NULL;
	r.dist = btf__base_btf(split);
	if (!r.dist)
		return -EINVAL;
	if (btf__relocate && btf__new_split && !own)
		return relocate__libbpf(split, base, out);
	r.nr_dist = btf__type_cnt(r.dist);
	r.nr_base = btf__type_cnt(base);
	r.map = calloc(r.nr_dist, sizeof(*r.map));
	r.embedded = calloc(r.nr_dist, sizeof(*r.embedded));
	btf = btf__new_empty_split((struct btf *)base);
	if (!r.map || !r.embedded || !btf) {
		err = -ENOMEM;
		goto out;
	}
	for (id = r.nr_dist; id < n; id++)
		relocate__mark_embedded(&r, id);
	err = relocate__map(&r);
	for (id = r.nr_dist; !err && id < n; id++) {
		nid = btf__add_type(btf, split, btf__type_by_id(split, id));
		if (nid < 0)
			err = nid;
		else
			err = btf_type__for_each_id(btf_mut_type(btf, nid),
						    relocate__id, &r);
	}
out:
	free(r.map);
	free(r.embedded);
	if (err) {
		btf__free(btf);
		return err;
	}
	*out = btf;
	return 0;
}
