/* SPDX-License-Identifier: GPL-2.0-only */
/* LEB128 numbers of DWARF, read within bounds. */
#ifndef DWARF2BTF_LEB128_H
#define DWARF2BTF_LEB128_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Reads a LEB128 number (DWARF 5, section 7.6) at *@p, not past @end,
 * sign-extended when @is_signed, and moves *@p past it.  Returns false if
 * it runs out or overflows 64 bits.
 */
static inline bool leb128_read(const unsigned char **p,
			       const unsigned char *end, bool is_signed,
			       uint64_t *v)
{
	unsigned int shift = 0;
	uint64_t r = 0;

	/* Most numbers take one byte; bit 6 is then a signed one's sign. */
	if (*p < end && **p < 0x80) {
		r = *(*p)++;
		*v = is_signed && (r & 0x40) ? r | ~0x7full : r;
		return true;
	}
	while (*p < end) {
		unsigned char b = *(*p)++;

		if (shift < 64)
			r |= (uint64_t)(b & 0x7f) << shift;
		else if (b & 0x7f)
			return false;
		shift += 7;
		if (!(b & 0x80)) {
			if (is_signed && shift < 64 && (b & 0x40))
				r |= ~0ull << shift;
			*v = r;
			return true;
		}
	}
	return false;
}

/* Reads an unsigned LEB128 (ULEB128), as leb128_read(). */
static inline bool uleb_read(const unsigned char **p, const unsigned char *end,
			     uint64_t *v)
{
	return leb128_read(p, end, false, v);
}

/* Reads a signed LEB128 (SLEB128), as leb128_read(). */
static inline bool sleb_read(const unsigned char **p, const unsigned char *end,
			     int64_t *v)
{
	return leb128_read(p, end, true, (uint64_t *)v);
}

#endif
