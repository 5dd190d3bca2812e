/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A unit view is an Elf over the bytes of a mapped input in which
 * .debug_info is a run of its units, from one unit on: the other DWARF
 * sections are the input's own.  libdw finds a unit only by reading the
 * header of every unit before it, so a handle opened on the whole file to
 * read its last units first reads the header of each unit of the file,
 * whose pages the encoding has long given back (cu_queue.c's epochs:
 * docs/performance.md).  A handle opened on a view reads only the view's
 * units.  Its offsets of .debug_info are the view's: the input's less
 * the view's start.
 *
 * The view's ELF header, section headers and their names are written in
 * the address space kept before the input's second mapping (elf_file.h:
 * elf_file__map_gapped(), gap), because an Elf's sections come after its
 * headers; the section data are the input's bytes in that mapping, not
 * where libelf mapped them.  So whatever reads the DIEs a view gives with
 * pointers of its own (the workers' .debug_info, .debug_str and the
 * other sections: pipeline.c's run__env_gapped()) must take them from
 * that same mapping.
 */
#ifndef DWARF2BTF_UNIT_VIEW_H
#define DWARF2BTF_UNIT_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <gelf.h>

#include "input/elf_file.h"

/* The most DWARF sections a view has. */
#define UNIT_VIEW_SECS		32
#define UNIT_VIEW_NAMES		1024

/*
 * What every view of one input shares, read from its ELF once; views are
 * then made without libelf reading the input's Elf (unit_views__open()).
 */
struct unit_views {
	char *slots;		/* The input's gap: a view's headers each. */
	size_t nr_slots, slot_size;
	const char *image;	/* The input's second mapping (ef->map). */
	size_t image_size;
	GElf_Ehdr ehdr;
	struct unit_view_sec {
		GElf_Shdr sh;	/* sh_name: into names */
	} secs[UNIT_VIEW_SECS];
	size_t nr_secs;
	size_t info;		/* secs[info] is .debug_info. */
	char names[UNIT_VIEW_NAMES];
	size_t names_len;
	size_t shstrtab;	/* ".shstrtab" in names */
};

/*
 * unit_views__init() readies @v for views of @ef: 0, or -EOPNOTSUPP when
 * its DWARF cannot be viewed so (no gap kept, the other byte order, a
 * compressed section, no .debug_info, more sections than fit).  It reads
 * @ef's Elf, so no other thread may use that Elf meanwhile.
 */
int unit_views__init(struct unit_views *v, const struct elf_file *ef);

/*
 * unit_views__open() makes the view of .debug_info bytes [@from, @to) in
 * slot @slot (< v->nr_slots, used by no other view until elf_end() of
 * this one), or returns NULL.  @from must be where a unit starts.
 */
Elf *unit_views__open(const struct unit_views *v, size_t slot, uint64_t from,
		      uint64_t to);

/* The size of the input's .debug_info. */
static inline uint64_t unit_views__info_size(const struct unit_views *v)
{
	return v->secs[v->info].sh.sh_size;
}

#endif
