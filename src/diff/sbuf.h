/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An sbuf is a growing string with a sticky error: after a failure (no
 * memory, or more than SBUF_MAX bytes) further appends are dropped and the
 * error stays, so a caller builds a whole text and checks once, at the
 * end.
 */
#ifndef DWARF2BTF_SBUF_H
#define DWARF2BTF_SBUF_H

#include <stddef.h>

/*
 * One string holds at most this many bytes, which bounds renderings that
 * would grow exponentially.
 */
#define SBUF_MAX	(16u << 20)

struct sbuf {
	char *s;
	size_t len;
	size_t cap;
	int err;	/* The sticky error: -ENOMEM or -E2BIG. */
};

void sbuf__reserve(struct sbuf *b, size_t extra);
void sbuf__addn(struct sbuf *b, const char *s, size_t n);
void sbuf__add(struct sbuf *b, const char *s);
void sbuf__addc(struct sbuf *b, char c);
/*
 * sbuf__addf() is for numbers and short words only: the result is cut at
 * 127 bytes.
 */
__attribute__((format(printf, 2, 3)))
void sbuf__addf(struct sbuf *b, const char *fmt, ...);
/* sbuf__add_sb() appends @o's text, and takes on its error. */
void sbuf__add_sb(struct sbuf *b, const struct sbuf *o);
void sbuf__prepend(struct sbuf *b, const char *s);
/*
 * sbuf__add_name() appends a name.  Names come from the file, so control
 * bytes become '?' to keep the output one item per line.
 */
void sbuf__add_name(struct sbuf *b, const char *name);
void sbuf__free(struct sbuf *b);
/*
 * sbuf__take() hands the string over to the caller; on error it returns
 * NULL and frees the string.
 */
char *sbuf__take(struct sbuf *b, int *err);

#endif /* DWARF2BTF_SBUF_H */
