// SPDX-License-Identifier: GPL-2.0-only
/* This file lists the compile units (dwarf_units.h). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dwarf.h>
#include <gelf.h>
#include <elfutils/libdwfl.h>

#include "input/dwarf_units.h"
#include "input/elf_file.h"
#include "lib/grow.h"
#include "lib/log.h"

/*
 * skeleton__no_split() reports a skeleton unit whose split unit libdw did
 * not find, saying which unit and where it was looked for.  When a DWARF
 * package (FILE.dwp) is there, the libdw version is the likely cause.
 */
static void skeleton__no_split(const char *path, Dwarf_Die *skel)
{
	Dwarf_Attribute attr;
	const char *name = NULL, *dir = NULL;
	char dwp[PATH_MAX];

	if (dwarf_attr(skel, DW_AT_dwo_name, &attr) ||
	    dwarf_attr(skel, DW_AT_GNU_dwo_name, &attr))
		name = dwarf_formstring(&attr);
	if (dwarf_attr(skel, DW_AT_comp_dir, &attr))
		dir = dwarf_formstring(&attr);
	if (snprintf(dwp, sizeof(dwp), "%s.dwp", path) < (int)sizeof(dwp) &&
	    !access(dwp, F_OK)) {
		/* libdw reads DWARF packages from version 0.191 on. */
		pr_err("%s: CU 0x%llx: split DWARF unit %s not found, and libdw %s cannot read the DWARF package %s (0.191 or later can)",
		       path, (unsigned long long)dwarf_dieoffset(skel),
		       name ? name : "(no DW_AT_dwo_name)",
		       dwfl_version(NULL), dwp);
		return;
	}
	pr_err("%s: CU 0x%llx: split DWARF unit %s not found (looked in %s and beside %s)",
	       path, (unsigned long long)dwarf_dieoffset(skel),
	       name ? name : "(no DW_AT_dwo_name)",
	       dir ? dir : "(no DW_AT_comp_dir)", path);
}

/*
 * Does @dw's file have the host's byte order?  dwarf_layout__die_lang()
 * reads values in the host's.
 */
static bool units__native(Dwarf *dw)
{
	Elf *elf = dwarf_getelf(dw);
	const char *id = elf ? elf_getident(elf, NULL) : NULL;

	return id && id[EI_DATA] == (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
				     ELFDATA2LSB : ELFDATA2MSB);
}

/*
 * unit_lang() reads the DW_AT_language of the compile unit whose header
 * is @head and whose DIE is @cudie with dwarf_layout__die_lang(), from
 * the DIE's bytes within the .debug_info of @secs, and @layout's
 * .debug_abbrev.  libdw would decode the unit's abbreviations up to the
 * DIE's own (gcc gives it one of the last codes), for every unit of the
 * file at once, and keep them: 12 MB on a vmlinux.  What that cannot read
 * (a file of the other byte order, an address size libdw would not take
 * as it is) goes to dwarf_srclang(), which does so.
 */
static int unit_lang(const struct dwarf_layout *layout,
		     const struct debug_sections *secs, bool native,
		     const struct dwarf_unit_head *head, Dwarf_Die *cudie)
{
	uintptr_t die = (uintptr_t)cudie->addr;
	uintptr_t start = (uintptr_t)secs->info_start;
	uintptr_t size = (uintptr_t)secs->info_end - start;
	Dwarf_Off off = dwarf_dieoffset(cudie);
	int lang = -1;

	/* The DIE is where its offset says, and its unit ends in the section. */
	if (native && start && die >= start && die - start < size &&
	    die - start == off && head->valid &&
	    (head->addr_size == 4 || head->addr_size == 8) && head->next > off)
		lang = dwarf_layout__die_lang(secs->info_start + off,
					      secs->info_start +
					      (head->next < size ? head->next :
					       size),
					      layout->abbrev, layout->abbrev_size,
					      head->abbrev_off, head->version,
					      head->addr_size, head->off_size);
	return lang >= 0 ? lang : dwarf_srclang(cudie);
}

/*
 * dwarf_units__list() walks the units with dwarf_get_units() on the main
 * thread; see dwarf_units.h for what it lists.  It returns 0, -ENOENT for
 * a missing split unit, -ENOMEM or -EINVAL.
 */
int dwarf_units__list(struct dwarf_units *u, const char *path, Dwarf *dw,
		      const struct debug_sections *secs,
		      struct dwarf_layout *layout, bool langs)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Die *arr = NULL;
	struct dwarf_unit_head head;
	size_t cap = 0, n = 0, dropped = 0, cap_tu = 0;
	bool native = units__native(dw), skeleton;
	uint8_t unit_type;
	int ret;

	dwarf_layout__init(layout, dw);
	while ((ret = dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie,
				      &subdie)) == 0) {
		dwarf_layout__add_unit(layout, dw, dwarf_dieoffset(&cudie) -
					       dwarf_cuoffset(&cudie), &head);
		skeleton = unit_type == DW_UT_skeleton;
		if (skeleton) {
			/*
			 * With split DWARF, the unit is in a .dwo file,
			 * which libdw finds.
			 */
			if (!subdie.cu) {
				skeleton__no_split(path, &cudie);
				free(arr);
				dwarf_units__free(u);
				return -ENOENT;
			}
			cudie = subdie;
			u->split = true;
		} else if (unit_type == DW_UT_type) {
			if (grow_array((void **)&u->type_units, &cap_tu,
				       u->nr_type_units + 1,
				       sizeof(*u->type_units), 64)) {
				free(arr);
				dwarf_units__free(u);
				return -ENOMEM;
			}
			u->type_units[u->nr_type_units++] = cudie;
			continue;
		} else if (unit_type != DW_UT_compile) {
			/*
			 * dwz's partial units (and other unit types) are
			 * read by the units that import them.
			 */
			continue;
		}
		if (grow_array((void **)&arr, &cap, n + 1, sizeof(*arr), 1024)) {
			free(arr);
			dwarf_units__free(u);
			return -ENOMEM;
		}
		arr[n++] = cudie;
		/* A split unit's DIE is in its .dwo: libdw reads it. */
		if (langs && (skeleton ? dwarf_srclang(&cudie) :
			      unit_lang(layout, secs, native, &head,
					&cudie)) == DW_LANG_Rust)
			u->rust = true;
		dwarf_units__drop_listed(secs->debug_info, secs->debug_info_size,
					 &dropped, dwarf_dieoffset(&cudie), false);
	}
	dwarf_units__drop_listed(secs->debug_info, secs->debug_info_size,
				 &dropped, secs->debug_info_size, true);
	if (ret < 0) {
		pr_err("%s: cannot read DWARF units: %s", path, dwarf_errmsg(-1));
		free(arr);
		dwarf_units__free(u);
		return -EINVAL;
	}
	u->cus = arr;
	u->nr = n;
	return 0;
}

void dwarf_units__free(struct dwarf_units *u)
{
	free(u->cus);
	free(u->type_units);
	u->cus = NULL;
	u->nr = 0;
	u->type_units = NULL;
	u->nr_type_units = 0;
}

/* The pages are dropped only when @off lies past *@dropped inside @size. */
void dwarf_units__drop_listed(const unsigned char *info, size_t size,
			      size_t *dropped, size_t off, bool all)
{
	if (!info || off <= *dropped || off > size ||
	    (!all && off - *dropped < DWARF_UNITS_DROP_EVERY))
		return;
	elf_file__drop_pages(info + *dropped, off - *dropped);
	*dropped = off;
}
