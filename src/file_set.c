// SPDX-License-Identifier: GPL-2.0-only
/*
 * A file set encodes several files, and files are the unit of parallelism
 * here: a module has one or a few CUs, too few to share among workers, and
 * there are a thousand modules.  Each file is encoded with one worker,
 * which gives the same bytes as any -j on that file alone, because
 * pipeline.c's output does not depend on -j.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <bpf/btf.h>

#include "file_set.h"
#include "lib/log.h"
#include "output/output.h"
#include "stats.h"
#include "cache/base_cache.h"
#include "merge/btf_dedup.h"

struct file_size {
	off_t size;
	int idx;
	bool taken;		/* A worker has taken the file. */
};

/*
 * The workers share one struct file_set.  lock guards next, done, failed,
 * sum and the progress line; everything else is set before the workers
 * start and only read by them.
 */
struct file_set {
	pthread_mutex_t lock;
	char *const *files;
	/* The files' indices into files[] and sizes, largest file first. */
	struct file_size *order;
	int nr;
	int next;		/* No file before it is left to take. */
	int done;
	int failed;
	/*
	 * The bytes of the files being encoded (inflight) may not exceed
	 * budget, but for a file taken when none is: a worker waits for
	 * room on the condition (file_set__take()).
	 */
	pthread_cond_t room;
	off_t budget, inflight;
	const struct pipeline_opts *opts;
	/* This is the base as raw BTF, from which each thread copies it. */
	const void *base_raw;
	uint32_t base_size;
	/* The base index is built once and only read by the workers. */
	const struct base_index *base_idx;
	const char *out_dir;
	/* With -o DIR, the outputs are committed together at the end. */
	struct write_set *writes;
	bool progress;		/* On a terminal, a progress line is shown. */
	struct stats sum;	/* With --stats, all files' counts. */
};

/*
 * file_set__out_path() makes the output path OUT_DIR/NAME.btf, NAME being
 * the file's name without .ko or .o.
 */
static int file_set__out_path(const char *dir, const char *file, char *buf,
			   size_t len)
{
	const char *name = strrchr(file, '/');
	size_t n;

	name = name ? name + 1 : file;
	n = strlen(name);
	if (n > 3 && !strcmp(name + n - 3, ".ko"))
		n -= 3;
	else if (n > 2 && !strcmp(name + n - 2, ".o"))
		n -= 2;
	if (snprintf(buf, len, "%s/%.*s.btf", dir, (int)n, name) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * libbpf writes into a BTF's string buffer even to look a string up (which
 * split BTF's dedup does in its base), so threads cannot share a base.
 * Each thread gets its own copy, made from the same raw bytes, so that
 * string offsets into it are those of the real base.  It returns NULL
 * without a base, or on failure with *@err set.
 */
static struct btf *file_set__base_copy(struct file_set *b, int *err)
{
	struct btf *base;

	*err = 0;
	if (!b->base_raw)
		return NULL;
	base = btf__new(b->base_raw, b->base_size);
	if (!base) {
		*err = -errno ? -errno : -ENOMEM;
		return NULL;
	}
	*err = pipeline__prepare_base(base);
	if (*err) {
		btf__free(base);
		return NULL;
	}
	return base;
}

/*
 * file_set__progress() writes "[done/nr] file" over the last line of the
 * terminal.  The line is cut to the terminal's width, because a line that
 * wraps cannot be cleared; what is kept is the end of the path, which
 * names the file.  The caller holds b->lock.
 */
static void file_set__progress(struct file_set *b, const char *file)
{
	char head[32];
	struct winsize ws;
	size_t cols = 80, len, n, keep;

	if (!ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) && ws.ws_col)
		cols = ws.ws_col;
	n = snprintf(head, sizeof(head), "[%d/%d] ", b->done, b->nr);
	len = strlen(file);
	if (n + len < cols) {
		fprintf(stderr, "\r\033[K%s%s", head, file);
		return;
	}
	/* "..." and the end of the path are shown, with one column to spare. */
	keep = cols > n + 4 ? cols - n - 4 : 0;
	fprintf(stderr, "\r\033[K%s...%s", head, file + len - keep);
}

/*
 * file_set__take() returns the index into order[] of the next file to
 * encode, or -1 when none is left, with b->lock held: the largest file
 * not taken whose bytes fit beside those being encoded, or any when none
 * is.  It waits for room while none fits.
 */
static int file_set__take(struct file_set *b)
{
	int i;

	for (;;) {
		while (b->next < b->nr && b->order[b->next].taken)
			b->next++;
		if (b->next == b->nr)
			return -1;
		for (i = b->next; i < b->nr; i++)
			if (!b->order[i].taken &&
			    (!b->inflight ||
			     b->inflight + b->order[i].size <= b->budget))
				break;
		if (i < b->nr) {
			b->order[i].taken = true;
			b->inflight += b->order[i].size;
			return i;
		}
		pthread_cond_wait(&b->room, &b->lock);
	}
}

/*
 * file_set__worker() is one worker thread.  It makes its own copy of the
 * base and its own split dedup scratch, then takes the next file until
 * none is left.  Without a base copy, every file it takes fails, so that
 * each is reported.
 */
static void *file_set__worker(void *arg)
{
	struct file_set *b = arg;
	struct btf_dedup *sd = NULL;
	struct btf *base;
	int base_err;

	base = file_set__base_copy(b, &base_err);
	if (!base_err && b->base_idx) {
		sd = btf_dedup__new(b->base_idx, b->opts->enc.base_typedefs);
		if (!sd) {
			btf__free(base);
			base = NULL;
			base_err = -ENOMEM;
		}
	}
	if (base_err)
		pr_err("cannot copy the base BTF: %s", strerror(-base_err));
	for (;;) {
		struct pipeline_opts o = *b->opts;
		struct stats fst = { 0 };
		char out[PATH_MAX];
		const char *file;
		off_t size;
		int i, err;

		pthread_mutex_lock(&b->lock);
		i = file_set__take(b);
		size = i >= 0 ? b->order[i].size : 0;
		pthread_mutex_unlock(&b->lock);
		if (i < 0) {
			btf_dedup__free(sd);
			btf__free(base);
			return NULL;
		}
		file = b->files[b->order[i].idx];
		o.base = base;
		o.split_dedup = sd;
		o.jobs = 1;
		o.stats = false;
		o.stats_out = b->opts->stats ? &fst : NULL;
		o.writes = b->writes;
		o.out_path = NULL;
		err = 0;
		if (b->out_dir) {
			err = file_set__out_path(b->out_dir, file, out, sizeof(out));
			if (err)
				pr_err("%s: output name too long", file);
			o.out_path = out;
		}
		if (base_err) {
			pr_err("%s: not encoded: no base", file);
			err = base_err;
		}
		if (!err)
			err = pipeline__run(file, &o);

		pthread_mutex_lock(&b->lock);
		b->inflight -= size;
		pthread_cond_broadcast(&b->room);
		b->done++;
		if (err)
			b->failed++;
		stats__add(&b->sum, &fst);
		if (b->progress)
			file_set__progress(b, file);
		pthread_mutex_unlock(&b->lock);
	}
}

/* Larger files sort first, and equal sizes keep the command line's order. */
static int file_size__cmp(const void *a, const void *b)
{
	const struct file_size *x = a, *y = b;

	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->idx - y->idx;
}

/*
 * file_set__order() returns the order in which the files are taken, the
 * largest files first, with their sizes.  The last files to finish are
 * then small ones, so no worker idles long at the end while another
 * encodes a big module (a few are a hundred times the median).  The
 * outputs do not depend on the order.
 */
static struct file_size *file_set__order(char *const *files, int nr)
{
	struct file_size *sz = calloc(nr, sizeof(*sz));
	struct stat st;
	int i;

	if (!sz)
		return NULL;
	for (i = 0; i < nr; i++) {
		sz[i].idx = i;
		sz[i].size = stat(files[i], &st) ? 0 : st.st_size;
	}
	qsort(sz, nr, sizeof(*sz), file_size__cmp);
	return sz;
}

/*
 * Two inputs must not write the same OUT_DIR/NAME.btf.  The check
 * compares every pair of files.
 */
static int file_set__check_names(char *const *files, int nr, const char *dir)
{
	char a[PATH_MAX], b[PATH_MAX];
	int i, j;

	for (i = 0; i < nr; i++) {
		if (file_set__out_path(dir, files[i], a, sizeof(a)))
			continue;
		for (j = i + 1; j < nr; j++) {
			if (file_set__out_path(dir, files[j], b, sizeof(b)))
				continue;
			if (!strcmp(a, b)) {
				pr_err("%s and %s would both write %s", files[i],
				       files[j], a);
				return -EEXIST;
			}
		}
	}
	return 0;
}

/*
 * file_set__run() encodes the files with up to opts->jobs threads, one
 * file per thread at a time.  The base is indexed once for all files
 * (base_index__get()).  It returns the number of files that failed, or a
 * negative errno when nothing could be started.
 */
int file_set__run(char *const *files, int nr, const struct pipeline_opts *opts,
	       const char *out_dir)
{
	struct file_set b = {
		.files = files,
		.nr = nr,
		.opts = opts,
		.out_dir = out_dir,
		.progress = isatty(STDERR_FILENO),
	};
	int i, jobs = opts->jobs < nr ? opts->jobs : nr, started = 0, err;
	struct base_index *idx = NULL;
	double start;
	pthread_t *tids;
	struct stat st;

	if (out_dir) {
		if (mkdir(out_dir, 0755) && errno != EEXIST) {
			pr_err("%s: %s", out_dir, strerror(errno));
			return -errno;
		}
		if (stat(out_dir, &st) || !S_ISDIR(st.st_mode)) {
			pr_err("%s: not a directory", out_dir);
			return -ENOTDIR;
		}
		/*
		 * The check of names is quadratic, so it is skipped for
		 * 2000 files or more.
		 */
		if (nr < 2000 && file_set__check_names(files, nr, out_dir))
			return -EEXIST;
		b.writes = write_set__new();
		if (!b.writes)
			return -ENOMEM;
	}
	if (jobs < 1)
		jobs = 1;
	start = stats__now();
	if (opts->base) {
		b.base_raw = btf__raw_data(opts->base, &b.base_size);
		if (!b.base_raw) {
			write_set__free(b.writes);
			return -ENOMEM;
		}
		if (!opts->enc.plain_dedup) {
			err = base_index__get(opts->base_view, opts->cache, &idx,
					      NULL);
			if (err) {
				pr_err("cannot index the base BTF: %s",
				       strerror(-err));
				write_set__free(b.writes);
				return err;
			}
			b.base_idx = idx;
		}
	}
	tids = calloc(jobs, sizeof(*tids));
	b.order = file_set__order(files, nr);
	if (!tids || !b.order) {
		free(tids);
		free(b.order);
		base_index__free(idx);
		write_set__free(b.writes);
		return -ENOMEM;
	}
	/*
	 * A module's peak memory follows its size (its DWARF is read whole
	 * and its types are held until the split dedup), so two of the
	 * largest at once would double the run's peak.  The files encoded
	 * together hold at most 1.1 times the largest file's bytes, and a
	 * worker with no room for the next largest takes a smaller file.
	 */
	b.budget = nr ? b.order[0].size + b.order[0].size / 10 : 0;
	pthread_mutex_init(&b.lock, NULL);
	pthread_cond_init(&b.room, NULL);
	for (i = 0; i < jobs; i++) {
		if (pthread_create(&tids[i], NULL, file_set__worker, &b))
			break;
		started++;
	}
	/* Without any thread, the caller's thread does the work. */
	if (!started)
		file_set__worker(&b);
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	if (b.progress)
		fprintf(stderr, "\r\033[K");
	if (b.writes)
		b.failed += write_set__commit(b.writes);
	if (b.failed)
		pr_err("%d of %d files failed", b.failed, nr);
	/* On a terminal, this sums up what the progress line showed. */
	else if (b.progress)
		fprintf(stderr, "dwarf2btf: %d files encoded%s%s\n", nr,
			out_dir ? " into " : "", out_dir ? out_dir : "");
	if (opts->stats) {
		b.sum.start = start;
		b.sum.jobs = jobs;
		fprintf(stderr, "stats: %d files; phase times summed over files\n",
			nr);
		stats__print(&b.sum, stderr);
	}
	pthread_cond_destroy(&b.room);
	pthread_mutex_destroy(&b.lock);
	write_set__free(b.writes);
	base_index__free(idx);
	free(b.order);
	free(tids);
	return b.failed;
}
