/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF deduplication by the rules of upstream libbpf's btf__dedup(), our
 * own code, so that the output does not depend on the libbpf installed
 * (Debian 12's 1.1 resolves FWDs and cycles by older rules).  Two uses:
 *   - a whole BTF (no base): libbpf 1.7's rules, typedefs compared as
 *     graphs along with structs; the batches, the merge and the final pass;
 *   - a module's types against a base (vmlinux) BTF: the same rules for
 *     split BTF (libbpf 1.7 and 1.8.0, whose typedefs never meet the
 *     base's), the base indexed once (base_index, read-only, shared by
 *     all workers) instead of hashed again for every module, as libbpf's
 *     split dedup does; see docs/modules.md.
 */
#ifndef DWARF2BTF_BTF_DEDUP_H
#define DWARF2BTF_BTF_DEDUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "merge/base_index.h"

struct btf;
struct btf_concat;
struct btf_dedup;
struct key_set;

/*
 * One per worker: scratch space reused from one BTF to the next.  IDX: the
 * base's index; NULL for whole dedups.  BASE_TYPEDEFS: a module's typedef
 * may become the base's, as libbpf does after 1.8.0; false repeats the
 * base's typedefs in each module, as libbpf 1.7 and 1.8.0 (and so pahole
 * 1.32) do.
 */
struct btf_dedup *btf_dedup__new(const struct base_index *idx,
				 bool base_typedefs);
void btf_dedup__free(struct btf_dedup *d);
/*
 * A batch's dedup, whose input is not all there is (fwd_names.h): FWDs and
 * declared-only enums named in KEEP stay as they are, and the names of the
 * others it resolves are added to RESOLVED.  Whole dedups only.
 */
void btf_dedup__batch(struct btf_dedup *d, const struct key_set *keep,
		      struct key_set *resolved);

/*
 * MOD is standalone BTF whose strings libbpf interned (built with
 * btf__add_*()); its type ids are rewritten (it is not usable afterwards).
 * *OUT becomes its deduplicated types: with a base index, split BTF over
 * BASE (libbpf's BTF of the indexed base) holding the types the base
 * lacks; without, standalone BTF.  The type ids *IDS[0..NR) of MOD become
 * those of *OUT.
 */
int btf_dedup__run(struct btf_dedup *d, struct btf *mod, struct btf *base,
		   uint32_t *const *ids, size_t nr, struct btf **out);
/*
 * The same over a base index, without libbpf's BTF of the base: *@raw
 * becomes the split BTF's raw bytes (header, types, strings; the caller
 * frees them), btf_dedup__raw_size() of them long.
 */
int btf_dedup__run_split(struct btf_dedup *d, struct btf *mod,
			 unsigned char **raw);
/* The length of raw BTF that a dedup made, from its header. */
size_t btf_dedup__raw_size(const unsigned char *raw);
/*
 * The same as a whole dedup, of the merged types still in @cat
 * (btf_concat.h), which are rewritten (neither @cat nor the BTF it
 * borrows from is usable afterwards): *@raw becomes the output's raw
 * bytes (btf_load__raw()), so that the caller can free all of the input
 * before libbpf copies them.  The type ids *@ids[0..@nr) of @cat become
 * those of the output.
 */
int btf_dedup__run_concat(struct btf_dedup *d, const struct btf_concat *cat,
			  uint32_t *const *ids, size_t nr, unsigned char **raw);

#endif
