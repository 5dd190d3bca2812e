// SPDX-License-Identifier: GPL-2.0-only
/* A CU's fragment (fragment.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/fragment.h"

/*
 * Frees everything FRAG owns and zeroes it, so that freeing it again does
 * nothing.
 */
void cu_fragment__drop_cands(struct cu_fragment *frag)
{
	str_arena__free(&frag->strs);
	free(frag->funcs);
	free(frag->params);
	free(frag->tags);
	free(frag->vars);
	free(frag->var_notes);
	frag->funcs = NULL;
	frag->params = NULL;
	frag->tags = NULL;
	frag->vars = NULL;
	frag->var_notes = NULL;
	frag->nr_funcs = frag->nr_params = frag->nr_tags = 0;
	frag->nr_vars = frag->nr_var_notes = 0;
}

void cu_fragment__free(struct cu_fragment *frag)
{
	btf__free(frag->btf);
	cu_fragment__drop_cands(frag);
	key_set__free(&frag->fwd_names);
	type_key_count__free(&frag->type_keys);
	memset(frag, 0, sizeof(*frag));
}

int type_key_count__add(struct type_key_count *to,
			const struct type_key_count *from)
{
	to->nr_types += from->nr_types;
	to->nr_unkeyed += from->nr_unkeyed;
	to->nr_members += from->nr_members;
	if (key_set__add_all(&to->keys, &from->keys) ||
	    key_set__add_all(&to->defs, &from->defs))
		return -ENOMEM;
	/*
	 * Nearly every key recurs: duplicates are dropped as they pile up,
	 * so that a run holds about its distinct keys, not all of them.
	 */
	if (to->keys.nr > 2 * to->nr_settled + 8192) {
		key_set__sort(&to->keys);
		key_set__sort(&to->defs);
		to->nr_settled = to->keys.nr;
	}
	return 0;
}

void type_key_count__free(struct type_key_count *c)
{
	key_set__free(&c->keys);
	key_set__free(&c->defs);
	memset(c, 0, sizeof(*c));
}

/* The name hash of the @i-th definition (its high 32 bits). */
static uint64_t defs__name(const struct type_key_count *c, size_t i)
{
	return c->defs.keys[i] >> 32;
}

void type_key_count__tally(struct type_key_count *c,
			   struct type_key_tally *t)
{
	size_t i;

	memset(t, 0, sizeof(*t));
	t->types = c->nr_types;
	t->unkeyed = c->nr_unkeyed;
	t->members = c->nr_members;
	key_set__sort(&c->keys);
	key_set__sort(&c->defs);
	t->distinct = c->keys.nr;
	for (i = 0; i < c->keys.nr; i++)
		t->distinct_members += c->keys.keys[i] & 0xffff;
	/* defs are sorted by name first: a name's definitions are a run. */
	for (i = 0; i < c->defs.nr; i++) {
		bool first = !i || defs__name(c, i) != defs__name(c, i - 1);
		bool second = !first &&
			      (i < 2 || defs__name(c, i) != defs__name(c, i - 2));

		t->names += first;
		t->names_twice += second;
	}
}
