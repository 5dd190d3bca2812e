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

/*
 * DWARF 5's and GNU's forms are defined here for a dwarf.h older than they
 * are, with the values that DWARF 5 and GNU give them.
 */
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
	/* A form of neither DWARF 2 to 5 nor GNU. */
	DWARF_FORM_UNKNOWN,
	/* Size bytes; 0 means none, or the value is in the abbreviation. */
	DWARF_FORM_FIXED,
	DWARF_FORM_ULEB,
	DWARF_FORM_SLEB,
	/* The string in place, up to and with its NUL. */
	DWARF_FORM_STRING,
	/* A length (size bytes, or a ULEB if size is 0), then the bytes. */
	DWARF_FORM_BLOCK,
	/* A ULEB naming the form, then the value of that form. */
	DWARF_FORM_INDIRECT,
};

struct dwarf_form_layout {
	uint8_t kind;		/* An enum dwarf_form_kind. */
	uint8_t size;
};

/*
 * Returns the layout of a value of @form in a unit of DWARF @version whose
 * addresses take @addr_size bytes and section offsets @off_size.
 */
struct dwarf_form_layout dwarf_form__layout(unsigned int form,
					    unsigned int version,
					    uint8_t addr_size,
					    uint8_t off_size);

/*
 * Returns the byte past a value of layout @l at @p; NULL when it runs past
 * @end, or for an unknown or indirect form.  A block's length is read in
 * the host's byte order: the callers read only files of the host's.
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
