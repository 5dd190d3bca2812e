/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How a DW_FORM's value is laid out in .debug_info: the one table of form
 * sizes that every reader of abbreviations takes, so that the batch
 * cache's digest (cu_digest.c), the encoder's DIE reader (abbrev_cache.c)
 * and the layout scan (dwarf_layout.c) cannot disagree on a form.
 */
#ifndef DWARF2BTF_DWARF_FORM_H
#define DWARF2BTF_DWARF_FORM_H

#include <dwarf.h>
#include <stdbool.h>
#include <stdint.h>

/* DWARF 5's and GNU's forms, for a dwarf.h older than they are */
#ifndef DW_FORM_strx1
#define DW_FORM_strx1		0x25
#define DW_FORM_strx2		0x26
#define DW_FORM_strx3		0x27
#define DW_FORM_strx4		0x28
#define DW_FORM_addrx1		0x29
#define DW_FORM_addrx2		0x2a
#define DW_FORM_addrx3		0x2b
#define DW_FORM_addrx4		0x2c
#endif
#ifndef DW_FORM_GNU_ref_alt
#define DW_FORM_GNU_ref_alt	0x1f20
#define DW_FORM_GNU_strp_alt	0x1f21
#endif

enum dwarf_form_kind {
	DWARF_FORM_UNKNOWN,	/* no form of DWARF 2 to 5 or GNU's */
	DWARF_FORM_FIXED,	/* size bytes; 0: none, or in the abbreviation */
	DWARF_FORM_ULEB,
	DWARF_FORM_SLEB,
	DWARF_FORM_STRING,	/* in place, up to its NUL */
	DWARF_FORM_BLOCK,	/* a length (size bytes; 0: a ULEB), the bytes */
	DWARF_FORM_INDIRECT,	/* a ULEB naming the form, then its value */
};

struct dwarf_form_layout {
	uint8_t kind;		/* enum dwarf_form_kind */
	uint8_t size;
};

/*
 * The layout of a value of @form in a unit of DWARF @version whose
 * addresses take @addr_size bytes and section offsets @off_size.
 */
struct dwarf_form_layout dwarf_form__layout(unsigned int form,
					    unsigned int version,
					    uint8_t addr_size,
					    uint8_t off_size);

/*
 * Past a value of layout @l at @p; NULL when it runs past @end, or for an
 * unknown or indirect form.  A block's length is read in the host's byte
 * order: the callers read only files of the host's.
 */
const unsigned char *dwarf_form__skip(struct dwarf_form_layout l,
				      const unsigned char *p,
				      const unsigned char *end);

/*
 * Does a value of @form refer into another file: dwz's supplementary file
 * (the GNU forms) or DWARF 5's?
 */
bool dwarf_form__other_file(unsigned int form);

#endif
