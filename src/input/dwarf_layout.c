// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scan of a file's abbreviation tables for forms and tags that refer
 * across units or files (dwarf_layout.h).
 */
#include <dwarf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "input/dwarf_form.h"
#include "input/dwarf_layout.h"
#include "lib/leb128.h"
#include "input/elf_file.h"

/*
 * Scans the abbreviation table at @off and sets the flags of @out that its
 * tags and forms call for.  The format is DWARF 5's section 7.5.3 (a code,
 * a tag, a children byte, then name and form pairs up to 0, 0), which
 * DWARF 2 to 4 share but for DW_FORM_implicit_const.  Returns false if the
 * table cannot be read to its end.
 */
static bool abbrev_table__scan(const unsigned char *sec, size_t size,
			       uint64_t off, struct dwarf_layout *out)
{
	const unsigned char *p = sec + off, *end = sec + size;
	uint64_t code, tag, name, form, v;

	if (off >= size)
		return false;
	for (;;) {
		if (!uleb_read(&p, end, &code))
			return false;
		if (!code)
			return true;
		if (!uleb_read(&p, end, &tag) || p >= end)
			return false;
		p++;			/* The DW_CHILDREN_* byte. */
		if (tag == DW_TAG_imported_unit)
			out->cross_units = true;
		else if (tag == DW_TAG_partial_unit)
			out->partial_units = true;
		else if (tag == DW_TAG_LLVM_annotation)
			out->llvm_annotations = true;
		for (;;) {
			if (!uleb_read(&p, end, &name) ||
			    !uleb_read(&p, end, &form))
				return false;
			if (!name && !form)
				break;
			if (form == DW_FORM_implicit_const &&
			    !uleb_read(&p, end, &v))	/* Skips the SLEB. */
				return false;
			if (name == DW_AT_GNU_annotation)
				out->gnu_annotations = true;
			if (form == DW_FORM_ref_addr)
				out->cross_units = true;
			else if (form == DW_FORM_ref_sig8)
				out->type_sigs = true;
			else if (dwarf_form__other_file(form))
				out->alt_forms = true;
		}
	}
}

/*
 * Returns .debug_abbrev as libdw reads it (decompressed, if it was), its
 * size in *SIZE, or NULL if the section cannot be found or read.
 */
static const unsigned char *debug_abbrev(Dwarf *dw, size_t *size)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    (strcmp(name, ".debug_abbrev") &&
		     strcmp(name, ".zdebug_abbrev")))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf)
			return NULL;
		*size = data->d_size;
		return data->d_buf;
	}
	return NULL;
}

void dwarf_layout__init(struct dwarf_layout *l, Dwarf *dw)
{
	*l = (struct dwarf_layout){ .last = (Dwarf_Off)-1 };
	l->abbrev = debug_abbrev(dw, &l->abbrev_size);
}

void dwarf_layout__add_unit(struct dwarf_layout *l, Dwarf *dw,
			    Dwarf_Off unit_off)
{
	Dwarf_Off next, abbrev_off;
	size_t hsize;

	if (dwarf_next_unit(dw, unit_off, &next, &hsize, NULL, &abbrev_off,
			    NULL, NULL, NULL, NULL)) {
		l->cross_units = true;
		return;
	}
	/*
	 * Units usually share a table with the unit before, so a table
	 * scanned just before is not scanned again.
	 */
	if (abbrev_off == l->last)
		return;
	l->last = abbrev_off;
	if (!l->abbrev ||
	    !abbrev_table__scan(l->abbrev, l->abbrev_size, abbrev_off, l))
		l->cross_units = true;
}

bool dwarf_layout__scan_table(struct dwarf_layout *l,
			      const unsigned char *abbrev, size_t size,
			      uint64_t abbrev_off)
{
	*l = (struct dwarf_layout){ .last = (Dwarf_Off)-1 };
	return abbrev && abbrev_table__scan(abbrev, size, abbrev_off, l);
}

void dwarf_layout__done(struct dwarf_layout *l, Dwarf *dw, bool mapped)
{
	size_t size = 0;
	Elf *elf = mapped ? dwarf_getelf(dw) : NULL;
	const char *file = elf ? elf_rawfile(elf, &size) : NULL;

	if (l->abbrev && file && (const char *)l->abbrev >= file &&
	    (const char *)l->abbrev + l->abbrev_size <= file + size)
		elf_file__drop_pages(l->abbrev, l->abbrev_size);
}

/* Walks every unit once, reading its abbreviations and its name. */
void dwarf_layout__prewarm(Dwarf *dw)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t unit_type;

	/*
	 * libdw looks for a supplementary file once, on first need, and
	 * that once is here, in one thread.  Ours was set already, if any
	 * was needed.
	 */
	dwarf_getalt(dw);

	while (dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie,
			       NULL) == 0) {
		Dwarf_Abbrev *a;
		Dwarf_Off off = 0;
		size_t len;

		/*
		 * Each abbreviation read goes into the unit's hash, so no
		 * worker has to look one up and fill the hash later.
		 */
		while ((a = dwarf_getabbrev(&cudie, off, &len)) &&
		       a != DWARF_END_ABBREV && len)
			off += len;
		/*
		 * Reading the name fills in the unit's string offsets base
		 * (DW_AT_str_offsets_base, for DW_FORM_strx).
		 */
		dwarf_diename(&cudie);
	}
}
