/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF string offsets of DWARF names, by the address of the name.
 *
 * libdw hands out names as pointers into .debug_str, so one name is one
 * address in every CU of a file.  libbpf's btf__add_str() hashes and
 * compares the whole string each time: a sixth of a module's encoding
 * time, measured, most of it for member names.  Here a hit costs one
 * pointer hash and does not touch the (cold) string.  Valid for one BTF
 * while it only grows (no dedup).
 */
#ifndef DWARF2BTF_NAME_CACHE_H
#define DWARF2BTF_NAME_CACHE_H

#include "u32_map.h"

struct btf;

struct name_cache {
	struct u32_map map;	/* address of the name -> offset */
};

/* The offset of @s in @btf's strings, added if new; 0 for NULL or "". */
int name_cache__off(struct name_cache *c, struct btf *btf, const char *s);
void name_cache__free(struct name_cache *c);

#endif
