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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct btf;
struct btf_type;

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
	size_t last;			/* offset of the last type added */
	bool has_last;			/* since the last reset or borrow */
	/*
	 * btf_concat__borrow(): the sections of a BTF that outlives what we
	 * add, before types and strings of our own (offsets count from
	 * the start of these).
	 */
	const unsigned char *base_types;
	const char *base_strs;
	size_t base_types_len, base_strs_len;
	/* btf_concat__index_types(): where each type's record starts */
	uint32_t *offs;
	uint32_t nr_offs;
};

/*
 * Start over from @btf's bytes as they are (libbpf's strings index keeps
 * the first of equal strings, as here), as btf__add_btf() into an empty
 * BTF would not: what the merge appends to after it took over its first
 * fragment as its merged BTF.
 */
int btf_concat__reset(struct btf_concat *c, const struct btf *btf);
/*
 * The same without a copy: @btf's bytes are read where they are, so @btf
 * must live until the raw bytes are made (btf_concat__raw()); for types
 * added after a merge, not for appending BTFs.
 */
int btf_concat__borrow(struct btf_concat *c, const struct btf *btf);
/*
 * Append @src (no base); *@first: the id its type 1 now has.  After an
 * error, @c is fit only for btf_concat__reset() or btf_concat__free().
 */
int btf_concat__add(struct btf_concat *c, const struct btf *src,
		    uint32_t *first);
/*
 * Types added one by one, the bytes libbpf's btf__add_*() of the same
 * name would add (strings interned before the type, in the same order):
 * the decisions' FUNCs and VARs, without libbpf making the merged BTF
 * modifiable (a copy and an index of all its strings) and interning each
 * name through its hash map.  The id added, or -errno; a parameter or a
 * section entry goes to the last type added, which must be of its kind.
 * What libbpf refuses is refused (a missing name, a linkage or component
 * out of range), and more: an id not there yet, which libbpf lets
 * through and none of our callers means.
 */
int btf_concat__add_ptr(struct btf_concat *c, uint32_t ref);
/* @attr: the kind flag (a type attribute, as btf__add_type_attr()) */
int btf_concat__add_type_tag(struct btf_concat *c, const char *value,
			     uint32_t ref, bool attr);
int btf_concat__add_func_proto(struct btf_concat *c, uint32_t ret);
int btf_concat__add_func_param(struct btf_concat *c, const char *name,
			       uint32_t type);
int btf_concat__add_func(struct btf_concat *c, const char *name, int linkage,
			 uint32_t proto);
int btf_concat__add_decl_tag(struct btf_concat *c, const char *value,
			     uint32_t ref, int component);
int btf_concat__add_var(struct btf_concat *c, const char *name, int linkage,
			uint32_t type);
int btf_concat__add_datasec(struct btf_concat *c, const char *name,
			    uint32_t size);
int btf_concat__add_datasec_var_info(struct btf_concat *c, uint32_t var,
				     uint32_t offset, uint32_t size);

/* A libbpf BTF of what was appended; @c stays as it is. */
int btf_concat__to_btf(const struct btf_concat *c, unsigned int ptr_size,
		       struct btf **out);
/*
 * Frees what appending needs and reading in place does not (the strings'
 * index, and the index of types by id):
 * @c is then fit only for reading, btf_concat__reset() or
 * btf_concat__free().
 */
void btf_concat__drop_index(struct btf_concat *c);
/*
 * Reading the types there are now, by id, as libbpf's btf__type_by_id()
 * and btf__name_by_offset() read a BTF, without flushing them into one
 * (a copy of all of them): btf_concat__index_types() finds where each
 * record starts, once; types added afterwards are not found by id.
 * Returns 0, -ENOMEM, or -EINVAL when the records do not add up.
 */
int btf_concat__index_types(struct btf_concat *c);
/* Type @id (1..), or NULL: void, or not indexed. */
const struct btf_type *btf_concat__type_by_id(const struct btf_concat *c,
					      uint32_t id);
/* The string at @off, or NULL past the end. */
const char *btf_concat__name_by_offset(const struct btf_concat *c,
				       uint32_t off);
/* What btf_concat__to_btf() makes, as raw bytes (btf_load__raw()). */
int btf_concat__raw(const struct btf_concat *c, unsigned char **out);
/*
 * Each type's record, in id order, into @types (nr_types of them): the
 * borrowed ones first, then our own.  The records are written to by the
 * caller (btf_dedup__run_concat()), the borrowed ones too.  Returns 0, or
 * -EINVAL when the records do not add up to nr_types.
 */
int btf_concat__type_ptrs(const struct btf_concat *c, struct btf_type **types);
/* The strings: the borrowed ones (*@lo), then our own (*@hi). */
void btf_concat__strs(const struct btf_concat *c, const char **lo,
		      uint32_t *lo_len, const char **hi, uint32_t *hi_len);
void btf_concat__free(struct btf_concat *c);

#endif
