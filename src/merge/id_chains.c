// SPDX-License-Identifier: GPL-2.0-only
/* Type ids chained by hash bucket (id_chains.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "merge/id_chains.h"

/*
 * Sizes C for NR ids from FIRST on, reusing its arrays when they are
 * large enough, and empties every bucket.  The buckets are a power of two
 * at least twice NR (16 at the least, 2^31 at the most), so that chains
 * stay short and a mask picks the bucket.
 */
int id_chains__init(struct id_chains *c, uint32_t first, uint32_t nr)
{
	uint32_t nb = 16;


	while (nb < 2 * (uint64_t)nr && nb < (1u << 31))
		nb *= 2;
	if (nr > c->cap) {
		free(c->next);
		free(c->hash);
		c->next = malloc(nr * sizeof(*c->next));
		c->hash = malloc(nr * sizeof(*c->hash));
		c->cap = c->next && c->hash ? nr : 0;
		if (!c->cap)
			return -ENOMEM;
	}
	if (nb > c->nr_buckets) {
		free(c->head);
		c->head = malloc(nb * sizeof(*c->head));
		c->nr_buckets = c->head ? nb : 0;
		if (!c->head)
			return -ENOMEM;
	}
	memset(c->head, 0, nb * sizeof(*c->head));
	c->mask = nb - 1;
	c->first = first;
	return 0;
}

void id_chains__free(struct id_chains *c)
{
	free(c->head);
	free(c->next);
	free(c->hash);
	memset(c, 0, sizeof(*c));
}
