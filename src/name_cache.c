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
	size_t n = c->mask ? (c->mask + 1) * 2 : 1024, i, j;
	const char **keys = calloc(n, sizeof(*keys));
	uint32_t *offs = malloc(n * sizeof(*offs));

	if (!keys || !offs) {
		free(keys);
		free(offs);
		return -ENOMEM;
	}
	for (i = 0; c->mask && i <= c->mask; i++) {
		if (!c->keys[i])
			continue;
		for (j = slot_of(c->keys[i], n - 1); keys[j]; j = (j + 1) & (n - 1))
			;
		keys[j] = c->keys[i];
		offs[j] = c->offs[i];
	}
	free(c->keys);
	free(c->offs);
	c->keys = keys;
	c->offs = offs;
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
		for (i = slot_of(s, c->mask); c->keys[i]; i = (i + 1) & c->mask)
			if (c->keys[i] == s)
				return c->offs[i];
	}
	off = *s ? btf__add_str(btf, s) : 0;
	if (off < 0)
		return off;
	/* at most half full */
	if (2 * (c->nr + 1) > c->mask + 1 && name_cache__grow(c))
		return off;	/* still right, only not remembered */
	for (i = slot_of(s, c->mask); c->keys[i]; i = (i + 1) & c->mask)
		;
	c->keys[i] = s;
	c->offs[i] = off;
	c->nr++;
	return off;
}

void name_cache__free(struct name_cache *c)
{
	free(c->keys);
	free(c->offs);
	c->keys = NULL;
	c->offs = NULL;
	c->mask = c->nr = 0;
}
