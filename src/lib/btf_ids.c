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
