// SPDX-License-Identifier: GPL-2.0-only
/* A set of 64-bit keys (key_set.h). */
#include <errno.h>
#include <stdlib.h>

#include "lib/grow.h"
#include "lib/key_set.h"

int key_set__add(struct key_set *s, uint64_t key)
{
	if (grow_array((void **)&s->keys, &s->cap, s->nr + 1,
		       sizeof(*s->keys), 64))
		return -ENOMEM;
	s->keys[s->nr++] = key;
	s->sorted = false;
	return 0;
}

int key_set__add_all(struct key_set *s, const struct key_set *from)
{
	size_t i;

	if (!from->nr)
		return 0;
	if (grow_array((void **)&s->keys, &s->cap, s->nr + from->nr,
		       sizeof(*s->keys), 64))
		return -ENOMEM;
	for (i = 0; i < from->nr; i++)
		s->keys[s->nr++] = from->keys[i];
	s->sorted = false;
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void key_set__sort(struct key_set *s)
{
	size_t i, k = 0;

	/* keys is NULL while the set is empty, and qsort() wants none. */
	if (s->nr)
		qsort(s->keys, s->nr, sizeof(*s->keys), key_cmp);
	for (i = 0; i < s->nr; i++)
		if (!k || s->keys[k - 1] != s->keys[i])
			s->keys[k++] = s->keys[i];
	s->nr = k;
	s->sorted = true;
}

bool key_set__has(const struct key_set *s, uint64_t key)
{
	return s->nr && bsearch(&key, s->keys, s->nr, sizeof(key), key_cmp);
}

void key_set__free(struct key_set *s)
{
	free(s->keys);
	s->keys = NULL;
	s->nr = s->cap = 0;
}

int key_set__repeated(struct key_set *s, struct key_set *out)
{
	size_t i;

	if (s->nr)
		qsort(s->keys, s->nr, sizeof(*s->keys), key_cmp);
	s->sorted = false;	/* Sorted, but not unique. */
	for (i = 1; i < s->nr; i++)
		if (s->keys[i] == s->keys[i - 1] &&
		    (!out->nr || out->keys[out->nr - 1] != s->keys[i]) &&
		    key_set__add(out, s->keys[i]))
			return -ENOMEM;
	out->sorted = true;
	return 0;
}
