/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A cache directory is kept as build caches keep one: entries are named by
 * a key of their content, written atomically (a temporary file renamed),
 * and mapped read-only, and the oldest are removed when the directory
 * outgrows its bound.  Callers trust nothing here (they check what they
 * map), and no failure here is an error: a missing, read-only or full
 * directory only costs the time the cache would have saved.
 */
#ifndef DWARF2BTF_CACHE_DIR_H
#define DWARF2BTF_CACHE_DIR_H

#include <stdbool.h>
#include <stddef.h>

/* Entries are named NAME.d2b; only those are counted and removed. */
#define CACHE_DIR_SUFFIX	".d2b"
/* The entries may take 256 MiB unless DWARF2BTF_CACHE_MAX says otherwise. */
#define CACHE_DIR_MAX_DEFAULT	(256u << 20)

struct cache_dir {
	char *path;		/* NULL means no cache. */
	size_t max_bytes;	/* The bound on the entries' total size. */
};

/*
 * cache_dir__init() picks the directory: @dir if given, else @env_dir
 * (DWARF2BTF_CACHE_DIR), else @xdg/dwarf2btf (XDG_CACHE_HOME), else
 * @home/.cache/dwarf2btf.  With none of them, or with @off, there is no
 * cache.  It returns 0 or -ENOMEM.
 */
int cache_dir__init(struct cache_dir *c, const char *dir, const char *env_dir,
		    const char *xdg, const char *home, bool off,
		    size_t max_bytes);
void cache_dir__free(struct cache_dir *c);

/*
 * cache_dir__map() maps entry NAME read-only into *P, *LEN.  It returns 0
 * or -errno.
 */
int cache_dir__map(const struct cache_dir *c, const char *name, void **p,
		   size_t *len);
void cache_dir__unmap(void *p, size_t len);

/*
 * cache_dir__store() stores entry NAME, the concatenation of NR parts,
 * atomically, so that processes reading or writing it at the same time
 * see all of one entry or none.  It returns 0 or -errno.
 */
int cache_dir__store(const struct cache_dir *c, const char *name,
		     const void *const *parts, const size_t *lens, int nr);
/*
 * cache_dir__trim() removes the oldest entries while the total exceeds
 * the bound.  It reads every entry's size and time, so a run calls it
 * once after its stores, not once a store: the vmlinux's 76 stores into
 * a directory of 1000 entries took 0.29 s of CPU instead of 0.12.  The
 * directory may exceed its bound by the entries of the runs still storing.
 */
void cache_dir__trim(const struct cache_dir *c);

/*
 * cache_dir__stage() writes an entry whose name is not known yet to a file
 * of its own (*@path).  The file is an entry as the trim sees it, should
 * the run not come back for it.  cache_dir__unstage() reads its @len bytes
 * back into *@buf (with @buf NULL, it only removes the file), removes the
 * file and frees @path.  Both return 0 or -errno.
 */
int cache_dir__stage(const struct cache_dir *c, const void *const *parts,
		     const size_t *lens, int nr, char **path);
int cache_dir__unstage(char *path, size_t len, void **buf);

#endif
