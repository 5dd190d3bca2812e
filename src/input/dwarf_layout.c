// SPDX-License-Identifier: GPL-2.0-only
/*
 * The scan of a file's abbreviation tables for forms and tags that refer
 * across units or files, and a unit's language read with its
 * abbreviation (dwarf_layout.h).
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
 * The format of an abbreviation table is DWARF 5's section 7.5.3 (a code,
 * a tag, a children byte, then name and form pairs up to 0, 0), which
 * DWARF 2 to 4 share but for DW_FORM_implicit_const.
 *
 * abbrev_decl__head() reads a declaration's code, tag and children byte
 * at *@p; a code of 0 ends the table (and reads nothing more).  It
 * returns false if they cannot be read.
 */
static bool abbrev_decl__head(const unsigned char **p,
			      const unsigned char *end, uint64_t *code,
			      uint64_t *tag)
{
	if (!uleb_read(p, end, code))
		return false;
	if (!*code)
		return true;
	if (!uleb_read(p, end, tag) || *p >= end)
		return false;
	(*p)++;			/* The DW_CHILDREN_* byte. */
	return true;
}

/*
 * abbrev_spec__next() reads the name and form pair at *@p, and an
 * implicit constant's value into *@implicit; 0, 0 ends the declaration.
 * It returns false if they cannot be read.
 */
static bool abbrev_spec__next(const unsigned char **p,
			      const unsigned char *end, uint64_t *name,
			      uint64_t *form, int64_t *implicit)
{
	return uleb_read(p, end, name) && uleb_read(p, end, form) &&
	       (*form != DW_FORM_implicit_const ||
		sleb_read(p, end, implicit));
}

/*
 * Scans the abbreviation table at @off and sets the flags of @out that its
 * tags and forms call for.  Returns false if the table cannot be read to
 * its end.
 */
static bool abbrev_table__scan(const unsigned char *sec, size_t size,
			       uint64_t off, struct dwarf_layout *out)
{
	const unsigned char *p, *end = sec + size;
	uint64_t code, tag, name, form;
	int64_t v;

	if (off >= size)
		return false;
	p = sec + off;
	for (;;) {
		if (!abbrev_decl__head(&p, end, &code, &tag))
			return false;
		if (!code)
			return true;
		if (tag == DW_TAG_imported_unit)
			out->cross_units = true;
		else if (tag == DW_TAG_partial_unit)
			out->partial_units = true;
		else if (tag == DW_TAG_LLVM_annotation)
			out->llvm_annotations = true;
		for (;;) {
			if (!abbrev_spec__next(&p, end, &name, &form, &v))
				return false;
			if (!name && !form)
				break;
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
 * abbrev_table__find() returns where the name and form pairs of the
 * abbreviation with @code begin in the table at @off of @sec (@size
 * bytes), or NULL if the table cannot be read up to it.
 */
static const unsigned char *abbrev_table__find(const unsigned char *sec,
					       size_t size, uint64_t off,
					       uint64_t code)
{
	const unsigned char *p, *end = sec + size;
	uint64_t c, tag, name, form;
	int64_t v;

	if (off >= size)
		return NULL;
	p = sec + off;
	for (;;) {
		if (!abbrev_decl__head(&p, end, &c, &tag) || !c)
			return NULL;
		if (c == code)
			return p;
		do {
			if (!abbrev_spec__next(&p, end, &name, &form, &v))
				return NULL;
		} while (name || form);
	}
}

int dwarf_layout__die_lang(const unsigned char *die, const unsigned char *end,
			   const unsigned char *abbrev, size_t abbrev_size,
			   uint64_t abbrev_off, unsigned int version,
			   uint8_t addr_size, uint8_t off_size)
{
	const unsigned char *p = die, *spec, *send;
	uint64_t code, name, form, v;
	int64_t implicit;

	if (!die || !abbrev || !uleb_read(&p, end, &code))
		return -1;
	spec = abbrev_table__find(abbrev, abbrev_size, abbrev_off, code);
	if (!spec)
		return -1;
	send = abbrev + abbrev_size;
	for (;;) {
		struct dwarf_form_layout l;

		if (!abbrev_spec__next(&spec, send, &name, &form, &implicit) ||
		    (!name && !form))
			return -1;
		if (form == DW_FORM_implicit_const) {
			if (name == DW_AT_language)
				return implicit >= 0 && implicit <= 0xffff ?
				       (int)implicit : -1;
			continue;
		}
		l = dwarf_form__layout(form, version, addr_size, off_size);
		if (name != DW_AT_language) {
			p = dwarf_form__skip(l, p, end);
			if (!p)
				return -1;
			continue;
		}
		/* Unsigned constants; any other form goes to libdw. */
		if (form == DW_FORM_udata) {
			if (!uleb_read(&p, end, &v))
				return -1;
		} else if (form == DW_FORM_data1 || form == DW_FORM_data2 ||
			   form == DW_FORM_data4 || form == DW_FORM_data8) {
			if ((size_t)(end - p) < l.size)
				return -1;
			v = 0;
			memcpy(&v, p, l.size);
		} else {
			return -1;
		}
		return v <= 0xffff ? (int)v : -1;
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
			    Dwarf_Off unit_off, struct dwarf_unit_head *head)
{
	struct dwarf_unit_head h = { 0 };

	h.valid = !dwarf_next_unit(dw, unit_off, &h.next, NULL, &h.version,
				   &h.abbrev_off, &h.addr_size, &h.off_size,
				   NULL, NULL);
	*head = h;
	if (!h.valid) {
		l->cross_units = true;
		return;
	}
	/*
	 * Units usually share a table with the unit before, so a table
	 * scanned just before is not scanned again.
	 */
	if (h.abbrev_off == l->last)
		return;
	l->last = h.abbrev_off;
	if (!l->abbrev ||
	    !abbrev_table__scan(l->abbrev, l->abbrev_size, h.abbrev_off, l))
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
