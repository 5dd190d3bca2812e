/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `dwarf2btf explain` says, for each function asked about, whether it is
 * in the BTF and, if not, why, with the evidence a person needs to act on
 * it: the prototypes that disagree and the CUs they come from, the
 * parameter and where the DWARF puts it, the ELF symbols and their
 * addresses, the packed struct passed by value.  A name that is a
 * variable gets the same: each top-level DW_TAG_variable of that name, a
 * VAR or why not.  All this is collected from the decisions as they are
 * taken (a func_report), and printed as text or JSON afterwards.
 */
#ifndef DWARF2BTF_EXPLAIN_H
#define DWARF2BTF_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "decide/funcs.h"

struct explain_opts {
	const char *path;	/* The input, for the output's heading. */
	int machine;		/* Its e_machine, which names registers. */
	bool all;		/* Explain every function left out. */
	bool json;
	char **names;		/* The functions asked about. */
	size_t nr_names;
};

struct explain;

struct explain *explain__new(const struct explain_opts *opts);
void explain__free(struct explain *e);
/*
 * explain__report() returns what the pipeline must be given
 * (pipeline_opts.report).
 */
const struct func_report *explain__report(struct explain *e);
/*
 * explain__print() prints what was collected, then the names asked about
 * that are neither functions nor variables of the input, and COUNTS
 * (functions per enum func_verdict).  It returns the number of those
 * names, or -errno.
 */
int explain__print(struct explain *e, FILE *f, const size_t *counts);

#endif
