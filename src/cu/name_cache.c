// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

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

/* At most half full; growing by 2, so that it stays small. */
static int name_cache__grow(struct name_cache *c)
{
	uint32_t n = c->mask ? (c->mask + 1) * 2 : 4096, i, j;
	struct name_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; c->mask && i <= c->mask; i++) {
		if (!c->slots[i].str_off)
			continue;
		for (j = name_slot__at(n - 1, c->slots[i].str_off);
		     slots[j].str_off; j = (j + 1) & (n - 1))
			;
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->mask = n - 1;
	return 0;
}

/*
 * Adds @s to the BTF's strings and remembers its offset in the slots
 * under @key.  Without memory the name is only not remembered.
 */
static int name_cache__put(struct name_cache *c, struct btf *btf,
			   const char *s, uint32_t key)
{
	int off = btf__add_str(btf, s);
	uint32_t i;

	if (off < 0 || ((c->nr + 1) * 2 > c->mask + 1 && name_cache__grow(c)))
		return off;
	for (i = name_slot__at(c->mask, key); c->slots[i].str_off;
	     i = (i + 1) & c->mask)
		;
	c->slots[i].str_off = key;
	c->slots[i].off = off;
	c->nr++;
	return off;
}

/*
 * Looks @s up in the slots under @key, and adds it there if new.  With
 * @by_content a key is a hash, so each slot of it is compared with @s,
 * and equal hashes of unequal names are slots of their own; without, a
 * key is an offset in .debug_str, which is the name.
 */
static inline int name_cache__slots(struct name_cache *c, struct btf *btf,
				    const char *s, uint32_t key,
				    bool by_content)
{
	uint32_t i;

	for (i = name_slot__at(c->mask, key); c->mask && c->slots[i].str_off;
	     i = (i + 1) & c->mask)
		if (c->slots[i].str_off == key &&
		    (!by_content ||
		     !strcmp(btf__str_by_offset(btf, c->slots[i].off), s)))
			return c->slots[i].off;
	return *s ? name_cache__put(c, btf, s, key) : 0;
}

/*
 * Looks S up by its address.  The string is cold in the cache, so a hit
 * does not read it.
 */
static int name_cache__by_address(struct name_cache *c, struct btf *btf,
				  const char *s)
{
	uint64_t key = (uintptr_t)s;
	uint32_t off;
	int ret;

	if (u32_map__find(&c->map, key, &off))
		return off;
	if (!*s)
		return 0;
	/* A failed u32_map__add() only leaves the name out of the cache. */
	ret = btf__add_str(btf, s);
	if (ret >= 0)
		u32_map__add(&c->map, key, ret);
	return ret;
}

int name_cache__off(struct name_cache *c, struct btf *btf, const char *s)
{
	if (!s)
		return 0;
	/* 32 bits of the hash, | 1: 0 is a free slot. */
	if (c->by_content)
		return *s ? name_cache__slots(c, btf, s, hash_str32(s) | 1,
					      true) : 0;
	if (c->str && s >= c->str && s < c->str + c->str_size)
		return name_cache__slots(c, btf, s, s - c->str + 1, false);
	return name_cache__by_address(c, btf, s);
}

/* Frees the map and leaves C empty, keyed as before, for another BTF. */
void name_cache__free(struct name_cache *c)
{
	u32_map__free(&c->map);
	free(c->slots);
	name_cache__init(c, c->by_content, c->str, c->str_size);
}
