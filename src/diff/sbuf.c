// SPDX-License-Identifier: GPL-2.0-only
/* This file implements a growing string with a sticky error (sbuf.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/grow.h"
#include "diff/sbuf.h"

/*
 * sbuf__reserve() makes room for @extra more bytes and the NUL, and keeps
 * a fresh buffer a valid empty string.  Both checks against SBUF_MAX keep
 * the sum from overflowing.
 */
void sbuf__reserve(struct sbuf *b, size_t extra)
{
	bool fresh = !b->s;

	if (b->err)
		return;
	if (extra > SBUF_MAX || b->len + extra > SBUF_MAX) {
		b->err = -E2BIG;
		return;
	}
	if (grow_array((void **)&b->s, &b->cap, b->len + extra + 1, 1, 64)) {
		b->err = -ENOMEM;
		return;
	}
	if (fresh)
		b->s[0] = '\0';
}

void sbuf__addn(struct sbuf *b, const char *s, size_t n)
{
	sbuf__reserve(b, n);
	if (b->err)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbuf__add(struct sbuf *b, const char *s)
{
	sbuf__addn(b, s, strlen(s));
}

void sbuf__addc(struct sbuf *b, char c)
{
	sbuf__addn(b, &c, 1);
}

void sbuf__addf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[128];	/* Only numbers and short words are formatted. */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	sbuf__addn(b, tmp, n);
}

void sbuf__add_sb(struct sbuf *b, const struct sbuf *o)
{
	if (o->err && !b->err)
		b->err = o->err;
	if (o->len)
		sbuf__addn(b, o->s, o->len);
}

void sbuf__prepend(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	sbuf__reserve(b, n);
	if (b->err)
		return;
	memmove(b->s + n, b->s, b->len + 1);
	memcpy(b->s, s, n);
	b->len += n;
}

/*
 * sbuf__add_name() appends a clean name in one piece, and otherwise goes
 * byte by byte, replacing control bytes.
 */
void sbuf__add_name(struct sbuf *b, const char *name)
{
	const char *p;

	for (p = name; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			break;
	}
	if (!*p) {
		sbuf__addn(b, name, p - name);
		return;
	}
	for (p = name; *p; p++)
		sbuf__addc(b, ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p);
}

void sbuf__free(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

char *sbuf__take(struct sbuf *b, int *err)
{
	char *s;

	/* Reserving nothing makes an empty sbuf an empty string, not NULL. */
	sbuf__reserve(b, 0);
	if (b->err) {
		if (!*err)
			*err = b->err;
		sbuf__free(b);
		return NULL;
	}
	s = b->s;
	memset(b, 0, sizeof(*b));
	return s;
}
