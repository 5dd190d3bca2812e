// SPDX-License-Identifier: GPL-2.0-only
/* A relocatable file's relocations of DWARF, applied from the file. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "input/rel_apply.h"

/* Relocations read from the file at a time: 2730 of them, 64 KiB. */
#define CHUNK_RELAS	((64u << 10) / sizeof(Elf64_Rela))

/*
 * What applying one section needs, from the file's copy (elf_file.h):
 * libdwfl's ELF reads the section headers there in place.
 */
struct rel_target {
	const Elf64_Shdr *sh;
	size_t shnum;
	unsigned char *data;	/* the target section's bytes */
	uint64_t size;
	const Elf64_Sym *syms;
	uint64_t nr_syms;
	/* Where relocations left to libdwfl go: the section's own place. */
	Elf64_Rela *left;
	uint64_t nr_left;
	/* Did libdwfl lay the loaded sections out (rel_apply__section())? */
	bool laid_out;
};

/* The bytes a simple relocation of @type stores, or 0 for another. */
static unsigned int rel_width(uint32_t type)
{
	switch (type) {
	case R_X86_64_64:
		return 8;
	case R_X86_64_32:
	case R_X86_64_32S:
		return 4;
	case R_X86_64_16:
		return 2;
	case R_X86_64_8:
		return 1;
	default:
		return 0;
	}
}

/*
 * Applies relocation @r if its value is S + A with S a symbol's value as
 * it stands (one of a section that is not loaded: the DWARF's own, whose
 * offsets no layout moves), or S the address libdwfl gave the symbol's
 * loaded section plus the symbol's value, which is how libdwfl relocates
 * against a layout it made itself; else keeps it for libdwfl, in order.
 */
static void rel_target__apply(struct rel_target *t, const Elf64_Rela *r)
{
	unsigned int width = rel_width(ELF64_R_TYPE(r->r_info));
	uint64_t sym = ELF64_R_SYM(r->r_info), v, addr = 0;
	const Elf64_Sym *s = sym && sym < t->nr_syms ? &t->syms[sym] : NULL;

	/* SHN_UNDEF, SHN_ABS, SHN_COMMON, SHN_XINDEX...: libdwfl's */
	if (!width || !s || !s->st_shndx || s->st_shndx >= SHN_LORESERVE ||
	    s->st_shndx >= t->shnum ||
	    r->r_offset > t->size || t->size - r->r_offset < width)
		goto keep;
	if (t->sh[s->st_shndx].sh_flags & SHF_ALLOC) {
		/* A section at 0 would have libdwfl ask for its address. */
		addr = t->sh[s->st_shndx].sh_addr;
		if (!t->laid_out || !addr)
			goto keep;
	}
	v = addr + s->st_value + r->r_addend;
	/* Little-endian: the low @width bytes, as libdwfl stores them. */
	memcpy(t->data + r->r_offset, &v, width);
	return;
keep:
	t->left[t->nr_left++] = *r;
}

/* Is [@off, @off + @size) inside the copy of @ef? */
static bool in_copy(const struct elf_file *ef, uint64_t off, uint64_t size)
{
	return off <= ef->size && size <= ef->size - off;
}

/*
 * Fills @t for RELA section @rel: false if the section is not one this
 * file applies (libdwfl's then).  elf_file.c picked it, and its target,
 * apart from the headers and every other section, so that no relocation
 * written here changes a header or another section; what libdwfl may
 * have written since (the loaded sections' addresses) is checked again.
 */
static bool rel_target__init(struct rel_target *t, const struct elf_file *ef,
			     const Elf64_Shdr *rel)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)ef->buf;
	const Elf64_Shdr *tsh, *ssh;

	t->sh = (const Elf64_Shdr *)(ef->buf + eh->e_shoff);
	t->shnum = eh->e_shnum;
	if (rel->sh_info >= t->shnum || rel->sh_link >= t->shnum ||
	    rel->sh_offset % _Alignof(Elf64_Rela) ||
	    !in_copy(ef, rel->sh_offset, rel->sh_size))
		return false;
	tsh = &t->sh[rel->sh_info];
	ssh = &t->sh[rel->sh_link];
	if (tsh->sh_type == SHT_NOBITS ||
	    (tsh->sh_flags & (SHF_ALLOC | SHF_COMPRESSED)) ||
	    !in_copy(ef, tsh->sh_offset, tsh->sh_size) ||
	    ssh->sh_type != SHT_SYMTAB ||
	    ssh->sh_entsize != sizeof(Elf64_Sym) ||
	    ssh->sh_offset % _Alignof(Elf64_Sym) ||
	    !in_copy(ef, ssh->sh_offset, ssh->sh_size))
		return false;
	t->data = (unsigned char *)ef->buf + tsh->sh_offset;
	t->size = tsh->sh_size;
	t->syms = (const Elf64_Sym *)(ef->buf + ssh->sh_offset);
	t->nr_syms = ssh->sh_size / sizeof(Elf64_Sym);
	t->left = (Elf64_Rela *)(ef->buf + rel->sh_offset);
	return true;
}

int rel_apply__section(const struct elf_file *ef, size_t shndx,
		       bool laid_out)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)ef->buf;
	struct rel_target t = { 0 };
	Elf64_Rela *buf;
	Elf64_Shdr *rel;
	uint64_t done, nr, i;
	int err = 0;

	if (shndx >= eh->e_shnum)
		return 1;
	rel = (Elf64_Shdr *)(ef->buf + eh->e_shoff) + shndx;
	/*
	 * libelf reads the section headers of a file in memory in place
	 * when their byte order and alignment allow (elf_memory(), for us
	 * and for libdwfl alike): only then does libdwfl see the size set
	 * below.  Otherwise it would read the section's place whole.
	 */
	if (elf64_getshdr(elf_getscn(ef->elf, shndx)) != rel)
		return 1;
	if (rel->sh_type != SHT_RELA || (rel->sh_flags & SHF_COMPRESSED) ||
	    rel->sh_entsize != sizeof(Elf64_Rela) ||
	    rel->sh_size % sizeof(Elf64_Rela) || !rel_target__init(&t, ef, rel))
		return 1;
	t.laid_out = laid_out;
	buf = malloc(CHUNK_RELAS * sizeof(*buf));
	if (!buf)
		return -ENOMEM;
	/* What is kept is never more than what was read: it fits. */
	nr = rel->sh_size / sizeof(Elf64_Rela);
	for (done = 0; !err && done < nr; done += CHUNK_RELAS) {
		size_t n = nr - done < CHUNK_RELAS ? nr - done : CHUNK_RELAS;

		err = elf_file__read_at(ef, buf, n * sizeof(*buf),
					rel->sh_offset + done * sizeof(*buf));
		for (i = 0; !err && i < n; i++)
			rel_target__apply(&t, &buf[i]);
	}
	free(buf);
	if (err)
		return err;
	/*
	 * libdwfl applies what is left, as it would have among the rest,
	 * and marks the section empty; the headers are those its ELF reads.
	 */
	rel->sh_size = t.nr_left * sizeof(Elf64_Rela);
	return 0;
}
