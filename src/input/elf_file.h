/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An elf_file is an opened ELF input: the libelf handle plus the header
 * facts every later stage needs (class, byte order, machine).  It is
 * read-only once opened, except for a relocatable file's DWARF sections,
 * which libdwfl relocates in place in buf, and its second mapping
 * (elf_file__map_gapped()), made before the workers start.
 */
#ifndef DWARF2BTF_ELF_FILE_H
#define DWARF2BTF_ELF_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <gelf.h>

/* The address space kept before a mapped file (struct elf_file, gap). */
#define ELF_VIEW_GAP	(1u << 20)

/* The most relocation sections of DWARF left out of a file's copy. */
#define ELF_UNREAD_MAX	16

struct elf_file {
	const char *path;
	int fd;
	Elf *elf;
	char *buf;		/* A relocatable file's bytes, or NULL. */
	size_t size;
	/*
	 * A file that is not relocatable may be mapped a second time by
	 * elf_file__map_gapped(), at map (map_size bytes, map_elf its Elf),
	 * after ELF_VIEW_GAP bytes of address space of its own (gap):
	 * unit_view.c writes the headers of its views there, because an
	 * Elf's headers come before its sections.  Only the pages touched
	 * take memory.  NULL: not mapped so.
	 */
	char *gap;
	const char *map;
	size_t map_size;
	Elf *map_elf;
	/*
	 * The relocation sections of DWARF that buf leaves out, by section
	 * index: rel_apply.c applies them from the file a piece at a time,
	 * or elf_file__fill() reads them in for libdwfl.
	 */
	struct elf_unread {
		uint64_t off, size;
		uint32_t shndx;
	} unread[ELF_UNREAD_MAX];
	size_t nr_unread;
	GElf_Ehdr ehdr;
	/* This is the real count, with extended numbering resolved. */
	size_t shnum;
	size_t shstrndx;
	bool big_endian;
	unsigned int ptr_size;	/* 4 or 8, from the ELF class. */
};

/*
 * elf_file__open() opens the ELF file at @path; it returns 0 or a negative
 * errno after printing the error.
 */
int elf_file__open(struct elf_file *ef, const char *path);
/*
 * elf_file__open_quiet() does the same without the error line, for a
 * candidate file that may not fit.
 */
int elf_file__open_quiet(struct elf_file *ef, const char *path);
/*
 * elf_file__open_whole() opens it as elf_file__open() does, but reads a
 * relocatable file whole, its relocations of DWARF too (a test hook's:
 * the reference for rel_apply.c).
 */
int elf_file__open_whole(struct elf_file *ef, const char *path);
void elf_file__close(struct elf_file *ef);
/*
 * elf_file__map_gapped() maps the file that libelf mapped a second time,
 * after a gap (struct elf_file, map): 0, or -EOPNOTSUPP for a relocatable
 * file (read, not mapped) or one libelf did not map, or the negative errno
 * of mmap().  Once mapped, it is mapped (0).  Call it before other threads
 * read @ef.
 */
int elf_file__map_gapped(struct elf_file *ef);
/*
 * elf_file__moved() returns where @p, a pointer into libelf's mapping of
 * the file (up to one past its end), lies in the second one; any other
 * pointer, and any without a second mapping, as it is.
 */
const void *elf_file__moved(const struct elf_file *ef, const void *p);
/*
 * elf_file__probe() tells, without opening it as an input, whether the
 * file at @path starts as an ELF file does: 0, -ENOEXEC if it does not,
 * or the negative errno of opening or reading it.  Nothing is printed.
 */
int elf_file__probe(const char *path);

/*
 * elf_file__drop_pages() gives back the whole pages of a file mapping
 * within [@p, @p + @size): they leave our RSS and come back from the page
 * cache if they are read again.  @p must point into a file mapping.
 */
void elf_file__drop_pages(const void *p, size_t size);
/*
 * elf_file__discard() gives back the whole pages of @ef's own copy of the
 * file (buf: a relocatable file's) within the @size bytes at file offset
 * @off.  Their bytes are gone: read again, they would be zeros.  So only
 * what nothing reads again may go.  It returns the bytes given back.
 */
size_t elf_file__discard(const struct elf_file *ef, uint64_t off,
			 uint64_t size);
/*
 * elf_file__copy_offset() tells where the @size bytes at @p lie in @ef's
 * own copy: their file offset into *@off, if they are all inside it and
 * inside one section that no other section overlaps, so that parts of
 * them may be given back (elf_file__discard_part()).
 */
bool elf_file__copy_offset(const struct elf_file *ef, const void *p,
			   uint64_t size, uint64_t *off);
/*
 * elf_file__discard_part() is elf_file__discard() for a part of a range
 * elf_file__copy_offset() found: no check of the other sections.
 */
size_t elf_file__discard_part(const struct elf_file *ef, uint64_t off,
			      uint64_t size);
/*
 * elf_file__read_at() reads the @n bytes at file offset @off into @dst:
 * 0, or a negative errno (-EIO at the end of the file).
 */
int elf_file__read_at(const struct elf_file *ef, void *dst, uint64_t n,
		      uint64_t off);
/*
 * elf_file__fill() reads section @shndx, left out of @ef's copy, into it:
 * 0 or a negative errno.  Until then its bytes there are not its own.
 */
int elf_file__fill(const struct elf_file *ef, size_t shndx);
Elf_Scn *elf_file__find_section(const struct elf_file *ef, const char *name,
				GElf_Shdr *shdr);
const char *elf_file__section_name(const struct elf_file *ef, size_t shndx);

#endif
