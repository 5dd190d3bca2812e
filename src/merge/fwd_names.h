/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Declarations a batch may not decide alone.  A batch's dedup resolves a
 * FWD (or a declared-only enum) to the one definition of its name that it
 * sees; one dedup of everything would do the same only if the whole input
 * has one definition of that name.  So the batches' dedups record the
 * names they resolved, and once the final dedup has shown which names have
 * two definitions, a run in which a batch guessed one of those is made
 * again with those names left to the final dedup (pipeline__run()).  The
 * output is then the same as one dedup of everything (docs/design.md).
 *
 * Names are kept as 64-bit keys: the name's hash and its kind (struct or
 * union, enum).  Two names sharing a key only cost a run more.
 */
#ifndef DWARF2BTF_FWD_NAMES_H
#define DWARF2BTF_FWD_NAMES_H

#include <stdint.h>

#include "lib/key_set.h"

struct btf;
struct btf_type;

/* The key of type T's name (a struct, union, FWD, ENUM or ENUM64). */
uint64_t fwd_names__key(const struct btf *btf, const struct btf_type *t);
/* The same for @t named @name (NULL: a bad offset, taken as no name). */
uint64_t fwd_names__key_of(const char *name, const struct btf_type *t);

/*
 * RESOLVED: names the batches' dedups resolved; OUT: the BTF the final
 * dedup made of them.  *CONFLICTS becomes the names of RESOLVED that OUT
 * defines more than once (sorted).  Returns their number or -errno.
 */
int fwd_names__conflicts(struct key_set *resolved, const struct btf *out,
			 struct key_set *conflicts);

#endif
