// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DWARF side of `dwarf2btf layout` (dwarf_shapes.h): one compile
 * unit's structs, classes and unions made shapes, with libdw.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>

#include "input/dwarf_ref.h"
#include "layout/dwarf_shapes.h"
#include "lib/grow.h"
#include "lib/log.h"

/* DIEs nested deeper than this are an error, not a deep recursion. */
#define WALK_MAX_DEPTH	128
/* A type reached through more qualifiers and typedefs has no size. */
#define TYPE_MAX_DEPTH	64
/* A type's size in the cache when it has none. */
#define SIZE_NONE32	UINT32_MAX

/* The attributes a struct or member DIE is read for, in one pass. */
enum {
	A_NAME, A_BYTE_SIZE, A_BIT_SIZE, A_BIT_OFFSET, A_DATA_BIT_OFFSET,
	A_LOCATION, A_TYPE, A_EXTERNAL, A_DECLARATION, A_VIRTUALITY, A_NR
};

struct die_slots {
	Dwarf_Attribute a[A_NR];
	unsigned int have;	/* bit i: a[i] is there */
};

static int attr_slot(unsigned int name)
{
	switch (name) {
	case DW_AT_name:		return A_NAME;
	case DW_AT_byte_size:		return A_BYTE_SIZE;
	case DW_AT_bit_size:		return A_BIT_SIZE;
	case DW_AT_bit_offset:		return A_BIT_OFFSET;
	case DW_AT_data_bit_offset:	return A_DATA_BIT_OFFSET;
	case DW_AT_data_member_location: return A_LOCATION;
	case DW_AT_type:		return A_TYPE;
	case DW_AT_external:		return A_EXTERNAL;
	case DW_AT_declaration:		return A_DECLARATION;
	case DW_AT_virtuality:		return A_VIRTUALITY;
	default:			return -1;
	}
}

static int take_attr(Dwarf_Attribute *attr, void *arg)
{
	struct die_slots *da = arg;
	int i = attr_slot(dwarf_whatattr(attr));

	if (i >= 0) {
		da->a[i] = *attr;
		da->have |= 1u << i;
	}
	return DWARF_CB_OK;
}

/* Reads @die's attributes into @da: 0, or -1 when libdw cannot. */
static int die_slots__read(struct die_slots *da, Dwarf_Die *die)
{
	da->have = 0;
	return dwarf_getattrs(die, take_attr, da, 0) == -1 ? -1 : 0;
}

static Dwarf_Attribute *die_slots__at(struct die_slots *da, int i)
{
	return da->have & (1u << i) ? &da->a[i] : NULL;
}

static bool die_slots__flag(struct die_slots *da, int i)
{
	bool flag = false;

	return die_slots__at(da, i) && !dwarf_formflag(&da->a[i], &flag) &&
	       flag;
}

static bool die_slots__udata(struct die_slots *da, int i, Dwarf_Word *v)
{
	return die_slots__at(da, i) && !dwarf_formudata(&da->a[i], v);
}

/* Reads the constant attribute @name of @die into *@v. */
static bool die_udata(Dwarf_Die *die, int name, Dwarf_Word *v)
{
	Dwarf_Attribute attr;

	return dwarf_attr(die, name, &attr) && !dwarf_formudata(&attr, v);
}

/* Reads a bound: signed when its form says so (-1 is "x[0]"). */
static bool die_bound(Dwarf_Die *die, int name, int64_t *v)
{
	Dwarf_Attribute attr;
	Dwarf_Sword s;
	Dwarf_Word u;

	if (!dwarf_attr(die, name, &attr))
		return false;
	if (dwarf_whatform(&attr) == DW_FORM_sdata ||
	    dwarf_whatform(&attr) == DW_FORM_implicit_const) {
		if (dwarf_formsdata(&attr, &s))
			return false;
		*v = s;
		return true;
	}
	if (dwarf_formudata(&attr, &u))
		return false;
	*v = (int64_t)u;
	return true;
}

/*
 * The DIE that attribute @name of @die refers to; a type's through a type
 * unit's stub (dwarf_ref__type()).
 */
static bool die_ref(Dwarf_Die *die, int name, Dwarf_Die *to)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(die, name, &attr))
		return false;
	return name == DW_AT_type ? dwarf_ref__type(&attr, to) != NULL :
				    dwarf_ref__die(&attr, to) != NULL;
}

static uint64_t dwarf_shapes__type_bytes(struct dwarf_shapes *w,
					 Dwarf_Die *t, int depth);

/*
 * The byte size of array type @t without a DW_AT_byte_size: its
 * element's size times each dimension's count.  A dimension without
 * count or bound (a flexible array) counts 0, as x[0] does, and so does
 * an array without dimensions, as the encoder has it.  A bound that is
 * not a constant (a variable length) gives SHAPE_SIZE_ANY.
 */
static uint64_t dwarf_shapes__array_bytes(struct dwarf_shapes *w,
					  Dwarf_Die *t, int depth)
{
	uint64_t elem, n = 1;
	size_t dims = 0;
	bool unknown = false;
	Dwarf_Die c, e;
	int ret;

	for (ret = dwarf_child(t, &c); ret == 0; ret = dwarf_siblingof(&c, &c)) {
		int64_t lower = 0, upper;
		Dwarf_Word count = 0;
		Dwarf_Attribute attr;

		dims++;
		if (dwarf_tag(&c) != DW_TAG_subrange_type) {
			unknown = true;	/* an enumeration as index: Ada */
		} else if (dwarf_attr(&c, DW_AT_count, &attr)) {
			if (dwarf_formudata(&attr, &count))
				unknown = true;
		} else if (dwarf_attr(&c, DW_AT_upper_bound, &attr)) {
			if (!die_bound(&c, DW_AT_upper_bound, &upper) ||
			    (dwarf_attr(&c, DW_AT_lower_bound, &attr) &&
			     !die_bound(&c, DW_AT_lower_bound, &lower)))
				unknown = true;
			else if (upper >= lower)
				count = (uint64_t)(upper - lower) + 1;
		}
		if (unknown)
			continue;
		if (count && n > UINT64_MAX / count)
			unknown = true;
		n *= count;
	}
	if (ret < 0)
		return SHAPE_SIZE_ANY;
	if (!dims || (!n && !unknown))
		return 0;
	if (unknown || !die_ref(t, DW_AT_type, &e))
		return SHAPE_SIZE_ANY;
	elem = dwarf_shapes__type_bytes(w, &e, depth + 1);
	if (elem == SHAPE_SIZE_ANY || (elem && n > UINT64_MAX / 8 / elem))
		return SHAPE_SIZE_ANY;
	return elem * n;
}

/*
 * The byte size of base type @t in BTF.  BTF has no INT of a size that is
 * not a power of two up to 16 (Rust's () has 0), nor one without a name:
 * the encoder writes pahole's 4-byte __SANITIZED_FAKE_INT__ for those,
 * which is what a member of such a type gets (a 12-byte float is a
 * FLOAT, with the default features).  In C++ a complex float is a struct
 * of two floats of its size (cu_types.c).
 */
static uint64_t base_type_bytes(const struct dwarf_shapes *w, Dwarf_Die *t)
{
	Dwarf_Word bytes = 0, bits, enc = 0;
	const char *name = dwarf_diename(t);

	if (!die_udata(t, DW_AT_byte_size, &bytes) &&
	    !die_udata(t, DW_AT_bit_size, &bits))
		return SHAPE_SIZE_ANY;
	if (die_udata(t, DW_AT_bit_size, &bits))
		bytes = bits / 8 + !!(bits % 8);
	die_udata(t, DW_AT_encoding, &enc);
	if (enc == DW_ATE_float && bytes == 12)
		return bytes;
	/* Rust's () and ! are empty structs with C names (cu_types.c). */
	if (!bytes && w->lang == LANG_RUST && w->rust_variants)
		return 0;
	if (enc == DW_ATE_complex_float && w->lang == LANG_CXX &&
	    (bytes == 4 || bytes == 8 || bytes == 16 || bytes == 24 ||
	     bytes == 32))
		return bytes;
	if (!bytes || (bytes & (bytes - 1)) || bytes > 16 || !name || !*name)
		return 4;
	return bytes;
}

/*
 * The byte size of type @t worked out from the DWARF (not cached): its
 * DW_AT_byte_size; through typedefs and qualifiers, the size of what they
 * name; a pointer's or reference's (a PTR in BTF) the address size; a
 * pointer to member function's two of them.  SHAPE_SIZE_ANY when the type
 * is only declared, has no size, or is a function.
 */
static uint64_t dwarf_shapes__type_bytes_uncached(struct dwarf_shapes *w,
						 Dwarf_Die *t, int depth)
{
	Dwarf_Word size;
	Dwarf_Die to;
	bool decl = false;
	Dwarf_Attribute attr;

	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		return die_udata(t, DW_AT_byte_size, &size) ? size : w->ptr_size;
	case DW_TAG_ptr_to_member_type:
		if (die_udata(t, DW_AT_byte_size, &size))
			return size;
		return die_ref(t, DW_AT_type, &to) &&
		       dwarf_tag(&to) == DW_TAG_subroutine_type ?
		       2 * w->ptr_size : w->ptr_size;
	case DW_TAG_typedef:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
	case DW_TAG_packed_type:
	case DW_TAG_shared_type:
		if (!die_ref(t, DW_AT_type, &to))
			return SHAPE_SIZE_ANY;	/* void */
		return dwarf_shapes__type_bytes(w, &to, depth + 1);
	case DW_TAG_array_type:
		if (die_udata(t, DW_AT_byte_size, &size))
			return size;
		return dwarf_shapes__array_bytes(w, t, depth);
	case DW_TAG_subroutine_type:
		return SHAPE_SIZE_ANY;
	case DW_TAG_base_type:
		return base_type_bytes(w, t);
	default:
		if (dwarf_attr(t, DW_AT_declaration, &attr) &&
		    !dwarf_formflag(&attr, &decl) && decl)
			return SHAPE_SIZE_ANY;
		if (die_udata(t, DW_AT_byte_size, &size))
			return size;
		/* An enum may give only its underlying type. */
		if (dwarf_tag(t) == DW_TAG_enumeration_type &&
		    die_ref(t, DW_AT_type, &to))
			return dwarf_shapes__type_bytes(w, &to, depth + 1);
		return SHAPE_SIZE_ANY;
	}
}

/*
 * The byte size of type @t (dwarf_shapes__type_bytes_uncached()), cached
 * by the DIE's address, which no other DIE of the unit, of a partial unit
 * or of a supplementary file shares.
 */
static uint64_t dwarf_shapes__type_bytes(struct dwarf_shapes *w,
					 Dwarf_Die *t, int depth)
{
	uint64_t key = (uintptr_t)t->addr, size;
	uint32_t v;

	if (depth > TYPE_MAX_DEPTH)
		return SHAPE_SIZE_ANY;
	if (u32_map__find(&w->sizes, key, &v))
		return v == SIZE_NONE32 ? SHAPE_SIZE_ANY : v;
	size = dwarf_shapes__type_bytes_uncached(w, t, depth);
	/* A failed add only leaves it uncached. */
	if (size == SHAPE_SIZE_ANY)
		u32_map__add(&w->sizes, key, SIZE_NONE32);
	else if (size < SIZE_NONE32)
		u32_map__add(&w->sizes, key, size);
	return size;
}

/*
 * The byte offset DW_AT_data_member_location @attr gives: a constant, or
 * an expression of one DW_OP_plus_uconst or DW_OP_constu (DWARF 2 and
 * 3).  -EINVAL for anything else (a virtual base's, which reads the
 * vtable).
 */
static int member_location(Dwarf_Attribute *attr, uint64_t *off)
{
	Dwarf_Sword s;
	Dwarf_Op *ops;
	size_t n;

	switch (dwarf_whatform(attr)) {
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		if (dwarf_formsdata(attr, &s) || s < 0)
			return -EINVAL;
		*off = s;
		return 0;
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_exprloc:
		if (dwarf_getlocation(attr, &ops, &n) || n != 1 ||
		    (ops[0].atom != DW_OP_plus_uconst &&
		     ops[0].atom != DW_OP_constu))
			return -EINVAL;
		*off = ops[0].number;
		return 0;
	default:
		return dwarf_formudata(attr, off) ? -EINVAL : 0;
	}
}

/* One line naming the file, the CU and @die; returns -EINVAL. */
static int dwarf_shapes__err(struct dwarf_shapes *w, Dwarf_Die *die,
			     const char *what)
{
	int e = dwarf_errno();
	const char *msg = e ? dwarf_errmsg(e) : NULL;

	pr_err("%s: CU 0x%llx: DIE 0x%llx: %s%s%s", w->path,
	       (unsigned long long)dwarf_dieoffset(&w->unit),
	       (unsigned long long)dwarf_dieoffset(die), what,
	       msg ? ": " : "", msg ? msg : "");
	return -EINVAL;
}

/*
 * dwarf_shapes__member() fills @m from member or base class @die, its
 * attributes in @da.  Returns 0 or -EINVAL (reported).
 */
static int dwarf_shapes__member(struct dwarf_shapes *w, Dwarf_Die *die,
				struct die_slots *da, struct shape_member *m)
{
	Dwarf_Word bits = 0, storage, byte_off = 0;
	Dwarf_Attribute *loc = die_slots__at(da, A_LOCATION);
	Dwarf_Die type;
	Dwarf_Sword bo;
	uint64_t tsize = SHAPE_SIZE_ANY;

	if (die_slots__at(da, A_TYPE) &&
	    dwarf_ref__die(&da->a[A_TYPE], &type))
		tsize = dwarf_shapes__type_bytes(w, &type, 0);
	m->name = NULL;
	if (die_slots__at(da, A_NAME))
		m->name = dwarf_formstring(&da->a[A_NAME]);
	die_slots__udata(da, A_BIT_SIZE, &bits);
	m->bit_size = bits ? bits :
		      tsize == SHAPE_SIZE_ANY || tsize > UINT64_MAX / 16 ?
		      SHAPE_SIZE_ANY : tsize * 8;
	if (die_slots__udata(da, A_DATA_BIT_OFFSET, &m->bit_off))
		return 0;
	if (loc && member_location(loc, &byte_off))
		return dwarf_shapes__err(w, die, "bad DW_AT_data_member_location");
	if (byte_off > UINT64_MAX / 16)
		return dwarf_shapes__err(w, die, "member offset out of range");
	m->bit_off = byte_off * 8;
	if (!bits || !die_slots__at(da, A_BIT_OFFSET) ||
	    dwarf_formsdata(&da->a[A_BIT_OFFSET], &bo))
		return 0;
	/*
	 * DWARF 2-4 count a bit-field's DW_AT_bit_offset from the most
	 * significant bit of its storage unit (DW_AT_byte_size, else the
	 * type's size); on a little-endian machine the bit position is
	 * counted from the other end.
	 */
	if (!die_slots__udata(da, A_BYTE_SIZE, &storage))
		storage = tsize;
	if (storage == SHAPE_SIZE_ANY || storage > UINT32_MAX)
		return dwarf_shapes__err(w, die, "bit-field without a storage size");
	if (w->big_endian)
		m->bit_off += bo;
	else
		m->bit_off += storage * 8 - bo - bits;
	return 0;
}

/*
 * The name the encoder gives the @i-th base class, for messages; NULL
 * (unnamed) past the first few.
 */
static const char *base_name(size_t i)
{
	static const char *const names[] = {
		"__base0", "__base1", "__base2", "__base3",
		"__base4", "__base5", "__base6", "__base7",
	};

	return i < sizeof(names) / sizeof(names[0]) ? names[i] : NULL;
}

/* Has variant part @vp neither a tag member nor a variant? */
static bool variant_part_empty(Dwarf_Die *vp)
{
	Dwarf_Die c;
	int ret;

	for (ret = dwarf_child(vp, &c); ret == 0; ret = dwarf_siblingof(&c, &c))
		if (dwarf_tag(&c) == DW_TAG_variant ||
		    dwarf_tag(&c) == DW_TAG_member)
			return false;
	return true;
}

/*
 * dwarf_shapes__members() makes @s's members from the children of
 * struct @die: its data members and non-virtual base classes.  Sets
 * *@variant when it has a DW_TAG_variant_part.  Returns 0, -ENOMEM or
 * -EINVAL (reported).
 */
static int dwarf_shapes__members(struct dwarf_shapes *w, Dwarf_Die *die,
				 struct shape *s, bool *variant)
{
	bool empty_part = false;
	struct die_slots da;
	Dwarf_Die c;
	size_t n = 0, nr_bases = 0;
	int ret, err;

	for (ret = dwarf_child(die, &c); ret == 0;
	     ret = dwarf_siblingof(&c, &c)) {
		int tag = dwarf_tag(&c);
		Dwarf_Word virt;

		if (tag == DW_TAG_variant_part)
			*variant = true;
		if (tag == DW_TAG_variant_part && variant_part_empty(&c))
			empty_part = true;
		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		if (die_slots__read(&da, &c))
			return dwarf_shapes__err(w, &c, "cannot read attributes");
		/* Static members are no data members. */
		if (tag == DW_TAG_member &&
		    (die_slots__flag(&da, A_EXTERNAL) ||
		     die_slots__flag(&da, A_DECLARATION)))
			continue;
		/* A virtual base has no fixed offset. */
		if (tag == DW_TAG_inheritance &&
		    die_slots__udata(&da, A_VIRTUALITY, &virt) &&
		    virt != DW_VIRTUALITY_none)
			continue;
		if (grow_array((void **)&w->m, &w->cap_m, n + 1, sizeof(*w->m),
			       64))
			return -ENOMEM;
		err = dwarf_shapes__member(w, &c, &da, &w->m[n]);
		if (err)
			return err;
		if (tag == DW_TAG_inheritance)
			w->m[n].name = base_name(nr_bases++);
		/*
		 * A member that runs past its struct (a Rust unsized tail)
		 * is bytes up to the end where names are C's (fwd_members.h).
		 */
		if (dwarf_tag(die) != DW_TAG_union_type &&
		    (w->lang == LANG_CXX ||
		     (w->lang == LANG_RUST && w->rust_variants)) &&
		    w->m[n].bit_size != SHAPE_SIZE_ANY &&
		    w->m[n].bit_size != SHAPE_SIZE_BAD &&
		    w->m[n].bit_off + w->m[n].bit_size > s->size * 8)
			w->m[n].bit_size = SHAPE_SIZE_ANY;
		n++;
	}
	if (ret < 0)
		return dwarf_shapes__err(w, die, "cannot read members");
	/*
	 * The encoder's union of the variants (and the tag), at 0; none for
	 * a variant part with neither (core::convert::Infallible).
	 */
	if (*variant && w->rust_variants && !empty_part) {
		if (grow_array((void **)&w->m, &w->cap_m, n + 1, sizeof(*w->m),
			       64))
			return -ENOMEM;
		w->m[n++] = (struct shape_member){ .bit_off = 0,
						   .bit_size = s->size * 8 };
	}
	s->m = w->m;
	s->nr = n;
	shape__sort(s);
	return 0;
}

/*
 * Appends @name (and "::" with @sep) to the scope; returns the length to
 * give back to dwarf_shapes__pop(), or -ENOMEM.
 */
static long dwarf_shapes__push(struct dwarf_shapes *w, const char *name,
			       bool sep)
{
	size_t old = w->scope_len, n = strlen(name);

	if (grow_array((void **)&w->scope, &w->cap_scope, old + n + 3, 1, 256))
		return -ENOMEM;
	memcpy(w->scope + old, name, n);
	if (sep)
		memcpy(w->scope + old + n, "::", 2);
	w->scope_len = old + n + (sep ? 2 : 0);
	w->scope[w->scope_len] = '\0';
	return old;
}

static void dwarf_shapes__pop(struct dwarf_shapes *w, long old)
{
	w->scope_len = old;
	if (w->scope)
		w->scope[old] = '\0';
}

static int dwarf_shapes__children(struct dwarf_shapes *w, Dwarf_Die *parent,
				  int depth);

/*
 * Walks @die's children inside scope @name (C++ only: other languages'
 * names are compared as they are).
 */
static int dwarf_shapes__scoped(struct dwarf_shapes *w, Dwarf_Die *die,
				const char *name, int depth)
{
	long old = 0;
	int err;

	if (!dwarf_haschildren(die))
		return 0;
	if (w->lang == LANG_CXX) {
		old = dwarf_shapes__push(w, name, true);
		if (old < 0)
			return old;
	}
	err = dwarf_shapes__children(w, die, depth + 1);
	if (w->lang == LANG_CXX)
		dwarf_shapes__pop(w, old);
	return err;
}

/*
 * dwarf_shapes__composite() hands the shape of struct, class or union
 * @die to w->fn when it is a definition with a size, then walks the
 * types nested in it.
 */
static int dwarf_shapes__composite(struct dwarf_shapes *w, Dwarf_Die *die,
				   int tag, int depth)
{
	struct dwarf_shape_info info = { .unit = &w->unit, .die = die,
					 .lang = w->lang };
	struct shape s = { .kind = tag == DW_TAG_union_type ? SHAPE_UNION :
							     SHAPE_STRUCT };
	const char *name = NULL;
	struct die_slots da;
	long old = 0;
	int err;

	if (die_slots__read(&da, die))
		return dwarf_shapes__err(w, die, "cannot read attributes");
	if (die_slots__at(&da, A_NAME))
		name = dwarf_formstring(&da.a[A_NAME]);
	s.name = name ? name : "";
	if (!die_slots__flag(&da, A_DECLARATION) &&
	    die_slots__udata(&da, A_BYTE_SIZE, &s.size)) {
		err = dwarf_shapes__members(w, die, &s, &info.variant_part);
		if (err)
			return err;
		if (w->lang == LANG_CXX && name) {
			old = dwarf_shapes__push(w, name, false);
			if (old < 0)
				return old;
			info.qual_name = w->scope;
		}
		w->nr_dies++;
		err = w->fn(w->arg, &s, &info);
		if (info.qual_name)
			dwarf_shapes__pop(w, old);
		if (err)
			return err;
	}
	return dwarf_shapes__scoped(w, die, name ? name : "(anonymous)", depth);
}

/* The language class of unit @die, or @dflt when it names none. */
static enum shape_lang unit_lang(Dwarf_Die *die, enum shape_lang dflt)
{
	Dwarf_Word lang;

	if (!die_udata(die, DW_AT_language, &lang))
		return dflt;
	switch (lang) {
	case DW_LANG_C_plus_plus:
	case DW_LANG_C_plus_plus_03:
	case DW_LANG_C_plus_plus_11:
	case DW_LANG_C_plus_plus_14:
		return LANG_CXX;
	case DW_LANG_Rust:
		return LANG_RUST;
	default:
		return LANG_C;
	}
}

/*
 * dwarf_shapes__import() walks the partial unit (dwz) that
 * DW_TAG_imported_unit @die imports, unless an earlier unit imported it:
 * its types are then walked already.
 */
static int dwarf_shapes__import(struct dwarf_shapes *w, Dwarf_Die *die,
				int depth)
{
	enum shape_lang lang = w->lang;
	Dwarf_Die unit;
	uint32_t v;
	int err;

	if (!die_ref(die, DW_AT_import, &unit))
		return dwarf_shapes__err(w, die, "bad DW_AT_import");
	if (dwarf_tag(&unit) != DW_TAG_partial_unit ||
	    u32_map__find(&w->units, (uintptr_t)unit.addr, &v))
		return 0;
	if (u32_map__add(&w->units, (uintptr_t)unit.addr, 1))
		return -ENOMEM;
	/* Units are imported at the top level: the scope is empty. */
	w->lang = unit_lang(&unit, lang);
	err = dwarf_haschildren(&unit) ?
	      dwarf_shapes__children(w, &unit, depth + 1) : 0;
	w->lang = lang;
	return err;
}

/*
 * dwarf_shapes__die() visits @die: a struct, class or union, or a DIE
 * that may hold some (a namespace, a function, a block, an imported
 * unit).  Other DIEs hold no type definitions and are skipped whole.
 */
static int dwarf_shapes__die(struct dwarf_shapes *w, Dwarf_Die *die, int depth)
{
	int tag = dwarf_tag(die);
	const char *name;

	switch (tag) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return dwarf_shapes__composite(w, die, tag, depth);
	case DW_TAG_namespace:
		name = dwarf_diename(die);
		return dwarf_shapes__scoped(w, die,
					    name ? name : "(anonymous namespace)",
					    depth);
	case DW_TAG_subprogram:
	case DW_TAG_lexical_block:
		return dwarf_haschildren(die) ?
		       dwarf_shapes__children(w, die, depth + 1) : 0;
	case DW_TAG_imported_unit:
		return dwarf_shapes__import(w, die, depth);
	default:
		return 0;
	}
}

static int dwarf_shapes__children(struct dwarf_shapes *w, Dwarf_Die *parent,
				  int depth)
{
	Dwarf_Die c;
	int ret, err;

	if (depth > WALK_MAX_DEPTH)
		return dwarf_shapes__err(w, parent, "DIEs nested too deep");
	for (ret = dwarf_child(parent, &c); ret == 0;
	     ret = dwarf_siblingof(&c, &c)) {
		err = dwarf_shapes__die(w, &c, depth);
		if (err)
			return err;
	}
	return ret < 0 ? dwarf_shapes__err(w, parent, "cannot read children") :
			 0;
}

int dwarf_shapes__walk(struct dwarf_shapes *w, Dwarf_Die *cu)
{
	w->unit = *cu;
	w->lang = unit_lang(cu, LANG_C);
	dwarf_shapes__pop(w, 0);
	/* DIE addresses are unique, but the cache need not outgrow a CU. */
	u32_map__clear(&w->sizes);
	return dwarf_haschildren(cu) ? dwarf_shapes__children(w, cu, 0) : 0;
}

void dwarf_shapes__free(struct dwarf_shapes *w)
{
	free(w->m);
	free(w->scope);
	u32_map__free(&w->sizes);
	u32_map__free(&w->units);
	w->m = NULL;
	w->scope = NULL;
	w->cap_m = w->cap_scope = w->scope_len = 0;
}
