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
 *  - members inside their struct, arrays under 4 GiB.
 *
 * Walks are iterative: hostile input may nest arbitrarily deep.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu_internal.h"

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

/* Types @t holds by value; *nr is set, returns the first id's address. */
static int by_value_refs(const struct btf_type *t, uint32_t *out, int max)
{
	int i, n = 0;

	if (is_modifier(t))
		return btf_is_ptr(t) ? 0 : (out[0] = t->type, 1);
	if (btf_is_array(t)) {
		out[0] = btf_array(t)->type;
		return 1;
	}
	if (btf_is_composite(t)) {
		const struct btf_member *m = btf_members(t);

		for (i = 0; i < btf_vlen(t) && n < max; i++)
			out[n++] = m[i].type;
	}
	return n;
}

/*
 * Only the CU's own ids [first, nr) are checked: they never refer to
 * earlier CUs' types, which were checked when they were added.
 */
struct check {
	struct cu_ctx *ctx;
	const struct btf *btf;
	uint32_t first;
	uint32_t nr;
	uint8_t *color;
	int64_t *size;		/* memo of check__size(), -1: not yet */
	Dwarf_Die **die_of;	/* BTF id -> DIE, for messages */
};

static bool mine(const struct check *c, uint32_t id)
{
	return id >= c->first && id < c->nr;
}

static uint8_t *color(struct check *c, uint32_t id)
{
	return &c->color[id - c->first];
}

static Dwarf_Die *check__die(struct check *c, uint32_t id)
{
	return id >= c->first && id < c->nr && c->die_of[id - c->first] ?
	       c->die_of[id - c->first] : c->ctx->cudie;
}

/* A modifier chain is a path: walk it, marking, until it ends or loops. */
static int check__modifier_loops(struct check *c)
{
	uint32_t id, cur;

	memset(c->color, WHITE, c->nr - c->first);
	for (id = c->first; id < c->nr; id++) {
		if (*color(c, id) != WHITE)
			continue;
		for (cur = id; mine(c, cur) && *color(c, cur) == WHITE;) {
			const struct btf_type *t = btf__type_by_id(c->btf, cur);

			*color(c, cur) = GREY;
			if (!is_modifier(t))
				break;
			cur = t->type;
		}
		if (mine(c, cur) && *color(c, cur) == GREY &&
		    is_modifier(btf__type_by_id(c->btf, cur))) {
			cu_err(c->ctx, check__die(c, cur),
			       "type refers to itself through qualifiers or pointers");
			return -ELOOP;
		}
		for (cur = id; mine(c, cur) && *color(c, cur) == GREY;) {
			const struct btf_type *t = btf__type_by_id(c->btf, cur);

			*color(c, cur) = BLACK;
			if (!is_modifier(t))
				break;
			cur = t->type;
		}
	}
	return 0;
}

struct frame {
	uint32_t id;
	uint32_t next;		/* index of the next reference to visit */
};

/* Depth-first search over by-value edges; a grey node met again is a loop. */
static int check__value_loops(struct check *c)
{
	struct frame *stack;
	uint32_t refs[1];
	uint32_t root;
	size_t sp;

	stack = malloc((c->nr - c->first + 1) * sizeof(*stack));
	if (!stack)
		return -ENOMEM;
	memset(c->color, WHITE, c->nr - c->first);
	for (root = c->first; root < c->nr; root++) {
		if (*color(c, root) != WHITE)
			continue;
		sp = 0;
		stack[sp++] = (struct frame){ root, 0 };
		*color(c, root) = GREY;
		while (sp) {
			struct frame *f = &stack[sp - 1];
			const struct btf_type *t = btf__type_by_id(c->btf, f->id);
			uint32_t ref;
			int n;

			if (btf_is_composite(t)) {
				n = f->next < btf_vlen(t);
				ref = n ? btf_members(t)[f->next].type : 0;
			} else {
				n = f->next == 0 ? by_value_refs(t, refs, 1) : 0;
				ref = n ? refs[0] : 0;
			}
			if (!n) {
				*color(c, f->id) = BLACK;
				sp--;
				continue;
			}
			f->next++;
			if (!mine(c, ref))
				continue;
			if (*color(c, ref) == GREY) {
				cu_err(c->ctx, check__die(c, ref),
				       "type contains itself by value");
				free(stack);
				return -ELOOP;
			}
			if (*color(c, ref) == WHITE) {
				*color(c, ref) = GREY;
				stack[sp++] = (struct frame){ ref, 0 };
			}
		}
	}
	free(stack);
	return 0;
}

#define SIZE_CAP	(1ull << 40)	/* far past anything BTF can hold */

/*
 * Byte size of a type (saturating at SIZE_CAP), memoized per CU id: the
 * same member types come up again and again.  -1: it has no size.
 */
static int64_t check__size(struct check *c, uint32_t id)
{
	uint64_t mult = 1, res;
	uint32_t cur = id;
	int depth;

	for (depth = 0; depth < 1024; depth++) {
		const struct btf_type *t;

		if (mine(c, cur) && c->size[cur - c->first] >= 0) {
			res = c->size[cur - c->first] * mult;
			goto done;
		}
		t = cur ? btf__type_by_id(c->btf, cur) : NULL;
		if (!t)
			return -1;
		switch (btf_kind(t)) {
		case BTF_KIND_INT:
		case BTF_KIND_ENUM:
		case BTF_KIND_ENUM64:
		case BTF_KIND_FLOAT:
		case BTF_KIND_STRUCT:
		case BTF_KIND_UNION:
			res = t->size * mult;
			goto done;
		case BTF_KIND_PTR:
			res = c->ctx->env->ef->ptr_size * mult;
			goto done;
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			cur = t->type;
			break;
		case BTF_KIND_ARRAY:
			mult *= btf_array(t)->nelems;
			if (mult > SIZE_CAP)
				mult = SIZE_CAP;
			cur = btf_array(t)->type;
			break;
		default:
			return -1;
		}
	}
	return -1;
done:
	if (res > SIZE_CAP)
		res = SIZE_CAP;
	if (mine(c, id))
		c->size[id - c->first] = res;
	return res;
}

/* Sizes, now that every walk is known to end. */
static int check__sizes(struct check *c)
{
	uint32_t id;
	int i;

	for (id = c->first; id < c->nr; id++) {
		const struct btf_type *t = btf__type_by_id(c->btf, id);

		if (btf_is_array(t)) {
			int64_t sz = check__size(c, id);

			if (sz < 0 || (uint64_t)sz > UINT32_MAX) {
				cu_err(c->ctx, check__die(c, id),
				       "array of %u elements too large for BTF",
				       btf_array(t)->nelems);
				return -E2BIG;
			}
		} else if (btf_is_composite(t)) {
			const struct btf_member *m = btf_members(t);

			for (i = 0; i < btf_vlen(t); i++) {
				uint64_t end = btf_member_bit_offset(t, i);
				int64_t sz;

				if (btf_member_bitfield_size(t, i)) {
					end += btf_member_bitfield_size(t, i);
				} else {
					sz = check__size(c, m[i].type);
					if (sz < 0) {
						cu_err(c->ctx, check__die(c, id),
						       "member %d has no size", i);
						return -EINVAL;
					}
					end += (uint64_t)sz * 8;
				}
				if (end > (uint64_t)t->size * 8) {
					cu_err(c->ctx, check__die(c, id),
					       "member %d ends at bit %llu, past the %u-byte type",
					       i, (unsigned long long)end, t->size);
					return -EINVAL;
				}
			}
		}
	}
	return 0;
}

int cu_ctx__check(struct cu_ctx *ctx)
{
	struct check c = {
		.ctx = ctx,
		.btf = ctx->btf,
		.first = ctx->first_id,
		.nr = btf__type_cnt(ctx->btf),
	};
	size_t i;
	int err;

	c.color = malloc(c.nr - c.first + 1);
	c.size = malloc((c.nr - c.first + 1) * sizeof(*c.size));
	c.die_of = calloc(c.nr - c.first + 1, sizeof(*c.die_of));
	if (!c.color || !c.size || !c.die_of) {
		err = -ENOMEM;
		goto out;
	}
	memset(c.size, 0xff, (c.nr - c.first + 1) * sizeof(*c.size));
	for (i = 0; i < ctx->nr_nodes; i++)
		if (ctx->nodes[i].kind == NODE_TYPE && mine(&c, ctx->nodes[i].id))
			c.die_of[ctx->nodes[i].id - c.first] = &ctx->nodes[i].die;
	err = check__modifier_loops(&c);
	if (!err)
		err = check__value_loops(&c);
	if (!err)
		err = check__sizes(&c);
out:
	free(c.color);
	free(c.size);
	free(c.die_of);
	return err;
}
