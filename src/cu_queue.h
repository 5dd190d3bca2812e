/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CU work queue.  Work comes in batches of consecutive CUs (cu_batch.h):
 * a worker encodes each CU of its batch into a fragment, merges them in
 * order and deduplicates the batch, so most of the merging runs in
 * parallel.  The calling thread consumes the batches strictly in order.
 * Batch boundaries depend only on CU numbers, so what the consumer builds
 * does not depend on the number of workers.
 */
#ifndef DWARF2BTF_CU_QUEUE_H
#define DWARF2BTF_CU_QUEUE_H

#include <stddef.h>

#include "cu/cu_encoder.h"
#include "lib/cu_batch.h"
#include "stats.h"

/*
 * The consumer is called in batch order and takes ownership of @frag.  A
 * non-zero return stops the run.
 */
typedef int (*cu_consume_fn)(void *arg, size_t idx, struct cu_fragment *frag);

/* What the batch cache (cache/batch_cache.h) did in a run. */
struct cu_queue_counts {
	size_t reused;		/* Batches read back from the cache. */
	size_t stored;		/* Batches encoded and stored. */
	size_t no_key;		/* Batches with a CU the digest cannot read. */
	struct cache_cpu cpu;
	size_t views;		/* Epochs read through a unit view. */
};

struct cu_queue;

/*
 * cu_queue__run() encodes the @nr CUs at @cus with @jobs workers and hands
 * the batches to @consume in order.  The workers may still be keying and
 * storing batches for the cache when it returns (batch_cache__defer()), so
 * whatever it returned, the caller must pass *@q to cu_queue__end(), which
 * waits for them; with @abandon, the work not yet started is dropped.
 * After a success the DIEs at @cus are not read again; after a failure
 * they are read until cu_queue__end().
 */
int cu_queue__run(const struct encode_env *env, Dwarf_Die *cus, size_t nr,
		  int jobs, cu_consume_fn consume, void *arg,
		  struct cu_queue **q);
void cu_queue__end(struct cu_queue *q, bool abandon,
		   struct cu_queue_counts *counts);

/*
 * cu_queue__nr_epochs() returns how many libdw handles (epochs)
 * cu_queue__run() reads @nr CUs through, or 0 when all are read through
 * the caller's handle.
 */
size_t cu_queue__nr_epochs(const struct encode_env *env, size_t nr);

#endif
