/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The whole pipeline for one input file: ELF + symbol index -> per-CU
 * fragments (in parallel) -> merge in CU order -> function and variable
 * decisions -> dedup -> output.
 */
#ifndef DWARF2BTF_PIPELINE_H
#define DWARF2BTF_PIPELINE_H

#include <stdbool.h>

#include "lib/encode_opts.h"

struct btf;
struct btf_dedup;
struct cache_dir;
struct func_report;
struct stats;
struct write_set;

struct pipeline_opts {
	struct encode_opts enc;
	int jobs;
	const char *out_path;	/* raw BTF here; NULL: .BTF section in place */
	/* a stripped input's debug file (debug_file.h); NULL: search */
	const char *debuginfo;
	const char *debug_root;	/* NULL: DEBUG_FILE_ROOT */
	const char *alt_file;	/* dwz's supplementary file; NULL: search */
	bool stats;
	bool dry_run;		/* decide everything, write nothing */
	/*
	 * Split BTF over this base (a vmlinux's, for modules): types it has
	 * are referred to, not repeated.  Read-only while encoding; call
	 * pipeline__prepare_base() once before sharing it between threads.
	 */
	struct btf *base;
	/* scratch for matching types against an indexed base; NULL: own */
	struct btf_dedup *split_dedup;
	struct stats *stats_out;	/* a batch's: this file's stats go here */
	/* what later runs reuse (cache/cache_dir.h); NULL: no cache */
	const struct cache_dir *cache;
	bool verbose;		/* pahole's lines for functions left out */
	/* told of each function decision (decide/funcs.h); NULL: none */
	const struct func_report *report;
	struct write_set *writes;	/* raw outputs renamed all at once */
};

int pipeline__prepare_base(struct btf *base);

int pipeline__run(const char *path, const struct pipeline_opts *opts);

#endif
