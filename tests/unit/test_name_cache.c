// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/cu/name_cache.c: each name's offset is the one btf__add_str() gives,
 * by content (a module's CUs), by offset in .debug_str (a linked file's
 * names) across the growth of its map, and by address for names outside
 * .debug_str or without one; "" and NULL are 0; by content, names whose
 * hashes collide each keep their own.  Prints "ok" and exits 0, else names the
 * failed check and exits 1.
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
	size_t size;
	char *str = make_str(&size, at), other[] = "elsewhere";
	struct btf *btf = btf__new_empty();
	struct name_cache c;
	int round, i, off;

	name_cache__init(&c, by_content, str, size);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < NAMES; i++) {
			off = name_cache__off(&c, btf, str + at[i]);
			CHECK(off > 0 && off == btf__find_str(btf, str + at[i]));
		}
		off = name_cache__off(&c, btf, other);
		CHECK(off > 0 && !strcmp(btf__str_by_offset(btf, off), other));
		CHECK(name_cache__off(&c, btf, str) == 0);
		CHECK(name_cache__off(&c, btf, "") == 0);
		CHECK(name_cache__off(&c, btf, NULL) == 0);
	}
	/* each name once in the BTF, though at two offsets of .debug_str */
	CHECK(btf__find_str(btf, "name_0") == name_cache__off(&c, btf,
							       str + at[0]));
	name_cache__free(&c);
	btf__free(btf);
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
	struct btf *btf = btf__new_empty();
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
		off_a = name_cache__off(&c, btf, a);
		off_b = name_cache__off(&c, btf, b);
		CHECK(off_a > 0 && off_b > 0 && off_a != off_b);
		CHECK(!strcmp(btf__str_by_offset(btf, off_a), a));
		CHECK(!strcmp(btf__str_by_offset(btf, off_b), b));
		CHECK(name_cache__off(&c, btf, a) == off_a);
		CHECK(name_cache__off(&c, btf, b) == off_b);
		pairs++;
	}
	/* 2^19 names in 2^32 keys: about 32 pairs are expected. */
	CHECK(pairs > 0);
	name_cache__free(&c);
	btf__free(btf);
	free(k);
	return 0;
}

/* No .debug_str (names inline, or none found): all by address. */
static int check_no_str(void)
{
	const char *name = "no .debug_str";
	static char a[] = "alpha", b[] = "beta", a2[] = "alpha";
	struct btf *btf = btf__new_empty();
	struct name_cache c;
	int off;

	name_cache__init(&c, false, NULL, 0);
	off = name_cache__off(&c, btf, a);
	CHECK(off > 0 && off == name_cache__off(&c, btf, a));
	CHECK(name_cache__off(&c, btf, a2) == off);
	CHECK(name_cache__off(&c, btf, b) == btf__find_str(btf, "beta"));
	name_cache__free(&c);
	btf__free(btf);
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
