// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/cu/name_cache.c: each name has one offset in the cache's strings,
 * which holds it there, by content (a module's CUs), by offset in
 * .debug_str (a linked file's names) across the growth of its map, and by
 * address for names outside .debug_str or without one; equal names at
 * two places of .debug_str are one string; "" and NULL are 0; by content,
 * names whose hashes collide each keep their own.  Prints "ok" and exits 0, else
 * names the failed check and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/name_cache.h"
#include "lib/hash.h"
#include "check.h"


#define NAMES	20000	/* past the first map's 2048 names */

/* A .debug_str of NAMES names, "" first; @at[i]: where name i starts. */
static char *make_str(size_t *size, size_t *at)
{
	char *s = malloc(NAMES * 16 + 1), *p = s;
	int i;

	*p++ = 0;
	for (i = 0; i < NAMES; i++) {
		at[i] = p - s;
		p += sprintf(p, "name_%d", i % (NAMES / 2)) + 1;	/* twice */
	}
	*size = p - s;
	return s;
}

static int check_cache(const char *name, bool by_content)
{
	static size_t at[NAMES];
	static int first[NAMES];
	size_t size;
	char *str = make_str(&size, at), other[] = "elsewhere";
	struct name_cache c;
	int round, i, off, other_off = 0;
	uint32_t len;

	name_cache__init(&c, by_content, str, size);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < NAMES; i++) {
			off = name_cache__off(&c, str + at[i]);
			CHECK(off > 0 &&
			      !strcmp(name_cache__str(&c, off), str + at[i]));
			/* the second half repeats the first's names */
			if (round || i >= NAMES / 2)
				CHECK(off == first[i % (NAMES / 2)]);
			else
				first[i] = off;
		}
		off = name_cache__off(&c, other);
		CHECK(off > 0 && !strcmp(name_cache__str(&c, off), other));
		CHECK(!round || off == other_off);
		other_off = off;
		CHECK(name_cache__add(&c, other) == off);
		CHECK(name_cache__off(&c, str) == 0);
		CHECK(name_cache__off(&c, "") == 0);
		CHECK(name_cache__off(&c, NULL) == 0);
		CHECK(name_cache__add(&c, "") == 0);
	}
	/* NAMES / 2 names and "elsewhere", each once, after "" */
	CHECK(name_cache__strs(&c, &len) == c.strs && len == c.len);
	CHECK(c.len == 1 + strlen(other) + 1 +
		       (size - 1) / 2);
	name_cache__free(&c);
	free(str);
	return 0;
}

struct keyed {
	uint32_t key;
	uint32_t i;
};

static int keyed__cmp(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return x->key != y->key ? (x->key < y->key ? -1 : 1) :
	       (x->i < y->i ? -1 : x->i > y->i);
}

/*
 * By content, two names whose hashes are the same slot key (32 bits)
 * are both kept, each with its own offset.
 */
static int check_collision(void)
{
	const char *name = "colliding keys";
	enum { TRIES = 1 << 19 };
	struct keyed *k = malloc(TRIES * sizeof(*k));
	struct name_cache c;
	char a[32], b[32];
	int i, pairs = 0, off_a, off_b;

	for (i = 0; i < TRIES; i++) {
		snprintf(a, sizeof(a), "c_%d", i);
		k[i].key = hash_str32(a) | 1;
		k[i].i = i;
	}
	qsort(k, TRIES, sizeof(*k), keyed__cmp);
	name_cache__init(&c, true, NULL, 0);
	for (i = 1; i < TRIES; i++) {
		if (k[i].key != k[i - 1].key)
			continue;
		snprintf(a, sizeof(a), "c_%u", k[i - 1].i);
		snprintf(b, sizeof(b), "c_%u", k[i].i);
		off_a = name_cache__off(&c, a);
		off_b = name_cache__off(&c, b);
		CHECK(off_a > 0 && off_b > 0 && off_a != off_b);
		CHECK(!strcmp(name_cache__str(&c, off_a), a));
		CHECK(!strcmp(name_cache__str(&c, off_b), b));
		CHECK(name_cache__off(&c, a) == off_a);
		CHECK(name_cache__off(&c, b) == off_b);
		pairs++;
	}
	/* 2^19 names in 2^32 keys: about 32 pairs are expected. */
	CHECK(pairs > 0);
	name_cache__free(&c);
	free(k);
	return 0;
}

/* No .debug_str (names inline, or none found): all by address. */
static int check_no_str(void)
{
	const char *name = "no .debug_str";
	static char a[] = "alpha", b[] = "beta", a2[] = "alpha";
	struct name_cache c;
	int off;

	name_cache__init(&c, false, NULL, 0);
	off = name_cache__off(&c, a);
	CHECK(off > 0 && off == name_cache__off(&c, a));
	CHECK(name_cache__off(&c, a2) == off);
	CHECK(name_cache__off(&c, b) > off &&
	      !strcmp(name_cache__str(&c, name_cache__off(&c, b)), "beta"));
	name_cache__free(&c);
	return 0;
}

int main(void)
{
	if (check_cache("by offset", false) || check_cache("by content", true) ||
	    check_collision() || check_no_str())
		return 1;
	printf("ok\n");
	return 0;
}
