// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file runs the workers and the in-order consumer.  Workers run at
 * most a window of batches (2 * jobs) ahead of the consumer, so that
 * fragments that are finished but not yet merged cannot pile up in memory.
 * The first failing CU (in CU order) ends the run, and workers stop taking
 * new CUs as soon as any failure is seen.
 *
 * libdw is safe to use from several threads here because the main thread
 * interned every CU before the workers start (dwarf_get_units), and
 * everything libdw caches lazily afterwards (abbreviations, location
 * lists, string offsets) is per CU, and each CU is read by exactly one
 * worker.
 *
 * What libdw caches is kept until dwarf_end(), and by the end of a vmlinux
 * it is the largest part of the peak RSS that the output does not need
 * (docs/performance.md, Memory).  So the CUs are read in epochs of
 * EPOCH_BATCHES batches (a large input's batch is an epoch of its own),
 * each through a libdw handle of its own.  The first
 * worker to need an epoch opens its handle on the (read-only, uncompressed)
 * Elf, and the worker that finishes the epoch's last batch ends it.
 * Opening a handle is the only use of libelf beyond reading the ELF header
 * (abbrev_cache.c), and libelf is not thread-safe, so it is done under
 * q->epoch_lock.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cu_queue.h"
#include "input/dwarf_units.h"
#include "input/elf_file.h"
#include "input/unit_view.h"
#include "cache/batch_cache.h"
#include "cu/name_cache.h"
#include "cu/btf_builder.h"
#include "cu/type_reuse.h"
#include "merge/merge.h"
#include "lib/log.h"

/* This is the size of a batch's error message, made by the worker. */
#define ERRLEN	512
/*
 * This many batches share one libdw handle: more batches per epoch mean
 * fewer times libdw reads the CU headers before the epoch's first CU, and
 * fewer mean less that libdw caches at once.
 */
#define EPOCH_BATCHES	8

/*
 * An epoch is a run of batches read through one libdw: EPOCH_BATCHES, or
 * one batch of CU_BATCH_LARGE CUs, whose libdw state then peaks lower
 * than that of two (docs/performance.md).
 */
struct cu_epoch {
	Dwarf *dw;
	Dwarf_Die *cus;		/* The epoch's CUs, read through dw. */
	/*
	 * dw is opened on a unit view (unit_view.h) in slot view_slot, or
	 * on the input's Elf (view NULL).  Its offsets in .debug_info are
	 * the input's less base.
	 */
	Elf *view;
	size_t view_slot;
	uint64_t base;
	size_t pending;		/* The number of batches not finished. */
	int err;
};

/*
 * A slot holds one batch's result until the consumer takes it.  A worker
 * stores the result and sets done under q->lock; the consumer reads it
 * after seeing done under that lock.
 */
struct cu_slot {
	struct cu_fragment frag;
	/* With deferred keys, this is the cache entry still to seal. */
	struct batch_pack pack;
	bool packed;
	size_t info_from, info_to;	/* The units' range in .debug_info. */
	int err;
	bool done;
	char errmsg[ERRLEN];
};

/*
 * q->lock guards the slots' results, the counters next, consumed,
 * next_seal, sealing and max_sealing, abort, first_err and counts.
 * q->cond is broadcast when a batch is done, consumed or sealed, and when
 * cu_queue__end() starts to wait.
 */
struct cu_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const struct encode_env *env;
	Dwarf_Die *cus;
	size_t nr;
	struct cu_slot *slots;
	size_t nr_batches;
	size_t next;		/* The next batch to hand out. */
	size_t consumed;	/* The batches the consumer has taken. */
	size_t window;
	size_t batch;		/* The CUs of a batch (env->batch_cus). */
	size_t epoch_batches;	/* The batches of an epoch. */
	bool abort;
	int first_err;
	/* When epochs is NULL, all CUs are read through the caller's libdw. */
	struct cu_epoch *epochs;
	size_t nr_epochs;
	/* epoch_lock guards the epochs, and libelf while one is opened. */
	pthread_mutex_t epoch_lock;
	/*
	 * Epochs are opened on unit views where they can be (views_ok):
	 * view_used[] tells which slots a view holds.
	 */
	struct unit_views views;
	bool views_ok;
	bool *view_used;
	size_t nr_views;	/* Epochs opened on a view. */
	/*
	 * With batch_cache__defer(), batches are packed when encoded and
	 * sealed by workers that have no batch to encode.  That happens when
	 * the window is full, or when no batch is left; then the sealing goes
	 * on while the caller continues, until cu_queue__end().
	 */
	bool defer;
	size_t next_seal;
	/*
	 * These are the number of workers sealing and how many may seal at
	 * once.  Once all is consumed, one fewer may, because the caller's
	 * thread has work too (the decisions, the dedup).
	 */
	int sealing, max_sealing;
	pthread_t *tids;
	int started;
	struct cu_queue_counts counts;
};

/*
 * A finished CU's .debug_info pages are never read again, and dropping
 * them from our mapping keeps them out of our RSS (the kernel reads them
 * from the file again if they are touched).  In a relocatable file's own
 * copy they are given back, where no unit reads another's DIEs.  Only
 * whole pages inside the CU go.
 */
/*
 * A unit's header is at most this long (DWARF 5 type unit, 64-bit: 40
 * bytes).
 */
#define UNIT_HEADER_MAX	64
/*
 * Pages of a mapped file go in runs of finished CUs of about this many
 * bytes, not a CU at a time: each madvise() that takes pages from a
 * mapping that other threads use waits for their TLBs to be flushed,
 * while what a run holds back stays a fraction of the RSS.
 */
#define RELEASE_RUN	(1u << 20)

/* The offset in .debug_info where CU @i ends. */
static size_t cu_queue__cu_end(const struct cu_queue *q, size_t i)
{
	const struct encode_env *env = q->env;

	if (i + 1 < q->nr)
		return dwarf_dieoffset(&q->cus[i + 1]);
	return env->debug_info ? env->debug_info_size :
				 (size_t)(env->info_end - env->info_start);
}

/* cu_queue__release() gives back the pages of the finished CUs [i, end). */
static void cu_queue__release(struct cu_queue *q, size_t i, size_t end)
{
	const struct encode_env *env = q->env;
	size_t start, to, size;

	if (!env->debug_info && !env->info_copy_off)
		return;
	size = env->debug_info ? env->debug_info_size :
				 (size_t)(env->info_end - env->info_start);
	start = dwarf_dieoffset(&q->cus[i]);
	to = cu_queue__cu_end(q, end - 1);
	if (to <= start || to > size)
		return;
	if (env->debug_info)
		elf_file__drop_pages(env->debug_info + start, to - start);
	else if (to - start > UNIT_HEADER_MAX)
		/* The next unit's header stays: libdw may read it again. */
		elf_file__discard_part(env->ef, env->info_copy_off + start,
				       to - start - UNIT_HEADER_MAX);
}

/*
 * cu_queue__finished() is told that CU @i, the last of a batch if @last,
 * is finished, and gives back the pages of the run of CUs from *@from on
 * once it is long enough (RELEASE_RUN); *@from is then the next CU.  The
 * pages of a relocatable file's own copy go a CU at a time, each leaving
 * the next unit's header.
 */
static void cu_queue__finished(struct cu_queue *q, size_t *from, size_t i,
			       bool last)
{
	if (q->env->debug_info && !last &&
	    cu_queue__cu_end(q, i) - dwarf_dieoffset(&q->cus[*from]) <
	    RELEASE_RUN)
		return;
	if (q->env->debug_info)
		cu_queue__release(q, *from, i + 1);
	else
		cu_queue__release(q, i, i + 1);
	*from = i + 1;
}

/*
 * current_rss() returns the resident set size in bytes, from the second
 * field of /proc/self/statm (in pages), or 0 if it is unknown.
 */
static size_t current_rss(void)
{
	unsigned long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%lu %lu", &size, &resident);
	fclose(f);
	return n == 2 ? resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

/*
 * The --max-memory limit is checked after every CU, so a run over the
 * limit stops with the CU that took it there instead of being killed by
 * the OOM killer.  It returns -ENOMEM with the message in @errbuf.
 */
static int cu_queue__check_memory(struct cu_queue *q, size_t i, char *errbuf)
{
	size_t max = q->env->opts->max_memory, rss;

	if (!max || (rss = current_rss()) <= max)
		return 0;
	snprintf(errbuf, ERRLEN,
		 "%s: CU 0x%llx: memory limit of %zu %s exceeded (%zu MB in use)",
		 q->env->ef->path, (unsigned long long)dwarf_dieoffset(&q->cus[i]),
		 max >= 1u << 20 ? max >> 20 : max >= 1024 ? max >> 10 : max,
		 max >= 1u << 20 ? "MB" : max >= 1024 ? "KB" : "bytes",
		 rss >> 20);
	return -ENOMEM;
}

/*
 * cu_queue__encode_batch() encodes CUs [first, end) and merges them into
 * one fragment, *@out, deduplicated unless the dedup is left to the end
 * (plain_dedup, defer_dedup).  @dies are the DIEs of those CUs, whose
 * offsets in .debug_info lack @base.  It returns 0, or a negative errno
 * with the message in @errbuf.
 */
static int cu_queue__encode_batch(struct cu_queue *q, Dwarf_Die *dies,
				  uint64_t base, size_t first, size_t end,
				  struct cu_fragment *out, char *errbuf)
{
	const struct encode_opts *o = q->env->opts;
	struct type_reuse reuse = { 0 };
	struct cu_arrays arrays = { 0 };
	struct btf_builder types;
	struct name_cache names;
	struct merge_state m;
	struct cu_fragment frag;
	size_t i, from = first;
	int err;
	/*
	 * A CU takes the types that the CUs before it in the batch built,
	 * which the batch's dedup would have merged with its own: not on
	 * the reference paths, which build everything and dedup once.
	 */
	bool reusing = !o->plain_dedup && !o->defer_dedup &&
		       !(o->hooks && o->hooks->no_reuse);

	memset(out, 0, sizeof(*out));
	name_cache__init(&names, q->env->ef->ehdr.e_type == ET_REL,
			 q->env->str_start, q->env->str_size);
	btf_builder__init(&types, q->env->ef->ptr_size);
	/*
	 * Batches are standalone BTF even over a base, because libbpf cannot
	 * append split BTF; the consumer's merged BTF is the split one.
	 */
	err = merge_state__init(&m, UINT32_MAX, q->env->ef->ptr_size);
	m.keep_fwds = q->env->opts->keep_fwds;
	for (i = first; !err && i < end; i++) {
		err = cu_encoder__encode(q->env, &dies[i - first], base,
					 &types,
					 &names, reusing ? &reuse : NULL,
					 &arrays, &frag, errbuf, ERRLEN);
		cu_queue__finished(q, &from, i, i + 1 == end);
		if (!err)
			err = cu_queue__check_memory(q, i, errbuf);
		if (err)
			cu_fragment__free(&frag);
		if (!err && (err = merge_state__add(&m, &frag)))
			snprintf(errbuf, ERRLEN, "%s: CU 0x%llx: cannot merge its BTF: %s",
				 q->env->ef->path,
				 (unsigned long long)dwarf_dieoffset(&q->cus[i]),
				 strerror(-err));
	}
	/*
	 * The batch's BTF is made of its types and the name cache's strings,
	 * which their names are offsets of.  The caches can go before the
	 * dedup, which moves the ids too.
	 */
	if (!err) {
		uint32_t len;
		const char *strs = name_cache__strs(&names, &len);

		err = btf_builder__seal(&types, strs, len, &m.acc.btf);
		if (err)
			snprintf(errbuf, ERRLEN, "%s: cannot assemble the BTF of CUs 0x%llx to 0x%llx: %s",
				 q->env->ef->path,
				 (unsigned long long)dwarf_dieoffset(&q->cus[first]),
				 (unsigned long long)dwarf_dieoffset(&q->cus[end - 1]),
				 strerror(-err));
	}
	name_cache__free(&names);
	btf_builder__free(&types);
	type_reuse__free(&reuse);
	cu_arrays__free(&arrays);
	if (!err && !q->env->opts->plain_dedup && !q->env->opts->defer_dedup &&
	    (err = merge_state__dedup(&m)))
		snprintf(errbuf, ERRLEN, "%s: BTF dedup failed: %s",
			 q->env->ef->path, strerror(-err));
	if (err) {
		merge_state__free(&m);
		return err;
	}
	err = merge_state__take(&m, out);
	if (err)
		merge_state__free(&m);
	return err;
}

/*
 * cu_epoch__close() ends @ep's libdw handle and its view, and returns the
 * view's slot (SIZE_MAX: none), which the caller then frees under
 * q->epoch_lock (cu_queue__free_slot()).
 */
static size_t cu_epoch__close(struct cu_epoch *ep)
{
	size_t slot = ep->view ? ep->view_slot : SIZE_MAX;

	if (ep->dw)
		dwarf_end(ep->dw);
	if (ep->view)
		elf_end(ep->view);
	free(ep->cus);
	ep->dw = NULL;
	ep->view = NULL;
	ep->cus = NULL;
	ep->base = 0;
	return slot;
}

/* Frees a view's @slot; the caller holds q->epoch_lock. */
static void cu_queue__free_slot(struct cu_queue *q, size_t slot)
{
	if (slot != SIZE_MAX)
		q->view_used[slot] = false;
}

/* Where the unit of CU @i starts in .debug_info. */
static uint64_t cu_queue__unit_start(const struct cu_queue *q, size_t i)
{
	return dwarf_dieoffset(&q->cus[i]) - dwarf_cuoffset(&q->cus[i]);
}

/*
 * cu_epoch__open_view() opens epoch @e's libdw handle on a view of its
 * units in slot @slot: libdw then reads no unit header before the
 * epoch's.  The caller holds q->epoch_lock.  It returns 0 or a negative
 * errno, and the caller closes the epoch after a failure.
 */
static int cu_epoch__open_view(struct cu_queue *q, size_t e, size_t first,
			       size_t end, size_t slot)
{
	struct cu_epoch *ep = &q->epochs[e];
	uint64_t from = cu_queue__unit_start(q, first);
	uint64_t to = end < q->nr ? cu_queue__unit_start(q, end) :
				    unit_views__info_size(&q->views);
	size_t i, dropped;

	ep->view = unit_views__open(&q->views, slot, from, to);
	if (!ep->view)
		return -EINVAL;
	ep->view_slot = slot;
	q->view_used[slot] = true;
	ep->base = from;
	ep->dw = dwarf_begin_elf(ep->view, DWARF_C_READ, NULL);
	ep->cus = malloc((end - first) * sizeof(*ep->cus));
	if (!ep->dw || !ep->cus)
		return -ENOMEM;
	for (i = first; i < end; i++) {
		uint64_t off = dwarf_dieoffset(&q->cus[i]);

		if (off < from || off >= to ||
		    !dwarf_offdie(ep->dw, off - from, &ep->cus[i - first]) ||
		    dwarf_dieoffset(&ep->cus[i - first]) != off - from)
			return -EINVAL;
	}
	/*
	 * A fault maps the pages around it too, some of them of CUs whose
	 * pages were given back already: whatever is still mapped before
	 * the epoch goes now.
	 */
	dropped = 0;
	dwarf_units__drop_listed(q->env->debug_info, q->env->debug_info_size,
				 &dropped, from, true);
	return 0;
}

/*
 * cu_epoch__open() gives epoch @e a libdw handle of its own: a new Dwarf
 * on a unit view of the epoch's units where the input allows one, else
 * on the same Elf, where finding a CU makes libdw read the headers of all
 * CUs before it, and their pages are given back as it goes.  Either way
 * the handle has the epoch's CU DIEs.  The caller holds q->epoch_lock.
 * It returns 0 or a negative errno, and the caller closes the epoch after
 * a failure.
 */
static int cu_epoch__open(struct cu_queue *q, size_t e)
{
	const struct encode_env *env = q->env;
	struct cu_epoch *ep = &q->epochs[e];
	size_t first = e * q->epoch_batches * q->batch, i, dropped = 0;
	size_t end = first + q->epoch_batches * q->batch;

	if (end > q->nr)
		end = q->nr;
	for (i = 0; q->views_ok && i < q->views.nr_slots && q->view_used[i];
	     i++)
		;
	if (q->views_ok && i < q->views.nr_slots) {
		if (!cu_epoch__open_view(q, e, first, end, i)) {
			q->nr_views++;
			return 0;
		}
		/* What the view could not read, the input's Elf reads. */
		cu_queue__free_slot(q, cu_epoch__close(ep));
	}
	/*
	 * Where the workers read the DWARF from the second mapping, so does
	 * this handle: their bytes are then at the same place.
	 */
	ep->dw = dwarf_begin_elf(env->ef->map_elf ? env->ef->map_elf :
				 env->ef->elf, DWARF_C_READ, NULL);
	ep->cus = malloc((end - first) * sizeof(*ep->cus));
	if (!ep->dw || !ep->cus)
		return -ENOMEM;
	for (i = 0; i < end; i++) {
		size_t off = dwarf_dieoffset(&q->cus[i]);

		/*
		 * The CUs before the epoch are looked up only every
		 * DWARF_UNITS_DROP_EVERY bytes, where pages are given back.
		 */
		if (i < first && off - dropped < DWARF_UNITS_DROP_EVERY)
			continue;
		if (!dwarf_offdie(ep->dw, off, i < first ? &(Dwarf_Die){ 0 } :
				  &ep->cus[i - first]))
			return -EINVAL;
		dwarf_units__drop_listed(env->debug_info, env->debug_info_size,
					 &dropped, off, false);
	}
	dwarf_units__drop_listed(env->debug_info, env->debug_info_size,
				 &dropped, dwarf_dieoffset(&q->cus[first]),
				 true);
	return 0;
}

/*
 * cu_queue__batch_dies() returns the CU DIEs of batch @b, after opening
 * its epoch if need be, or NULL on failure.  *@base is what their
 * offsets in .debug_info lack (cu_encoder__encode()).
 */
static Dwarf_Die *cu_queue__batch_dies(struct cu_queue *q, size_t b,
				       uint64_t *base)
{
	struct cu_epoch *ep;
	size_t e = b / q->epoch_batches;
	int err;

	*base = 0;
	if (!q->epochs)
		return &q->cus[b * q->batch];
	ep = &q->epochs[e];
	/* One thread in libelf at a time; the consumer goes on meanwhile. */
	pthread_mutex_lock(&q->epoch_lock);
	if (!ep->dw && !ep->err) {
		err = cu_epoch__open(q, e);
		if (err) {
			ep->err = err;
			cu_queue__free_slot(q, cu_epoch__close(ep));
		}
	}
	pthread_mutex_unlock(&q->epoch_lock);
	if (ep->err)
		return NULL;
	*base = ep->base;
	return &ep->cus[(b - e * q->epoch_batches) * q->batch];
}

/*
 * cu_queue__batch_done() is called when batch @b is finished; the last
 * batch of an epoch ends the epoch's libdw.  No other worker uses the
 * handle then, so it is closed outside the lock; its view's slot is
 * freed under it.
 */
static void cu_queue__batch_done(struct cu_queue *q, size_t b)
{
	struct cu_epoch *ep;
	bool last;

	if (!q->epochs)
		return;
	ep = &q->epochs[b / q->epoch_batches];
	pthread_mutex_lock(&q->epoch_lock);
	last = --ep->pending == 0;
	pthread_mutex_unlock(&q->epoch_lock);
	if (last) {
		size_t slot = cu_epoch__close(ep);

		pthread_mutex_lock(&q->epoch_lock);
		cu_queue__free_slot(q, slot);
		pthread_mutex_unlock(&q->epoch_lock);
	}
}

/*
 * cu_queue__unit_offs() fills @offs with where the digests of the units
 * of CUs [first, end) start.
 */
static void cu_queue__unit_offs(const struct cu_queue *q, size_t first,
				size_t end, uint64_t *offs)
{
	size_t k;

	/*
	 * The digests start after the units' headers, and a CU DIE's offset
	 * in its unit is the size of its header.
	 */
	for (k = first; k < end; k++)
		offs[k - first] = dwarf_dieoffset(&q->cus[k]) -
				  dwarf_cuoffset(&q->cus[k]);
}

/*
 * cu_queue__cached() looks up the batch of CUs [first, end) in the cache.
 * Its CUs' digests make the key, and @probe keeps them for the store
 * after a miss.  It returns true on a hit, with the batch in @frag.  @cpu
 * gets the CPU seconds of the digests and of reading back.
 */
static bool cu_queue__cached(struct cu_queue *q, struct cu_digester *dg,
			     struct batch_probe *probe, size_t first,
			     size_t end, struct cu_fragment *frag,
			     struct cache_cpu *cpu)
{
	double t0 = stats__thread_cpu(), t1;
	uint64_t offs[CU_BATCH_MAX];
	size_t k, from = first;
	bool hit;

	cu_queue__unit_offs(q, first, end, offs);
	if (batch_probe__make(probe, q->env->batch_cache, dg, offs,
			      end - first, NULL, NULL))
		probe->ok = false;
	t1 = stats__thread_cpu();
	hit = !batch_cache__load(q->env->batch_cache, probe, frag);
	cpu->digest = t1 - t0;
	cpu->load = stats__thread_cpu() - t1;
	for (k = first; hit && k < end; k++)
		cu_queue__finished(q, &from, k, k + 1 == end);
	return hit;
}

/*
 * The sealing of slot @j's batch: which one, of which queue, and where
 * the pages its digests read and did not give back yet start.
 */
struct seal_ctx {
	const struct cu_queue *q;
	size_t j;
	uint64_t from;
};

/*
 * CU @i of a batch being sealed is digested: its .debug_info pages go in
 * runs (RELEASE_RUN), not only the batch's after the last, so that a
 * large batch's are not all back in memory at the end of the encoding,
 * where the peak is.
 */
static void cu_queue__sealed_cu(void *ctx, size_t i)
{
	struct seal_ctx *s = ctx;
	const struct batch_pack *pack = &s->q->slots[s->j].pack;
	uint64_t to = i + 1 < pack->nr_cus ? pack->cu_off[i + 1] :
		      s->q->slots[s->j].info_to;

	if (!s->q->env->debug_info || to <= s->from ||
	    to - s->from < RELEASE_RUN)
		return;
	elf_file__drop_pages(s->q->env->debug_info + s->from, to - s->from);
	s->from = to;
}

/*
 * With deferred keys, cu_queue__seal() computes the digests of the batch
 * packed in slot @j, and seals and writes its cache entry with them.
 */
static void cu_queue__seal(struct cu_queue *q, struct cu_digester *dg,
			   struct batch_probe *probe, size_t j)
{
	struct batch_pack *pack = &q->slots[j].pack;
	struct cache_cpu cpu = { 0 };
	struct seal_ctx sc = { .q = q, .j = j, .from = pack->cu_off[0] };
	bool stored = false;
	double t0 = stats__thread_cpu();
	int i;

	/* Without a digester (out of memory), the pack is only freed. */
	if (!dg || batch_probe__make(probe, q->env->batch_cache, dg,
				     pack->cu_off, pack->nr_cus,
				     cu_queue__sealed_cu, &sc))
		probe->ok = false;
	cpu.digest = stats__thread_cpu() - t0;
	if (probe->ok)
		stored = !batch_pack__seal(pack, q->env->batch_cache, probe);
	batch_pack__free(pack);
	cpu.store = stats__thread_cpu() - t0 - cpu.digest;
	/*
	 * The digests read the pages again; they are dropped from our RSS
	 * again, as after encoding and merging.
	 */
	if (q->env->debug_info && q->slots[j].info_to > q->slots[j].info_from)
		elf_file__drop_pages(q->env->debug_info + q->slots[j].info_from,
				     q->slots[j].info_to - q->slots[j].info_from);
	for (i = 0; i < q->env->nr_cu_side; i++)
		elf_file__drop_pages(q->env->cu_side[i].p,
				     q->env->cu_side[i].size);

	pthread_mutex_lock(&q->lock);
	q->sealing--;
	pthread_cond_broadcast(&q->cond);
	q->counts.stored += stored;
	q->counts.no_key += !probe->ok;
	q->counts.cpu.digest += cpu.digest;
	q->counts.cpu.store += cpu.store;
	pthread_mutex_unlock(&q->lock);
}

/*
 * cu_queue__next_work() is called with q->lock held and waits for the
 * next work for a worker: a batch to encode (*@b) or, with keys deferred,
 * one to seal (*@seal).  Any encoded batch may be sealed, so that a worker
 * waiting for the window to move seals what it can.  It returns false when
 * no more work will come.
 */
static bool cu_queue__next_work(struct cu_queue *q, size_t *b, size_t *seal)
{
	size_t k;

	*b = *seal = SIZE_MAX;
	for (;;) {
		if (q->abort)
			return false;
		if (q->next < q->nr_batches && q->next < q->consumed + q->window) {
			*b = q->next++;
			return true;
		}
		/* next_seal moves to the first batch not done, or packed. */
		while (q->next_seal < q->next && q->slots[q->next_seal].done &&
		       !q->slots[q->next_seal].packed)
			q->next_seal++;
		for (k = q->next_seal;
		     q->sealing < q->max_sealing && k < q->next; k++)
			if (q->slots[k].packed) {
				/* This worker takes it. */
				q->slots[k].packed = false;
				q->sealing++;
				*seal = k;
				return true;
			}
		if (q->next >= q->nr_batches && q->next_seal >= q->nr_batches)
			return false;
		pthread_cond_wait(&q->cond, &q->lock);
	}
}

/*
 * cu_queue__worker() is one worker thread.  It takes a batch to encode or
 * seal until none is left, and stores each batch's result in its slot.
 */
static void *cu_queue__worker(void *arg)
{
	struct cu_queue *q = arg;
	struct cu_digester *dg = q->env->batch_cache ? cu_digester__new() : NULL;
	struct batch_probe probe = { 0 };

	for (;;) {
		struct cu_fragment frag;
		struct batch_pack pack = { 0 };
		char errbuf[ERRLEN] = "";
		struct cache_cpu cpu = { 0 };
		uint64_t offs[CU_BATCH_MAX];
		Dwarf_Die *dies;
		uint64_t base;
		size_t i, j, first, end;
		bool hit = false, stored = false, packed = false;
		int err = 0;

		pthread_mutex_lock(&q->lock);
		if (!cu_queue__next_work(q, &i, &j)) {
			pthread_mutex_unlock(&q->lock);
			batch_probe__free(&probe);
			cu_digester__free(dg);
			return NULL;
		}
		pthread_mutex_unlock(&q->lock);
		if (j != SIZE_MAX) {
			cu_queue__seal(q, dg, &probe, j);
			continue;
		}

		first = i * q->batch;
		end = first + q->batch < q->nr ? first + q->batch : q->nr;
		probe.ok = false;
		if (dg && !q->defer)
			hit = cu_queue__cached(q, dg, &probe, first, end, &frag,
					       &cpu);
		/* The sealer may not read q->cus, so the ranges go in slots. */
		if (q->defer) {
			uint64_t next;

			cu_queue__unit_offs(q, first, end, offs);
			if (end < q->nr)
				cu_queue__unit_offs(q, end, end + 1, &next);
			q->slots[i].info_from = offs[0];
			q->slots[i].info_to = end < q->nr ? next :
					      q->env->debug_info_size;
		}
		dies = hit ? NULL : cu_queue__batch_dies(q, i, &base);
		if (hit) {
			/* The cache had it, so there is nothing to encode. */
		} else if (!dies) {
			memset(&frag, 0, sizeof(frag));
			snprintf(errbuf, ERRLEN, "%s: cannot open its DWARF again",
				 q->env->ef->path);
			err = -EINVAL;
		} else {
			err = cu_queue__encode_batch(q, dies, base, first, end,
						     &frag, errbuf);
			cpu.store = stats__thread_cpu();
			if (!err && q->defer && dg)
				packed = !batch_cache__pack(q->env->batch_cache,
							    offs, end - first,
							    &frag, &pack) &&
					 !batch_pack__stage(&pack,
							    q->env->batch_cache);
			else if (!err && probe.ok)
				stored = !batch_cache__store(q->env->batch_cache,
							     &probe, &frag);
			/* A pack that was not staged is not kept in memory. */
			if (!packed)
				batch_pack__free(&pack);
			cpu.store = stats__thread_cpu() - cpu.store;
			if (q->env->opts->place_notes) {
				/* The notes were only needed by the store. */
				free(frag.var_notes);
				frag.var_notes = NULL;
				frag.nr_var_notes = 0;
			}
		}
		cu_queue__batch_done(q, i);

		pthread_mutex_lock(&q->lock);
		q->slots[i].frag = frag;
		q->slots[i].pack = pack;
		q->slots[i].packed = packed;
		q->slots[i].err = err;
		memcpy(q->slots[i].errmsg, errbuf, ERRLEN);
		q->slots[i].done = true;
		q->counts.reused += hit;
		q->counts.stored += stored;
		q->counts.no_key += dg && !q->defer && !probe.ok;
		q->counts.cpu.digest += cpu.digest;
		q->counts.cpu.load += cpu.load;
		q->counts.cpu.store += cpu.store;
		if (err && !q->abort) {
			q->abort = true;
			q->first_err = err;
		}
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
	}
}

/*
 * Epochs are used only when the DWARF may be opened again (dwarf_reopen)
 * and there are more batches than one epoch holds.
 */
static size_t cu_queue__epoch_batches(const struct encode_env *env)
{
	return env->batch_cus == CU_BATCH_LARGE ? 1 : EPOCH_BATCHES;
}

size_t cu_queue__nr_epochs(const struct encode_env *env, size_t nr)
{
	size_t batches = (nr + env->batch_cus - 1) / env->batch_cus;
	size_t per = cu_queue__epoch_batches(env);

	if (!env->dwarf_reopen || batches <= per)
		return 0;
	return (batches + per - 1) / per;
}

static void cu_queue__free(struct cu_queue *q)
{
	size_t k;

	for (k = 0; k < q->nr_batches; k++) {
		cu_fragment__free(&q->slots[k].frag);
		batch_pack__free(&q->slots[k].pack);
	}
	/* Epochs are still open only after a failure. */
	for (k = 0; k < q->nr_epochs; k++)
		cu_epoch__close(&q->epochs[k]);
	free(q->epochs);
	free(q->view_used);
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->epoch_lock);
	pthread_mutex_destroy(&q->lock);
	free(q->slots);
	free(q->tids);
	free(q);
}

/*
 * cu_queue__run() starts the workers and consumes the batches in CU order
 * on the caller's thread.  The queue is returned in *@out even after an
 * error, because workers may still be sealing; cu_queue__end() waits for
 * them and frees it.
 */
int cu_queue__run(const struct encode_env *env, Dwarf_Die *cus, size_t nr,
		  int jobs, cu_consume_fn consume, void *arg,
		  struct cu_queue **out)
{
	struct cu_queue *q = calloc(1, sizeof(*q));
	int i, err = 0;
	size_t k;

	*out = NULL;
	if (!q)
		return -ENOMEM;
	q->window = (size_t)jobs * 2;
	if (jobs < 1)
		jobs = q->window = 1;
	q->env = env;
	q->cus = cus;
	q->nr = nr;
	q->batch = env->batch_cus;
	q->epoch_batches = cu_queue__epoch_batches(env);
	q->nr_batches = (nr + q->batch - 1) / q->batch;
	q->defer = env->batch_cache && batch_cache__defer(env->batch_cache);
	q->slots = calloc(q->nr_batches ? q->nr_batches : 1, sizeof(*q->slots));
	q->tids = calloc(jobs, sizeof(*q->tids));
	q->nr_epochs = cu_queue__nr_epochs(env, nr);
	if (q->nr_epochs) {
		q->epochs = calloc(q->nr_epochs, sizeof(*q->epochs));
		for (k = 0; q->epochs && k < q->nr_epochs; k++)
			q->epochs[k].pending = k + 1 < q->nr_epochs ?
					       q->epoch_batches :
					       q->nr_batches - k * q->epoch_batches;
	}
	pthread_mutex_init(&q->lock, NULL);
	pthread_mutex_init(&q->epoch_lock, NULL);
	pthread_cond_init(&q->cond, NULL);
	if (!q->slots || !q->tids || (q->nr_epochs && !q->epochs)) {
		q->nr_batches = q->nr_epochs = 0;
		cu_queue__free(q);
		return -ENOMEM;
	}
	*out = q;
	/* Views where the input has its second mapping (pipeline.c). */
	if (q->nr_epochs && !unit_views__init(&q->views, env->ef)) {
		q->view_used = calloc(q->views.nr_slots, sizeof(*q->view_used));
		q->views_ok = q->view_used != NULL;
	}

	q->max_sealing = jobs;
	for (i = 0; i < jobs; i++) {
		if (pthread_create(&q->tids[i], NULL, cu_queue__worker, q)) {
			if (!q->started) {
				pr_err("cannot start worker threads");
				err = -EAGAIN;
			}
			break;
		}
		q->started++;
	}
	pthread_mutex_lock(&q->lock);
	q->max_sealing = q->started;
	pthread_mutex_unlock(&q->lock);

	for (k = 0; !err && k < q->nr_batches; k++) {
		struct cu_slot *s = &q->slots[k];

		pthread_mutex_lock(&q->lock);
		/* After a later CU failed, CU k may never be handed out. */
		while (!s->done && !(q->abort && k >= q->next))
			pthread_cond_wait(&q->cond, &q->lock);
		if (!s->done) {
			/*
			 * CU k was never started, so the batch that failed
			 * is reported.
			 */
			size_t j;

			for (j = k + 1; j < q->nr_batches; j++)
				if (q->slots[j].done && q->slots[j].err)
					break;
			s = &q->slots[j < q->nr_batches ? j : k];
		}
		err = s->done ? s->err : q->first_err;
		pthread_mutex_unlock(&q->lock);
		if (err)
			pr_err("%s", s->errmsg[0] ? s->errmsg : strerror(-err));
		if (!err)
			err = consume(arg, k, &s->frag);
		/* consume() owns the fragment from here on. */
		memset(&s->frag, 0, sizeof(s->frag));
		/*
		 * The side sections' pages are dropped after each batch; a
		 * later CU that needs a page faults it in again.
		 */
		for (i = 0; i < env->nr_cu_side; i++)
			elf_file__drop_pages(env->cu_side[i].p,
					     env->cu_side[i].size);

		pthread_mutex_lock(&q->lock);
		q->consumed++;
		if (err)
			q->abort = true;
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
	}
	pthread_mutex_lock(&q->lock);
	q->max_sealing = q->started > 1 ? q->started - 1 : 1;
	pthread_mutex_unlock(&q->lock);
	return err;
}

void cu_queue__end(struct cu_queue *q, bool abandon,
		   struct cu_queue_counts *counts)
{
	int i;

	if (!q) {
		if (counts)
			memset(counts, 0, sizeof(*counts));
		return;
	}
	/* The caller waits now, so every worker may seal. */
	pthread_mutex_lock(&q->lock);
	q->abort |= abandon;
	q->max_sealing = q->started;
	pthread_cond_broadcast(&q->cond);
	pthread_mutex_unlock(&q->lock);
	for (i = 0; i < q->started; i++)
		pthread_join(q->tids[i], NULL);
	if (q->defer && q->counts.stored && !abandon)
		batch_cache__mark(q->env->batch_cache);
	/* One trim for all of the run's stores, mark included. */
	if (q->counts.stored)
		batch_cache__trim(q->env->batch_cache);
	if (counts) {
		*counts = q->counts;
		counts->views = q->nr_views;
	}
	cu_queue__free(q);
}
