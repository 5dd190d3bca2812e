// SPDX-License-Identifier: GPL-2.0-only
/*
 * One input file through every stage (pipeline.h): the ELF and its symbol
 * index (input/), the CUs encoded by the workers (cu_queue.c, cu/) and
 * merged in CU order with a dedup whenever the merged BTF has doubled
 * (merge/), functions and variables decided (decide/), the final dedup
 * (or split dedup over a base), then the output (output/).
 */
#define _GNU_SOURCE	/* strcasestr */
#include <errno.h>
#include <stddef.h>
#include <limits.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <dwarf.h>
#include <unistd.h>
#include <sys/stat.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "lib/grow.h"
#include "cu_queue.h"
#include "cache/batch_cache.h"
#include "merge/merge.h"
#include "input/debug_file.h"
#include "input/dwarf_layout.h"
#include "input/elf_file.h"
#include "output/btf_layout.h"
#include "output/distill.h"
#include "pipeline.h"
#include "cache/base_cache.h"
#include "merge/btf_dedup.h"
#include "merge/fwd_names.h"
#include "decide/funcs.h"
#include "explain/func_log.h"
#include "lib/log.h"
#include "output/output.h"
#include "stats.h"
#include "input/symtab.h"
#include "decide/vars.h"

/*
 * The types of each batch, deduplicated, in the first run.  A run made
 * again leaves some declarations to the final dedup (fwd_names.h); when
 * one of those names is reached from many types, a batch no longer
 * deduplicates them (each CU that only declares it keeps copies of its
 * own), and its dedups grow far beyond the first run's.  A batch of more
 * than twice its first size (and RERUN_SLACK types) ends such a run, and
 * the next is one dedup of everything (--plain-dedup): the same meaning,
 * at the memory of the input.  Sizes do not depend on -j, nor does this.
 */
#define RERUN_SLACK	1024

struct batch_sizes {
	uint32_t *n;
	size_t nr;
};

/* The consumer's side of the queue: batches arrive in CU order. */
struct consumer {
	struct merge_state m;
	const char *path;
	double busy;		/* seconds spent merging: one thread's */
	struct batch_sizes *sizes;		/* this run's, to fill */
	const struct batch_sizes *first;	/* to stay near; NULL: none */
	bool outgrown_hook;	/* test_hooks.h: rerun_outgrown */
	bool outgrown;		/* a batch outgrew first's: the run stopped */
};

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
		return -ECANCELED;	/* pipeline__run(): said nothing */
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

/* .debug_info below which one dedup does it all (see pipeline__run()) */
#define ONE_DEDUP_BELOW	(16u << 20)

/* A skeleton unit whose split unit libdw did not find: says what and where. */
static void skeleton__no_split(const char *path, Dwarf_Die *skel)
{
	Dwarf_Attribute attr;
	const char *name = NULL, *dir = NULL;
	char dwp[PATH_MAX];

	if (dwarf_attr(skel, DW_AT_dwo_name, &attr) ||
	    dwarf_attr(skel, DW_AT_GNU_dwo_name, &attr))
		name = dwarf_formstring(&attr);
	if (dwarf_attr(skel, DW_AT_comp_dir, &attr))
		dir = dwarf_formstring(&attr);
	if (snprintf(dwp, sizeof(dwp), "%s.dwp", path) < (int)sizeof(dwp) &&
	    !access(dwp, F_OK)) {
		/* libdw reads DWARF packages from 0.191 on */
		pr_err("%s: CU 0x%llx: split DWARF unit %s not found, and libdw %s cannot read the DWARF package %s (0.191 or later can)",
		       path, (unsigned long long)dwarf_dieoffset(skel),
		       name ? name : "(no DW_AT_dwo_name)",
		       dwfl_version(NULL), dwp);
		return;
	}
	pr_err("%s: CU 0x%llx: split DWARF unit %s not found (looked in %s and beside %s)",
	       path, (unsigned long long)dwarf_dieoffset(skel),
	       name ? name : "(no DW_AT_dwo_name)",
	       dir ? dir : "(no DW_AT_comp_dir)", path);
}

static int collect_cus(const char *path, Dwarf *dw,
		       const struct encode_env *env, Dwarf_Die **out,
		       size_t *nr, bool *split, struct dwarf_layout *layout)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Die *arr = NULL;
	size_t cap = 0, n = 0, dropped = 0;
	uint8_t unit_type;
	int ret;

	dwarf_layout__init(layout, dw);
	while ((ret = dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie,
				      &subdie)) == 0) {
		dwarf_layout__add_unit(layout, dw, dwarf_dieoffset(&cudie) -
					       dwarf_cuoffset(&cudie));
		if (unit_type == DW_UT_skeleton) {
			/* split DWARF: the unit is in a .dwo, libdw finds it */
			if (!subdie.cu) {
				skeleton__no_split(path, &cudie);
				free(arr);
				return -ENOENT;
			}
			cudie = subdie;
			*split = true;
		} else if (unit_type != DW_UT_compile) {
			/* dwz's partial units: read by the units importing them */
			continue;
		}
		if (grow_array((void **)&arr, &cap, n + 1, sizeof(*arr), 1024)) {
			free(arr);
			return -ENOMEM;
		}
		arr[n++] = cudie;
		cu_queue__drop_listed(env, &dropped, dwarf_dieoffset(&cudie),
				      false);
	}
	cu_queue__drop_listed(env, &dropped, env->debug_info_size, true);
	if (ret < 0) {
		pr_err("%s: cannot read DWARF units: %s", path, dwarf_errmsg(-1));
		free(arr);
		return -EINVAL;
	}
	*out = arr;
	*nr = n;
	return 0;
}

/*
 * Relocatable objects (.o, .ko) carry their DWARF's cross-section
 * references as relocations; libdwfl applies them (for every architecture
 * elfutils knows), libdw alone would read zeros.  Other files need none.
 */
static const Dwfl_Callbacks dwfl_offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct dwarf_input {
	Dwfl *dwfl;		/* relocatable input only */
	Dwarf *dw;
	bool in_memory;		/* DWARF from elf_file's copy, not a mapping */
	uint64_t *rel_addr;	/* by section index: libdwfl's address */
	size_t nr_rel_addr;
};

static void dwarf_input__close(struct dwarf_input *in);
static int dwarf_input__rel_addrs(struct dwarf_input *in, Dwfl_Module *mod);

static int dwarf_input__open(struct dwarf_input *in, const struct elf_file *ef)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	int err;

	memset(in, 0, sizeof(*in));
	if (ef->ehdr.e_type != ET_REL) {
		in->dw = dwarf_begin_elf(ef->elf, DWARF_C_READ, NULL);
		if (!in->dw)
			goto no_dwarf;
		return 0;
	}
	in->dwfl = dwfl_begin(&dwfl_offline_callbacks);
	if (!in->dwfl)
		return -ENOMEM;
	if (!ef->buf) {		/* elf_file reads relocatable files whole */
		dwarf_input__close(in);
		return -EINVAL;
	}
	in->in_memory = true;
	mod = dwfl_report_offline_memory(in->dwfl, ef->path, ef->path,
					 ef->buf, ef->size);
	dwfl_report_end(in->dwfl, NULL, NULL);
	in->dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (in->dw) {
		err = dwarf_input__rel_addrs(in, mod);
		if (err) {
			pr_err("%s: cannot read section addresses: %s",
			       ef->path, strerror(-err));
			dwarf_input__close(in);
			return err;
		}
	}
	if (!in->dw) {
		/* e.g. relocations of a machine elfutils does not know */
		const char *msg;

		err = dwfl_errno();
		msg = err ? dwfl_errmsg(err) : NULL;
		dwarf_input__close(in);
		if (msg && !strcasestr(msg, "no DWARF")) {
			pr_err("%s: cannot read DWARF: %s", ef->path, msg);
			return -ENODATA;
		}
		goto no_dwarf;
	}
	return 0;
no_dwarf:
	err = dwarf_errno();
	/* libdw's "no DWARF information" says nothing more than we do. */
	if (err && dwarf_errmsg(err) && !strcasestr(dwarf_errmsg(err), "no DWARF"))
		pr_err("%s: cannot read DWARF: %s", ef->path, dwarf_errmsg(err));
	else
		pr_err("%s: no DWARF debug info", ef->path);
	return -ENODATA;
}

static void dwarf_input__close(struct dwarf_input *in)
{
	if (in->dwfl)
		dwfl_end(in->dwfl);	/* owns in->dw */
	else if (in->dw)
		dwarf_end(in->dw);
	free(in->rel_addr);
	memset(in, 0, sizeof(*in));
}

/*
 * Where libdwfl placed each allocated section to relocate the DWARF
 * (offline, it lays a relocatable file out as it would load it).
 */
static int dwarf_input__rel_addrs(struct dwarf_input *in, Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	size_t n;
	GElf_Shdr sh;

	if (!elf || elf_getshdrnum(elf, &n))
		return -EINVAL;
	in->rel_addr = calloc(n ? n : 1, sizeof(*in->rel_addr));
	if (!in->rel_addr)
		return -ENOMEM;
	in->nr_rel_addr = n;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		size_t i = elf_ndxscn(scn);

		if (i < n && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC))
			in->rel_addr[i] = sh.sh_addr + bias;
	}
	return 0;
}

/* A mapped DWARF section the CU digests read (cu_digest.h). */
static void raw_section(struct dwarf_sects *s, const char *name,
			const void *p, size_t size)
{
	static const struct {
		const char *name;
		size_t ptr, size;
	} secs[] = {
#define SECT(n, f) { n, offsetof(struct dwarf_sects, f), \
		     offsetof(struct dwarf_sects, f##_size) }
		SECT(".debug_info", info), SECT(".debug_abbrev", abbrev),
		SECT(".debug_str", str), SECT(".debug_line_str", line_str),
		SECT(".debug_str_offsets", str_offsets),
		SECT(".debug_addr", addr), SECT(".debug_loc", loc),
		SECT(".debug_loclists", loclists),
#undef SECT
	};
	size_t i;

	for (i = 0; i < sizeof(secs) / sizeof(secs[0]); i++)
		if (!strcmp(name, secs[i].name)) {
			*(const void **)((char *)s + secs[i].ptr) = p;
			*(size_t *)((char *)s + secs[i].size) = size;
		}
}

/*
 * Where libdw reads .debug_info (libelf's bytes, or its decompressed or
 * relocated copy), and with @mapped: the mapped .debug_info and the
 * sections each CU reads only its own part of (location and range lists),
 * whose pages can be given back as CUs finish; nothing for sections libelf
 * had to copy (compressed).  @env comes zeroed.
 */
static void debug_sections(Dwarf *dw, bool mapped, struct encode_env *env)
{
	/* .debug_info first, then the ones of which a CU reads its part */
	static const char *const wanted[] = {
		".debug_info", ".debug_loclists", ".debug_rnglists",
		".debug_loc", ".debug_ranges",
	};
	Elf *elf = dwarf_getelf(dw);
	size_t file_size = 0, shstrndx, i, n = sizeof(wanted) / sizeof(wanted[0]);
	char *file = elf && mapped ? elf_rawfile(elf, &file_size) : NULL;
	Elf_Scn *scn = NULL;
	bool compressed = false;
	GElf_Shdr shdr;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &shdr))
			return;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (!name)
			continue;
		/* decompressing changes the Elf: no second libdw on it then */
		if (!strncmp(name, ".zdebug", 7) ||
		    (!strncmp(name, ".debug", 6) && (shdr.sh_flags & SHF_COMPRESSED)))
			compressed = true;
		if ((!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")) &&
		    (data = elf_getdata(scn, NULL)) && data->d_buf) {
			env->info_start = data->d_buf;
			env->info_end = env->info_start + data->d_size;
		}
		if (!strcmp(name, ".debug_str") &&
		    !(shdr.sh_flags & SHF_COMPRESSED) &&
		    (data = elf_getdata(scn, NULL)) && data->d_buf) {
			env->str_start = data->d_buf;
			env->str_size = data->d_size;
			/* up to its last NUL: every string read there ends */
			while (env->str_size &&
			       env->str_start[env->str_size - 1])
				env->str_size--;
		}
		if (!file || (shdr.sh_flags & SHF_COMPRESSED))
			continue;
		data = elf_getdata(scn, NULL);
		if (!data || !data->d_buf || (char *)data->d_buf < file ||
		    (char *)data->d_buf + data->d_size > file + file_size)
			continue;
		raw_section(&env->sects, name, data->d_buf, data->d_size);
		for (i = 0; i < n && strcmp(name, wanted[i]); i++)
			;
		if (i == n)
			continue;
		if (i == 0) {
			env->debug_info = data->d_buf;
			env->debug_info_size = data->d_size;
		} else if (env->nr_cu_side < ENCODE_CU_SIDE_MAX) {
			env->cu_side[env->nr_cu_side].p = data->d_buf;
			env->cu_side[env->nr_cu_side++].size = data->d_size;
		}
	}
	env->dwarf_reopen = env->debug_info && !compressed;
	if (!env->dwarf_reopen)
		memset(&env->sects, 0, sizeof(env->sects));
}

/*
 * In place, with distilled_base and a base: .BTF split over a distilled
 * base written to .BTF.base, as pahole does (raw output stays plain split
 * BTF, as pahole's does too).
 */
static int write_distilled(const char *path, struct btf *btf, size_t *size,
			   const struct test_hooks *hooks)
{
	struct output_section secs[2] = {
		{ .name = ".BTF" }, { .name = ".BTF.base" },
	};
	struct btf *dist = NULL, *split = NULL;
	char msg[160];
	__u32 sz[2];
	int err;

	err = btf_distill(btf, hooks && hooks->own_distill, &dist, &split, msg,
			  sizeof(msg));
	if (err) {
		pr_err("%s: cannot distill the base: %s", path,
		       *msg ? msg : strerror(-err));
		return err;
	}
	btf__set_endianness(dist, btf__endianness(btf));
	btf__set_endianness(split, btf__endianness(btf));
	secs[0].data = btf__raw_data(split, &sz[0]);
	secs[1].data = btf__raw_data(dist, &sz[1]);
	if (!secs[0].data || !secs[1].data) {
		pr_err("%s: cannot serialize BTF", path);
		err = -ENOMEM;
	} else {
		secs[0].size = sz[0];
		secs[1].size = sz[1];
		*size = sz[0] + sz[1];
		err = output__write_elf_sections(path, secs, 2, hooks);
	}
	btf__free(split);
	btf__free(dist);
	return err;
}

static int write_output(const char *path, const struct pipeline_opts *opts,
			struct btf *btf, size_t *size)
{
	void *with_layout = NULL;
	const void *data;
	uint32_t sz;
	int err;

	if (!opts->out_path && opts->enc.distilled_base && btf__base_btf(btf))
		return write_distilled(path, btf, size, opts->enc.hooks);
	data = btf__raw_data(btf, &sz);
	if (!data) {
		pr_err("%s: cannot serialize BTF", path);
		return -ENOMEM;
	}
	*size = sz;
	/* as pahole: split BTF shares its base's layout, has none itself */
	if (opts->enc.layout && !btf__base_btf(btf)) {
		err = btf_layout__add(data, sz, &with_layout, size);
		if (err) {
			pr_err("%s: cannot add the layout section: %s", path,
			       strerror(-err));
			return err;
		}
		data = with_layout;
	}
	if (opts->out_path)
		err = output__write_raw_batch(opts->out_path, data, *size,
					      opts->out_batch, opts->enc.hooks);
	else
		err = output__write_elf_section(path, ".BTF", data, *size,
						opts->enc.hooks);
	free(with_layout);
	return err;
}

int pipeline__prepare_base(struct btf *base)
{
	/*
	 * Our split dedup only reads the base (btf_dedup.c emits split BTF
	 * raw): libbpf's index of its strings, a copy of them all, is made
	 * only by distill.c's btf__add_type() (distilled_base, --relocate),
	 * in the thread that owns the base then.
	 */
	(void)base;
	return 0;
}

/*
 * *BTF (standalone, deduplicated) against the base: replaced by split BTF
 * holding what the base lacks.  A lone file indexes the base here; a batch
 * has done it once for all.
 */
static int pipeline__split_dedup(const struct pipeline_opts *opts,
				struct btf **btf, bool *base_hit)
{
	struct base_index *idx = NULL;
	struct btf_dedup *d = opts->split_dedup;
	struct btf *out;
	int err = 0;

	if (!d) {
		err = base_index__get(opts->base, opts->cache, &idx,
				      base_hit);
		if (err)
			return err;
		d = btf_dedup__new(idx);
		if (!d)
			err = -ENOMEM;
	}
	if (!err)
		err = btf_dedup__run(d, *btf, opts->base, NULL, 0, &out);
	if (!err)
		*btf = out;
	if (!opts->split_dedup) {
		btf_dedup__free(d);
		base_index__free(idx);
	}
	return err;
}

/*
 * The final dedup of standalone BTF: *@btf becomes the result.  It takes
 * over the scratch of @m's dedups rather than hold two.
 */
static int pipeline__dedup(struct merge_state *m, struct btf **btf)
{
	struct btf_dedup *d = m->dedup ? m->dedup : btf_dedup__new(NULL);
	struct btf *out;
	int err;

	m->dedup = NULL;
	if (!d)
		return -ENOMEM;
	btf_dedup__batch(d, NULL, NULL);	/* this one decides all */
	err = btf_dedup__run(d, *btf, NULL, NULL, 0, &out);
	btf_dedup__free(d);
	if (!err)
		*btf = out;
	return err;
}

/*
 * The dwz supplementary file @dw's DWARF refers to, opened into @alt and
 * @alt_dw and set as @dw's, ready for workers (dwarf_layout.h).
 */
static int pipeline__open_alt(const struct elf_file *src, Dwarf *dw,
			      const struct pipeline_opts *opts,
			      struct elf_file *alt, Dwarf **alt_dw)
{
	char *path = NULL;
	int err;

	err = debug_file__find_alt(src, opts->alt_file, opts->debug_root,
				   &path);
	if (!err)
		err = elf_file__open(alt, path);
	free(path);
	if (err)
		return err;
	*alt_dw = dwarf_begin_elf(alt->elf, DWARF_C_READ, NULL);
	if (!*alt_dw) {
		pr_err("%s: cannot read DWARF: %s", alt->path, dwarf_errmsg(-1));
		return -EINVAL;
	}
	dwarf_setalt(dw, *alt_dw);
	dwarf_layout__prewarm(*alt_dw);
	return 0;
}

/* Who hears of the function decisions of one run (pipeline_opts). */
struct hearing {
	FILE *verbose;			/* pahole's lines, until the run ends */
	const struct func_report *user;
};

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
}

/*
 * One run over PATH.  When a batch resolved a declaration whose name the
 * output defines twice, nothing is written and *CONFLICTS holds those
 * names (fwd_names.h).  With FIRST, a batch that outgrew its size there
 * stops the run: *OUTGROWN, and nothing said or written.
 */
static int pipeline__run_once(const char *path,
			      const struct pipeline_opts *opts,
			      struct stats *stp, struct key_set *conflicts,
			      struct batch_sizes *sizes,
			      const struct batch_sizes *first, bool *outgrown)
{
	struct consumer cons = {
		.path = path, .first = first,
		.outgrown_hook = opts->enc.hooks && opts->enc.hooks->rerun_outgrown,
	};
	struct merge_state *m = &cons.m;
	struct func_report rep;
	struct hearing hear = { 0 };
	char *verbose_buf = NULL;
	size_t verbose_len = 0;
	struct btf *btf = NULL;
	struct elf_symtab *syms = NULL;
	struct encode_env env;
	struct elf_file ef, dbg = { .fd = -1 }, alt = { .fd = -1 };
	Dwarf *alt_dw = NULL;
	const struct elf_file *src = &ef;	/* where the DWARF is */
	char *dbg_path = NULL;
	struct stats st = *stp;
	Dwarf_Die *cus = NULL;
	struct dwarf_input in = { 0 };
	struct dwarf_layout layout;
	Dwarf *dw;
	struct encode_opts enc;
	struct batch_cache *bcache = NULL;
	struct btf_concat *added = NULL;
	struct cu_queue *queue = NULL;	/* may still store: cu_queue__end() */
	struct cu_queue_counts qc = { 0 };
	size_t nr_cus = 0;
	bool split, split_units = false;
	int err, n;

	err = elf_file__open(&ef, path);
	if (err)
		return err;
	if (!elf_file__has_dwarf(&ef)) {
		/* stripped: DWARF and .symtab are in a separate debug file */
		err = debug_file__find(&ef, opts->debuginfo, opts->debug_root,
				       &dbg_path);
		if (!err)
			err = elf_file__open(&dbg, dbg_path);
		if (err)
			goto out;
		src = &dbg;
	}
	err = elf_symtab__new(src, &ef, &syms);
	if (err)
		goto out;
	err = dwarf_input__open(&in, src);
	if (err)
		goto out;
	dw = in.dw;
	memset(&env, 0, sizeof(env));
	debug_sections(dw, !in.in_memory, &env);
	err = collect_cus(path, dw, &env, &cus, &nr_cus, &split_units,
			  &layout);
	if (err)
		goto out;
	dwarf_layout__done(&layout, dw, !in.in_memory);
	if (layout.alt_forms) {
		err = pipeline__open_alt(src, dw, opts, &alt, &alt_dw);
		if (err)
			goto out;
	}
	if (split_units) {
		/* CUs are read from .dwo files: not by offsets of ours */
		env.dwarf_reopen = false;
		env.debug_info = NULL;
		env.nr_cu_side = 0;
	}
	if (layout.cross_units || layout.partial_units || layout.alt_forms) {
		/* CUs read each other's DIEs: one libdw for all, made ready */
		env.dwarf_reopen = false;
		dwarf_layout__prewarm(dw);
	}
	if (!nr_cus) {
		pr_err("%s: no DWARF compilation units", path);
		err = -ENODATA;
		goto out;
	}
	st.nr_cus = nr_cus;
	stats__phase_end(&st, PHASE_ELF);

	/*
	 * Batches already come deduplicated: dedup again per 512 Ki new types.
	 * Over a base, standalone BTF is merged without any dedup and
	 * btf_dedup.c does it all at the end, in the module's type order, as
	 * libbpf's split dedup would (its decisions depend on it).  Below
	 * ONE_DEDUP_BELOW of DWARF, one dedup of everything costs little
	 * memory, and it never runs twice (fwd_names.h).
	 */
	split = opts->base != NULL;
	enc = opts->enc;
	enc.defer_dedup = split;
	if (env.info_start &&
	    (size_t)(env.info_end - env.info_start) < ONE_DEDUP_BELOW &&
	    !(enc.hooks && enc.hooks->batch_dedup))
		enc.plain_dedup = true;
	err = merge_state__init(m, enc.plain_dedup || split ?
				UINT32_MAX : 1u << 19, src->ptr_size);
	if (err)
		goto out;
	m->keep_fwds = enc.keep_fwds;
	env.ef = src;
	env.syms = syms;
	env.opts = &enc;
	/* Pages of a file mapping can be dropped and read again; ours not. */
	env.rel_addr = in.rel_addr;
	env.nr_rel_addr = in.nr_rel_addr;
	st.nr_epochs = cu_queue__nr_epochs(&env, nr_cus);
	err = batch_cache__new(&env, opts->cache, cus, nr_cus, &bcache);
	if (err)
		goto out;
	env.batch_cache = bcache;
	enc.place_notes = bcache != NULL;
	if (sizes) {
		sizes->nr = (nr_cus + CU_BATCH - 1) / CU_BATCH;
		sizes->n = calloc(sizes->nr + 1, sizeof(*sizes->n));
		if (!sizes->n) {
			err = -ENOMEM;
			goto out;
		}
		cons.sizes = sizes;
	}
	err = cu_queue__run(&env, cus, nr_cus, opts->jobs,
			    pipeline__consume, &cons, &queue);
	*outgrown = cons.outgrown;
	st.batch_cache = bcache != NULL;
	st.nr_batches = (nr_cus + CU_BATCH - 1) / CU_BATCH;
	/* the merged types to read, and to add the decisions' to */
	if (!err && (err = merge_state__open(m, &added)))
		pr_err("%s: cannot merge BTF: %s", path, strerror(-err));
	btf = m->acc.btf;
	if (err)
		goto out;
	/*
	 * What libdw built while CUs were read (abbreviations, CU data) is
	 * not needed for the decisions, and the heap is returned to the
	 * kernel before they grow the BTF.
	 * Names point into our own mapping, which stays; a relocatable
	 * file's sections may belong to libdwfl, and .dwo files' to libdw,
	 * so those wait.
	 */
	if (!in.in_memory && !split_units) {
		dwarf_input__close(&in);
		if (alt_dw)
			dwarf_end(alt_dw);
		alt_dw = NULL;
		malloc_trim(0);
		/* read again only by the stores still going (their digests) */
		if (env.sects.str)
			elf_file__drop_pages(env.sects.str, env.sects.str_size);
		if (env.sects.abbrev)
			elf_file__drop_pages(env.sects.abbrev,
					     env.sects.abbrev_size);
	}
	stats__phase_end(&st, PHASE_ENCODE);
	st.merge_serial += cons.busy;

	st.nr_types_in = m->acc.nr_types_in;
	st.nr_func_cands = m->acc.nr_funcs;
	memset(&rep, 0, sizeof(rep));
	if (opts->report || opts->verbose) {
		hear.user = opts->report;
		if (opts->verbose &&
		    !(hear.verbose = open_memstream(&verbose_buf, &verbose_len))) {
			err = -ENOMEM;
			goto out;
		}
		rep.decided = pipeline__decided;
		rep.vars_noted = opts->report ? opts->report->vars_noted : NULL;
		rep.ctx = &hear;
	}
	n = funcs__emit(btf, added, syms, &opts->enc, m->acc.funcs,
			m->acc.nr_funcs, m->acc.params, m->acc.tags, &rep);
	memcpy(st.func_verdicts, rep.counts, sizeof(rep.counts));
	if (n < 0) {
		err = n;
		pr_err("%s: cannot encode functions: %s", path, strerror(-err));
		goto out;
	}
	st.nr_funcs = n;
	n = vars__emit(added, syms, m->acc.vars, m->acc.nr_vars, m->acc.tags);
	if (n < 0) {
		err = n;
		pr_err("%s: cannot encode variables: %s", path, strerror(-err));
		goto out;
	}
	st.nr_vars = n;
	if (rep.vars_noted)
		rep.vars_noted(opts->report->ctx, syms, m->acc.var_notes,
			       m->acc.nr_var_notes);
	err = merge_state__flush(m);
	btf = m->acc.btf;
	if (err) {
		pr_err("%s: cannot add functions and variables: %s", path,
		       strerror(-err));
		goto out;
	}
	stats__phase_end(&st, PHASE_FUNCS);

	err = split ? 0 : pipeline__dedup(m, &btf);
	if (!err && split) {
		stats__phase_end(&st, PHASE_DEDUP);
		err = pipeline__split_dedup(opts, &btf, &st.base_cached);
		if (!err)
			btf__set_pointer_size(btf, ef.ptr_size);
	}
	if (err) {
		pr_err("%s: BTF dedup failed: %s", path, err == -ELOOP ?
		       "types nested too deeply" : strerror(-err));
		goto out;
	}
	n = split ? 0 : fwd_names__conflicts(&m->acc.fwd_names, btf, conflicts);
	if (n) {
		err = n < 0 ? n : 0;
		if (err)
			pr_err("%s: %s", path, strerror(-err));
		stats__phase_end(&st, PHASE_DEDUP);
		goto out;
	}
	st.nr_types = btf__type_cnt(btf) -
		      (btf__base_btf(btf) ? btf__type_cnt(btf__base_btf(btf)) : 1);
	stats__phase_end(&st, split ? PHASE_BASE : PHASE_DEDUP);

	if (ef.big_endian)
		btf__set_endianness(btf, BTF_BIG_ENDIAN);
	err = opts->dry_run ? 0 : write_output(path, opts, btf, &st.out_bytes);
	/* this run's lines, at once: a run made again said them again */
	if (!err && hear.verbose && !fflush(hear.verbose))
		fwrite(verbose_buf, 1, verbose_len, stdout);
	stats__phase_end(&st, PHASE_WRITE);
	/* written: the BTF goes before waiting for the stores still going */
	if (btf != m->acc.btf)
		btf__free(btf);
	btf = NULL;
	merge_state__free(m);
	cu_queue__end(queue, err != 0, &qc);
	queue = NULL;
	pipeline__cache_counts(&st, &qc);
	stats__phase_end(&st, PHASE_STORES);
	if (!err && opts->stats)
		stats__print(&st, stderr);
	if (opts->stats_out)
		*opts->stats_out = st;
out:
	/*
	 * Before what the workers may still read goes.  A run made again
	 * (conflicts) stores this one's batches as a run without them would.
	 */
	if (queue) {
		cu_queue__end(queue, err != 0, &qc);
		pipeline__cache_counts(&st, &qc);
	}
	*stp = st;
	if (hear.verbose)
		fclose(hear.verbose);
	free(verbose_buf);
	if (btf != m->acc.btf)
		btf__free(btf);	/* split_dedup's output */
	merge_state__free(m);
	batch_cache__free(bcache);
	free(cus);
	dwarf_input__close(&in);
	if (alt_dw)
		dwarf_end(alt_dw);
	elf_symtab__free(syms);
	elf_file__close(&alt);
	elf_file__close(&dbg);
	free(dbg_path);
	elf_file__close(&ef);
	return err;
}

/* Runs again at most this often before batches take no decision at all */
#define MAX_RUNS	3

int pipeline__run(const char *path, const struct pipeline_opts *opts)
{
	struct key_set keep = { 0 }, conflicts = { 0 };
	struct batch_sizes first = { 0 };
	struct pipeline_opts o = *opts;
	struct stats st;
	int err;

	stats__start(&st);
	st.jobs = opts->jobs;
	o.enc.keep_fwds = &keep;
	for (;;) {
		bool again = st.nr_reruns && !o.enc.plain_dedup;
		bool outgrown = false;

		err = pipeline__run_once(path, &o, &st, &conflicts,
					 st.nr_reruns ? NULL : &first,
					 again ? &first : NULL, &outgrown);
		if (outgrown) {
			/* its batches outgrew the first run's (batch_sizes) */
			if (opts->report && opts->report->rerun)
				opts->report->rerun(opts->report->ctx);
			o.enc.plain_dedup = true;
			st.nr_reruns++;
			st.rerun_outgrown = true;
			continue;
		}
		if (err || !conflicts.nr)
			break;
		/* those names go to the final dedup, as with one dedup */
		if (opts->report && opts->report->rerun)
			opts->report->rerun(opts->report->ctx);
		err = key_set__add_all(&keep, &conflicts);
		if (err)
			break;
		key_set__sort(&keep);
		if (++st.nr_reruns + 1 >= MAX_RUNS)
			o.enc.plain_dedup = true;
	}
	key_set__free(&keep);
	key_set__free(&conflicts);
	free(first.n);
	return err;
}
