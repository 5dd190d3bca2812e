/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The strings of a batch's BTF, and the offsets of DWARF names in them.
 *
 * libbpf's btf__add_str() copies a new string into its set, hashes it
 * twice (once more as its map grows) and allocates an entry for it, about
 * 850 instructions, and a batch adds each of its names once (a module's
 * batch is a module): 7.5% of the instructions of every 8th module in one
 * run, more than any other function.  So the strings are kept here, each
 * once, the batch's types (btf_builder.h) name theirs by offsets here,
 * and btf_builder__seal() makes the batch's libbpf BTF of those types and
 * these strings once its CUs are encoded.
 *
 * Names are looked up by one of two keys, chosen by the input, both
 * measured:
 *
 * - by address: in a linked file (vmlinux) one name is one address in
 *   .debug_str, so a hit is one hash of its offset there that never
 *   touches the (cold) string; content keys were slower there.  The map
 *   is missed more than the caches hold it: its slots are 8 bytes (the
 *   offset, the string's), and names elsewhere go to the other map.  It
 *   is therefore not a u32_map, whose 16-byte slots growing by 4 made a
 *   batch's map of 16 k names 1 MB instead of 256 KB: perf put the name
 *   lookups at 6.3% of a vmlinux run's samples through u32_map, 5.2% in
 *   this map (instruction counts do not show cache misses).  A name the
 *   map misses is looked up by content, so that each string is here once.
 * - by content: `ld -r` does not merge the strings of a module's objects,
 *   so there each CU has its own copy of each name and keys by address
 *   mostly miss; a hit is one hash of the short name, one probe and one
 *   compare.  The same 8-byte slots hold 32 bits of the name's hash, each
 *   slot of a hash compared by content: through u32_map's 16-byte slots,
 *   amdgpu.ko's whole run took 1.06 times the CPU it took so.
 *
 * Keyed by address, names that are not in .debug_str go to the u32_map.
 */
#ifndef DWARF2BTF_NAME_CACHE_H
#define DWARF2BTF_NAME_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/u32_map.h"


struct name_slot {
	/* In .debug_str, + 1; or the name's hash, | 1.  0: free. */
	uint32_t key;
	uint32_t off;
};

/* Open addressing over name_slots, at most half full. */
struct name_table {
	struct name_slot *slots;
	uint32_t mask, nr;	/* Slots - 1 (0: none yet), and slots used. */
};

struct name_cache {
	bool by_content;
	struct name_table by_key;	/* By content, or by .debug_str offset. */
	struct name_table by_hash;	/* By address: the strings by content. */
	struct u32_map map;		/* Address -> string offset. */
	const char *str;		/* .debug_str, whose names go to slots. */
	size_t str_size;
	char *strs;			/* The strings, "" at 0 (once any is). */
	uint32_t len, cap;
};

/*
 * Starts an empty cache keyed by content or by address (see above).  @str:
 * the .debug_str that names point into when keyed by address, or NULL.
 */
void name_cache__init(struct name_cache *c, bool by_content, const char *str,
		      size_t str_size);
/*
 * The offset of @s in the strings, added if new; 0 for NULL or "";
 * -ENOMEM.  A string at an address that will hold another one later
 * (a buffer built again for each name) goes to name_cache__add().
 */
int name_cache__off(struct name_cache *c, const char *s);
/* As name_cache__off(), by content alone. */
int name_cache__add(struct name_cache *c, const char *s);
/* The string at @off, an offset the cache gave. */
const char *name_cache__str(const struct name_cache *c, uint32_t off);
/*
 * The strings, @*len bytes, "" first; NULL and 0 while there is none (a
 * BTF of them then has "" alone).
 */
const char *name_cache__strs(const struct name_cache *c, uint32_t *len);
/* Frees the cache and leaves it empty, keyed as before, for another BTF. */
void name_cache__free(struct name_cache *c);

#endif
