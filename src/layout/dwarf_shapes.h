/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The DWARF side of `dwarf2btf layout`: a walk of one compile unit that
 * makes the shape (shape.h) of each struct, class and union it defines,
 * read with libdw alone, apart from the encoder's own reader, so that
 * the check does not share the encoder's mistakes.
 *
 * A shape has the data members: each DW_TAG_member that is not static
 * (neither DW_AT_external nor DW_AT_declaration), and each base class
 * (DW_TAG_inheritance) that is not virtual, as the encoder's __base0,
 * __base1...  A member's bit offset is DW_AT_data_bit_offset, or
 * DW_AT_data_member_location (0 when absent, as in a union) with a
 * DWARF 2-4 DW_AT_bit_offset made a bit position; its bit size is
 * DW_AT_bit_size, or its type's byte size times 8 (SHAPE_SIZE_ANY when
 * the type is only declared or has no size).
 */
#ifndef DWARF2BTF_DWARF_SHAPES_H
#define DWARF2BTF_DWARF_SHAPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "layout/shape.h"
#include "lib/u32_map.h"

/* The language of a unit, as far as the check cares. */
enum shape_lang { LANG_C, LANG_CXX, LANG_RUST };

/* What a walk tells about each shape besides the shape itself. */
struct dwarf_shape_info {
	Dwarf_Die *unit;	/* the compile unit being walked */
	Dwarf_Die *die;		/* the struct, class or union */
	enum shape_lang lang;
	/* C++: the name with its scopes ("ns::Outer::Inner"), else NULL. */
	const char *qual_name;
	/* It has a DW_TAG_variant_part (Rust's enums), not in the shape. */
	bool variant_part;
};

/*
 * Called for each shape; a nonzero return stops the walk and is
 * returned.  @s and @info are the walk's: copy what is kept.
 */
typedef int (*dwarf_shape_fn)(void *arg, const struct shape *s,
			      const struct dwarf_shape_info *info);

struct dwarf_shapes {
	const char *path;	/* names the file in messages */
	unsigned int ptr_size;	/* 4 or 8 */
	bool big_endian;
	/*
	 * A Rust enum's variant part is in the BTF (the encoder's default,
	 * --rust-enums=variants): one nameless union member at offset 0
	 * that spans the enum.  Without, pahole's encoding: nothing.
	 */
	bool rust_variants;
	dwarf_shape_fn fn;
	void *arg;
	/* These are the walk's own. */
	struct shape_member *m;
	size_t cap_m;
	struct u32_map sizes;	/* a type DIE's address -> its size */
	struct u32_map units;	/* partial units walked, by address */
	char *scope;		/* C++: the enclosing scopes, "ns::C::" */
	size_t scope_len, cap_scope;
	enum shape_lang lang;
	Dwarf_Die unit;
	uint64_t nr_dies;	/* struct DIEs with a shape */
};

/*
 * dwarf_shapes__walk() calls w->fn for each struct, class and union
 * definition (not a declaration, with a DW_AT_byte_size) of compile unit
 * @cu, at any depth (in namespaces, functions, blocks and other structs),
 * and in the partial units it imports, each walked once over all calls.
 * Returns 0, what w->fn returned, or a negative errno after one line
 * naming the file, the CU and the DIE.
 */
int dwarf_shapes__walk(struct dwarf_shapes *w, Dwarf_Die *cu);
void dwarf_shapes__free(struct dwarf_shapes *w);

#endif /* DWARF2BTF_DWARF_SHAPES_H */
