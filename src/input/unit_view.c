// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit views (unit_view.h).  A view's headers are the input's ELF header
 * with its program headers left out, and a section header for each
 * DWARF section of the input plus one for their names; each offset in
 * them counts from the view's slot, which lies before the mapping.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "input/unit_view.h"

/* A slot's bytes: ELF header, section headers, names, 8-aligned. */
static size_t unit_views__slot_size(const struct unit_views *v)
{
	bool is64 = v->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	size_t ehdr = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t shdr = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);

	return (ehdr + (v->nr_secs + 2) * shdr + v->names_len + 7) & ~7ul;
}

/* Adds @name to the names; its offset there, or 0 when full. */
static size_t unit_views__name(struct unit_views *v, const char *name)
{
	size_t len = strlen(name) + 1, at = v->names_len;

	if (len > sizeof(v->names) - at)
		return 0;
	memcpy(v->names + at, name, len);
	v->names_len += len;
	return at;
}

int unit_views__init(struct unit_views *v, const struct elf_file *ef)
{
	const unsigned char host = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ?
				   ELFDATA2MSB : ELFDATA2LSB;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	bool info = false;

	memset(v, 0, sizeof(*v));
	if (!ef->gap || !ef->map || !gelf_getehdr(ef->elf, &v->ehdr) ||
	    v->ehdr.e_ident[EI_DATA] != host ||
	    (v->ehdr.e_ident[EI_CLASS] != ELFCLASS32 &&
	     v->ehdr.e_ident[EI_CLASS] != ELFCLASS64))
		return -EOPNOTSUPP;
	v->image = ef->map;
	v->image_size = ef->map_size;
	v->names_len = 1;	/* names[0] is the empty name */
	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		const char *name;
		size_t at;

		if (!gelf_getshdr(scn, &sh) ||
		    !(name = elf_strptr(ef->elf, ef->shstrndx, sh.sh_name)))
			return -EOPNOTSUPP;
		if (strncmp(name, ".debug", 6))
			continue;
		/*
		 * A compressed section's bytes are not what libdw reads, and
		 * a section past the file's end cannot be in the view.
		 */
		if ((sh.sh_flags & SHF_COMPRESSED) || sh.sh_type == SHT_NOBITS ||
		    sh.sh_offset > v->image_size ||
		    sh.sh_size > v->image_size - sh.sh_offset ||
		    v->nr_secs == UNIT_VIEW_SECS ||
		    !(at = unit_views__name(v, name)))
			return -EOPNOTSUPP;
		if (!strcmp(name, ".debug_info")) {
			if (info)
				return -EOPNOTSUPP;
			info = true;
			v->info = v->nr_secs;
		}
		sh.sh_name = at;
		v->secs[v->nr_secs++].sh = sh;
	}
	v->shstrtab = unit_views__name(v, ".shstrtab");
	if (!info || !v->shstrtab)
		return -EOPNOTSUPP;
	v->slots = ef->gap;
	v->slot_size = unit_views__slot_size(v);
	v->nr_slots = ELF_VIEW_GAP / v->slot_size;
	return 0;
}

/*
 * Where a field of an ELF header or section header is in each class's
 * form, and how wide: both forms are written from GElf's, field by field,
 * in the host's byte order (the input's, unit_views__init()).
 */
struct field {
	uint8_t off32, size32, off64, size64;
};

#define FIELD(T, f)	{ offsetof(Elf32_##T, f), sizeof(((Elf32_##T *)0)->f), \
			  offsetof(Elf64_##T, f), sizeof(((Elf64_##T *)0)->f) }

enum { F_TYPE, F_MACHINE, F_VERSION, F_FLAGS, F_EHSIZE, F_SHOFF,
       F_SHENTSIZE, F_SHNUM, F_SHSTRNDX, NR_EHDR_FIELDS };

static const struct field ehdr_fields[NR_EHDR_FIELDS] = {
	[F_TYPE] = FIELD(Ehdr, e_type), [F_MACHINE] = FIELD(Ehdr, e_machine),
	[F_VERSION] = FIELD(Ehdr, e_version), [F_FLAGS] = FIELD(Ehdr, e_flags),
	[F_EHSIZE] = FIELD(Ehdr, e_ehsize), [F_SHOFF] = FIELD(Ehdr, e_shoff),
	[F_SHENTSIZE] = FIELD(Ehdr, e_shentsize),
	[F_SHNUM] = FIELD(Ehdr, e_shnum), [F_SHSTRNDX] = FIELD(Ehdr, e_shstrndx),
};

enum { S_NAME, S_TYPE, S_FLAGS, S_OFFSET, S_SIZE, S_ALIGN, S_ENTSIZE,
       NR_SHDR_FIELDS };

static const struct field shdr_fields[NR_SHDR_FIELDS] = {
	[S_NAME] = FIELD(Shdr, sh_name), [S_TYPE] = FIELD(Shdr, sh_type),
	[S_FLAGS] = FIELD(Shdr, sh_flags), [S_OFFSET] = FIELD(Shdr, sh_offset),
	[S_SIZE] = FIELD(Shdr, sh_size),
	[S_ALIGN] = FIELD(Shdr, sh_addralign),
	[S_ENTSIZE] = FIELD(Shdr, sh_entsize),
};

/* Writes @nr fields' @vals at @at, in the class's (@is64) form. */
static void fields__put(char *at, const struct field *f, const uint64_t *vals,
			size_t nr, bool is64)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		size_t size = is64 ? f[i].size64 : f[i].size32;
		char *p = at + (is64 ? f[i].off64 : f[i].off32);
		uint16_t v16 = vals[i];
		uint32_t v32 = vals[i];
		uint64_t v64 = vals[i];

		if (size == 2)
			memcpy(p, &v16, 2);
		else if (size == 4)
			memcpy(p, &v32, 4);
		else
			memcpy(p, &v64, 8);
	}
}

Elf *unit_views__open(const struct unit_views *v, size_t slot, uint64_t from,
		      uint64_t to)
{
	bool is64 = v->ehdr.e_ident[EI_CLASS] == ELFCLASS64;
	size_t ehdr = is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr);
	size_t shdr = is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	size_t n = v->nr_secs + 2, names_at = ehdr + n * shdr, i;
	uint64_t shift, e[NR_EHDR_FIELDS];
	char *base;

	if (slot >= v->nr_slots || from > to ||
	    to > unit_views__info_size(v))
		return NULL;
	base = v->slots + slot * v->slot_size;
	/* The file's offsets, seen from the slot, which lies before it. */
	shift = (uint64_t)(v->image - base);
	/* A 32-bit file's offsets, seen from the slot, must fit. */
	if (!is64 && shift + v->image_size > UINT32_MAX)
		return NULL;
	memset(base, 0, v->slot_size);
	memcpy(base, v->ehdr.e_ident, EI_NIDENT);
	e[F_TYPE] = v->ehdr.e_type;
	e[F_MACHINE] = v->ehdr.e_machine;
	e[F_VERSION] = v->ehdr.e_version;
	e[F_FLAGS] = v->ehdr.e_flags;
	e[F_EHSIZE] = ehdr;
	e[F_SHOFF] = ehdr;
	e[F_SHENTSIZE] = shdr;
	e[F_SHNUM] = n;
	e[F_SHSTRNDX] = n - 1;
	fields__put(base, ehdr_fields, e, NR_EHDR_FIELDS, is64);
	/* Section 0 is null; the last one holds the names. */
	for (i = 1; i < n; i++) {
		const GElf_Shdr *sh = i < n - 1 ? &v->secs[i - 1].sh : NULL;
		uint64_t f[NR_SHDR_FIELDS] = {
			[S_NAME] = sh ? sh->sh_name : v->shstrtab,
			[S_TYPE] = sh ? sh->sh_type : SHT_STRTAB,
			[S_FLAGS] = sh ? sh->sh_flags : 0,
			[S_OFFSET] = sh ? sh->sh_offset + shift : names_at,
			[S_SIZE] = sh ? sh->sh_size : v->names_len,
			[S_ALIGN] = sh ? sh->sh_addralign : 1,
			[S_ENTSIZE] = sh ? sh->sh_entsize : 0,
		};

		if (i - 1 == v->info) {
			f[S_OFFSET] += from;
			f[S_SIZE] = to - from;
		}
		fields__put(base + ehdr + i * shdr, shdr_fields, f,
			    NR_SHDR_FIELDS, is64);
	}
	memcpy(base + names_at, v->names, v->names_len);
	return elf_memory(base, (size_t)(v->image + v->image_size - base));
}
