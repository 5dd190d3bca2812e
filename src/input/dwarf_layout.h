/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a file's DWARF is laid out across units, learnt before any CU is
 * encoded: whether a unit may refer to DIEs of another unit (LTO's
 * DW_FORM_ref_addr, dwz's imported partial units) or of a supplementary
 * file (dwz -m), read from the abbreviation tables themselves (pahole
 * looks for DW_FORM_ref_addr the same way); and each unit's language,
 * from its DIE and abbreviation.
 */
#ifndef DWARF2BTF_DWARF_LAYOUT_H
#define DWARF2BTF_DWARF_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

/* clang's DW_TAG_LLVM_annotation (btf_type_tag / btf_decl_tag attributes) */
#define DW_TAG_LLVM_annotation	0x6000
/*
 * gcc >= 15's: a DIE's DW_AT_GNU_annotation refers to a DW_TAG_GNU_annotation
 * DIE, whose own DW_AT_GNU_annotation refers to the next one.
 */
#define DW_TAG_GNU_annotation	0x6001
#define DW_AT_GNU_annotation	0x2139

struct dwarf_layout {
	/* A table has DW_FORM_ref_addr or DW_TAG_imported_unit. */
	bool cross_units;
	/* A table has DW_FORM_GNU_ref_alt, _strp_alt or a *_sup form. */
	bool alt_forms;
	/* A table has DW_TAG_partial_unit (dwz). */
	bool partial_units;
	/*
	 * A table has DW_FORM_ref_sig8: a unit refers to a type unit, which
	 * DWARF 5 may put in .debug_info among the compile units.
	 */
	bool type_sigs;
	/*
	 * A table has DW_TAG_LLVM_annotation (clang's annotations), or
	 * DW_AT_GNU_annotation (gcc's).
	 */
	bool llvm_annotations;
	bool gnu_annotations;
	/* .debug_abbrev as libdw reads it, and the last table scanned. */
	const unsigned char *abbrev;
	size_t abbrev_size;
	Dwarf_Off last;
};

/*
 * Makes @l ready to scan @dw's abbreviation tables; no flag is set.
 * Without a readable .debug_abbrev, every unit added sets cross_units.
 */
void dwarf_layout__init(struct dwarf_layout *l, Dwarf *dw);

/* A unit's header, as dwarf_next_unit() reads it. */
struct dwarf_unit_head {
	bool valid;		/* it could be read; nothing else is set if not */
	Dwarf_Off next;		/* where the next unit starts */
	Dwarf_Off abbrev_off;
	Dwarf_Half version;
	uint8_t addr_size, off_size;
};

/*
 * Scans the abbreviation table of @dw's unit at @unit_off, and gives its
 * header in *@head.  It is called while the units are listed, so that
 * their headers are read once.  A table (or unit header) that cannot be
 * read counts as one that may refer across units: the careful side.
 */
void dwarf_layout__add_unit(struct dwarf_layout *l, Dwarf *dw,
			    Dwarf_Off unit_off, struct dwarf_unit_head *head);

/*
 * Scans the one abbreviation table at @abbrev_off of @abbrev (@size bytes
 * of .debug_abbrev as libdw reads it) into @l, which it clears first.
 * Returns false if the table cannot be read to its end: @l then tells
 * nothing.
 */
bool dwarf_layout__scan_table(struct dwarf_layout *l,
			      const unsigned char *abbrev, size_t size,
			      uint64_t abbrev_off);

/*
 * dwarf_layout__die_lang() reads the DW_AT_language of the DIE at @die
 * (its unit's bytes end at @end) with the abbreviation table at
 * @abbrev_off of the @abbrev_size bytes of .debug_abbrev at @abbrev, for a
 * unit of DWARF @version with addresses of @addr_size and offsets of
 * @off_size bytes: what the listing of the units needs to know of each
 * before any is encoded (dwarf_units.c).  It returns the language, or -1
 * when it cannot say: no such attribute, a form that is no constant, or
 * bytes that cannot be read.
 */
int dwarf_layout__die_lang(const unsigned char *die, const unsigned char *end,
			   const unsigned char *abbrev, size_t abbrev_size,
			   uint64_t abbrev_off, unsigned int version,
			   uint8_t addr_size, uint8_t off_size);

/*
 * Gives back the pages the scan read when @mapped: the DWARF is read from
 * a mapping of the file (never from memory of ours: those pages would be
 * lost, not given back).
 */
void dwarf_layout__done(struct dwarf_layout *l, Dwarf *dw, bool mapped);

/*
 * Reads every unit's abbreviations and string base here, in one thread,
 * before workers read DIEs of units other than their own: libdw fills
 * these in lazily, so afterwards the workers only ever read them.
 */
void dwarf_layout__prewarm(Dwarf *dw);

#endif
