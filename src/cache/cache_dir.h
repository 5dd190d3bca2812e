/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A cache directory, as build caches keep one: entries named by a key of
 * their content, written atomically (a temporary file renamed), mapped
 * read-only, the oldest removed when the directory outgrows its bound.
 * Nothing here is trusted by callers (they check what they map), and no
 * failure here is an error: a missing, read-only or full directory only
 * costs the time the cache would have saved.
 */
#ifndef DWARF2BTF_CACHE_DIR_H
#define DWARF2BTF_CACHE_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* Entries are NAME.d2b; only those are counted and removed. */
#define CACHE_DIR_SUFFIX	".d2b"
#define CACHE_DIR_MAX_DEFAULT	(256u << 20)

struct cache_dir {
	char *path;		/* NULL: no cache */
	size_t max_bytes;	/* bound on the entries' total size */
};

/*
 * The directory: @dir if given, else @env_dir (DWARF2BTF_CACHE_DIR), else
 * @xdg/dwarf2btf (XDG_CACHE_HOME), else @home/.cache/dwarf2btf; none, or
 * @off: no cache.  Returns 0 or -ENOMEM.
 */
int cache_dir__init(struct cache_dir *c, const char *dir, const char *env_dir,
		    const char *xdg, const char *home, bool off,
		    size_t max_bytes);
void cache_dir__free(struct cache_dir *c);

/* Entry NAME mapped read-only into *P, *LEN; 0 or -errno. */
int cache_dir__map(const struct cache_dir *c, const char *name, void **p,
		   size_t *len);
void cache_dir__unmap(void *p, size_t len);

/*
 * Store entry NAME, the concatenation of NR parts: atomically, so that
 * processes reading or writing it at the same time see all of one entry
 * or none.  Then the oldest entries go while the total exceeds the bound.
 * 0 or -errno.
 */
int cache_dir__store(const struct cache_dir *c, const char *name,
		     const void *const *parts, const size_t *lens, int nr);

/*
 * An entry whose name is not known yet, written to a file of its own
 * (*@path): an entry as the trim sees it, should the run not come back for
 * it.  cache_dir__unstage() reads its @len bytes back into *@buf (NULL
 * @buf: only removes it), removes the file and frees @path.  0 or -errno.
 */
int cache_dir__stage(const struct cache_dir *c, const void *const *parts,
		     const size_t *lens, int nr, char **path);
int cache_dir__unstage(char *path, size_t len, void **buf);

#endif
