// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <bpf/btf.h>

#include "lib/btf_ids.h"

/*
 * Returns type ID of BTF without const.  The cast is made in this one
 * place; btf_ids.h says why writing through it is safe.
 */
struct btf_type *btf_mut_type(const struct btf *btf, uint32_t id)
{
	return (struct btf_type *)btf__type_by_id(btf, id);
}

long btf_records__index(const unsigned char *p, size_t len, size_t room,
			struct btf_type **types, uint32_t *offs, size_t at,
			size_t start)
{
	size_t n = 0, off = 0, size;

	while (off < len) {
		const struct btf_type *t = (const void *)(p + off);

		if (len - off < sizeof(*t) || n == room ||
		    btf_kind(t) == BTF_KIND_UNKN ||
		    btf_kind(t) > BTF_KIND_ENUM64)
			return -1;
		size = btf_type__size(t);
		if (size > len - off)
			return -1;
		if (types)
			types[at + n] = (struct btf_type *)(p + off);
		else if (offs)
			offs[at + n] = start + off;
		n++;
		off += size;
	}
	return n;
}
