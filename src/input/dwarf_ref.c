// SPDX-License-Identifier: GPL-2.0-only
/*
 * DIE references (dwarf_ref.h).  A DW_FORM_ref_sup4/8 value is an offset
 * into the supplementary file, in the ELF file's byte order; it is
 * decoded here because libdw 0.188 looks for it in the main file.
 */
#include <stdbool.h>
#include <stdint.h>
#include <dwarf.h>
#include <gelf.h>

#include "input/dwarf_ref.h"

Dwarf_Die *dwarf_ref__die(Dwarf_Attribute *attr, Dwarf_Die *out)
{
	unsigned int form = dwarf_whatform(attr), size, i;
	const unsigned char *p = attr->valp, *ident;
	Dwarf *dw, *alt;
	uint64_t off = 0;
	bool big;

	if (form != DW_FORM_ref_sup4 && form != DW_FORM_ref_sup8)
		return dwarf_formref_die(attr, out);
	dw = dwarf_cu_getdwarf(attr->cu);
	alt = dw ? dwarf_getalt(dw) : NULL;
	ident = dw && dwarf_getelf(dw) ?
		(const unsigned char *)elf_getident(dwarf_getelf(dw), NULL) :
		NULL;
	if (!alt || !ident || !p)
		return NULL;
	big = ident[EI_DATA] == ELFDATA2MSB;
	size = form == DW_FORM_ref_sup4 ? 4 : 8;
	for (i = 0; i < size; i++)
		off |= (uint64_t)p[big ? i : size - 1 - i] << (8 * (size - 1 - i));
	return dwarf_offdie(alt, off, out);
}

/* The kind of a struct, union, class or enum tag: a class is a struct. */
static int stub_kind(int tag)
{
	switch (tag) {
	case DW_TAG_class_type:
		return DW_TAG_structure_type;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		return tag;
	default:
		return 0;
	}
}

Dwarf_Die *dwarf_ref__stub(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute sig;
	int kind = stub_kind(dwarf_tag(die));

	if (!kind || !dwarf_attr(die, DW_AT_signature, &sig) ||
	    !dwarf_formref_die(&sig, out) || stub_kind(dwarf_tag(out)) != kind)
		return NULL;
	return out;
}

Dwarf_Die *dwarf_ref__type(Dwarf_Attribute *attr, Dwarf_Die *out)
{
	Dwarf_Die t;

	if (!dwarf_ref__die(attr, out))
		return NULL;
	if (dwarf_ref__stub(out, &t))
		*out = t;
	return out;
}
