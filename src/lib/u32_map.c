// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hash.h"
#include "lib/u32_map.h"
#include "lib/zalloc.h"

/* The first slot to probe for KEY in a table of MASK + 1 slots. */
static size_t u32_map__slot(size_t mask, uint64_t key)
{
	return hash_int(key) & mask;
}

const struct u32_map_slot *u32_map__next(const struct u32_map *m, uint64_t key,
					 const struct u32_map_slot *prev)
{
	size_t i;

	if (!m->mask)
		return NULL;
	/* Probing goes on after PREV; a free slot ends the chain. */
	i = prev ? ((size_t)(prev - m->slots) + 1) & m->mask :
		   u32_map__slot(m->mask, key);
	for (; m->slots[i].key; i = (i + 1) & m->mask)
		if (m->slots[i].key == key)
			return &m->slots[i];
	return NULL;
}

bool u32_map__find(const struct u32_map *m, uint64_t key, uint32_t *val)
{
	const struct u32_map_slot *s = u32_map__next(m, key, NULL);

	if (s)
		*val = s->val;
	return s;
}

/*
 * Makes the table 4 times bigger (256 slots at first) and puts every key
 * in again, since a key's first slot depends on the mask.  Returns 0 or
 * -ENOMEM, leaving the map as it was.
 */
static int u32_map__grow(struct u32_map *m)
{
	size_t n = m->mask ? (m->mask + 1) * 4 : 256, i, j;
	struct u32_map_slot *slots = zalloc(n, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (i = 0; m->mask && i <= m->mask; i++) {
		if (!m->slots[i].key)
			continue;
		for (j = u32_map__slot(n - 1, m->slots[i].key); slots[j].key;
		     j = (j + 1) & (n - 1))
			;
		slots[j] = m->slots[i];
	}
	free(m->slots);
	m->slots = slots;
	m->mask = n - 1;
	return 0;
}

int u32_map__add(struct u32_map *m, uint64_t key, uint32_t val)
{
	size_t i;

	/*
	 * The table is kept at most half full, so that probe chains stay
	 * short and a free slot always ends them.
	 */
	if (2 * (m->nr + 1) > m->mask + 1 && u32_map__grow(m))
		return -ENOMEM;
	for (i = u32_map__slot(m->mask, key); m->slots[i].key;
	     i = (i + 1) & m->mask)
		;
	m->slots[i].key = key;
	m->slots[i].val = val;
	m->nr++;
	return 0;
}

void u32_map__clear(struct u32_map *m)
{
	if (m->mask)
		memset(m->slots, 0, (m->mask + 1) * sizeof(*m->slots));
	m->nr = 0;
}

void u32_map__free(struct u32_map *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}
