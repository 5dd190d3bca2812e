/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * How many consecutive CUs make a batch: the unit of work of the CU queue
 * (cu_queue.h) and of the batch cache (cache/batch_cache.h), whose keys
 * hold it.  It lives down here so that both can read it and neither has
 * to reach into the other.
 */
#ifndef DWARF2BTF_CU_BATCH_H
#define DWARF2BTF_CU_BATCH_H

#define CU_BATCH	32

#endif
