// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file finds the DWARF's sections in the section headers
 * (debug_sections.h); one walk over them fills the whole table.
 */
#include <stddef.h>
#include <string.h>
#include <gelf.h>

#include "input/debug_sections.h"

/*
 * raw_section() records @name's bytes in @s when it is one of the mapped
 * DWARF sections that the CU digests read (cu_digest.h).  The table maps
 * each name to the offsets of its pointer and size fields.
 */
static void raw_section(struct dwarf_sects *s, const char *name,
			const void *p, size_t size)
{
	static const struct {
		const char *name;
		size_t ptr, size;
	} secs[] = {
#define SECT(n, f) { n, offsetof(struct dwarf_sects, f), \
		     offsetof(struct dwarf_sects, f##_size) }
		SECT(".debug_info", info), SECT(".debug_abbrev", abbrev),
		SECT(".debug_str", str), SECT(".debug_line_str", line_str),
		SECT(".debug_str_offsets", str_offsets),
		SECT(".debug_addr", addr), SECT(".debug_loc", loc),
		SECT(".debug_loclists", loclists),
#undef SECT
	};
	size_t i;

	for (i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		if (!strcmp(name, secs[i].name)) {
			*(const void **)((char *)s + secs[i].ptr) = p;
			*(size_t *)((char *)s + secs[i].size) = size;
		}
}

/*
 * debug_sections__read() fills @s from the section headers of @dw's Elf
 * (see debug_sections.h).  A section is taken as mapped only when its
 * bytes lie inside the file's mapping (elf_rawfile()), because libelf
 * copies what it had to convert.
 */
void debug_sections__read(struct debug_sections *s, Dwarf *dw, bool mapped)
{
	/*
	 * .debug_info comes first, then the sections of which each CU reads
	 * only its own part (a unit's abbreviations are its own but in dwz's
	 * layouts and some LTO ones, where a page read again is only a fault).
	 */
	static const char *const wanted[] = {
		".debug_info", ".debug_loclists", ".debug_rnglists",
		".debug_loc", ".debug_ranges", ".debug_abbrev",
	};
	Elf *elf = dwarf_getelf(dw);
	size_t file_size = 0, shstrndx, i, n = sizeof(wanted) / sizeof(wanted[0]);
	char *file = elf && mapped ? elf_rawfile(elf, &file_size) : NULL;
	Elf_Scn *scn = NULL;
	bool compressed = false;
	GElf_Shdr shdr;

	memset(s, 0, sizeof(*s));
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr))
			return;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name)
			continue;
		/*
		 * Decompressing a section changes the Elf, so no second libdw
		 * may be opened on it then (reopen).
		 */
		if (!strncmp(name, ".zdebug", 7) ||
		    (!strncmp(name, ".debug", 6) && (shdr.sh_flags & SHF_COMPRESSED)))
			compressed = true;
		if ((!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")) &&
		    (data = elf_getdata(scn, NULL)) && data->d_buf) {
			s->info_start = data->d_buf;
			s->info_end = s->info_start + data->d_size;
		}
		if ((!strcmp(name, ".debug_abbrev") ||
		     !strcmp(name, ".zdebug_abbrev")) &&
		    (data = elf_getdata(scn, NULL)) && data->d_buf) {
			s->abbrev_start = data->d_buf;
			s->abbrev_size = data->d_size;
		}
		if (!strcmp(name, ".debug_str") &&
		    !(shdr.sh_flags & SHF_COMPRESSED) &&
		    (data = elf_getdata(scn, NULL)) && data->d_buf) {
			s->str_start = data->d_buf;
			s->str_size = data->d_size;
			/*
			 * The size stops at its last NUL, so that every
			 * string read there ends inside it.
			 */
			while (s->str_size && s->str_start[s->str_size - 1])
				s->str_size--;
		}
		if (!file || (shdr.sh_flags & SHF_COMPRESSED))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || (char *)data->d_buf < file ||
		    (char *)data->d_buf + data->d_size > file + file_size)
			continue;
		raw_section(&s->raw, name, data->d_buf, data->d_size);
		for (i = 0; i < n && strcmp(name, wanted[i]); i++)
			;
		if (i == n)
			continue;
		if (i == 0) {
			s->debug_info = data->d_buf;
			s->debug_info_size = data->d_size;
		} else if (s->nr_cu_side < DEBUG_CU_SIDE_MAX) {
			s->cu_side[s->nr_cu_side].p = data->d_buf;
			s->cu_side[s->nr_cu_side++].size = data->d_size;
		}
	}
	s->reopen = s->debug_info && !compressed;
	if (!s->reopen)
		memset(&s->raw, 0, sizeof(s->raw));
}
