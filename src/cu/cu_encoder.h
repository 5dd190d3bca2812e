/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-compilation-unit encoding: one CU's DWARF becomes BTF types, appended
 * to its batch's BTF, plus the functions and variables it offers (a
 * fragment).  What a CU adds depends only on the CU and the CUs before it in
 * its batch, never on which worker ran it or when: that is what makes the
 * output reproducible.
 */
#ifndef DWARF2BTF_CU_ENCODER_H
#define DWARF2BTF_CU_ENCODER_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "lib/str_arena.h"

#include "input/elf_file.h"
#include "input/symtab.h"
#include "lib/test_hooks.h"

struct btf;
struct name_cache;

struct encode_opts {
	size_t max_memory;	/* --max-memory: RSS limit in bytes, 0: none */
	bool plain_dedup;	/* --plain-dedup: one libbpf dedup at the end */
	bool defer_dedup;	/* no batch dedup: split_dedup does it all */
	bool gen_floats;	/* FLOAT kind (else floats become INT) */
	bool skip_enum64;	/* 64-bit enums as 32-bit ENUM */
	bool encode_vars;	/* per-CPU variables */
	bool global_vars;	/* every variable with an address (global_var) */
	bool distilled_base;	/* modules in place: also .BTF.base */
	bool layout;		/* a layout section (not for split BTF) */
	bool attributes;	/* arena kfuncs' address_space(1) pointers */
	bool skip_type_tags;	/* no TYPE_TAG from btf_type_tag annotations */
	bool skip_decl_tags;	/* no DECL_TAG from btf_decl_tag annotations */
	bool consistent_func;	/* leave out functions with differing protos */
	bool kfunc_tags;	/* bpf_kfunc / bpf_fastcall decl tags */
	bool true_signature;	/* functions as the optimizer left them */
	/*
	 * CUs of these DW_LANG_* are the only ones encoded (--lang), or are
	 * not encoded (langs_exclude: --lang_exclude, PAHOLE_LANG_EXCLUDE)
	 */
#define MAX_LANGS 16
	int langs[MAX_LANGS];
	int nr_langs;
	bool langs_exclude;
	const struct test_hooks *hooks;	/* NULL: none */
};

/* What every worker shares, read-only. */
#define ENCODE_CU_SIDE_MAX	4

struct encode_env {
	const struct elf_file *ef;
	const struct elf_symtab *syms;
	const struct encode_opts *opts;
	/*
	 * .debug_info as mapped from the file, or NULL when libelf had to
	 * copy it (compressed): lets workers drop the pages of finished CUs.
	 */
	const unsigned char *debug_info;
	size_t debug_info_size;
	/*
	 * Mapped sections of which each CU reads only its own part (location
	 * and range lists): given back after each batch.
	 */
	struct {
		const void *p;
		size_t size;
	} cu_side[ENCODE_CU_SIDE_MAX];
	int nr_cu_side;
	/*
	 * A relocatable file: the address libdwfl gave each section (by
	 * section index) when it applied the relocations, which is what
	 * DWARF addresses are relative to; NULL otherwise.
	 */
	const uint64_t *rel_addr;
	size_t nr_rel_addr;
	/*
	 * libdw may be opened again on ef->elf (cu_queue.c's epochs): the
	 * DWARF is read from the mapping, no section of it compressed.
	 */
	bool dwarf_reopen;
	/*
	 * The bytes of .debug_info as libdw reads them (its copy when it had
	 * to decompress or relocate): no CU is read past them, whatever its
	 * header says.  NULL: unknown, libdw reads everything.
	 */
	const unsigned char *info_start, *info_end;
};

/*
 * A function this CU offers: a DW_TAG_subprogram whose name is the key of
 * some ELF function symbol (see elf_func_key).  Whether it becomes a FUNC
 * is decided in funcs.c once every CU has been seen.
 */
struct func_cand {
	const char *key;	/* the ELF key: owned by the symbol index */
	uint64_t addr;		/* DW_AT_low_pc, 0 when the DIE had none */
	uint32_t ret_type;	/* type ids are the fragment's */
	uint32_t first_param;	/* into cu_fragment.params */
	uint32_t nr_params;	/* varargs is a last ("", 0) parameter */
	uint32_t flags;		/* FUNC_CAND_* */
	uint32_t first_tag;	/* into cu_fragment.tags */
	uint32_t nr_tags;
};

/* A btf_decl_tag annotation of a function, parameter or variable. */
struct decl_tag {
	const char *value;	/* lives in the mapped .debug_str */
	int component;		/* -1: the function or variable itself */
};

/*
 * Prototypes are kept out of the fragment's BTF: only the chosen
 * functions' prototypes are added, after the decisions.
 */
struct func_param {
	const char *name;	/* in .debug_str, or the fragment's strs */
	uint32_t type_id;
};

#define FUNC_CAND_OPTIMIZED	(1u << 0)	/* a parameter optimized away */
#define FUNC_CAND_BAD_REG	(1u << 1)	/* parameter not where the ABI puts it */
#define FUNC_CAND_UNCERTAIN	(1u << 2)	/* packed struct on the stack */
#define FUNC_CAND_REORDERED	(1u << 3)	/* parameters differ from the origin's */
#define FUNC_CAND_NOCALL	(1u << 4)	/* clang: DW_CC_nocall, signature changed */
#define FUNC_CAND_INCONSISTENT	(1u << 5)	/* set while deciding */

/* A variable this CU defines at a static address. */
struct var_cand {
	const char *name;
	uint32_t shndx;		/* its section */
	uint32_t offset;	/* in that section */
	uint32_t size;		/* of its type */
	uint32_t type_id;	/* in the fragment */
	uint32_t first_tag;	/* into cu_fragment.tags */
	uint32_t nr_tags;
	bool external;
};

/*
 * Candidates and their type ids, with the BTF they point into (or NULL when
 * they point into the batch's BTF the CU was encoded into).  A merged batch
 * is a fragment too.
 */
struct cu_fragment {
	size_t nr_types_in;	/* types the CUs had before any dedup */
	struct btf *btf;	/* NULL: the types are already in the target */
	struct func_cand *funcs;
	size_t nr_funcs;
	struct func_param *params;
	size_t nr_params;
	struct var_cand *vars;
	size_t nr_vars;
	struct decl_tag *tags;
	size_t nr_tags;
	struct str_arena strs;	/* names that were inline in .debug_info */
};

/*
 * Encode one CU, appending its types to @btf (the worker's batch; nothing
 * else refers to it meanwhile).  @names caches @btf's string offsets
 * (name_cache.h) from one CU to the next.  @out gets the candidates, with type ids of
 * @btf, and out->btf stays NULL.  On failure the one-line message (without
 * "dwarf2btf: ") is in @errbuf, and @btf must be thrown away.
 */
int cu_encoder__encode(const struct encode_env *env, Dwarf_Die *cudie,
		       struct btf *btf, struct name_cache *names,
		       struct cu_fragment *out, char *errbuf, size_t errlen);
void cu_fragment__free(struct cu_fragment *frag);

#endif
