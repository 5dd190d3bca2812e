// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: a cache entry of a base index (cache/base_cache.c) as
 * the next process maps it.  The header's key, sizes and type count are
 * set to those of this harness's base, and the checksum is not checked,
 * so that what the fuzzer changes reaches the checks of the counts,
 * offsets and indices; an entry let through is then read everywhere a
 * dedup reads it.
 *
 * FUZZ_CACHE_SEED=DIR ./fuzz_cache writes a valid entry (the seed) to DIR.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cache/base_cache.h"
#include "cache/cache_dir.h"
#include "lib/btf_view.h"
#include "lib/hash.h"
#include "merge/dedup_hash.h"

static struct btf *base;
static struct btf_view view;

static struct btf *make_base(void)
{
	struct btf *b = btf__new_empty();
	int i, s, p;

	if (!b)
		return NULL;
	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	s = btf__add_struct(b, "list_head", 16);
	p = btf__add_ptr(b, s);
	btf__add_field(b, "next", p, 0, 0);
	btf__add_field(b, "prev", p, 64, 0);
	btf__add_fwd(b, "file", BTF_FWD_STRUCT);
	btf__add_typedef(b, "u32", i);
	btf__add_enum(b, "mode", 4);
	btf__add_enum_value(b, "MODE_A", 1);
	return b;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *seed = getenv("FUZZ_CACHE_SEED");
	struct cache_dir c = { 0 };
	struct base_index *idx;

	(void)argc;
	(void)argv;
	base = make_base();
	if (!base || btf_view__from_btf(&view, base))
		abort();
	if (seed) {
		cache_dir__init(&c, seed, NULL, NULL, NULL, false, 0);
		if (base_index__get(&view, &c, &idx, NULL))
			exit(1);
		base_index__free(idx);
		cache_dir__free(&c);
		exit(0);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct base_cache_hdr *h;
	struct base_index *idx;
	uint32_t id;
	uint64_t *buf;
	size_t words = (size + 7) / 8;
	int k;

	buf = calloc(words ? words : 1, 8);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (size >= sizeof(*h)) {
		h = (struct base_cache_hdr *)buf;
		memcpy(h->magic, BASE_CACHE_MAGIC, 8);
		h->version = BASE_CACHE_VERSION;
		h->hdr_size = sizeof(*h);
		h->key = btf_view__hash(&view);
		h->base_size = (uint64_t)view.types_len + view.str_len;
		h->file_size = size;
		h->nr = btf__type_cnt(base);
	}
	idx = base_cache__read(&view, buf, size, false);
	if (idx) {
		/* The base's own names, all through its BTF. */
		struct dedup_strs strs = { .btf = base };

		/* what a module's dedup reads of it */
		for (id = 1; id < idx->nr; id++) {
			const struct btf_type *t = btf__type_by_id(base, id);
			uint64_t hh;
			uint32_t c;

			if (dedup_hash__type(&strs, t, &hh))
				for (c = id_chains__next(&idx->types, hh, 0), k = 0;
				     c && k < 64; c = id_chains__next(&idx->types, hh, c), k++)
					(void)btf__type_by_id(base, c);
			hh = dedup_hash__name(&strs, t->name_off);
			for (c = id_chains__next(&idx->names, hh, 0), k = 0;
			     c && k < 64; c = id_chains__next(&idx->names, hh, c), k++)
				(void)btf__type_by_id(base, c);
			(void)base_index__str_off(idx, btf__name_by_offset(base, t->name_off));
			(void)base_index__parity(idx, id);
		}
		(void)base_index__str_off(idx, "not there");
		base_index__free(idx);
	}
	free(buf);
	return 0;
}
