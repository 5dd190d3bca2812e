/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a Rust enum's variant part holds, read from its DWARF, for
 * cu_types.c to encode (--rust-enums=variants, the default).
 *
 * rustc describes an enum with data as a struct of the enum's size
 * holding a DW_TAG_variant_part.  Its DW_AT_discr names the tag: a member
 * of the variant part, artificial and unnamed.  Each DW_TAG_variant holds
 * one member, named as the variant, whose type is the variant's struct:
 * as big as the enum, at offset 0, its fields counting from the enum's
 * start.  A variant's DW_AT_discr_value is the tag value that selects it;
 * the one variant without it is the default.
 *
 * The tag is a member of its own ("separate") when every variant has a
 * value and no variant's field overlaps it (rustc's direct tags: at offset
 * 0, the fields after it).  Otherwise it lives in a niche, the spare
 * values of a variant's field (Option<&T>: a null pointer is None), and is
 * that field: it gets no member of its own, so that no two members claim
 * the same bytes as different things.
 *
 * The enum's BTF is then its STRUCT holding an anonymous UNION at offset 0,
 * as big as the enum, whose members are the separate tag (named as rustc
 * names it, else RUST_ENUM_DISCR_NAME) and one member per variant, with
 * DECL_TAGs for where the tag is and the values that select the variants.  A
 * member not at bit offset 0 cannot sit in a union; rustc never gives one,
 * and another producer's follows the union in the STRUCT, at its offset.
 */
#ifndef DWARF2BTF_RUST_ENUM_H
#define DWARF2BTF_RUST_ENUM_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>

struct cu_ctx;

/* The name of a separate tag rustc leaves unnamed. */
#define RUST_ENUM_DISCR_NAME	"__discr"
/*
 * The DECL_TAGs that say how a variant is told (cu_types.c): on the union,
 * where the tag is ("rust:discr=OFFSET:SIZE", in bytes from the enum's
 * start), and on a variant's member the tag value that selects it
 * ("rust:discr_value=N"); the variant without one is the default.
 */
#define RUST_ENUM_DISCR_TAG	"rust:discr="
#define RUST_ENUM_VALUE_TAG	"rust:discr_value="

struct rust_enum_member {
	Dwarf_Die die;
	uint64_t bit_off;	/* for the order of those past the union */
	/* A variant's DW_AT_discr_value, as the tag's type reads it */
	uint64_t value;
	bool has_value;
	bool discr;		/* the separate tag */
	bool in_union;		/* at bit offset 0, not a bit-field */
};

struct rust_enum {
	/* The union's members first (in DWARF order), then the others. */
	struct rust_enum_member *m;
	uint32_t nr, nr_union;
	/*
	 * Where the tag that DW_AT_discr names is, separate or in a niche:
	 * bytes from the enum's start, its size, and whether its type is
	 * signed (so are then the variants' values).
	 */
	bool has_discr, discr_signed;
	uint64_t discr_off;
	uint32_t discr_size;
};

/*
 * Reads the variant part of struct DIE @die, a Rust unit's, into @re: no
 * member at all when it has none.  Returns 0, -ENOMEM, or -EINVAL after
 * reporting a DIE it cannot read.
 */
int rust_enum__read(struct cu_ctx *ctx, Dwarf_Die *die, struct rust_enum *re);

void rust_enum__free(struct rust_enum *re);

/* Are a Rust unit's enums encoded with their variants (rust_enum.h)? */
bool cu_ctx__rust_variants(const struct cu_ctx *ctx);

#endif /* DWARF2BTF_RUST_ENUM_H */
