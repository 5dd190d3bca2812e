/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The base index (base_index.h) is kept in the cache directory, keyed by
 * the base's bytes, because every module of a kernel build is encoded by a
 * process of its own over the same vmlinux, and indexing its 100 k types
 * would be most of a small module's time.  An entry is checked before it
 * is used (header, sizes, a checksum, every id and offset in range); one
 * that fails is ignored and built again.  The index is the same either
 * way, and so is the output.
 */
#ifndef DWARF2BTF_BASE_CACHE_H
#define DWARF2BTF_BASE_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "cache/cache_dir.h"
#include "merge/base_index.h"

struct btf_view;

/* An entry is this header, then the parts it locates. */
#define BASE_CACHE_MAGIC	"D2BTFIDX"
/* The version must change whenever the index or the hashes in it change. */
#define BASE_CACHE_VERSION	4

enum {
	PART_TYPES_HEAD, PART_TYPES_NEXT, PART_TYPES_HASH,
	PART_NAMES_HEAD, PART_NAMES_NEXT, PART_NAMES_HASH,
	PART_STR_SLOTS, NR_PARTS
};

struct base_cache_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;
	uint64_t key;		/* btf_view__hash() of the base. */
	uint64_t base_size;	/* The bytes of its types and strings. */
	uint64_t checksum;	/* hash_bytes() of what follows the header. */
	uint64_t file_size;
	uint32_t nr;		/* The base's btf__type_cnt(). */
	uint32_t types_nb, names_nb;
	uint32_t str_len, str_nb;
	uint32_t pad;
	uint64_t off[NR_PARTS];	/* From the start of the file, 8-aligned. */
	/* This is libbpf's dedup table after the base (base_index.h). */
	uint64_t sim_sz, sim_cap;
	uint32_t sim_growths, nr_growths;
	uint32_t grow_id[BASE_MAX_GROWTHS];
};

/*
 * base_index__get() returns the index of BASE: mapped from CACHE when an
 * entry for BASE's bytes is there and checks out, and otherwise built and
 * stored (only built when CACHE's path is NULL).  *HIT (HIT may be NULL)
 * says which.  It returns 0 or -errno; only building can fail.
 */
int base_index__get(const struct btf_view *base, const struct cache_dir *cache,
		    struct base_index **out, bool *hit);

/*
 * base_cache__read() is for fuzzing and tests: it reads MAP (LEN bytes,
 * 8-aligned, not taken over) as an entry for BASE, with or without its
 * checksum checked.  It returns the index, or NULL when the entry is
 * rejected.
 */
struct base_index *base_cache__read(const struct btf_view *base, void *map,
				    size_t len, bool check_sum);

#endif
