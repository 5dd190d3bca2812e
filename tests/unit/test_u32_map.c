// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/lib/u32_map.c, the one hash table: keys found across its growths,
 * a key added twice walked twice by u32_map__next() (an index by hash,
 * where unequal contents share a hash), clearing and freeing.  Prints
 * "ok" and exits 0, else names the failed check and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/u32_map.h"
#include "check.h"

#define KEYS	50000	/* past five growths from 256 slots */

/* Keys as the callers' are: offsets + 1, and a pointer-like stride. */
static uint64_t key_of(uint32_t i)
{
	return i % 2 ? (uint64_t)i + 1 : 0x7f0000000000ull + 24 * (uint64_t)i;
}

static int check_find(void)
{
	const char *name = "find";
	struct u32_map m = { 0 };
	uint32_t i, v;

	CHECK(!u32_map__find(&m, 1, &v));	/* empty: no slots yet */
	for (i = 0; i < KEYS; i++)
		CHECK(u32_map__add(&m, key_of(i), i) == 0);
	CHECK(m.nr == KEYS && 2 * m.nr <= m.mask + 1);
	for (i = 0; i < KEYS; i++)
		CHECK(u32_map__find(&m, key_of(i), &v) && v == i);
	CHECK(!u32_map__find(&m, 0x7f0000000000ull + 1, &v));
	u32_map__clear(&m);
	CHECK(m.nr == 0 && m.mask);
	for (i = 0; i < KEYS; i++)
		CHECK(!u32_map__find(&m, key_of(i), &v));
	CHECK(u32_map__add(&m, 5, 6) == 0 && u32_map__find(&m, 5, &v) &&
	      v == 6);
	u32_map__free(&m);
	CHECK(!m.slots && !m.mask && !m.nr);
	return 0;
}

/* A hash shared by entries of unequal contents: each is walked once. */
static int check_next(void)
{
	const char *name = "next";
	const struct u32_map_slot *s = NULL;
	struct u32_map m = { 0 };
	uint32_t i, seen = 0;

	CHECK(!u32_map__next(&m, 7, NULL));
	for (i = 0; i < 3; i++)
		CHECK(u32_map__add(&m, 7, 100 + i) == 0);
	for (i = 0; i < 10000; i++)	/* others around them, and growths */
		CHECK(u32_map__add(&m, 8 + i, i) == 0);
	while ((s = u32_map__next(&m, 7, s))) {
		CHECK(s->key == 7 && s->val >= 100 && s->val < 103);
		CHECK(!(seen & 1u << (s->val - 100)));
		seen |= 1u << (s->val - 100);
	}
	CHECK(seen == 7);
	u32_map__free(&m);
	return 0;
}

int main(void)
{
	if (check_find() || check_next())
		return 1;
	printf("ok\n");
	return 0;
}
