// SPDX-License-Identifier: GPL-2.0-only
#include <stdlib.h>
#include <string.h>

#include "lib/str_arena.h"

/*
 * A CU has a few hundred short inline names, so chunks start small and
 * double up to CHUNK_MAX.
 */
#define CHUNK_MIN	512
#define CHUNK_MAX	(64 * 1024)

/* One allocation of strings; chunks never move, so copies stay valid. */
struct str_chunk {
	struct str_chunk *next;
	size_t used, cap;
	char data[];
};

/*
 * Copies the @n bytes of @s and a NUL into the head chunk, or, when they
 * do not fit there, into a new head chunk: CHUNK_MIN bytes at first, then
 * twice the last one's size while that is below CHUNK_MAX, else
 * CHUNK_MAX, and at least as long as the copy.
 */
const char *str_arena__dupn(struct str_arena *a, const char *s, size_t n)
{
	size_t len = n + 1;
	struct str_chunk *c = a->head;
	char *p;

	if (!c || c->cap - c->used < len) {
		size_t cap = c ? (c->cap < CHUNK_MAX ? c->cap * 2 : CHUNK_MAX) :
				 CHUNK_MIN;

		if (cap < len)
			cap = len;
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->used = 0;
		c->cap = cap;
		c->next = a->head;
		a->head = c;
	}
	p = c->data + c->used;
	memcpy(p, s, n);
	p[n] = '\0';
	c->used += len;
	return p;
}

const char *str_arena__dup(struct str_arena *a, const char *s)
{
	return str_arena__dupn(a, s, strlen(s));
}

const char *str_arena__copy(struct str_arena *a, const char *p, size_t len)
{
	struct str_chunk *c = malloc(sizeof(*c) + len);

	if (!c)
		return NULL;
	/*
	 * The chunk is full, and it goes after the head, so that the head's
	 * free room stays usable for later dups.
	 */
	c->used = c->cap = len;
	memcpy(c->data, p, len);
	if (a->head) {
		c->next = a->head->next;
		a->head->next = c;
	} else {
		c->next = NULL;
		a->head = c;
	}
	return c->data;
}

void str_arena__splice(struct str_arena *to, struct str_arena *from)
{
	struct str_chunk *c = from->head;

	if (!c)
		return;
	while (c->next)
		c = c->next;
	/* FROM's newest chunk goes to the head, since it may have room. */
	c->next = to->head;
	to->head = from->head;
	from->head = NULL;
}

void str_arena__free(struct str_arena *a)
{
	struct str_chunk *c = a->head, *next;

	for (; c; c = next) {
		next = c->next;
		free(c);
	}
	a->head = NULL;
}
