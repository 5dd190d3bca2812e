/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BTF side of `dwarf2btf layout`: the shape of every STRUCT and UNION
 * of a BTF (its base's too, for split BTF), indexed once by outline (kind,
 * size, member count, offsets) and by name, so that each DWARF shape is
 * looked up among the few BTF types of its outline.
 */
#ifndef DWARF2BTF_BTF_SHAPES_H
#define DWARF2BTF_BTF_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout/shape.h"
#include "lib/u32_map.h"

struct btf;

struct btf_shapes {
	const struct btf *btf;
	struct shape *shapes;
	uint32_t *ids;			/* the BTF id of each shape */
	size_t nr;
	struct shape_member *members;	/* all shapes' members */
	struct u32_map by_outline;	/* outline hash | 1 -> shape */
	/*
	 * A name's hash | 1 -> shape: the BTF name, and the original C++
	 * name a "cxx:NAME" DECL_TAG of the type holds.
	 */
	struct u32_map by_name;
};

/*
 * btf_shapes__new() makes the shapes of @btf's structs and unions.  A
 * member's size is its bitfield size, else its type's size
 * (btf__resolve_size()), else SHAPE_SIZE_BAD.  Returns 0 or -ENOMEM.
 */
int btf_shapes__new(struct btf_shapes *s, const struct btf *btf);
void btf_shapes__free(struct btf_shapes *s);

/*
 * btf_shapes__find() returns the index of a BTF shape that matches DWARF
 * shape @d (shape__match()), named as @d is when @by_name, or -1.
 */
long btf_shapes__find(const struct btf_shapes *s, const struct shape *d,
		      bool by_name);

/*
 * btf_shapes__closest() returns, among the shapes named @name (by their
 * BTF name or their "cxx:" tag), the one of @d's kind whose members agree
 * with @d's the longest (shape__first_diff()), or -1 when no shape has
 * that name.  It picks what a mismatch is reported against.
 */
long btf_shapes__closest(const struct btf_shapes *s, const struct shape *d,
			 const char *name);

#endif /* DWARF2BTF_BTF_SHAPES_H */
