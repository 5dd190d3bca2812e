// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checking a CU's fragment the way the kernel's BTF verifier will, before
 * it is merged: corrupt DWARF must give an error naming the DIE, never BTF
 * that the kernel rejects (or that sends libbpf's dedup into a loop).
 *
 *  - no loop of modifiers (pointer, typedef, const, volatile, restrict,
 *    type tag) that comes back to itself;
 *  - no type that contains itself by value (through members, array
 *    elements, typedefs and qualifiers);
 *  - members inside their struct (in Rust units, starting inside it:
 *    see cu_check__size()), arrays under 4 GiB.
 *
 * Modifier chains are walked iteratively; by-value nesting deeper than
 * MAX_NESTING is an error rather than a deep recursion.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/cu_internal.h"

/*
 * The colours of cu_check__modifier_loops(): WHITE is not visited yet,
 * GREY is on the chain being walked, BLACK is done.
 */
enum { WHITE, GREY, BLACK };

static bool is_modifier(const struct btf_type *t)
{
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return true;
	default:
		return false;
	}
}

/*
 * Only the CU's own ids [first, nr) are checked: they never refer to
 * earlier CUs' types, which were checked when they were added.
 */
struct cu_check {
	struct cu_ctx *ctx;
	const struct btf_builder *btf;
	uint32_t first;
	uint32_t nr;
	uint8_t *color;
	int64_t *size;		/* memo of cu_check__size(), -1: not yet */
	Dwarf_Die **die_of;	/* BTF id -> DIE, for messages */
};

/* Is ID one of this CU's own types? */
static bool cu_check__mine(const struct cu_check *c, uint32_t id)
{
	return id >= c->first && id < c->nr;
}

static uint8_t *cu_check__color(struct cu_check *c, uint32_t id)
{
	return &c->color[id - c->first];
}

/* The DIE type ID came from, for messages, or the CU's DIE if unknown. */
static Dwarf_Die *cu_check__die(struct cu_check *c, uint32_t id)
{
	return id >= c->first && id < c->nr && c->die_of[id - c->first] ?
	       c->die_of[id - c->first] : c->ctx->cudie;
}

/*
 * A modifier refers to one type, so a chain of modifiers is a path.  Each
 * is walked, marking its types GREY, until it ends or meets a type marked
 * before; a GREY modifier met again closes a loop.  The chain is then
 * marked BLACK, so that every type is walked once.  Returns 0, or -ELOOP
 * after reporting the loop.
 */
static int cu_check__modifier_loops(struct cu_check *c)
{
	uint32_t id, cur;

	memset(c->color, WHITE, c->nr - c->first);
	for (id = c->first; id < c->nr; id++) {
		if (*cu_check__color(c, id) != WHITE)
			continue;
		for (cur = id; cu_check__mine(c, cur) && *cu_check__color(c, cur) == WHITE;) {
			const struct btf_type *t = btf_builder__type(c->btf, cur);

			*cu_check__color(c, cur) = GREY;
			if (!is_modifier(t))
				break;
			cur = t->type;
		}
		if (cu_check__mine(c, cur) && *cu_check__color(c, cur) == GREY &&
		    is_modifier(btf_builder__type(c->btf, cur))) {
			cu_err(c->ctx, cu_check__die(c, cur),
			       "type refers to itself through qualifiers or pointers");
			return -ELOOP;
		}
		for (cur = id; cu_check__mine(c, cur) && *cu_check__color(c, cur) == GREY;) {
			const struct btf_type *t = btf_builder__type(c->btf, cur);

			*cu_check__color(c, cur) = BLACK;
			if (!is_modifier(t))
				break;
			cur = t->type;
		}
	}
	return 0;
}

/* A larger size, far past anything BTF can hold, is stored as this. */
#define SIZE_CAP	(1ull << 40)
/*
 * Marks in the size memo.  SZ_UNKNOWN: not computed yet.  SZ_BUSY: being
 * computed, so meeting it again means the type contains itself.  SZ_NONE:
 * the type has no size (void, a FWD, a function).
 */
#define SZ_UNKNOWN	(-1)
#define SZ_BUSY		(-2)
#define SZ_NONE		(-3)
/* Nesting by value deeper than this is an error, not a deep recursion. */
#define MAX_NESTING	512

/*
 * Is type @id, past typedefs and qualifiers, a declaration (FWD)?  Not
 * btf__resolve_type(), which takes a FWD for void.
 */
static bool cu_check__is_fwd(const struct cu_check *c, uint32_t id)
{
	const struct btf_type *t = btf_builder__type(c->btf, id);
	int i;

	for (i = 0; t && i < MAX_NESTING && (btf_is_mod(t) || btf_is_typedef(t));
	     i++)
		t = btf_builder__type(c->btf, t->type);
	return t && btf_is_fwd(t);
}

/*
 * The byte size of type @id, memoized per id.  Computing it visits what the
 * type holds by value (members, array elements, through typedefs and
 * qualifiers, never through pointers), so the same walk finds a type that
 * contains itself, members past their struct and arrays over 4 GiB.  The
 * types of earlier CUs were checked before, so the builder sizes them.  Returns
 * the size or SZ_NONE; a problem is reported and its error set in *@err.
 */
static int64_t cu_check__size(struct cu_check *c, uint32_t id, int depth,
			      int *err)
{
	const struct btf_type *t;
	int64_t res, ms;
	uint64_t end, bits;
	int i;

	if (!cu_check__mine(c, id))
		return id ? btf_builder__resolve_size(c->btf, id) : SZ_NONE;
	if (c->size[id - c->first] >= 0 || c->size[id - c->first] == SZ_NONE)
		return c->size[id - c->first];
	if (c->size[id - c->first] == SZ_BUSY) {
		cu_err(c->ctx, cu_check__die(c, id), "type contains itself by value");
		*err = -ELOOP;
		return SZ_NONE;
	}
	if (depth > MAX_NESTING) {
		cu_err(c->ctx, cu_check__die(c, id), "types nested too deeply");
		*err = -E2BIG;
		return SZ_NONE;
	}
	c->size[id - c->first] = SZ_BUSY;
	t = btf_builder__type(c->btf, id);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FLOAT:
		res = t->size;
		break;
	case BTF_KIND_PTR:
		res = c->ctx->env->ef->ptr_size;
		break;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		res = cu_check__size(c, t->type, depth + 1, err);
		break;
	case BTF_KIND_ARRAY:
		res = cu_check__size(c, btf_array(t)->type, depth + 1, err);
		if (res >= 0) {
			end = (uint64_t)res * btf_array(t)->nelems;
			if (end > UINT32_MAX && !*err) {
				cu_err(c->ctx, cu_check__die(c, id),
				       "array of %u elements too large for BTF",
				       btf_array(t)->nelems);
				*err = -E2BIG;
			}
			res = end > SIZE_CAP ? (int64_t)SIZE_CAP : (int64_t)end;
		}
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		bits = (uint64_t)t->size * 8;
		for (i = 0; i < btf_vlen(t) && !*err; i++) {
			end = btf_member_bit_offset(t, i);
			if (btf_member_bitfield_size(t, i)) {
				end += btf_member_bitfield_size(t, i);
			} else {
				ms = cu_check__size(c, btf_members(t)[i].type,
						 depth + 1, err);
				if (*err)
					break;
				/*
				 * gcc describes a C++ class in the unit of
				 * its key function only, and declares it in
				 * the others, where a member or base of that
				 * class has no size; the dedup gives it the
				 * definition.
				 */
				if (ms < 0 && c->ctx->cxx &&
				    cu_check__is_fwd(c, btf_members(t)[i].type))
					continue;
				if (ms < 0) {
					cu_err(c->ctx, cu_check__die(c, id),
					       "member %d has no size", i);
					*err = -EINVAL;
					break;
				}
				end += (uint64_t)ms * 8;
			}
			/*
			 * rustc describes the unsized tail of a struct
			 * ([T], str) by one element after the sized part,
			 * and a zero-sized member by a unit type BTF can
			 * only hold as a 4-byte int: in a Rust unit a
			 * member that starts inside its struct may end
			 * past it.  pahole encodes such types as they
			 * are; so do we (the kernel's verifier refuses
			 * them, and kbuild leaves Rust units out).
			 */
			if (end > bits &&
			    (!c->ctx->rust || btf_member_bit_offset(t, i) > bits)) {
				cu_err(c->ctx, cu_check__die(c, id),
				       "member %d ends at bit %llu, past the %u-byte type",
				       i, (unsigned long long)end, t->size);
				*err = -EINVAL;
			}
		}
		res = t->size;
		break;
	default:
		res = SZ_NONE;
		break;
	}
	if (res < 0)
		res = SZ_NONE;
	c->size[id - c->first] = res;
	return res;
}

/* Sizes, and so checks, each of the CU's types; returns the first error. */
static int cu_check__sizes(struct cu_check *c)
{
	uint32_t id;
	int err = 0;

	for (id = c->first; id < c->nr && !err; id++)
		cu_check__size(c, id, 0, &err);
	return err;
}

/*
 * Checks every type this CU added (cu_internal.h): first for loops of
 * modifiers, then by sizing each.  Returns 0 or a negative errno; a
 * problem found in a type is reported first.
 */
int cu_ctx__check(struct cu_ctx *ctx)
{
	struct cu_check c = {
		.ctx = ctx,
		.btf = ctx->btf,
		.first = ctx->first_id,
		.nr = btf_builder__type_cnt(ctx->btf),
	};
	size_t i;
	int err;

	/* One entry more than types, so that no size is 0. */
	c.color = malloc(c.nr - c.first + 1);
	c.size = malloc((c.nr - c.first + 1) * sizeof(*c.size));
	c.die_of = calloc(c.nr - c.first + 1, sizeof(*c.die_of));
	if (!c.color || !c.size || !c.die_of) {
		err = -ENOMEM;
		goto out;
	}
	/* Bytes of 0xff make each entry -1, SZ_UNKNOWN. */
	memset(c.size, 0xff, (c.nr - c.first + 1) * sizeof(*c.size));

	for (i = 0; i < ctx->nr_nodes; i++)
		if (ctx->nodes[i].kind == NODE_TYPE && cu_check__mine(&c, ctx->nodes[i].id))
			c.die_of[ctx->nodes[i].id - c.first] = &ctx->nodes[i].die;
	err = cu_check__modifier_loops(&c);
	if (!err)
		err = cu_check__sizes(&c);
out:
	free(c.color);
	free(c.size);
	free(c.die_of);
	return err;
}
