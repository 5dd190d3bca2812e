/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The base index (base_index.h) kept in the cache directory, keyed by the
 * base's bytes: every module of a kernel build is encoded by a process of
 * its own over the same vmlinux, and indexing its 100 k types was most of
 * a small module's time.  An entry is checked before it is used (header,
 * sizes, a checksum, every id and offset in range); one that fails is
 * ignored and built again.  The index is the same either way, and so is
 * the output.
 */
#ifndef DWARF2BTF_BASE_CACHE_H
#define DWARF2BTF_BASE_CACHE_H

#include <stdbool.h>

#include "lib/cache_dir.h"
#include "merge/base_index.h"

/*
 * The index of BASE: mapped from CACHE when an entry for BASE's bytes is
 * there and checks out, else built and stored (CACHE's path NULL: built).
 * *HIT (may be NULL) says which.  0 or -errno (only building fails).
 */
int base_index__get(const struct btf *base, const struct cache_dir *cache,
		    struct base_index **out, bool *hit);

#endif
