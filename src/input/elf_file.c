// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file opens the ELF input.  libelf resolves extended section
 * numbering for us through elf_getshdrnum() and elf_getshdrstrndx(), and
 * libdw decompresses compressed debug sections later, when it opens the
 * DWARF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
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

int elf_file__probe(const char *path)
{
	unsigned char magic[SELFMAG];
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, magic, sizeof(magic));
	if (n < 0)
		err = -errno;
	else if (n != SELFMAG || memcmp(magic, ELFMAG, SELFMAG))
		err = -ENOEXEC;
	close(fd);
	return err;
}

int elf_file__read_at(const struct elf_file *ef, void *dst, uint64_t n,
		      uint64_t off)
{
	char *p = dst;
	ssize_t got;

	while (n) {
		got = pread(ef->fd, p, n, off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return got < 0 ? -errno : -EIO;
		p += got;
		off += got;
		n -= got;
	}
	return 0;
}

/* Reads the file's bytes [@off, @off + @n) into buf, at the same offset. */
static int elf_file__pread(const struct elf_file *ef, uint64_t off,
			   uint64_t n)
{
	return elf_file__read_at(ef, ef->buf + off, n, off);
}

/* Do [@a, @a + @an) and [@b, @b + @bn) share a byte? */
static bool ranges_meet(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

/*
 * Is section @i of the headers @eh and @sh within a file of @size bytes,
 * and apart from the ELF header, the program and section headers and
 * every other section?
 */
static bool apart(const Elf64_Ehdr *eh, const Elf64_Shdr *sh, size_t i,
		  uint64_t size)
{
	uint64_t off = sh[i].sh_offset, n = sh[i].sh_size;
	size_t j;

	if (off > size || n > size - off ||
	    ranges_meet(off, n, 0, sizeof(*eh)) ||
	    ranges_meet(off, n, eh->e_shoff,
			(uint64_t)eh->e_shnum * sizeof(*sh)) ||
	    ranges_meet(off, n, eh->e_phoff,
			(uint64_t)eh->e_phnum * eh->e_phentsize))
		return false;
	for (j = 1; j < eh->e_shnum; j++)
		if (j != i && sh[j].sh_type != SHT_NOBITS &&
		    ranges_meet(off, n, sh[j].sh_offset, sh[j].sh_size))
			return false;
	return true;
}

/* Smaller relocation sections are read: two pages are not worth it. */
#define UNREAD_MIN	(8u << 10)

/*
 * elf_file__plan_unread() picks the relocation sections of DWARF to leave
 * out of the copy of a file of @size bytes: an x86-64 file's RELA sections
 * of .debug_* sections (the ones rel_apply.c applies, src/input/
 * rel_apply.h), each apart from the headers and from every other section,
 * which then never reads their bytes.  The headers and the section names
 * are read into buf first.  A file that does not fit (or whose headers
 * cannot be read) leaves nothing out, and libelf then reports what is
 * wrong with it.
 */
static void elf_file__plan_unread(struct elf_file *ef, uint64_t size)
{
	const Elf64_Shdr *sh, *r, *t;
	const char *names;
	uint64_t names_size, shdrs;
	Elf64_Ehdr eh;
	size_t i;

	ef->nr_unread = 0;
	if (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ || size < sizeof(eh) ||
	    elf_file__pread(ef, 0, sizeof(eh)))
		return;
	memcpy(&eh, ef->buf, sizeof(eh));
	shdrs = (uint64_t)eh.e_shnum * sizeof(*sh);
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64 ||
	    eh.e_shentsize != sizeof(*sh) || !eh.e_shnum ||
	    eh.e_shstrndx >= eh.e_shnum || eh.e_shoff % 8 ||
	    eh.e_shoff > size || shdrs > size - eh.e_shoff ||
	    elf_file__pread(ef, eh.e_shoff, shdrs))
		return;
	/* malloc()'s alignment and e_shoff's make the headers aligned. */
	sh = (const Elf64_Shdr *)(ef->buf + eh.e_shoff);
	t = &sh[eh.e_shstrndx];
	names_size = t->sh_size;
	if (t->sh_type == SHT_NOBITS || t->sh_offset > size ||
	    names_size > size - t->sh_offset ||
	    ranges_meet(t->sh_offset, names_size, eh.e_shoff, shdrs) ||
	    elf_file__pread(ef, t->sh_offset, names_size))
		return;
	names = ef->buf + t->sh_offset;
	for (i = 1; i < eh.e_shnum && ef->nr_unread < ELF_UNREAD_MAX; i++) {
		r = &sh[i];
		if (r->sh_type != SHT_RELA || (r->sh_flags & SHF_COMPRESSED) ||
		    r->sh_entsize != sizeof(Elf64_Rela) ||
		    r->sh_size % sizeof(Elf64_Rela) || r->sh_size < UNREAD_MIN ||
		    r->sh_offset > size || r->sh_size > size - r->sh_offset ||
		    r->sh_info >= eh.e_shnum || r->sh_link >= eh.e_shnum ||
		    sh[r->sh_link].sh_type != SHT_SYMTAB)
			continue;
		t = &sh[r->sh_info];
		if (t->sh_type == SHT_NOBITS ||
		    (t->sh_flags & (SHF_ALLOC | SHF_COMPRESSED)) ||
		    t->sh_name >= names_size || names_size - t->sh_name < 8 ||
		    memcmp(names + t->sh_name, ".debug_", 7))
			continue;
		/*
		 * Neither it nor what it writes to may share a byte with the
		 * headers or another section: libdwfl refuses a target over
		 * the headers, and rel_apply.c reads them in place.
		 */
		if (!apart(&eh, sh, i, size) || !apart(&eh, sh, r->sh_info, size))
			continue;
		ef->unread[ef->nr_unread++] = (struct elf_unread){
			.off = r->sh_offset, .size = r->sh_size, .shndx = i,
		};
	}
}

/*
 * A relocatable file is read whole into memory, because libdwfl relocates
 * its DWARF in place.  In a private file mapping, that would be a
 * copy-on-write fault for every page, each one flushing the TLBs of the
 * other threads' CPUs too (a sixth of a module file set's time, measured).
 * Its symbols are read from that copy as well.  The relocations of its
 * DWARF are left out where rel_apply.c can apply them from the file: they
 * are most of a module's bytes (241 of amdgpu.ko's 596 MB), and read
 * whole they made its peak.  The sections are disjoint (the plan checks),
 * so the rest is read around them in offset order.
 */
static int elf_file__read(struct elf_file *ef, size_t size, bool whole)
{
	struct elf_unread u[ELF_UNREAD_MAX];
	uint64_t at = 0;
	size_t i, j, n;
	int err;

	ef->buf = malloc(size ? size : 1);
	if (!ef->buf)
		return -ENOMEM;
	if (!whole)
		elf_file__plan_unread(ef, size);
	n = ef->nr_unread;
	memcpy(u, ef->unread, n * sizeof(*u));
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && u[j].off < u[j - 1].off; j--) {
			struct elf_unread tmp = u[j];

			u[j] = u[j - 1];
			u[j - 1] = tmp;
		}
	for (i = 0; i <= n; i++) {
		uint64_t to = i < n ? u[i].off : size;

		err = elf_file__pread(ef, at, to - at);
		if (err)
			return err;
		at = i < n ? u[i].off + u[i].size : size;
	}
	ef->size = size;
	return 0;
}

int elf_file__fill(const struct elf_file *ef, size_t shndx)
{
	size_t i;

	for (i = 0; i < ef->nr_unread; i++)
		if (ef->unread[i].shndx == shndx)
			return elf_file__pread(ef, ef->unread[i].off,
					       ef->unread[i].size);
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
 * for most files, and a copy in memory for a relocatable one (with
 * @whole, its relocations of DWARF too).  With @quiet, no error is
 * printed.  It returns 0 or a negative errno, and @ef
 * is closed on failure.
 */
static int elf_file__open_impl(struct elf_file *ef, const char *path,
			       bool quiet, bool whole)
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
		err = elf_file__read(ef, st.st_size, whole);
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
	return elf_file__open_impl(ef, path, false, false);
}

int elf_file__open_quiet(struct elf_file *ef, const char *path)
{
	return elf_file__open_impl(ef, path, true, false);
}

int elf_file__open_whole(struct elf_file *ef, const char *path)
{
	return elf_file__open_impl(ef, path, false, true);
}

int elf_file__map_gapped(struct elf_file *ef)
{
	size_t size = 0;
	char *p;

	if (ef->gap)
		return 0;
	if (ef->buf || !ef->elf || !elf_rawfile(ef->elf, &size) || !size ||
	    size > SIZE_MAX - ELF_VIEW_GAP)
		return -EOPNOTSUPP;
	p = mmap(NULL, ELF_VIEW_GAP + size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return -errno;
	if (mmap(p + ELF_VIEW_GAP, size, PROT_READ, MAP_PRIVATE | MAP_FIXED,
		 ef->fd, 0) == MAP_FAILED) {
		int err = -errno;

		munmap(p, ELF_VIEW_GAP + size);
		return err;
	}
	ef->map_elf = elf_memory(p + ELF_VIEW_GAP, size);
	if (!ef->map_elf || elf_kind(ef->map_elf) != ELF_K_ELF) {
		if (ef->map_elf)
			elf_end(ef->map_elf);
		ef->map_elf = NULL;
		munmap(p, ELF_VIEW_GAP + size);
		return -EINVAL;
	}
	ef->gap = p;
	ef->map = p + ELF_VIEW_GAP;
	ef->map_size = size;
	return 0;
}

const void *elf_file__moved(const struct elf_file *ef, const void *p)
{
	size_t size = 0;
	const char *raw, *c = p;

	if (!ef->map || !p || !(raw = elf_rawfile(ef->elf, &size)) ||
	    c < raw || c > raw + size)
		return p;
	return ef->map + (c - raw);
}

void elf_file__close(struct elf_file *ef)
{
	if (ef->map_elf)
		elf_end(ef->map_elf);
	if (ef->gap)
		munmap(ef->gap, ELF_VIEW_GAP + ef->map_size);
	ef->map_elf = NULL;
	ef->gap = NULL;
	ef->map = NULL;
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
	return elf_file__discard_part(ef, off, size);
}

bool elf_file__copy_offset(const struct elf_file *ef, const void *p,
			   uint64_t size, uint64_t *off)
{
	const char *c = p;
	Elf_Scn *scn = NULL;
	size_t inside = 0;
	GElf_Shdr sh;

	if (!ef->buf || c < ef->buf || c > ef->buf + ef->size ||
	    size > (uint64_t)(ef->buf + ef->size - c))
		return false;
	*off = c - ef->buf;
	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !sh.sh_size || sh.sh_offset >= *off + size ||
		    *off >= sh.sh_offset + sh.sh_size)
			continue;
		if (sh.sh_offset > *off ||
		    sh.sh_offset + sh.sh_size < *off + size || inside++)
			return false;
	}
	return inside == 1;
}

size_t elf_file__discard_part(const struct elf_file *ef, uint64_t off,
			      uint64_t size)
{
	if (!ef->buf || off > ef->size || size > ef->size - off)
		return 0;
	return pages__dontneed(ef->buf + off, size);
}
