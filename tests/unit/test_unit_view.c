// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/input/unit_view.c's views of a file's units, over the file's second
 * mapping (elf_file__map_gapped()): a handle opened on the view of units
 * [k, k + 1) finds unit k's DIE at its offset less the view's start, with
 * the name the file's own handle reads there, and no unit after it; three
 * views live at once in three slots; pointers into libelf's mapping move
 * to the second one, others stay; what cannot be a view is refused (a
 * slot past the gap, a range past .debug_info or backwards, an input
 * without the gap, compressed sections), and a relocatable file is not
 * mapped again.  $UNIT_VIEW_FILE is an executable of three CUs,
 * $UNIT_VIEW_GZ the same with its DWARF compressed, $UNIT_VIEW_REL an
 * object file; with $UNIT_VIEW_FILE32, a 32-bit executable of three CUs
 * is viewed too (the other form of the headers), and only it.
 * Prints "ok" and exits 0, else names the failed check and exits 1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdw.h>

#include "input/unit_view.h"
#include "check.h"

#define UNITS	3

/* The units' starts in .debug_info, the section's size last. */
static int units_of(Dwarf *dw, uint64_t *start, uint64_t *die, size_t *nr)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	*nr = 0;
	while (*nr < UNITS + 1 &&
	       dwarf_next_unit(dw, off, &next, &hsize, NULL, NULL, NULL, NULL,
			       NULL, NULL) == 0) {
		start[*nr] = off;
		die[(*nr)++] = off + hsize;
		off = next;
	}
	start[*nr] = off;
	return 0;
}

static const char *name_at(Dwarf *dw, uint64_t off)
{
	Dwarf_Die d;

	return dwarf_offdie(dw, off, &d) ? dwarf_diename(&d) : NULL;
}

static int check_views(const char *path)
{
	const char *name = "views";
	uint64_t start[UNITS + 2], die[UNITS + 1];
	struct elf_file ef;
	struct unit_views v;
	Elf *view[UNITS];
	Dwarf *main_dw, *dw[UNITS];
	Dwarf_Off next;
	size_t nr, k;

	CHECK(!elf_file__open(&ef, path));
	CHECK(!ef.gap && !ef.map);
	/* No second mapping, no views. */
	CHECK(unit_views__init(&v, &ef) == -EOPNOTSUPP);
	CHECK(!elf_file__map_gapped(&ef));
	CHECK(ef.gap && ef.map && ef.gap + ELF_VIEW_GAP == ef.map);
	CHECK(ef.map_elf && ef.map_size);
	/* Mapped once. */
	{
		const char *map = ef.map;

		CHECK(!elf_file__map_gapped(&ef) && ef.map == map);
	}
	/* libelf's bytes and ours are the same file. */
	{
		size_t size;
		const char *raw = elf_rawfile(ef.elf, &size);
		int local;

		CHECK(raw && size == ef.map_size);
		CHECK(!memcmp(raw, ef.map, size));
		CHECK(elf_file__moved(&ef, raw + 100) == ef.map + 100);
		CHECK(elf_file__moved(&ef, raw + size) == ef.map + size);
		CHECK(elf_file__moved(&ef, &local) == (const void *)&local);
		CHECK(!elf_file__moved(&ef, NULL));
	}
	CHECK(!unit_views__init(&v, &ef));
	CHECK(v.nr_slots >= UNITS && v.slot_size);
	CHECK((main_dw = dwarf_begin_elf(ef.elf, DWARF_C_READ, NULL)));
	units_of(main_dw, start, die, &nr);
	CHECK(nr == UNITS && start[nr] == unit_views__info_size(&v));
	for (k = 0; k < UNITS; k++) {
		const char *want = name_at(main_dw, die[k]), *got;

		CHECK(want);
		view[k] = unit_views__open(&v, k, start[k], start[k + 1]);
		CHECK(view[k]);
		CHECK((dw[k] = dwarf_begin_elf(view[k], DWARF_C_READ, NULL)));
		got = name_at(dw[k], die[k] - start[k]);
		CHECK(got && !strcmp(got, want));
		/* The view holds that one unit. */
		CHECK(dwarf_next_unit(dw[k], 0, &next, NULL, NULL, NULL, NULL,
				      NULL, NULL, NULL) == 0);
		CHECK(next == start[k + 1] - start[k]);
		CHECK(dwarf_next_unit(dw[k], next, &next, NULL, NULL, NULL,
				      NULL, NULL, NULL, NULL) == 1);
	}
	/* All three at once, each still reading its own unit. */
	for (k = 0; k < UNITS; k++) {
		const char *got = name_at(dw[k], die[k] - start[k]);

		CHECK(got && !strcmp(got, name_at(main_dw, die[k])));
		dwarf_end(dw[k]);
		elf_end(view[k]);
	}
	/* The last units to the section's end. */
	view[0] = unit_views__open(&v, 0, start[1], start[UNITS]);
	CHECK(view[0] && (dw[0] = dwarf_begin_elf(view[0], DWARF_C_READ,
						  NULL)));
	CHECK(name_at(dw[0], die[2] - start[1]));
	dwarf_end(dw[0]);
	elf_end(view[0]);
	/* What is not a view. */
	CHECK(!unit_views__open(&v, v.nr_slots, start[0], start[1]));
	CHECK(!unit_views__open(&v, 0, start[1], start[0]));
	CHECK(!unit_views__open(&v, 0, start[0], start[UNITS] + 1));
	dwarf_end(main_dw);
	/* An input without the gap has no views. */
	{
		struct elf_file no_gap = ef;

		no_gap.gap = NULL;
		CHECK(unit_views__init(&v, &no_gap) == -EOPNOTSUPP);
	}
	elf_file__close(&ef);
	CHECK(!ef.gap && !ef.map);
	return 0;
}

static int check_compressed(const char *path)
{
	const char *name = "compressed";
	struct elf_file ef;
	struct unit_views v;

	CHECK(!elf_file__open(&ef, path));
	CHECK(!elf_file__map_gapped(&ef) && ef.gap);
	CHECK(unit_views__init(&v, &ef) == -EOPNOTSUPP);
	elf_file__close(&ef);
	return 0;
}

static int check_relocatable(const char *path)
{
	const char *name = "relocatable";
	struct elf_file ef;
	int local;

	CHECK(!elf_file__open(&ef, path));
	CHECK(ef.buf);
	CHECK(elf_file__map_gapped(&ef) == -EOPNOTSUPP && !ef.gap);
	CHECK(elf_file__moved(&ef, &local) == (const void *)&local);
	elf_file__close(&ef);
	return 0;
}

int main(void)
{
	const char *file = getenv("UNIT_VIEW_FILE"), *gz = getenv("UNIT_VIEW_GZ");
	const char *rel = getenv("UNIT_VIEW_REL");
	const char *file32 = getenv("UNIT_VIEW_FILE32");

	elf_version(EV_CURRENT);
	if (file32) {
		if (check_views(file32))
			return 1;
		printf("ok\n");
		return 0;
	}
	if (!file || !gz || !rel) {
		printf("failed: no UNIT_VIEW_FILE, UNIT_VIEW_GZ or UNIT_VIEW_REL\n");
		return 1;
	}
	if (check_views(file) || check_compressed(gz) || check_relocatable(rel))
		return 1;
	printf("ok\n");
	return 0;
}
