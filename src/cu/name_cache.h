/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * BTF string offsets of DWARF names, cached.
 *
 * libbpf's btf__add_str() copies the string into the BTF, hashes it and
 * walks a chained hash map before it knows the string is there already: a
 * sixth of the encoding time, measured, most of it member names seen in
 * CU after CU.  Two keys, chosen by the input, both measured:
 *
 * - by address: in a linked file (vmlinux) one name is one address in
 *   .debug_str, so a hit is one hash of its address that never touches
 *   the (cold) string; content keys were slower there.
 * - by content: `ld -r` does not merge the strings of a module's objects,
 *   so there each CU has its own copy of each name and keys by address
 *   mostly miss; a hit is one hash of the short name, one probe and one
 *   compare.
 *
 * Valid for one BTF while it only grows (no dedup).
 */
#ifndef DWARF2BTF_NAME_CACHE_H
#define DWARF2BTF_NAME_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/u32_map.h"

struct btf;

struct name_cache {
	bool by_content;
	struct u32_map map;	/* Address or name hash -> string offset. */
};

/* Starts an empty cache keyed by content or by address (see above). */
void name_cache__init(struct name_cache *c, bool by_content);
/* The offset of @s in @btf's strings, added if new; 0 for NULL or "". */
int name_cache__off(struct name_cache *c, struct btf *btf, const char *s);
void name_cache__free(struct name_cache *c);

#endif
