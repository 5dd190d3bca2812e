// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deduplication by libbpf's rules (btf_dedup.h), of a whole BTF or of a
 * module's types against an indexed base.  The steps are libbpf's:
 *   1. An INT, ENUM, FWD or FLOAT is mapped to an equal canonical type, or
 *      becomes canonical itself (libbpf's btf_dedup_prim_type()).
 *   2. A STRUCT, UNION or TYPEDEF (typedefs here as libbpf 1.7 does) is
 *      mapped to a canonical type of the same shallow shape whose whole
 *      type graph is equivalent (libbpf's btf_dedup_is_equiv()).  The
 *      check is a side-by-side walk with a hypothetical mapping, in which
 *      a FWD matches the struct of its name.
 *   3. A FWD that is still canonical stands for the struct or union of its
 *      name, if exactly one has that name (libbpf's
 *      btf_dedup_resolve_fwds()).
 *   4. A reference type is mapped to an equal canonical type once the
 *      types it refers to are resolved (libbpf's btf_dedup_ref_type()).
 * The canonical types are then emitted, renumbered.  Module ids are moved
 * into the id space of split BTF, where base ids come first and module ids
 * after; a whole BTF keeps its ids (it starts at 1 and has no base).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "merge/base_index.h"
#include "merge/btf_concat.h"
#include "lib/btf_ids.h"
#include "lib/btf_load.h"
#include "merge/dedup_hash.h"
#include "merge/fwd_names.h"
#include "lib/grow.h"
#include "merge/btf_dedup.h"
#include "lib/btf_view.h"
#include "lib/u32_map.h"
#include "lib/zalloc.h"

/*
 * Marks kept in d->map and d->hypot instead of an id.  ID_NONE means the
 * type has not been processed yet (libbpf's BTF_UNPROCESSED_ID); ID_BUSY
 * means a reference type is being resolved, so meeting it again is a loop
 * (libbpf's BTF_IN_PROGRESS_ID).  Real ids never exceed ID_MAX, so any
 * larger value is a mark.
 */
#define ID_NONE		UINT32_MAX
#define ID_BUSY		(UINT32_MAX - 1)
#define ID_MAX		0x7fffffffu
/* How many levels bd__identical() compares before it calls types unequal. */
#define IDENT_DEPTH	16
/*
 * The recursive walks bd__equiv() and bd__ref() fail with -ELOOP at this
 * depth, so that a long chain of types in hostile input cannot overflow
 * the stack.
 */
#define DEDUP_MAX_DEPTH	4096

/* bd__xlat() returns this for a module string the base does not have. */
#define XLAT_NONE	BASE_STR_NONE

/*
 * The base's offset of a module string, by the module's offset: 0 when not
 * looked up yet, else the base's offset + 1, or UINT32_MAX when the base
 * lacks the string (XLAT_NONE; base offsets stay below 2^31, libbpf's
 * bound).  A dense array rather than a u32_map: a module's string section
 * is small, and bd__prepare() looks up every name of every module type
 * here, most of them many times (member names).
 */
struct xlat_cache {
	uint32_t *v;
	size_t cap;
	size_t hi;		/* entries from here on are all 0 */
};

struct btf_dedup {
	const struct base_index *idx;
	const struct btf_view *base;
	struct btf *mod;
	/*
	 * Where the names of the module's types are: over a base, those the
	 * base has are at the base's offsets, the others after the base's
	 * strings (bd__prepare()).
	 */
	struct dedup_strs strs;
	/* The first module id is idx->nr over a base, and 1 without one. */
	uint32_t start;
	uint32_t end;		/* start + the number of module types */
	uint32_t cap;		/* the number of entries in map and hypot */
	/* Maps an id to its canonical id; a base id maps to itself. */
	uint32_t *map;
	/*
	 * Maps a canonical graph id to the candidate graph id one walk of
	 * bd__equiv() assumes it corresponds to; hypot_list holds the ids
	 * set, so that bd__hypot_clear() need not clear the whole array.
	 */
	uint32_t *hypot;
	uint32_t *hypot_list;
	size_t nr_hypot, cap_hypot;
	/* These base ids have a changed map entry that bd__reset() restores. */
	uint32_t *dirty;
	size_t nr_dirty, cap_dirty;
	/*
	 * The last walk would have to change a base FWD.  The base is
	 * immutable, so the candidate is rejected (libbpf's
	 * hypot_adjust_canon).
	 */
	bool adjust_canon;
	/* Module typedefs may be mapped to the base's (btf_dedup__new()). */
	bool base_typedefs;
	/*
	 * A batch's dedup (fwd_names.h) leaves the declarations named in
	 * keep_fwds alone and adds the names it resolves to resolved.
	 */
	const struct key_set *keep_fwds;
	struct key_set *resolved;
	/*
	 * The module's types, indexed by id - start, so that a look-up makes
	 * no call into libbpf.
	 */
	struct btf_type **types;
	uint32_t cap_types;
	int depth;		/* of bd__equiv() and bd__ref() */
	struct id_chains split;	/* canonical module types, by shallow hash */
	/*
	 * Over a base: libbpf's dedup table (base_index.h) as the module's
	 * canonical types are added to it, the parity of its growths before
	 * each (by id - start), and the candidates of one lookup.
	 */
	struct libbpf_map_sim sim;
	uint8_t *par;
	uint32_t cap_par;
	uint32_t *cands;
	size_t cap_cands;
	/* The base's candidates of the other parity, while listing them. */
	uint32_t *later;
	size_t cap_later;
	/* canonical module structs and unions: slots 1.. of name_ids */
	struct id_chains names;
	uint32_t *name_ids;
	uint32_t cap_name_ids;
	uint32_t *new_id;	/* per module type: its id in the output */
	uint32_t cap_new;
	/*
	 * The base's offset of each module string looked up so far.  It is
	 * a cache that bd__xlat() fills through a const btf_dedup, which is
	 * why it is a pointer and not embedded.
	 */
	struct xlat_cache *xlat;
};

struct btf_dedup *btf_dedup__new(const struct base_index *idx,
				 bool base_typedefs)
{
	struct btf_dedup *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->idx = idx;
	d->base_typedefs = base_typedefs;
	d->base = idx ? idx->view : NULL;
	d->start = idx ? idx->nr : 1;
	d->xlat = calloc(1, sizeof(*d->xlat));
	if (!d->xlat) {
		free(d);
		return NULL;
	}
	return d;
}

void btf_dedup__batch(struct btf_dedup *d, const struct key_set *keep,
		       struct key_set *resolved)
{
	d->keep_fwds = keep;
	d->resolved = resolved;
}

void btf_dedup__free(struct btf_dedup *d)
{
	if (!d)
		return;
	free(d->map);
	free(d->hypot);
	free(d->hypot_list);
	free(d->dirty);
	free(d->new_id);
	free(d->types);
	free(d->par);
	free(d->cands);
	free(d->later);
	free(d->name_ids);
	id_chains__free(&d->split);
	id_chains__free(&d->names);
	if (d->xlat)
		free(d->xlat->v);
	free(d->xlat);
	free(d);
}

static struct btf_type *bd__type(const struct btf_dedup *d, uint32_t id)
{
	/* Id 0 (void) of a whole BTF; callers never write to it. */
	static struct btf_type void_type;

	if (id < d->start)
		/* Nothing writes to the base's types, which may be read-only. */
		return d->base ? (struct btf_type *)btf_view__type(d->base, id) :
				 &void_type;
	return d->types[id - d->start];
}

/*
 * Returns the base's offset of the module's string at OFF, or XLAT_NONE if
 * the base lacks it.  Answers are cached in d->xlat, because the same
 * names are compared again and again.
 */
static uint32_t bd__xlat(const struct btf_dedup *d, uint32_t off)
{
	struct xlat_cache *x = d->xlat;
	const char *s;
	uint32_t val;
	size_t old;

	if (off < x->hi && x->v[off])
		return x->v[off] == UINT32_MAX ? XLAT_NONE : x->v[off] - 1;
	s = btf__name_by_offset(d->mod, off);
	val = s ? base_index__str_off(d->idx, s) : XLAT_NONE;
	old = x->cap;
	/* Without room the answer is only not remembered. */
	if (grow_array((void **)&x->v, &x->cap, (size_t)off + 1,
		       sizeof(*x->v), 4096))
		return val;
	if (x->cap > old)
		memset(x->v + old, 0, (x->cap - old) * sizeof(*x->v));
	x->v[off] = val == XLAT_NONE ? UINT32_MAX : val + 1;
	if (off >= x->hi)
		x->hi = (size_t)off + 1;
	return val;
}

/*
 * Are the names at OFF1 and OFF2 equal?  Strings are interned: libbpf
 * interns a BTF's as it builds it, and a split dedup gives every module
 * name the base has the base's offset (bd__prepare()), so equal names
 * have equal offsets.
 */
static inline bool str_eq(uint32_t off1, uint32_t off2)
{
	return off1 == off2;
}

/*
 * Are T1 and T2 equal in name, info and size, ignoring the types they
 * refer to?  This mirrors libbpf's btf_equal_common().
 */
static bool eq_common(const struct btf_type *t1, const struct btf_type *t2)
{
	return t1->info == t2->info && t1->size == t2->size &&
	       str_eq(t1->name_off, t2->name_off);
}

/*
 * INTs and DECL_TAGs are also equal in the u32 that follows the type: the
 * int's encoding or the tag's component index (libbpf's
 * btf_equal_int_tag()).
 */
static bool eq_int_tag(const struct btf_type *t1, const struct btf_type *t2)
{
	return eq_common(t1, t2) &&
	       *(const uint32_t *)(t1 + 1) == *(const uint32_t *)(t2 + 1);
}

/*
 * Are two ENUMs, or two ENUM64s, equal, with the same values under the
 * same names in the same order?  This is libbpf's btf_equal_enum().
 */
static bool eq_enum(const struct btf_type *t1, const struct btf_type *t2)
{
	int i, n = btf_vlen(t1);

	if (!eq_common(t1, t2))
		return false;
	if (btf_is_enum(t1)) {
		const struct btf_enum *a = btf_enum(t1), *b = btf_enum(t2);

		for (i = 0; i < n; i++)
			if (a[i].val != b[i].val ||
			    !str_eq(a[i].name_off, b[i].name_off))
				return false;
		return true;
	}
	for (i = 0; i < n; i++) {
		const struct btf_enum64 *a = btf_enum64(t1) + i;
		const struct btf_enum64 *b = btf_enum64(t2) + i;

		if (a->val_lo32 != b->val_lo32 || a->val_hi32 != b->val_hi32 ||
		    !str_eq(a->name_off, b->name_off))
			return false;
	}
	return true;
}

/* A declared-only enum appears in BTF as an enum without values. */
static bool is_enum_fwd(const struct btf_type *t)
{
	return btf_is_any_enum(t) && !btf_vlen(t);
}

/*
 * Two enums are compatible if they are equal, or if one is only declared
 * (it has no values) and the names agree.  This mirrors libbpf's
 * btf_compat_enum().
 */
static bool compat_enum(const struct btf_type *t1, const struct btf_type *t2)
{
	if (!is_enum_fwd(t1) && !is_enum_fwd(t2))
		return eq_enum(t1, t2);
	return btf_is_any_enum(t1) && btf_is_any_enum(t2) &&
	       str_eq(t1->name_off, t2->name_off);
}

/*
 * Do two structs or unions agree in name, size and members (names and
 * offsets), ignoring the member types?  This is libbpf's
 * btf_shallow_equal_struct().
 */
static bool shallow_eq_struct(const struct btf_type *t1,
			      const struct btf_type *t2)
{
	const struct btf_member *a = btf_members(t1), *b = btf_members(t2);
	int i;

	if (!eq_common(t1, t2))
		return false;
	for (i = 0; i < btf_vlen(t1); i++)
		if (a[i].offset != b[i].offset ||
		    !str_eq(a[i].name_off, b[i].name_off))
			return false;
	return true;
}

/*
 * Do two types agree in kind, flags, vlen and name?  The size field is not
 * compared because, in the kinds this is used for, it holds a type id.
 */
static bool eq_name_info(const struct btf_type *t1, const struct btf_type *t2)
{
	return t1->info == t2->info &&
	       str_eq(t1->name_off, t2->name_off);
}

/*
 * Arrays are compatible if they agree in everything but the element and
 * index types (libbpf's btf_compat_array()).
 */
static bool compat_array(const struct btf_type *t1, const struct btf_type *t2)
{
	return eq_common(t1, t2) &&
	       btf_array(t1)->nelems == btf_array(t2)->nelems;
}

/* Equal arrays also have the same element and index type ids. */
static bool eq_array(const struct btf_type *t1, const struct btf_type *t2)
{
	return compat_array(t1, t2) &&
	       btf_array(t1)->type == btf_array(t2)->type &&
	       btf_array(t1)->index_type == btf_array(t2)->index_type;
}

/*
 * Two prototypes are compatible if they agree in everything but the types
 * of the result and the parameters (libbpf's btf_compat_fnproto()).
 */
static bool compat_proto(const struct btf_type *t1, const struct btf_type *t2)
{
	const struct btf_param *a = btf_params(t1), *b = btf_params(t2);
	int i;

	if (t1->info != t2->info ||
	    !str_eq(t1->name_off, t2->name_off))
		return false;
	for (i = 0; i < btf_vlen(t1); i++)
		if (!str_eq(a[i].name_off, b[i].name_off))
			return false;
	return true;
}

/* Equal prototypes also have the same result and parameter type ids. */
static bool eq_proto(const struct btf_type *t1, const struct btf_type *t2)
{
	const struct btf_param *a = btf_params(t1), *b = btf_params(t2);
	int i;

	if (!compat_proto(t1, t2) || t1->type != t2->type)
		return false;
	for (i = 0; i < btf_vlen(t1); i++)
		if (a[i].type != b[i].type)
			return false;
	return true;
}

/*
 * Compares T1 and T2, of the same kind, if that kind refers to no other
 * type.  Returns 1 if they are equal, 0 if not, and -1 for other kinds.
 */
static int eq_leaf(const struct btf_type *t1, const struct btf_type *t2)
{
	switch (btf_kind(t1)) {
	case BTF_KIND_INT:
		return eq_int_tag(t1, t2);
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return compat_enum(t1, t2);
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		return eq_common(t1, t2);
	default:
		return -1;
	}
}

/*
 * Canonical module type ID becomes a candidate under hash H.  Over a base,
 * the parity of libbpf's table growths at this point is kept too, because
 * bd__cands() needs it to list candidates in libbpf's order.
 */
static void bd__add_cand(struct btf_dedup *d, uint32_t id, uint64_t h)
{
	id_chains__add(&d->split, id, h);
	if (d->idx)
		d->par[id - d->start] = libbpf_map_sim__add(&d->sim);
}

/*
 * Appends to d->cands the module's candidates of hash H, latest first.
 * Only those of parity PAR are taken; PAR -1 takes all.  Returns 0 or
 * -ENOMEM.
 */
static int bd__push(struct btf_dedup *d, uint64_t h, int par, uint32_t *n)
{
	uint32_t id;

	for (id = id_chains__next(&d->split, h, 0); id;
	     id = id_chains__next(&d->split, h, id)) {
		/* A whole BTF passes PAR -1, since it has no parities. */
		if (par >= 0 && par != d->par[id - d->start])
			continue;
		if (grow_array((void **)&d->cands, &d->cap_cands, *n + 1,
			       sizeof(*d->cands), 16))
			return -ENOMEM;
		d->cands[(*n)++] = id;
	}
	return 0;
}

/*
 * Appends to d->cands the base's candidates of hash H: those of parity G,
 * latest first, then the others, earliest first, in one walk of the
 * chain.  The chain runs down the ids, so the number of the table's
 * growths up to each id only falls (base_index__parity()).  Returns 0 or
 * -ENOMEM.
 */
static int bd__push_base(struct btf_dedup *d, uint64_t h, unsigned int g,
			 uint32_t *n)
{
	const struct base_index *idx = d->idx;
	uint32_t id, k = idx->nr_growths, m = 0;

	for (id = id_chains__next(&idx->types, h, 0); id;
	     id = id_chains__next(&idx->types, h, id)) {
		while (k && idx->grow_id[k - 1] > id)
			k--;
		if ((k & 1) == g) {
			if (grow_array((void **)&d->cands, &d->cap_cands,
				       *n + 1, sizeof(*d->cands), 16))
				return -ENOMEM;
			d->cands[(*n)++] = id;
		} else {
			if (grow_array((void **)&d->later, &d->cap_later,
				       m + 1, sizeof(*d->later), 16))
				return -ENOMEM;
			d->later[m++] = id;
		}
	}
	if (grow_array((void **)&d->cands, &d->cap_cands, *n + m + 1,
		       sizeof(*d->cands), 16))
		return -ENOMEM;
	while (m)
		d->cands[(*n)++] = d->later[--m];
	return 0;
}

static void reverse_ids(uint32_t *ids, uint32_t n)
{
	uint32_t i, t;

	for (i = 0; i < n / 2; i++) {
		t = ids[i];
		ids[i] = ids[n - 1 - i];
		ids[n - 1 - i] = t;
	}
}

/*
 * Puts the candidates of hash H in d->cands, in the order libbpf's dedup
 * meets them, and returns their number or -ENOMEM.  The order matters
 * because the first equal candidate is taken and several may be equal: a
 * base may hold equal types, and equivalence of graphs is not transitive.
 * For a whole BTF the order is the canonical types, latest first.  Over a
 * base (libbpf's table, base_index.h), it is first the candidates added
 * after growths of the parity the growths so far have, latest first, and
 * then the others, earliest first; the base's candidates were all added
 * before the module's.  Callers read d->cands before the next call, which
 * works because the loops over candidates do not nest.
 */
static int64_t bd__cands(struct btf_dedup *d, uint64_t h)
{
	unsigned int g = d->sim.growths & 1;
	uint32_t n = 0, mark;
	int err;

	if (!d->idx)
		return bd__push(d, h, -1, &n) ?: (int64_t)n;
	err = bd__push(d, h, g, &n) ?: bd__push_base(d, h, g, &n);
	if (err)
		return err;
	mark = n;
	err = bd__push(d, h, !g, &n);
	if (err)
		return err;
	reverse_ids(d->cands + mark, n - mark);
	return n;
}

/*
 * Sets ID to each of the first N entries of d->cands.  The "|| 1" keeps
 * the loop going when an entry is 0.
 */
#define for_each_cand(d, k, n, id) \
	for (k = 0; k < n && ((id = (d)->cands[k]) || 1); k++)

/*
 * d->map and d->hypot hold their entries so that zero is where they start:
 * a map entry is the id it maps to XOR the id itself (a base id starts
 * mapped to itself), an assumption XOR ID_NONE.
 */
static inline uint32_t map_get(const struct btf_dedup *d, uint32_t id)
{
	return d->map[id] ^ id;
}

static inline void map_put(struct btf_dedup *d, uint32_t id, uint32_t to)
{
	d->map[id] = to ^ id;
}

static inline uint32_t hypot_get(const struct btf_dedup *d, uint32_t id)
{
	return d->hypot[id] ^ ID_NONE;
}

static inline void hypot_put(struct btf_dedup *d, uint32_t id, uint32_t to)
{
	d->hypot[id] = to ^ ID_NONE;
}

/* Has ID a map entry that is an id rather than ID_NONE or ID_BUSY? */
static bool bd__mapped(const struct btf_dedup *d, uint32_t id)
{
	return map_get(d, id) <= ID_MAX;
}

/*
 * Follows ID's map entries to the end of the chain, its canonical id so
 * far (libbpf's resolve_type_id()).
 */
static uint32_t bd__resolve(const struct btf_dedup *d, uint32_t id)
{
	while (bd__mapped(d, id) && map_get(d, id) != id)
		id = map_get(d, id);
	return id;
}

/*
 * Returns the struct or union that FWD ID has been resolved to, or ID
 * itself if ID is no FWD or is not resolved (libbpf's resolve_fwd_id()).
 */
static uint32_t bd__resolve_fwd(const struct btf_dedup *d, uint32_t id)
{
	uint32_t r;

	if (!btf_is_fwd(bd__type(d, id)))
		return id;
	r = bd__resolve(d, id);
	return btf_is_fwd(bd__type(d, r)) ? id : r;
}

/*
 * Maps ID to TO.  A base type starts mapped to itself; the first time one
 * is redirected it is noted in d->dirty, so that bd__reset() can restore
 * it for the next module.  Returns 0 or -ENOMEM.
 */
static int bd__set_map(struct btf_dedup *d, uint32_t id, uint32_t to)
{
	if (id < d->start && map_get(d, id) == id) {
		if (grow_array((void **)&d->dirty, &d->cap_dirty,
			       d->nr_dirty + 1, sizeof(uint32_t), 256))
			return -ENOMEM;
		d->dirty[d->nr_dirty++] = id;
	}
	map_put(d, id, to);
	return 0;
}

/*
 * Assumes that canonical type CANON corresponds to candidate type CAND
 * (libbpf's btf_dedup_hypot_map_add()).  Returns 0 or -ENOMEM.
 */
static int bd__hypot_add(struct btf_dedup *d, uint32_t canon, uint32_t cand)
{
	if (grow_array((void **)&d->hypot_list, &d->cap_hypot, d->nr_hypot + 1,
		       sizeof(uint32_t), 256))
		return -ENOMEM;
	d->hypot_list[d->nr_hypot++] = canon;
	hypot_put(d, canon, cand);
	return 0;
}

/* Forgets the last walk's assumptions (btf_dedup_clear_hypot_map()). */
static void bd__hypot_clear(struct btf_dedup *d)
{
	size_t i;

	for (i = 0; i < d->nr_hypot; i++)
		hypot_put(d, d->hypot_list[i], ID_NONE);
	d->nr_hypot = 0;
	d->adjust_canon = false;
}

/*
 * Two types of the candidate graph that are copies of each other (a
 * compiler may emit one array type twice in a CU, say) are compared by
 * structure, to DEPTH levels; past that they count as different.  This
 * mirrors libbpf's btf_dedup_identical_types().
 */
static bool bd__identical(const struct btf_dedup *d, uint32_t id1,
			  uint32_t id2, int depth)
{
	const struct btf_type *t1, *t2;
	int i;

	for (; depth > 0; depth--) {
		t1 = bd__type(d, id1);
		t2 = bd__type(d, id2);
		if (btf_kind(t1) != btf_kind(t2))
			return false;
		i = eq_leaf(t1, t2);
		if (i >= 0)
			return i;
		switch (btf_kind(t1)) {
		case BTF_KIND_UNKN:
			return true;
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_PTR:
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_FUNC:
		case BTF_KIND_TYPE_TAG:
			if (!eq_name_info(t1, t2))
				return false;
			id1 = t1->type;
			id2 = t2->type;
			continue;
		case BTF_KIND_ARRAY: {
			const struct btf_array *a = btf_array(t1);
			const struct btf_array *b = btf_array(t2);

			if (!compat_array(t1, t2))
				return false;
			if (a->index_type != b->index_type &&
			    !bd__identical(d, a->index_type, b->index_type,
					   depth - 1))
				return false;
			return a->type == b->type ||
			       bd__identical(d, a->type, b->type, depth - 1);
		}
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION: {
			const struct btf_member *a = btf_members(t1);
			const struct btf_member *b = btf_members(t2);

			if (!shallow_eq_struct(t1, t2))
				return false;
			for (i = 0; i < btf_vlen(t1); i++)
				if (a[i].type != b[i].type &&
				    !bd__identical(d, a[i].type, b[i].type,
						   depth - 1))
					return false;
			return true;
		}
		case BTF_KIND_FUNC_PROTO: {
			const struct btf_param *a = btf_params(t1);
			const struct btf_param *b = btf_params(t2);

			if (!compat_proto(t1, t2))
				return false;
			if (t1->type != t2->type &&
			    !bd__identical(d, t1->type, t2->type, depth - 1))
				return false;
			for (i = 0; i < btf_vlen(t1); i++)
				if (a[i].type != b[i].type &&
				    !bd__identical(d, a[i].type, b[i].type,
						   depth - 1))
					return false;
			return true;
		}
		default:
			return false;
		}
	}
	return false;
}

/* The kind a FWD declares: a set kflag means a union. */
static int fwd_kind(const struct btf_type *t)
{
	return btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
}

/* The fwd_names.h key of type ID's name. */
static uint64_t bd__fwd_key(const struct btf_dedup *d, uint32_t id)
{
	const struct btf_type *t = bd__type(d, id);

	return fwd_names__key_of(dedup_strs__at(&d->strs, t->name_off), t);
}

/*
 * May declaration ID stand for a definition of its name here?  Not in a
 * batch's dedup that must leave its name to the final dedup.
 */
static bool bd__may_resolve(const struct btf_dedup *d, uint32_t id)
{
	return !d->keep_fwds || !d->keep_fwds->nr ||
	       !key_set__has(d->keep_fwds, bd__fwd_key(d, id));
}

/*
 * Declaration ID now stands for a definition.  A batch's dedup adds its
 * name to d->resolved; other dedups do nothing.  Returns 0 or -errno.
 */
static int bd__resolved(struct btf_dedup *d, uint32_t id)
{
	if (!d->resolved)
		return 0;
	return key_set__add(d->resolved, bd__fwd_key(d, id));
}

/*
 * Is the graph from CAND (module side) equivalent to the one from CANON?
 * This is libbpf's btf_dedup_is_equiv(): a side-by-side walk in which each
 * canonical type is assumed to correspond to one candidate type
 * (d->hypot), and a contradiction ends the walk.  Returns 1 if the graphs
 * are equivalent, 0 if not, or a negative errno.
 */
static int bd__equiv(struct btf_dedup *d, uint32_t cand, uint32_t canon);

/* One step of bd__equiv(), which bounds the depth of the recursion. */
static int bd__equiv_one(struct btf_dedup *d, uint32_t cand, uint32_t canon)
{
	const struct btf_type *ct, *kt;
	int i, eq, ck, kk;
	uint32_t h;

	if (bd__resolve(d, cand) == bd__resolve(d, canon))
		return 1;
	canon = bd__resolve_fwd(d, canon);
	h = hypot_get(d, canon);
	/*
	 * A canonical type already assumed to correspond to a candidate
	 * matches only that candidate or an identical copy of it.
	 */
	if (h <= ID_MAX)
		return h == cand || bd__identical(d, h, cand, IDENT_DEPTH);
	if (bd__hypot_add(d, canon, cand))
		return -ENOMEM;

	ct = bd__type(d, cand);
	kt = bd__type(d, canon);
	ck = btf_kind(ct);
	kk = btf_kind(kt);
	if (!str_eq(ct->name_off, kt->name_off))
		return 0;
	/*
	 * A FWD is equivalent to a struct or union of its name and of the
	 * kind it declares, unless a batch must leave that name alone.
	 */
	if ((ck == BTF_KIND_FWD || kk == BTF_KIND_FWD) && ck != kk) {
		if (ck == BTF_KIND_FWD)
			return fwd_kind(ct) == kk && bd__may_resolve(d, cand);
		if (fwd_kind(kt) != ck || !bd__may_resolve(d, canon))
			return 0;
		/*
		 * A base FWD would have to become the module's struct; the
		 * caller rejects the candidate, as the base is immutable.
		 */
		if (canon < d->start)
			d->adjust_canon = true;
		return 1;
	}
	if (ck != kk)
		return 0;
	eq = eq_leaf(ct, kt);
	if (eq >= 0)
		return eq;
	switch (ck) {
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG:
		if (ct->info != kt->info)
			return 0;
		return bd__equiv(d, ct->type, kt->type);
	case BTF_KIND_ARRAY:
		if (!compat_array(ct, kt))
			return 0;
		eq = bd__equiv(d, btf_array(ct)->index_type,
			       btf_array(kt)->index_type);
		if (eq <= 0)
			return eq;
		return bd__equiv(d, btf_array(ct)->type, btf_array(kt)->type);
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		if (!shallow_eq_struct(ct, kt))
			return 0;
		for (i = 0; i < btf_vlen(ct); i++) {
			eq = bd__equiv(d, btf_members(ct)[i].type,
				       btf_members(kt)[i].type);
			if (eq <= 0)
				return eq;
		}
		return 1;
	case BTF_KIND_FUNC_PROTO:
		if (!compat_proto(ct, kt))
			return 0;
		eq = bd__equiv(d, ct->type, kt->type);
		for (i = 0; eq > 0 && i < btf_vlen(ct); i++)
			eq = bd__equiv(d, btf_params(ct)[i].type,
				       btf_params(kt)[i].type);
		return eq;
	default:
		return -EINVAL;
	}
}

/*
 * Runs bd__equiv_one() with the recursion bounded, because hostile input
 * may chain types a million deep.  Returns -ELOOP past DEDUP_MAX_DEPTH.
 */
static int bd__equiv(struct btf_dedup *d, uint32_t cand, uint32_t canon)
{
	int r;

	if (d->depth >= DEDUP_MAX_DEPTH)
		return -ELOOP;
	d->depth++;
	r = bd__equiv_one(d, cand, canon);
	d->depth--;
	return r;
}

/*
 * A walk found the graphs equivalent, so the FWDs on either side now stand
 * for the struct they met, and the module structs met become the base's
 * (libbpf's btf_dedup_merge_hypot_map()).  Returns 0 or a negative errno.
 */
static int bd__merge_hypot(struct btf_dedup *d)
{
	size_t i;
	int err;

	for (i = 0; i < d->nr_hypot; i++) {
		uint32_t c = bd__resolve(d, d->hypot_list[i]);
		uint32_t t = bd__resolve(d, hypot_get(d, d->hypot_list[i]));
		int tk = btf_kind(bd__type(d, t));
		int ck = btf_kind(bd__type(d, c));

		if (tk != BTF_KIND_FWD && ck == BTF_KIND_FWD) {
			err = bd__resolved(d, c) ?: bd__set_map(d, c, t);
			if (err)
				return err;
		}
		/*
		 * When a base FWD would have to change, the candidate is
		 * rejected, so its types are not mapped to canonical ones.
		 */
		if (d->adjust_canon)
			continue;
		/*
		 * T may be a base type, so the map is set through
		 * bd__set_map(), which lets bd__reset() undo it.
		 */
		if (tk == BTF_KIND_FWD && ck != BTF_KIND_FWD)
			err = bd__resolved(d, t) ?: bd__set_map(d, t, c);
		if (!err && (tk == BTF_KIND_STRUCT || tk == BTF_KIND_UNION) &&
		    ck != BTF_KIND_FWD && bd__mapped(d, c) && !bd__mapped(d, t))
			err = bd__set_map(d, t, c);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Pass 1 for type ID (libbpf's btf_dedup_prim_type()): an INT, ENUM,
 * ENUM64, FWD or FLOAT is mapped to the first equal candidate, or becomes
 * canonical and a candidate itself.  Other kinds are left to the later
 * passes.  Returns 0 or a negative errno.
 */
static int bd__prim(struct btf_dedup *d, uint32_t id)
{
	const struct btf_type *t = bd__type(d, id), *c;
	uint32_t cand, to = id, k;
	int64_t nc;
	uint64_t h;
	int err;

	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		h = dedup_hash__int_tag(&d->strs, t);
		nc = bd__cands(d, h);
		if (nc < 0)
			return nc;
		for_each_cand(d, k, nc, cand) {
			c = bd__type(d, cand);
			if (btf_kind(c) == BTF_KIND_INT &&
			    eq_int_tag(t, c)) {
				to = cand;
				break;
			}
		}
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		h = dedup_hash__enum(&d->strs, t);
		nc = bd__cands(d, h);
		if (nc < 0)
			return nc;
		for_each_cand(d, k, nc, cand) {
			c = bd__type(d, cand);
			if (!btf_is_any_enum(c))
				continue;
			if (eq_enum(t, c)) {
				to = cand;
				break;
			}
			if (!compat_enum(t, c) ||
			    !bd__may_resolve(d, id))
				continue;
			err = bd__resolved(d, id);
			if (err)
				return err;
			if (is_enum_fwd(t)) {
				to = cand;
				break;
			}
			/*
			 * The candidate is a declared-only enum, which now
			 * stands for this full one; the scan goes on.
			 */
			err = bd__set_map(d, cand, id);
			if (err)
				return err;
		}
		break;
	case BTF_KIND_FWD:
	case BTF_KIND_FLOAT:
		h = dedup_hash__common(&d->strs, t);
		nc = bd__cands(d, h);
		if (nc < 0)
			return nc;
		for_each_cand(d, k, nc, cand) {
			c = bd__type(d, cand);
			if (eq_common(t, c)) {
				to = cand;
				break;
			}
		}
		break;
	default:
		return 0;
	}
	map_put(d, id, to);
	if (to == id)
		bd__add_cand(d, id, h);
	return 0;
}

/*
 * Pass 2 for type ID (libbpf's btf_dedup_struct_type()): a struct, union
 * or typedef is mapped to the first candidate whose type graph is
 * equivalent, or becomes canonical and a candidate itself.  A candidate
 * that would change a base FWD is skipped.  Returns 0 or a negative errno.
 */
static int bd__composite(struct btf_dedup *d, uint32_t id)
{
	const struct btf_type *t = bd__type(d, id), *c;
	uint32_t cand, to = id, k;
	int64_t nc;
	uint64_t h;
	int eq;

	if (bd__mapped(d, id))
		return 0;
	if (btf_is_composite(t))
		h = dedup_hash__struct(&d->strs, t);
	else if (btf_is_typedef(t))
		h = dedup_hash__typedef(&d->strs, t);
	else
		return 0;
	nc = bd__cands(d, h);
	if (nc < 0)
		return nc;
	for_each_cand(d, k, nc, cand) {
		/*
		 * libbpf 1.7 and 1.8 look a typedef up by its name and kind
		 * but file the base's typedefs under name, kind and the type
		 * they name (btf_dedup_prep()): a module typedef never meets
		 * one of the base, and the module keeps its own copy, and of
		 * what refers to it (fixed after 1.8.0, by libbpf commit
		 * 5b0f3729).  pahole 1.32 encodes modules so with the libbpf
		 * it bundles (1.8.0) and with Debian's (1.7.0), so that is
		 * the default; --dedup-base-typedefs follows the fixed rule.
		 */
		if (cand < d->start && btf_is_typedef(t) && !d->base_typedefs)
			continue;
		c = bd__type(d, cand);
		/*
		 * The kinds must be equal.  bd__equiv() treats a FWD as
		 * equivalent to the struct of its name, so a FWD candidate
		 * met through a hash collision could map the FWD to the
		 * struct and the struct to the FWD, a loop.  libbpf's
		 * btf_dedup_struct_type() guards against this the same way.
		 */
		if (btf_kind(c) != btf_kind(t) ||
		    (btf_is_typedef(t) ? !eq_name_info(t, c) :
		     !shallow_eq_struct(t, c)))
			continue;
		bd__hypot_clear(d);
		eq = bd__equiv(d, id, cand);
		if (eq < 0)
			return eq;
		if (!eq)
			continue;
		eq = bd__merge_hypot(d);
		if (eq)
			return eq;
		if (d->adjust_canon)
			continue;
		to = cand;
		break;
	}
	map_put(d, id, to);
	if (to == id)
		bd__add_cand(d, id, h);
	return 0;
}

/*
 * Returns the only canonical struct or union, in the module or the base,
 * that has the name of FWD ID; 0 if none or several have it.  The caller
 * checks the kind.
 */
static uint32_t bd__unique_named(const struct btf_dedup *d, uint32_t id)
{
	const struct btf_type *t = bd__type(d, id);
	uint64_t h = dedup_hash__name(&d->strs, t->name_off);
	uint32_t found = 0, c, s;

	for (s = id_chains__next(&d->names, h, 0); s;
	     s = id_chains__next(&d->names, h, s)) {
		c = d->name_ids[s - 1];
		if (!str_eq(t->name_off, bd__type(d, c)->name_off))
			continue;
		if (found)
			return 0;
		found = c;
	}
	if (!d->idx)
		return found;
	for (c = id_chains__next(&d->idx->names, h, 0); c;
	     c = id_chains__next(&d->idx->names, h, c)) {
		if (map_get(d, c) != c ||
		    !str_eq(t->name_off, bd__type(d, c)->name_off))
			continue;
		if (found)
			return 0;
		found = c;
	}
	return found;
}

/*
 * Pass 3 (libbpf's btf_dedup_resolve_fwds()): a FWD that no graph walk
 * resolved now stands for the struct or union of its name, if exactly one
 * has that name and it is of the kind the FWD declares.  Returns 0 or a
 * negative errno.
 */
static int bd__resolve_fwds(struct btf_dedup *d)
{
	uint32_t id, c, n = 0;
	int err;

	/*
	 * The name chains hold slots 1..n of d->name_ids rather than type
	 * ids, because canonical structs and unions are far fewer than all
	 * the types and the chains are sized by their number.
	 */
	for (id = d->start; id < d->end; id++)
		n += btf_is_composite(bd__type(d, id)) && map_get(d, id) == id;
	if (n > d->cap_name_ids) {
		free(d->name_ids);
		d->name_ids = malloc(n * sizeof(*d->name_ids));
		d->cap_name_ids = d->name_ids ? n : 0;
		if (!d->name_ids)
			return -ENOMEM;
	}
	err = id_chains__init(&d->names, 1, n);
	if (err)
		return err;
	for (n = 0, id = d->start; id < d->end; id++) {
		const struct btf_type *t = bd__type(d, id);

		if (!btf_is_composite(t) || map_get(d, id) != id)
			continue;
		d->name_ids[n++] = id;
		id_chains__add(&d->names, n, dedup_hash__name(&d->strs, t->name_off));
	}
	for (id = d->start; id < d->end; id++) {
		const struct btf_type *t = bd__type(d, id);

		if (!btf_is_fwd(t) || map_get(d, id) != id)
			continue;
		if (!bd__may_resolve(d, id))
			continue;
		c = bd__unique_named(d, id);
		if (c && btf_kind(bd__type(d, c)) == fwd_kind(t)) {
			err = bd__resolved(d, id);
			if (err)
				return err;
			map_put(d, id, c);
		}
	}
	return 0;
}

static int64_t bd__ref(struct btf_dedup *d, uint32_t id);

/*
 * Resolves the type *REF refers to and writes its canonical id back in
 * place, with the recursion bounded as in bd__equiv().  Returns 0 or a
 * negative errno.
 */
static int bd__ref_field(struct btf_dedup *d, uint32_t *ref)
{
	int64_t r;

	if (d->depth >= DEDUP_MAX_DEPTH)
		return -ELOOP;
	d->depth++;
	r = bd__ref(d, *ref);
	d->depth--;
	if (r < 0)
		return r;
	*ref = r;
	return 0;
}

/*
 * Pass 4 for reference type ID (libbpf's btf_dedup_ref_type()): resolves
 * the types it refers to, rewriting them in place, then maps it to an
 * equal canonical type or makes it canonical.  Returns the canonical id,
 * or a negative errno: -ELOOP if ID is met again while it is being
 * resolved, which only a cycle of reference types can cause.
 */
static int64_t bd__ref(struct btf_dedup *d, uint32_t id)
{
	struct btf_type *t;
	const struct btf_type *c;
	bool (*eq)(const struct btf_type *, const struct btf_type *);
	uint32_t cand, to = id, k;
	int64_t nc;
	uint64_t h;
	int i, err = 0;

	if (map_get(d, id) == ID_BUSY)
		return -ELOOP;
	if (bd__mapped(d, id))
		return bd__resolve(d, id);
	t = bd__type(d, id);
	map_put(d, id, ID_BUSY);

	switch (btf_kind(t)) {
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FUNC:
	case BTF_KIND_TYPE_TAG:
		err = bd__ref_field(d, &t->type);
		h = dedup_hash__common(&d->strs, t);
		eq = eq_common;
		break;
	case BTF_KIND_DECL_TAG:
		err = bd__ref_field(d, &t->type);
		h = dedup_hash__int_tag(&d->strs, t);
		eq = eq_int_tag;
		break;
	case BTF_KIND_ARRAY:
		err = bd__ref_field(d, &btf_array(t)->type) ?:
		      bd__ref_field(d, &btf_array(t)->index_type);
		h = dedup_hash__array(&d->strs, t);
		eq = eq_array;
		break;
	case BTF_KIND_FUNC_PROTO:
		err = bd__ref_field(d, &t->type);
		for (i = 0; !err && i < btf_vlen(t); i++)
			err = bd__ref_field(d, &btf_params(t)[i].type);
		h = dedup_hash__proto(&d->strs, t);
		eq = eq_proto;
		break;
	default:
		return -EINVAL;
	}
	if (err)
		return err;
	nc = bd__cands(d, h);
	if (nc < 0)
		return nc;
	for_each_cand(d, k, nc, cand) {
		c = bd__type(d, cand);
		if (btf_kind(c) == btf_kind(t) && eq(t, c)) {
			to = cand;
			break;
		}
	}
	map_put(d, id, to);
	if (to == id)
		bd__add_cand(d, id, h);
	return to;
}

/*
 * Moves a module id into split BTF's id space: module id 1 becomes
 * d->start, and 0 (void) stays 0.
 */
static int to_split_id(uint32_t *id, void *ctx)
{
	const struct btf_dedup *d = ctx;

	if (*id)
		*id += d->start - 1;
	return 0;
}

/*
 * Rewrites an id to its id in the output: a base id stays, and a module
 * id becomes the new number of its canonical type.
 */
static int to_output_id(uint32_t *id, void *ctx)
{
	const struct btf_dedup *d = ctx;
	uint32_t r = bd__resolve(d, *id);

	*id = r < d->start ? r : d->new_id[r - d->start];
	return 0;
}

/*
 * The size of one of type T's members, enumerators or parameters, which
 * all begin with a name_off; 0 for kinds without named entries.
 */
static size_t named_entry_size(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		return sizeof(struct btf_member);
	case BTF_KIND_ENUM:
		return sizeof(struct btf_enum);
	case BTF_KIND_ENUM64:
		return sizeof(struct btf_enum64);
	case BTF_KIND_FUNC_PROTO:
		return sizeof(struct btf_param);
	default:
		return 0;
	}
}

/*
 * The offset in split BTF of the module's name at *OFF, written in place:
 * the base's offset when the base has the name, else the module's after
 * the base's strings.  Names are then compared as offsets, where every
 * comparison with a base type looked the module's name up in the base
 * (20% of the split dedup's samples on every 10th 6.12 module, perf).
 */
static int bd__split_name(const struct btf_dedup *d, uint32_t *off)
{
	uint32_t b = bd__xlat(d, *off);

	if (b != XLAT_NONE) {
		*off = b;
		return 0;
	}
	if ((uint64_t)*off + d->idx->str_len > UINT32_MAX)
		return -E2BIG;
	*off += d->idx->str_len;
	return 0;
}

/* The names of module type T, moved into split BTF's offsets. */
static int bd__split_names(const struct btf_dedup *d, struct btf_type *t)
{
	unsigned char *e = (unsigned char *)(t + 1);
	uint32_t i, v = btf_vlen(t), off;
	size_t step = named_entry_size(t);
	int err;

	err = bd__split_name(d, &t->name_off);
	for (i = 0; !err && step && i < v; i++, e += step) {
		memcpy(&off, e, sizeof(off));
		err = bd__split_name(d, &off);
		memcpy(e, &off, sizeof(off));
	}
	return err;
}

/*
 * Readies D for module MOD, or without MOD for the whole of CAT's types
 * (btf_dedup__run_concat()).  The per-type arrays are reused from the last
 * module and grown (by a quarter more than needed) when too small; base
 * ids are then mapped to themselves.  MOD's ids are moved into split BTF's
 * id space, and each module type is marked unprocessed, except VAR and
 * DATASEC, which libbpf never deduplicates.  Returns 0 or a negative
 * errno; -E2BIG if the ids would not fit below ID_MAX.
 */
static int bd__prepare(struct btf_dedup *d, struct btf *mod,
		       const struct btf_concat *cat)
{
	uint32_t n = mod ? btf__type_cnt(mod) - 1 : cat->nr_types, i, cap;
	int err;

	if (n > ID_MAX - d->start)
		return -E2BIG;
	d->mod = mod;
	d->end = d->start + n;
	if (d->end > d->cap) {
		cap = d->end + d->end / 4;
		free(d->map);
		free(d->hypot);
		/*
		 * Zeroes are each base id mapped to itself and no
		 * assumption (map_get()).  Over a base they come from
		 * calloc(): pages of base ids that a module never reaches
		 * are never touched, most of them for a small module.  A
		 * whole dedup writes them at once (zalloc.h says why).
		 */
		d->map = d->idx ? calloc(cap, sizeof(*d->map)) :
				  zalloc(cap, sizeof(*d->map));
		d->hypot = d->idx ? calloc(cap, sizeof(*d->hypot)) :
				    zalloc(cap, sizeof(*d->hypot));
		if (!d->map || !d->hypot) {
			d->cap = 0;
			return -ENOMEM;
		}
		d->cap = cap;
	}
	if (n > d->cap_new) {
		free(d->new_id);
		d->new_id = malloc(n * sizeof(*d->new_id));
		d->cap_new = d->new_id ? n : 0;
		if (!d->new_id)
			return -ENOMEM;
	}
	err = id_chains__init(&d->split, d->start, n);
	if (err)
		return err;
	if (d->idx && n > d->cap_par) {
		free(d->par);
		d->par = malloc(n);
		d->cap_par = d->par ? n : 0;
		if (!d->par)
			return -ENOMEM;
	}
	/*
	 * libbpf's table holds the base's candidates before the module's,
	 * so the simulation starts from the state the base index left.
	 */
	if (d->idx)
		d->sim = d->idx->sim;
	if (n > d->cap_types) {
		free(d->types);
		d->types = malloc(n * sizeof(*d->types));
		d->cap_types = d->types ? n : 0;
		if (!d->types)
			return -ENOMEM;
	}
	if (!mod) {
		err = btf_concat__type_ptrs(cat, d->types);
		if (err)
			return err;
		d->strs = (struct dedup_strs){ 0 };
		btf_concat__strs(cat, &d->strs.base, &d->strs.base_len,
				 &d->strs.hi, &d->strs.hi_len);
	}
	for (i = 0; mod && i < n; i++)
		d->types[i] = btf_mut_type(mod, i + 1);
	if (mod)
		d->strs = (struct dedup_strs){ .btf = mod };
	if (d->idx)
		d->strs = (struct dedup_strs){
			.btf = mod, .base = d->idx->strs,
			.base_len = d->idx->str_len,
		};
	for (i = d->start; i < d->end; i++) {
		struct btf_type *t = bd__type(d, i);

		err = d->start > 1 ? btf_type__for_each_id(t, to_split_id, d) : 0;
		if (!err && d->idx)
			err = bd__split_names(d, t);
		if (err)
			return err;
		map_put(d, i, btf_is_var(t) || btf_is_datasec(t) ? i : ID_NONE);
	}
	return 0;
}

/* The largest string offset type T names. */
static uint32_t type_max_str(const struct btf_type *t)
{
	const unsigned char *e = (const unsigned char *)(t + 1);
	uint32_t m = t->name_off, i, v = btf_vlen(t), off;
	size_t step = named_entry_size(t);

	if (!step)
		return m;
	for (i = 0; i < v; i++, e += step) {
		memcpy(&off, e, sizeof(off));
		if (off > m)
			m = off;
	}
	return m;
}

/*
 * A whole BTF's output, as raw BTF that libbpf reads back: the canonical
 * types renumbered, and the input's strings as they are, up to the last
 * one a kept type names (interned already, so offsets stay).  Copying
 * types one by one with btf__add_type() would intern every string again,
 * a third of the cost of a dedup.
 */
static int bd__emit_whole(struct btf_dedup *d, unsigned char **out)
{
	const struct dedup_strs *ds = &d->strs;
	uint32_t i, max_str = 0, str_len, lo;
	unsigned char *buf, *p;
	const char *last;
	size_t types = 0;

	for (i = d->start; i < d->end; i++) {
		const struct btf_type *t = bd__type(d, i);
		uint32_t m;

		if (map_get(d, i) != i)
			continue;
		types += btf_type__size(t);
		m = type_max_str(t);
		if (m > max_str)
			max_str = m;
	}
	last = dedup_strs__at(ds, max_str);
	if (!last || !dedup_strs__at(ds, 0))
		return -EINVAL;
	str_len = max_str + strlen(last) + 1;
	buf = btf_load__raw_new(types, str_len, &p);
	if (!buf)
		return types + str_len > UINT32_MAX ? -E2BIG : -ENOMEM;
	for (i = d->start; i < d->end; i++) {
		size_t n;

		if (map_get(d, i) != i)
			continue;
		n = btf_type__size(bd__type(d, i));
		memcpy(p, bd__type(d, i), n);
		btf_type__for_each_id((struct btf_type *)p, to_output_id, d);
		p += n;
	}
	/*
	 * The strings are one run of bytes in a BTF (from offset 0), and
	 * two in a concatenation: its borrowed ones, then its own.
	 */
	lo = str_len;
	if (!ds->btf && ds->base_len < str_len)
		lo = ds->base_len;
	memcpy(p, dedup_strs__at(ds, 0), lo);
	if (str_len > lo)
		memcpy(p + lo, ds->hi, str_len - lo);
	*out = buf;
	return 0;
}

/* Split BTF being assembled: its strings, and where the module's went. */
struct split_strs {
	char *buf;
	size_t len, cap;
	struct u32_map where;	/* module offset + 1 -> split offset */
};

/*
 * The output's offset of the name at *OFF, which bd__prepare() moved into
 * split BTF's offsets: the base's stay, and each of the module's own is
 * appended the first time (as libbpf's btf__add_str() on split BTF would,
 * so the bytes are the same).
 */
static int bd__split_str(struct btf_dedup *d, struct split_strs *ss,
			 uint32_t *off)
{
	uint32_t val, own;
	const char *s;
	size_t n;

	/* bd__prepare() gave the names the base has the base's offsets. */
	if (*off < d->idx->str_len)
		return 0;
	own = *off - d->idx->str_len;
	if (u32_map__find(&ss->where, (uint64_t)own + 1, &val)) {
		*off = val;
		return 0;
	}
	s = btf__name_by_offset(d->mod, own);
	if (!s)
		return -EINVAL;
	n = strlen(s) + 1;
	if (grow_array((void **)&ss->buf, &ss->cap, ss->len + n, 1, 4096))
		return -ENOMEM;
	memcpy(ss->buf + ss->len, s, n);
	val = d->idx->str_len + ss->len;
	ss->len += n;
	/*
	 * Without memory, u32_map__add() does not remember the string, which
	 * is then only appended again on its next use.
	 */
	u32_map__add(&ss->where, (uint64_t)own + 1, val);
	*off = val;
	return 0;
}

/* The string offsets of type T (written in place), in libbpf's order. */
static int bd__split_type_strs(struct btf_dedup *d, struct split_strs *ss,
			       struct btf_type *t)
{
	unsigned char *e = (unsigned char *)(t + 1);
	uint32_t i, v = btf_vlen(t), off;
	size_t step = named_entry_size(t);
	int err;

	err = bd__split_str(d, ss, &t->name_off);
	if (!step)
		return err;
	for (i = 0; !err && i < v; i++, e += step) {
		memcpy(&off, e, sizeof(off));
		err = bd__split_str(d, ss, &off);
		memcpy(e, &off, sizeof(off));
	}
	return err;
}

/*
 * The canonical module types as split BTF over the base, assembled raw
 * into *RAW.  Through btf__add_type(), libbpf would look every string up
 * in the base, and for that build an index of all the base's strings and
 * copy it: most of the time of a small module.  Ours is the base index's.
 */
static int bd__emit_split(struct btf_dedup *d, unsigned char **raw)
{
	struct split_strs ss = { 0 };
	size_t types = 0, total, n;
	unsigned char *buf = NULL, *p;
	struct btf_header *h;
	uint32_t i;
	int err = 0;

	for (i = d->start; i < d->end; i++)
		if (map_get(d, i) == i)
			types += btf_type__size(bd__type(d, i));
	buf = malloc(sizeof(*h) + types);
	if (!buf)
		return -ENOMEM;
	p = buf + sizeof(*h);
	for (i = d->start; !err && i < d->end; i++) {
		if (map_get(d, i) != i)
			continue;
		n = btf_type__size(bd__type(d, i));
		memcpy(p, bd__type(d, i), n);
		btf_type__for_each_id((struct btf_type *)p, to_output_id, d);
		err = bd__split_type_strs(d, &ss, (struct btf_type *)p);
		p += n;
	}
	total = sizeof(*h) + types + ss.len;
	if (!err && total > UINT32_MAX)
		err = -E2BIG;
	if (!err && !(p = realloc(buf, total)))
		err = -ENOMEM;
	if (err)
		goto out;
	buf = p;
	/*
	 * A module whose names are all in the base has no strings of its
	 * own, and ss.buf is then NULL.
	 */
	if (ss.len)
		memcpy(buf + sizeof(*h) + types, ss.buf, ss.len);
	h = (struct btf_header *)buf;
	*h = (struct btf_header){
		.magic = BTF_MAGIC, .version = BTF_VERSION,
		.hdr_len = sizeof(*h), .type_off = 0, .type_len = types,
		.str_off = types, .str_len = ss.len,
	};
	*raw = buf;
	buf = NULL;
out:
	free(buf);
	free(ss.buf);
	u32_map__free(&ss.where);
	return err;
}

/*
 * The canonical module types, renumbered, as raw BTF into *@raw: split
 * over the indexed base, else whole.
 */
static int bd__emit(struct btf_dedup *d, unsigned char **raw)
{
	uint32_t i, next = d->start;

	for (i = d->start; i < d->end; i++)
		if (map_get(d, i) == i)
			d->new_id[i - d->start] = next++;
	if (!d->idx)
		return bd__emit_whole(d, raw);
	return bd__emit_split(d, raw);
}

/*
 * Returns D to the state btf_dedup__new() left, with each base id mapped
 * to itself, so that the next module can reuse it.
 */
static void bd__reset(struct btf_dedup *d)
{
	size_t i;

	bd__hypot_clear(d);
	for (i = 0; i < d->nr_dirty; i++)
		map_put(d, d->dirty[i], d->dirty[i]);
	d->nr_dirty = 0;
	d->mod = NULL;
	/* Module string offsets mean nothing in the next module. */
	if (d->xlat->hi)
		memset(d->xlat->v, 0, d->xlat->hi * sizeof(*d->xlat->v));
	d->xlat->hi = 0;
}

/*
 * Runs the passes in libbpf's order over MOD, or without MOD over CAT
 * (btf_dedup.h has the contract): D is reset for the next module whether
 * or not they succeed.  The output is left in *RAW, as raw bytes.
 */
static int bd__run(struct btf_dedup *d, struct btf *mod,
		   const struct btf_concat *cat, uint32_t *const *ids,
		   size_t nr, unsigned char **raw)
{
	uint32_t id;
	int64_t r;
	size_t i;
	int err;

	*raw = NULL;
	err = bd__prepare(d, mod, cat);
	for (id = d->start; !err && id < d->end; id++)
		err = bd__prim(d, id);
	for (id = d->start; !err && id < d->end; id++)
		err = bd__composite(d, id);
	if (!err)
		err = bd__resolve_fwds(d);
	for (id = d->start; !err && id < d->end; id++) {
		r = bd__ref(d, id);
		err = r < 0 ? r : 0;
	}
	if (!err)
		err = bd__emit(d, raw);
	for (i = 0; !err && i < nr; i++) {
		to_split_id(ids[i], d);
		to_output_id(ids[i], d);
	}
	bd__reset(d);
	if (err) {
		free(*raw);
		*raw = NULL;
	}
	return err;
}

size_t btf_dedup__raw_size(const unsigned char *raw)
{
	const struct btf_header *h = (const void *)raw;

	return (size_t)h->hdr_len + h->str_off + h->str_len;
}

int btf_dedup__run(struct btf_dedup *d, struct btf *mod, struct btf *base,
		   uint32_t *const *ids, size_t nr, struct btf **out)
{
	unsigned char *raw;
	int err = bd__run(d, mod, NULL, ids, nr, &raw);

	*out = NULL;
	if (err)
		return err;
	if (!d->idx)
		return btf_load__raw(raw, btf__pointer_size(mod), out);
	*out = btf_load__raw_split(raw, btf_dedup__raw_size(raw), base, &err);
	free(raw);
	return err;
}

int btf_dedup__run_split(struct btf_dedup *d, struct btf *mod,
			 unsigned char **raw)
{
	if (!d->idx)
		return -EINVAL;
	return bd__run(d, mod, NULL, NULL, 0, raw);
}

int btf_dedup__run_concat(struct btf_dedup *d, const struct btf_concat *cat,
			  uint32_t *const *ids, size_t nr, unsigned char **raw)
{
	if (d->idx)
		return -EINVAL;
	return bd__run(d, NULL, cat, ids, nr, raw);
}
