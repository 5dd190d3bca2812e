/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unit programs' check: a failed condition prints "failed: CASE: COND"
 * (CASE from a local `name`) and returns 1 from the case.
 */
#ifndef DWARF2BTF_TEST_CHECK_H
#define DWARF2BTF_TEST_CHECK_H

#include <stdio.h>

#define CHECK(c) do {							\
	if (!(c)) {							\
		printf("failed: %s: %s\n", name, #c);			\
		return 1;						\
	}								\
} while (0)

#endif
