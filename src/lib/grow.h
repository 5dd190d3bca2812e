/* SPDX-License-Identifier: GPL-2.0-only */
/* Growing an array: the one helper for it, overflow-checked. */
#ifndef DWARF2BTF_GROW_H
#define DWARF2BTF_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * Make room in *@arr (*@cap elements of @elem bytes) for at least @need
 * elements; the capacity doubles, starting from @first.  0, or -ENOMEM
 * (no memory, or a size that would overflow), leaving *@arr and *@cap as
 * they were.
 */
static inline int grow_array(void **arr, size_t *cap, size_t need,
			     size_t elem, size_t first)
{
	size_t ncap;
	void *n;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : (first ? first : 1);
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	if (elem && ncap > SIZE_MAX / elem)
		return -ENOMEM;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

#endif /* DWARF2BTF_GROW_H */
