/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How many consecutive CUs make a batch: the unit of work of the CU queue
 * (cu_queue.h) and of the batch cache (cache/batch_cache.h), whose keys
 * hold it.  It lives down here so that both can read it and neither has
 * to reach into the other.
 *
 * A CU takes the types an earlier CU of its batch built (cu/type_reuse.h),
 * so a larger batch builds fewer types, and its dedup and the merge have
 * fewer to drop: a large input whose batches are deduplicated (a vmlinux,
 * CU_BATCH_LARGE_FROM CUs or more) takes batches of CU_BATCH_LARGE
 * (docs/performance.md has what it saves).  Smaller inputs keep batches
 * of CU_BATCH, enough of them for every worker, and so do a module's,
 * which are not deduplicated alone, and an input with Rust units under
 * rustc's names, whose generic types of one name in many layouts a
 * batch's dedup compares with each other, more of them in a larger
 * batch.  The size depends on the input only, never on -j, so that the
 * output does not either.
 */
#ifndef DWARF2BTF_CU_BATCH_H
#define DWARF2BTF_CU_BATCH_H

#include <stdbool.h>
#include <stddef.h>

#define CU_BATCH		32
#define CU_BATCH_LARGE		128
#define CU_BATCH_MAX		CU_BATCH_LARGE
#define CU_BATCH_LARGE_FROM	1024

/*
 * The CUs of a batch of an input of @nr_cus CUs: CU_BATCH_LARGE from
 * @large_from CUs on if it may take them (@large: its batches are
 * deduplicated, no Rust under rustc's names), else CU_BATCH.
 */
static inline size_t cu_batch__size(size_t nr_cus, bool large,
				    size_t large_from)
{
	return large && nr_cus >= large_from ? CU_BATCH_LARGE : CU_BATCH;
}

#endif
