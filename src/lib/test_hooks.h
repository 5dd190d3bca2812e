/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Switches the tests use to reach paths that ordinary input does not.
 * main.c reads them from the environment once, at start; below it they are
 * passed down, never read from the environment.  A NULL hooks pointer: all
 * off.
 *
 *   DWARF2BTF_LIBDW_ATTRS   (set)  every DIE read through libdw's generic
 *                                  calls: abbrev_cache.c's fast path off
 *   DWARF2BTF_OWN_DISTILL   (set)  our distill and relocate even where
 *                                  libbpf has them
 *   DWARF2BTF_FAULT_WRITE=N        the N-th write system call of each
 *                                  output__*() call fails with ENOSPC,
 *                                  a copy of the input counting as one
 *                                  (0, unset or not a number: none)
 *   DWARF2BTF_BATCH_DEDUP   (set)  batches deduplicated whatever the size
 *                                  of the input (pipeline.c)
 *   DWARF2BTF_MERGE_DEDUP   (set)  the merged types deduplicated after
 *                                  every batch, not once they doubled
 *                                  (pipeline.c)
 *   DWARF2BTF_NO_REUSE      (set)  every CU builds all of its types,
 *                                  none taken from an earlier CU of its
 *                                  batch (cu/type_reuse.h)
 *   DWARF2BTF_READ_RELOCS   (set)  a relocatable file's relocations of
 *                                  DWARF read whole and left to libdwfl,
 *                                  none applied from the file
 *                                  (input/rel_apply.h; pipeline.c)
 *   DWARF2BTF_RERUN_OUTGROWN (set) a run made again ends at its first
 *                                  batch as one whose batches outgrew
 *                                  the first run's (pipeline.c)
 *   DWARF2BTF_LARGE_BATCH_FROM=N   an input of N CUs or more takes a
 *                                  large input's batches
 *                                  (lib/cu_batch.h; 0, unset or not a
 *                                  number: CU_BATCH_LARGE_FROM)
 */
#ifndef DWARF2BTF_TEST_HOOKS_H
#define DWARF2BTF_TEST_HOOKS_H

#include <stdbool.h>

struct test_hooks {
	bool libdw_attrs;
	bool own_distill;
	bool batch_dedup;
	bool merge_dedup;
	bool no_reuse;
	bool rerun_outgrown;
	bool read_relocs;
	long fault_write;
	long large_batch_from;
};

#endif /* DWARF2BTF_TEST_HOOKS_H */
