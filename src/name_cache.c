// SPDX-License-Identifier: GPL-2.0-only
#include <bpf/btf.h>

#include "name_cache.h"

int name_cache__off(struct name_cache *c, struct btf *btf, const char *s)
{
	uint32_t off;
	int err;

	if (!s)
		return 0;
	if (u32_map__find(&c->map, (uintptr_t)s, &off))
		return off;
	err = *s ? btf__add_str(btf, s) : 0;
	if (err < 0)
		return err;
	u32_map__add(&c->map, (uintptr_t)s, err);
	return err;
}

void name_cache__free(struct name_cache *c)
{
	u32_map__free(&c->map);
}
