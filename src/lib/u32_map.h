/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A map from nonzero 64-bit keys (addresses, offsets + 1, hashes) to
 * 32-bit values: the hash table of the program, for caches on hot paths
 * and for indexes by content (four tables that must be more compact keep
 * their own form, each saying why: docs/design.md).  It uses open
 * addressing with key and value in one slot, so that a hit is one cache
 * miss, and grows by 4 so that rehashes are few.
 *
 * An index by content (strings, names) keys each entry by the content's
 * hash (nonzero: `| 1`) and walks the slots of that hash with
 * u32_map__next(), comparing the content of each: equal hashes of
 * unequal contents are then entries of their own.
 */
#ifndef DWARF2BTF_U32_MAP_H
#define DWARF2BTF_U32_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct u32_map_slot {
	uint64_t key;		/* 0 marks a free slot. */
	uint32_t val;
};

struct u32_map {
	struct u32_map_slot *slots;
	size_t mask;		/* The slot count - 1; 0 before any add. */
	size_t nr;
};

/* Stores the value of the first slot of @key in *@val; false if none. */
bool u32_map__find(const struct u32_map *m, uint64_t key, uint32_t *val);
/*
 * Returns every slot of @key in turn, for keys that are hashes: a NULL
 * @prev asks for the first, and NULL comes back after the last.
 */
const struct u32_map_slot *u32_map__next(const struct u32_map *m, uint64_t key,
					 const struct u32_map_slot *prev);
/*
 * Adds @key with @val.  It does not look for @key first (the caller has),
 * so a key may be added more than once.  Returns 0, or -ENOMEM when the
 * table cannot grow: a cache may ignore that (the key is only not
 * remembered), an index may not.
 */
int u32_map__add(struct u32_map *m, uint64_t key, uint32_t val);
/* Empties the map but keeps its slots, for reuse at the same size. */
void u32_map__clear(struct u32_map *m);
void u32_map__free(struct u32_map *m);

#endif
