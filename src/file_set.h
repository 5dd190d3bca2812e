/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Many inputs in one run (a kernel's modules over its vmlinux): the base is
 * read once, and whole files are encoded in parallel, each exactly as a
 * run on that file alone would encode it.
 */
#ifndef DWARF2BTF_FILE_SET_H
#define DWARF2BTF_FILE_SET_H

#include "pipeline.h"

/*
 * Encode @files[0..@nr) with @opts->jobs files at a time.  With @out_dir,
 * FILE's BTF goes to OUT_DIR/NAME.btf (NAME: FILE's name without its
 * .ko/.o suffix); without, each FILE's .BTF section is updated in place.
 * A file that fails is reported and the others go on.  Returns the number
 * of files that failed, or -errno when the run itself could not start.
 */
int file_set__run(char *const *files, int nr, const struct pipeline_opts *opts,
	       const char *out_dir);

#endif
