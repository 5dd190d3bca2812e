// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/input/dwarf_form.c, the one table of DW_FORM sizes: fixed sizes,
 * those of the unit (addresses, offsets, DW_FORM_ref_addr before DWARF
 * 3), and skipping each variable kind within bounds.  Prints "ok" and
 * exits 0, else names the failed check and exits 1.
 */
#include <stdio.h>
#include <string.h>

#include "input/dwarf_form.h"
#include "check.h"

static struct dwarf_form_layout layout(unsigned int form)
{
	return dwarf_form__layout(form, 5, 8, 4);
}

static int fixed_is(unsigned int form, unsigned int size)
{
	struct dwarf_form_layout l = layout(form);

	return l.kind == DWARF_FORM_FIXED && l.size == size;
}

static int check_sizes(void)
{
	const char *name = "sizes";

	CHECK(fixed_is(DW_FORM_flag_present, 0));
	CHECK(fixed_is(DW_FORM_implicit_const, 0));
	CHECK(fixed_is(DW_FORM_data1, 1) && fixed_is(DW_FORM_strx1, 1));
	CHECK(fixed_is(DW_FORM_data2, 2) && fixed_is(DW_FORM_addrx2, 2));
	CHECK(fixed_is(DW_FORM_strx3, 3) && fixed_is(DW_FORM_addrx3, 3));
	CHECK(fixed_is(DW_FORM_ref4, 4) && fixed_is(DW_FORM_ref_sup4, 4));
	CHECK(fixed_is(DW_FORM_ref_sig8, 8) && fixed_is(DW_FORM_data8, 8));
	CHECK(fixed_is(DW_FORM_data16, 16));
	CHECK(fixed_is(DW_FORM_addr, 8));
	CHECK(fixed_is(DW_FORM_strp, 4) && fixed_is(DW_FORM_sec_offset, 4));
	CHECK(fixed_is(DW_FORM_GNU_strp_alt, 4));
	CHECK(fixed_is(DW_FORM_ref_addr, 4));
	CHECK(dwarf_form__layout(DW_FORM_ref_addr, 2, 8, 4).size == 8);
	CHECK(dwarf_form__layout(DW_FORM_strp, 4, 8, 8).size == 8);
	CHECK(layout(DW_FORM_udata).kind == DWARF_FORM_ULEB);
	CHECK(layout(DW_FORM_strx).kind == DWARF_FORM_ULEB);
	CHECK(layout(DW_FORM_sdata).kind == DWARF_FORM_SLEB);
	CHECK(layout(DW_FORM_string).kind == DWARF_FORM_STRING);
	CHECK(layout(DW_FORM_block2).kind == DWARF_FORM_BLOCK &&
	      layout(DW_FORM_block2).size == 2);
	CHECK(layout(DW_FORM_exprloc).kind == DWARF_FORM_BLOCK &&
	      layout(DW_FORM_exprloc).size == 0);
	CHECK(layout(DW_FORM_indirect).kind == DWARF_FORM_INDIRECT);
	CHECK(layout(0x7f).kind == DWARF_FORM_UNKNOWN);
	CHECK(dwarf_form__other_file(DW_FORM_GNU_ref_alt));
	CHECK(dwarf_form__other_file(DW_FORM_strp_sup));
	CHECK(!dwarf_form__other_file(DW_FORM_ref_addr));
	return 0;
}

/* Past each value, and NULL where it runs out. */
static int check_skip(void)
{
	const char *name = "skip";
	static const unsigned char uleb[] = { 0x80, 0x80, 0x01, 0xaa };
	static const unsigned char str[] = { 'a', 'b', 0, 0xaa };
	static const unsigned char blk[] = { 3, 1, 2, 3, 0xaa, 0, 0, 0 };
	static const unsigned char expr[] = { 0x82, 0x00, 1, 2 };
	unsigned char b2[4], b4[8] = { 0 };
	uint16_t two = 2;
	uint32_t three = 3;

	CHECK(dwarf_form__skip(layout(DW_FORM_udata), uleb, uleb + 4) ==
	      uleb + 3);
	CHECK(!dwarf_form__skip(layout(DW_FORM_sdata), uleb, uleb + 2));
	CHECK(dwarf_form__skip(layout(DW_FORM_string), str, str + 4) ==
	      str + 3);
	CHECK(!dwarf_form__skip(layout(DW_FORM_string), str, str + 2));
	CHECK(dwarf_form__skip(layout(DW_FORM_block1), blk, blk + 8) ==
	      blk + 4);
	CHECK(!dwarf_form__skip(layout(DW_FORM_block1), blk, blk + 3));
	memcpy(b2, &two, 2);	/* the host's byte order */
	b2[2] = b2[3] = 9;
	CHECK(dwarf_form__skip(layout(DW_FORM_block2), b2, b2 + 4) == b2 + 4);
	CHECK(!dwarf_form__skip(layout(DW_FORM_block2), b2, b2 + 3));
	memcpy(b4, &three, 4);
	CHECK(dwarf_form__skip(layout(DW_FORM_block4), b4, b4 + 8) == b4 + 7);
	CHECK(!dwarf_form__skip(layout(DW_FORM_block4), b4, b4 + 6));
	/* a length of 2 in a ULEB of two bytes: 0x82 0x00 is 2 */
	CHECK(dwarf_form__skip(layout(DW_FORM_exprloc), expr, expr + 4) ==
	      expr + 4);
	CHECK(dwarf_form__skip(layout(DW_FORM_data4), blk, blk + 8) ==
	      blk + 4);
	CHECK(!dwarf_form__skip(layout(DW_FORM_data8), blk, blk + 7));
	CHECK(!dwarf_form__skip(layout(DW_FORM_indirect), uleb, uleb + 4));
	CHECK(!dwarf_form__skip(layout(0x7f), uleb, uleb + 4));
	return 0;
}

int main(void)
{
	if (check_sizes() || check_skip())
		return 1;
	printf("ok\n");
	return 0;
}
