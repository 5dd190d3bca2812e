/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * This records where the DWARF's sections are: the bytes libdw reads, and
 * the mapped bytes of the file that the workers give back as they go and
 * that the CU digests read (cu_digest.h).
 */
#ifndef DWARF2BTF_DEBUG_SECTIONS_H
#define DWARF2BTF_DEBUG_SECTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <elfutils/libdw.h>

/* These are the raw sections a digest reads; NULL when the file has none. */
struct dwarf_sects {
	const unsigned char *info, *abbrev, *str, *line_str, *str_offsets,
			    *addr, *loc, *loclists;
	size_t info_size, abbrev_size, str_size, line_str_size,
	       str_offsets_size, addr_size, loc_size, loclists_size;
};

/* A span is a mapped section, or part of one. */
struct debug_span {
	const void *p;
	size_t size;
};

/*
 * This is room for the five side sections debug_sections.c looks for:
 * .debug_loclists, .debug_rnglists, .debug_loc, .debug_ranges and
 * .debug_abbrev.
 */
#define DEBUG_CU_SIDE_MAX	5

struct debug_sections {
	/*
	 * These are the bytes of .debug_info as libdw reads them (its copy
	 * when it had to decompress or relocate), or NULL when unknown.
	 */
	const unsigned char *info_start, *info_end;
	/*
	 * This is .debug_str as libdw reads it, up to its last NUL, or NULL
	 * when unknown.
	 */
	const char *str_start;
	size_t str_size;
	/* This is .debug_abbrev as libdw reads it, or NULL when unknown. */
	const unsigned char *abbrev_start;
	size_t abbrev_size;
	/*
	 * This is .debug_info as mapped from the file, or NULL if libelf
	 * copied it.
	 */
	const unsigned char *debug_info;
	size_t debug_info_size;
	/*
	 * These are the mapped sections of which each CU reads only its
	 * own part.
	 */
	struct debug_span cu_side[DEBUG_CU_SIDE_MAX];
	int nr_cu_side;
	/*
	 * libdw may be opened again on the Elf, because .debug_info is
	 * mapped and nothing is compressed.
	 */
	bool reopen;
	/* These are the raw sections, when mapped and not compressed. */
	struct dwarf_sects raw;
};

/*
 * debug_sections__read() fills @s (zeroed first) from @dw's Elf: where
 * libdw reads .debug_info, .debug_str and .debug_abbrev, and with
 * @mapped (the DWARF is read from a mapping of the file) the mapped
 * .debug_info, the sections
 * each CU reads only its own part of (location and range lists) and the
 * raw sections.  Nothing is recorded of sections libelf had to copy
 * (compressed ones).
 */
void debug_sections__read(struct debug_sections *s, Dwarf *dw, bool mapped);

#endif
