// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file adds or replaces a section of an ELF file (output.h) through
 * an out_file (out_file.h), so that the old file is never half rewritten.
 *
 * ELF files are not rewritten by libelf's layout engine: it may move
 * sections that program headers point to.  libelf is only used to read
 * the headers (any class, byte order, extended numbering) and to convert
 * headers back to the file's byte order.  The file is copied as bytes and
 * whatever has to move or grow (the section's data, .shstrtab, the
 * section header table) is appended at the end.  Things that were only
 * at the end of the old file (the old section header table, typically)
 * are dropped, so adding or replacing a section repeatedly does not make
 * the file grow without bound.
 */
#define _GNU_SOURCE
#include "output/out_file.h"
#include "output/out_precopy.h"
#include "output/output.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * This is the sh_addralign of the section we write.  pahole 1.24 adds
 * .BTF with llvm-objcopy, which gives 1 (see Debian's .ko files), and we
 * match it.
 */
#define OUTPUT_SECTION_ALIGN	1
/* Appended data is aligned to 4 bytes, because BTF is made of u32s. */
#define OUTPUT_DATA_ALIGN	4
/* Larger alignments of an allocated section are not kept in the file. */
#define OUTPUT_MAX_ALIGN	4096
/* This much padding is accepted between droppable things at the end. */
#define OUTPUT_TAIL_GAP		16

#define ALIGN_UP(x, a)		(((x) + (a) - 1) / (a) * (a))

/* An out_elf is the ELF file being rewritten, as read from its headers. */
struct out_elf {
	const char *path;
	int fd;
	uint64_t size;
	int cls;		/* ELFCLASS32 or ELFCLASS64. */
	int enc;		/* ELFDATA2LSB or ELFDATA2MSB. */
	GElf_Ehdr ehdr;
	/* The real counts: extended numbering is resolved when read. */
	size_t shnum;
	size_t shstrndx;
	/*
	 * There are three entries more than shnum, so new sections need no
	 * realloc: a file without section headers gets a null section, a
	 * .shstrtab and ours.
	 */
	GElf_Shdr *shdrs;
	char *strs;		/* What .shstrtab holds. */
	size_t strs_size;
	/*
	 * This is the end of the ELF header, the program headers and the
	 * segments, which all stay where they are.
	 */
	uint64_t keep_min;
	GElf_Phdr *phdrs;	/* The program headers. */
	size_t phnum;
};

struct range {
	uint64_t start, end;
};

/* out_elf__zeros() compares the input with these. */
static const char zeros[4096];

/*
 * out_elf__read() reads the ELF header, the section headers and the
 * program headers of ef->fd, and computes ef->keep_min.  It returns 0 or
 * a negative errno after reporting the error.
 */
static int out_elf__read(struct out_elf *ef)
{
	size_t phnum, i;
	Elf *elf;
	int err = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return out_file__fail(ef->path, EINVAL, "libelf: %s",
				 elf_errmsg(-1));
	/*
	 * ELF_C_READ reads headers on demand, without mmap, so a file that
	 * shrinks meanwhile cannot raise SIGBUS.
	 */
	elf = elf_begin(ef->fd, ELF_C_READ, NULL);
	if (!elf)
		return out_file__fail(ef->path, EIO, "cannot read ELF: %s",
				 elf_errmsg(-1));
	if (elf_kind(elf) != ELF_K_ELF) {
		err = out_file__fail(ef->path, ENOEXEC, "not an ELF file");
		goto out;
	}
	if (!gelf_getehdr(elf, &ef->ehdr)) {
		err = out_file__fail(ef->path, ENOEXEC, "bad ELF header: %s",
				elf_errmsg(-1));
		goto out;
	}
	ef->cls = gelf_getclass(elf);
	ef->enc = ef->ehdr.e_ident[EI_DATA];
	if ((ef->cls != ELFCLASS32 && ef->cls != ELFCLASS64) ||
	    (ef->enc != ELFDATA2LSB && ef->enc != ELFDATA2MSB)) {
		err = out_file__fail(ef->path, ENOEXEC, "bad ELF class or data");
		goto out;
	}
	if (elf_getshdrnum(elf, &ef->shnum) ||
	    elf_getshdrstrndx(elf, &ef->shstrndx) ||
	    elf_getphdrnum(elf, &phnum)) {
		err = out_file__fail(ef->path, ENOEXEC, "bad ELF header: %s",
				elf_errmsg(-1));
		goto out;
	}
	/*
	 * This leaves room for a null section, .shstrtab and ours, which a
	 * file without section headers needs.
	 */
	ef->shdrs = calloc(ef->shnum + 3, sizeof(*ef->shdrs));
	if (!ef->shdrs) {
		err = out_file__error(ef->path, ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < ef->shnum; i++) {
		Elf_Scn *scn = elf_getscn(elf, i);

		if (!scn || !gelf_getshdr(scn, &ef->shdrs[i])) {
			err = out_file__fail(ef->path, ENOEXEC,
					"bad section header %zu: %s", i,
					elf_errmsg(-1));
			goto out;
		}
	}

	/* The ELF header and what program headers reference must stay. */
	ef->keep_min = ef->cls == ELFCLASS64 ? sizeof(Elf64_Ehdr) :
					      sizeof(Elf32_Ehdr);
	if (ef->ehdr.e_ehsize > ef->keep_min)
		ef->keep_min = ef->ehdr.e_ehsize;
	if (phnum && ef->ehdr.e_phoff + (uint64_t)phnum *
				       ef->ehdr.e_phentsize > ef->keep_min)
		ef->keep_min = ef->ehdr.e_phoff +
			       (uint64_t)phnum * ef->ehdr.e_phentsize;
	ef->phdrs = calloc(phnum + 1, sizeof(*ef->phdrs));
	if (!ef->phdrs) {
		err = out_file__error(ef->path, ENOMEM, "out of memory");
		goto out;
	}
	ef->phnum = phnum;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph)) {
			err = out_file__fail(ef->path, ENOEXEC,
					"bad program header %zu: %s", i,
					elf_errmsg(-1));
			goto out;
		}
		ef->phdrs[i] = ph;
		if (ph.p_filesz && ph.p_offset + ph.p_filesz > ef->keep_min)
			ef->keep_min = ph.p_offset + ph.p_filesz;
	}
	if (ef->keep_min > ef->size)
		ef->keep_min = ef->size;
out:
	elf_end(elf);
	return err;
}

/*
 * out_elf__read_strs() reads .shstrtab into ef->strs, with @extra bytes
 * of room to append a name.  It returns 0 or a negative errno.
 */
static int out_elf__read_strs(struct out_elf *ef, size_t extra)
{
	const GElf_Shdr *sh;
	uint64_t done = 0;

	if (ef->shstrndx >= ef->shnum)
		return out_file__fail(ef->path, ENOEXEC,
				 "no section name string table");
	sh = &ef->shdrs[ef->shstrndx];
	if (sh->sh_type != SHT_STRTAB || sh->sh_offset > ef->size ||
	    sh->sh_size > ef->size - sh->sh_offset)
		return out_file__fail(ef->path, ENOEXEC,
				 "bad section name string table");
	ef->strs_size = sh->sh_size;
	ef->strs = malloc(ef->strs_size + extra);
	if (!ef->strs)
		return out_file__error(ef->path, ENOMEM, "out of memory");
	while (done < ef->strs_size) {
		ssize_t n = pread(ef->fd, ef->strs + done,
				  ef->strs_size - done, sh->sh_offset + done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return out_file__error(ef->path, n < 0 ? errno : EIO,
					  "read failed");
		done += n;
	}
	return 0;
}

/*
 * out_elf__name() returns the name of section @sh, or NULL when its name
 * does not end inside .shstrtab.
 */
static const char *out_elf__name(const struct out_elf *ef,
				  const GElf_Shdr *sh)
{
	if (sh->sh_name >= ef->strs_size ||
	    !memchr(ef->strs + sh->sh_name, 0, ef->strs_size - sh->sh_name))
		return NULL;
	return ef->strs + sh->sh_name;
}

/*
 * out_elf__find_suffix() returns the offset of a string in .shstrtab that
 * ends with @name, or -1.
 */
static long out_elf__find_suffix(const struct out_elf *ef, const char *name)
{
	size_t len = strlen(name), i;

	for (i = len; i < ef->strs_size; i++)
		if (!ef->strs[i] && !memcmp(ef->strs + i - len, name, len))
			return i - len;
	return -1;
}

/*
 * out_elf__to_file() converts @n headers to the file's class and byte
 * order into @dst.  For a 32-bit file, the GElf headers are narrowed
 * first.  It returns 0 or a negative errno.
 */
static int out_elf__to_file(const struct out_elf *ef, Elf_Type type,
			     const void *src, size_t n, void *dst)
{
	Elf_Data s = { .d_type = type, .d_version = EV_CURRENT };
	Elf_Data d = { .d_type = type, .d_version = EV_CURRENT };
	Elf32_Ehdr *e32;
	Elf32_Shdr *s32;
	const GElf_Ehdr *ge;
	const GElf_Shdr *gs;
	void *tmp = NULL;
	size_t i, sz;
	Elf_Data *r;

	if (ef->cls == ELFCLASS64) {
		sz = type == ELF_T_EHDR ? sizeof(Elf64_Ehdr) : sizeof(Elf64_Shdr);
		s.d_buf = (void *)src;
	} else if (type == ELF_T_EHDR) {
		/* All values were checked to fit or came from the file. */
		sz = sizeof(Elf32_Ehdr);
		tmp = e32 = calloc(1, sz);
		if (!e32)
			return -ENOMEM;
		ge = src;
		memcpy(e32->e_ident, ge->e_ident, EI_NIDENT);
		e32->e_type = ge->e_type;
		e32->e_machine = ge->e_machine;
		e32->e_version = ge->e_version;
		e32->e_entry = ge->e_entry;
		e32->e_phoff = ge->e_phoff;
		e32->e_shoff = ge->e_shoff;
		e32->e_flags = ge->e_flags;
		e32->e_ehsize = ge->e_ehsize;
		e32->e_phentsize = ge->e_phentsize;
		e32->e_phnum = ge->e_phnum;
		e32->e_shentsize = ge->e_shentsize;
		e32->e_shnum = ge->e_shnum;
		e32->e_shstrndx = ge->e_shstrndx;
		s.d_buf = tmp;
	} else {
		sz = sizeof(Elf32_Shdr);
		tmp = s32 = calloc(n, sz);
		if (!s32)
			return -ENOMEM;
		gs = src;
		for (i = 0; i < n; i++) {
			s32[i].sh_name = gs[i].sh_name;
			s32[i].sh_type = gs[i].sh_type;
			s32[i].sh_flags = gs[i].sh_flags;
			s32[i].sh_addr = gs[i].sh_addr;
			s32[i].sh_offset = gs[i].sh_offset;
			s32[i].sh_size = gs[i].sh_size;
			s32[i].sh_link = gs[i].sh_link;
			s32[i].sh_info = gs[i].sh_info;
			s32[i].sh_addralign = gs[i].sh_addralign;
			s32[i].sh_entsize = gs[i].sh_entsize;
		}
		s.d_buf = tmp;
	}
	s.d_size = d.d_size = sz * n;
	d.d_buf = dst;
	if (ef->cls == ELFCLASS64)
		r = elf64_xlatetof(&d, &s, ef->enc);
	else
		r = elf32_xlatetof(&d, &s, ef->enc);
	free(tmp);
	return r ? 0 : -EINVAL;
}

/*
 * out_elf__zeros() tells whether [@start, @end) of the input reads as
 * zeros.  The effort is bounded: a range longer than 16 * OUTPUT_CHUNK
 * is not read and counts as not zeros.
 */
static bool out_elf__zeros(const struct out_elf *ef, uint64_t start,
			    uint64_t end)
{
	char buf[4096];

	if (end - start > 16 * OUTPUT_CHUNK)
		return false;
	while (start < end) {
		size_t n = end - start < sizeof(buf) ? end - start : sizeof(buf);
		ssize_t r = pread(ef->fd, buf, n, start);

		if (r <= 0 || memcmp(buf, zeros, r))
			return false;
		start += r;
	}
	return true;
}

/*
 * out_elf__tail_droppable() tells whether [@keep, size) holds only @drop
 * ranges (things we rewrite elsewhere) and padding between them, which is
 * either short or zeros, such as a shrunk section's old tail.  If so, the
 * tail can be cut off.  Anything else there (a signature, unknown trailing
 * data) is kept.
 */
static bool out_elf__tail_droppable(const struct out_elf *ef, uint64_t keep,
				     struct range *drop, int ndrop)
{
	uint64_t pos = keep;
	int i, j;

	/* An insertion sort by start: there are at most three. */
	for (i = 1; i < ndrop; i++)
		for (j = i; j > 0 && drop[j].start < drop[j - 1].start; j--) {
			struct range t = drop[j];

			drop[j] = drop[j - 1];
			drop[j - 1] = t;
		}
	for (i = 0; i < ndrop && pos < ef->size; i++) {
		if (drop[i].end <= pos)
			continue;
		if (drop[i].start > pos + OUTPUT_TAIL_GAP &&
		    (drop[i].start > ef->size ||
		     !out_elf__zeros(ef, pos, drop[i].start)))
			return false;
		pos = drop[i].end;
	}
	return pos >= ef->size;
}

/* An out_plan says what changes in the ELF file, and where things go. */
struct out_plan {
	size_t idx;		/* The index of the section we write. */
	size_t new_shnum;
	size_t shent;		/* The size of one section header. */
	bool add;		/* The section is new. */
	/* .shstrtab grew (or is new), so it is appended. */
	bool str_moved;
	bool sec_in_place;	/* The data overwrites the old contents. */
	bool table_moved;	/* The section headers are appended. */
	uint64_t old_sec_size;
	/* The bytes of the old file that are copied as they are. */
	uint64_t keep;
	uint64_t str_off, sec_off, shoff;
};

/*
 * out_elf__in_segment() tells whether a loaded segment maps the section's
 * file bytes (for an empty section, its offset).  Those bytes cannot move
 * or change size.
 */
static bool out_elf__in_segment(const struct out_elf *ef,
				const GElf_Shdr *sh)
{
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const GElf_Phdr *ph = &ef->phdrs[i];

		if (ph->p_type == PT_LOAD && sh->sh_offset >= ph->p_offset &&
		    sh->sh_offset - ph->p_offset <= ph->p_filesz &&
		    sh->sh_size <= ph->p_filesz - (sh->sh_offset - ph->p_offset))
			return true;
	}
	return false;
}

/*
 * out_elf__find() finds section @name, or sets up adding it and a name
 * for it.  It refuses to replace .shstrtab or a section that has
 * relocations.  It returns 0 or a negative errno.
 */
static int out_elf__find(struct out_elf *ef, struct out_plan *pl,
			  const char *name, size_t size)
{
	static const char shstrtab[] = ".shstrtab";
	size_t nlen = strlen(name), i;
	GElf_Shdr *sh;
	long name_off;
	bool in_file;
	int err;

	if (ef->shnum == 0) {
		/*
		 * There are no section headers at all: we make the null
		 * section and a .shstrtab, then add ours.
		 */
		ef->strs_size = 1 + sizeof(shstrtab) + nlen + 1;
		ef->strs = calloc(1, ef->strs_size);
		if (!ef->strs)
			return out_file__error(ef->path, ENOMEM, "out of memory");
		memcpy(ef->strs + 1, shstrtab, sizeof(shstrtab));
		memcpy(ef->strs + 1 + sizeof(shstrtab), name, nlen);
		ef->shdrs[1] = (GElf_Shdr){ .sh_name = 1,
					    .sh_type = SHT_STRTAB,
					    .sh_addralign = 1 };
		ef->shdrs[2].sh_name = 1 + sizeof(shstrtab);
		ef->shstrndx = 1;
		pl->idx = 2;
		pl->new_shnum = 3;
		pl->add = pl->str_moved = true;
		return 0;
	}

	if (ef->shstrndx == SHN_UNDEF)
		return out_file__fail(ef->path, ENOEXEC,
				 "no section name string table");
	err = out_elf__read_strs(ef, nlen + 2);
	if (err)
		return err;
	for (i = 1; i < ef->shnum && !pl->idx; i++) {
		const char *n = out_elf__name(ef, &ef->shdrs[i]);

		if (n && !strcmp(n, name))
			pl->idx = i;
	}

	if (!pl->idx) {
		/*
		 * A string ending in the name (".rela.BTF") is reused, as
		 * linkers do; otherwise the name is appended and .shstrtab
		 * moves.
		 */
		name_off = out_elf__find_suffix(ef, name);
		if (name_off < 0) {
			if (ef->strs_size && ef->strs[ef->strs_size - 1])
				ef->strs[ef->strs_size++] = '\0';
			name_off = ef->strs_size;
			memcpy(ef->strs + ef->strs_size, name, nlen + 1);
			ef->strs_size += nlen + 1;
			pl->str_moved = true;
		}
		pl->idx = ef->shnum;
		ef->shdrs[pl->idx].sh_name = name_off;
		pl->new_shnum = ef->shnum + 1;
		pl->add = true;
		return 0;
	}

	pl->new_shnum = ef->shnum;
	if (pl->idx == ef->shstrndx)
		return out_file__fail(ef->path, EINVAL,
				 "%s holds the section names; not replacing it",
				 name);
	/*
	 * A section with relocations is refused, because the relocations
	 * would patch our new data.
	 */
	for (i = 1; i < ef->shnum; i++) {
		const GElf_Shdr *r = &ef->shdrs[i];
		const char *rn;

		if ((r->sh_type != SHT_REL && r->sh_type != SHT_RELA) ||
		    r->sh_info != pl->idx)
			continue;
		rn = out_elf__name(ef, r);
		return out_file__fail(ef->path, EINVAL,
				 "%s has relocations (%s); not replacing it",
				 name, rn ? rn : "?");
	}
	sh = &ef->shdrs[pl->idx];
	pl->old_sec_size = sh->sh_size;
	in_file = sh->sh_type != SHT_NOBITS && sh->sh_offset <= ef->size &&
		  sh->sh_size <= ef->size - sh->sh_offset;
	if ((sh->sh_flags & SHF_ALLOC) && out_elf__in_segment(ef, sh))
		/*
		 * Its bytes are where a segment maps them.  Other data can
		 * neither grow nor shrink there: it goes past the segments
		 * (lld keeps the kernel linker script's empty .BTF in
		 * .tmp_vmlinux1, which kbuild only extracts .BTF from).
		 */
		pl->sec_in_place = in_file && size == sh->sh_size;
	else
		pl->sec_in_place = in_file && size <= sh->sh_size &&
				   sh->sh_offset % OUTPUT_SECTION_ALIGN == 0;
	return 0;
}

/*
 * out_elf__data_align() returns the file offset alignment of the section's
 * data, when it moves.
 */
static uint64_t out_elf__data_align(const GElf_Shdr *sh)
{
	uint64_t a = sh->sh_addralign;

	/* An allocated section keeps its alignment, so the file honours it. */
	if (!(sh->sh_flags & SHF_ALLOC) || a <= OUTPUT_DATA_ALIGN ||
	    a > OUTPUT_MAX_ALIGN || (a & (a - 1)))
		return OUTPUT_DATA_ALIGN;
	return a;
}

/*
 * out_elf__table_moves() tells whether the section header table is
 * appended anew.  The old one can stay only if no section is added or
 * moves, and it lies whole and aligned in the file, with entries of the
 * size we write.
 */
static bool out_elf__table_moves(const struct out_elf *ef,
				 const struct out_plan *pl)
{
	return pl->add || !pl->sec_in_place ||
	       ef->ehdr.e_shentsize != pl->shent ||
	       ef->ehdr.e_shoff % (ef->cls == ELFCLASS64 ? 8 : 4) ||
	       ef->ehdr.e_shoff > ef->size ||
	       (uint64_t)ef->shnum * pl->shent > ef->size - ef->ehdr.e_shoff;
}

/*
 * out_elf__keep_referenced() sets pl->keep to the end of every byte that
 * anything still points to: the headers and segments, and each section
 * but those rewritten elsewhere.
 */
static void out_elf__keep_referenced(const struct out_elf *ef,
				     struct out_plan *pl)
{
	size_t i;

	pl->keep = ef->keep_min;
	for (i = 1; i < ef->shnum; i++) {
		const GElf_Shdr *s = &ef->shdrs[i];
		uint64_t end;

		if (s->sh_type == SHT_NULL || s->sh_type == SHT_NOBITS ||
		    (i == pl->idx && !pl->sec_in_place) ||
		    (i == ef->shstrndx && pl->str_moved) ||
		    s->sh_offset > ef->size)
			continue;
		end = s->sh_offset + s->sh_size;
		if (end > ef->size || end < s->sh_offset)
			end = ef->size;
		if (end > pl->keep)
			pl->keep = end;
	}
}

/*
 * out_elf__plan_keep() decides how much of the old file is copied
 * (pl->keep): what is still referenced, and also the rest of the file
 * unless that holds only things rewritten elsewhere (the old header table,
 * section data, .shstrtab).
 */
static void out_elf__plan_keep(const struct out_elf *ef, struct out_plan *pl)
{
	const GElf_Shdr *sh = &ef->shdrs[pl->idx];
	struct range drop[3];
	int ndrop = 0;

	out_elf__keep_referenced(ef, pl);
	if (ef->shnum && ef->ehdr.e_shoff < ef->size) {
		struct range r = { ef->ehdr.e_shoff, ef->ehdr.e_shoff +
				   (uint64_t)ef->shnum * ef->ehdr.e_shentsize };

		if (pl->table_moved)
			drop[ndrop++] = r;
		else if (r.end > pl->keep)
			pl->keep = r.end;
	}
	if (!pl->add && !pl->sec_in_place && sh->sh_type != SHT_NOBITS)
		drop[ndrop++] = (struct range){ sh->sh_offset,
						sh->sh_offset + sh->sh_size };
	if (pl->str_moved && ef->shnum) {
		const GElf_Shdr *s = &ef->shdrs[ef->shstrndx];

		drop[ndrop++] = (struct range){ s->sh_offset,
						s->sh_offset + s->sh_size };
	}
	if (!out_elf__tail_droppable(ef, pl->keep, drop, ndrop))
		pl->keep = ef->size;
}

/*
 * out_elf__set_shdr() sets the header of our section, which now holds
 * @size bytes at pl->sec_off.
 */
static void out_elf__set_shdr(GElf_Shdr *sh, const struct out_plan *pl,
			      size_t size)
{
	if (sh->sh_flags & SHF_ALLOC) {
		/*
		 * The flags, address and alignment stay as the linker made
		 * them; only where the bytes are, and how many, changes.
		 */
		sh->sh_type = SHT_PROGBITS;
		sh->sh_offset = pl->sec_off;
		sh->sh_size = size;
	} else {
		sh->sh_type = SHT_PROGBITS;
		sh->sh_flags &= SHF_GROUP;	/* The group still lists it. */
		sh->sh_addr = 0;
		sh->sh_offset = pl->sec_off;
		sh->sh_size = size;
		sh->sh_link = 0;
		sh->sh_info = 0;
		sh->sh_addralign = OUTPUT_SECTION_ALIGN;
		sh->sh_entsize = 0;
	}
}

/*
 * out_elf__place() places what is written after the kept bytes, in this
 * order: .shstrtab, the section's data, the header table, each only if it
 * moves.  It returns the end of the new file.
 */
static uint64_t out_elf__place(struct out_elf *ef, struct out_plan *pl,
			       size_t size)
{
	GElf_Shdr *sh = &ef->shdrs[pl->idx];
	uint64_t off = pl->keep;

	if (pl->str_moved) {
		pl->str_off = off;
		ef->shdrs[ef->shstrndx].sh_offset = off;
		ef->shdrs[ef->shstrndx].sh_size = ef->strs_size;
		off += ef->strs_size;
	}
	if (pl->sec_in_place) {
		pl->sec_off = sh->sh_offset;
	} else {
		off = ALIGN_UP(off, out_elf__data_align(sh));
		pl->sec_off = off;
		off += size;
	}
	out_elf__set_shdr(sh, pl, size);
	if (pl->table_moved) {
		off = ALIGN_UP(off, ef->cls == ELFCLASS64 ? 8 : 4);
		pl->shoff = off;
		off += (uint64_t)pl->new_shnum * pl->shent;
	} else {
		pl->shoff = ef->ehdr.e_shoff;
	}
	return off;
}

/*
 * out_elf__set_numbering() sets the ELF header's table fields.  Counts too
 * large for the header go to section 0, as the gABI's extended numbering
 * says.
 */
static void out_elf__set_numbering(struct out_elf *ef,
				   const struct out_plan *pl)
{
	ef->ehdr.e_shoff = pl->shoff;
	ef->ehdr.e_shentsize = pl->shent;
	if (pl->new_shnum >= SHN_LORESERVE) {
		ef->ehdr.e_shnum = 0;
		ef->shdrs[0].sh_size = pl->new_shnum;
	} else {
		ef->ehdr.e_shnum = pl->new_shnum;
		ef->shdrs[0].sh_size = 0;
	}
	if (ef->shstrndx >= SHN_LORESERVE) {
		ef->ehdr.e_shstrndx = SHN_XINDEX;
		ef->shdrs[0].sh_link = ef->shstrndx;
	} else {
		ef->ehdr.e_shstrndx = ef->shstrndx;
		ef->shdrs[0].sh_link = 0;
	}
}

/*
 * out_elf__layout() decides what is copied and where the new things go,
 * [kept bytes of the old file][.shstrtab][section data][headers], and
 * updates the headers to match.
 */
static int out_elf__layout(struct out_elf *ef, struct out_plan *pl,
			    const char *name, size_t size)
{
	uint64_t end;

	pl->table_moved = out_elf__table_moves(ef, pl);
	out_elf__plan_keep(ef, pl);
	end = out_elf__place(ef, pl, size);
	if (ef->cls == ELFCLASS32 && end > UINT32_MAX)
		return out_file__fail(ef->path, EFBIG, "too big for ELF32 with %s",
				 name);
	out_elf__set_numbering(ef, pl);
	return 0;
}

/* out_elf__emit() writes the new file according to @pl into @out. */
static int out_elf__emit(struct out_elf *ef, const struct out_plan *pl,
			  struct out_file *out, bool copied, const void *data,
			  size_t size)
{
	unsigned char ehdr[sizeof(Elf64_Ehdr)];
	size_t table_size = pl->new_shnum * pl->shent;
	void *table = malloc(table_size);
	int err;

	if (!table || out_elf__to_file(ef, ELF_T_SHDR, ef->shdrs,
					pl->new_shnum, table) ||
	    out_elf__to_file(ef, ELF_T_EHDR, &ef->ehdr, 1, ehdr)) {
		free(table);
		return out_file__fail(ef->path, ENOMEM, "cannot build ELF headers");
	}
	err = copied ? 0 : out_file__copy(out, ef->fd, pl->keep, NULL);
	if (!err && pl->str_moved)
		err = out_file__write(out, ef->strs, ef->strs_size, pl->str_off);
	if (!err)
		err = out_file__write(out, data, size, pl->sec_off);
	if (!err && pl->sec_in_place && pl->old_sec_size > size)
		/* The old tail is zeroed, so no stale contents remain. */
		err = out_file__zero(out, pl->sec_off + size,
				pl->old_sec_size - size);
	if (!err)
		err = out_file__write(out, table, table_size, pl->shoff);
	if (!err)
		err = out_file__write(out, ehdr, ef->cls == ELFCLASS64 ?
				 sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr), 0);
	free(table);
	return err;
}

int output__write_elf_section(const char *path, const char *name,
			      const void *data, size_t size,
			      const struct test_hooks *hooks)
{
	struct output_section sec = { name, data, size };

	return output__write_elf_sections(path, &sec, 1, NULL, hooks);
}

/*
 * output__write_elf_sections() writes each section in turn, each pass
 * reading the previous pass's temp file.  Only the last temp file is
 * renamed over @path, so that all of the sections land together or none.
 * The first pass takes @pre's copy of the file where it can.
 */
int output__write_elf_sections(const char *path,
			       const struct output_section *secs, int nr,
			       struct out_precopy *pre,
			       const struct test_hooks *hooks)
{
	struct out_elf ef = { .path = path, .fd = -1 };
	struct out_file out[2];
	struct stat st, cur;
	int i, err = 0;

	for (i = 0; i < nr; i++)
		if (!secs[i].name || !*secs[i].name ||
		    (!secs[i].data && secs[i].size))
			err = EINVAL;
	if (!path || nr < 1 || err)
		return out_file__fail(path ? path : "(null)", EINVAL,
				 "bad arguments");
	out_file__init(&out[0], path, hooks);
	out_file__init(&out[1], path, hooks);

	ef.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (ef.fd < 0)
		return out_file__error(path, errno, "cannot open");
	if (fstat(ef.fd, &st))
		err = out_file__error(path, errno, "cannot stat");
	else if (!S_ISREG(st.st_mode))
		err = out_file__fail(path, EINVAL, "not a regular file");
	else
		err = out_file__check_writable(path);
	cur = st;
	for (i = 0; !err && i < nr; i++) {
		struct out_file *o = &out[i & 1];
		struct out_plan pl = { 0 };
		bool copied = false;

		ef.size = cur.st_size;
		err = out_elf__read(&ef);
		if (err)
			break;
		pl.shent = ef.cls == ELFCLASS64 ? sizeof(Elf64_Shdr) :
						  sizeof(Elf32_Shdr);
		err = out_elf__find(&ef, &pl, secs[i].name, secs[i].size);
		if (!err)
			err = out_elf__layout(&ef, &pl, secs[i].name,
					      secs[i].size);
		/* Only now, with nothing left to refuse, create the file. */
		if (!err) {
			/* The pass before last's temp file is not needed now. */
			out_file__end(o);
			out_file__init(o, path, hooks);
			/*
			 * The pre-copy is of @path: only the first pass
			 * reads that, the others the pass before's file.
			 */
			copied = !i && out_precopy__take(pre, &st, pl.keep, o);
			if (!copied)
				err = out_file__open(o, &st);
		}
		if (!err)
			err = out_elf__emit(&ef, &pl, o, copied, secs[i].data,
					    secs[i].size);
		free(ef.shdrs);
		free(ef.phdrs);
		free(ef.strs);
		ef.shdrs = NULL;
		ef.phdrs = NULL;
		ef.strs = NULL;
		if (err || i + 1 == nr)
			break;
		/* The next pass reads what this one wrote. */
		close(ef.fd);
		ef.fd = open(o->tmp, O_RDONLY | O_CLOEXEC);
		if (ef.fd < 0 || fstat(ef.fd, &cur))
			err = out_file__error(path, errno, "cannot read back");
	}
	/* A failed read may leave these allocated. */
	free(ef.shdrs);
	free(ef.phdrs);
	free(ef.strs);
	if (!err)
		err = out_file__commit(&out[(nr - 1) & 1]);
	out_file__end(&out[0]);
	out_file__end(&out[1]);
	if (ef.fd >= 0)
		close(ef.fd);
	return err;
}
