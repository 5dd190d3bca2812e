/* SPDX-License-Identifier: GPL-2.0-only */
/* This compares the items (btf_items.h) of two BTFs by meaning. */
#ifndef DWARF2BTF_BTF_DIFF_H
#define DWARF2BTF_BTF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diff/btf_items.h"

struct btf_diff_counts {
	size_t only_a[CAT_NR];
	size_t only_b[CAT_NR];
	size_t differ[CAT_NR];
};

/*
 * btf_diff__items() counts, per category, the items only in @a, only in
 * @b, and those in both that differ.  With @show it prints them to @out:
 * "- ITEM" only in A, "+ ITEM" only in B, and "~ KEY" followed by the
 * "- old" / "+ new" parts.  It sorts both lists, and returns 0 or -ENOMEM.
 */
int btf_diff__items(FILE *out, struct btf_items *a, struct btf_items *b,
		    bool show, struct btf_diff_counts *cnt);

#endif /* DWARF2BTF_BTF_DIFF_H */
