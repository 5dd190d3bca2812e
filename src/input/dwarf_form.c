// SPDX-License-Identifier: GPL-2.0-only
/* The sizes of DWARF forms in .debug_info (dwarf_form.h). */
#include <string.h>

#include "input/dwarf_form.h"
#include "lib/leb128.h"

#define LAYOUT(k, n)	((struct dwarf_form_layout){ .kind = (k), .size = (n) })

/*
 * The sizes are those of DWARF 5's section 7.5.5 (classes and forms) and
 * GNU's extensions; DW_FORM_implicit_const keeps its value in the
 * abbreviation, so it takes no bytes in .debug_info.
 */
struct dwarf_form_layout dwarf_form__layout(unsigned int form,
					    unsigned int version,
					    uint8_t addr_size,
					    uint8_t off_size)
{
	switch (form) {
	case DW_FORM_flag_present:
	case DW_FORM_implicit_const:
		return LAYOUT(DWARF_FORM_FIXED, 0);
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag:
	case DW_FORM_strx1: case DW_FORM_addrx1:
		return LAYOUT(DWARF_FORM_FIXED, 1);
	case DW_FORM_data2: case DW_FORM_ref2:
	case DW_FORM_strx2: case DW_FORM_addrx2:
		return LAYOUT(DWARF_FORM_FIXED, 2);
	case DW_FORM_strx3: case DW_FORM_addrx3:
		return LAYOUT(DWARF_FORM_FIXED, 3);
	case DW_FORM_data4: case DW_FORM_ref4:
	case DW_FORM_strx4: case DW_FORM_addrx4: case DW_FORM_ref_sup4:
		return LAYOUT(DWARF_FORM_FIXED, 4);
	case DW_FORM_data8: case DW_FORM_ref8: case DW_FORM_ref_sig8:
	case DW_FORM_ref_sup8:
		return LAYOUT(DWARF_FORM_FIXED, 8);
	case DW_FORM_data16:
		return LAYOUT(DWARF_FORM_FIXED, 16);
	case DW_FORM_addr:
		return LAYOUT(DWARF_FORM_FIXED, addr_size);
	case DW_FORM_strp: case DW_FORM_line_strp: case DW_FORM_sec_offset:
	case DW_FORM_strp_sup:
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
		return LAYOUT(DWARF_FORM_FIXED, off_size);
	/*
	 * DWARF 2 gave DW_FORM_ref_addr an address's size, DWARF 3 and
	 * later an offset's.
	 */
	case DW_FORM_ref_addr:
		return LAYOUT(DWARF_FORM_FIXED,
			      version < 3 ? addr_size : off_size);
	case DW_FORM_udata: case DW_FORM_ref_udata:
	case DW_FORM_strx: case DW_FORM_addrx:
	case DW_FORM_loclistx: case DW_FORM_rnglistx:
	case DW_FORM_GNU_addr_index: case DW_FORM_GNU_str_index:
		return LAYOUT(DWARF_FORM_ULEB, 0);
	case DW_FORM_sdata:
		return LAYOUT(DWARF_FORM_SLEB, 0);
	case DW_FORM_string:
		return LAYOUT(DWARF_FORM_STRING, 0);
	case DW_FORM_block1:
		return LAYOUT(DWARF_FORM_BLOCK, 1);
	case DW_FORM_block2:
		return LAYOUT(DWARF_FORM_BLOCK, 2);
	case DW_FORM_block4:
		return LAYOUT(DWARF_FORM_BLOCK, 4);
	case DW_FORM_block: case DW_FORM_exprloc:
		return LAYOUT(DWARF_FORM_BLOCK, 0);
	case DW_FORM_indirect:
		return LAYOUT(DWARF_FORM_INDIRECT, 0);
	default:
		return LAYOUT(DWARF_FORM_UNKNOWN, 0);
	}
}

/* An SLEB is skipped as a ULEB is: only its length matters here. */
const unsigned char *dwarf_form__skip(struct dwarf_form_layout l,
				      const unsigned char *p,
				      const unsigned char *end)
{
	uint64_t n = l.size;
	uint32_t n4;
	uint16_t n2;

	switch (l.kind) {
	case DWARF_FORM_FIXED:
		break;
	case DWARF_FORM_ULEB:
	case DWARF_FORM_SLEB:
		return uleb_read(&p, end, &n) ? p : NULL;
	case DWARF_FORM_STRING:
		p = memchr(p, 0, end - p);
		return p ? p + 1 : NULL;
	case DWARF_FORM_BLOCK:
		if (!l.size) {
			if (!uleb_read(&p, end, &n))
				return NULL;
		} else {
			if ((size_t)(end - p) < l.size)
				return NULL;
			if (l.size == 1) {
				n = *p;
			} else if (l.size == 2) {
				memcpy(&n2, p, 2);
				n = n2;
			} else {
				memcpy(&n4, p, 4);
				n = n4;
			}
			p += l.size;
		}
		break;
	default:
		return NULL;
	}
	return (uint64_t)(end - p) < n ? NULL : p + n;
}

bool dwarf_form__other_file(unsigned int form)
{
	switch (form) {
	case DW_FORM_GNU_ref_alt: case DW_FORM_GNU_strp_alt:
	case DW_FORM_ref_sup4: case DW_FORM_ref_sup8: case DW_FORM_strp_sup:
		return true;
	default:
		return false;
	}
}
