/* SPDX-License-Identifier: GPL-2.0-only */
/* The hash functions every table of ours uses. */
#ifndef DWARF2BTF_HASH_H
#define DWARF2BTF_HASH_H

#include <stdint.h>

/* FNV-1a of a NUL-terminated string */
static inline uint64_t hash_str(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint64_t h = 0xcbf29ce484222325ull;

	while (*p)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/* An integer or an address: Fibonacci hashing, the high bits kept. */
static inline uint64_t hash_int(uint64_t v)
{
	return (v * 0x9e3779b97f4a7c15ull) >> 20;
}

#endif
