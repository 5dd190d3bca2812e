// SPDX-License-Identifier: GPL-2.0-only
/* This file keeps a cache directory (cache_dir.h). */
#define _GNU_SOURCE	/* This is for asprintf(). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "cache/cache_dir.h"

/*
 * cache_dir__init() picks the directory as cache_dir.h says.  A relative
 * XDG_CACHE_HOME is ignored, as the XDG Base Directory specification asks.
 */
int cache_dir__init(struct cache_dir *c, const char *dir, const char *env_dir,
		    const char *xdg, const char *home, bool off,
		    size_t max_bytes)
{
	const char *base = NULL, *sub = "";

	memset(c, 0, sizeof(*c));
	c->max_bytes = max_bytes ? max_bytes : CACHE_DIR_MAX_DEFAULT;
	if (off)
		return 0;
	if (dir && *dir)
		base = dir;
	else if (env_dir && *env_dir)
		base = env_dir;
	else if (xdg && *xdg == '/')
		base = xdg, sub = "/dwarf2btf";
	else if (home && *home)
		base = home, sub = "/.cache/dwarf2btf";
	if (!base)
		return 0;
	if (asprintf(&c->path, "%s%s", base, sub) < 0) {
		c->path = NULL;
		return -ENOMEM;
	}
	return 0;
}

void cache_dir__free(struct cache_dir *c)
{
	free(c->path);
	c->path = NULL;
}

/*
 * cache_dir__map() maps entry @name read-only.  An empty file or one that
 * is not regular is refused with -EINVAL, because mmap() cannot map an
 * empty file.
 */
int cache_dir__map(const struct cache_dir *c, const char *name, void **p,
		   size_t *len)
{
	struct stat st;
	char *path;
	int fd, err = 0;

	if (!c->path)
		return -ENOENT;
	if (asprintf(&path, "%s/%s%s", c->path, name, CACHE_DIR_SUFFIX) < 0)
		return -ENOMEM;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = -errno;
	} else if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !st.st_size) {
		err = -EINVAL;
	} else {
		*len = st.st_size;
		*p = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
		if (*p == MAP_FAILED)
			err = -errno;
		/*
		 * The entry's mtime is set to now, because the trim
		 * removes the entries used least recently first.
		 */
		else
			futimens(fd, NULL);
	}
	if (fd >= 0)
		close(fd);
	free(path);
	return err;
}

void cache_dir__unmap(void *p, size_t len)
{
	if (p)
		munmap(p, len);
}

/*
 * make_dirs() does mkdir -p, making each component 0700, as caches under
 * $HOME are.
 */
static int make_dirs(const char *path)
{
	char *p = strdup(path), *s, c;
	int err = 0;

	if (!p)
		return -ENOMEM;
	for (s = p + 1; !err; s++) {
		if (*s && *s != '/')
			continue;
		c = *s;
		*s = 0;
		if (mkdir(p, 0700) && errno != EEXIST)
			err = -errno;
		*s = c;
		if (!c)
			break;
	}
	free(p);
	return err;
}

/* An entry is one file of the cache, as the trim sees it. */
struct entry {
	char *name;
	off_t size;
	struct timespec mtime;
};

/* Entries sort oldest first, by mtime, then by name. */
static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * cache_dir__trim() removes the oldest entries while their total size
 * exceeds the bound.  Only regular files named *.d2b count, and on a
 * failure the trim simply does less.
 */
void cache_dir__trim(const struct cache_dir *c)
{
	struct entry *v = NULL, *nv;
	size_t n = 0, i, total = 0, sl = strlen(CACHE_DIR_SUFFIX);
	struct dirent *de;
	struct stat st;
	DIR *d;
	int dfd;

	if (!c->path)
		return;
	d = opendir(c->path);
	if (!d)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);

		if (l <= sl || strcmp(de->d_name + l - sl, CACHE_DIR_SUFFIX) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode))
			continue;
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[n].name = strdup(de->d_name);
		if (!v[n].name)
			break;
		v[n].size = st.st_size;
		v[n].mtime = st.st_mtim;
		total += st.st_size;
		n++;
	}
	qsort(v, n, sizeof(*v), entry_cmp);
	for (i = 0; i < n && total > c->max_bytes; i++)
		if (!unlinkat(dfd, v[i].name, 0))
			total -= v[i].size;
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	closedir(d);
}

/*
 * write_parts() writes the @nr parts to @fd one after the other; it
 * returns 0 or a negative errno.
 */
static int write_parts(int fd, const void *const *parts, const size_t *lens,
		       int nr)
{
	size_t done;
	ssize_t w;
	int i;

	for (i = 0; i < nr; i++)
		for (done = 0; done < lens[i]; done += w) {
			w = write(fd, (const char *)parts[i] + done,
				  lens[i] - done);
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
		}
	return 0;
}

/*
 * cache_dir__store() writes the entry to a temp file and renames it into
 * place.
 */
int cache_dir__store(const struct cache_dir *c, const char *name,
		     const void *const *parts, const size_t *lens, int nr)
{
	char *tmp = NULL, *path = NULL;
	int fd = -1, err;

	if (!c->path)
		return -ENOENT;
	err = make_dirs(c->path);
	if (err)
		return err;
	if (asprintf(&path, "%s/%s%s", c->path, name, CACHE_DIR_SUFFIX) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	/*
	 * The file is not named NAME.d2b until it is complete, so the trim
	 * and readers skip it meanwhile.
	 */
	if (asprintf(&tmp, "%s/.%s.XXXXXX", c->path, name) < 0) {
		tmp = NULL;
		err = -ENOMEM;
		goto out;
	}
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	err = write_parts(fd, parts, lens, nr);
	if (close(fd) && !err)
		err = -errno;
	fd = -1;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(tmp);
	free(path);
	return err;
}

/*
 * cache_dir__stage() writes the parts to staged-XXXXXX.d2b.  The suffix
 * makes the file an entry as the trim sees it, so a staged file that the
 * run never comes back for is trimmed in time.
 */
int cache_dir__stage(const struct cache_dir *c, const void *const *parts,
		     const size_t *lens, int nr, char **path)
{
	int fd, err;

	*path = NULL;
	if (!c->path)
		return -ENOENT;
	err = make_dirs(c->path);
	if (err)
		return err;
	if (asprintf(path, "%s/staged-XXXXXX%s", c->path,
		     CACHE_DIR_SUFFIX) < 0) {
		*path = NULL;
		return -ENOMEM;
	}
	fd = mkstemps(*path, strlen(CACHE_DIR_SUFFIX));
	if (fd < 0) {
		err = -errno;
	} else {
		err = write_parts(fd, parts, lens, nr);
		if (close(fd) && !err)
			err = -errno;
		if (err)
			unlink(*path);
	}
	if (err) {
		free(*path);
		*path = NULL;
	}
	return err;
}

/*
 * cache_dir__unstage() reads a staged file back and removes it (see
 * cache_dir.h).  A file that is not exactly @len bytes long gives -EIO.
 */
int cache_dir__unstage(char *path, size_t len, void **buf)
{
	char *b;
	size_t done = 0;
	ssize_t r = 0;
	int fd, err = 0;

	if (!buf) {
		unlink(path);
		free(path);
		return 0;
	}
	*buf = NULL;
	b = malloc(len ? len : 1);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !b) {
		err = fd < 0 ? -errno : -ENOMEM;
	} else {
		for (; done < len; done += r) {
			r = read(fd, b + done, len - done);
			if (r <= 0)
				break;
		}
		if (done != len || read(fd, &(char){ 0 }, 1) != 0)
			err = -EIO;	/* It is not what was staged. */
	}
	if (fd >= 0)
		close(fd);
	unlink(path);
	free(path);
	if (err)
		free(b);
	else
		*buf = b;
	return err;
}
