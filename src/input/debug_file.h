/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Separate debug info: a stripped file's DWARF (and .symtab) in another
 * file, found as debuggers find it.  In order:
 *   1. the file given (--debuginfo=PATH);
 *   2. by build-id: ROOT/.build-id/xx/yyyy.debug, the build-id note's
 *      bytes in hex (ROOT: --debug-root, default /usr/lib/debug);
 *   3. by .gnu_debuglink: its file name in the input's folder, in
 *      .debug/ below it, and below ROOT at the input's folder's absolute
 *      path; a candidate counts only when its CRC-32 is the link's.
 * A file found by build-id or given must carry the input's build-id when
 * both have one.
 */
#ifndef DWARF2BTF_DEBUG_FILE_H
#define DWARF2BTF_DEBUG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "input/elf_file.h"

#define DEBUG_FILE_ROOT	"/usr/lib/debug"

/* Does @ef have DWARF of its own (a .debug_info with bytes)? */
bool elf_file__has_dwarf(const struct elf_file *ef);

/*
 * Copies the build-id of @ef (NT_GNU_BUILD_ID) into @id (up to @size
 * bytes) and returns its length; 0 without one.
 */
size_t elf_file__build_id(const struct elf_file *ef, unsigned char *id,
			  size_t size);

/*
 * Finds the debug file of @ef, which has no DWARF: returns 0 with the
 * name in *@path (malloc()ed), or a negative errno after one line naming
 * @ef and where it looked.  @given is --debuginfo (NULL: search); a NULL
 * @root means DEBUG_FILE_ROOT.
 */
int debug_file__find(const struct elf_file *ef, const char *given,
		     const char *root, char **path);

/*
 * Finds the dwz supplementary file that @src's DWARF refers to
 * (DW_FORM_GNU_ref_alt, DW_FORM_ref_sup4...), named by its
 * .gnu_debugaltlink or DWARF 5 .debug_sup.  It is @given (--alt-file),
 * else the name in the link (as it is when absolute; else in @src's
 * folder, then in the working folder), else found by the link's build-id
 * below @root.  A candidate must carry the link's build-id.  Returns 0
 * with the name in *@path (malloc()ed), or a negative errno after one
 * line naming @src and where it looked.
 */
int debug_file__find_alt(const struct elf_file *src, const char *given,
			 const char *root, char **path);

#endif /* DWARF2BTF_DEBUG_FILE_H */
