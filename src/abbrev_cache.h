/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef DWARF2BTF_ABBREV_CACHE_H
#define DWARF2BTF_ABBREV_CACHE_H

#include <elfutils/libdw.h>

/*
 * The tag of a DIE fresh from dwarf_child() or dwarf_siblingof().
 *
 * libdw decodes a DIE's abbreviation on first use by looking its code up
 * in the CU's concurrent hash table, which takes and drops a read-write
 * lock every time: two atomic operations per DIE, 6% of the time spent on
 * modules.  The codes of one CU are small integers, so the Dwarf_Abbrev
 * libdw found for a code is remembered here and put into the next DIE with
 * that code, which dwarf_tag() and every later call then use as libdw's
 * own cache.  Only one-byte codes are taken: that byte is the one libdw
 * has already read to tell a DIE from the end of a sibling list, so it is
 * inside the section whatever the input.
 *
 * One cache per CU: a Dwarf_Abbrev belongs to its CU.
 */
#define ABBREV_CACHE_CODES	128

struct abbrev_cache {
	Dwarf_Abbrev *by_code[ABBREV_CACHE_CODES];
};

static inline int abbrev_cache__tag(struct abbrev_cache *c, Dwarf_Die *die)
{
	const unsigned char *p = die->addr;
	unsigned int code = p ? *p : 0;
	int tag;

	if (code && code < ABBREV_CACHE_CODES && !die->abbrev &&
	    c->by_code[code])
		die->abbrev = c->by_code[code];
	tag = dwarf_tag(die);
	if (code && code < ABBREV_CACHE_CODES && tag != DW_TAG_invalid &&
	    !c->by_code[code])
		c->by_code[code] = die->abbrev;
	return tag;
}

#endif
