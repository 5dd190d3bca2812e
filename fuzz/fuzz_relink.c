// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: a batch cache entry (cache/batch_cache.c) as a run over
 * FUZZ_RELINK_ELF (default fuzz/corpus/encode/relink-gcc-5, from the
 * build directory) reads it.  The harness digests that file's CUs as a
 * batch would; the header's key, sizes and CU count are set to match and
 * the checksum is not checked, so that what the fuzzer changes reaches the
 * checks of counts, offsets, strings and indices, and the placing of
 * variables again.  A fragment let through is merged as the consumer
 * would.
 *
 * The seed (fuzz/corpus/relink/) is that file's first batch as stored:
 * DWARF2BTF_BATCH_DEDUP=1 dwarf2btf --cache-dir DIR ELF.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "cache/batch_cache.h"
#include "input/elf_file.h"
#include "input/symtab.h"
#include "merge/merge.h"

static struct elf_file ef;
static struct elf_symtab *syms;
/* as the seed was stored: the default features */
static struct encode_opts opts = { .encode_vars = true };
static struct encode_env env;
static struct batch_probe probe;

static void sects_of(const struct elf_file *f, struct dwarf_sects *s)
{
	static const char *const names[] = {
		".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
		".debug_str_offsets", ".debug_addr", ".debug_loc",
		".debug_loclists",
	};
	const unsigned char **p[] = {
		&s->info, &s->abbrev, &s->str, &s->line_str, &s->str_offsets,
		&s->addr, &s->loc, &s->loclists,
	};
	size_t *len[] = {
		&s->info_size, &s->abbrev_size, &s->str_size,
		&s->line_str_size, &s->str_offsets_size, &s->addr_size,
		&s->loc_size, &s->loclists_size,
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_file__find_section(f, names[i], &sh);
		Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;

		if (d && d->d_buf) {
			*p[i] = d->d_buf;
			*len[i] = d->d_size;
		}
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("FUZZ_RELINK_ELF");
	struct cu_digester *d = cu_digester__new();
	uint64_t offs[64];
	size_t off = 0, n = 0, i;

	(void)argc;
	(void)argv;
	if (!path)
		path = "../fuzz/corpus/encode/relink-gcc-5";
	if (!d || elf_file__open(&ef, path) ||
	    elf_symtab__new(&ef, &ef, &syms)) {
		fprintf(stderr, "fuzz_relink: cannot read %s\n", path);
		exit(1);
	}
	env.ef = &ef;
	env.syms = syms;
	env.opts = &opts;
	sects_of(&ef, &env.sects);
	/* the first batch's units, digested as a worker does */
	while (off + 4 <= env.sects.info_size && n < 32) {
		uint32_t len;

		memcpy(&len, env.sects.info + off, 4);
		if (len >= 0xfffffff0)
			break;
		offs[n++] = off;
		off += 4 + (size_t)len;
	}
	probe.first_addr[0] = 0;
	for (i = 0; i < n; i++) {
		const struct die_addr *a;
		struct cu_digest dg;
		size_t na;

		if (cu_digester__run(d, &env.sects, syms, offs[i], &dg,
				     &a, &na))
			na = 0;
		probe.cu_off[i] = offs[i];
		probe.addrs = realloc(probe.addrs, (probe.nr_addrs + na + 1) *
				      sizeof(*a));
		if (!probe.addrs)
			exit(1);
		memcpy(probe.addrs + probe.nr_addrs, a, na * sizeof(*a));
		probe.nr_addrs += na;
		probe.first_addr[i + 1] = probe.nr_addrs;
	}
	probe.nr_cus = n;
	probe.ok = true;
	cu_digester__free(d);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct batch_entry_hdr *h;
	struct cu_fragment frag;
	struct merge_state m;
	uint64_t *buf;

	buf = calloc((size + 7) / 8 + 1, 8);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	if (size >= sizeof(*h)) {
		h = (struct batch_entry_hdr *)buf;
		memcpy(h->magic, BATCH_CACHE_MAGIC, 8);
		h->version = BATCH_CACHE_VERSION;
		h->hdr_size = sizeof(*h);
		h->key[0] = probe.key[0];
		h->key[1] = probe.key[1];
		h->file_size = size;
		h->nr_cus = probe.nr_cus;
	}
	if (!batch_cache__read(&env, &probe, buf, size, false, &frag)) {
		/* what the consumer does with it */
		if (!merge_state__init(&m, UINT32_MAX, ef.ptr_size)) {
			if (!merge_state__add(&m, &frag))
				(void)merge_state__dedup(&m);
			merge_state__free(&m);
		} else {
			cu_fragment__free(&frag);
		}
	}
	free(buf);
	return 0;
}
