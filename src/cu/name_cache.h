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
 *   .debug_str, so a hit is one hash of its offset there that never
 *   touches the (cold) string; content keys were slower there.  The map
 *   is missed more than the caches hold it: its slots are 8 bytes (the
 *   offset, the BTF's), and names elsewhere go to the other map.  It is
 *   therefore not a u32_map, whose 16-byte slots growing by 4 made a
 *   batch's map of 16 k names 1 MB instead of 256 KB: perf put the name
 *   lookups at 6.3% of a vmlinux run's samples through u32_map, 5.2% in
 *   this map (instruction counts do not show cache misses).
 * - by content: `ld -r` does not merge the strings of a module's objects,
 *   so there each CU has its own copy of each name and keys by address
 *   mostly miss; a hit is one hash of the short name, one probe and one
 *   compare.  The same 8-byte slots hold 32 bits of the name's hash, each
 *   slot of a hash compared by content: through u32_map's 16-byte slots,
 *   amdgpu.ko's whole run took 1.06 times the CPU it takes now.
 *
 * Keyed by address, names that are not in .debug_str go to the u32_map.
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

struct name_slot {
	/* In .debug_str, + 1; or the name's hash, | 1.  0: free. */
	uint32_t str_off;
	uint32_t off;
};

struct name_cache {
	bool by_content;
	struct u32_map map;	/* Address -> string offset. */
	const char *str;	/* .debug_str, whose names go to slots. */
	size_t str_size;
	struct name_slot *slots;
	uint32_t mask, nr;	/* Slots - 1 (0: none yet), and slots used. */
};

/*
 * Starts an empty cache keyed by content or by address (see above).  @str:
 * the .debug_str that names point into when keyed by address, or NULL.
 */
void name_cache__init(struct name_cache *c, bool by_content, const char *str,
		      size_t str_size);
/* The offset of @s in @btf's strings, added if new; 0 for NULL or "". */
int name_cache__off(struct name_cache *c, struct btf *btf, const char *s);
void name_cache__free(struct name_cache *c);

#endif
