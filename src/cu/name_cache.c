// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/hash.h"
#include "cu/name_cache.h"

void name_cache__init(struct name_cache *c, bool by_content)
{
	memset(c, 0, sizeof(*c));
	c->by_content = by_content;
}

/*
 * Adds S to the BTF's strings and remembers its offset under KEY.  A
 * failed u32_map__add() only leaves the name out of the cache.
 */
static int name_cache__add(struct name_cache *c, struct btf *btf,
			   const char *s, uint64_t key)
{
	int off = btf__add_str(btf, s);

	if (off >= 0)
		u32_map__add(&c->map, key, off);
	return off;
}

/*
 * Looks S up by its content: every entry of its hash is compared with S,
 * so that equal hashes of unequal names are entries of their own.
 */
static int name_cache__by_content(struct name_cache *c, struct btf *btf,
				  const char *s)
{
	const struct u32_map_slot *slot = NULL;
	uint64_t key;

	if (!*s)
		return 0;
	key = hash_str(s) | 1;	/* 0 is a free slot in a u32_map. */
	while ((slot = u32_map__next(&c->map, key, slot)))
		if (!strcmp(btf__str_by_offset(btf, slot->val), s))
			return slot->val;
	return name_cache__add(c, btf, s, key);
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

	if (u32_map__find(&c->map, key, &off))
		return off;
	return *s ? name_cache__add(c, btf, s, key) : 0;
}

int name_cache__off(struct name_cache *c, struct btf *btf, const char *s)
{
	if (!s)
		return 0;
	if (c->by_content)
		return name_cache__by_content(c, btf, s);
	return name_cache__by_address(c, btf, s);
}

/* Frees the map and leaves C empty, keyed as before, for another BTF. */
void name_cache__free(struct name_cache *c)
{
	u32_map__free(&c->map);
	name_cache__init(c, c->by_content);
}
