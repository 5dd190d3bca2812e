/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The items of one BTF are what `dwarf2btf diff` compares: named
 * struct/union/enum/enum64/typedef/fwd/int/float types (and anonymous ones
 * nothing spells inline) are "types", FUNCs "funcs", VARs and DATASECs
 * "vars", decl and type tags "tags".  Each has a key and a rendering that
 * spells out everything it refers to, so that type ids and order do not
 * matter.
 */
#ifndef DWARF2BTF_BTF_ITEMS_H
#define DWARF2BTF_BTF_ITEMS_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

enum btf_item_cat { CAT_TYPES, CAT_FUNCS, CAT_VARS, CAT_TAGS, CAT_NR };

/* These are the category names: "types", "funcs", "vars", "tags". */
extern const char *const btf_item_cat_names[CAT_NR];

struct btf_item {
	char *key;	/* "struct foo", or for anonymous items the rendering. */
	char *disp;	/* The full one-line rendering. */
	char *comps;	/* Components, one per line, for partial diffs. */
	enum btf_item_cat cat;
};

struct btf_items {
	struct btf_item *v;
	size_t n;
	size_t cap;
};

/*
 * btf_items__collect() appends the items of @btf's own types (not its
 * base's) of the categories @kinds[cat] selects; with @flat_arrays an
 * array of arrays reads as one array of all their elements.  It returns 0,
 * or a negative errno after one line naming @path and the type (a
 * reference loop, a rendering too large, no memory).
 */
int btf_items__collect(struct btf_items *items, const struct btf *btf,
		       const char *path, const bool *kinds, bool flat_arrays);
/*
 * btf_items__drop() drops from @items those that @base has too (with the
 * same rendering); it sorts @base.
 */
void btf_items__drop(struct btf_items *items, struct btf_items *base);
void btf_items__free(struct btf_items *items);

#endif /* DWARF2BTF_BTF_ITEMS_H */
