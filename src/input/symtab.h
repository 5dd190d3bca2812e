/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ELF symbol index: every defined function and object symbol of the
 * input, built once before any DWARF is read and then shared read-only by
 * all workers.  Nothing in it changes after elf_symtab__new() returns.
 */
#ifndef DWARF2BTF_SYMTAB_H
#define DWARF2BTF_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input/elf_file.h"
#include "lib/str_arena.h"
#include "lib/u32_map.h"

struct elf_sym {
	const char *name;	/* points into the ELF string table */
	uint64_t addr;
	uint64_t size;
	uint32_t shndx;
	uint8_t bind;		/* STB_* */
	uint8_t type;		/* STT_FUNC or STT_OBJECT */
};

/*
 * Function symbols grouped by name up to the first '.', the way compiler
 * clones (foo.isra.0, foo.constprop.1) are matched to their source name.
 * ".cold" and ".part" pieces are not functions of their own and are left out.
 */
struct elf_func_key {
	/* the symbol's own name when it has no '.', else a copy */
	const char *key;
	uint32_t first;		/* index into elf_symtab.key_syms */
	uint32_t nr;
	bool ambiguous;		/* two different non-zero addresses */
};

/* A kernel function registered in a kfunc BTF_ID set (.BTF_ids). */
struct elf_kfunc {
	char *name;
	uint32_t flags;		/* KF_* flags of the set entry */
};

#define KF_FASTCALL	(1u << 12)
#define KF_ARENA_RET	(1u << 13)	/* returns a pointer into a BPF arena */
#define KF_ARENA_ARG1	(1u << 14)	/* its first argument points into one */
#define KF_ARENA_ARG2	(1u << 15)

/* The data sections a variable can live in (PROGBITS or NOBITS). */
struct elf_data_section {
	const char *name;
	uint64_t addr;
	uint64_t size;
	uint32_t shndx;
};

struct elf_symtab {
	struct elf_sym *funcs;	/* sorted by name, then address */
	size_t nr_funcs;
	uint32_t *key_syms;	/* indices into funcs, in key order */
	struct elf_func_key *keys;	/* sorted by key */
	size_t nr_keys;
	struct str_arena key_strs;	/* keys shorter than their name */
	struct u32_map key_map;	/* hash of a key -> its index in keys */
	struct elf_sym *vars;	/* sorted by name, then address */
	size_t nr_vars;
	struct elf_kfunc *kfuncs;	/* sorted by name */
	size_t nr_kfuncs;
	struct elf_data_section *secs;	/* by section index */
	size_t nr_secs;
	uint32_t percpu_shndx;	/* 0 when there is no .data..percpu */
	uint64_t percpu_addr;
	uint64_t percpu_size;
};

/*
 * Symbols from @ef; the bytes of allocated sections (.BTF_ids) from
 * @contents, the stripped file itself when @ef is its debug file (NULL:
 * @ef).
 */
int elf_symtab__new(const struct elf_file *ef, const struct elf_file *contents,
		    struct elf_symtab **out);
void elf_symtab__free(struct elf_symtab *st);

/*
 * All entries named @name: returns the first and sets *@nr (0 when none).
 */
const struct elf_sym *elf_symtab__find(const struct elf_sym *syms, size_t nr,
				       const char *name, size_t *nr_found);

const struct elf_func_key *elf_symtab__find_key(const struct elf_symtab *st,
					       const char *key);

/* The @i-th symbol of key @k, in key order. */
static inline const struct elf_sym *
elf_symtab__key_sym(const struct elf_symtab *st, const struct elf_func_key *k,
		    uint32_t i)
{
	return &st->funcs[st->key_syms[k->first + i]];
}
/*
 * The keys that start with @prefix, in key order: returns the first and
 * sets *@nr (0 and NULL when none).
 */
const struct elf_func_key *elf_symtab__find_key_prefix(const struct elf_symtab *st,
						      const char *prefix,
						      size_t *nr);
/* The name of data section SHNDX (one of st->secs), or NULL. */
const char *elf_symtab__section_name(const struct elf_symtab *st,
				     uint32_t shndx);

/*
 * The section holding @addr: as pahole, the first PROGBITS or NOBITS
 * section by index whose address range contains it; NULL when none.
 */
const struct elf_data_section *elf_symtab__section_of(const struct elf_symtab *st,
						     uint64_t addr);

const struct elf_kfunc *elf_symtab__find_kfunc(const struct elf_symtab *st,
					      const char *name);

#endif
