// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/lib/grow.h and grow.c: doubling from the first capacity, and no overflow: a size
 * that would not fit fails with -ENOMEM and leaves the array as it was.
 * Prints "ok" and exits 0, else names the failed check and exits 1.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lib/grow.h"

#define CHECK(c) do { if (!(c)) { printf("failed: %s\n", #c); return 1; } } while (0)

int main(void)
{
	size_t cap = 0;
	int *a = NULL, *old;

	CHECK(grow_array((void **)&a, &cap, 1, sizeof(*a), 16) == 0);
	CHECK(a && cap == 16);
	CHECK(grow_array((void **)&a, &cap, 16, sizeof(*a), 16) == 0 &&
	      cap == 16);
	CHECK(grow_array((void **)&a, &cap, 17, sizeof(*a), 16) == 0 &&
	      cap == 32);
	CHECK(grow_array((void **)&a, &cap, 100, sizeof(*a), 16) == 0 &&
	      cap == 128);
	a[127] = 7;
	old = a;
	/* need * elem overflows */
	CHECK(grow_array((void **)&a, &cap, SIZE_MAX / 2, sizeof(*a), 16) ==
	      -ENOMEM);
	CHECK(a == old && cap == 128 && a[127] == 7);
	/* doubling the capacity overflows */
	CHECK(grow_array((void **)&a, &cap, SIZE_MAX, 1, 16) == -ENOMEM);
	CHECK(a == old && cap == 128);
	free(a);
	printf("ok\n");
	return 0;
}
