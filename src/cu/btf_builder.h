/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A batch's types as they are built, before they become a libbpf BTF.
 *
 * libbpf's btf__add_*() checked that its BTF was modifiable, looked its
 * last type up through two calls, grew its buffers and, for every name,
 * looked the string up in its set, even "int" for the types that only
 * take a name afterwards: btf__add_field() alone was 181 instructions a
 * member, and the calls together 9.5% of the instructions of every 8th
 * 6.12 module in one run.  The builder appends the same records, its
 * names already offsets of the batch's strings (name_cache.h), and checks
 * its arguments as libbpf 1.1 does, in the same order, with the same
 * errors: a type libbpf refused is refused here, and the types are the
 * bytes libbpf made of them.  btf_builder__seal() makes the batch's
 * libbpf BTF of them and its strings.
 */
#ifndef DWARF2BTF_BTF_BUILDER_H
#define DWARF2BTF_BTF_BUILDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/btf.h>

struct btf;

struct btf_builder {
	unsigned char *data;	/* the records, one after another */
	size_t len, cap;
	uint32_t *offs;		/* type id - 1 -> where its record starts */
	uint32_t nr, cap_offs;	/* types so far */
	unsigned int ptr_size;
};

/* An empty builder for an ELF of pointers of @ptr_size bytes. */
void btf_builder__init(struct btf_builder *b, unsigned int ptr_size);
void btf_builder__free(struct btf_builder *b);

/* The number of types, void included: the id the next one gets. */
static inline uint32_t btf_builder__type_cnt(const struct btf_builder *b)
{
	return b->nr + 1;
}

/*
 * Type @id (1 ..), or NULL; valid until the next type or member is added.
 * The caller may write to it (a name set afterwards).
 */
static inline struct btf_type *btf_builder__type(const struct btf_builder *b,
						 uint32_t id)
{
	return id && id <= b->nr ?
	       (struct btf_type *)(b->data + b->offs[id - 1]) : NULL;
}

/*
 * As libbpf's btf__add_*(), with names as offsets (0: none, which libbpf
 * refuses where it wants a name): the new type's id, or 0 for a member,
 * enumerator or parameter added to the last type; -EINVAL for what
 * libbpf refuses, -E2BIG for an enumerator out of range, -ENOMEM.
 */
int btf_builder__add_int(struct btf_builder *b, uint32_t name_off,
			 size_t byte_sz, int encoding);
int btf_builder__add_float(struct btf_builder *b, uint32_t name_off,
			   size_t byte_sz);
/* PTR, CONST, VOLATILE, RESTRICT; TYPEDEF and TYPE_TAG want a name. */
int btf_builder__add_ref(struct btf_builder *b, int kind, uint32_t name_off,
			 int ref_type_id);
int btf_builder__add_array(struct btf_builder *b, int index_type_id,
			   int elem_type_id, uint32_t nr_elems);
/* STRUCT or UNION. */
int btf_builder__add_composite(struct btf_builder *b, int kind,
			       uint32_t name_off, uint32_t byte_sz);
int btf_builder__add_field(struct btf_builder *b, uint32_t name_off,
			   int type_id, uint32_t bit_offset, uint32_t bit_size);
/* ENUM (never @is_signed: an enumerator below 0 makes it so) or ENUM64. */
int btf_builder__add_enum(struct btf_builder *b, int kind, uint32_t name_off,
			  uint32_t byte_sz, bool is_signed);
int btf_builder__add_enum_value(struct btf_builder *b, uint32_t name_off,
				int64_t value);
int btf_builder__add_enum64_value(struct btf_builder *b, uint32_t name_off,
				  uint64_t value);
/* @fwd_kind: libbpf's enum btf_fwd_kind. */
int btf_builder__add_fwd(struct btf_builder *b, uint32_t name_off,
			 int fwd_kind);
int btf_builder__add_func_proto(struct btf_builder *b, int ret_type_id);
int btf_builder__add_func_param(struct btf_builder *b, uint32_t name_off,
				int type_id);
int btf_builder__add_decl_tag(struct btf_builder *b, uint32_t value_off,
			      int ref_type_id, int component_idx);

/*
 * Replaces *@btf with the libbpf BTF of @b's types and @strs (@strs_len
 * bytes, "" first; NULL and 0 for "" alone), which their names are
 * offsets of; it outlives both.  Returns 0 or -errno, *@btf unchanged.
 */
int btf_builder__seal(const struct btf_builder *b, const char *strs,
		      uint32_t strs_len, struct btf **btf);

/* As libbpf's btf__resolve_size() (a FWD is void there too). */
int64_t btf_builder__resolve_size(const struct btf_builder *b, uint32_t id);

#endif
