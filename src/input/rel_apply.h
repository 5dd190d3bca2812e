/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Applying a relocatable file's relocations of DWARF from the file, a
 * piece at a time, rather than from a copy of them all: libdwfl needs its
 * relocation sections in memory whole, and those are most of a module's
 * bytes (241 of amdgpu.ko's 596 MB).  Only what no layout moves is done
 * here, which libdwfl does the same way: x86-64 RELA relocations of the
 * simple kinds (S + A stored in 1, 2, 4 or 8 bytes) against symbols of
 * sections that are not loaded (the DWARF's own: string, abbreviation,
 * line and list offsets), most of them.  The others (addresses in loaded
 * sections, anything unusual) are kept, in order, in the section's own
 * place in the copy, for libdwfl to apply as it would have.
 */
#ifndef DWARF2BTF_REL_APPLY_H
#define DWARF2BTF_REL_APPLY_H

#include <stddef.h>

#include "input/elf_file.h"

/*
 * rel_apply__section() applies what it can of RELA section @shndx of @ef,
 * left out of its copy (elf_file.h), reading it from the file, and makes
 * the section hold only the rest.  It returns 0, 1 if the section must be
 * read in whole for libdwfl (nothing was applied), or a negative errno.
 */
int rel_apply__section(const struct elf_file *ef, size_t shndx);

#endif /* DWARF2BTF_REL_APPLY_H */
