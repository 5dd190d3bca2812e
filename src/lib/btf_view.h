/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A read-only view of whole (standalone) BTF: its types by id and its
 * strings, where they already are in memory.  A base is read so, in place
 * in the file's page cache, because a kernel build runs one process per
 * module over the same vmlinux and libbpf's btf__new() would copy its
 * 5 MB into fresh memory in each (a fifth of a small module's run).  The
 * view of a libbpf BTF (btf_view__from_btf()) reads a copy of it.
 */
#ifndef DWARF2BTF_BTF_VIEW_H
#define DWARF2BTF_BTF_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <bpf/btf.h>

struct btf_view {
	const unsigned char *types;	/* The type section. */
	uint32_t types_len;
	const char *strs;		/* The string section. */
	uint32_t str_len;
	uint32_t nr;			/* Types + 1 (void), btf__type_cnt(). */
	uint32_t *offs;			/* Each type's offset in types. */
	/* The file mapping the view reads, or NULL (btf_view__from_btf()). */
	void *map;
	size_t map_len;
	void *own;			/* btf_view__from_btf()'s copy. */
};

/*
 * Views the raw BTF at RAW (SIZE bytes, 4-aligned), which must outlive
 * the view.  Only what libbpf 1.1's btf__new() would take too is viewed:
 * the host's byte order, a header of 24 bytes (or of 32 that names a
 * layout section), sections in bounds and in order, strings that start
 * and end with a NUL, known kinds, records in bounds, every type id a
 * record holds one of the view's, every name offset in the strings, no
 * decl tag's component index below -1.  Returns 0, -EINVAL
 * for anything else (nothing is printed: the caller lets libbpf read and
 * report it), or -ENOMEM.
 */
int btf_view__from_raw(struct btf_view *v, const void *raw, size_t size);

/*
 * Views a copy of the types and strings of standalone BTF that libbpf
 * holds (libbpf may move its own).
 */
int btf_view__from_btf(struct btf_view *v, const struct btf *btf);

/* Frees the offsets and the copy, unmaps v->map; the view is then empty. */
void btf_view__free(struct btf_view *v);

/* Type ID (< v->nr; 0 is void). */
static inline const struct btf_type *btf_view__type(const struct btf_view *v,
						    uint32_t id)
{
	static const struct btf_type void_type;

	return id ? (const struct btf_type *)(v->types + v->offs[id]) :
		    &void_type;
}

/*
 * A hash of the types and strings, the same for the same BTF whichever
 * header it came with, and whether libbpf or the file holds it.
 */
uint64_t btf_view__hash(const struct btf_view *v);

#endif /* DWARF2BTF_BTF_VIEW_H */
