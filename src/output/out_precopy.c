// SPDX-License-Identifier: GPL-2.0-only
/* This file copies a file to be rewritten in place ahead of time. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "output/out_file.h"
#include "output/out_precopy.h"

struct out_precopy {
	struct out_file out;
	struct stat st;		/* The file that is copied. */
	int in_fd;
	pthread_t thread;
	atomic_bool stop;
	int err;		/* The copy's result, once joined. */
	bool joined;
};

static void *out_precopy__run(void *arg)
{
	struct out_precopy *pc = arg;

	pc->err = out_file__copy(&pc->out, pc->in_fd, pc->st.st_size,
				 &pc->stop);
	/*
	 * The copy's pages are written back from now on, rather than all
	 * by the fsync() at the end (a best effort: errors show there).
	 */
	if (!pc->err)
		sync_file_range(pc->out.fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	return NULL;
}

static void out_precopy__join(struct out_precopy *pc)
{
	if (pc->joined)
		return;
	pthread_join(pc->thread, NULL);
	pc->joined = true;
	close(pc->in_fd);
	pc->in_fd = -1;
}

struct out_precopy *out_precopy__start(const char *path,
				       const struct test_hooks *hooks)
{
	struct out_precopy *pc = calloc(1, sizeof(*pc));

	if (!pc)
		return NULL;
	out_file__init(&pc->out, path, hooks);
	pc->out.quiet = true;
	atomic_init(&pc->stop, false);
	/* O_NONBLOCK: a FIFO is not opened, only found not regular. */
	pc->in_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (pc->in_fd < 0)
		goto fail;
	if (fstat(pc->in_fd, &pc->st) || !S_ISREG(pc->st.st_mode) ||
	    faccessat(AT_FDCWD, path, W_OK, AT_EACCESS))
		goto fail;
	/*
	 * The copy has no name while the run lasts, so that a run that is
	 * killed (make interrupted) leaves no copy behind; it gets its temp
	 * name when it is taken.  Where the file system has no O_TMPFILE,
	 * there is no pre-copy: a named one would be left behind.
	 */
	if (out_file__open_anon(&pc->out, &pc->st))
		goto fail;
	if (pthread_create(&pc->thread, NULL, out_precopy__run, pc))
		goto fail;
	return pc;
fail:
	if (pc->in_fd >= 0)
		close(pc->in_fd);
	out_file__end(&pc->out);
	free(pc);
	return NULL;
}

/* The file the write opened is the one copied, unchanged since. */
static bool out_precopy__same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * out_precopy__usable() tells whether the joined copy can be taken, cut to
 * @keep bytes, for the file @st.
 */
static bool out_precopy__usable(struct out_precopy *pc, const struct stat *st,
				uint64_t keep)
{
	if (pc->err || !out_precopy__same(&pc->st, st) ||
	    keep > (uint64_t)pc->st.st_size)
		return false;
	/*
	 * What follows the kept bytes is written again or left a hole, as
	 * in a copy of the kept bytes only.
	 */
	while (ftruncate(pc->out.fd, keep))
		if (errno != EINTR)
			return false;
	return !out_file__name(&pc->out);
}

bool out_precopy__take(struct out_precopy *pc, const struct stat *st,
		       uint64_t keep, struct out_file *out)
{
	if (!pc || pc->out.fd < 0)
		return false;
	out_precopy__join(pc);
	if (!out_precopy__usable(pc, st, keep)) {
		/* The write copies the file now: this copy's space goes. */
		out_file__end(&pc->out);
		return false;
	}
	*out = pc->out;
	out->quiet = false;
	/* The temporary file is the caller's now. */
	pc->out.fd = -1;
	pc->out.tmp = NULL;
	pc->out.target = NULL;
	return true;
}

void out_precopy__free(struct out_precopy *pc)
{
	if (!pc)
		return;
	atomic_store(&pc->stop, true);
	out_precopy__join(pc);
	out_file__end(&pc->out);
	free(pc);
}
