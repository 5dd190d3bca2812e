/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Type ids chained by hash bucket, the latest added first; a hash may
 * hold many ids.  The ids run from @first on, at most @nr of them
 * (id_chains__init()).  Each id is added at most once, since its chain
 * link is stored per id.
 */
#ifndef DWARF2BTF_ID_CHAINS_H
#define DWARF2BTF_ID_CHAINS_H

#include <stdint.h>

struct id_chains {
	uint32_t *head;		/* per bucket: the latest id, 0 for none */
	uint32_t *next;		/* per id - first: the next id in its bucket */
	uint64_t *hash;		/* per id - first: its full hash */
	uint32_t mask;
	uint32_t first;
	uint32_t cap;		/* entries in next and hash */
	uint32_t nr_buckets;
};

/* Reuses the memory of an earlier init.  Returns 0 or -ENOMEM. */
int id_chains__init(struct id_chains *c, uint32_t first, uint32_t nr);
void id_chains__free(struct id_chains *c);

static inline void id_chains__add(struct id_chains *c, uint32_t id, uint64_t h)
{
	uint32_t b = h & c->mask;

	c->next[id - c->first] = c->head[b];
	c->hash[id - c->first] = h;
	c->head[b] = id;
}

/*
 * Returns the first id with hash H after ID (ID 0 starts at the head), or
 * 0 at the end.  Ids of other hashes in the same bucket are skipped.
 */

static inline uint32_t id_chains__next(const struct id_chains *c,
				       uint64_t h, uint32_t id)
{
	id = id ? c->next[id - c->first] : c->head[h & c->mask];
	while (id && c->hash[id - c->first] != h)
		id = c->next[id - c->first];
	return id;
}

#endif /* DWARF2BTF_ID_CHAINS_H */
