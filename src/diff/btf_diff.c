// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file compares the items of two BTFs (btf_diff.h).  The items of
 * both sides are sorted by (category, key, rendering) and merged.  Items
 * sharing a key are compared as multisets of renderings, since several
 * distinct types may share a name.  For an item changed on both sides,
 * the renderings are also split into components (members, enumerators,
 * ...), and only the differing components are printed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/btf_diff.h"

/* Items sort by category, then key, then rendering. */
static int item_cmp(const void *a, const void *b)
{
	const struct btf_item *x = a, *y = b;
	int c;

	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->disp, y->disp);
}

/* Items of one group share the category and the key. */
static int btf_item__group_cmp(const struct btf_item *x, const struct btf_item *y)
{
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	return strcmp(x->key, y->key);
}

/* A line is one component of a rendering, with its place in it. */
struct line {
	const char *s;
	size_t len;
	size_t idx;
	bool matched;
};

/*
 * Lines sort by text, then by their place, so that equal lines pair up in
 * their own order.
 */
static int line_cmp(const void *a, const void *b)
{
	const struct line *x = *(const struct line *const *)a;
	const struct line *y = *(const struct line *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/*
 * split_lines() splits @s at newlines into lines that point into it, and
 * returns them, @n of them, or NULL when out of memory.
 */
static struct line *split_lines(const char *s, size_t *n)
{
	struct line *v;
	size_t i, cnt = 1;
	const char *p;

	for (p = s; *p; p++)
		cnt += *p == '\n';
	v = calloc(cnt, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < cnt; i++) {
		p = strchr(s, '\n');
		v[i].s = s;
		v[i].len = p ? (size_t)(p - s) : strlen(s);
		v[i].idx = i;
		s = p ? p + 1 : s + v[i].len;
	}
	*n = cnt;
	return v;
}

/* line__sorted_refs() returns pointers to the @n lines at @v, sorted. */
static struct line **line__sorted_refs(struct line *v, size_t n)
{
	struct line **p = calloc(n ? n : 1, sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = &v[i];
	qsort(p, n, sizeof(*p), line_cmp);
	return p;
}

/* line__text_cmp() compares two lines by text alone. */
static int line__text_cmp(const struct line *x, const struct line *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * diff_components() prints the components of @a missing from @b ("- ")
 * and those of @b missing from @a ("+ "), in their own order.  It returns
 * the number of lines printed, or -ENOMEM.
 */
static int diff_components(FILE *out, const char *a, const char *b)
{
	struct line *va = NULL, *vb = NULL, **pa = NULL, **pb = NULL;
	size_t na = 0, nb = 0, i, j;
	int printed = 0;

	va = split_lines(a, &na);
	vb = split_lines(b, &nb);
	if (!va || !vb)
		goto nomem;
	pa = line__sorted_refs(va, na);
	pb = line__sorted_refs(vb, nb);
	if (!pa || !pb)
		goto nomem;
	for (i = j = 0; i < na && j < nb;) {
		int c = line__text_cmp(pa[i], pb[j]);

		if (!c) {
			pa[i++]->matched = true;
			pb[j++]->matched = true;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	for (i = 0; i < na; i++) {
		if (!va[i].matched) {
			fprintf(out, "- %.*s\n", (int)va[i].len, va[i].s);
			printed++;
		}
	}
	for (j = 0; j < nb; j++) {
		if (!vb[j].matched) {
			fprintf(out, "+ %.*s\n", (int)vb[j].len, vb[j].s);
			printed++;
		}
	}
	free(pa);
	free(pb);
	free(va);
	free(vb);
	return printed;
nomem:
	free(pa);
	free(pb);
	free(va);
	free(vb);
	return -ENOMEM;
}

/*
 * An item's components are its comps, one per line, or the whole
 * rendering when it has none.
 */
static const char *btf_item__comps(const struct btf_item *it)
{
	return it->comps ? it->comps : it->disp;
}

/*
 * diff_group() compares the items of one key: A's [a, a + na) and B's
 * [b, b + nb), each sorted by rendering.  Renderings found on both sides
 * cancel out.  When one rendering is left on each side, only their
 * differing components are printed.  It returns 0 or -ENOMEM.
 */
static int diff_group(FILE *out, struct btf_diff_counts *cnt, bool show,
		      struct btf_item *a, size_t na, struct btf_item *b,
		      size_t nb)
{
	bool *ma = calloc(na + 1, 1), *mb = calloc(nb + 1, 1);
	size_t i, j, ua = na, ub = nb;
	const struct btf_item *xa = NULL, *xb = NULL;
	enum btf_item_cat cat = na ? a->cat : b->cat;
	int err = 0;

	if (!ma || !mb) {
		err = -ENOMEM;
		goto out;
	}
	for (i = j = 0; i < na && j < nb;) {
		int c = strcmp(a[i].disp, b[j].disp);

		if (!c) {
			ma[i++] = mb[j++] = true;
			ua--;
			ub--;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	if (!ua && !ub)
		goto out;
	if (!ua || !ub) {
		/*
		 * Nothing is left to pair with, so these are plain removals
		 * or additions.
		 */
		cnt->only_a[cat] += ua;
		cnt->only_b[cat] += ub;
		for (i = 0; show && i < na; i++)
			if (!ma[i])
				fprintf(out, "- %s\n", a[i].disp);
		for (j = 0; show && j < nb; j++)
			if (!mb[j])
				fprintf(out, "+ %s\n", b[j].disp);
		goto out;
	}
	cnt->differ[cat]++;
	if (!show)
		goto out;
	fprintf(out, "~ %s\n", a->key);
	for (i = 0; i < na; i++)
		if (!ma[i])
			xa = &a[i];
	for (j = 0; j < nb; j++)
		if (!mb[j])
			xb = &b[j];
	if (ua == 1 && ub == 1) {
		int n = diff_components(out, btf_item__comps(xa), btf_item__comps(xb));

		if (n < 0) {
			err = n;
			goto out;
		}
		if (n > 0)
			goto out;
		/*
		 * The same components come in another order, so the whole
		 * renderings are shown.
		 */
	}
	for (i = 0; i < na; i++)
		if (!ma[i])
			fprintf(out, "- %s\n", a[i].disp);
	for (j = 0; j < nb; j++)
		if (!mb[j])
			fprintf(out, "+ %s\n", b[j].disp);
out:
	free(ma);
	free(mb);
	return err;
}

/*
 * btf_diff__items() sorts both sides, then walks them together, one group
 * of items sharing a key at a time; a group may be empty on one side.
 */
int btf_diff__items(FILE *out, struct btf_items *ia, struct btf_items *ib,
		    bool show, struct btf_diff_counts *cnt)
{
	size_t i = 0, j = 0, i1, j1;
	int c, err;

	if (ia->n)
		qsort(ia->v, ia->n, sizeof(*ia->v), item_cmp);
	if (ib->n)
		qsort(ib->v, ib->n, sizeof(*ib->v), item_cmp);
	while (i < ia->n || j < ib->n) {
		if (i == ia->n)
			c = 1;
		else if (j == ib->n)
			c = -1;
		else
			c = btf_item__group_cmp(&ia->v[i], &ib->v[j]);
		i1 = i;
		j1 = j;
		if (c <= 0) {
			for (i1 = i + 1; i1 < ia->n &&
			     !btf_item__group_cmp(&ia->v[i], &ia->v[i1]); i1++)
				;
		}
		if (c >= 0) {
			for (j1 = j + 1; j1 < ib->n &&
			     !btf_item__group_cmp(&ib->v[j], &ib->v[j1]); j1++)
				;
		}
		err = diff_group(out, cnt, show, ia->v + i, i1 - i, ib->v + j,
				 j1 - j);
		if (err)
			return err;
		i = i1;
		j = j1;
	}
	return 0;
}
