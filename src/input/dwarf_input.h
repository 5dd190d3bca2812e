/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The input's DWARF is opened with libdw: through libdwfl for a
 * relocatable file (.o, .ko), whose DWARF needs its relocations applied,
 * and with dwz's supplementary file as libdw's alternate when the DWARF
 * refers to one.
 */
#ifndef DWARF2BTF_DWARF_INPUT_H
#define DWARF2BTF_DWARF_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "input/elf_file.h"

struct dwarf_input {
	Dwfl *dwfl;		/* This is set for relocatable input only. */
	Dwarf *dw;
	Dwarf *alt_dw;		/* dwz's supplementary file, or NULL. */
	/* The DWARF is in elf_file's copy, not in a mapping. */
	bool in_memory;
	/* These are libdwfl's section addresses, by section index. */
	uint64_t *rel_addr;
	size_t nr_rel_addr;
};

/*
 * dwarf_input__open() opens the DWARF of @ef (the file, or its separate
 * debug file), relocated when @ef is relocatable.  It returns 0, or a
 * negative errno after saying why.
 */
int dwarf_input__open(struct dwarf_input *in, const struct elf_file *ef);

/*
 * dwarf_input__open_alt() opens the dwz supplementary file that @in's
 * DWARF refers to (@alt_file, or else the file found from @src below
 * @debug_root, debug_file.h) into @alt, and sets it as libdw's alternate,
 * ready for workers (dwarf_layout.h).  @alt stays open after
 * dwarf_input__close(), because names read from it point into it.
 */
int dwarf_input__open_alt(struct dwarf_input *in, const struct elf_file *src,
			  const char *alt_file, const char *debug_root,
			  struct elf_file *alt);

/*
 * dwarf_input__discard_read() gives back, in @ef's own copy of a
 * relocatable file, the DWARF sections the encoding has read and nothing
 * reads again; without @strings it keeps .debug_str and .debug_line_str,
 * into which the candidates' names point.  Call it once every CU is
 * encoded, and with @strings once nothing points into them any more.  It
 * returns the bytes given back (0 for input not in memory).
 */
size_t dwarf_input__discard_read(const struct dwarf_input *in,
				 const struct elf_file *ef, bool strings);

/*
 * dwarf_input__close() gives back libdw's (and libdwfl's) state and zeroes
 * @in.
 */
void dwarf_input__close(struct dwarf_input *in);

#endif
