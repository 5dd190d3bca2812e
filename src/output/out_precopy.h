/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A pre-copy copies an ELF file that is to get its .BTF in place into the
 * temporary file that will replace it, on a thread of its own, while the
 * file is still being encoded.  The atomic replacement (out_file.h) has
 * to copy the whole file, and a large module's copy (hundreds of MB) then
 * no longer waits for the end of the encoding: it runs while one-threaded
 * phases leave a core idle.
 *
 * The copy has no name until it is taken (O_TMPFILE), so that a run that
 * is killed leaves nothing behind; where the file system has no O_TMPFILE
 * there is no pre-copy.
 *
 * A pre-copy is only a head start.  Whatever makes it unusable (it could
 * not be made, it failed, the file changed since) is not reported: the
 * write then copies the file as it always does, and reports what fails.
 */
#ifndef DWARF2BTF_OUT_PRECOPY_H
#define DWARF2BTF_OUT_PRECOPY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "lib/test_hooks.h"

struct out_file;
struct out_precopy;

/*
 * out_precopy__start() starts copying the regular, writable file @path.
 * It returns NULL where it does not (nothing to report).
 */
struct out_precopy *out_precopy__start(const char *path,
				       const struct test_hooks *hooks);
/*
 * out_precopy__take() waits for the copy.  If the copy is whole and @st
 * (the file as the write opened it) is the file that was copied, it
 * truncates the copy to its first @keep bytes, names it, moves it into
 * *@out (initialized, not open) and returns true; otherwise it removes
 * the copy and returns false.
 */
bool out_precopy__take(struct out_precopy *pc, const struct stat *st,
		       uint64_t keep, struct out_file *out);
/* This stops the copy and removes its temporary file unless taken. */
void out_precopy__free(struct out_precopy *pc);

#endif
