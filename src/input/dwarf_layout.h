/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a file's DWARF is laid out across units, learnt before any CU is
 * encoded: whether a unit may refer to DIEs of another unit (LTO's
 * DW_FORM_ref_addr, dwz's imported partial units) or of a supplementary
 * file (dwz -m), read from the abbreviation tables themselves (pahole
 * looks for DW_FORM_ref_addr the same way).
 */
#ifndef DWARF2BTF_DWARF_LAYOUT_H
#define DWARF2BTF_DWARF_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <elfutils/libdw.h>

struct dwarf_layout {
	bool cross_units;	/* DW_FORM_ref_addr, DW_TAG_imported_unit */
	bool alt_forms;		/* DW_FORM_GNU_ref_alt, _strp_alt, *_sup */
	bool partial_units;	/* DW_TAG_partial_unit (dwz) */
	/* .debug_abbrev as libdw reads it; the last table scanned */
	const unsigned char *abbrev;
	size_t abbrev_size;
	Dwarf_Off last;
};

/* Ready to scan @dw's abbreviation tables. */
void dwarf_layout__init(struct dwarf_layout *l, Dwarf *dw);

/*
 * Scan the abbreviation table of @dw's unit at @unit_off: called while the
 * units are listed, so that their headers are read once.  A table that
 * cannot be read counts as one that may refer across units: the careful
 * side.
 */
void dwarf_layout__add_unit(struct dwarf_layout *l, Dwarf *dw,
			    Dwarf_Off unit_off);

/*
 * Gives back the pages the scan read when @mapped: the DWARF is read from
 * a mapping of the file (never from memory of ours: those pages would be
 * lost, not given back).
 */
void dwarf_layout__done(struct dwarf_layout *l, Dwarf *dw, bool mapped);

/*
 * Before workers read DIEs of units other than their own: every unit's
 * abbreviations and string base are read here, by one thread, so that
 * what libdw would fill in lazily is only ever read afterwards.
 */
void dwarf_layout__prewarm(Dwarf *dw);

#endif
