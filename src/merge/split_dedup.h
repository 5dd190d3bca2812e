/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Deduplication of a module's types against a base (vmlinux) BTF.
 *
 * libbpf's btf__dedup() of split BTF hashes every base type again for each
 * module: on a distro kernel that is 100k types, over a thousand times.
 * Here the base is indexed once (base_index, read-only, shared by all
 * workers) and each module, already deduplicated on its own, is only
 * matched against it; see docs/modules.md.
 */
#ifndef DWARF2BTF_SPLIT_DEDUP_H
#define DWARF2BTF_SPLIT_DEDUP_H

#include "merge/base_index.h"

struct btf;
struct split_dedup;

/* One per worker: scratch space reused from module to module. */
struct split_dedup *split_dedup__new(const struct base_index *idx);
void split_dedup__free(struct split_dedup *d);

/*
 * MOD is standalone BTF, deduplicated by itself; its type ids are
 * rewritten (it is not usable afterwards).  *OUT becomes split BTF over
 * BASE (a modifiable copy of the indexed base: libbpf adds strings to it
 * while looking them up) holding the types of MOD the base lacks.
 */
int split_dedup__run(struct split_dedup *d, struct btf *mod, struct btf *base,
		     struct btf **out);

#endif
