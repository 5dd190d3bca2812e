// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file takes one input file through every stage (pipeline.h).  It
 * opens the ELF and builds its symbol index (input/), has the workers
 * encode the CUs (cu_queue.c, cu/), and merges their BTF in CU order with
 * a dedup whenever the merged BTF has doubled (merge/).  It then decides
 * which functions and variables get BTF (decide/), runs the final dedup
 * (or the split dedup over a base) and writes the output (output/).  Each
 * phase is one function over the run's state (struct run), and
 * pipeline__run_once() calls them in order.
 */
#include <dwarf.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <elfutils/libdw.h>

#include "cache/base_cache.h"
#include "cache/batch_cache.h"
#include "cu_queue.h"
#include "decide/funcs.h"
#include "decide/vars.h"
#include "explain/func_log.h"
#include "input/debug_file.h"
#include "input/debug_sections.h"
#include "input/dwarf_input.h"
#include "input/dwarf_layout.h"
#include "input/dwarf_units.h"
#include "input/elf_file.h"
#include "input/symtab.h"
#include "lib/btf_ids.h"
#include "lib/btf_load.h"
#include "lib/key_set.h"
#include "lib/log.h"
#include "merge/btf_dedup.h"
#include "merge/fwd_members.h"
#include "merge/fwd_names.h"
#include "merge/merge.h"
#include "output/out_precopy.h"
#include "output/write_btf.h"
#include "pipeline.h"
#include "stats.h"

/*
 * struct batch_sizes records the number of types of each batch, after its
 * dedup, in the first run.  A run made again leaves some declarations to
 * the final dedup (fwd_names.h).  When one of those names is reached from
 * many types, a batch no longer deduplicates them, because each CU that
 * only declares the name keeps copies of its own, and the batch's dedups
 * grow far beyond the first run's.  A batch of more than twice its first
 * size plus RERUN_SLACK types therefore ends such a run, and the next run
 * is one dedup of everything (--plain-dedup).  That gives the same output
 * at the cost of memory in proportion to the input.  Batch sizes do not
 * depend on -j, so neither does this decision.
 */
#define RERUN_SLACK	1024

struct batch_sizes {
	uint32_t *n;
	size_t nr;
};

/*
 * The consumer is the queue's receiving side: cu_queue.c hands it the
 * batches in CU order, on one thread at a time.
 */
struct consumer {
	struct merge_state m;
	const char *path;
	double busy;		/* Seconds spent merging, on one thread. */
	struct batch_sizes *sizes;	/* This run's sizes are filled in. */
	/* The batches must stay near these sizes; NULL means no limit. */
	const struct batch_sizes *first;
	bool outgrown_hook;	/* The rerun_outgrown hook of test_hooks.h. */
	/* A batch outgrew its size in first, so the run stopped. */
	bool outgrown;
};

/*
 * Below this size of .debug_info, one dedup of everything is cheap enough
 * in memory to do it all (see run__encode()).
 */
#define ONE_DEDUP_BELOW	(16u << 20)
/*
 * The merged types are deduplicated again once they doubled and grew by
 * at least this many since the last dedup: most types a vmlinux's batches
 * bring are types an earlier batch brought, and the final dedup then
 * reads a third of what it would (docs/performance.md).
 */
#define MERGE_DEDUP_GROWTH	(1u << 16)

/* These hear of the function decisions of one run (pipeline_opts). */
struct hearing {
	/* pahole's --verbose lines are held here until the run ends. */
	FILE *verbose;
	const struct func_report *user;
};

/*
 * A run is one pass over an input; it holds what its phases hand on to
 * the next ones.  run__free() releases all of it, whichever phase failed.
 */
struct run {
	const char *path;
	const struct pipeline_opts *opts;
	struct stats *st;
	/*
	 * These are names a batch resolved that the output defines twice;
	 * when there are any, the input is run again.
	 */
	struct key_set *conflicts;
	bool again;
	struct batch_sizes *sizes;	/* The sizes to fill, or NULL. */
	/* The input files and what was read from them. */
	struct elf_file ef, dbg, alt;
	const struct elf_file *src;	/* This has the DWARF: ef or dbg. */
	char *dbg_path;
	struct elf_symtab *syms;
	struct dwarf_input in;
	struct debug_sections secs;
	struct dwarf_layout layout;
	struct dwarf_units units;
	/* The workers encode the CUs, and cons merges them. */
	struct encode_opts enc;
	struct encode_env env;
	struct batch_cache *bcache;
	/* The queue may still be storing batches until cu_queue__end(). */
	struct cu_queue *queue;
	struct consumer cons;
	bool split;		/* Over a base, the split dedup runs. */
	/* The decisions, and the BTF they are added to. */
	struct btf_concat *added;
	struct func_report rep;
	struct hearing hear;
	char *verbose_buf;
	size_t verbose_len;
	/* This is the merged BTF, and after the dedup its output. */
	struct btf *btf;
	/*
	 * Over a base, the split dedup's output is raw bytes, and only
	 * becomes libbpf's split BTF (btf) where it must (run__split_btf()),
	 * over libbpf's BTF of the base: the caller's or own_base.
	 */
	unsigned char *split_raw;
	struct btf *own_base;
	/* The copy of the file its .BTF is written into, made ahead. */
	struct out_precopy *precopy;
};

static int run__open(struct run *r);
static int run__read_dwarf(struct run *r);
static int run__encode(struct run *r);
static int run__decide(struct run *r);
static int run__dedup(struct run *r);
static int run__write(struct run *r);
static void run__finish(struct run *r, int err);
static void run__free(struct run *r, int err);

/*
 * pipeline__run_once() makes one run over r->path and returns 0 or a
 * negative errno.  When a batch resolved a declaration whose name the
 * output defines twice, nothing is written, r->again is set and
 * r->conflicts holds those names (fwd_names.h).  With r->cons.first, a
 * batch that outgrew its size there stops the run: r->cons.outgrown is
 * set, and nothing is reported or written.
 */
static int pipeline__run_once(struct run *r)
{
	int err;

	err = run__open(r);
	if (!err)
		err = run__read_dwarf(r);
	if (!err)
		err = run__encode(r);
	if (!err)
		err = run__decide(r);
	if (!err)
		err = run__dedup(r);
	if (!err && !r->again) {
		err = run__write(r);
		run__finish(r, err);
	}
	run__free(r, err);
	return err;
}

/*
 * A file is run at most this many times.  The last run does not
 * deduplicate its batches at all (--plain-dedup): one dedup at the end
 * decides every name, so no batch can have guessed a conflicting one.
 */
#define MAX_RUNS	3

/*
 * pipeline__run() runs the input until a run needs no other: names that
 * conflicted in one run are kept for the final dedup in the next one
 * (keep_fwds), and a run whose batches outgrew the first run's is made
 * again with one dedup of everything.
 */
int pipeline__run(const char *path, const struct pipeline_opts *opts)
{
	struct key_set keep = { 0 }, conflicts = { 0 };
	struct batch_sizes first = { 0 };
	struct pipeline_opts o = *opts;
	struct out_precopy *precopy = NULL;
	struct stats st;
	int err;

	stats__start(&st);
	st.jobs = opts->jobs;
	o.enc.keep_fwds = &keep;
	/*
	 * A file whose .BTF is written in place is copied whole into the
	 * file that replaces it; that copy starts now, beside the encoding.
	 */
	if (!opts->out_path && !opts->dry_run)
		precopy = out_precopy__start(path, opts->enc.hooks);
	for (;;) {
		struct run r = {
			.path = path, .opts = &o, .st = &st,
			.conflicts = &conflicts,
			.sizes = st.nr_reruns ? NULL : &first,
			.precopy = precopy,
		};

		if (st.nr_reruns && !o.enc.plain_dedup)
			r.cons.first = &first;
		err = pipeline__run_once(&r);
		if (r.cons.outgrown) {
			/* Its batches outgrew the first run's (batch_sizes). */
			if (opts->report && opts->report->rerun)
				opts->report->rerun(opts->report->ctx);
			o.enc.plain_dedup = true;
			st.nr_reruns++;
			st.rerun_outgrown = true;
			continue;
		}
		if (err || !conflicts.nr)
			break;
		/*
		 * Those names are left to the final dedup in the next run,
		 * as they would be with one dedup of everything.
		 */
		if (opts->report && opts->report->rerun)
			opts->report->rerun(opts->report->ctx);
		err = key_set__add_all(&keep, &conflicts);
		if (err)
			break;
		key_set__sort(&keep);
		if (++st.nr_reruns + 1 >= MAX_RUNS)
			o.enc.plain_dedup = true;
	}
	out_precopy__free(precopy);
	key_set__free(&keep);
	key_set__free(&conflicts);
	free(first.n);
	return err;
}

int pipeline__prepare_base(struct btf *base)
{
	/*
	 * Nothing is to be done: our split dedup only reads the base,
	 * because btf_dedup.c emits split BTF raw.  libbpf's index of the
	 * base's strings, which copies them all, is made only by distill.c's
	 * btf__add_type() (distilled_base, --relocate), in the thread that
	 * owns the base at that time.
	 */
	(void)base;
	return 0;
}

/*
 * pipeline__split_dedup() matches @btf, which is standalone and already
 * deduplicated, against the base: *@raw becomes the raw split BTF of what
 * the base lacks.  A lone file indexes the base here; a file set passes
 * opts->split_dedup, which indexed the base once for all its files.
 * *@base_hit tells whether the base index came from the cache.
 */
static int pipeline__split_dedup(const struct pipeline_opts *opts,
				 struct btf *btf, bool *base_hit,
				 unsigned char **raw)
{
	struct base_index *idx = NULL;
	struct btf_dedup *d = opts->split_dedup;
	int err = 0;

	if (!d) {
		err = base_index__get(opts->base_view, opts->cache, &idx,
				      base_hit);
		if (err)
			return err;
		d = btf_dedup__new(idx, opts->enc.base_typedefs);
		if (!d)
			err = -ENOMEM;
	}
	if (!err)
		err = btf_dedup__run_split(d, btf, raw);
	if (!opts->split_dedup) {
		btf_dedup__free(d);
		base_index__free(idx);
	}
	return err;
}

/*
 * pipeline__dedup() runs the final dedup of standalone BTF over what @m
 * merged (merge_state__dedup_final()), and *@btf becomes its result.  It
 * takes over the scratch memory of @m's dedups rather than hold two sets
 * of it.
 */
static int pipeline__dedup(struct merge_state *m, struct btf **btf)
{
	struct btf_dedup *d = m->dedup ? m->dedup : btf_dedup__new(NULL, false);
	struct btf *out;
	int err;

	m->dedup = NULL;
	if (!d)
		return -ENOMEM;
	btf_dedup__batch(d, NULL, NULL);	/* This dedup decides all. */
	err = merge_state__dedup_final(m, d, &out);
	*btf = err ? NULL : out;
	return err;
}

/*
 * pipeline__consume() is the queue's consumer: it merges batch @idx,
 * takes @frag over, and records the batch's size for a later run.  It
 * returns -ECANCELED when the batch outgrew the first run's size.
 */
static int pipeline__consume(void *arg, size_t idx, struct cu_fragment *frag)
{
	struct consumer *c = arg;
	uint32_t n = frag->btf ? btf__type_cnt(frag->btf) - 1 : 0;
	double t;
	int err;

	if (c->first && idx < c->first->nr &&
	    (n > 2 * (uint64_t)c->first->n[idx] + RERUN_SLACK ||
	     c->outgrown_hook)) {
		cu_fragment__free(frag);
		c->outgrown = true;
		/* pipeline__run() runs again; nothing is reported. */
		return -ECANCELED;
	}
	if (c->sizes && idx < c->sizes->nr)
		c->sizes->n[idx] = n;
	t = stats__now();
	err = merge_state__add(&c->m, frag);

	c->busy += stats__now() - t;
	if (err)
		pr_err("%s: cannot merge BTF: %s", c->path, strerror(-err));
	return err;
}

/* This passes one function decision on to everyone who hears of it. */
static void pipeline__decided(void *ctx, const struct btf *btf,
			      const struct elf_symtab *syms,
			      const struct func_param *params,
			      const struct func_decision *d)
{
	struct hearing *h = ctx;

	if (h->verbose)
		func_log__pahole(h->verbose, btf, syms, params, d);
	if (h->user && h->user->decided)
		h->user->decided(h->user->ctx, btf, syms, params, d);
}

static void pipeline__cache_counts(struct stats *st,
				   const struct cu_queue_counts *qc)
{
	st->batches_reused = qc->reused;
	st->batches_stored = qc->stored;
	st->batches_no_key = qc->no_key;
	st->cache_cpu = qc->cpu;
	st->nr_epoch_views = qc->views;
}

/*
 * run__open() opens the ELF, its separate debug file when it is stripped,
 * and builds its symbol index.
 */
static int run__open(struct run *r)
{
	int err;

	r->dbg.fd = r->alt.fd = -1;
	if (r->opts->enc.hooks && r->opts->enc.hooks->read_relocs)
		err = elf_file__open_whole(&r->ef, r->path);
	else
		err = elf_file__open(&r->ef, r->path);
	if (err)
		return err;
	r->src = &r->ef;
	if (!elf_file__has_dwarf(&r->ef)) {
		/* It is stripped: DWARF and .symtab are in a debug file. */
		err = debug_file__find(&r->ef, r->opts->debuginfo,
				       r->opts->debug_root, &r->dbg_path);
		if (!err)
			err = elf_file__open(&r->dbg, r->dbg_path);
		if (err)
			return err;
		r->src = &r->dbg;
	}
	return elf_symtab__new(r->src, &r->ef, &r->syms);
}

/*
 * run__read_dwarf() opens the DWARF, finds its sections, and lists and
 * lays out its units.  What the layout asks for is made ready here,
 * before any worker starts, because the workers then share it.
 */
static int run__read_dwarf(struct run *r)
{
	const struct pipeline_opts *opts = r->opts;
	bool mapped;
	Dwarf *dw;
	int err;

	err = dwarf_input__open(&r->in, r->src);
	if (err)
		return err;
	dw = r->in.dw;
	mapped = !r->in.in_memory;
	debug_sections__read(&r->secs, dw, mapped);
	/*
	 * Whether some unit is Rust matters to run__rust_named() only, and
	 * only for Rust units wanted under rustc's names.
	 */
	err = dwarf_units__list(&r->units, r->path, dw, &r->secs, &r->layout,
				opts->enc.rust_enums_pahole &&
				encode_opts__lang_wanted(&opts->enc,
							 DW_LANG_Rust));
	if (err)
		return err;
	dwarf_layout__done(&r->layout, dw, mapped);
	if (r->layout.alt_forms) {
		err = dwarf_input__open_alt(&r->in, r->src, opts->alt_file,
					    opts->debug_root, &r->alt);
		if (err)
			return err;
	}
	if (r->units.split) {
		/*
		 * The CUs are read from .dwo files, so the offsets we found
		 * in this file's .debug_info do not apply.
		 */
		r->secs.reopen = false;
		r->secs.debug_info = NULL;
		r->secs.nr_cu_side = 0;
	}
	if (r->layout.cross_units || r->layout.partial_units ||
	    r->layout.alt_forms) {
		/*
		 * The CUs read each other's DIEs, so all workers share one
		 * libdw handle, warmed up here before the threads start.
		 */
		r->secs.reopen = false;
		dwarf_layout__prewarm(dw);
	}
	if (!r->units.nr) {
		pr_err("%s: no DWARF compilation units", r->path);
		return -ENODATA;
	}
	r->st->nr_cus = r->units.nr;
	stats__phase_end(r->st, PHASE_ELF);
	return 0;
}

/*
 * run__env() fills in what every worker reads: the input, its sections
 * and what to encode.
 */
static void run__env(struct run *r)
{
	const struct debug_sections *s = &r->secs;
	struct encode_env *env = &r->env;

	env->ef = r->src;
	env->syms = r->syms;
	env->opts = &r->enc;
	env->debug_info = s->debug_info;
	env->debug_info_size = s->debug_info_size;
	/*
	 * A relocatable file's copy of .debug_info goes CU by CU where no
	 * unit reads another's DIEs and nothing reads them after the
	 * encoding (a report, explain's, may): a module's largest section
	 * once its relocations are applied (155 of amdgpu.ko's 596 MB).
	 */
	env->info_copy_off = 0;
	if (r->in.in_memory && !s->debug_info && s->info_start &&
	    !r->units.split && !r->layout.cross_units &&
	    !r->layout.partial_units && !r->layout.alt_forms &&
	    !r->layout.type_sigs &&
	    !r->opts->report &&
	    !elf_file__copy_offset(r->src, s->info_start,
				   s->info_end - s->info_start,
				   &env->info_copy_off))
		env->info_copy_off = 0;
	memcpy(env->cu_side, s->cu_side, sizeof(env->cu_side));
	env->nr_cu_side = s->nr_cu_side;
	env->rel_addr = r->in.rel_addr;
	env->nr_rel_addr = r->in.nr_rel_addr;
	env->dwarf_reopen = s->reopen;
	env->type_sigs = r->layout.type_sigs;
	env->info_start = s->info_start;
	env->info_end = s->info_end;
	env->str_start = s->str_start;
	env->str_size = s->str_size;
	env->abbrev_start = s->abbrev_start;
	env->abbrev_size = s->abbrev_size;
	env->sects = s->raw;
}

/*
 * Returns where @p (@size bytes) lies in @ef's second mapping, and gives
 * back its pages in libelf's: the listing read some of them (the units'
 * headers, the abbreviations), and no one reads them there again.
 */
static const void *run__moved(const struct elf_file *ef, const void *p,
			      size_t size)
{
	const void *q = elf_file__moved(ef, p);

	if (q != p && size)
		elf_file__drop_pages(p, size);
	return q;
}

/*
 * run__env_gapped() makes the workers read the DWARF from the input's
 * second mapping, where the epochs' handles read it through unit views
 * (cu_queue.c, input/unit_view.h): every pointer into the file's DWARF
 * they take from the env moves there, so that what they read and what
 * they give back are the same pages (the symbols' names stay where the
 * symbol index read them).  Without that mapping, nothing moves.
 */
static void run__env_gapped(struct run *r)
{
	struct encode_env *env = &r->env;
	struct dwarf_sects *x = &env->sects;
	struct elf_file *ef = r->src == &r->dbg ? &r->dbg : &r->ef;
	size_t info = env->info_start && env->info_end > env->info_start ?
		      (size_t)(env->info_end - env->info_start) : 0;
	int i;

	if (elf_file__map_gapped(ef))
		return;
	env->debug_info = run__moved(ef, env->debug_info,
				     env->debug_info_size);
	env->info_start = run__moved(ef, env->info_start, info);
	env->info_end = env->info_start ? env->info_start + info : NULL;
	env->str_start = run__moved(ef, env->str_start, env->str_size);
	env->abbrev_start = run__moved(ef, env->abbrev_start,
				       env->abbrev_size);
	for (i = 0; i < env->nr_cu_side; i++)
		env->cu_side[i].p = run__moved(ef, env->cu_side[i].p,
					       env->cu_side[i].size);
	x->info = run__moved(ef, x->info, x->info_size);
	x->abbrev = run__moved(ef, x->abbrev, x->abbrev_size);
	x->str = run__moved(ef, x->str, x->str_size);
	x->line_str = run__moved(ef, x->line_str, x->line_str_size);
	x->str_offsets = run__moved(ef, x->str_offsets, x->str_offsets_size);
	x->addr = run__moved(ef, x->addr, x->addr_size);
	x->loc = run__moved(ef, x->loc, x->loc_size);
	x->loclists = run__moved(ef, x->loclists, x->loclists_size);
}

/*
 * What libdw built while the CUs were read (abbreviations, CU data) is not
 * needed for the decisions, so it is freed and the heap is returned to the
 * kernel before the decisions grow the BTF.  The names in the BTF point
 * into our own mapping of the file, which stays.  A relocatable file's
 * sections may belong to libdwfl, and .dwo files' sections to libdw, so
 * in those cases libdw's state waits for run__free(), and only the
 * sections of our copy that nothing reads again are given back.  Pages of
 * a file mapping can be dropped and are read again on the next access.
 */
static void run__release_dwarf(struct run *r)
{
	const struct dwarf_sects *raw = &r->env.sects;

	if (r->in.in_memory || r->units.split)
		return;
	dwarf_input__close(&r->in);
	malloc_trim(0);
	/*
	 * Only the batch stores still going read these again, to compute
	 * their digests.
	 */
	if (raw->str)
		elf_file__drop_pages(raw->str, raw->str_size);
	if (raw->abbrev)
		elf_file__drop_pages(raw->abbrev, raw->abbrev_size);
}

/*
 * run__rust_named() tells whether the run encodes Rust units under rustc's
 * names (--rust-enums=pahole): their generic types meet in a batch under
 * one name in many layouts, which the batch's dedup compares with each
 * other, so they keep batches of CU_BATCH (lib/cu_batch.h).
 */
static bool run__rust_named(const struct run *r)
{
	/* The listing looks only where the options make it count. */
	return r->units.rust;
}

/*
 * run__encode() has the workers encode the CUs and merges their BTF in CU
 * order.  Batches already come deduplicated, so the merged BTF is
 * deduplicated again only per MERGE_DEDUP_GROWTH new types.  Over a base,
 * standalone BTF is merged without any dedup, and btf_dedup.c does it all
 * at the end in the module's type order, as libbpf's split dedup
 * (btf__dedup()) would, because its decisions depend on that order.  Below
 * ONE_DEDUP_BELOW of DWARF, one dedup of everything costs little memory,
 * and it never needs a second run (fwd_names.h).
 */
static int run__encode(struct run *r)
{
	const struct pipeline_opts *opts = r->opts;
	struct merge_state *m = &r->cons.m;
	size_t nr = r->units.nr, nr_batches;
	uint32_t growth;
	int err;

	r->split = opts->base_view != NULL;
	r->enc = opts->enc;
	r->enc.defer_dedup = r->split;
	if (r->secs.info_start &&
	    (size_t)(r->secs.info_end - r->secs.info_start) < ONE_DEDUP_BELOW &&
	    !(r->enc.hooks && r->enc.hooks->batch_dedup))
		r->enc.plain_dedup = true;
	if (r->enc.plain_dedup || r->split)
		growth = UINT32_MAX;
	else if (r->enc.hooks && r->enc.hooks->merge_dedup)
		growth = 0;
	else
		growth = MERGE_DEDUP_GROWTH;
	err = merge_state__init(m, growth, r->src->ptr_size);
	if (err)
		return err;
	m->keep_fwds = r->enc.keep_fwds;
	run__env(r);
	r->env.batch_cus = cu_batch__size(nr, !r->enc.plain_dedup && !r->split &&
					  !run__rust_named(r),
					  r->enc.hooks &&
					  r->enc.hooks->large_batch_from > 0 ?
					  (size_t)r->enc.hooks->large_batch_from :
					  CU_BATCH_LARGE_FROM);
	nr_batches = (nr + r->env.batch_cus - 1) / r->env.batch_cus;
	r->st->nr_epochs = cu_queue__nr_epochs(&r->env, nr);
	/*
	 * A unit view holds an epoch's units only, so a unit that names
	 * another's type by its signature could not find it there.
	 */
	if (r->st->nr_epochs && !r->env.type_sigs)
		run__env_gapped(r);
	err = batch_cache__new(&r->env, opts->cache, r->units.cus, nr,
			       &r->bcache);
	if (err)
		return err;
	/* A build's first run here encodes as without cache (see there). */
	if (r->bcache && !batch_cache__first(r->bcache))
		r->env.batch_cache = r->bcache;
	r->enc.place_notes = r->env.batch_cache != NULL;
	if (r->sizes) {
		r->sizes->nr = nr_batches;
		r->sizes->n = calloc(r->sizes->nr + 1, sizeof(*r->sizes->n));
		if (!r->sizes->n)
			return -ENOMEM;
		r->cons.sizes = r->sizes;
	}
	r->cons.path = r->path;
	r->cons.outgrown_hook = r->enc.hooks && r->enc.hooks->rerun_outgrown;
	err = cu_queue__run(&r->env, r->units.cus, nr, opts->jobs,
			    pipeline__consume, &r->cons, &r->queue);
	r->st->batch_cache = r->env.batch_cache != NULL;
	r->st->batch_cache_first = r->bcache && !r->env.batch_cache;
	r->st->nr_batches = nr_batches;
	r->st->batch_cus = r->env.batch_cus;
	/*
	 * A relocatable file's DWARF is in our own copy of it: what the
	 * encoding read goes before the decisions and the dedup, but its
	 * strings stay.
	 */
	if (!err && r->in.in_memory && !r->units.split)
		dwarf_input__discard_read(&r->in, r->src, false);
	if (err)
		return err;
	/*
	 * libdw's state goes before the decisions and the final dedup, whose
	 * scratch would otherwise come on top of it.
	 */
	run__release_dwarf(r);
	/*
	 * The decisions read the merged types and add their own types to
	 * r->added.  Only a report (explain) reads them through a libbpf
	 * BTF: for it they are flushed into acc.btf.
	 */
	err = merge_state__open(m, r->opts->report != NULL, &r->added);
	if (err)
		pr_err("%s: cannot merge BTF: %s", r->path, strerror(-err));
	r->btf = r->opts->report ? m->acc.btf : NULL;
	if (err)
		return err;
	stats__phase_end(r->st, PHASE_ENCODE);
	r->st->merge_serial += r->cons.busy;
	return 0;
}

/*
 * run__hear() sets up who hears of the function decisions: the caller's
 * report, and --verbose, whose lines go to a memory stream until the run
 * is known to be the last one.
 */
static int run__hear(struct run *r)
{
	const struct pipeline_opts *opts = r->opts;

	if (!opts->report && !opts->verbose)
		return 0;
	r->hear.user = opts->report;
	if (opts->verbose) {
		r->hear.verbose = open_memstream(&r->verbose_buf,
						 &r->verbose_len);
		if (!r->hear.verbose)
			return -ENOMEM;
	}
	r->rep.decided = pipeline__decided;
	r->rep.vars_noted = opts->report ? opts->report->vars_noted : NULL;
	r->rep.ctx = &r->hear;
	return 0;
}

/*
 * run__decide() decides which functions and variables get BTF and adds
 * their types to the merged BTF.
 */
static int run__decide(struct run *r)
{
	struct merge_state *m = &r->cons.m;
	struct stats *st = r->st;
	int err, n;

	st->nr_types_in = m->acc.nr_types_in;
	st->nr_cus_in_place = m->acc.nr_cus_in_place;
	st->nr_merge_dedups = m->nr_dedups;
	if (r->opts->enc.type_keys) {
		st->type_keys = true;
		type_key_count__tally(&m->acc.type_keys, &st->keys);
	}
	st->nr_func_cands = m->acc.nr_funcs;
	err = run__hear(r);
	if (err)
		return err;
	n = funcs__emit(r->btf, r->added, r->syms, &r->opts->enc, m->acc.funcs,
			m->acc.nr_funcs, m->acc.params, m->acc.tags, &r->rep);
	memcpy(st->func_verdicts, r->rep.counts, sizeof(r->rep.counts));
	if (n < 0) {
		pr_err("%s: cannot encode functions: %s", r->path, strerror(-n));
		return n;
	}
	st->nr_funcs = n;
	n = vars__emit(r->added, r->syms, m->acc.vars, m->acc.nr_vars,
		       m->acc.tags);
	if (n < 0) {
		pr_err("%s: cannot encode variables: %s", r->path, strerror(-n));
		return n;
	}
	st->nr_vars = n;
	if (r->rep.vars_noted)
		r->rep.vars_noted(r->opts->report->ctx, r->syms,
				  m->acc.var_notes, m->acc.nr_var_notes);
	merge_state__drop_cands(m);
	/*
	 * Nothing points into a relocatable file's strings any more (a
	 * report, explain's, may keep names): they go before the dedup, a
	 * module's largest section after its relocations (124 of amdgpu.ko's
	 * 596 MB), since the linker merges no module's strings.  A run made
	 * again opens the file again.
	 */
	if (r->in.in_memory && !r->units.split && !r->opts->report)
		dwarf_input__discard_read(&r->in, r->src, true);
	/*
	 * The final dedup reads the merged and added types where they are;
	 * the split dedup reads them as one BTF.
	 */
	err = r->split ? merge_state__flush(m) : 0;
	r->btf = r->split ? m->acc.btf : NULL;
	if (err) {
		pr_err("%s: cannot add functions and variables: %s", r->path,
		       strerror(-err));
		return err;
	}
	stats__phase_end(st, PHASE_FUNCS);
	return 0;
}

/*
 * run__split_btf() makes the split dedup's raw output libbpf's split BTF
 * over the base, for what only that can do: C++ members made bytes
 * (fwd_members.h), another byte order, a distilled base.  libbpf's BTF of
 * the base is the caller's, or else read now (a module's process reads the
 * base in place, btf_view.h, and most never need libbpf's).  Returns 0 or
 * a negative errno, reported.
 */
static int run__split_btf(struct run *r)
{
	struct btf *base = r->opts->base;
	int err = 0;

	if (!base && !r->opts->base_path) {
		pr_err("%s: no BTF of the base to write over", r->path);
		return -EINVAL;
	}
	if (!base)
		base = r->own_base = btf_load__file(r->opts->base_path, NULL,
						    &err);
	if (!base)
		return err;	/* btf_load__file() said why. */
	r->btf = btf_load__raw_split(r->split_raw,
				     btf_dedup__raw_size(r->split_raw), base,
				     &err);
	free(r->split_raw);
	r->split_raw = NULL;
	if (!r->btf) {
		pr_err("%s: cannot read the split BTF made: %s", r->path,
		       strerror(-err));
		return err;
	}
	btf__set_pointer_size(r->btf, r->ef.ptr_size);
	return 0;
}

/* The number of types in raw BTF that a dedup made. */
static uint32_t raw_type_cnt(const unsigned char *raw)
{
	const struct btf_header *h = (const void *)raw;

	return btf_records__index(raw + h->hdr_len + h->type_off,
				  h->type_len, SIZE_MAX, NULL, NULL, 0, 0,
				  NULL);
}

/*
 * run__dedup() runs the final dedup, or over a base the split dedup.
 * Names a batch resolved that the output defines twice set r->again and
 * go to r->conflicts (fwd_names.h); the split dedup cannot have them,
 * because its batches were not deduplicated.  In an input with C++ units,
 * members of a class no unit defines then become bytes (fwd_members.h).
 */
static int run__dedup(struct run *r)
{
	const struct encode_opts *enc = &r->opts->enc;
	struct stats *st = r->st;
	const struct btf *base;
	int err, n;

	err = r->split ? 0 : pipeline__dedup(&r->cons.m, &r->btf);
	if (!err && r->split) {
		stats__phase_end(st, PHASE_DEDUP);
		err = pipeline__split_dedup(r->opts, r->btf, &st->base_cached,
					    &r->split_raw);
		/* The merged BTF was the input; acc.btf is freed later. */
		r->btf = NULL;
	}
	if (err) {
		pr_err("%s: BTF dedup failed: %s", r->path, err == -ELOOP ?
		       "types nested too deeply" : strerror(-err));
		return err;
	}
	/* Most modules are written as the split dedup made them. */
	if (r->split && !r->opts->base && !r->cons.m.acc.cxx &&
	    !r->ef.big_endian && !(enc->distilled_base && !r->opts->out_path)) {
		st->nr_types = raw_type_cnt(r->split_raw);
		stats__phase_end(st, PHASE_BASE);
		return 0;
	}
	if (r->split) {
		err = run__split_btf(r);
		if (err)
			return err;
	}
	n = r->split ? 0 : fwd_names__conflicts(&r->cons.m.acc.fwd_names,
						r->btf, r->conflicts);
	if (n) {
		if (n < 0)
			pr_err("%s: %s", r->path, strerror(-n));
		r->again = n > 0;
		stats__phase_end(st, PHASE_DEDUP);
		return n < 0 ? n : 0;
	}
	n = r->cons.m.acc.cxx ? fwd_members__to_bytes(r->btf) : 0;
	if (n < 0) {
		pr_err("%s: %s", r->path, strerror(-n));
		return n;
	}
	base = btf__base_btf(r->btf);
	st->nr_types = btf__type_cnt(r->btf) - (base ? btf__type_cnt(base) : 1);
	stats__phase_end(st, r->split ? PHASE_BASE : PHASE_DEDUP);
	return 0;
}

/* run__write() writes the BTF, and then this run's --verbose lines. */
static int run__write(struct run *r)
{
	const struct pipeline_opts *opts = r->opts;
	int err = 0;

	if (r->split_raw && !opts->dry_run)
		err = output__write_btf_bytes(r->path, opts->out_path,
					      opts->writes, r->precopy,
					      &opts->enc,
					      r->split_raw,
					      btf_dedup__raw_size(r->split_raw),
					      &r->st->out_bytes);
	else if (r->split_raw)
		r->st->out_bytes = btf_dedup__raw_size(r->split_raw);
	if (r->btf && r->ef.big_endian)
		btf__set_endianness(r->btf, BTF_BIG_ENDIAN);
	if (r->btf && !opts->dry_run)
		err = output__write_btf(r->path, opts->out_path,
					opts->writes, r->precopy, &opts->enc,
					r->btf,
					&r->st->out_bytes);
	/*
	 * The lines are printed only now, at once, because a run made
	 * again would have said them a second time.
	 */
	if (!err && r->hear.verbose && !fflush(r->hear.verbose))
		fwrite(r->verbose_buf, 1, r->verbose_len, stdout);
	stats__phase_end(r->st, PHASE_WRITE);
	return err;
}

/*
 * run__end_queue() waits for the workers' batch stores.  After an error
 * (@err), the stores not yet started are dropped.
 */
static void run__end_queue(struct run *r, int err)
{
	struct cu_queue_counts qc = { 0 };

	if (!r->queue)
		return;
	cu_queue__end(r->queue, err != 0, &qc);
	r->queue = NULL;
	pipeline__cache_counts(r->st, &qc);
}

/*
 * run__finish() runs after the write, whether it succeeded or not (@err).
 * The BTF is freed before waiting for the stores still going, so that
 * memory is not held during the wait; then the stats are printed.
 */
static void run__finish(struct run *r, int err)
{
	if (r->btf != r->cons.m.acc.btf)
		btf__free(r->btf);
	r->btf = NULL;
	free(r->split_raw);
	r->split_raw = NULL;
	merge_state__free(&r->cons.m);
	run__end_queue(r, err);
	stats__phase_end(r->st, PHASE_STORES);
	if (!err && r->opts->stats)
		stats__print(r->st, stderr);
	if (r->opts->stats_out)
		*r->opts->stats_out = *r->st;
}

/*
 * run__free() ends the queue first, because the workers' stores may still
 * read the input that is freed after it.  A run that is made again
 * (conflicts) still stores this run's batches, as a run without conflicts
 * would have.
 */
static void run__free(struct run *r, int err)
{
	run__end_queue(r, err);
	/* Its next run then stores (and the one after it reads back). */
	if (!err && r->bcache && !r->env.batch_cache)
		batch_cache__note(r->bcache);
	if (r->hear.verbose)
		fclose(r->hear.verbose);
	free(r->verbose_buf);
	if (r->btf != r->cons.m.acc.btf)
		btf__free(r->btf);	/* This is the split dedup's output. */
	free(r->split_raw);
	btf__free(r->own_base);
	merge_state__free(&r->cons.m);
	batch_cache__free(r->bcache);
	dwarf_units__free(&r->units);
	dwarf_input__close(&r->in);
	elf_symtab__free(r->syms);
	elf_file__close(&r->alt);
	elf_file__close(&r->dbg);
	free(r->dbg_path);
	elf_file__close(&r->ef);
}
