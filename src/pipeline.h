/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pipeline takes one input file through every stage: the ELF and its
 * symbol index, then per-CU fragments (in parallel), the merge in CU
 * order, the function and variable decisions, the dedup, and the output.
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
	/*
	 * Raw BTF is written to out_path; when it is NULL, a .BTF section is
	 * added to the input in place.
	 */
	const char *out_path;
	/* This is a stripped input's debug file (debug_file.h), or NULL. */
	const char *debuginfo;
	const char *debug_root;	/* NULL means DEBUG_FILE_ROOT. */
	/* This is dwz's supplementary file; NULL means it is searched for. */
	const char *alt_file;
	bool stats;
	bool dry_run;		/* Decide everything, but write nothing. */
	/*
	 * Split BTF over this base (a vmlinux's, for modules): types it has
	 * are referred to, not repeated.  Read-only while encoding; call
	 * pipeline__prepare_base() once before sharing it between threads.
	 */
	struct btf *base;
	/*
	 * The base read in place (btf_view.h), set whenever there is a base;
	 * base may then be NULL, and a run that needs libbpf's BTF of the
	 * base reads it from base_path (a module's process mostly does not).
	 */
	const struct btf_view *base_view;
	const char *base_path;
	/*
	 * This is the scratch memory for matching types against an indexed
	 * base, shared by a file set's files; when it is NULL, the run makes
	 * its own.
	 */
	struct btf_dedup *split_dedup;
	/* A file set's file stats are copied here. */
	struct stats *stats_out;
	/* What later runs reuse (cache/cache_dir.h); NULL means no cache. */
	const struct cache_dir *cache;
	bool verbose;		/* pahole's lines for functions left out. */
	/* It is told of each function decision (decide/funcs.h), or NULL. */
	const struct func_report *report;
	/* Raw outputs are collected here and renamed all at once. */
	struct write_set *writes;
};

/* This must be called once on a base before threads share it. */
int pipeline__prepare_base(struct btf *base);

/*
 * pipeline__run() encodes the BTF of the file at @path and writes it, as
 * @opts says.  It returns 0 or a negative errno.
 */
int pipeline__run(const char *path, const struct pipeline_opts *opts);

#endif
