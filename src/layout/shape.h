/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The shape of a struct or union, as `dwarf2btf layout` compares it: its
 * kind, its size in bytes and its members as (bit offset, bit size)
 * pairs, sorted.  The DWARF side (dwarf_shapes.h) and the BTF side
 * (btf_shapes.h) both make shapes; shape__match() says whether a BTF
 * shape has a DWARF one's layout.
 */
#ifndef DWARF2BTF_SHAPE_H
#define DWARF2BTF_SHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A member size the DWARF does not give (its type is only declared, or
 * has no size): it matches any size.
 */
#define SHAPE_SIZE_ANY	UINT64_MAX
/* A member size BTF does not give (btf__resolve_size() fails). */
#define SHAPE_SIZE_BAD	(UINT64_MAX - 1)

enum shape_kind { SHAPE_STRUCT, SHAPE_UNION };

struct shape_member {
	uint64_t bit_off;
	uint64_t bit_size;	/* SHAPE_SIZE_ANY, SHAPE_SIZE_BAD, or bits */
	const char *name;	/* NULL: nameless (an anonymous union, say) */
};

struct shape {
	enum shape_kind kind;
	uint64_t size;		/* bytes */
	const char *name;	/* "" when anonymous */
	size_t nr;
	struct shape_member *m;
};

/* shape__sort() sorts @s's members by bit offset, then by bit size. */
void shape__sort(struct shape *s);

/*
 * shape__outline_hash() hashes what both sides know exactly: the kind,
 * the size, the member count and the members' offsets (sorted).  Equal
 * shapes have equal outline hashes.
 */
uint64_t shape__outline_hash(const struct shape *s);

/*
 * shape__hash() hashes what shape__equal() compares: @s's outline, its
 * name and its member sizes, with @salt (what else a caller keys shapes
 * by).
 */
uint64_t shape__hash(const struct shape *s, uint64_t salt);

/*
 * shape__equal() says whether @a and @b are the same: their names too,
 * not their members' (which a check does not compare).
 */
bool shape__equal(const struct shape *a, const struct shape *b);

/*
 * shape__match() says whether BTF shape @b has the layout of DWARF shape
 * @d (both sorted): the same kind, size and member count, and at each
 * offset the same member sizes, a SHAPE_SIZE_ANY of @d matching any.
 * Names are not compared.
 */
bool shape__match(const struct shape *d, const struct shape *b);

/*
 * shape__first_diff() returns the index of the first member where sorted
 * @d and @b differ (of either, to name it), @d's member count when all
 * common members agree, or SIZE_MAX when the shapes match.  It tells the
 * reader where a mismatch begins; shape__match() decides.
 */
size_t shape__first_diff(const struct shape *d, const struct shape *b);

#endif /* DWARF2BTF_SHAPE_H */
