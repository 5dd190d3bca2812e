// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>
#include <bpf/btf.h>

#include "lib/hash.h"
#include "cu/name_cache.h"

void name_cache__init(struct name_cache *c, bool by_content)
{
	memset(c, 0, sizeof(*c));
	c->by_content = by_content;
}

int name_cache__off(struct name_cache *c, struct btf *btf, const char *s)
{
	const struct u32_map_slot *slot = NULL;
	uint64_t key;
	uint32_t off;
	int err;

	if (!s || !*s)
		return 0;
	if (c->by_content) {
		key = hash_str(s) | 1;	/* nonzero */
		while ((slot = u32_map__next(&c->map, key, slot)))
			if (!strcmp(btf__str_by_offset(btf, slot->val), s))
				return slot->val;
	} else {
		key = (uintptr_t)s;
		if (u32_map__find(&c->map, key, &off))
			return off;
	}
	err = btf__add_str(btf, s);
	if (err < 0)
		return err;
	u32_map__add(&c->map, key, err);
	return err;
}

void name_cache__free(struct name_cache *c)
{
	u32_map__free(&c->map);
	name_cache__init(c, c->by_content);
}
