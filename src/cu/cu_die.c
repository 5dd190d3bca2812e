// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading one DIE: its attributes in one pass (attribute slots), names kept
 * past the CU, btf_type_tag/btf_decl_tag annotations (clang's and gcc's),
 * member offsets.  The bottom of the per-CU code: of the other stages it
 * calls only input/dwarf_ref.c, for references into a dwz file.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cu/cu_internal.h"
#include "input/dwarf_ref.h"

/* cu_internal.h has the contract; input/dwarf_ref.c reads dwz's forms. */
Dwarf_Die *die__formref(Dwarf_Attribute *attr, Dwarf_Die *out)
{
	return dwarf_ref__die(attr, out);
}

/* The DWARF version of @die's type unit, or 0 if it is in none. */
static int die__type_unit_version(Dwarf_Die *die)
{
	Dwarf_Half version;
	uint8_t unit_type;

	if (!die->cu || dwarf_cu_info(die->cu, &version, &unit_type, NULL,
				      NULL, NULL, NULL, NULL) ||
	    unit_type != DW_UT_type)
		return 0;
	return version;
}

bool die__in_type_unit(Dwarf_Die *die)
{
	return die__type_unit_version(die) != 0;
}

bool die__in_debug_types(Dwarf_Die *die)
{
	int v = die__type_unit_version(die);

	return v && v < 5;
}

Dwarf_Die *die__type_ref(Dwarf_Attribute *attr, Dwarf_Die *out)
{
	return dwarf_ref__type(attr, out);
}

/*
 * Whatever the encoder reads of a DIE, here or through libdw, is in the
 * batch cache's key: the digest (cache/cu_digest.c, offset_unread()) leaves
 * out only what the encoder never reads.  A value read here for the first
 * time must not be one it leaves out, or a cache hit gives stale BTF.
 */
int die_attr_slot(unsigned int name)
{
	switch (name) {
	case DW_AT_name: return DA_NAME;
	case DW_AT_type: return DA_TYPE;
	case DW_AT_byte_size: return DA_BYTE_SIZE;
	case DW_AT_bit_size: return DA_BIT_SIZE;
	case DW_AT_data_member_location: return DA_DATA_MEMBER_LOCATION;
	case DW_AT_data_bit_offset: return DA_DATA_BIT_OFFSET;
	case DW_AT_bit_offset: return DA_BIT_OFFSET;
	case DW_AT_declaration: return DA_DECLARATION;
	case DW_AT_external: return DA_EXTERNAL;
	case DW_AT_encoding: return DA_ENCODING;
	case DW_AT_upper_bound: return DA_UPPER_BOUND;
	case DW_AT_count: return DA_COUNT;
	case DW_AT_const_value: return DA_CONST_VALUE;
	default: return -1;
	}
}

const char *cu_ctx__keep_name(struct cu_ctx *ctx, const Dwarf_Attribute *attr,
			      const char *name)
{
	if (!name || attr->form != DW_FORM_string)
		return name;
	return str_arena__dup(&ctx->frag->strs, name);
}

const char *cu_ctx__keep_str(struct cu_ctx *ctx, const char *s)
{
	const struct encode_env *env = ctx->env;

	if (!s || (env->str_start && s >= env->str_start &&
		   s < env->str_start + env->str_size))
		return s;
	return str_arena__dup(&ctx->frag->strs, s);
}


/*
 * Walks gcc's DW_AT_GNU_annotation chain of @die, with the rules that
 * cu_internal.h states for die__for_each_annotation().  Type tags are
 * collected first and handed to @fn last first.  Returns 0, @fn's first
 * non-zero return, or -ELOOP for a chain longer than GNU_ANNOTATION_MAX.
 */
static int die__for_each_gnu_annotation(Dwarf_Die *die, bool decl,
					int (*fn)(void *arg, const char *value),
					void *arg)
{
	const char *type_tags[GNU_ANNOTATION_MAX];
	Dwarf_Die cur = *die, next;
	Dwarf_Attribute attr;
	int n = 0, steps = 0, err;

	while (dwarf_attr(&cur, DW_AT_GNU_annotation, &attr) &&
	       die__formref(&attr, &next) &&
	       dwarf_tag(&next) == DW_TAG_GNU_annotation) {
		const char *name = dwarf_diename(&next), *value;

		if (++steps > GNU_ANNOTATION_MAX)
			return -ELOOP;
		value = dwarf_attr(&next, DW_AT_const_value, &attr) ?
			dwarf_formstring(&attr) : NULL;
		/* As in pahole, type tags end at the first other annotation. */
		if (!decl && (!name || strcmp(name, "btf_type_tag")))
			break;
		if (decl && name && !strcmp(name, "btf_decl_tag") && value) {
			err = fn(arg, value);
			if (err)
				return err;
		} else if (!decl && value) {
			type_tags[n++] = value;
		}
		cur = next;
	}
	while (n--) {
		err = fn(arg, type_tags[n]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * cu_internal.h has the contract.  clang's annotations are children of
 * the DIE; gcc's chain is read only for decl tags or when the DIE had no
 * clang type tags.  Each is looked for only where @kinds says the DIE's
 * unit may have it: walking a struct's members to find no annotation
 * child, and asking libdw for an attribute the DIE lacks, were a fifth
 * of the time on Linux 7.2's vmlinux (gcc 16, which may emit gcc's form).
 */
int die__for_each_annotation(Dwarf_Die *die, bool decl, unsigned int kinds,
			     int (*fn)(void *arg, const char *value), void *arg)
{
	const char *want = decl ? "btf_decl_tag" : "btf_type_tag";
	Dwarf_Die child;
	int ret = 1, err, found = 0;

	if ((kinds & DIE_ANNOT_LLVM) && dwarf_haschildren(die))
		ret = dwarf_child(die, &child);
	while (ret == 0) {
		if (dwarf_tag(&child) == DW_TAG_LLVM_annotation) {
			const char *name = dwarf_diename(&child);
			Dwarf_Attribute attr;
			const char *value;

			if (name && !strcmp(name, want) &&
			    dwarf_attr(&child, DW_AT_const_value, &attr) &&
			    (value = dwarf_formstring(&attr))) {
				err = fn(arg, value);
				if (err)
					return err;
				found++;
			}
		}
		ret = dwarf_siblingof(&child, &child);
	}
	if (ret < 0)
		return -EINVAL;
	if ((found && !decl) || !(kinds & DIE_ANNOT_GNU))
		return 0;
	return die__for_each_gnu_annotation(die, decl, fn, arg);
}

/*
 * DW_AT_data_member_location is a constant, or in DWARF 2 an expression.
 * Only the one-operation expressions DW_OP_plus_uconst and DW_OP_constu
 * are accepted; any other location gives -EINVAL.
 */
int member_byte_offset(Dwarf_Attribute *attr, Dwarf_Word *off)
{
	Dwarf_Op *ops;
	size_t nops;

	*off = 0;
	if (!attr)
		return 0;
	switch (dwarf_whatform(attr)) {
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_udata:
	case DW_FORM_sdata:
	case DW_FORM_implicit_const:
		return dwarf_formudata(attr, off) ? -EINVAL : 0;
	default:
		if (dwarf_getlocation(attr, &ops, &nops) || nops != 1)
			return -EINVAL;
		if (ops[0].atom != DW_OP_plus_uconst && ops[0].atom != DW_OP_constu)
			return -EINVAL;
		*off = ops[0].number;
		return 0;
	}
}

/*
 * cu_internal.h has the contract.  The walk gives up after DIE_MAX_DEPTH
 * steps, so that a loop of types in corrupt DWARF ends.
 */
uint64_t die__type_size(Dwarf_Die *die, unsigned int ptr_size)
{

	Dwarf_Die t = *die;
	int i;

	for (i = 0; i < DIE_MAX_DEPTH; i++) {
		Dwarf_Attribute attr;
		Dwarf_Word sz;
		int tag = dwarf_tag(&t);

		/* A C++ reference is a pointer in BTF, and in registers. */
		if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
		    tag == DW_TAG_rvalue_reference_type)
			return ptr_size;
		if (tag == DW_TAG_ptr_to_member_type)
			return die__ptr_to_member_fn(&t) ? 2 * ptr_size : ptr_size;
		if (die__is_nullptr_type(&t))
			return ptr_size;
		if (die_udata(&t, DW_AT_byte_size, &sz) && sz)
			return sz;
		if (!dwarf_attr(&t, DW_AT_type, &attr) ||
		    !die__type_ref(&attr, &t))
			return 0;
	}
	return 0;
}

bool die__is_nullptr_type(Dwarf_Die *die)
{
	const char *name;

	if (dwarf_tag(die) != DW_TAG_unspecified_type)
		return false;
	name = dwarf_diename(die);
	return name && !strcmp(name, "decltype(nullptr)");
}

bool die__ptr_to_member_fn(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;

	return dwarf_attr(die, DW_AT_type, &attr) && die__formref(&attr, &t) &&
	       dwarf_tag(&t) == DW_TAG_subroutine_type;
}
