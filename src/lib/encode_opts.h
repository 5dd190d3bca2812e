/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What to encode: pahole's features and our switches, set by the command
 * line (btf_features.c), read by every stage.
 */
#ifndef DWARF2BTF_ENCODE_OPTS_H
#define DWARF2BTF_ENCODE_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/test_hooks.h"

struct key_set;

struct encode_opts {
	/* --max-memory: the RSS limit in bytes, or 0 for none. */
	size_t max_memory;
	/* --plain-dedup: one dedup at the end. */
	bool plain_dedup;
	/* --stats=keys: count the types' keys (cu_keys.c) */
	bool type_keys;
	/* No batch dedup: the split dedup does it all. */
	bool defer_dedup;
	bool base_typedefs;	/* --dedup-base-typedefs (btf_dedup.h) */
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
	 * --rust-enums=pahole (and run as pahole): a Rust enum with data is
	 * a struct without members, as pahole encodes it; else its variants
	 * are kept (cu/rust_enum.h).
	 */
	bool rust_enums_pahole;
	/*
	 * The CUs of these DW_LANG_* are the only ones encoded (--lang), or
	 * are not encoded (langs_exclude: --lang_exclude,
	 * PAHOLE_LANG_EXCLUDE).
	 */
#define MAX_LANGS 16
	int langs[MAX_LANGS];
	int nr_langs;
	bool langs_exclude;
	/*
	 * For `dwarf2btf explain`: the hashes of the names whose variable
	 * DIEs get a var_note (fragment.h), or NULL for none.
	 */
	const struct key_set *explain_names;
	/* Each variable placed gets a var_note (cache/batch_cache.h). */
	bool place_notes;
	/* Declarations that batches leave to the final dedup (fwd_names.h). */
	const struct key_set *keep_fwds;
	const struct test_hooks *hooks;	/* NULL: none */
};

/*
 * Are the CUs of DW_LANG_* @lang encoded?  Listed by --lang, or not by
 * --lang_exclude.
 */
static inline bool encode_opts__lang_wanted(const struct encode_opts *o,
					    int lang)
{
	bool listed = false;
	int i;

	if (!o->nr_langs)
		return true;
	for (i = 0; i < o->nr_langs; i++)
		listed |= lang == o->langs[i];
	return listed != o->langs_exclude;
}

#endif /* DWARF2BTF_ENCODE_OPTS_H */
