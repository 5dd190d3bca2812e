// SPDX-License-Identifier: GPL-2.0-only
/*
 * Output files are written through a temporary file, fsync() and
 * rename(), so that a crash or a full disk never leaves a truncated
 * kernel image or object file behind.  This file also writes raw BTF,
 * alone or as one of a write set (out_file.h, output.h).
 */
#define _GNU_SOURCE
#include "lib/grow.h"
#include "output/out_file.h"
#include "output/output.h"
#include "lib/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* out_file__zero() writes from this buffer. */
static const char zeros[4096];

/*
 * out_file__report() prints the error about @path, with strerror(@err)
 * when @errstr is set, and returns -@err.
 */
__attribute__((format(printf, 4, 0)))
static int out_file__report(const char *path, int err, bool errstr,
		       const char *fmt, va_list ap)
{
	char msg[512], ebuf[128];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	/* One line is printed in one call, so threads' messages do not mix. */
	if (errstr)
		pr_err("%s: %s: %s", path, msg,
		       strerror_r(err, ebuf, sizeof(ebuf)));
	else
		pr_err("%s: %s", path, msg);
	return -err;
}

/*
 * out_file__error() reports a failed system call as
 * "dwarf2btf: PATH: MSG: strerror", and returns -@err.
 */
int out_file__error(const char *path, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = out_file__report(path, err, true, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * out_file__fail() reports a problem that the message fully describes,
 * and returns -@err.
 */
int out_file__fail(const char *path, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = out_file__report(path, err, false, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * out_file__say() reports a failed system call on @out as out_file__error()
 * does, unless @out is quiet (a pre-copy, whose failure only means the
 * copy is made again when the file is written).
 */
__attribute__((format(printf, 3, 4)))
static int out_file__say(const struct out_file *out, int err,
			 const char *fmt, ...)
{
	va_list ap;

	if (out->quiet)
		return -err;
	va_start(ap, fmt);
	err = out_file__report(out->path, err, true, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * out_file__fault() makes the write numbered fault_at fail with ENOSPC,
 * so that tests can make a write fail (DWARF2BTF_FAULT_WRITE,
 * test_hooks.h).
 */
static bool out_file__fault(struct out_file *out)
{
	if (++out->nwrites != out->fault_at)
		return false;
	errno = ENOSPC;
	return true;
}

/*
 * out_file__put() writes all @len bytes at @off, or, for a direct output
 * such as a FIFO, at the current position; each write system call counts
 * for the fault hook if @count.
 */
static int out_file__put(struct out_file *out, const void *buf, size_t len,
			 uint64_t off, bool count)
{
	const char *p = buf;

	while (len) {
		ssize_t n;

		if (count && out_file__fault(out))
			n = -1;
		else if (out->direct)
			n = write(out->fd, p, len);
		else
			n = pwrite(out->fd, p, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return out_file__say(out, errno, "write failed");
		if (n == 0)
			return out_file__say(out, EIO, "write failed");
		p += n;
		len -= n;
		off += n;
	}
	return 0;
}

int out_file__write(struct out_file *out, const void *buf, size_t len,
		    uint64_t off)
{
	return out_file__put(out, buf, len, off, true);
}

/* out_file__zero() writes @len zero bytes at @off. */
int out_file__zero(struct out_file *out, uint64_t off, uint64_t len)
{
	while (len) {
		size_t n = len < sizeof(zeros) ? len : sizeof(zeros);
		int err = out_file__write(out, zeros, n, off);

		if (err)
			return err;
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * out_file__copy() copies the first @len bytes of @in_fd to offset 0 of
 * the output.  It uses copy_file_range() while the kernel supports it for
 * these files, and falls back to reading and writing.  A set *@stop (if
 * @stop is given) ends it between chunks with -ECANCELED.  The whole copy
 * is one write for the fault hook, however many chunks it takes, so that
 * a copy of the whole file made ahead (out_precopy.c) counts as the copy
 * of the bytes kept does.
 */
int out_file__copy(struct out_file *out, int in_fd, uint64_t len,
		   const atomic_bool *stop)
{
	loff_t in_off = 0, out_off = 0;
	bool kernel_copy = true;
	char *buf = NULL;
	int err = 0;

	if (len && out_file__fault(out))
		return out_file__say(out, errno, "write failed");
	while ((uint64_t)in_off < len) {
		size_t chunk = len - in_off;
		ssize_t n;

		if (stop && atomic_load_explicit(stop, memory_order_relaxed)) {
			err = -ECANCELED;
			break;
		}
		if (kernel_copy) {
			/*
			 * The kernel copies the data, and may even share
			 * extents between the files.
			 */
			if (chunk > 64 * OUTPUT_CHUNK)
				chunk = 64 * OUTPUT_CHUNK;
			n = copy_file_range(in_fd, &in_off, out->fd, &out_off,
					    chunk, 0);
			if (n > 0)
				continue;
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno != EXDEV && errno != ENOSYS &&
			    errno != EINVAL && errno != EOPNOTSUPP) {
				err = out_file__say(out, errno, "write failed");
				break;
			}
			/*
			 * It is not supported here (or it returned 0), so
			 * the data is copied by hand.
			 */
			kernel_copy = false;
			continue;
		}
		if (!buf) {
			buf = malloc(OUTPUT_CHUNK);
			if (!buf) {
				err = out_file__say(out, ENOMEM, "copy");
				break;
			}
		}
		if (chunk > OUTPUT_CHUNK)
			chunk = OUTPUT_CHUNK;
		n = pread(in_fd, buf, chunk, in_off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = out_file__say(out, n < 0 ? errno : EIO,
					    "read failed");
			break;
		}
		err = out_file__put(out, buf, n, out_off, false);
		if (err)
			break;
		in_off += n;
		out_off += n;
	}
	free(buf);
	return err;
}

void out_file__init(struct out_file *out, const char *path,
		      const struct test_hooks *hooks)
{
	memset(out, 0, sizeof(*out));
	out->path = path;
	out->fd = -1;
	out->fault_at = hooks ? hooks->fault_write : 0;
}

/*
 * out_file__dir_len() returns the length of the directory part of @path,
 * including the last '/'.
 */
static size_t out_file__dir_len(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? (size_t)(slash - path) + 1 : 0;
}

/* out_file__dir() returns the directory of @path ("." for none), or NULL. */
static char *out_file__dir(const char *path)
{
	size_t dlen = out_file__dir_len(path);

	return dlen ? strndup(path, dlen) : strdup(".");
}

/*
 * out_file__target() finds the file the temp file replaces, following
 * symlinks so that a link stays a link, and sizes the temp file's name.
 */
static int out_file__target(struct out_file *out)
{
	out->target = realpath(out->path, NULL);
	/* A new file (or a dangling link) is written as named. */
	if (!out->target)
		out->target = strdup(out->path);
	if (!out->target)
		return out_file__say(out, ENOMEM, "out of memory");
	out->tmp = malloc(strlen(out->target) + 32);
	if (!out->tmp)
		return out_file__say(out, ENOMEM, "out of memory");
	return 0;
}

/*
 * out_file__make_name() creates the hidden temp name next to the target:
 * a new file, or with @anon_fd >= 0 a link to that anonymous file.  It
 * returns the new file's descriptor (or 0 for a link), or -errno.
 */
static int out_file__make_name(struct out_file *out, mode_t mode,
			       int anon_fd)
{
	size_t dlen = out_file__dir_len(out->target);
	size_t cap = strlen(out->target) + 32;
	const char *base = out->target + dlen;
	char proc[64];
	int tries, fd = -1;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", anon_fd);
	for (tries = 0; tries < 100; tries++) {
		uint64_t r;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
			    (uint64_t)(uintptr_t)&r ^ (uint64_t)tries;
		/*
		 * The name is hidden, and the base is cut to 200 bytes so
		 * that the name stays within NAME_MAX.
		 */
		snprintf(out->tmp, cap, "%.*s.%.200s.%08x.tmp", (int)dlen,
			 out->target, base, (unsigned int)r);
		if (anon_fd < 0)
			fd = open(out->tmp, O_WRONLY | O_CREAT | O_EXCL |
				  O_CLOEXEC, mode);
		/*
		 * Through /proc any user may link the file; AT_EMPTY_PATH
		 * asks for a capability, but needs no /proc.
		 */
		else if (!linkat(AT_FDCWD, proc, AT_FDCWD, out->tmp,
				 AT_SYMLINK_FOLLOW) ||
			 (errno != EEXIST &&
			  !linkat(anon_fd, "", AT_FDCWD, out->tmp,
				  AT_EMPTY_PATH)))
			fd = 0;
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	return fd >= 0 ? fd : -errno;
}

/*
 * out_file__own() gives the new file the mode and owner of @old, the
 * existing file, if any.
 */
static int out_file__own(struct out_file *out, const struct stat *old)
{
	struct stat st;

	if (!old)
		return 0;
	/*
	 * Only root may give files away; for others failing is fine, the
	 * new file is then simply theirs.
	 */
	if (!fstat(out->fd, &st) &&
	    (st.st_uid != old->st_uid || st.st_gid != old->st_gid)) {
		if (fchown(out->fd, old->st_uid, old->st_gid))
			errno = 0;
	}
	/* The mode is set after fchown(), which clears set-id bits. */
	if (fchmod(out->fd, old->st_mode & 07777))
		return out_file__say(out, errno, "cannot set the file mode");
	return 0;
}

/*
 * out_file__open() creates the temp file next to @path, after following
 * symlinks, so that a link stays a link.  @old is the stat of the existing
 * file, if any, whose mode and owner the new file gets.  The temp file is
 * in the same directory because rename() cannot cross file systems.
 */
int out_file__open(struct out_file *out, const struct stat *old)
{
	size_t dlen;
	int err;

	err = out_file__target(out);
	if (err)
		return err;
	out->fd = out_file__make_name(out, old ? 0600 : 0644, -1);
	if (out->fd < 0) {
		err = -out->fd;
		out->fd = -1;
		free(out->tmp);
		out->tmp = NULL;
		dlen = out_file__dir_len(out->target);
		if (dlen)
			return out_file__say(out, err,
					     "cannot create a file in %.*s",
					     (int)dlen, out->target);
		return out_file__say(out, err,
				     "cannot create a file in the current directory");
	}
	return out_file__own(out, old);
}

/*
 * out_file__open_anon() creates the temp file without a name (O_TMPFILE)
 * in the target's directory.  Where the file system has no such files it
 * returns a negative errno without reporting it.
 */
int out_file__open_anon(struct out_file *out, const struct stat *old)
{
	char *dir;
	int err;

	err = out_file__target(out);
	if (err)
		return err;
	dir = out_file__dir(out->target);
	out->fd = dir ? open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC,
			     old ? 0600 : 0644) : -1;
	err = out->fd >= 0 ? 0 : dir ? -errno : -ENOMEM;
	free(dir);
	if (err) {
		/* No name was made, and out_file__end() would unlink one. */
		free(out->tmp);
		out->tmp = NULL;
		return err;
	}
	out->anon = true;
	return out_file__own(out, old);
}

int out_file__name(struct out_file *out)
{
	int err;

	if (!out->anon)
		return 0;
	err = out_file__make_name(out, 0, out->fd);
	if (err)
		return out_file__say(out, -err, "cannot name the new file");
	out->anon = false;
	return 0;
}

/*
 * out_file__sync_dir() makes renames in the directory of @target durable.
 * It is a best effort: errors are ignored.
 */
static void out_file__sync_dir(const char *target)
{
	char *dir = out_file__dir(target);
	int fd;

	if (!dir)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		(void)fsync(fd);
		close(fd);
	}
	free(dir);
}

/*
 * out_file__commit() syncs and closes the temp file and renames it over
 * the target; a direct output is only closed.
 */
int out_file__commit(struct out_file *out)
{
	int err;

	if (out->direct) {
		err = close(out->fd);
		out->fd = -1;
		if (err)
			return out_file__say(out, errno, "write failed");
		return 0;
	}
	err = out_file__name(out);
	if (err)
		return err;
	if (fsync(out->fd))
		return out_file__say(out, errno, "fsync failed");
	err = close(out->fd);
	out->fd = -1;
	if (err)
		return out_file__say(out, errno, "write failed");
	if (rename(out->tmp, out->target))
		return out_file__say(out, errno, "cannot replace the file");
	free(out->tmp);
	out->tmp = NULL;
	/*
	 * The rename is made durable too, as a best effort, because the
	 * data is already safe.
	 */
	out_file__sync_dir(out->target);
	return 0;
}

/*
 * out_file__end() releases everything, and removes the temp file unless
 * it was committed.
 */
void out_file__end(struct out_file *out)
{
	if (out->fd >= 0)
		close(out->fd);
	/* An anonymous file's tmp holds no name of it yet. */
	if (out->tmp && !out->anon)
		unlink(out->tmp);
	free(out->tmp);
	free(out->target);
	out->fd = -1;
	out->anon = false;
	out->tmp = NULL;
	out->target = NULL;
}

/*
 * out_file__check_writable() fails early on a file we may not write,
 * because rename() would otherwise replace it anyway.
 */
int out_file__check_writable(const char *path)
{
	if (faccessat(AT_FDCWD, path, W_OK, AT_EACCESS))
		return out_file__error(path, errno, "not writable");
	return 0;
}

/*
 * A write set collects temp files that are renamed all at once.  lock
 * guards items, because the workers of a file set add to it concurrently.
 */
struct write_set {
	pthread_mutex_t lock;
	struct output_pending {
		char *path;	/* The path as named, for messages. */
		char *target;
		char *tmp;
	} *items;
	size_t nr, cap;
};

struct write_set *write_set__new(void)
{
	struct write_set *ws = calloc(1, sizeof(*ws));

	if (ws)
		pthread_mutex_init(&ws->lock, NULL);
	return ws;
}

/*
 * out_file__defer() closes the written temp file and queues it for the
 * write set's commit, which then owns its names.
 */
static int out_file__defer(struct out_file *out, struct write_set *ws)
{
	struct output_pending *p;
	char *path;
	int err;

	err = out_file__name(out);
	if (err)
		return err;
	err = close(out->fd);
	out->fd = -1;
	if (err)
		return out_file__say(out, errno, "write failed");
	path = strdup(out->path);
	if (!path)
		return out_file__say(out, ENOMEM, "out of memory");
	pthread_mutex_lock(&ws->lock);
	if (grow_array((void **)&ws->items, &ws->cap, ws->nr + 1,
		       sizeof(*ws->items), 256)) {
		pthread_mutex_unlock(&ws->lock);
		free(path);
		return out_file__say(out, ENOMEM, "out of memory");
	}
	p = &ws->items[ws->nr++];
	p->path = path;
	p->target = out->target;
	p->tmp = out->tmp;
	out->target = NULL;
	out->tmp = NULL;
	pthread_mutex_unlock(&ws->lock);
	return 0;
}

static void output_pending__free(struct output_pending *p)
{
	if (p->tmp)
		unlink(p->tmp);
	free(p->tmp);
	free(p->target);
	free(p->path);
	p->tmp = p->target = p->path = NULL;
}

/*
 * write_set__commit() makes one syncfs() for the whole write set instead
 * of an fsync() per file (two with the directory's), then does the
 * renames.  That makes a thousand modules' outputs cheap, each still
 * atomic.  A failed sync cannot be pinned on one file, so then none is
 * replaced.  It returns the number of files that were not replaced.
 */
int write_set__commit(struct write_set *ws)
{
	size_t i, dlen, last = 0;
	int fd, err = 0, failed = 0;

	/*
	 * There is one syncfs() each time the directory changes; a write
	 * set normally has one directory.
	 */
	for (i = 0; i < ws->nr && !err; i++) {
		dlen = out_file__dir_len(ws->items[i].target);
		if (i && dlen == out_file__dir_len(ws->items[last].target) &&
		    !strncmp(ws->items[i].target, ws->items[last].target, dlen))
			continue;
		last = i;
		fd = open(ws->items[i].tmp, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || syncfs(fd))
			err = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
	}
	for (i = 0; i < ws->nr; i++) {
		struct output_pending *p = &ws->items[i];

		if (err) {
			out_file__error(p->path, err, "sync failed");
			failed++;
			continue;
		}
		if (rename(p->tmp, p->target)) {
			out_file__error(p->path, errno, "cannot replace the file");
			failed++;
			continue;
		}
		free(p->tmp);
		p->tmp = NULL;
		dlen = out_file__dir_len(p->target);
		if (!i || dlen != out_file__dir_len(ws->items[last].target) ||
		    strncmp(p->target, ws->items[last].target, dlen))
			out_file__sync_dir(p->target);
		last = i;
	}
	for (i = 0; i < ws->nr; i++)
		output_pending__free(&ws->items[i]);
	ws->nr = 0;
	return failed;
}

void write_set__free(struct write_set *ws)
{
	size_t i;

	if (!ws)
		return;
	for (i = 0; i < ws->nr; i++)
		output_pending__free(&ws->items[i]);
	free(ws->items);
	pthread_mutex_destroy(&ws->lock);
	free(ws);
}

int output__write_raw(const char *path, const void *data, size_t size,
		      const struct test_hooks *hooks)
{
	return output__write_raw_set(path, data, size, NULL, hooks);
}

/*
 * output__write_raw_set() writes raw BTF to @path.  With @ws, the temp
 * file is renamed by write_set__commit(); a FIFO or a device is written
 * directly, because there is nothing to rename over.
 */
int output__write_raw_set(const char *path, const void *data, size_t size,
			    struct write_set *ws,
			    const struct test_hooks *hooks)
{
	struct out_file out;
	struct stat st;
	int err;

	if (!path || (!data && size))
		return out_file__fail(path ? path : "(null)", EINVAL,
				 "bad arguments");
	out_file__init(&out, path, hooks);
	if (stat(path, &st)) {
		if (errno != ENOENT)
			return out_file__error(path, errno, "cannot stat");
		err = out_file__open(&out, NULL);
	} else if (S_ISDIR(st.st_mode)) {
		return out_file__error(path, EISDIR, "cannot write");
	} else if (!S_ISREG(st.st_mode) || !strncmp(path, "/dev/", 5) ||
		   !strncmp(path, "/proc/", 6)) {
		/*
		 * A FIFO or /dev/stdout has nothing to rename over, so it is
		 * just written.  /dev/stdout may resolve to a regular file
		 * (shell redirection), and that open file is the one to
		 * write too.
		 */
		out.direct = true;
		out.fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		err = out.fd < 0 ? out_file__error(path, errno, "cannot open") : 0;
	} else {
		err = out_file__check_writable(path);
		if (!err)
			err = out_file__open(&out, &st);
	}
	if (!err)
		err = out_file__write(&out, data, size, 0);
	if (!err)
		err = ws && !out.direct ? out_file__defer(&out, ws) : out_file__commit(&out);
	out_file__end(&out);
	return err;
}
