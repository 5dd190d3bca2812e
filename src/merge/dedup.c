// SPDX-License-Identifier: GPL-2.0-only
/*
 * libbpf's btf__dedup() renumbers types but does not say how.  It does,
 * by its documented contract, rewrite the type ids of a .BTF.ext passed
 * along, so the ids we hold (candidate prototypes' types, variables'
 * types) travel through it as the type ids of synthetic func_info records.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "merge/dedup.h"
#include "lib/libbpf_compat.h"

/*
 * libbpf 1.1 exports the accessor as btf_ext__get_raw_data(), later
 * releases as btf_ext__raw_data() (libbpf_compat.h): whichever is there.
 */
bool dedup__can_track(void)
{
	return btf_ext__raw_data || btf_ext__get_raw_data;
}

static const void *ext_raw_data(const struct btf_ext *ext, __u32 *size)
{
	if (btf_ext__raw_data)
		return btf_ext__raw_data(ext, size);
	return btf_ext__get_raw_data(ext, size);
}

/* The .BTF.ext layout (include/uapi/linux/btf.h has no definition of it). */
struct ext_header {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t func_info_off;
	uint32_t func_info_len;
	uint32_t line_info_off;
	uint32_t line_info_len;
};

struct ext_rec {
	uint32_t insn_off;
	uint32_t type_id;
};

int dedup__run(struct btf *btf, uint32_t *const *ids, size_t nr)
{
	LIBBPF_OPTS(btf_dedup_opts, opts);
	struct ext_header *hdr;
	struct btf_ext *ext = NULL;
	const unsigned char *raw;
	unsigned char *buf;
	struct ext_rec *rec;
	size_t size, i;
	uint32_t *u, raw_size;
	int err;

	if (!nr)
		return btf__dedup(btf, NULL);
	if (!dedup__can_track())
		return -EOPNOTSUPP;
	if (nr > (UINT32_MAX - 64) / sizeof(*rec))
		return -E2BIG;
	/* header, rec_size, one section {name_off, num_info}, records */
	size = sizeof(*hdr) + 3 * sizeof(uint32_t) + nr * sizeof(*rec);
	buf = calloc(1, size);
	if (!buf)
		return -ENOMEM;
	hdr = (struct ext_header *)buf;
	hdr->magic = 0xeB9F;
	hdr->version = 1;
	hdr->hdr_len = sizeof(*hdr);
	hdr->func_info_off = 0;
	hdr->func_info_len = size - sizeof(*hdr);
	hdr->line_info_off = hdr->func_info_len;
	hdr->line_info_len = 0;
	u = (uint32_t *)(buf + sizeof(*hdr));
	u[0] = sizeof(*rec);
	u[1] = 0;		/* section name: "" */
	u[2] = nr;
	rec = (struct ext_rec *)&u[3];
	for (i = 0; i < nr; i++) {
		rec[i].insn_off = i * 8;
		rec[i].type_id = *ids[i];
	}
	ext = btf_ext__new(buf, size);
	free(buf);
	if (!ext)
		return -errno ? -errno : -EINVAL;

	opts.btf_ext = ext;
	err = btf__dedup(btf, &opts);
	if (err)
		goto out;
	raw = ext_raw_data(ext, &raw_size);
	if (!raw || raw_size != size) {
		err = -EINVAL;
		goto out;
	}
	rec = (struct ext_rec *)(raw + sizeof(*hdr) + 3 * sizeof(uint32_t));
	for (i = 0; i < nr; i++)
		*ids[i] = rec[i].type_id;
out:
	btf_ext__free(ext);
	return err;
}
