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
};

/*
 * Scan the abbreviation tables of @dw's units (.debug_abbrev as libdw
 * reads it).  A table that cannot be read counts as one that may refer
 * across units: the careful side.
 */
void dwarf_layout__scan(Dwarf *dw, struct dwarf_layout *out);

/*
 * Before workers read DIEs of units other than their own: every unit's
 * abbreviations and string base are read here, by one thread, so that
 * what libdw would fill in lazily is only ever read afterwards.
 */
void dwarf_layout__prewarm(Dwarf *dw);

#endif
