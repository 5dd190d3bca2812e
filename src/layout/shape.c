// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shapes of structs and unions (shape.h): sorting, hashing, comparing.
 */
#include <stdlib.h>
#include <string.h>

#include "layout/shape.h"
#include "lib/hash.h"

/*
 * Orders by offset, then by size: SHAPE_SIZE_ANY, the largest value,
 * comes last at its offset, after the sizes that are known.
 */
static int member_cmp(const void *a, const void *b)
{
	const struct shape_member *x = a, *y = b;

	if (x->bit_off != y->bit_off)
		return x->bit_off < y->bit_off ? -1 : 1;
	if (x->bit_size != y->bit_size)
		return x->bit_size < y->bit_size ? -1 : 1;
	return 0;
}

void shape__sort(struct shape *s)
{
	size_t i;

	/* Most structs list their members in offset order already. */
	for (i = 1; i < s->nr; i++)
		if (member_cmp(&s->m[i - 1], &s->m[i]) > 0)
			break;
	if (i < s->nr)
		qsort(s->m, s->nr, sizeof(*s->m), member_cmp);
}

uint64_t shape__outline_hash(const struct shape *s)
{
	uint64_t h = hash_mum(s->kind + 1, 0x9e3779b97f4a7c15ull);
	size_t i;

	h = hash_mum(h ^ s->size, 0xc2b2ae3d27d4eb4full);
	h = hash_mum(h ^ s->nr, 0x165667b19e3779f9ull);
	for (i = 0; i < s->nr; i++)
		h = hash_mum(h ^ s->m[i].bit_off, 0xd6e8feb86659fd93ull);
	return h;
}

uint64_t shape__hash(const struct shape *s, uint64_t salt)
{
	uint64_t h = shape__outline_hash(s) ^ salt;
	size_t i;

	h = hash_mum(h, 0x9e3779b97f4a7c15ull) ^ hash_str(s->name);
	for (i = 0; i < s->nr; i++)
		h = hash_mum(h ^ s->m[i].bit_size, 0xc2b2ae3d27d4eb4full);
	return h;
}

bool shape__equal(const struct shape *a, const struct shape *b)
{
	size_t i;

	if (a->kind != b->kind || a->size != b->size || a->nr != b->nr ||
	    strcmp(a->name, b->name))
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->m[i].bit_off != b->m[i].bit_off ||
		    a->m[i].bit_size != b->m[i].bit_size)
			return false;
	return true;
}

/*
 * Do the members [@i, @j) of @d and @b, all at one offset and sorted by
 * size, have the same sizes, each SHAPE_SIZE_ANY of @d standing for any
 * one size?  @d's known sizes must all be among @b's; its wildcards, last
 * in its order, take the rest.
 */
static bool group_match(const struct shape_member *d,
			const struct shape_member *b, size_t n)
{
	size_t i = 0, k = 0, spare = 0;

	for (; i < n && d[i].bit_size != SHAPE_SIZE_ANY; i++) {
		while (k < n && b[k].bit_size < d[i].bit_size) {
			k++;
			spare++;
		}
		if (k == n || b[k].bit_size != d[i].bit_size)
			return false;
		k++;
	}
	/* The wildcards left, n - i, take the sizes of @b not taken. */
	return n - i == spare + (n - k);
}

bool shape__match(const struct shape *d, const struct shape *b)
{
	size_t i, j;

	if (d->kind != b->kind || d->size != b->size || d->nr != b->nr)
		return false;
	for (i = 0; i < d->nr; i = j) {
		for (j = i; j < d->nr && d->m[j].bit_off == d->m[i].bit_off; j++)
			if (b->m[j].bit_off != d->m[i].bit_off)
				return false;
		if (j < d->nr && b->m[j].bit_off == d->m[i].bit_off)
			return false;
		if (!group_match(d->m + i, b->m + i, j - i))
			return false;
	}
	return true;
}

size_t shape__first_diff(const struct shape *d, const struct shape *b)
{
	size_t i, n = d->nr < b->nr ? d->nr : b->nr;

	for (i = 0; i < n; i++)
		if (d->m[i].bit_off != b->m[i].bit_off ||
		    (d->m[i].bit_size != SHAPE_SIZE_ANY &&
		     d->m[i].bit_size != b->m[i].bit_size))
			return i;
	return d->nr != b->nr ? n : SIZE_MAX;
}
