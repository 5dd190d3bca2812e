// SPDX-License-Identifier: GPL-2.0-only
/* A read-only view of whole BTF where it is (btf_view.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/btf_ids.h"
#include "lib/btf_view.h"
#include "lib/hash.h"

/* libbpf's limit on string offsets. */
#define VIEW_MAX_STR	0x7fffffffu

/*
 * Indexes the records of the type section (btf_records__index(): kinds
 * libbpf 1.1 knows, records in bounds) and checks, in the same walk, that
 * every type id they hold is one of theirs and every name offset one of
 * the strings.  The offsets are allocated for the most records the
 * section could hold (12 bytes each, so fewer than libbpf's 2^31 ids)
 * rather than grown: the pages not written to are never touched.
 * Returns 0, -EINVAL or -ENOMEM.
 */
static int btf_view__index(struct btf_view *v)
{
	size_t room = v->types_len / sizeof(struct btf_type);
	struct btf_refs_max refs = { 0 };
	long n;

	v->offs = malloc((room + 1) * sizeof(*v->offs));
	if (!v->offs)
		return -ENOMEM;
	v->offs[0] = 0;
	n = btf_records__index(v->types, v->types_len, room, NULL, v->offs,
			       1, 0, &refs);
	if (n < 0 || refs.bad_component || refs.id > (uint64_t)n ||
	    refs.name >= v->str_len)
		return -EINVAL;
	v->nr = n + 1;
	return 0;
}

int btf_view__from_raw(struct btf_view *v, const void *raw, size_t size)
{
	const unsigned char *b = raw;
	struct btf_header h;
	uint32_t w[2] = { 0, 0 };
	uint64_t types_end;
	int err;

	memset(v, 0, sizeof(*v));
	if (size < sizeof(h) || size > UINT32_MAX || (uintptr_t)raw % 4)
		return -EINVAL;
	memcpy(&h, b, sizeof(h));
	if (h.magic != BTF_MAGIC || h.version != BTF_VERSION || h.flags ||
	    (h.hdr_len != sizeof(h) && h.hdr_len != sizeof(h) + 8) ||
	    h.hdr_len > size || h.type_off % 4 || h.type_len % 4)
		return -EINVAL;
	/*
	 * A 32-byte header is the layout feature's: its two more words name
	 * a section between the types and the strings, which the view skips.
	 */
	if (h.hdr_len > sizeof(h)) {
		memcpy(w, b + sizeof(h), sizeof(w));
		if ((w[0] || w[1]) &&
		    ((uint64_t)w[0] + w[1] > h.str_off ||
		     w[0] < (uint64_t)h.type_off + h.type_len))
			return -EINVAL;
	}
	types_end = (uint64_t)h.type_off + h.type_len;
	if (types_end > h.str_off ||
	    (uint64_t)h.hdr_len + h.str_off + h.str_len > size ||
	    !h.str_len || h.str_len - 1 > VIEW_MAX_STR)
		return -EINVAL;
	v->types = b + h.hdr_len + h.type_off;
	v->types_len = h.type_len;
	v->strs = (const char *)b + h.hdr_len + h.str_off;
	v->str_len = h.str_len;
	if (v->strs[0] || v->strs[v->str_len - 1])
		return -EINVAL;
	err = btf_view__index(v);
	if (err)
		btf_view__free(v);
	return err;
}

int btf_view__from_btf(struct btf_view *v, const struct btf *btf)
{
	uint32_t id, n = btf__type_cnt(btf);
	const unsigned char *first = NULL;
	const struct btf_header *h;
	const char *strs;
	const void *raw;
	unsigned char *own;
	uint32_t size;

	memset(v, 0, sizeof(*v));
	raw = btf__raw_data(btf, &size);
	if (!raw || size < sizeof(*h) || btf__base_btf(btf))
		return -EINVAL;
	h = raw;
	/* libbpf keeps the types and strings in the host's order. */
	v->str_len = h->magic == BTF_MAGIC ? h->str_len :
		     __builtin_bswap32(h->str_len);
	strs = btf__name_by_offset(btf, 0);
	v->offs = malloc(n * sizeof(*v->offs));
	if (!strs || !v->offs) {
		btf_view__free(v);
		return -ENOMEM;
	}
	v->nr = n;
	v->offs[0] = 0;
	/* libbpf keeps a BTF's types in one buffer, in id order. */
	if (n > 1)
		first = (const unsigned char *)btf__type_by_id(btf, 1);
	for (id = 1; id < n; id++)
		v->offs[id] = (const unsigned char *)btf__type_by_id(btf, id) -
			      first;
	if (n > 1)
		v->types_len = v->offs[n - 1] +
			       btf_type__size(btf__type_by_id(btf, n - 1));
	/*
	 * The view has its own copy: libbpf moves a BTF's data when it
	 * makes it modifiable, which it does even to look a string up.
	 */
	own = malloc((size_t)v->types_len + v->str_len + 1);
	if (!own) {
		btf_view__free(v);
		return -ENOMEM;
	}
	if (v->types_len)
		memcpy(own, first, v->types_len);
	memcpy(own + v->types_len, strs, v->str_len);
	v->own = own;
	v->types = own;
	v->strs = (const char *)own + v->types_len;
	return 0;
}

void btf_view__free(struct btf_view *v)
{
	free(v->offs);
	free(v->own);
	if (v->map)
		munmap(v->map, v->map_len);
	memset(v, 0, sizeof(*v));
}

uint64_t btf_view__hash(const struct btf_view *v)
{
	uint64_t a = hash_bytes(v->types, v->types_len);
	uint64_t b = hash_bytes(v->strs, v->str_len);

	return (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull ^
	       (b >> 17);
}
