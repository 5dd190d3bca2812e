/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What one CU gives the rest of the pipeline: its types (in a BTF), the
 * functions and variables it offers, with their type ids.  Merging and the
 * decisions read fragments; only the per-CU code makes them.
 */
#ifndef DWARF2BTF_FRAGMENT_H
#define DWARF2BTF_FRAGMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/str_arena.h"
#include "lib/key_set.h"

struct btf;

/*
 * Why a candidate has the flags it has, for `--verbose` and `dwarf2btf
 * explain`: the first parameter (0-based) behind each, FUNC_WHY_NONE for
 * none.
 */
#define FUNC_WHY_NONE	0xff
enum func_opt_how {
	FUNC_OPT_NO_LOC,	/* no location at all */
	FUNC_OPT_CONST,		/* only a constant value */
	FUNC_OPT_NO_REG,	/* a location naming no register */
	FUNC_OPT_NOT_PASSED,	/* its register holds the next one */
};

/*
 * The batch cache stores this struct as bytes, so its padding must be
 * zeroed by whoever fills it.
 */
struct func_why {
	uint8_t optimized, bad_reg, uncertain, reordered;
	uint8_t optimized_how;	/* enum func_opt_how */
	uint8_t reordered_from;	/* the abstract origin's position of it */
	uint8_t nr_params;	/* the DIE's (those above are its positions) */
	int16_t reg, want;	/* bad_reg: DWARF register, and the ABI's */
};

/*
 * A function this CU offers: a DW_TAG_subprogram whose name is the key of
 * some ELF function symbol (see elf_func_key).  Whether it becomes a FUNC
 * is decided in funcs.c once every CU has been seen.
 */
struct func_cand {
	const char *key;	/* the ELF key: owned by the symbol index */
	uint64_t addr;		/* DW_AT_low_pc, 0 when the DIE had none */
	uint64_t die_off;	/* its DW_TAG_subprogram */
	/* its CU's DW_AT_name (cu_ctx__keep_str()), or NULL */
	const char *cu_name;
	struct func_why why;
	uint32_t ret_type;	/* a type id of the fragment's BTF */
	uint32_t first_param;	/* into cu_fragment.params */
	uint32_t nr_params;	/* varargs is a last ("", 0) parameter */
	uint32_t flags;		/* FUNC_CAND_* */
	uint32_t first_tag;	/* into cu_fragment.tags */
	uint32_t nr_tags;
};

/* A btf_decl_tag annotation of a function, parameter or variable. */
struct decl_tag {
	const char *value;	/* in .debug_str, or the fragment's strs */
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
 * What became of a variable DIE whose name `dwarf2btf explain` asked
 * about (encode_opts.explain_names): a candidate, or why not.
 */
enum var_fate {
	VAR_CANDIDATE,		/* it becomes a VAR */
	VAR_DECLARATION,	/* DW_AT_declaration: defined elsewhere */
	VAR_ARTIFICIAL,		/* made by the compiler */
	VAR_NO_ADDRESS,		/* no static address (DW_OP_addr) */
	VAR_NAME_MACRO,		/* __UNIQUE_ID... and the like */
	VAR_NAME_INVALID,	/* not a name the kernel accepts */
	VAR_NO_SECTION,		/* the address is in no data section */
	VAR_NOT_PERCPU,		/* not in .data..percpu, no global_var */
	VAR_SECTION_START,	/* offset 0, no symbol of its name there */
	VAR_NO_TYPE,		/* void */
	VAR_BAD_SIZE,		/* its type has no size, or too large */
	VAR_OFF,		/* no variables are encoded */
	VAR_UNPLACED_SECTION,	/* in a section libdwfl did not place */
	VAR_FATE_LAST = VAR_UNPLACED_SECTION,
};

/* A fate decided by where the variable is (cu_vars__place() on). */
static inline bool var_fate__placed(uint32_t fate)
{
	return fate == VAR_CANDIDATE || fate >= VAR_NO_SECTION;
}

struct var_note {
	const char *name;
	const char *cu_name;
	uint64_t die_off;
	uint64_t offset;	/* in its section */
	uint32_t shndx;		/* 0: none */
	uint32_t fate;		/* enum var_fate */
};

/*
 * --stats=keys: the keys of a CU's types (cu_keys.c), for counting how
 * many repeat one met before.  Merged fragments add theirs up.
 */
struct type_key_count {
	struct key_set keys;	/* a key, its low 16 bits its members */
	struct key_set defs;	/* a named struct's name hash << 32 | key */
	size_t nr_types;	/* the CU's DIEs that are BTF types */
	size_t nr_unkeyed;	/* those of them without a key */
	size_t nr_members;	/* of the structs and unions with a key */
	/* keys after their duplicates were last dropped */
	size_t nr_settled;
};

/*
 * Candidates and their type ids, with the BTF they point into (or NULL when
 * they point into the batch's BTF the CU was encoded into).  A merged batch
 * is a fragment too.
 */
struct cu_fragment {
	size_t nr_types_in;	/* types the CUs had before any dedup */
	/* CUs our reader read in place (cu/abbrev_cache.h), not libdw */
	size_t nr_cus_in_place;
	/* some of the CUs have C names (C++, Rust but as pahole encodes it) */
	bool cxx;
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
	struct key_set fwd_names;	/* declarations its dedups resolved */
	struct type_key_count type_keys;	/* --stats=keys only */
	struct var_note *var_notes;	/* for `dwarf2btf explain` only */
	size_t nr_var_notes;
};

void cu_fragment__free(struct cu_fragment *frag);
/* Frees @frag's candidates and the names they hold; its BTF stays. */
void cu_fragment__drop_cands(struct cu_fragment *frag);
/* Adds @from's counts and keys to @to's; 0 or -ENOMEM. */
int type_key_count__add(struct type_key_count *to,
			const struct type_key_count *from);
void type_key_count__free(struct type_key_count *c);

/* What --stats=keys prints, from a run's type_key_count. */
struct type_key_tally {
	size_t types, unkeyed, distinct;
	size_t members, distinct_members;
	size_t names, names_twice;	/* struct names; with two definitions */
};

/* Tallies @c (its sets get sorted). */
void type_key_count__tally(struct type_key_count *c,
			   struct type_key_tally *t);

#endif /* DWARF2BTF_FRAGMENT_H */
