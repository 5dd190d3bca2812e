// SPDX-License-Identifier: GPL-2.0-only
/*
 * The index of a base BTF (base_index.h), built once and shared read-only
 * by every module's split dedup.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <bpf/btf.h>

#include "lib/btf_view.h"

#include "merge/base_index.h"
#include "merge/dedup_hash.h"
#include "lib/hash.h"
#include "lib/zalloc.h"

/*
 * Indexes the base's string section, so that a module's name is compared
 * with a base name as one offset with another (btf_dedup.c's bd__xlat())
 * rather than by strcmp() at every comparison.  Of equal strings, the
 * first in the section is indexed.  Returns 0 or -ENOMEM.  The table is not a u32_map: it is sized
 * once from the number of strings, its slots are 4 bytes (offset + 1),
 * and base_cache.c writes them to the cache as they are.  Through u32_map
 * (16-byte slots grown by 4, a lookup before each add) a run without the
 * cache took 17% more instructions on veth.ko and 0.85% more on xfs.ko
 * over vmlinux (callgrind), most of it building the index.
 */
static int base_index__strings(struct base_index *idx)
{
	const char *p, *end;
	uint32_t n = 0, nb = 16, i;

	/* The base's strings end in a NUL (btf_view.h). */
	idx->strs = idx->view->strs;
	idx->str_len = idx->view->str_len;
	end = idx->strs + idx->str_len;
	for (p = idx->strs; p < end; p += strnlen(p, end - p) + 1)
		n++;
	/* At most half full, and at most 2^31 slots of 4 bytes. */
	while (nb < 2 * (uint64_t)n && nb < (1u << 31))
		nb *= 2;
	idx->str_slots = zalloc(nb, sizeof(*idx->str_slots));
	if (!idx->str_slots)
		return -ENOMEM;
	idx->str_mask = nb - 1;
	for (p = idx->strs; p < end; p += strnlen(p, end - p) + 1) {
		if (p + strnlen(p, end - p) == end)
			break;	/* Not terminated, so not a string. */
		for (i = hash_str(p) & idx->str_mask; idx->str_slots[i];
		     i = (i + 1) & idx->str_mask)
			if (!strcmp(idx->strs + idx->str_slots[i] - 1, p))
				break;
		if (!idx->str_slots[i])
			idx->str_slots[i] = p - idx->strs + 1;
	}
	return 0;
}

/* Probes the table that base_index__strings() built; a slot is off + 1. */
uint32_t base_index__str_off(const struct base_index *idx,
				    const char *s)
{
	uint32_t i;

	for (i = hash_str(s) & idx->str_mask; idx->str_slots[i];
	     i = (i + 1) & idx->str_mask)
		if (!strcmp(idx->strs + idx->str_slots[i] - 1, s))
			return idx->str_slots[i] - 1;
	return BASE_STR_NONE;
}

/*
 * Builds the index of every type of BASE in id order, as libbpf's dedup
 * meets them, and simulates libbpf's table meanwhile to record the ids
 * before which it grows.  Returns 0 with the index in *OUT, or -errno
 * with *OUT NULL.
 */
int base_index__new(const struct btf_view *base, struct base_index **out)
{
	struct base_index *idx = calloc(1, sizeof(*idx));
	const struct dedup_strs strs = {
		.base = base->strs, .base_len = base->str_len,
	};
	uint32_t id;
	int err;

	*out = NULL;
	if (!idx)
		return -ENOMEM;
	idx->view = base;
	idx->nr = base->nr;
	err = id_chains__init(&idx->types, 0, idx->nr) ?:
	      id_chains__init(&idx->names, 0, idx->nr);
	if (err) {
		base_index__free(idx);
		return err;
	}
	/*
	 * The slots of ids never added are zeroed too, because the index
	 * may be written to the cache as it is.
	 */
	memset(idx->types.next, 0, idx->nr * sizeof(*idx->types.next));
	memset(idx->types.hash, 0, idx->nr * sizeof(*idx->types.hash));
	memset(idx->names.next, 0, idx->nr * sizeof(*idx->names.next));
	memset(idx->names.hash, 0, idx->nr * sizeof(*idx->names.hash));
	for (id = 1; id < idx->nr; id++) {
		const struct btf_type *t = btf_view__type(base, id);
		uint64_t h;

		if (dedup_hash__type(&strs, t, &h)) {
			uint32_t g = idx->sim.growths;

			id_chains__add(&idx->types, id, h);
			/*
			 * One entry of libbpf's table, as its
			 * btf_dedup_prep() adds the base's types, by id.
			 */
			libbpf_map_sim__add(&idx->sim);
			if (idx->sim.growths != g &&
			    idx->nr_growths < BASE_MAX_GROWTHS)
				idx->grow_id[idx->nr_growths++] = id;
		}
		if (btf_is_composite(t))
			id_chains__add(&idx->names, id, dedup_hash__name(&strs, t->name_off));
	}
	err = base_index__strings(idx);
	if (err) {
		base_index__free(idx);
		return err;
	}
	*out = idx;
	return 0;
}

/*
 * Frees IDX.  An index read from the cache lives in one mapping that its
 * arrays point into, so only that is unmapped (unless borrowed).
 */
void base_index__free(struct base_index *idx)
{
	if (!idx)
		return;
	if (idx->map) {
		if (!idx->map_borrowed)
			munmap(idx->map, idx->map_len);
		free(idx);
		return;
	}
	id_chains__free(&idx->types);
	id_chains__free(&idx->names);
	free(idx->str_slots);
	free(idx);
}
