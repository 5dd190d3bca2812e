// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file adds the BTF layout section to raw BTF (btf_layout.h).  The
 * new header and the table are built by hand, because the system's libbpf
 * cannot write them.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>

#include "output/btf_layout.h"

/*
 * This is the BTF header with the layout fields (uapi linux/btf.h since
 * 6.19), which the system's linux/btf.h may not have.
 */
struct btf_header_layout {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t type_off;
	uint32_t type_len;
	uint32_t str_off;
	uint32_t str_len;
	uint32_t layout_off;
	uint32_t layout_len;
};

/* A layout entry says how large one kind's data after struct btf_type is. */
struct btf_layout_ent {
	uint8_t info_sz;	/* The data after struct btf_type, once. */
	uint8_t elem_sz;	/* The data after it per btf_vlen() element. */
	uint16_t flags;
};

/*
 * The table covers kinds 0 (void) to 19 (ENUM64), which are the kinds we
 * write; kinds without extra data keep zero entries.
 */
static const struct btf_layout_ent layouts[] = {
	[BTF_KIND_INT] = { sizeof(uint32_t), 0, 0 },
	[BTF_KIND_ARRAY] = { sizeof(struct btf_array), 0, 0 },
	[BTF_KIND_STRUCT] = { 0, sizeof(struct btf_member), 0 },
	[BTF_KIND_UNION] = { 0, sizeof(struct btf_member), 0 },
	[BTF_KIND_ENUM] = { 0, sizeof(struct btf_enum), 0 },
	[BTF_KIND_FUNC_PROTO] = { 0, sizeof(struct btf_param), 0 },
	[BTF_KIND_VAR] = { sizeof(struct btf_var), 0, 0 },
	[BTF_KIND_DATASEC] = { 0, sizeof(struct btf_var_secinfo), 0 },
	[BTF_KIND_DECL_TAG] = { sizeof(struct btf_decl_tag), 0, 0 },
	[BTF_KIND_ENUM64] = { 0, sizeof(struct btf_enum64), 0 },
};

/* get32() converts a u32 between the BTF's byte order and ours. */
static uint32_t get32(uint32_t v, bool swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

/*
 * btf_layout__add() checks the header of @raw, then copies the types, the
 * layout table and the strings, in that order, after a new header.  The
 * header's fields are written in the BTF's byte order.
 */
int btf_layout__add(const void *raw, size_t size, void **out,
		    size_t *out_size)
{
	struct btf_header_layout h = { 0 };
	const struct btf_header *in = raw;
	uint32_t hdr_len, type_off, type_len, str_off, str_len, layout_len;
	unsigned char *buf, *p;
	bool swap;

	if (size < sizeof(*in))
		return -EINVAL;
	swap = in->magic != BTF_MAGIC;
	if (swap && in->magic != __builtin_bswap16(BTF_MAGIC))
		return -EINVAL;
	hdr_len = get32(in->hdr_len, swap);
	type_off = get32(in->type_off, swap);
	type_len = get32(in->type_len, swap);
	str_off = get32(in->str_off, swap);
	str_len = get32(in->str_len, swap);
	if (hdr_len != sizeof(*in) || (uint64_t)hdr_len + type_off + type_len > size ||
	    (uint64_t)hdr_len + str_off + str_len > size || type_len % 4)
		return -EINVAL;

	layout_len = sizeof(layouts);
	*out_size = sizeof(h) + type_len + layout_len + str_len;
	buf = calloc(1, *out_size);
	if (!buf)
		return -ENOMEM;
	h.magic = in->magic;
	h.version = in->version;
	h.flags = in->flags;
	h.hdr_len = get32(sizeof(h), swap);
	h.type_off = 0;
	h.type_len = get32(type_len, swap);
	h.layout_off = get32(type_len, swap);
	h.layout_len = get32(layout_len, swap);
	h.str_off = get32(type_len + layout_len, swap);
	h.str_len = get32(str_len, swap);
	p = buf;
	memcpy(p, &h, sizeof(h));
	p += sizeof(h);
	memcpy(p, (const char *)raw + hdr_len + type_off, type_len);
	p += type_len;
	/*
	 * The table is single bytes and flags that are 0, so it is the same
	 * in either byte order.
	 */
	memcpy(p, layouts, layout_len);
	p += layout_len;
	memcpy(p, (const char *)raw + hdr_len + str_off, str_len);
	*out = buf;
	return 0;
}
