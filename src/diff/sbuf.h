/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A growing string with a sticky error: after a failure (no memory, or
 * more than SBUF_MAX bytes) further appends are dropped and the error
 * stays, so a caller builds a whole text and checks once, at the end.
 */
#ifndef DWARF2BTF_SBUF_H
#define DWARF2BTF_SBUF_H

#include <stddef.h>

/* Bytes in one string: a bound against exponential renderings. */
#define SBUF_MAX	(16u << 20)

struct sbuf {
	char *s;
	size_t len;
	size_t cap;
	int err;	/* sticky: -ENOMEM or -E2BIG */
};

void sbuf__reserve(struct sbuf *b, size_t extra);
void sbuf__addn(struct sbuf *b, const char *s, size_t n);
void sbuf__add(struct sbuf *b, const char *s);
void sbuf__addc(struct sbuf *b, char c);
/* Only numbers and short words: the result is cut at 127 bytes. */
__attribute__((format(printf, 2, 3)))
void sbuf__addf(struct sbuf *b, const char *fmt, ...);
/* @o's text and its error. */
void sbuf__add_sb(struct sbuf *b, const struct sbuf *o);
void sbuf__prepend(struct sbuf *b, const char *s);
/* Names come from the file: control bytes become '?' in one-line output. */
void sbuf__add_name(struct sbuf *b, const char *name);
void sbuf__free(struct sbuf *b);
/* Hand the string over to the caller; NULL (and freed) on error. */
char *sbuf__take(struct sbuf *b, int *err);

#endif /* DWARF2BTF_SBUF_H */
