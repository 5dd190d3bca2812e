/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Applying a relocatable file's relocations of DWARF from the file, a
 * piece at a time, rather than from a copy of them all: libdwfl needs its
 * relocation sections in memory whole, and those are most of a module's
 * bytes (241 of amdgpu.ko's 596 MB).  Only what libdwfl would do the
 * same way is done here: x86-64 RELA relocations of the simple kinds
 * (S + A stored in 1, 2, 4 or 8 bytes) against symbols of sections that
 * are not loaded (the DWARF's own: string, abbreviation, line and list
 * offsets), most of them, and, where libdwfl laid the loaded sections
 * out itself (their addresses were all 0 in the file), against symbols
 * of loaded sections, S then being the address libdwfl gave the section
 * plus the symbol's value (code and data addresses: a third of a
 * module's relocations of DWARF, each one four times the instructions
 * in libdwfl).  The others (undefined, absolute or common symbols,
 * anything unusual) are kept, in order, in the section's own place in
 * the copy, for libdwfl to apply as it would have.
 */
#ifndef DWARF2BTF_REL_APPLY_H
#define DWARF2BTF_REL_APPLY_H

#include <stdbool.h>
#include <stddef.h>

#include "input/elf_file.h"

/*
 * rel_apply__section() applies what it can of RELA section @shndx of @ef,
 * left out of its copy (elf_file.h), reading it from the file, and makes
 * the section hold only the rest.  @laid_out: libdwfl has laid out the
 * loaded sections, whose addresses the file left 0, in the headers of
 * the copy.  It returns 0, 1 if the section must be read in whole for
 * libdwfl (nothing was applied), or a negative errno.
 */
int rel_apply__section(const struct elf_file *ef, size_t shndx,
		       bool laid_out);

#endif /* DWARF2BTF_REL_APPLY_H */
