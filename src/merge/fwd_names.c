// SPDX-License-Identifier: GPL-2.0-only
/* Declarations a batch may not decide alone (fwd_names.h). */
#include <bpf/btf.h>

#include "lib/key_set.h"
#include "merge/fwd_names.h"

uint64_t fwd_names__key(const struct btf *btf, const struct btf_type *t)
{
	return fwd_names__key_of(btf__name_by_offset(btf, t->name_off), t);
}

uint64_t fwd_names__key_of(const char *s, const struct btf_type *t)
{
	/*
	 * A FWD stands for a struct or a union, so both share one key; a
	 * declared-only enum is an enum, so enums get another.
	 */
	return key_set__name_key(s, btf_is_any_enum(t));
}

/*
 * Is T a definition a FWD or a declared-only enum could stand for: a named
 * struct or union, or a named enum with values?
 */
static bool is_definition(const struct btf_type *t)
{
	if (!t->name_off)
		return false;
	if (btf_is_composite(t))
		return true;
	return btf_is_any_enum(t) && btf_vlen(t);
}

/*
 * Collects the keys of OUT's definitions whose names a batch resolved;
 * a key collected twice is a name with two definitions, a conflict.
 */
int fwd_names__conflicts(struct key_set *resolved, const struct btf *out,
			 struct key_set *conflicts)
{

	struct key_set defs = { 0 };
	uint32_t id, n = btf__type_cnt(out);
	int err = 0;

	conflicts->nr = 0;
	if (!resolved->nr)
		return 0;
	if (!resolved->sorted)
		key_set__sort(resolved);
	for (id = 1; !err && id < n; id++) {
		const struct btf_type *t = btf__type_by_id(out, id);
		uint64_t key;

		if (!is_definition(t))
			continue;
		key = fwd_names__key(out, t);
		if (key_set__has(resolved, key))
			err = key_set__add(&defs, key);
	}
	if (!err)
		err = key_set__repeated(&defs, conflicts);
	key_set__free(&defs);
	return err ? err : (int)conflicts->nr;
}
