// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/cache/cache_dir.c, staged entries: written under a name of their own
 * that the trim counts (staged-*.d2b), read back whole and removed; one
 * that grew, shrank or went is an error, and is gone after it.  Without a
 * directory nothing is staged.  Prints "ok" and exits 0, else names the
 * failed check and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache/cache_dir.h"
#include "check.h"

static int stage(const struct cache_dir *c, char **path)
{
	static const char a[] = "entry ", b[] = "bytes";
	const void *parts[2] = { a, b };
	size_t lens[2] = { 6, 5 };

	return cache_dir__stage(c, parts, lens, 2, path);
}

int main(void)
{
	const char *name = "stage";
	char dir[] = "/tmp/test_cache_stage.XXXXXX", *path, *base;
	struct cache_dir c, none = { 0 };
	void *buf;
	FILE *f;

	CHECK(mkdtemp(dir));
	CHECK(!cache_dir__init(&c, dir, NULL, NULL, NULL, false, 0));
	CHECK(!stage(&c, &path) && path);
	base = strrchr(path, '/') + 1;
	CHECK(!strncmp(base, "staged-", 7) &&
	      !strcmp(base + strlen(base) - strlen(CACHE_DIR_SUFFIX),
		      CACHE_DIR_SUFFIX));
	CHECK(!access(path, R_OK));
	base = strdup(path);
	CHECK(!cache_dir__unstage(path, 11, &buf));
	CHECK(!memcmp(buf, "entry bytes", 11));
	free(buf);
	CHECK(access(base, F_OK));	/* removed */
	free(base);

	/* grown, shrunk, gone: an error, and nothing stays */
	CHECK(!stage(&c, &path));
	base = strdup(path);
	CHECK((f = fopen(base, "a")) && fputc('x', f) != EOF && !fclose(f));
	CHECK(cache_dir__unstage(path, 11, &buf) == -EIO && !buf);
	CHECK(access(base, F_OK));
	free(base);
	CHECK(!stage(&c, &path));
	base = strdup(path);
	CHECK(!truncate(base, 4));
	CHECK(cache_dir__unstage(path, 11, &buf) == -EIO && !buf);
	CHECK(access(base, F_OK));
	free(base);
	CHECK(!stage(&c, &path));
	CHECK(!unlink(path));
	CHECK(cache_dir__unstage(path, 11, &buf) == -ENOENT && !buf);

	/* only removed */
	CHECK(!stage(&c, &path));
	base = strdup(path);
	CHECK(!cache_dir__unstage(path, 0, NULL));
	CHECK(access(base, F_OK));
	free(base);

	CHECK(stage(&none, &path) == -ENOENT && !path);
	CHECK(!rmdir(dir));	/* nothing left in it */
	cache_dir__free(&c);
	printf("ok\n");
	return 0;
}
