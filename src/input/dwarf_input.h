/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The input's DWARF opened with libdw: through libdwfl for a relocatable
 * file (.o, .ko), whose DWARF needs its relocations applied, and with
 * dwz's supplementary file as libdw's alternate when the DWARF refers
 * to one.
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
	Dwfl *dwfl;		/* relocatable input only */
	Dwarf *dw;
	Dwarf *alt_dw;		/* dwz's supplementary file; NULL: none */
	bool in_memory;		/* DWARF from elf_file's copy, not a mapping */
	uint64_t *rel_addr;	/* by section index: libdwfl's address */
	size_t nr_rel_addr;
};

/*
 * The DWARF of @ef (the file, or its separate debug file), relocated when
 * @ef is relocatable.  0, or a negative errno having said why.
 */
int dwarf_input__open(struct dwarf_input *in, const struct elf_file *ef);

/*
 * The dwz supplementary file @in's DWARF refers to (@alt_file, else found
 * from @src below @debug_root: debug_file.h), opened into @alt and set as
 * libdw's alternate, ready for workers (dwarf_layout.h).  @alt stays open
 * after dwarf_input__close(): names read from it point into it.
 */
int dwarf_input__open_alt(struct dwarf_input *in, const struct elf_file *src,
			  const char *alt_file, const char *debug_root,
			  struct elf_file *alt);

/* libdw's (and libdwfl's) state given back; @in zeroed. */
void dwarf_input__close(struct dwarf_input *in);

#endif
