/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BTF of one input is written where the options say: raw to a file
 * (alone or in a write set), or as the input's .BTF section, over a
 * distilled .BTF.base when asked.  Standalone BTF gets its layout section
 * first.
 */
#ifndef DWARF2BTF_WRITE_BTF_H
#define DWARF2BTF_WRITE_BTF_H

#include <stddef.h>

#include "lib/encode_opts.h"

struct btf;
struct out_precopy;
struct write_set;

/*
 * output__write_btf() writes @btf, of the input @path, raw to @out_path
 * (through @ws when a write set commits it, output.h), or, with @out_path
 * NULL, into @path's .BTF section, taking @pre's copy of @path where it
 * can (out_precopy.h; NULL: none).  @enc says whether a layout section or
 * a distilled base goes with it, and gives the test hooks.  *@size gets
 * the bytes of BTF written.  It returns 0, or a negative errno after
 * saying why.
 */
int output__write_btf(const char *path, const char *out_path,
		      struct write_set *ws, struct out_precopy *pre,
		      const struct encode_opts *enc, struct btf *btf,
		      size_t *size);

/*
 * output__write_btf_bytes() writes the @sz bytes of raw BTF at @data as
 * they are, where output__write_btf() would: for split BTF that the
 * split dedup made (no layout section goes with split BTF).
 */
int output__write_btf_bytes(const char *path, const char *out_path,
			    struct write_set *ws, struct out_precopy *pre,
			    const struct encode_opts *enc, const void *data,
			    size_t sz, size_t *size);

#endif
