/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Merging fragments in CU order.  A merge state is itself shaped like a
 * fragment (one BTF plus candidates whose type ids point into it), so the
 * same code merges CUs into a batch inside a worker and batches into the
 * final BTF in the consumer.
 */
#ifndef DWARF2BTF_MERGE_H
#define DWARF2BTF_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cu/fragment.h"
#include "merge/btf_concat.h"

struct btf_dedup;

struct merge_state {
	struct cu_fragment acc;		/* what has been merged so far */
	size_t cap_funcs, cap_params, cap_vars, cap_tags, cap_var_notes;
	/* A dedup runs when the type count reaches dedup_at. */
	uint32_t dedup_at;
	/*
	 * Between two dedups, at least this many types are added; 0: a
	 * dedup after every fragment that adds types (a test hook's).
	 */
	uint32_t min_growth;
	size_t nr_dedups;
	/* The dedups' scratch space, made when the first dedup runs. */
	struct btf_dedup *dedup;
	/*
	 * These declarations our dedups must leave to the final one
	 * (fwd_names.h).  The caller owns the set.
	 */
	const struct key_set *keep_fwds;
	/*
	 * Fragments with a BTF of their own are appended here, not to
	 * acc.btf, which is NULL while @cat holds the merged types.
	 */
	struct btf_concat cat;
	bool cat_live;
	unsigned int ptr_size;
};

/*
 * @ptr_size: the ELF's pointer size; libbpf would otherwise guess it from
 * a "long" in the BTF and, without one yet (a CU's variables may come
 * first), take the host's for good: 8 bytes for an i386 kernel's per-CPU
 * pointers.
 */
int merge_state__init(struct merge_state *m, uint32_t min_growth,
		      unsigned int ptr_size);
/*
 * Append @frag (consumed, freed) and shift its candidates' type ids; a
 * fragment without a BTF was encoded into ours and needs no shifting.
 */
int merge_state__add(struct merge_state *m, struct cu_fragment *frag);
/* Deduplicates now, keeping the candidates' type ids valid. */
int merge_state__dedup(struct merge_state *m);
/*
 * Makes acc.btf hold everything merged so far and every type added
 * through merge_state__open().
 */

int merge_state__flush(struct merge_state *m);
/*
 * For adding types after the merge (the decisions): *@out to read what
 * was merged (btf_concat__type_by_id()) and to add to, until
 * merge_state__flush().  With @flush, acc.btf holds what was merged as
 * well, for readers that need a libbpf BTF (btf_dump); without, the
 * merged types are not copied into one.
 */
int merge_state__open(struct merge_state *m, bool flush,
		      struct btf_concat **out);
/*
 * Frees the candidates (functions, parameters, variables, their tags and
 * names) once the decisions have added what they chose: the final dedup
 * then runs without them.
 */
void merge_state__drop_cands(struct merge_state *m);
/*
 * The final dedup, by @d, of everything merged and added since
 * merge_state__open(): the types are read where they are, in the
 * concatenation and the BTF it borrows, rather than flushed into a BTF
 * of their own first.  They and @d are freed before libbpf copies the
 * output, *@out: @m holds no types afterwards, and @d is gone, whether or
 * not this succeeds.
 */
int merge_state__dedup_final(struct merge_state *m, struct btf_dedup *d,
			     struct btf **out);
/* Hand the merged result over as one fragment; @m is empty afterwards. */
int merge_state__take(struct merge_state *m, struct cu_fragment *out);
void merge_state__free(struct merge_state *m);

#endif
