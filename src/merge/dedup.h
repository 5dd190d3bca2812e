/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Deduplication that keeps outside references valid.  The merge runs it
 * every time the merged BTF has grown enough, so memory follows the
 * output's size rather than the sum of all CUs' fragments.
 */
#ifndef DWARF2BTF_DEDUP_H
#define DWARF2BTF_DEDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;

/* Can this libbpf carry ids through dedup (see dedup.c)? */
bool dedup__can_track(void);

/* btf__dedup() @btf, rewriting the type ids *@ids[0..@nr) to the new ids. */
int dedup__run(struct btf *btf, uint32_t *const *ids, size_t nr);

#endif
