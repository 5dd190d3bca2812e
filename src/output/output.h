/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The output stage writes the encoded BTF either as a raw file or as a
 * section of an ELF file, never leaving a half-written file behind.
 *
 * Both functions write a temporary file next to the destination, fsync it
 * and rename it over the destination, so readers see the old or the new
 * file, never a mix.  On failure the destination is untouched and the
 * temporary file is removed.  They return 0 or a negative errno and print
 * exactly one "dwarf2btf: FILE: ..." line to stderr on failure.
 *
 * @hooks (test_hooks.h; NULL: none): fault_write=N makes the N-th write
 * system call of that call fail with ENOSPC.
 */
#ifndef DWARF2BTF_OUTPUT_H
#define DWARF2BTF_OUTPUT_H

#include <stddef.h>

#include "lib/test_hooks.h"

/*
 * output__write_raw() writes @size bytes of @data to @path atomically.
 * An existing @path keeps its mode (and owner, when permitted); a new file
 * gets 0644 minus umask.  A symlink is followed and its target replaced.
 * A @path that exists but is not a regular file (a FIFO, a device), or is
 * under /dev or /proc (/dev/stdout), is written directly.  Replacing
 * breaks hard links: other names keep the old contents.
 */
int output__write_raw(const char *path, const void *data, size_t size,
		      const struct test_hooks *hooks);

/*
 * A write set holds many raw outputs, such as the modules of a file set.
 * output__write_raw_set() writes each to its temp file (from any thread),
 * then one write_set__commit() syncs the file system once and renames them
 * all; it returns how many failed, each one reported.  write_set__free()
 * removes temp files that were never committed.
 */
struct write_set;

struct write_set *write_set__new(void);
int output__write_raw_set(const char *path, const void *data, size_t size,
			    struct write_set *ws,
			    const struct test_hooks *hooks);
int write_set__commit(struct write_set *ws);
void write_set__free(struct write_set *ws);

/*
 * output__write_elf_section() adds the section @name to the ELF file
 * @path, or replaces its contents, with @size bytes of @data (already in
 * the file's byte order).  It works for ELF32 and ELF64, either byte
 * order, any e_type, and extended section numbering.  Everything still in
 * use keeps its file offset: new data, a grown section name table and the
 * new section header table are appended (replacing what they supersede
 * when that was at the end of the file), so program headers and segments
 * stay valid.  The section is SHT_PROGBITS, with flags 0 and alignment 1,
 * as pahole -J makes it.  An existing SHF_ALLOC section keeps its flags,
 * address and alignment; if a loaded segment maps it, data of the same
 * size replaces it there, and other data goes past the segments (the
 * segments keep the old bytes).  A section with relocations (a BPF
 * object's .BTF) is not replaced.  Mode and owner are kept, and hard links
 * are broken, as with output__write_raw().
 */
int output__write_elf_section(const char *path, const char *name,
			      const void *data, size_t size,
			      const struct test_hooks *hooks);

/*
 * output__write_elf_sections() writes several sections at once (.BTF and
 * .BTF.base): all are written or none.  With @pre (out_precopy.h; NULL:
 * none), the copy of @path that was started ahead replaces the copy
 * made here, where it is still the file.
 */
struct output_section {
	const char *name;
	const void *data;
	size_t size;
};

struct out_precopy;

int output__write_elf_sections(const char *path,
			       const struct output_section *secs, int nr,
			       struct out_precopy *pre,
			       const struct test_hooks *hooks);

#endif /* DWARF2BTF_OUTPUT_H */
