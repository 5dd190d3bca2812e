/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef DWARF2BTF_ZALLOC_H
#define DWARF2BTF_ZALLOC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * calloc() for tables that are read before they are written (open
 * addressing).  A large calloc() is a fresh mapping whose pages the first
 * read maps to the shared zero page; the first write then takes a
 * copy-on-write fault that flushes the TLB of every CPU running one of our
 * threads, by IPI.  Writing the zeroes here faults each page in once.
 */
/* Returns @n zeroed elements of @size bytes, or NULL (also on overflow). */
static inline void *zalloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (size && n > SIZE_MAX / size)
		return NULL;
	bytes = n * size;
	p = malloc(bytes ? bytes : 1);
	if (p)
		memset(p, 0, bytes);
	return p;
}

#endif
