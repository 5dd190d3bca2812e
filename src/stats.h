/* SPDX-License-Identifier: GPL-2.0-only */
/* Per-phase wall-clock times and counts, printed by --stats. */
#ifndef DWARF2BTF_STATS_H
#define DWARF2BTF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "decide/funcs.h"

enum stats_phase {
	PHASE_ELF,		/* open ELF, build the symbol index */
	PHASE_ENCODE,		/* per-CU encoding and in-order merge */
	PHASE_FUNCS,		/* function decisions */
	PHASE_DEDUP,
	PHASE_BASE,		/* types matched against the base (modules) */
	PHASE_WRITE,
	PHASE_STORES,		/* waiting for the cache's deferred stores */
	PHASE__MAX,
};

/* CPU seconds the batch cache cost, summed over the workers. */
struct cache_cpu {
	double digest;	/* the CUs' digests (the keys) */
	double load;	/* reading entries back */
	double store;
};

struct stats {
	double start;
	double mark;
	double phase[PHASE__MAX];
	double merge_serial;	/* of encode+merge: merging in CU order */
	size_t nr_cus;
	size_t nr_epochs;	/* libdw handles the CUs were read through */
	size_t nr_types_in;	/* before dedup */
	size_t nr_types;	/* in the output */
	size_t nr_funcs;
	size_t nr_func_cands;
	size_t nr_vars;
	size_t out_bytes;
	/* functions (ELF keys) by enum func_verdict (decide/funcs.h) */
	size_t func_verdicts[FUNC_VERDICT__MAX];
	size_t nr_reruns;
	bool base_cached;	/* the base's index came from the cache */
	/* batches; of them read from the cache, stored, without a key */
	size_t nr_batches, batches_reused, batches_stored, batches_no_key;
	struct cache_cpu cache_cpu;
	bool rerun_outgrown;	/* the last run one dedup: batches outgrew */
	bool batch_cache;	/* the batch cache was on */
	int jobs;
};

double stats__now(void);
/* CPU seconds the calling thread has used (0 if unknown). */
double stats__thread_cpu(void);
void stats__start(struct stats *st);
/* Charge the time since the last mark to @phase. */
void stats__phase_end(struct stats *st, enum stats_phase phase);
void stats__print(const struct stats *st, FILE *f);
/* Add a file's phase times and counts to a batch's */
void stats__add(struct stats *sum, const struct stats *st);

#endif
