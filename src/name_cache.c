// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <bpf/btf.h>

#include "name_cache.h"

static size_t slot_of(const char *s, size_t mask)
{
	return (size_t)(((uintptr_t)s * 0x9e3779b97f4a7c15ull) >> 20) & mask;
}

static int name_cache__grow(struct name_cache *c)
{
	/* few, cheap rehashes: each touches every slot at random */
	size_t n = c->mask ? (c->mask + 1) * 4 : 16384, i, j;
	struct name_cache_slot *slots = calloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; c->mask && i <= c->mask; i++) {
		if (!c->slots[i].key)
			continue;
		for (j = slot_of(c->slots[i].key, n - 1); slots[j].key;
		     j = (j + 1) & (n - 1))
			;
		slots[j] = c->slots[i];
	}
	free(c->slots);
	c->slots = slots;
	c->mask = n - 1;
	return 0;
}

int name_cache__off(struct name_cache *c, struct btf *btf, const char *s)
{
	size_t i;
	int off;

	if (!s)
		return 0;
	/* a hit must not touch the string: that memory is cold */
	if (c->mask) {
		for (i = slot_of(s, c->mask); c->slots[i].key;
		     i = (i + 1) & c->mask)
			if (c->slots[i].key == s)
				return c->slots[i].off;
	}
	off = *s ? btf__add_str(btf, s) : 0;
	if (off < 0)
		return off;
	/* at most half full */
	if (2 * (c->nr + 1) > c->mask + 1 && name_cache__grow(c))
		return off;	/* still right, only not remembered */
	for (i = slot_of(s, c->mask); c->slots[i].key; i = (i + 1) & c->mask)
		;
	c->slots[i].key = s;
	c->slots[i].off = off;
	c->nr++;
	return off;
}

void name_cache__free(struct name_cache *c)
{
	free(c->slots);
	c->slots = NULL;
	c->mask = c->nr = 0;
}
