/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BTF of one input written where the options say: raw to a file
 * (alone or in a batch), or as the input's .BTF section, over a distilled
 * .BTF.base when asked; standalone BTF gets its layout section first.
 */
#ifndef DWARF2BTF_WRITE_BTF_H
#define DWARF2BTF_WRITE_BTF_H

#include <stddef.h>

#include "lib/encode_opts.h"

struct btf;
struct output_batch;

/*
 * @btf, of the input @path, written raw to @out_path (through @ob when a
 * batch commits it: output.h), or with @out_path NULL into @path's .BTF
 * section.  @enc says whether a layout section or a distilled base goes
 * with it, and its test hooks.  *@size: the bytes of BTF written.  0, or a
 * negative errno having said why.
 */
int output__write_btf(const char *path, const char *out_path,
		      struct output_batch *ob, const struct encode_opts *enc,
		      struct btf *btf, size_t *size);

#endif
