// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/layout/shape.c: members sorted by offset and size; a DWARF member
 * of unknown size matches any one BTF member at its offset, and only one;
 * the first difference found where the members part.  Prints "ok" and
 * exits 0, else names the failed check and exits 1.
 */
#include <stdint.h>
#include <stdio.h>

#include "layout/shape.h"
#include "check.h"

#define ANY	SHAPE_SIZE_ANY

/* A union of @n members at offset 0 of sizes @sizes. */
static struct shape union_of(struct shape_member *m, const uint64_t *sizes,
			     size_t n)
{
	struct shape s = { .kind = SHAPE_UNION, .size = 8, .name = "",
			   .nr = n, .m = m };
	size_t i;

	for (i = 0; i < n; i++)
		m[i] = (struct shape_member){ .bit_off = 0, .bit_size = sizes[i] };
	shape__sort(&s);
	return s;
}

static int unions(void)
{
	const char *name = "unions";
	struct shape_member dm[3], bm[3];
	struct shape d, b;

	d = union_of(dm, (uint64_t[]){ 64, ANY, 32 }, 3);
	CHECK(dm[0].bit_size == 32 && dm[1].bit_size == 64 && dm[2].bit_size == ANY);
	b = union_of(bm, (uint64_t[]){ 64, 8, 32 }, 3);
	CHECK(shape__match(&d, &b));
	/* The wildcard takes one size; 64 and 32 must both be there. */
	b = union_of(bm, (uint64_t[]){ 64, 8, 8 }, 3);
	CHECK(!shape__match(&d, &b));
	b = union_of(bm, (uint64_t[]){ 64, 32, 32 }, 3);
	CHECK(shape__match(&d, &b));
	d = union_of(dm, (uint64_t[]){ 64, 64, 32 }, 3);
	CHECK(!shape__match(&d, &b));
	CHECK(shape__first_diff(&d, &b) == 1);
	return 0;
}

static int structs(void)
{
	const char *name = "structs";
	struct shape_member dm[] = { { 32, 32, "y" }, { 0, 32, "x" } };
	struct shape_member bm[] = { { 0, 32, "x" }, { 40, 32, "y" } };
	struct shape d = { SHAPE_STRUCT, 8, "point", 2, dm };
	struct shape b = { SHAPE_STRUCT, 8, "point", 2, bm };
	struct shape e = { SHAPE_STRUCT, 8, "point", 1, bm };

	shape__sort(&d);
	CHECK(dm[0].bit_off == 0 && dm[1].bit_off == 32);
	CHECK(!shape__match(&d, &b));
	CHECK(shape__first_diff(&d, &b) == 1);
	CHECK(shape__outline_hash(&d) != shape__outline_hash(&b));
	bm[1].bit_off = 32;
	CHECK(shape__match(&d, &b));
	CHECK(shape__first_diff(&d, &b) == SIZE_MAX);
	CHECK(shape__outline_hash(&d) == shape__outline_hash(&b));
	CHECK(shape__hash(&d, 0) != shape__hash(&d, 1));
	/* Member names are not compared. */
	bm[1].name = "z";
	CHECK(shape__equal(&d, &b) && shape__match(&d, &b));
	b.kind = SHAPE_UNION;
	CHECK(!shape__match(&d, &b) && !shape__equal(&d, &b));
	b.kind = SHAPE_STRUCT;
	b.size = 16;
	CHECK(!shape__match(&d, &b));
	/* A member BTF cannot size matches no known size. */
	b.size = 8;
	bm[1].bit_size = SHAPE_SIZE_BAD;
	CHECK(!shape__match(&d, &b));
	dm[1].bit_size = ANY;
	CHECK(shape__match(&d, &b));
	CHECK(!shape__match(&d, &e) && shape__first_diff(&d, &e) == 1);
	return 0;
}

int main(void)
{
	if (unions() || structs())
		return 1;
	puts("ok");
	return 0;
}
