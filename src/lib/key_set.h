/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A set of 64-bit keys: added in any order, then sorted once and looked up
 * by binary search.
 */
#ifndef DWARF2BTF_KEY_SET_H
#define DWARF2BTF_KEY_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/hash.h"

struct key_set {
	uint64_t *keys;
	size_t nr, cap;
	bool sorted;		/* Sorted and unique, by key_set__sort(). */
};

/* Adds @key (S is then unsorted); 0 or -ENOMEM. */
int key_set__add(struct key_set *s, uint64_t key);
/* Adds every key of FROM (S is then unsorted); 0 or -ENOMEM. */
int key_set__add_all(struct key_set *s, const struct key_set *from);
/* Sorts S and drops its duplicates, for key_set__has(). */
void key_set__sort(struct key_set *s);
/* S must be sorted. */
bool key_set__has(const struct key_set *s, uint64_t key);
/*
 * Appends each key that S holds more than once to OUT, once; S is sorted
 * on the way but keeps its duplicates.  OUT should be empty: then it is
 * sorted and unique after.  Returns 0 or -ENOMEM.
 */
int key_set__repeated(struct key_set *s, struct key_set *out);
void key_set__free(struct key_set *s);

/*
 * The key of a declared name (fwd_names.h), the one formula for the
 * batches' dedups and the types' keys (cu_keys.c) alike: name @s's
 * hash, and its kind, which a struct and a union share (@is_enum
 * false) and an enum does not.
 */
static inline uint64_t key_set__name_key(const char *s, bool is_enum)
{
	return hash_str(s ? s : "") * 31 + (is_enum ? 2 : 1);
}

#endif
