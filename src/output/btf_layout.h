/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The BTF layout section (pahole's layout feature) is a table, between the
 * types and the strings, of how large each kind's data after struct
 * btf_type is, so that a reader can skip kinds it does not know.  The
 * header grows by layout_off and layout_len.  Debian's libbpf 1.1 cannot
 * write it, so it is added to the raw BTF here.
 */
#ifndef DWARF2BTF_BTF_LAYOUT_H
#define DWARF2BTF_BTF_LAYOUT_H

#include <stddef.h>

/*
 * btf_layout__add() makes a copy of RAW (SIZE bytes of standalone BTF, in
 * either byte order) with a layout section, in *OUT (to be freed) of
 * *OUT_SIZE bytes.  It returns 0 or a negative errno.
 */
int btf_layout__add(const void *raw, size_t size, void **out,
		    size_t *out_size);

#endif
