// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fast DIE reader of one CU (abbrev_cache.h).  Whatever it cannot
 * read for sure goes to libdw, which then gives the answer or the error.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cu/abbrev_cache.h"

/*
 * What is known of an abbreviation code: nothing yet, that the fast path
 * reads it, or that libdw must.
 */

/*
 * Leaves cu_end NULL (everything through libdw) unless the unit's header,
 * byte order and bounds inside the section are all as the fast path
 * needs them.
 */
void abbrev_cache__init(struct abbrev_cache *c, Dwarf_Die *cudie,
			const unsigned char *info_start,
			const unsigned char *info_end,
			int (*slot_of)(unsigned int name), bool libdw_only)
{
	const unsigned char *die;
	Dwarf_Half version;
	uint8_t unit_type, addr_size, offset_size;
	Dwarf_Off start, next;
	Elf *elf;
	bool big;

	memset(c, 0, sizeof(*c));
	c->slot_of = slot_of;
	c->cu = cudie->cu;
	/* libdw_only is a test hook, so that tests compare the two paths. */
	if (libdw_only || !cudie->cu ||
	    dwarf_cu_info(cudie->cu, &version, &unit_type, NULL, NULL, NULL,
			  &addr_size, &offset_size))
		return;
	elf = dwarf_getelf(dwarf_cu_getdwarf(cudie->cu));
	big = elf && elf_getident(elf, NULL) &&
	      elf_getident(elf, NULL)[EI_DATA] == ELFDATA2MSB;
	/*
	 * The fast path reads block lengths, references and string offsets
	 * in the host's byte order, so a file of the other order, or a
	 * DWARF version it does not know, goes to libdw.
	 */
	if (!elf || big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) ||
	    version < 2 || version > 5)
		return;
	start = dwarf_dieoffset(cudie) - dwarf_cuoffset(cudie);
	if (dwarf_next_unit(dwarf_cu_getdwarf(cudie->cu), start, &next, NULL,
			    NULL, NULL, NULL, NULL, NULL, NULL) ||
	    next < dwarf_dieoffset(cudie))
		return;
	/*
	 * A unit whose length runs past the section (corrupt input) goes
	 * to libdw, which reports it.
	 */
	die = cudie->addr;
	if (!info_start || die < info_start || die > info_end ||
	    next - dwarf_dieoffset(cudie) > (size_t)(info_end - die))
		return;
	c->version = version;
	c->addr_size = addr_size;
	c->offset_size = offset_size;
	c->cu_start = (const unsigned char *)cudie->addr -
		      dwarf_cuoffset(cudie);
	c->cu_end = (const unsigned char *)cudie->addr +
		    (next - dwarf_dieoffset(cudie));
}

void abbrev_cache__free(struct abbrev_cache *c)
{
	size_t i;

	for (i = 0; i < c->nr_hi; i += ABBREV_CACHE_CHUNK)
		free(c->hi_chunk[i / ABBREV_CACHE_CHUNK]);
	memset(c->hi_chunk, 0, sizeof(c->hi_chunk));
	memset(c->hi_slot, 0, sizeof(c->hi_slot));
	c->nr_hi = 0;
}

void abbrev_cache__set_strings(struct abbrev_cache *c, const char *str,
			       size_t size)
{
	/*
	 * The strings are used only with the fast path on (cu_end set),
	 * whose checks (the CU's file, in the host's order) they need too.
	 */
	if (c->cu_end && str && size) {
		c->str = str;
		c->str_size = size;
	}
}

/* Reads a 1, 2 or 4 byte value in the file's byte order (the host's). */
static uint64_t read_native(const unsigned char *p, size_t k)
{
	uint16_t n2;
	uint32_t n4;

	if (k == 1)
		return *p;
	if (k == 2) {
		memcpy(&n2, p, 2);
		return n2;
	}
	memcpy(&n4, p, 4);
	return n4;
}

/*
 * Decodes abbreviation AB into S once: each attribute's name, form, slot
 * and size, where DW_AT_sibling is, and the size of all when it is fixed.
 * An abbreviation that the fast path cannot read (more than
 * ABBREV_SPEC_ATTRS attributes, an unknown or indirect form) is left
 * SPEC_LIBDW; one with a wanted implicit constant is read through libdw
 * by abbrev_cache__attrs() only (slot_implicit).  The attributes are counted here
 * rather than with dwarf_getattrcnt(), because elfutils 0.188 miscounts
 * an abbreviation with an implicit constant (DW_FORM_implicit_const's
 * value is not skipped).
 */
static void abbrev_spec__build(const struct abbrev_cache *c,
			       struct abbrev_spec *s, Dwarf_Abbrev *ab)
{
	unsigned int name, form;
	Dwarf_Sword data;
	long at = 0;
	size_t i;

	s->state = SPEC_LIBDW;
	s->sib_idx = -1;
	s->implicit = 0;
	s->slot_implicit = 0;
	s->fixed_nr = 0;
	s->nr_wanted = 0;
	s->fixed_at = 0;
	for (i = 0; !dwarf_getabbrevattr_data(ab, i, &name, &form, &data, NULL);
	     i++) {
		int slot = c->slot_of(name);
		struct dwarf_form_layout l =
			dwarf_form__layout(form, c->version, c->addr_size,
					   c->offset_size);
		long size = l.kind == DWARF_FORM_FIXED ? l.size : -1;

		/*
		 * libdw points an implicit constant into .debug_abbrev,
		 * where its value is, and the fast path cannot, so a wanted
		 * one leaves the abbreviation to libdw.
		 */
		if (i == ABBREV_SPEC_ATTRS || l.kind == DWARF_FORM_UNKNOWN ||
		    l.kind == DWARF_FORM_INDIRECT || size > 64)
			return;
		s->implicit |= form == DW_FORM_implicit_const;
		s->slot_implicit |= form == DW_FORM_implicit_const && slot >= 0;
		s->a[i].implicit = data;
		s->a[i].name = name;
		s->a[i].form = form;
		s->a[i].slot = slot;
		s->a[i].size = size;
		s->a[i].layout = l;
		if (name == DW_AT_sibling && (form == DW_FORM_ref1 ||
		    form == DW_FORM_ref2 || form == DW_FORM_ref4)) {
			s->sib_idx = i;
			s->sib_at = at;
			s->sib_size = size;
		}
		if (at >= 0 && size >= 0) {
			s->a[i].at = at;
			s->fixed_nr = i + 1;
			s->fixed_at = at + size;
			if (slot >= 0)
				s->wanted[s->nr_wanted++] = i;
		}
		at = at < 0 || size < 0 ? -1 : at + size;
	}
	s->nr = i;
	/* fixed_size is an int16_t; a larger size counts as varying. */
	s->fixed_size = at <= INT16_MAX ? at : -1;
	s->children = dwarf_abbrevhaschildren(ab) == DW_CHILDREN_yes;
	s->state = SPEC_FAST;
}

/* Where libdw_attrs__cb() puts the attributes that libdw gives. */
struct libdw_attrs {
	const struct abbrev_cache *c;
	Dwarf_Attribute *attrs;
	uint32_t *have;
};

/* Stores one attribute from dwarf_getattrs() in its slot, if wanted. */
static int libdw_attrs__cb(Dwarf_Attribute *attr, void *arg)
{
	struct libdw_attrs *la = arg;
	int slot = la->c->slot_of(dwarf_whatattr(attr));

	if (slot >= 0) {
		la->attrs[slot] = *attr;
		*la->have |= 1u << slot;
	}
	return DWARF_CB_OK;
}

/*
 * abbrev_cache__spec() of a DIE with two-byte @code: its spec gets the
 * next slot on first use.  NULL where the fast path does not read it.
 */
static const struct abbrev_spec *abbrev_cache__hi_spec(struct abbrev_cache *c,
						       Dwarf_Die *die,
						       unsigned int code)
{
	uint16_t *slot = &c->hi_slot[code - ABBREV_CACHE_CODES];
	struct abbrev_spec **chunk;
	struct abbrev_spec *s;

	if (!*slot) {
		if (abbrev_cache__tag(c, die) == DW_TAG_invalid)
			return NULL;
		chunk = &c->hi_chunk[c->nr_hi / ABBREV_CACHE_CHUNK];
		if (!*chunk) {
			*chunk = malloc(ABBREV_CACHE_CHUNK * sizeof(**chunk));
			if (!*chunk)
				return NULL;
		}
		s = abbrev_cache__hi(c, c->nr_hi + 1);
		memset(s, 0, sizeof(*s));
		abbrev_spec__build(c, s, die->abbrev);
		s->code_len = 2;
		s->slot = ABBREV_CACHE_CODES + c->nr_hi;
		s->abbrev = die->abbrev;
		*slot = ++c->nr_hi;
	}
	s = abbrev_cache__hi(c, *slot);
	return s->state == SPEC_FAST ? s : NULL;
}

/*
 * Returns the spec of @die's abbreviation, decoded on first use, or NULL
 * when the fast path does not read @die: no fast path for the CU, a DIE
 * of another CU, a code it does not take, or a spec left to libdw.
 */
static inline const struct abbrev_spec *
abbrev_cache__spec(struct abbrev_cache *c, Dwarf_Die *die)
{
	const unsigned char *p = die->addr;
	struct abbrev_spec *s;
	unsigned int code;

	if (!c->cu_end || die->cu != c->cu || !p ||
	    !(code = abbrev_cache__code(c, p)))
		return NULL;
	if (code >= ABBREV_CACHE_CODES)
		return abbrev_cache__hi_spec(c, die, code);
	s = &c->spec[code];
	if (s->state == SPEC_UNKNOWN) {
		if (abbrev_cache__tag(c, die) == DW_TAG_invalid)
			return NULL;
		abbrev_spec__build(c, s, die->abbrev);
		s->code_len = 1;
		s->slot = code;
	}
	return s->state == SPEC_FAST ? s : NULL;
}

/*
 * Returns the byte past attribute @i of @s, whose value is at @p; NULL if
 * the value would run past the CU.
 */
static const unsigned char *abbrev_spec__skip(const struct abbrev_cache *c,
					      const struct abbrev_spec *s,
					      size_t i, const unsigned char *p)
{
	if (s->a[i].size >= 0)
		return c->cu_end - p >= s->a[i].size ? p + s->a[i].size : NULL;
	return dwarf_form__skip(s->a[i].layout, p, c->cu_end);
}

/*
 * The fast path fills in the same Dwarf_Attribute fields that libdw's
 * dwarf_getattrs() would; when a value runs past the CU, it drops what it
 * found and asks libdw for all of them.
 */
int abbrev_cache__attrs(struct abbrev_cache *c, Dwarf_Die *die,
			Dwarf_Attribute *attrs, uint32_t *have)
{
	struct libdw_attrs la = { .c = c, .attrs = attrs, .have = have };
	const struct abbrev_spec *s = abbrev_cache__spec(c, die);
	const unsigned char *p = die->addr;
	size_t i;

	*have = 0;
	if (!s || s->slot_implicit)
		goto libdw;
	p += s->code_len;
	/*
	 * The leading values of a fixed size are where the spec says: one
	 * check that they are inside the CU, as stepping over each would
	 * have made, and only the wanted ones are read.
	 */
	if (c->cu_end - p < s->fixed_at)
		goto libdw;
	for (i = 0; i < s->nr_wanted; i++) {
		size_t k = s->wanted[i];
		int slot = s->a[k].slot;

		attrs[slot] = (Dwarf_Attribute){
			.code = s->a[k].name,
			.form = s->a[k].form,
			.valp = (unsigned char *)p + s->a[k].at,
			.cu = die->cu,
		};
		*have |= 1u << slot;
	}
	p += s->fixed_at;
	for (i = s->fixed_nr; i < s->nr; i++) {
		int slot = s->a[i].slot;

		if (slot >= 0) {
			attrs[slot] = (Dwarf_Attribute){
				.code = s->a[i].name,
				.form = s->a[i].form,
				.valp = (unsigned char *)p,
				.cu = die->cu,
			};
			*have |= 1u << slot;
		}
		p = abbrev_spec__skip(c, s, i, p);
		if (!p) {
			*have = 0;
			goto libdw;	/* libdw says what is wrong. */
		}
	}
	return 0;
libdw:
	return dwarf_getattrs(die, libdw_attrs__cb, &la, 0) < 0 ? -1 : 0;
}

const struct abbrev_spec *abbrev_cache__values(struct abbrev_cache *c,
						Dwarf_Die *die,
						const unsigned char **start,
						const unsigned char **end)
{
	const struct abbrev_spec *s = abbrev_cache__spec(c, die);
	const unsigned char *p;
	size_t i;

	if (!s)
		return NULL;
	p = (const unsigned char *)die->addr + s->code_len;
	*start = p;
	if (s->fixed_size >= 0) {
		if (c->cu_end - p < s->fixed_size)
			return NULL;
		*end = p + s->fixed_size;
		return s;
	}
	for (i = 0; i < s->nr && p; i++)
		p = abbrev_spec__skip(c, s, i, p);
	if (!p)
		return NULL;
	*end = p;
	return s;
}

const unsigned char *abbrev_cache__value_end(const struct abbrev_cache *c,
					     const struct abbrev_spec *s,
					     size_t i, const unsigned char *p)
{
	return abbrev_spec__skip(c, s, i, p);
}

int abbrev_cache__for_each_attr(struct abbrev_cache *c, Dwarf_Die *die,
				int (*fn)(Dwarf_Attribute *attr, void *arg),
				void *arg)
{
	const struct abbrev_spec *s = abbrev_cache__spec(c, die);
	const unsigned char *p = die->addr, *end;
	Dwarf_Attribute attr;
	size_t i;

	if (!s || s->implicit)
		goto libdw;
	/* The DIE is read whole first: no attribute is given twice. */
	end = p + s->code_len;
	for (i = 0; i < s->nr && end; i++)
		end = abbrev_spec__skip(c, s, i, end);
	if (!end)
		goto libdw;	/* libdw says what is wrong. */
	p += s->code_len;
	for (i = 0; i < s->nr; i++) {
		attr = (Dwarf_Attribute){
			.code = s->a[i].name,
			.form = s->a[i].form,
			.valp = (unsigned char *)p,
			.cu = die->cu,
		};
		if (fn(&attr, arg) != DWARF_CB_OK)
			return 1;
		p = abbrev_spec__skip(c, s, i, p);
	}
	return 0;
libdw:
	switch (dwarf_getattrs(die, fn, arg, 0)) {
	case 1:
		return 0;
	case -1:
		return -1;
	default:
		return 1;
	}
}

/*
 * Returns where a DW_AT_sibling value at @p (@size bytes) points, or NULL
 * unless that is forward of @die and inside the CU: only such a sibling
 * is trusted, so a bad one cannot make a walk loop or leave the CU.
 */
static const unsigned char *abbrev_cache__sibling_at(const struct abbrev_cache *c,
				       Dwarf_Die *die, const unsigned char *p,
				       size_t size)
{
	uint64_t off = read_native(p, size);

	if (off < (uint64_t)(c->cu_end - c->cu_start) &&
	    c->cu_start + off > (const unsigned char *)die->addr)
		return c->cu_start + off;
	return NULL;
}

/*
 * Returns the byte past @die's attributes, with *@children from its
 * abbreviation and *@sib where its DW_AT_sibling points (NULL if none we
 * can use); returns NULL if the fast path cannot read @die.  With a fixed
 * size the attributes are not walked at all.
 */
static const unsigned char *die__attrs_end(struct abbrev_cache *c,
					   Dwarf_Die *die, bool *children,
					   const unsigned char **sib)
{
	const struct abbrev_spec *s = abbrev_cache__spec(c, die);
	const unsigned char *p = die->addr;
	size_t i;

	if (!s)
		return NULL;
	*sib = NULL;
	p += s->code_len;
	if (s->fixed_size >= 0) {
		if (c->cu_end - p < s->fixed_size)
			return NULL;
		if (s->sib_idx >= 0)
			*sib = abbrev_cache__sibling_at(c, die, p + s->sib_at, s->sib_size);
		*children = s->children;
		return p + s->fixed_size;
	}
	for (i = 0; i < s->nr; i++) {
		const unsigned char *q = abbrev_spec__skip(c, s, i, p);

		if (!q)
			return NULL;
		if ((long)i == s->sib_idx)
			*sib = abbrev_cache__sibling_at(c, die, p, s->sib_size);
		p = q;
	}
	*children = s->children;
	return p;
}

/*
 * How deep abbrev_cache__skip_children() recurses through children
 * without DW_AT_sibling before it leaves the rest to libdw.
 */
#define SKIP_DEPTH	256

/*
 * Returns the byte past the children list starting at @p, its null entry
 * included; NULL leaves it to libdw (a code the cache does not take,
 * truncated data, or nesting deeper than SKIP_DEPTH).
 */
static const unsigned char *abbrev_cache__skip_children(struct abbrev_cache *c,
					  struct Dwarf_CU *cu,
					  const unsigned char *p, int depth)
{
	while (p < c->cu_end && (!*p || abbrev_cache__code(c, p))) {
		Dwarf_Die d = { .addr = (void *)p, .cu = cu };
		const unsigned char *sib;
		bool children;

		if (!*p)
			return p + 1;
		p = die__attrs_end(c, &d, &children, &sib);
		if (!p)
			return NULL;
		if (children) {
			if (sib)
				p = sib;
			else if (depth < SKIP_DEPTH)
				p = abbrev_cache__skip_children(c, cu, p, depth + 1);
			else
				return NULL;
			if (!p)
				return NULL;
		}
	}
	/* A code the cache does not take, or the CU's end: libdw's turn. */
	return NULL;
}

/*
 * Sets *@out to the DIE at @p and returns 0, returns 1 at the null entry
 * that ends a list, or -2 to ask libdw.
 */
static int abbrev_cache__die_at(const struct abbrev_cache *c, Dwarf_Die *from,
		  const unsigned char *p, Dwarf_Die *out)
{
	if (p >= c->cu_end)
		return -2;
	if (!*p)
		return 1;
	/* A code the cache does not take (or a long null entry) is libdw's. */
	if (!abbrev_cache__code(c, p))
		return -2;
	*out = (Dwarf_Die){ .addr = (void *)p, .cu = from->cu };
	return 0;
}

/*
 * Finds @die's first child (when @child) or next sibling as libdw would:
 * 0, 1 for none, or what dwarf_child() or dwarf_siblingof() returns when
 * the fast path cannot tell.
 */
static int die__next(struct abbrev_cache *c, Dwarf_Die *die, Dwarf_Die *out,
		     bool child)
{
	const unsigned char *p, *sib;
	bool children;
	int ret;

	p = die__attrs_end(c, die, &children, &sib);
	if (p && child && !children)
		return 1;
	/*
	 * A DW_AT_sibling must lead past the DIE's attributes (libdw asks
	 * only that it lead past its start): one that leads back would have
	 * every walk over siblings go round for ever.
	 */
	if (p && !child && children && sib && sib <= p)
		return -1;
	if (p && !child && children)
		p = sib ? sib : abbrev_cache__skip_children(c, die->cu, p, 0);
	ret = p ? abbrev_cache__die_at(c, die, p, out) : -2;
	if (ret != -2)
		return ret;
	return child ? dwarf_child(die, out) : dwarf_siblingof(die, out);
}

int abbrev_cache__child(struct abbrev_cache *c, Dwarf_Die *die,
			Dwarf_Die *child)
{
	return die__next(c, die, child, true);
}

int abbrev_cache__sibling_slow(struct abbrev_cache *c, Dwarf_Die *die,
			       Dwarf_Die *sibling)
{
	return die__next(c, die, sibling, false);
}

int abbrev_cache__sibling_from(struct abbrev_cache *c, Dwarf_Die *die,
			       const unsigned char *p, Dwarf_Die *sibling)
{
	int ret = abbrev_cache__die_at(c, die, p, sibling);

	return ret != -2 ? ret : dwarf_siblingof(die, sibling);
}
