/* SPDX-License-Identifier: GPL-2.0-only */
/* The one reading of a -j count, for every subcommand that takes one. */
#ifndef DWARF2BTF_JOBS_H
#define DWARF2BTF_JOBS_H

#include <errno.h>
#include <stdlib.h>

#define JOBS_MAX	1024

/*
 * A thread count of 1 to JOBS_MAX, the whole of @s in decimal, into *@jobs:
 * 0, or -EINVAL (nothing stored) for anything else, overflow included.
 */
static inline int jobs__parse(const char *s, int *jobs)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > JOBS_MAX)
		return -EINVAL;
	*jobs = v;
	return 0;
}

#endif /* DWARF2BTF_JOBS_H */
