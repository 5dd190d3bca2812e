/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A file set is many inputs in one run, such as a kernel's modules over
 * its vmlinux.  The base is read once, and whole files are encoded in
 * parallel, each exactly as a run on that file alone would encode it.
 */
#ifndef DWARF2BTF_FILE_SET_H
#define DWARF2BTF_FILE_SET_H

#include "pipeline.h"

/*
 * file_set__run() encodes @files[0..@nr) with @opts->jobs files at a time.
 * With @out_dir, FILE's BTF goes to OUT_DIR/NAME.btf, NAME being FILE's
 * name without its .ko or .o suffix; without it, each FILE's .BTF section
 * is updated in place.  A file that fails is reported and the others go
 * on.  It returns the number of files that failed, or -errno when the run
 * itself could not start.
 */
int file_set__run(char *const *files, int nr, const struct pipeline_opts *opts,
	       const char *out_dir);

#endif
