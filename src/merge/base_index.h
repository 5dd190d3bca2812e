/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A base BTF (vmlinux's) indexed for split dedup (btf_dedup.h): its
 * dedup candidates by shallow hash (dedup_hash.h), its structs and unions
 * by name, and its strings.  It is read-only once made, and all workers
 * share it.
 */
#ifndef DWARF2BTF_BASE_INDEX_H
#define DWARF2BTF_BASE_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#include "merge/id_chains.h"

struct btf_view;

/*
 * libbpf's dedup table is a hash map (hashmap.c) whose buckets are lists:
 * a type becomes a candidate at the head of its list, and before an entry
 * would fill the map over 3/4 (and before the first) the map doubles,
 * moving every list head first into its new bucket, which reverses it.
 * Which of two candidates of one hash comes first depends on that: on the
 * parity of the growths before each was added and of those since (see
 * btf_dedup.c).  It matters where a base holds equal types (Linux 7.x's
 * resolve_btfids adds function prototypes after pahole's dedup).
 */
struct libbpf_map_sim {
	uint64_t sz, cap;	/* The entries and the buckets. */
	uint32_t growths;
};

/*
 * Adds one entry, growing first as libbpf's hashmap_needs_to_grow() says
 * (empty, or over 3/4 full after the add; the first size is 4), and
 * returns the parity of the growths before it.
 */
static inline unsigned int libbpf_map_sim__add(struct libbpf_map_sim *m)
{
	if (m->cap == 0 || (m->sz + 1) * 4 / 3 > m->cap) {
		m->cap = m->cap ? m->cap * 2 : 4;
		m->growths++;
	}
	m->sz++;
	return m->growths & 1;
}

/*
 * For bases of up to 2^32 types, libbpf's map grows fewer times than
 * this, so grow_id[] never runs out.
 */
#define BASE_MAX_GROWTHS	40

struct base_index {
	const struct btf_view *view;	/* The base, read in place. */
	uint32_t nr;		/* The base's btf__type_cnt(). */
	struct id_chains types;	/* Dedup candidates by shallow hash. */
	struct id_chains names;	/* Structs and unions by name. */
	/*
	 * libbpf's table once it holds the base's candidates, and the ids
	 * before which it grew: the parity of a base candidate is that of the
	 * number of those up to its id.
	 */
	struct libbpf_map_sim sim;
	uint32_t nr_growths;
	uint32_t grow_id[BASE_MAX_GROWTHS];
	/*
	 * Every string of the base: the view's section, and a table of
	 * offset + 1 by the string's hash (0 marks a free slot).
	 */
	const char *strs;
	uint32_t str_len;
	uint32_t *str_slots;
	uint32_t str_mask;
	/*
	 * An index read from the cache (cache/base_cache.c) is this
	 * mapping, and the arrays point into it.
	 */
	void *map;
	size_t map_len;
	bool map_borrowed;	/* Not ours to unmap (tests, fuzzing). */
};

/* The parity of the growths of libbpf's table before base id ID was added. */
static inline unsigned int base_index__parity(const struct base_index *idx,
					      uint32_t id)
{
	unsigned int n = 0;

	while (n < idx->nr_growths && idx->grow_id[n] <= id)
		n++;
	return n & 1;
}

/* The offset of string S in the base, or BASE_STR_NONE. */
#define BASE_STR_NONE	UINT32_MAX
uint32_t base_index__str_off(const struct base_index *idx, const char *s);

/* Indexes BASE into a new *OUT; 0, or -errno with *OUT NULL. */
int base_index__new(const struct btf_view *base, struct base_index **out);
/* Frees IDX, made or read from the cache; NULL is allowed. */
void base_index__free(struct base_index *idx);

#endif /* DWARF2BTF_BASE_INDEX_H */
