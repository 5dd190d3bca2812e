// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/input/dwarf_layout.c's scan of one abbreviation table: the forms of
 * annotation it declares (clang's DW_TAG_LLVM_annotation, gcc's
 * DW_AT_GNU_annotation), and tables that cannot be read to their end; and
 * a unit's language read from its DIE's bytes and its abbreviation: each
 * constant form, the attributes before it skipped by their forms, and
 * what it cannot say (no such attribute, a form that is no constant, a
 * code not in the table, cut bytes).
 * Prints "ok" and exits 0, else names the failed check and exits 1.
 */
#include <dwarf.h>
#include <stdio.h>

#include "input/dwarf_layout.h"
#include "check.h"

/* A struct with a name; ULEB 0x2139 is b9 42, ULEB 0x6000 is 80 c0 01. */
static const unsigned char plain[] = {
	1, DW_TAG_structure_type, DW_CHILDREN_yes,
	DW_AT_name, DW_FORM_strp, 0, 0,
	0,
};
static const unsigned char gnu[] = {
	1, DW_TAG_structure_type, DW_CHILDREN_yes,
	DW_AT_name, DW_FORM_strp, 0xb9, 0x42, DW_FORM_ref4, 0, 0,
	0,
};
static const unsigned char llvm[] = {
	1, DW_TAG_member, DW_CHILDREN_yes, DW_AT_name, DW_FORM_strp, 0, 0,
	2, 0x80, 0xc0, 0x01, DW_CHILDREN_no,
	DW_AT_name, DW_FORM_strp, DW_AT_const_value, DW_FORM_strp, 0, 0,
	0,
};

static int check_annotations(void)
{
	const char *name = "annotations";
	struct dwarf_layout l;

	CHECK(dwarf_layout__scan_table(&l, plain, sizeof(plain), 0));
	CHECK(!l.llvm_annotations && !l.gnu_annotations);
	CHECK(dwarf_layout__scan_table(&l, gnu, sizeof(gnu), 0));
	CHECK(!l.llvm_annotations && l.gnu_annotations);
	CHECK(dwarf_layout__scan_table(&l, llvm, sizeof(llvm), 0));
	CHECK(l.llvm_annotations && !l.gnu_annotations);
	/* A second table in the section is scanned on its own. */
	CHECK(dwarf_layout__scan_table(&l, llvm, sizeof(llvm), 7));
	CHECK(l.llvm_annotations);
	return 0;
}

static int check_unreadable(void)
{
	const char *name = "unreadable";
	struct dwarf_layout l;
	size_t n;

	/* Every cut before the table's closing 0 is refused. */
	for (n = 0; n < sizeof(gnu); n++)
		CHECK(!dwarf_layout__scan_table(&l, gnu, n, 0));
	CHECK(!dwarf_layout__scan_table(&l, gnu, sizeof(gnu), sizeof(gnu)));
	CHECK(!dwarf_layout__scan_table(&l, NULL, 0, 0));
	return 0;
}

#define RUST	0x1c
#define C11	0x1d

/*
 * Code 1: a member (no language), with an implicit constant; code 2: the
 * unit, its name inline, a producer as strp, an udata, then the language
 * as data2; code 3: the language as data1 after an exprloc; code 4: as
 * udata; code 5: as an implicit constant; code 6: as strp; code 7: no
 * language; code 8: as sdata (left to libdw).
 */
static const unsigned char abbrev[] = {
	1, DW_TAG_member, DW_CHILDREN_no,
	DW_AT_name, DW_FORM_strp, DW_AT_decl_line, DW_FORM_implicit_const, 9,
	0, 0,
	2, DW_TAG_compile_unit, DW_CHILDREN_yes,
	DW_AT_name, DW_FORM_string, DW_AT_producer, DW_FORM_strp,
	DW_AT_decl_line, DW_FORM_udata, DW_AT_language, DW_FORM_data2, 0, 0,
	3, DW_TAG_compile_unit, DW_CHILDREN_yes,
	DW_AT_location, DW_FORM_exprloc, DW_AT_language, DW_FORM_data1, 0, 0,
	4, DW_TAG_compile_unit, DW_CHILDREN_yes,
	DW_AT_language, DW_FORM_udata, 0, 0,
	5, DW_TAG_compile_unit, DW_CHILDREN_yes,
	DW_AT_language, DW_FORM_implicit_const, RUST, 0, 0,
	6, DW_TAG_compile_unit, DW_CHILDREN_yes,
	DW_AT_language, DW_FORM_strp, 0, 0,
	7, DW_TAG_compile_unit, DW_CHILDREN_yes,
	DW_AT_name, DW_FORM_string, 0, 0,
	8, DW_TAG_compile_unit, DW_CHILDREN_yes,
	DW_AT_language, DW_FORM_sdata, 0, 0,
	0,
	/* A second table, at 69: a strp (8 bytes in 64-bit DWARF), data4. */
	1, DW_TAG_compile_unit, DW_CHILDREN_yes,
	DW_AT_producer, DW_FORM_strp, DW_AT_language, DW_FORM_data4, 0, 0,
	0,
};

static const unsigned char die2[] = {
	2, 'a', '.', 'r', 's', 0, 1, 2, 3, 4, 0x80, 0x01, RUST, 0,
};
static const unsigned char die3[] = { 3, 2, 0x91, 0x00, C11 };
static const unsigned char die4[] = { 4, 0x9c, 0x00 };
static const unsigned char die5[] = { 5 };
static const unsigned char die6[] = { 6, RUST, 0, 0, 0 };
static const unsigned char die7[] = { 7, 'a', 0 };
static const unsigned char die8[] = { 8, RUST };
static const unsigned char die9[] = { 9, 0 };
/* In the second table: offsets of 8 bytes, then the language's 4. */
static const unsigned char die64[] = {
	1, 1, 2, 3, 4, 5, 6, 7, 8, RUST, 0, 0, 0,
};
static const unsigned char die64big[] = {
	1, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 1, 0,
};

static int lang(const unsigned char *die, size_t n, size_t abbrev_size)
{
	return dwarf_layout__die_lang(die, die + n, abbrev, abbrev_size, 0, 5,
				     8, 4);
}

static int check_lang_forms(void)
{
	const char *name = "language forms";

	CHECK(lang(die2, sizeof(die2), sizeof(abbrev)) == RUST);
	CHECK(lang(die3, sizeof(die3), sizeof(abbrev)) == C11);
	CHECK(lang(die4, sizeof(die4), sizeof(abbrev)) == RUST);
	CHECK(lang(die5, sizeof(die5), sizeof(abbrev)) == RUST);
	CHECK(dwarf_layout__die_lang(die64, die64 + sizeof(die64), abbrev,
				     sizeof(abbrev), 69, 5, 8, 8) == RUST);
	return 0;
}

static int check_lang_unknown(void)
{
	const char *name = "language unknown";
	size_t n;

	CHECK(lang(die6, sizeof(die6), sizeof(abbrev)) == -1);
	CHECK(lang(die7, sizeof(die7), sizeof(abbrev)) == -1);
	CHECK(lang(die8, sizeof(die8), sizeof(abbrev)) == -1);
	CHECK(lang(die9, sizeof(die9), sizeof(abbrev)) == -1);
	/* No language above 0xffff. */
	CHECK(dwarf_layout__die_lang(die64big, die64big + sizeof(die64big),
				     abbrev, sizeof(abbrev), 69, 5, 8,
				     8) == -1);
	/* Every cut of a DIE before its language's last byte, and none. */
	for (n = 0; n <= sizeof(die2); n++)
		CHECK(lang(die2, n, sizeof(abbrev)) == (n >= 14 ? RUST : -1));
	for (n = 0; n < sizeof(die3); n++)
		CHECK(lang(die3, n, sizeof(abbrev)) == -1);
	/* Every cut of the table before the unit's language in it. */
	for (n = 0; n < 21; n++)
		CHECK(lang(die2, sizeof(die2), n) == -1);
	CHECK(dwarf_layout__die_lang(die2, die2 + sizeof(die2), NULL, 0, 0, 5,
				    8, 4) == -1);
	CHECK(dwarf_layout__die_lang(die2, die2 + sizeof(die2), abbrev,
				    sizeof(abbrev), sizeof(abbrev), 5, 8,
				    4) == -1);
	return 0;
}

int main(void)
{
	if (check_annotations() || check_unreadable() || check_lang_forms() ||
	    check_lang_unknown())
		return 1;
	printf("ok\n");
	return 0;
}
