/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The stats hold each phase's wall-clock time and the run's counts, which
 * --stats prints.
 */
#ifndef DWARF2BTF_STATS_H
#define DWARF2BTF_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "cu/fragment.h"
#include "decide/funcs.h"

enum stats_phase {
	PHASE_ELF,		/* Open the ELF, build the symbol index. */
	PHASE_ENCODE,		/* Per-CU encoding and in-order merge. */
	PHASE_FUNCS,		/* The function decisions. */
	PHASE_DEDUP,
	PHASE_BASE,		/* Types matched against the base (modules). */
	PHASE_WRITE,
	PHASE_STORES,		/* Waiting for the cache's deferred stores. */
	PHASE__MAX,
};

/* These are the CPU seconds the batch cache cost, summed over the workers. */
struct cache_cpu {
	double digest;	/* The CUs' digests, which make the keys. */
	double load;	/* Reading entries back. */
	double store;
};

struct stats {
	double start;
	double mark;
	double phase[PHASE__MAX];
	/* This is the part of encode+merge spent merging in CU order. */
	double merge_serial;
	size_t nr_cus;
	size_t nr_epochs;	/* The CUs were read through this many libdw. */
	size_t nr_epoch_views;	/* Of them, opened on a unit view. */
	size_t nr_types_in;	/* The number of types before the dedup. */
	size_t nr_cus_in_place;	/* CUs encoded that our reader read. */
	size_t nr_merge_dedups;	/* Dedups of the merged types before it. */
	size_t nr_types;	/* The number of types in the output. */
	size_t nr_funcs;
	size_t nr_func_cands;
	size_t nr_vars;
	size_t out_bytes;
	/* Functions (ELF keys) are counted by func_verdict (decide/funcs.h). */
	size_t func_verdicts[FUNC_VERDICT__MAX];
	size_t nr_reruns;
	bool base_cached;	/* The base's index came from the cache. */
	/*
	 * These count the batches, and of them those read from the cache,
	 * those stored, and those without a key.
	 */
	size_t nr_batches, batches_reused, batches_stored, batches_no_key;
	size_t batch_cus;	/* The CUs of a batch (lib/cu_batch.h). */
	struct cache_cpu cache_cpu;
	/* Batches outgrew the first run's, so the last run was one dedup. */
	bool rerun_outgrown;
	bool batch_cache;	/* The batch cache was on. */
	bool batch_cache_first;	/* It was, for the build's first run here. */
	int jobs;
	bool type_keys;		/* --stats=keys */
	struct type_key_tally keys;
};

/* stats__now() returns the monotonic clock in seconds. */
double stats__now(void);
/* This returns the CPU seconds the calling thread has used (0 if unknown). */
double stats__thread_cpu(void);
/* stats__start() clears @st and sets its start and its first mark to now. */
void stats__start(struct stats *st);
/* This charges the time since the last mark to @phase, and marks now. */
void stats__phase_end(struct stats *st, enum stats_phase phase);
void stats__print(const struct stats *st, FILE *f);
/* This adds a file's phase times and counts to a file set's sum. */
void stats__add(struct stats *sum, const struct stats *st);

#endif
