// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file opens the ELF input.  libelf resolves extended section
 * numbering for us through elf_getshdrnum() and elf_getshdrstrndx(), and
 * libdw decompresses compressed debug sections later, when it opens the
 * DWARF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "input/elf_file.h"
#include "lib/log.h"

/*
 * elf_file__is_rel() tells whether the ELF header says ET_REL.  It reads
 * e_type, the two bytes after e_ident, in the file's byte order.  A broken
 * header is left to libelf to report.
 */
static bool elf_file__is_rel(int fd)
{
	unsigned char e[EI_NIDENT + 2];
	unsigned int type;

	if (pread(fd, e, sizeof(e), 0) != (ssize_t)sizeof(e) ||
	    memcmp(e, ELFMAG, SELFMAG))
		return false;
	type = e[EI_DATA] == ELFDATA2MSB ? e[EI_NIDENT] << 8 | e[EI_NIDENT + 1] :
					    e[EI_NIDENT + 1] << 8 | e[EI_NIDENT];
	return type == ET_REL;
}

/*
 * A relocatable file is read whole into memory, because libdwfl relocates
 * its DWARF in place.  In a private file mapping, that would be a
 * copy-on-write fault for every page, each one flushing the TLBs of the
 * other threads' CPUs too (a sixth of a module file set's time, measured).
 * Its symbols are read from that copy as well.
 */
static int elf_file__read(struct elf_file *ef, size_t size)
{
	size_t done = 0;
	ssize_t n;

	ef->buf = malloc(size ? size : 1);
	if (!ef->buf)
		return -ENOMEM;
	while (done < size) {
		n = pread(ef->fd, ef->buf + done, size - done, done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += n;
	}
	ef->size = size;
	return 0;
}

/*
 * A file that was cut short (an interrupted copy or download) is reported
 * as such here.  libelf would see fewer sections, or none, and we would
 * otherwise report what is missing from them instead.
 */
static int elf_file__check_size(struct elf_file *ef, uint64_t size,
				bool quiet)
{
	uint64_t end = ef->ehdr.e_shoff +
		       (uint64_t)ef->ehdr.e_shnum * ef->ehdr.e_shentsize;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (ef->ehdr.e_shoff && end > size) {
		if (!quiet)
			pr_err("%s: truncated: its section headers end at byte %llu, the file at %llu",
			       ef->path, (unsigned long long)end,
			       (unsigned long long)size);
		return -EINVAL;
	}
	while ((scn = elf_nextscn(ef->elf, scn))) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    sh.sh_offset + sh.sh_size <= size)
			continue;
		if (!quiet)
			pr_err("%s: truncated: section [%zu] ends at byte %llu, the file at %llu",
			       ef->path, elf_ndxscn(scn),
			       (unsigned long long)(sh.sh_offset + sh.sh_size),
			       (unsigned long long)size);
		return -EINVAL;
	}
	return 0;
}

/*
 * elf_file__open_impl() opens the ELF file at @path into @ef: a mapping
 * for most files, and a copy in memory for a relocatable one.  With
 * @quiet, no error is printed.  It returns 0 or a negative errno, and @ef
 * is closed on failure.
 */
static int elf_file__open_impl(struct elf_file *ef, const char *path,
			       bool quiet)
{
	struct stat st;
	int err;

	memset(ef, 0, sizeof(*ef));
	ef->path = path;
	ef->fd = -1;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		if (!quiet)
			pr_err("%s: libelf version mismatch", path);
		return -EINVAL;
	}
	/* O_NONBLOCK keeps a FIFO given as input from hanging us in open(). */
	ef->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (ef->fd < 0) {
		err = -errno;
		if (!quiet)
			pr_err("%s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(ef->fd, &st) || !S_ISREG(st.st_mode)) {
		if (!quiet)
			pr_err("%s: not a regular file", path);
		err = -EINVAL;
		goto fail;
	}
	if (elf_file__is_rel(ef->fd)) {
		err = elf_file__read(ef, st.st_size);
		if (err) {
			if (!quiet)
				pr_err("%s: cannot read: %s", path,
				       strerror(-err));
			goto fail;
		}
		ef->elf = elf_memory(ef->buf, ef->size);
	} else {
		ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	}
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		if (!quiet)
			pr_err("%s: not an ELF file", path);
		err = -EINVAL;
		goto fail;
	}
	if (!gelf_getehdr(ef->elf, &ef->ehdr) ||
	    elf_getshdrnum(ef->elf, &ef->shnum) ||
	    elf_getshdrstrndx(ef->elf, &ef->shstrndx)) {
		if (!quiet)
			pr_err("%s: bad ELF header: %s", path,
			       elf_errmsg(-1));
		err = -EINVAL;
		goto fail;
	}
	ef->big_endian = ef->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	ef->ptr_size = ef->ehdr.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	err = elf_file__check_size(ef, st.st_size, quiet);
	if (err)
		goto fail;
	return 0;
fail:
	elf_file__close(ef);
	return err;
}

int elf_file__open(struct elf_file *ef, const char *path)
{
	return elf_file__open_impl(ef, path, false);
}

int elf_file__open_quiet(struct elf_file *ef, const char *path)
{
	return elf_file__open_impl(ef, path, true);
}

void elf_file__close(struct elf_file *ef)
{
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	free(ef->buf);
	ef->elf = NULL;
	ef->buf = NULL;
	ef->fd = -1;
}

const char *elf_file__section_name(const struct elf_file *ef, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(ef->elf, shndx);
	GElf_Shdr shdr;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return NULL;
	return elf_strptr(ef->elf, ef->shstrndx, shdr.sh_name);
}

Elf_Scn *elf_file__find_section(const struct elf_file *ef, const char *name,
				GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(ef->elf, ef->shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

/*
 * Gives back the whole pages within [@p, @p + @size) with MADV_DONTNEED and
 * returns their size.  Only whole pages go, so that data around the range
 * is never lost.
 */
static size_t pages__dontneed(const void *p, size_t size)
{
	uintptr_t page = sysconf(_SC_PAGESIZE), start, end;

	start = ((uintptr_t)p + page - 1) & ~(page - 1);
	end = ((uintptr_t)p + size) & ~(page - 1);
	if (end <= start || madvise((void *)start, end - start, MADV_DONTNEED))
		return 0;
	return end - start;
}

/*
 * MADV_DONTNEED on a private file mapping discards the pages, and the next
 * access reads them from the file again.  On memory we allocated it would
 * zero them instead, so callers pass only mapped file data.
 */
void elf_file__drop_pages(const void *p, size_t size)
{
	pages__dontneed(p, size);
}

/*
 * On buf, which we allocated, MADV_DONTNEED zeroes the pages: the memory
 * stays ours (malloc()'s own headers lie outside it), and its bytes are
 * gone, which is the contract of elf_file.h.
 */
size_t elf_file__discard(const struct elf_file *ef, uint64_t off,
			 uint64_t size)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (!ef->buf || off > ef->size || size > ef->size - off)
		return 0;
	/*
	 * In a well-formed file no other section shares the range; in a
	 * malformed one that overlaps them, nothing is given back, so that
	 * no section read later loses bytes.
	 */
	while ((scn = elf_nextscn(ef->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && sh.sh_type != SHT_NOBITS &&
		    sh.sh_size && (sh.sh_offset != off || sh.sh_size != size) &&
		    sh.sh_offset < off + size && off < sh.sh_offset + sh.sh_size)
			return 0;
	return pages__dontneed(ef->buf + off, size);
}
