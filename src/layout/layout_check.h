/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The verdicts of `dwarf2btf layout`: each DWARF shape (dwarf_shapes.h)
 * looked up in the BTF's (btf_shapes.h), each distinct one once, a line
 * printed for each that the BTF does not have.
 *
 * In C (and Rust) units a struct's BTF twin has its name; in C++ units
 * the BTF name may be the scope-qualified one made a C identifier, so the
 * twin is found by shape alone and the name only says what a failure is
 * reported against: the BTF type of that name (or whose "cxx:" DECL_TAG
 * holds the original name) is the one a mismatch names; without one, the
 * struct is "not in BTF".
 */
#ifndef DWARF2BTF_LAYOUT_CHECK_H
#define DWARF2BTF_LAYOUT_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include "layout/btf_shapes.h"
#include "layout/dwarf_shapes.h"
#include "lib/u32_map.h"

struct layout_check {
	const struct btf_shapes *btf;
	FILE *out;
	/* The distinct shapes met, and their members. */
	struct layout_seen *seen;
	size_t nr_seen, cap_seen;
	struct shape_member *m;
	size_t nr_m, cap_m;
	struct u32_map by_hash;		/* shape__hash() | 1 -> seen */
	/* The counts of the summary, over distinct shapes. */
	uint64_t checked, mismatches, missing, variant_parts;
	/* The BTF holds Rust variant parts (dwarf_shapes.rust_variants). */
	bool rust_variants;
};

/*
 * layout_check__shape() is a dwarf_shape_fn, with a struct layout_check
 * as @arg: it looks @s up in the BTF unless the same shape was met
 * before, and prints a line when the BTF has no twin for it.  Returns 0
 * or -ENOMEM.
 */
int layout_check__shape(void *arg, const struct shape *s,
			const struct dwarf_shape_info *info);

/*
 * layout_check__summary() prints the summary line; it returns the exit
 * status: 0 when every shape has its twin, else 1.
 */
int layout_check__summary(const struct layout_check *c, uint64_t nr_dies);
void layout_check__free(struct layout_check *c);

#endif /* DWARF2BTF_LAYOUT_CHECK_H */
