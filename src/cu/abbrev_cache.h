/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef DWARF2BTF_ABBREV_CACHE_H
#define DWARF2BTF_ABBREV_CACHE_H

#include <dwarf.h>
#include <stdint.h>
#include <string.h>
#include <elfutils/libdw.h>

#include "input/dwarf_form.h"

/*
 * A DIE reader for the hot paths, over what we know of one CU's
 * abbreviations, by code.  It takes codes of one ULEB128 byte, and those
 * of two below ABBREV_CACHE_HI_CODES (gcc gives its most used
 * abbreviations one byte, and a kernel unit has up to about 330, so the
 * DIEs of a struct's rarer members have two), their second byte checked
 * against the CU's end; other codes go to libdw.
 *
 * 1. The Dwarf_Abbrev libdw found for a code.  libdw decodes a DIE's
 *    abbreviation on first use by looking its code up in the CU's
 *    concurrent hash table, which takes and drops a read-write lock every
 *    time.  abbrev_cache__tag() puts it into the next DIE with that code,
 *    which dwarf_tag() and every later call then use as libdw's own cache.
 *    This is our one write into libdw's data: Dwarf_Die.abbrev is a field
 *    of libdw.h's public struct that libdw fills the same way on first use
 *    (checked with elfutils 0.188, Debian 12's).
 * 2. The abbreviation's attributes, decoded once (abbrev_cache__attrs()).
 *    dwarf_getattrs() decodes the attribute list from .debug_abbrev again
 *    for each DIE and calls back for each attribute.
 * 3. With those, the walk from a DIE to its first child and its next
 *    sibling (abbrev_cache__child(), __sibling()).  dwarf_siblingof()
 *    decodes the attribute list again to find the end of the DIE.
 * 4. Names in .debug_str (abbrev_cache__string()): the offset read from
 *    the DIE, where dwarf_formstring() is a call that finds the section
 *    again for every member's name.
 *
 * docs/performance.md says what each saves.  There is one cache per CU,
 * because a Dwarf_Abbrev belongs to its CU.  A cache has no lock: one
 * thread uses it at a time.
 */
/* The codes of one ULEB128 byte are those below 128. */
#define ABBREV_CACHE_CODES	128
/*
 * Codes of two bytes below this get a slot too, in the order they are
 * met; the slots of all codes are numbered below ABBREV_CACHE_SLOTS.
 */
#define ABBREV_CACHE_HI_CODES	1024
#define ABBREV_CACHE_SLOTS	ABBREV_CACHE_HI_CODES
/* The specs of two-byte codes are allocated this many at a time. */
#define ABBREV_CACHE_CHUNK	32
/* An abbreviation with more attributes than this is left to libdw. */
#define ABBREV_SPEC_ATTRS	24

enum { SPEC_UNKNOWN, SPEC_FAST, SPEC_LIBDW };

struct abbrev_spec {
	uint8_t state;		/* SPEC_UNKNOWN, SPEC_FAST or SPEC_LIBDW */
	uint8_t nr;
	uint8_t children;	/* The DIE has children (DW_CHILDREN_yes). */
	/* An implicit constant: abbrev_cache__for_each_attr() cannot read it. */
	uint8_t implicit;
	/*
	 * A wanted one: abbrev_cache__attrs() cannot put it in its slot,
	 * since libdw points its value into .debug_abbrev.
	 */
	uint8_t slot_implicit;
	/* The size of all attributes, -1 if one varies. */
	int16_t fixed_size;
	/* Which attribute is DW_AT_sibling as ref1/2/4, or -1. */
	int8_t sib_idx;
	/* Where its value is after the code, if fixed_size is known. */
	int16_t sib_at;
	uint8_t sib_size;
	/*
	 * The leading attributes of a fixed size: how many, and their
	 * bytes; each one's value is at a[i].at after the code.  The wanted
	 * ones among them (a[i].slot >= 0), in order, are wanted[0 ..
	 * nr_wanted), which abbrev_cache__attrs() fills in without stepping
	 * over the others.
	 */
	uint8_t fixed_nr;
	uint8_t nr_wanted;
	int16_t fixed_at;
	uint8_t wanted[ABBREV_SPEC_ATTRS];
	struct {
		uint16_t name;
		uint16_t form;
		int8_t slot;	/* The caller's slot for it, or -1. */
		int8_t size;	/* The value's size, -1 if it varies. */
		int16_t at;	/* Its offset, for the first fixed_nr. */
		/* How to skip the value when its size varies. */
		struct dwarf_form_layout layout;
		/* DW_FORM_implicit_const's value, in the abbreviation */
		int64_t implicit;
	} a[ABBREV_SPEC_ATTRS];
	/* The bytes of its code: the values start after them. */
	uint8_t code_len;
	/* Its slot: its code if one byte, else ABBREV_CACHE_CODES and up. */
	uint16_t slot;
	/* libdw's Dwarf_Abbrev, for a code of two bytes (by_code's role) */
	Dwarf_Abbrev *abbrev;
};

struct abbrev_cache {
	/*
	 * The CU the cache is for: DIEs of other units (read through
	 * cross-unit references) go to libdw.
	 */
	Dwarf_CU *cu;
	Dwarf_Abbrev *by_code[ABBREV_CACHE_CODES];
	/* by_code[]'s tags, so that a DIE's tag takes no call into libdw */
	uint16_t tag_by_code[ABBREV_CACHE_CODES];
	struct abbrev_spec spec[ABBREV_CACHE_CODES];
	/*
	 * The codes of two bytes met so far: code's spec is the
	 * (hi_slot[code - ABBREV_CACHE_CODES] - 1)th of hi_chunk[] (0: none
	 * yet), on the heap, since most units have few; in chunks, so that
	 * a spec stays where it is while its DIE's children make more.
	 */
	uint16_t hi_slot[ABBREV_CACHE_HI_CODES - ABBREV_CACHE_CODES];
	struct abbrev_spec *hi_chunk[(ABBREV_CACHE_HI_CODES - ABBREV_CACHE_CODES) /
				     ABBREV_CACHE_CHUNK];
	size_t nr_hi;
	/* The CU's header, which CU-local references count from. */
	const unsigned char *cu_start;
	/* The CU's end; NULL sends everything through libdw. */
	const unsigned char *cu_end;
	/* The .debug_str of the CU's file, or NULL. */
	const char *str;
	size_t str_size;
	uint8_t version, addr_size, offset_size;
	/* Returns the slot (< 32) an attribute goes to, or -1 if unwanted. */
	int (*slot_of)(unsigned int name);
};

/*
 * Readies the cache for @cudie's CU, its attributes sorted into slots by
 * @slot_of.  [@info_start, @info_end) is the .debug_info libdw reads.
 * Without what the fast path needs (e.g. the CU's bounds inside it), or
 * with @libdw_only (a test hook), all attributes are read through libdw.
 */
void abbrev_cache__init(struct abbrev_cache *c, Dwarf_Die *cudie,
			const unsigned char *info_start,
			const unsigned char *info_end,
			int (*slot_of)(unsigned int name), bool libdw_only);

/* Frees what the cache took for codes of two bytes. */
void abbrev_cache__free(struct abbrev_cache *c);

/*
 * [@str, @str + @size) is the .debug_str libdw reads for the file of
 * .debug_info above, cut after its last NUL: abbrev_cache__string()
 * reads it when the fast path is on for the CU.
 */
void abbrev_cache__set_strings(struct abbrev_cache *c, const char *str,
			       size_t size);

/*
 * Does what dwarf_formstring() does, which the name of each member,
 * struct, union and enumerator goes through: a DW_FORM_strp of the CU is
 * read here when its offset is inside the strings set (which end with a
 * NUL); other forms, and offsets past the last NUL, go to libdw.
 */
static inline const char *abbrev_cache__string(const struct abbrev_cache *c,
					       Dwarf_Attribute *attr)
{
	uint32_t off4;
	uint64_t off;

	if (c->str && attr->form == DW_FORM_strp && attr->cu == c->cu &&
	    attr->valp) {
		if (c->offset_size == 8) {
			memcpy(&off, attr->valp, 8);
		} else {
			memcpy(&off4, attr->valp, 4);
			off = off4;
		}
		if (off < c->str_size)
			return c->str + off;
	}
	return dwarf_formstring(attr);
}

/*
 * Returns the code of the DIE at @p, inside the CU, if the cache takes
 * it: one byte, or with the fast path on, two (the second inside the
 * CU, not 0, which would spell a one-byte code the long way) below
 * ABBREV_CACHE_HI_CODES.
 * Returns 0 for the null entry and for every code libdw must read.
 */
static inline unsigned int abbrev_cache__code(const struct abbrev_cache *c,
					      const unsigned char *p)
{
	unsigned int code;

	if (!(*p & 0x80))
		return *p;
	if (!c->cu_end || c->cu_end - p < 2 || !p[1] || (p[1] & 0x80))
		return 0;
	code = (*p & 0x7f) | (unsigned int)p[1] << 7;
	return code < ABBREV_CACHE_HI_CODES ? code : 0;
}

/* The spec of two-byte code slot @slot (hi_slot[]'s value, not 0). */
static inline struct abbrev_spec *abbrev_cache__hi(const struct abbrev_cache *c,
						   unsigned int slot)
{
	return &c->hi_chunk[(slot - 1) / ABBREV_CACHE_CHUNK]
			   [(slot - 1) % ABBREV_CACHE_CHUNK];
}

/*
 * Returns @die's tag as dwarf_tag() does.  A DIE of the CU with a
 * one-byte code first gets the Dwarf_Abbrev that libdw found for that
 * code before (item 1 above); the first one libdw finds is remembered.
 * A DIE with a two-byte code gets its spec's, once the spec is made.
 */
static inline int abbrev_cache__tag(struct abbrev_cache *c, Dwarf_Die *die)
{
	const unsigned char *p = die->addr;
	unsigned int code = p && die->cu == c->cu ?
			    abbrev_cache__code(c, p) : 0;
	int tag;

	if (code >= ABBREV_CACHE_CODES) {
		unsigned int slot = c->hi_slot[code - ABBREV_CACHE_CODES];

		if (slot && !die->abbrev)
			die->abbrev = abbrev_cache__hi(c, slot)->abbrev;
		return dwarf_tag(die);
	}
	if (code && c->by_code[code]) {
		if (!die->abbrev)
			die->abbrev = c->by_code[code];
		/* The same abbreviation: dwarf_tag() would read its tag. */
		if (die->abbrev == c->by_code[code])
			return c->tag_by_code[code];
	}
	tag = dwarf_tag(die);
	if (code && tag != DW_TAG_invalid && !c->by_code[code]) {
		c->by_code[code] = die->abbrev;
		c->tag_by_code[code] = tag;
	}
	return tag;
}

/*
 * The end of the DIE at @p of the CU when the fast path reads it as a
 * whole from its one-byte code: a spec decoded already, no children,
 * values of a fixed size inside the CU.  *@abbrev is then the DIE's
 * abbreviation and *@tag its tag, as abbrev_cache__tag() would give
 * them.  NULL for any other DIE (and the null entry that ends a list).
 */
static inline const unsigned char *
abbrev_cache__fixed_leaf(const struct abbrev_cache *c, const unsigned char *p,
			 Dwarf_Abbrev **abbrev, int *tag)
{
	const struct abbrev_spec *s;

	if (p >= c->cu_end || !*p || *p >= ABBREV_CACHE_CODES ||
	    !c->by_code[*p])
		return NULL;
	s = &c->spec[*p];
	if (s->state != SPEC_FAST || s->children || s->fixed_size < 0 ||
	    c->cu_end - (p + 1) < s->fixed_size)
		return NULL;
	*abbrev = c->by_code[*p];
	*tag = c->tag_by_code[*p];
	return p + 1 + s->fixed_size;
}

/*
 * Reads the attributes of @die that slot_of wants: each goes to
 * @attrs[slot], with bit slot set in *@have, as dwarf_getattrs() would
 * give them.  Returns 0, or -1 on bad DWARF.
 */
int abbrev_cache__attrs(struct abbrev_cache *c, Dwarf_Die *die,
			Dwarf_Attribute *attrs, uint32_t *have);

/*
 * For a reader of raw values: @die's spec, with [*@start, *@end) its
 * attribute values, all inside the CU (an implicit constant's is in the
 * spec); NULL when the fast path does not read @die (then libdw does:
 * abbrev_cache__for_each_attr()).  The i-th
 * value at p ends at abbrev_cache__value_end(c, s, i, p), which is never
 * past *@end for a spec returned here.
 */
const struct abbrev_spec *abbrev_cache__values(struct abbrev_cache *c,
						Dwarf_Die *die,
						const unsigned char **start,
						const unsigned char **end);
const unsigned char *abbrev_cache__value_end(const struct abbrev_cache *c,
					     const struct abbrev_spec *s,
					     size_t i, const unsigned char *p);

/*
 * Calls @fn for every attribute of @die, as dwarf_getattrs() does, until
 * it returns other than DWARF_CB_OK.  Returns 0 when all were given, 1
 * when @fn stopped, -1 on bad DWARF.
 */
int abbrev_cache__for_each_attr(struct abbrev_cache *c, Dwarf_Die *die,
				int (*fn)(Dwarf_Attribute *attr, void *arg),
				void *arg);

/*
 * Do what dwarf_child() and dwarf_siblingof() do, and return the same:
 * 0, 1 for none, -1 on error.
 */
int abbrev_cache__child(struct abbrev_cache *c, Dwarf_Die *die,
			Dwarf_Die *child);
int abbrev_cache__sibling_slow(struct abbrev_cache *c, Dwarf_Die *die,
			       Dwarf_Die *sibling);

/*
 * abbrev_cache__sibling() of a DIE of the CU without children whose
 * values have a known size, as most members are, is found here; the
 * others go through abbrev_cache__sibling_slow().
 */
static inline int abbrev_cache__sibling(struct abbrev_cache *c, Dwarf_Die *die,
					Dwarf_Die *sibling)
{
	const unsigned char *p = die->addr;
	const struct abbrev_spec *s;

	if (!p || die->cu != c->cu || !c->cu_end || !*p ||
	    *p >= ABBREV_CACHE_CODES)
		return abbrev_cache__sibling_slow(c, die, sibling);
	s = &c->spec[*p];
	if (s->state != SPEC_FAST || s->children || s->fixed_size < 0 ||
	    c->cu_end - p <= 1 + s->fixed_size)
		return abbrev_cache__sibling_slow(c, die, sibling);
	p += 1 + s->fixed_size;
	if (!*p)
		return 1;
	if (!abbrev_cache__code(c, p))
		return abbrev_cache__sibling_slow(c, die, sibling);
	*sibling = (Dwarf_Die){ .addr = (void *)p, .cu = die->cu };
	return 0;
}
/*
 * abbrev_cache__sibling() of @die when a walk over its subtree has found
 * where it ends (@p): no need to read @die again.
 */
int abbrev_cache__sibling_from(struct abbrev_cache *c, Dwarf_Die *die,
			       const unsigned char *p, Dwarf_Die *sibling);

#endif
