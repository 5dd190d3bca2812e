/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The compilation units of the input's DWARF are listed once by the main
 * thread.  Listing makes libdw intern every CU, so that workers later only
 * look up its CU tree, which is safe from several threads.
 */
#ifndef DWARF2BTF_DWARF_UNITS_H
#define DWARF2BTF_DWARF_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <elfutils/libdw.h>

#include "input/debug_sections.h"
#include "input/dwarf_layout.h"

struct dwarf_units {
	Dwarf_Die *cus;		/* The compile units, in file order. */
	size_t nr;
	/*
	 * The type units' DIEs (gcc's -fdebug-types-section), which the
	 * compile units refer to by signature: only `dwarf2btf layout`
	 * walks them on their own.
	 */
	Dwarf_Die *type_units;
	size_t nr_type_units;
	bool split;		/* Some are split units, read from .dwo files. */
	bool rust;		/* Some are Rust units (listed with langs). */
};

/*
 * dwarf_units__list() lists @dw's compile units into @u, with a skeleton's
 * split unit in its place; dwz's partial units are left out, because the
 * units importing them read them.  It scans their abbreviations into
 * @layout, calling dwarf_layout__init() first.  The pages of @secs' mapped
 * .debug_info are given back as the listing goes
 * (dwarf_units__drop_listed()), so with @langs each unit's language is
 * read there (u->rust), not later by touching every unit again.  @path
 * names the file in messages.
 */
int dwarf_units__list(struct dwarf_units *u, const char *path, Dwarf *dw,
		      const struct debug_sections *secs,
		      struct dwarf_layout *layout, bool langs);
void dwarf_units__free(struct dwarf_units *u);

/*
 * Listing units makes libdw read every CU header, and each read maps the
 * pages around it.  Were they all kept, that would be most of a vmlinux's
 * .debug_info, and the run's peak RSS.  dwarf_units__drop_listed() is
 * called as a listing of the @size bytes of mapped .debug_info at @info
 * reaches offset @off.  It gives back the pages between *@dropped and @off
 * every 8 MB, or at once with @all.  They stay in the page cache, and each
 * worker maps back what its CU reads.
 */
#define DWARF_UNITS_DROP_EVERY	(8u << 20)

void dwarf_units__drop_listed(const unsigned char *info, size_t size,
			      size_t *dropped, size_t off, bool all);

#endif
