// SPDX-License-Identifier: GPL-2.0-only
/* This file keeps the base index in the cache directory (base_cache.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/hash.h"
#include "cache/base_cache.h"
#include "lib/btf_view.h"

/*
 * part_sizes() computes the bytes of each part from the header's counts:
 * heads and nexts are u32 ids, hashes are u64.  The strings are the
 * base's own, which the slots point into.
 */
static void part_sizes(const struct base_cache_hdr *h, size_t *len)
{
	len[PART_TYPES_HEAD] = (size_t)h->types_nb * 4;
	len[PART_TYPES_NEXT] = (size_t)h->nr * 4;
	len[PART_TYPES_HASH] = (size_t)h->nr * 8;
	len[PART_NAMES_HEAD] = (size_t)h->names_nb * 4;
	len[PART_NAMES_NEXT] = (size_t)h->nr * 4;
	len[PART_NAMES_HASH] = (size_t)h->nr * 8;
	len[PART_STR_SLOTS] = (size_t)h->str_nb * 4;
}

/*
 * Bucket counts must be powers of two of at least 16, because lookups
 * mask the hash with the count minus one.
 */
static bool pow2(uint32_t n)
{
	return n >= 16 && !(n & (n - 1));
}

/*
 * Chains built by id_chains__add() in id order point down only, so an
 * entry whose chains do not is rejected: chains that loop would hang
 * every lookup.
 */
static bool chains_descend(const uint32_t *next, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (next[i] >= i && next[i])
			return false;
	return true;
}

/*
 * ids_in_range() tells whether every value of a chain table is an id
 * below NR (0 meaning none).
 */
static bool ids_in_range(const uint32_t *v, size_t n, uint32_t nr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] >= nr)
			return false;
	return true;
}

/*
 * str_slots_valid() tells whether every slot of the strings' table holds
 * an offset + 1 below LIMIT (0 meaning empty), and one slot at least is
 * empty: probing for a string the base lacks ends at an empty slot, and
 * would never end in a full table (base_index__strings() leaves half of
 * it empty at least).
 */
static bool str_slots_valid(const uint32_t *v, size_t n, uint32_t limit)
{
	bool empty = false;
	size_t i;

	for (i = 0; i < n; i++) {
		if (v[i] >= limit)
			return false;
		empty |= !v[i];
	}
	return empty;
}

/*
 * growths_valid() checks the growths of libbpf's table as recorded: there
 * must be as many as the ids where they happened, the ids ascending and
 * below NR, and the simulated table must match the one that the same
 * number of entries makes (base_index.h).
 */
static bool growths_valid(const struct base_cache_hdr *h)
{
	struct libbpf_map_sim sim = { 0 };
	uint32_t i;

	if (h->nr_growths > BASE_MAX_GROWTHS ||
	    h->nr_growths != h->sim_growths || h->sim_sz >= h->nr)
		return false;
	for (i = 0; i < h->nr_growths; i++)
		if (h->grow_id[i] >= h->nr ||
		    (i && h->grow_id[i] <= h->grow_id[i - 1]))
			return false;
	/* The same number of entries makes the same table. */
	while (sim.sz < h->sim_sz)
		libbpf_map_sim__add(&sim);
	return sim.cap == h->sim_cap && sim.growths == h->sim_growths;
}

/*
 * base_index__from_map() reads MAP (LEN bytes) as an entry for the base
 * of KEY and SIZE, and returns its index, which points into MAP, or NULL
 * when the entry does not check out.
 */
static struct base_index *base_index__from_map(const struct btf_view *base,
					       void *map, size_t len,
					       uint64_t key, uint64_t size,
					       bool check_sum)
{
	const struct base_cache_hdr *h = map;
	size_t plen[NR_PARTS];
	unsigned char *p = map;
	struct base_index *idx;
	const uint32_t *slots;
	int i;

	if (len < sizeof(*h) || memcmp(h->magic, BASE_CACHE_MAGIC, 8) ||
	    h->version != BASE_CACHE_VERSION || h->hdr_size != sizeof(*h) ||
	    h->key != key || h->base_size != size || h->file_size != len ||
	    h->nr != base->nr || h->str_len != base->str_len ||
	    !pow2(h->types_nb) || !pow2(h->names_nb) || !pow2(h->str_nb) ||
	    !growths_valid(h))
		return NULL;
	part_sizes(h, plen);
	for (i = 0; i < NR_PARTS; i++)
		if (h->off[i] % 8 || h->off[i] < sizeof(*h) ||
		    h->off[i] > len || plen[i] > len - h->off[i])
			return NULL;
	if (check_sum &&
	    hash_bytes(p + sizeof(*h), len - sizeof(*h)) != h->checksum)
		return NULL;
	/*
	 * A checksum only finds accidents, so everything that is read as an
	 * index is checked too.
	 */
	slots = (const uint32_t *)(p + h->off[PART_STR_SLOTS]);
	if (!ids_in_range((const uint32_t *)(p + h->off[PART_TYPES_HEAD]),
			  h->types_nb, h->nr) ||
	    !chains_descend((const uint32_t *)(p + h->off[PART_TYPES_NEXT]),
			    h->nr) ||
	    !ids_in_range((const uint32_t *)(p + h->off[PART_NAMES_HEAD]),
			  h->names_nb, h->nr) ||
	    !chains_descend((const uint32_t *)(p + h->off[PART_NAMES_NEXT]),
			    h->nr) ||
	    !str_slots_valid(slots, h->str_nb, h->str_len + 1))
		return NULL;
	idx = calloc(1, sizeof(*idx));
	if (!idx)
		return NULL;
	idx->view = base;
	idx->nr = h->nr;
	/*
	 * The mapping is read-only, which is safe because nothing adds to a
	 * base index once it is built.
	 */
	idx->types = (struct id_chains){
		.head = (uint32_t *)(p + h->off[PART_TYPES_HEAD]),
		.next = (uint32_t *)(p + h->off[PART_TYPES_NEXT]),
		.hash = (uint64_t *)(p + h->off[PART_TYPES_HASH]),
		.mask = h->types_nb - 1, .first = 0, .cap = h->nr,
		.nr_buckets = h->types_nb,
	};
	idx->names = (struct id_chains){
		.head = (uint32_t *)(p + h->off[PART_NAMES_HEAD]),
		.next = (uint32_t *)(p + h->off[PART_NAMES_NEXT]),
		.hash = (uint64_t *)(p + h->off[PART_NAMES_HASH]),
		.mask = h->names_nb - 1, .first = 0, .cap = h->nr,
		.nr_buckets = h->names_nb,
	};
	idx->strs = base->strs;
	idx->str_len = base->str_len;
	idx->str_slots = (uint32_t *)slots;
	idx->str_mask = h->str_nb - 1;
	idx->sim = (struct libbpf_map_sim){ h->sim_sz, h->sim_cap,
					    h->sim_growths };
	idx->nr_growths = h->nr_growths;
	memcpy(idx->grow_id, h->grow_id, sizeof(idx->grow_id));
	idx->map = map;
	idx->map_len = len;
	return idx;
}

/*
 * base_index__store() writes IDX to CACHE under NAME.  Failures are
 * ignored, because they only cost the next run time.
 */
static void base_index__store(const struct base_index *idx,
			      const struct cache_dir *cache, const char *name,
			      uint64_t key, uint64_t size)
{
	struct base_cache_hdr h = { .version = BASE_CACHE_VERSION };
	const void *parts[2];
	size_t lens[2], plen[NR_PARTS], at = sizeof(h);
	const void *src[NR_PARTS] = {
		idx->types.head, idx->types.next, idx->types.hash,
		idx->names.head, idx->names.next, idx->names.hash,
		idx->str_slots,
	};
	unsigned char *body;
	int i;

	memcpy(h.magic, BASE_CACHE_MAGIC, 8);
	h.hdr_size = sizeof(h);
	h.key = key;
	h.base_size = size;
	h.nr = idx->nr;
	h.types_nb = idx->types.nr_buckets;
	h.names_nb = idx->names.nr_buckets;
	h.str_len = idx->str_len;
	h.str_nb = idx->str_mask + 1;
	h.sim_sz = idx->sim.sz;
	h.sim_cap = idx->sim.cap;
	h.sim_growths = idx->sim.growths;
	h.nr_growths = idx->nr_growths;
	memcpy(h.grow_id, idx->grow_id, sizeof(h.grow_id));
	part_sizes(&h, plen);
	for (i = 0; i < NR_PARTS; i++) {
		h.off[i] = at;
		at += (plen[i] + 7) & ~(size_t)7;
	}
	h.file_size = at;
	/*
	 * The checksum covers the padding too, so the body is copied into one
	 * zeroed buffer.
	 */
	body = calloc(1, at - sizeof(h));
	if (!body)
		return;
	for (i = 0; i < NR_PARTS; i++)
		memcpy(body + h.off[i] - sizeof(h), src[i], plen[i]);
	h.checksum = hash_bytes(body, at - sizeof(h));
	parts[0] = &h;
	lens[0] = sizeof(h);
	parts[1] = body;
	lens[1] = at - sizeof(h);
	if (!cache_dir__store(cache, name, parts, lens, 2))
		cache_dir__trim(cache);
	free(body);
}

/* The key and size an entry of BASE is named and checked by. */
static uint64_t base_cache__key(const struct btf_view *base, uint64_t *size)
{
	*size = (uint64_t)base->types_len + base->str_len;
	return btf_view__hash(base);
}

/*
 * base_index__get() names the entry after the hash and size of the base's
 * types and strings, so that a different vmlinux never finds this one's
 * entry.
 */
int base_index__get(const struct btf_view *base, const struct cache_dir *cache,
		    struct base_index **out, bool *hit)
{
	uint64_t key, size;
	char name[64];
	void *map;
	size_t len;
	int err;

	if (hit)
		*hit = false;
	if (!cache || !cache->path)
		return base_index__new(base, out);
	key = base_cache__key(base, &size);
	snprintf(name, sizeof(name), "base-%016" PRIx64 "-%08" PRIx64, key,
		 size);
	if (!cache_dir__map(cache, name, &map, &len)) {
		*out = base_index__from_map(base, map, len, key, size, true);
		if (*out) {
			if (hit)
				*hit = true;
			return 0;
		}
		cache_dir__unmap(map, len);
	}
	err = base_index__new(base, out);
	if (!err)
		base_index__store(*out, cache, name, key, size);
	return err;
}

/*
 * base_cache__read() reads an entry as base_index__get() does, but the
 * index only borrows MAP, which the caller keeps.
 */
struct base_index *base_cache__read(const struct btf_view *base, void *map,
				    size_t len, bool check_sum)
{
	struct base_index *idx;
	uint64_t key, size;

	key = base_cache__key(base, &size);
	idx = base_index__from_map(base, map, len, key, size, check_sum);
	if (idx)
		idx->map_borrowed = true;
	return idx;
}
