/* SPDX-License-Identifier: GPL-2.0-only */
/* Growing an array: the one helper for it, overflow-checked. */
#ifndef DWARF2BTF_GROW_H
#define DWARF2BTF_GROW_H

#include <stddef.h>

int grow_array_slow(void **arr, size_t *cap, size_t need, size_t elem,
		    size_t first);

/*
 * Make room in *@arr (*@cap elements of @elem bytes) for at least @need
 * elements; the capacity doubles, starting from @first.  0, or -ENOMEM
 * (no memory, or a size that would overflow), leaving *@arr and *@cap as
 * they were.  Only the check is inline: it runs for every element added.
 */
static inline int grow_array(void **arr, size_t *cap, size_t need,
			     size_t elem, size_t first)
{
	if (need <= *cap)
		return 0;
	return grow_array_slow(arr, cap, need, elem, first);
}

#endif /* DWARF2BTF_GROW_H */
