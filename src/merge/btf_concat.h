/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Standalone BTFs appended one after another, as libbpf's btf__add_btf()
 * appends them (type ids shifted, strings interned in the order its
 * visitor meets them, so the bytes are the same), in raw buffers of our
 * own: libbpf's string interning costs a microsecond a type, most of
 * merging cached batches (docs/performance.md).
 */
#ifndef DWARF2BTF_BTF_CONCAT_H
#define DWARF2BTF_BTF_CONCAT_H

#include <stddef.h>
#include <stdint.h>

struct btf;

struct btf_concat {
	unsigned char *types;		/* the type records, raw */
	size_t types_len, types_cap;
	uint32_t nr_types;		/* ids 1..nr_types */
	char *strs;			/* the string section */
	size_t strs_len, strs_cap;
	/* the strings by content: hash in the high half, offset + 1 low */
	uint64_t *slots;
	size_t nr_slots, nr_used;
	uint32_t *xlat;			/* source offset -> ours + 1 */
	size_t cap_xlat;
};

/*
 * Start over from @btf's bytes as they are (libbpf's strings index keeps
 * the first of equal strings, as here), as btf__add_btf() into an empty
 * BTF would not: this is what a merge that takes over its first fragment
 * has.
 */
int btf_concat__reset(struct btf_concat *c, const struct btf *btf);
/* Append @src (no base); *@first: the id its type 1 now has. */
int btf_concat__add(struct btf_concat *c, const struct btf *src,
		    uint32_t *first);
/* A libbpf BTF of what was appended; @c stays as it is. */
int btf_concat__to_btf(const struct btf_concat *c, unsigned int ptr_size,
		       struct btf **out);
void btf_concat__free(struct btf_concat *c);

#endif
