// SPDX-License-Identifier: GPL-2.0-only
/*
 * Merging in CU order, with deduplication whenever the merged BTF has
 * doubled (and grown by at least min_growth types): memory then follows the
 * size of the output, not the sum of all CUs, at a cost linear in the
 * input.  The trigger depends only on type counts, never on timing, so the
 * output is the same for any number of workers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "merge/btf_dedup.h"
#include "lib/btf_load.h"
#include "lib/grow.h"
#include "merge/merge.h"

int merge_state__init(struct merge_state *m, uint32_t min_growth,
		      unsigned int ptr_size)
{
	memset(m, 0, sizeof(*m));
	m->acc.btf = btf__new_empty();
	if (!m->acc.btf)
		return -ENOMEM;
	btf__set_pointer_size(m->acc.btf, ptr_size);
	m->ptr_size = ptr_size;
	m->min_growth = min_growth;
	m->dedup_at = min_growth ? min_growth : 1;
	return 0;
}

int merge_state__flush(struct merge_state *m)
{
	unsigned char *raw;
	int err;

	if (!m->cat_live)
		return 0;
	/*
	 * Take the concatenated bytes, and free the concatenation and
	 * acc.btf before the bytes are parsed, so that memory follows the
	 * size of the output rather than holding the merged types twice.
	 */
	err = btf_concat__raw(&m->cat, &raw);
	if (err)
		return err;
	btf_concat__free(&m->cat);
	m->cat_live = false;
	/* This is the BTF merge_state__open() lent to the concatenation. */
	btf__free(m->acc.btf);
	m->acc.btf = NULL;
	return btf_load__raw(raw, m->ptr_size, &m->acc.btf);
}

int merge_state__open(struct merge_state *m, bool flush,
		      struct btf_concat **out)
{
	int err = 0;

	/*
	 * The decisions read the merged types by id, and the types they add
	 * go after them.  Without a flush they stay where the merge put
	 * them.  Flushed, acc.btf's bytes are borrowed rather than copied,
	 * and strings are looked up as libbpf looks them up in a BTF it
	 * adds to: every string is indexed, and the first of equal strings
	 * is kept, which is what the concatenation's own index holds too.
	 */
	if (flush || !m->cat_live) {
		err = merge_state__flush(m);
		if (!err)
			err = btf_concat__borrow(&m->cat, m->acc.btf);
	}
	if (!err)
		err = btf_concat__index_types(&m->cat);
	if (err)
		return err;
	m->cat_live = true;
	*out = &m->cat;
	return 0;
}

/* Returns the number of types merged so far. */
static uint32_t merge_state__nr_types(const struct merge_state *m)
{
	return m->cat_live ? m->cat.nr_types : btf__type_cnt(m->acc.btf) - 1;
}

/*
 * Appends @src to the merged types and sets *@first to the id its type 1
 * gets.  The first append starts the concatenation from acc.btf's bytes
 * and then frees acc.btf, whose types the concatenation now holds.
 * Returns 0 or a negative errno.
 */
static int merge_state__append(struct merge_state *m, const struct btf *src,
			       uint32_t *first)
{
	struct cu_fragment *a = &m->acc;
	int err;

	if (btf__type_cnt(src) > 1) {
		err = m->cat_live ? 0 : btf_concat__reset(&m->cat, a->btf);
		if (!err)
			err = btf_concat__add(&m->cat, src, first);
	} else {
		*first = merge_state__nr_types(m) + 1;
		return 0;
	}
	if (err || m->cat_live)
		return err;
	btf__free(a->btf);
	a->btf = NULL;
	m->cat_live = true;
	return 0;
}

/*
 * Deduplicates the merged types and rewrites the candidates' type ids to
 * match.  The next dedup is due when the type count has doubled and grown
 * by at least min_growth types, which depends only on type counts, so the
 * output is the same for any number of workers.
 */
int merge_state__dedup(struct merge_state *m)
{
	struct cu_fragment *a = &m->acc;
	unsigned char *raw = NULL;
	uint32_t **ids, cnt;
	struct btf *out;
	size_t n = 0, i;
	int err;

	if (!m->dedup && !(m->dedup = btf_dedup__new(NULL, false)))
		return -ENOMEM;
	/*
	 * This is not the final dedup, so the declarations it resolves are
	 * noted in a->fwd_names and checked against the final dedup
	 * (fwd_names.h).
	 */
	btf_dedup__batch(m->dedup, m->keep_fwds, &a->fwd_names);

	/* The + 1 keeps the size above 0 when there are no candidates. */
	ids = malloc((a->nr_funcs + a->nr_params + a->nr_vars + 1) *
		     sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < a->nr_funcs; i++)
		ids[n++] = &a->funcs[i].ret_type;
	for (i = 0; i < a->nr_params; i++)
		ids[n++] = &a->params[i].type_id;
	for (i = 0; i < a->nr_vars; i++)
		ids[n++] = &a->vars[i].type_id;
	if (m->cat_live) {
		/*
		 * The merged types are read where they are, not flushed into
		 * one BTF first (a copy of all of them while the dedup's
		 * scratch is there too), and the concatenation starts again
		 * from the output at the next append.
		 */
		btf_concat__drop_index(&m->cat);
		err = btf_dedup__run_concat(m->dedup, &m->cat, ids, n, &raw);
		btf_concat__free(&m->cat);
		m->cat_live = false;
		btf__free(a->btf);
		a->btf = NULL;
		free(ids);
		if (err)
			return err;
		err = btf_load__raw(raw, m->ptr_size, &out);
	} else {
		err = btf_dedup__run(m->dedup, a->btf, NULL, ids, n, &out);
		free(ids);
	}
	if (err)
		return err;
	btf__free(a->btf);
	a->btf = out;
	m->nr_dedups++;
	cnt = btf__type_cnt(a->btf);
	if (!m->min_growth)
		m->dedup_at = cnt + 1;
	else
		m->dedup_at = cnt > m->min_growth ? cnt * 2 :
			      cnt + m->min_growth;
	return 0;
}

/*
 * Appends FRAG's types and candidates (merge.h), then deduplicates if the
 * merged BTF reached dedup_at.  FRAG is freed whether or not this
 * succeeds; its strings move to the merged state first, as the candidates'
 * names point into them.
 */
int merge_state__add(struct merge_state *m, struct cu_fragment *frag)
{
	struct cu_fragment *a = &m->acc;
	/* A fragment without a BTF was encoded into a->btf: no shift. */
	uint32_t base, first = 1;
	int err = 0;
	size_t i;

	if (frag->btf && !merge_state__nr_types(m)) {
		/* The first fragment's BTF becomes the merged BTF, uncopied. */
		if (m->cat_live)
			btf_concat__free(&m->cat);
		m->cat_live = false;
		btf__free(a->btf);
		a->btf = frag->btf;
		frag->btf = NULL;
	} else if (frag->btf &&
		   (err = merge_state__append(m, frag->btf, &first))) {
		goto out;
	}
	base = first - 1;
	a->nr_types_in += frag->nr_types_in;
	a->nr_cus_in_place += frag->nr_cus_in_place;
	a->cxx |= frag->cxx;
	if (grow_array((void **)&a->funcs, &m->cap_funcs,
		       a->nr_funcs + frag->nr_funcs, sizeof(*a->funcs), 64) ||
	    grow_array((void **)&a->params, &m->cap_params,
		       a->nr_params + frag->nr_params, sizeof(*a->params), 64) ||
	    grow_array((void **)&a->vars, &m->cap_vars,
		       a->nr_vars + frag->nr_vars, sizeof(*a->vars), 64)) {
		err = -ENOMEM;
		goto out;
	}
	if (grow_array((void **)&a->tags, &m->cap_tags,
		       a->nr_tags + frag->nr_tags, sizeof(*a->tags), 64)) {
		err = -ENOMEM;
		goto out;
	}
	/*
	 * The candidates' type ids move by BASE, except 0 (void), and their
	 * indexes into params and tags move past the entries already merged.
	 */
	for (i = 0; i < frag->nr_funcs; i++) {
		struct func_cand *c = &a->funcs[a->nr_funcs++];

		*c = frag->funcs[i];
		if (c->ret_type)
			c->ret_type += base;
		c->first_param += a->nr_params;
		c->first_tag += a->nr_tags;
	}
	for (i = 0; i < frag->nr_params; i++) {
		struct func_param *p = &a->params[a->nr_params++];

		*p = frag->params[i];
		if (p->type_id)
			p->type_id += base;
	}
	for (i = 0; i < frag->nr_vars; i++) {
		struct var_cand *v = &a->vars[a->nr_vars++];

		*v = frag->vars[i];
		if (v->type_id)
			v->type_id += base;
		v->first_tag += a->nr_tags;
	}
	if (frag->nr_tags)
		memcpy(a->tags + a->nr_tags, frag->tags,
		       frag->nr_tags * sizeof(*a->tags));
	a->nr_tags += frag->nr_tags;
	err = key_set__add_all(&a->fwd_names, &frag->fwd_names);
	if (!err)
		err = type_key_count__add(&a->type_keys, &frag->type_keys);
	if (!err && frag->nr_var_notes) {
		if (grow_array((void **)&a->var_notes, &m->cap_var_notes,
			       a->nr_var_notes + frag->nr_var_notes,
			       sizeof(*a->var_notes), 8))
			err = -ENOMEM;
		else
			memcpy(a->var_notes + a->nr_var_notes, frag->var_notes,
			       frag->nr_var_notes * sizeof(*a->var_notes));
		a->nr_var_notes += err ? 0 : frag->nr_var_notes;
	}
	if (!err && merge_state__nr_types(m) + 1 >= m->dedup_at)
		err = merge_state__dedup(m);
out:
	/* The candidates' names still point into FRAG's strings. */
	str_arena__splice(&a->strs, &frag->strs);

	cu_fragment__free(frag);
	return err;
}

int merge_state__dedup_final(struct merge_state *m, struct btf_dedup *d,
			     struct btf **out)
{
	unsigned char *raw = NULL;
	int err;

	*out = NULL;
	/* Nothing is added any more: the strings' index goes. */
	btf_concat__drop_index(&m->cat);
	if (m->cat_live)
		err = btf_dedup__run_concat(d, &m->cat, NULL, 0, &raw);
	else
		err = btf_dedup__run(d, m->acc.btf, NULL, NULL, 0, out);
	/* Either way the merged types were rewritten: they go now. */
	btf_dedup__free(d);
	btf_concat__free(&m->cat);
	m->cat_live = false;
	btf__free(m->acc.btf);
	m->acc.btf = NULL;
	if (!err && raw)
		return btf_load__raw(raw, m->ptr_size, out);
	free(raw);
	return err;
}

int merge_state__take(struct merge_state *m, struct cu_fragment *out)
{
	int err = merge_state__flush(m);

	if (err)
		return err;
	btf_dedup__free(m->dedup);
	*out = m->acc;
	memset(m, 0, sizeof(*m));
	return 0;
}

void merge_state__drop_cands(struct merge_state *m)
{
	cu_fragment__drop_cands(&m->acc);
	m->cap_funcs = m->cap_params = m->cap_vars = m->cap_tags = 0;
	m->cap_var_notes = 0;
}

void merge_state__free(struct merge_state *m)
{
	btf_dedup__free(m->dedup);
	btf_concat__free(&m->cat);
	cu_fragment__free(&m->acc);
	memset(m, 0, sizeof(*m));
}
