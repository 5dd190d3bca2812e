// SPDX-License-Identifier: GPL-2.0-only
/*
 * Workers and the in-order consumer.  Workers run at most a window of batches
 * ahead of the consumer so that finished-but-unmerged fragments cannot pile
 * up in memory.  The first failing CU (in CU order) ends the run; workers
 * stop taking new CUs as soon as any failure is seen.
 *
 * libdw is safe here because every CU was interned by the main thread
 * before workers start (dwarf_get_units), and everything libdw caches
 * lazily afterwards (abbreviations, location lists, string offsets) is per
 * CU, and each CU is read by exactly one worker.
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
#include "elf_file.h"
#include "dedup.h"
#include "name_cache.h"
#include "merge.h"
#include "log.h"

#define ERRLEN	512

struct cu_slot {
	struct cu_fragment frag;
	int err;
	bool done;
	char errmsg[ERRLEN];
};

struct cu_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	const struct encode_env *env;
	Dwarf_Die *cus;
	size_t nr;
	struct cu_slot *slots;
	size_t nr_batches;
	size_t next;		/* next batch to hand out */
	size_t consumed;	/* batches the consumer has taken */
	size_t window;
	bool abort;
	int first_err;
};

/*
 * A finished CU's .debug_info pages are never read again; dropping them
 * from our mapping keeps them out of our RSS (the kernel re-reads them from
 * the file if touched).  Only whole pages inside the CU are dropped.
 */
static void cu_queue__release(struct cu_queue *q, size_t i)
{
	const struct encode_env *env = q->env;
	size_t start, end;

	if (!env->debug_info)
		return;
	start = dwarf_dieoffset(&q->cus[i]);
	end = i + 1 < q->nr ? dwarf_dieoffset(&q->cus[i + 1]) :
			      env->debug_info_size;
	if (end > start && end <= env->debug_info_size)
		elf_file__drop_pages(env->debug_info + start, end - start);
}

/* Resident set size now, from /proc/self/statm; 0 if unknown. */
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
 * --max-memory: checked after every CU, so a run over the limit stops with
 * the CU that took it there instead of being killed by the OOM killer.
 */
static int cu_queue__check_memory(struct cu_queue *q, size_t i, char *errbuf)
{
	size_t max = q->env->opts->max_memory, rss;

	if (!max || (rss = current_rss()) <= max)
		return 0;
	snprintf(errbuf, ERRLEN,
		 "%s: CU 0x%llx: memory limit of %zu MB exceeded (%zu MB in use)",
		 q->env->ef->path, (unsigned long long)dwarf_dieoffset(&q->cus[i]),
		 max >> 20, rss >> 20);
	return -ENOMEM;
}

/* Encode CUs [first, end) and merge them into one deduplicated fragment. */
static int cu_queue__encode_batch(struct cu_queue *q, size_t first, size_t end,
				  struct cu_fragment *out, char *errbuf)
{
	struct name_cache names;
	struct merge_state m;
	struct cu_fragment frag;
	size_t i;
	int err;

	memset(out, 0, sizeof(*out));
	name_cache__init(&names, q->env->ef->ehdr.e_type == ET_REL);
	/*
	 * Batches are standalone BTF even over a base (libbpf cannot append
	 * split BTF); the consumer's merged BTF is the split one.
	 */
	err = merge_state__init(&m, UINT32_MAX, NULL);
	for (i = first; !err && i < end; i++) {
		err = cu_encoder__encode(q->env, &q->cus[i], m.acc.btf, &names,
					 &frag, errbuf, ERRLEN);
		cu_queue__release(q, i);
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
	name_cache__free(&names);	/* dedup moves the strings */
	if (!err && !q->env->opts->plain_dedup && !q->env->opts->defer_dedup &&
	    dedup__can_track() &&
	    (err = merge_state__dedup(&m)))
		snprintf(errbuf, ERRLEN, "%s: BTF dedup failed: %s",
			 q->env->ef->path, strerror(-err));
	if (err) {
		merge_state__free(&m);
		return err;
	}
	merge_state__take(&m, out);
	return 0;
}

static void *cu_queue__worker(void *arg)
{
	struct cu_queue *q = arg;

	for (;;) {
		struct cu_fragment frag;
		char errbuf[ERRLEN] = "";
		size_t i;
		int err;

		pthread_mutex_lock(&q->lock);
		while (!q->abort && q->next < q->nr_batches &&
		       q->next >= q->consumed + q->window)
			pthread_cond_wait(&q->cond, &q->lock);
		if (q->abort || q->next >= q->nr_batches) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		i = q->next++;
		pthread_mutex_unlock(&q->lock);

		err = cu_queue__encode_batch(q, i * CU_BATCH,
					     i * CU_BATCH + CU_BATCH < q->nr ?
					     i * CU_BATCH + CU_BATCH : q->nr,
					     &frag, errbuf);

		pthread_mutex_lock(&q->lock);
		q->slots[i].frag = frag;
		q->slots[i].err = err;
		memcpy(q->slots[i].errmsg, errbuf, ERRLEN);
		q->slots[i].done = true;
		if (err && !q->abort) {
			q->abort = true;
			q->first_err = err;
		}
		pthread_cond_broadcast(&q->cond);
		pthread_mutex_unlock(&q->lock);
	}
}

int cu_queue__run(const struct encode_env *env, Dwarf_Die *cus, size_t nr,
		  int jobs, cu_consume_fn consume, void *arg)
{
	struct cu_queue q = {
		.env = env,
		.cus = cus,
		.nr = nr,
		.nr_batches = (nr + CU_BATCH - 1) / CU_BATCH,
		.window = (size_t)jobs * 2,
	};
	pthread_t *tids;
	int i, started = 0, err = 0;
	size_t k;

	if (jobs < 1)
		jobs = q.window = 1;
	q.slots = calloc(q.nr_batches ? q.nr_batches : 1, sizeof(*q.slots));
	tids = calloc(jobs, sizeof(*tids));
	if (!q.slots || !tids) {
		free(q.slots);
		free(tids);
		return -ENOMEM;
	}
	pthread_mutex_init(&q.lock, NULL);
	pthread_cond_init(&q.cond, NULL);

	for (i = 0; i < jobs; i++) {
		if (pthread_create(&tids[i], NULL, cu_queue__worker, &q)) {
			if (!started) {
				pr_err("cannot start worker threads");
				err = -EAGAIN;
			}
			break;
		}
		started++;
	}

	for (k = 0; !err && k < q.nr_batches; k++) {
		struct cu_slot *s = &q.slots[k];

		pthread_mutex_lock(&q.lock);
		/* After a later CU failed, CU k may never be handed out. */
		while (!s->done && !(q.abort && k >= q.next))
			pthread_cond_wait(&q.cond, &q.lock);
		if (!s->done) {
			/* CU k was never started: report the batch that failed. */
			size_t j;

			for (j = k + 1; j < q.nr_batches; j++)
				if (q.slots[j].done && q.slots[j].err)
					break;
			s = &q.slots[j < q.nr_batches ? j : k];
		}
		err = s->done ? s->err : q.first_err;
		pthread_mutex_unlock(&q.lock);
		if (err)
			pr_err("%s", s->errmsg[0] ? s->errmsg : strerror(-err));
		if (!err)
			err = consume(arg, k, &s->frag);
		/* consume() owns the fragment from here on. */
		memset(&s->frag, 0, sizeof(s->frag));
		/* a later CU that needs a page back faults it in again */
		for (i = 0; i < env->nr_cu_side; i++)
			elf_file__drop_pages(env->cu_side[i].p,
					     env->cu_side[i].size);

		pthread_mutex_lock(&q.lock);
		q.consumed++;
		if (err)
			q.abort = true;
		pthread_cond_broadcast(&q.cond);
		pthread_mutex_unlock(&q.lock);
	}

	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	for (k = 0; k < q.nr_batches; k++)
		cu_fragment__free(&q.slots[k].frag);
	pthread_cond_destroy(&q.cond);
	pthread_mutex_destroy(&q.lock);
	free(q.slots);
	free(tids);
	return err;
}
