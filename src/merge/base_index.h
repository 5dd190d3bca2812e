/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A base BTF (vmlinux's) indexed for split dedup (split_dedup.h): its
 * dedup candidates by shallow hash (dedup_hash.h), its structs and unions
 * by name, and its strings.  Read-only once made: shared by all workers.
 */
#ifndef DWARF2BTF_BASE_INDEX_H
#define DWARF2BTF_BASE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "merge/id_chains.h"

struct btf;

struct base_index {
	const struct btf *btf;
	uint32_t nr;		/* btf__type_cnt() */
	struct id_chains types;	/* dedup candidates, by shallow hash */
	struct id_chains names;	/* structs and unions, by name */
	/* every string of the base: offset + 1 by hash of the string */
	char *strs;
	uint32_t str_len;
	uint32_t *str_slots;
	uint32_t str_mask;
	/* read from the cache (base_cache.c): the arrays point into this */
	void *map;
	size_t map_len;
	bool map_borrowed;	/* not ours to unmap (tests, fuzzing) */
};

/* The offset of string S in the base, or BASE_STR_NONE. */
#define BASE_STR_NONE	UINT32_MAX
uint32_t base_index__str_off(const struct base_index *idx, const char *s);

int base_index__new(const struct btf *base, struct base_index **out);
void base_index__free(struct base_index *idx);

#endif /* DWARF2BTF_BASE_INDEX_H */
