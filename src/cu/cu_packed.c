// SPDX-License-Identifier: GPL-2.0-only
/*
 * Is a struct packed?  DWARF does not say, so pahole infers it from the
 * layout (class__infer_packed_attributes()), and leaves out a function
 * that takes such a struct by value where the stack holds it: where its
 * bytes are is then uncertain.  We infer it the same way, from the same
 * facts, so that the same functions are left out:
 *
 *  - a struct with a hole between members or padding at its end is not
 *    packed (its members' offsets are the compiler's natural choice);
 *  - else it is packed if a member sits off its natural alignment, or if
 *    its size is not a multiple of the largest natural alignment of its
 *    members.
 *
 * Member offsets and sizes, bit-fields included, are normalised as pahole
 * does (class_member__cache_byte_size()), holes found as
 * class__find_holes() finds them.  What pahole also does and we do not: a
 * struct with holes marks structs it holds at an unnatural offset as
 * packed, which then counts for later functions of the CU (docs/functions.md).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/cu_internal.h"

/*
 * Steps of one judgement: corrupt DWARF can make a struct hold itself, and
 * each level of that visits every member again.
 */
#define PK_BUDGET	100000

struct pk {
	unsigned int addr_size;
	bool little_endian;
	bool rust;		/* the struct's unit is Rust: see pk__members() */
	int depth;
	long budget;
};

static bool is_typedef_or_modifier(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type ||
	       tag == DW_TAG_volatile_type || tag == DW_TAG_restrict_type ||
	       tag == DW_TAG_atomic_type;
}

/* The type of @die past typedefs and qualifiers; false: none (void). */
static bool pk_strip(Dwarf_Die *die, Dwarf_Die *out)
{
	int i;

	if (!die_type(die, out))
		return false;
	for (i = 0; i < DIE_MAX_DEPTH && is_typedef_or_modifier(dwarf_tag(out)); i++)
		if (!die_type(out, out))
			return false;
	return i < DIE_MAX_DEPTH;
}

/* Returns DIE's unsigned attribute NAME, or DFLT if it has none. */
static uint64_t udata_or(Dwarf_Die *die, int name, uint64_t dflt)
{
	Dwarf_Word v;

	return die_udata(die, name, &v) ? v : dflt;
}

/* Has DIE a DW_TAG_member child? */
static bool has_members(Dwarf_Die *die)
{
	Dwarf_Die c;
	int r;

	for (r = dwarf_child(die, &c); r == 0; r = dwarf_siblingof(&c, &c))
		if (dwarf_tag(&c) == DW_TAG_member)
			return true;
	return false;
}

/* An array's elements: the product of its dimensions (pahole's count). */
static uint64_t array_entries(Dwarf_Die *die)
{
	uint64_t n = 1, dim;
	Dwarf_Word v;
	Dwarf_Die c;
	int r;

	for (r = dwarf_child(die, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		if (dwarf_tag(&c) != DW_TAG_subrange_type)
			continue;
		if (die_udata(&c, DW_AT_count, &v))
			dim = v;
		else if (die_udata(&c, DW_AT_upper_bound, &v))
			dim = v + 1;
		else
			dim = 0;
		n *= dim;
	}
	return n;
}

/* pahole's tag__size() of a type DIE. */
static uint64_t pk__size(struct pk *pk, Dwarf_Die *t)
{
	Dwarf_Die next;
	uint64_t size;
	int tag = dwarf_tag(t);

	if (--pk->budget < 0)
		return 0;
	switch (tag) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return pk->addr_size;
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		return udata_or(t, DW_AT_byte_size, 0);
	case DW_TAG_subroutine_type:
		return udata_or(t, DW_AT_byte_size, 0) ?: pk->addr_size;
	default:
		break;
	}
	if (!die_type(t, &next)) {
		size = udata_or(t, DW_AT_byte_size, 0);
		/*
		 * As in pahole, a memberless type of size 1 counts as 0
		 * bytes: it is taken for an empty C++ base class (the
		 * "empty base optimization").
		 */
		return size == 1 && !has_members(t) ? 0 : size;
	}
	if (++pk->depth > DIE_MAX_DEPTH)
		return 0;
	size = pk__size(pk, &next);
	pk->depth--;
	return tag == DW_TAG_array_type ? size * array_entries(t) : size;
}

struct pk_member {
	int64_t byte_offset, bit_offset, bitfield_offset;
	int64_t byte_size, bit_size, bitfield_size;
};

/*
 * Sets *PM to member M's place, as pahole's class_member__new() and
 * class_member__cache_byte_size() put it.  Returns false for a static
 * member, which has no place in the struct.
 */
static bool pk__member(struct pk *pk, Dwarf_Die *m, struct pk_member *pm)
{
	Dwarf_Attribute attr;
	Dwarf_Word v;
	Dwarf_Die t;
	bool has_bit_offset;

	memset(pm, 0, sizeof(*pm));
	has_bit_offset = die_udata(m, DW_AT_data_bit_offset, &v);
	if (has_bit_offset) {
		pm->bit_offset = v;
	} else {
		if (!dwarf_attr(m, DW_AT_data_member_location, &attr) ||
		    member_byte_offset(&attr, &v))
			return false;
		pm->byte_offset = v;
		pm->bit_offset = pm->byte_offset * 8;
		pm->bitfield_offset = udata_or(m, DW_AT_bit_offset, 0);
	}
	pm->byte_size = udata_or(m, DW_AT_byte_size, 0);
	pm->bitfield_size = udata_or(m, DW_AT_bit_size, 0);
	if (!pm->bitfield_size) {
		pm->byte_size = die_type(m, &t) ? pk__size(pk, &t) : 0;
		pm->bit_size = pm->byte_size * 8;
		return true;
	}
	if (!pm->byte_size)
		pm->byte_size = pk_strip(m, &t) ? pk__size(pk, &t) : 0;
	pm->bit_size = pm->byte_size * 8;
	if (!pm->byte_size) {
		pm->bitfield_offset = 0;
		return true;
	}
	/*
	 * DWARF 2's DW_AT_bit_offset counts from the most significant bit of
	 * the storage unit; on a little-endian machine it is turned into a
	 * count from the least significant bit.
	 */
	if (!has_bit_offset) {
		if (pk->little_endian)
			pm->bitfield_offset = pm->bit_size - pm->bitfield_offset -
					      pm->bitfield_size;
		pm->bit_offset = pm->byte_offset * 8 + pm->bitfield_offset;
	} else {
		pm->byte_offset = pm->bit_offset / 8;
		pm->bitfield_offset = pm->bit_offset - pm->byte_offset * 8;
	}
	if (pm->bitfield_offset < 0) {
		pm->bitfield_offset += pm->bit_size;
		pm->byte_offset -= pm->byte_size;
		pm->bit_offset = pm->byte_offset * 8 + pm->bitfield_offset;
	}
	pm->bitfield_offset += (pm->byte_offset % pm->byte_size) * 8;
	pm->byte_offset = pm->bit_offset / pm->bit_size * pm->bit_size / 8;
	if (pm->bitfield_offset >= pm->bit_size) {
		pm->bitfield_offset -= pm->bit_size;
		pm->byte_offset += pm->byte_size;
	}
	return true;
}

static uint64_t pk__alignment(struct pk *pk, Dwarf_Die *t);

/*
 * pahole's type__natural_alignment(): a struct's or union's natural
 * alignment is the largest of its members'.
 */
static uint64_t pk__members_alignment(struct pk *pk, Dwarf_Die *t)
{
	uint64_t max = 0, a;
	Dwarf_Die c, mt;
	int r;

	for (r = dwarf_child(t, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		/* static members (no place in the struct) do not count */
		if (dwarf_tag(&c) != DW_TAG_member ||
		    (!dwarf_hasattr(&c, DW_AT_data_member_location) &&
		     !dwarf_hasattr(&c, DW_AT_data_bit_offset)) ||
		    !pk_strip(&c, &mt))
			continue;
		a = pk__alignment(pk, &mt);
		if (a > max)
			max = a;
	}
	return max;
}

/*
 * pahole's tag__natural_alignment() of a type past typedefs and
 * qualifiers.  At the depth or budget limit, and for a size of 0, it is 1.
 */
static uint64_t pk__alignment(struct pk *pk, Dwarf_Die *t)
{
	uint64_t a = 1;
	Dwarf_Die e;

	if (++pk->depth > DIE_MAX_DEPTH || --pk->budget < 0) {
		pk->depth--;
		return 1;
	}
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		a = pk->addr_size;
		break;
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		a = udata_or(t, DW_AT_byte_size, 0);
		break;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_interface_type:
	case DW_TAG_union_type:
		a = pk__members_alignment(pk, t);
		break;
	case DW_TAG_array_type:
		if (pk_strip(t, &e))
			a = pk__alignment(pk, &e);
		break;
	default:
		break;
	}
	pk->depth--;
	return a ? a : 1;
}

struct pk_slot {
	struct pk_member pm;
	/* The DWARF position: it orders ties, as qsort() is unstable. */
	size_t i;
};

/* Orders members by byte offset, then DWARF position. */
static int pk_slot_cmp(const void *a, const void *b)
{
	const struct pk_slot *x = a, *y = b;

	if (x->pm.byte_offset != y->pm.byte_offset)
		return x->pm.byte_offset < y->pm.byte_offset ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * The laid out members of @t, in DWARF order, or for a Rust unit in
 * offset order: pahole sorts a Rust unit's members by byte offset (rustc
 * lists fields in source order and lays them out in another) before it
 * looks for holes.  NULL without memory.
 */
static struct pk_slot *pk__members(struct pk *pk, Dwarf_Die *t, size_t *nr)
{
	struct pk_slot *slots = NULL, *grown;
	size_t cap = 0;
	Dwarf_Die c;
	int r;

	*nr = 0;
	for (r = dwarf_child(t, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		if (*nr == cap) {
			cap = cap ? cap * 2 : 16;
			grown = realloc(slots, cap * sizeof(*slots));
			if (!grown) {
				free(slots);
				return NULL;
			}
			slots = grown;
		}
		if (!pk__member(pk, &c, &slots[*nr].pm))
			continue;
		slots[*nr].i = *nr;
		(*nr)++;
	}
	/* A struct without members gets an empty list: NULL means no memory. */
	if (!slots)
		slots = malloc(sizeof(*slots));
	if (slots && pk->rust)
		qsort(slots, *nr, sizeof(*slots), pk_slot_cmp);
	return slots;
}

/*
 * Counts @t's holes between members in *@nr_holes and its tail padding
 * in *@padding, as pahole's class__find_holes() finds them.  Returns 0 or
 * -ENOMEM.
 */
static int pk__holes(struct pk *pk, Dwarf_Die *t, int64_t size,
		     int *nr_holes, int64_t *padding)
{
	int64_t cur_bitfield_end = size * 8, cur_bitfield_size = 0;
	int64_t bit_start, bit_end, last_seen_bit = 0;
	bool in_bitfield = false;
	struct pk_slot *slots;
	size_t i, nr;

	*nr_holes = 0;
	slots = pk__members(pk, t, &nr);
	if (!slots)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct pk_member pm = slots[i].pm;
		int64_t byte_holes = 0;

		bit_start = pm.bit_offset;
		bit_end = bit_start + (pm.bitfield_size ? pm.bitfield_size :
				       pm.byte_size * 8);
		/*
		 * class__find_holes() also counts bit holes, which do not
		 * matter here.
		 */
		if (in_bitfield)
			last_seen_bit = bit_start < cur_bitfield_end ?
					bit_start : cur_bitfield_end;
		if (pm.bitfield_size) {
			int64_t aligned_start = pm.byte_offset * 8;

			if (last_seen_bit < aligned_start &&
			    aligned_start <= bit_start) {
				byte_holes = pm.byte_offset - last_seen_bit / 8;
				last_seen_bit = aligned_start;
			}
		} else {
			byte_holes = bit_start / 8 - last_seen_bit / 8;
		}
		last_seen_bit = bit_end;
		if (pm.bitfield_size) {
			in_bitfield = true;
			if (bit_end > cur_bitfield_end ||
			    pm.bit_size > cur_bitfield_size) {
				cur_bitfield_size = pm.bit_size;
				cur_bitfield_end = pm.byte_offset * 8 +
						   cur_bitfield_size;
				if (bit_end > cur_bitfield_end)
					cur_bitfield_end += cur_bitfield_size;
			}
		} else {
			in_bitfield = false;
			cur_bitfield_size = 0;
			cur_bitfield_end = bit_end;
		}
		if (byte_holes > 0)
			(*nr_holes)++;
	}
	if (in_bitfield)
		last_seen_bit = size * 8 < cur_bitfield_end ? size * 8 :
							      cur_bitfield_end;
	*padding = size - last_seen_bit / 8;
	free(slots);
	return 0;
}

/*
 * cu_internal.h has the contract, and the header above the rules: a
 * struct with holes or tail padding is not packed; otherwise a member off
 * its natural alignment, or a size that is no multiple of the largest
 * alignment, makes it packed.  Members aligned to 1 are skipped.
 */
int die__struct_is_packed(Dwarf_Die *t, unsigned int addr_size,
			  bool little_endian, bool rust)
{
	struct pk pk = { .addr_size = addr_size, .little_endian = little_endian,
			 .rust = rust, .budget = PK_BUDGET };
	int64_t size = udata_or(t, DW_AT_byte_size, 0), padding;
	uint64_t max = 1, a;
	struct pk_member pm;
	Dwarf_Die c, mt;
	int nr_holes, r;

	if (pk__holes(&pk, t, size, &nr_holes, &padding))
		return -ENOMEM;
	if (padding || nr_holes || pk.budget < 0)
		return 0;
	for (r = dwarf_child(t, &c); r == 0; r = dwarf_siblingof(&c, &c)) {
		if (dwarf_tag(&c) != DW_TAG_member || !pk__member(&pk, &c, &pm))
			continue;
		a = pk_strip(&c, &mt) ? pk__alignment(&pk, &mt) : 1;
		if (a == 1)
			continue;
		if (a > max)
			max = a;
		if (pm.byte_offset % (int64_t)a)
			return pk.budget >= 0;
	}
	if (pk.budget < 0)
		return 0;	/* A struct not fully judged is not packed. */

	/*
	 * pahole also calls a struct aligned to 1 packed, but reads no
	 * DW_AT_alignment when it encodes BTF (-J sets ignore_alignment_attr).
	 */
	return size % (int64_t)max != 0;
}
