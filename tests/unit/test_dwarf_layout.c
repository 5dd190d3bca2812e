// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/input/dwarf_layout.c's scan of one abbreviation table: the forms of
 * annotation it declares (clang's DW_TAG_LLVM_annotation, gcc's
 * DW_AT_GNU_annotation), and tables that cannot be read to their end.
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

int main(void)
{
	if (check_annotations() || check_unreadable())
		return 1;
	printf("ok\n");
	return 0;
}
