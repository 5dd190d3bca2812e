// SPDX-License-Identifier: GPL-2.0-only
/* Growing an array (grow.h): the part that allocates. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/grow.h"

int grow_array_slow(void **arr, size_t *cap, size_t need, size_t elem,
		    size_t first)
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
