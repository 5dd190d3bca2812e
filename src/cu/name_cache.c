// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "cu/name_cache.h"

void name_cache__init(struct name_cache *c, bool by_content, const char *str,
		      size_t str_size)
{
	memset(c, 0, sizeof(*c));
	c->by_content = by_content;
	if (!by_content && str && str_size < UINT32_MAX) {
		c->str = str;
		c->str_size = str_size;
	}
}

static uint32_t name_slot__at(uint32_t mask, uint32_t key)
{
	return (uint32_t)(key * 0x9e3779b97f4a7c15ull >> 32) & mask;
}

/*
 * Makes room in @t for one more slot: at most half full, growing by 2 so
 * that it stays small.  Room is made before a string is added, so that a
 * string is never added without its slot (it would be added again).
 */
static int name_table__reserve(struct name_table *t)
{
	uint32_t n, i, j;
	struct name_slot *slots;

	if (t->mask && (t->nr + 1) * 2 <= t->mask + 1)
		return 0;
	n = t->mask ? (t->mask + 1) * 2 : 4096;
	if (!n)
		return -ENOMEM;
	slots = calloc(n, sizeof(*slots));
	if (!slots)
		return -ENOMEM;
	for (i = 0; t->mask && i <= t->mask; i++) {
		if (!t->slots[i].key)
			continue;
		for (j = name_slot__at(n - 1, t->slots[i].key);
		     slots[j].key; j = (j + 1) & (n - 1))
			;
		slots[j] = t->slots[i];
	}
	free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	return 0;
}

/* Files @off under @key in @t, which has room (name_table__reserve()). */
static void name_table__put(struct name_table *t, uint32_t key, uint32_t off)
{
	uint32_t i;

	for (i = name_slot__at(t->mask, key); t->slots[i].key;
	     i = (i + 1) & t->mask)
		;
	t->slots[i].key = key;
	t->slots[i].off = off;
	t->nr++;
}

/* Appends @s (@len bytes and its NUL); its offset, or -ENOMEM. */
static int name_cache__append(struct name_cache *c, const char *s, size_t len)
{
	uint32_t off;

	if (!c->len) {
		c->cap = 64 << 10;
		c->strs = malloc(c->cap);
		if (!c->strs)
			return -ENOMEM;
		c->strs[0] = 0;
		c->len = 1;
	}
	/* libbpf's string offsets are positive ints. */
	if (len >= INT32_MAX - c->len)
		return -ENOMEM;
	if (c->len + len + 1 > c->cap) {
		uint64_t cap = c->cap;
		char *p;

		while (cap < c->len + len + 1)
			cap *= 2;
		if (cap > INT32_MAX)
			cap = INT32_MAX;
		p = realloc(c->strs, cap);
		if (!p)
			return -ENOMEM;
		c->strs = p;
		c->cap = cap;
	}
	off = c->len;
	memcpy(c->strs + off, s, len + 1);
	c->len += len + 1;
	return off;
}

/*
 * The offset of non-empty @s in @t, keyed by content: each slot of its
 * hash is compared with it, and equal hashes of unequal names are slots
 * of their own.  Added if new; -ENOMEM.
 */
static int name_cache__by_content(struct name_cache *c, struct name_table *t,
				  const char *s)
{
	uint32_t key = hash_str32(s) | 1, i;
	int off;

	for (i = name_slot__at(t->mask, key); t->mask && t->slots[i].key;
	     i = (i + 1) & t->mask)
		if (t->slots[i].key == key &&
		    !strcmp(c->strs + t->slots[i].off, s))
			return t->slots[i].off;
	if (name_table__reserve(t))
		return -ENOMEM;
	off = name_cache__append(c, s, strlen(s));
	if (off >= 0)
		name_table__put(t, key, off);
	return off;
}

/*
 * A name in .debug_str, keyed by its offset there, which is the name:
 * a hit does not read the (cold) string.
 */
static int name_cache__by_offset(struct name_cache *c, const char *s)
{
	struct name_table *t = &c->by_key;
	uint32_t key = s - c->str + 1, i;
	int off;

	for (i = name_slot__at(t->mask, key); t->mask && t->slots[i].key;
	     i = (i + 1) & t->mask)
		if (t->slots[i].key == key)
			return t->slots[i].off;
	if (name_table__reserve(t))
		return -ENOMEM;
	off = name_cache__by_content(c, &c->by_hash, s);
	if (off > 0)
		name_table__put(t, key, off);
	return off;
}

/* Any other name, keyed by its address. */
static int name_cache__by_address(struct name_cache *c, const char *s)
{
	uint64_t key = (uintptr_t)s;
	uint32_t found;
	int off;

	if (u32_map__find(&c->map, key, &found))
		return found;
	off = name_cache__by_content(c, &c->by_hash, s);
	/* A failed u32_map__add() only leaves the address out of the map. */
	if (off > 0)
		u32_map__add(&c->map, key, off);
	return off;
}

int name_cache__off(struct name_cache *c, const char *s)
{
	if (!s || !*s)
		return 0;
	if (c->by_content)
		return name_cache__by_content(c, &c->by_key, s);
	if (c->str && s >= c->str && s < c->str + c->str_size)
		return name_cache__by_offset(c, s);
	return name_cache__by_address(c, s);
}

int name_cache__add(struct name_cache *c, const char *s)
{
	if (!s || !*s)
		return 0;
	return name_cache__by_content(c, c->by_content ? &c->by_key :
					 &c->by_hash, s);
}

const char *name_cache__str(const struct name_cache *c, uint32_t off)
{
	return off < c->len ? c->strs + off : "";
}

const char *name_cache__strs(const struct name_cache *c, uint32_t *len)
{
	*len = c->len;
	return c->strs;
}

void name_cache__free(struct name_cache *c)
{
	u32_map__free(&c->map);
	free(c->by_key.slots);
	free(c->by_hash.slots);
	free(c->strs);
	name_cache__init(c, c->by_content, c->str, c->str_size);
}
