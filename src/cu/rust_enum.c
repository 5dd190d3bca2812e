// SPDX-License-Identifier: GPL-2.0-only
/*
 * A Rust enum's variant part, read for its BTF (rust_enum.h has what it
 * holds and how it is encoded).  Only DWARF is read here; cu_types.c adds
 * the BTF.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cu/cu_internal.h"
#include "cu/rust_enum.h"
#include "lib/encode_opts.h"
#include "lib/grow.h"

bool cu_ctx__rust_variants(const struct cu_ctx *ctx)
{
	return ctx->rust && !ctx->env->opts->rust_enums_pahole;
}

/*
 * Sets *@vp to the DW_TAG_variant_part child of struct DIE @die.  Returns
 * 1, 0 when it has none, or -EINVAL (reported).
 */
static int rust_enum__find_part(struct cu_ctx *ctx, Dwarf_Die *die,
				Dwarf_Die *vp)
{
	int ret = abbrev_cache__child(&ctx->abbrevs, die, vp);

	while (ret == 0) {
		if (abbrev_cache__tag(&ctx->abbrevs, vp) == DW_TAG_variant_part)
			return 1;
		ret = abbrev_cache__sibling(&ctx->abbrevs, vp, vp);
	}
	if (ret < 0) {
		cu_err(ctx, die, "cannot read the struct's children");
		return -EINVAL;
	}
	return 0;
}

/*
 * Sets *@bit_off to where member @m starts, and *@bitfield to whether it
 * is a bit-field (whose place cu_types.c works out from more than this).
 * Returns 0, or -EINVAL (reported).
 */
static int rust_enum__member_off(struct cu_ctx *ctx, Dwarf_Die *m,
				 uint64_t *bit_off, bool *bitfield)
{
	struct die_attrs da;
	Dwarf_Word off;

	if (die_attrs__get(ctx, m, &da)) {
		cu_err(ctx, m, "cannot read the member");
		return -EINVAL;
	}
	*bitfield = die_attrs__at(&da, DA_BIT_SIZE) != NULL;
	if (die_attrs__udata(&da, DA_DATA_BIT_OFFSET, &off)) {
		*bit_off = off;
		return 0;
	}
	if (member_byte_offset(die_attrs__at(&da, DA_DATA_MEMBER_LOCATION),
			       &off) || off > UINT32_MAX / 8) {
		cu_err(ctx, m, "bad DW_AT_data_member_location");
		return -EINVAL;
	}
	*bit_off = off * 8;
	return 0;
}

/* Does @a go after @b: past the union where @b is not, or further in? */
static bool rust_enum__after(const struct rust_enum_member *a,
			     const struct rust_enum_member *b)
{
	if (a->in_union != b->in_union)
		return b->in_union;
	return a->bit_off > b->bit_off;
}

/* Appends member @m to @re; 0 or -ENOMEM. */
static int rust_enum__add(struct rust_enum *re, size_t *cap, Dwarf_Die *m,
			  bool discr)
{
	if (grow_array((void **)&re->m, cap, re->nr + 1, sizeof(*re->m), 8))
		return -ENOMEM;
	re->m[re->nr].die = *m;
	re->m[re->nr].bit_off = 0;
	re->m[re->nr].discr = discr;
	re->m[re->nr].in_union = false;
	re->m[re->nr].has_value = false;
	re->m[re->nr].value = 0;
	re->nr++;
	return 0;
}

/* The byte size of member @m's type, 0 if unknown (an array's element). */
static uint64_t rust_enum__member_size(struct cu_ctx *ctx, Dwarf_Die *m)
{
	Dwarf_Die t;

	return die_type(m, &t) ? die__type_size(&t, ctx->env->ef->ptr_size) : 0;
}

/*
 * Does a field of a variant's struct (the variant members of @re) share a
 * byte with the tag @discr, that is, is the tag in a niche?  Returns 1, 0,
 * or -EINVAL (reported).
 */
static int rust_enum__niche(struct cu_ctx *ctx, struct rust_enum *re,
			    Dwarf_Die *discr)
{
	uint64_t t0, t1, v0, f0, fsz;
	Dwarf_Die type, f;
	uint32_t i;
	bool bf;
	int ret;

	ret = rust_enum__member_off(ctx, discr, &t0, &bf);
	if (ret)
		return ret;
	t0 /= 8;
	t1 = t0 + rust_enum__member_size(ctx, discr);
	for (i = 0; i < re->nr; i++) {
		ret = rust_enum__member_off(ctx, &re->m[i].die, &v0, &bf);
		if (ret)
			return ret;
		if (!die_type(&re->m[i].die, &type))
			continue;
		ret = abbrev_cache__child(&ctx->abbrevs, &type, &f);
		while (ret == 0) {
			if (abbrev_cache__tag(&ctx->abbrevs, &f) == DW_TAG_member) {
				ret = rust_enum__member_off(ctx, &f, &f0, &bf);
				if (ret)
					return ret;
				f0 = v0 / 8 + f0 / 8;
				fsz = rust_enum__member_size(ctx, &f);
				if (fsz && f0 < t1 && t0 < f0 + fsz)
					return 1;
			}
			ret = abbrev_cache__sibling(&ctx->abbrevs, &f, &f);
		}
		if (ret < 0) {
			cu_err(ctx, &type, "cannot read the variant's fields");
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Reads the variants of variant part @vp into @re, each with its
 * DW_AT_discr_value (signed if @is_signed), and sets *@all_valued to
 * whether each has one (or a DW_AT_discr_list).  Returns 0, -ENOMEM or
 * -EINVAL (reported).
 */
static int rust_enum__variants(struct cu_ctx *ctx, Dwarf_Die *vp,
			       struct rust_enum *re, size_t *cap,
			       bool is_signed, bool *all_valued)
{
	Dwarf_Attribute attr;
	Dwarf_Die v, m;
	Dwarf_Sword sv;
	Dwarf_Word uv;
	bool has_value;
	int ret, err;

	*all_valued = true;
	ret = abbrev_cache__child(&ctx->abbrevs, vp, &v);
	while (ret == 0) {
		if (abbrev_cache__tag(&ctx->abbrevs, &v) == DW_TAG_variant) {
			/* A value of more than 64 bits is not kept. */
			has_value = dwarf_attr(&v, DW_AT_discr_value, &attr);
			if (has_value)
				has_value = is_signed ?
					    !dwarf_formsdata(&attr, &sv) :
					    !dwarf_formudata(&attr, &uv);
			else if (!dwarf_attr(&v, DW_AT_discr_list, &attr))
				*all_valued = false;
			ret = abbrev_cache__child(&ctx->abbrevs, &v, &m);
			while (ret == 0) {
				if (abbrev_cache__tag(&ctx->abbrevs, &m) ==
				    DW_TAG_member) {
					err = rust_enum__add(re, cap, &m, false);
					if (err)
						return err;
					re->m[re->nr - 1].has_value = has_value;
					re->m[re->nr - 1].value = !has_value ? 0 :
						is_signed ? (uint64_t)sv : uv;
				}
				ret = abbrev_cache__sibling(&ctx->abbrevs, &m, &m);
			}
			if (ret < 0)
				break;
		}
		ret = abbrev_cache__sibling(&ctx->abbrevs, &v, &v);
	}
	if (ret < 0) {
		cu_err(ctx, vp, "cannot read the variant part");
		return -EINVAL;
	}
	return 0;
}

/*
 * Puts the members that go in the union (at bit offset 0, not bit-fields)
 * first, in DWARF order, counted in nr_union, and the others after them
 * by offset: a stable insertion sort, as there are as many as variants at
 * most, and rustc gives none of the others.
 */
static int rust_enum__order(struct cu_ctx *ctx, struct rust_enum *re)
{
	struct rust_enum_member tmp;
	uint32_t i, j;
	bool bf;
	int err;

	for (i = 0; i < re->nr; i++) {
		err = rust_enum__member_off(ctx, &re->m[i].die,
					    &re->m[i].bit_off, &bf);
		if (err)
			return err;
		re->m[i].in_union = !re->m[i].bit_off && !bf;
	}
	for (i = 1; i < re->nr; i++)
		for (j = i; j > 0 && rust_enum__after(&re->m[j - 1], &re->m[j]);
		     j--) {
			tmp = re->m[j - 1];
			re->m[j - 1] = re->m[j];
			re->m[j] = tmp;
		}
	re->nr_union = 0;
	while (re->nr_union < re->nr && re->m[re->nr_union].in_union)
		re->nr_union++;
	return 0;
}

/*
 * Notes in @re whether the tag DIE @discr (a member) has a type signed,
 * and where it is and how big, if it says so in whole bytes: otherwise
 * the variants' values are kept, the tag's place is not.
 */
static void rust_enum__discr(struct cu_ctx *ctx, Dwarf_Die *discr,
			     struct rust_enum *re)
{
	Dwarf_Attribute attr;
	Dwarf_Word enc, off;
	struct die_attrs da;
	Dwarf_Die type;

	re->discr_signed = die_type(discr, &type) &&
			   dwarf_attr(&type, DW_AT_encoding, &attr) &&
			   !dwarf_formudata(&attr, &enc) &&
			   (enc == DW_ATE_signed || enc == DW_ATE_signed_char);
	if (die_attrs__get(ctx, discr, &da) ||
	    die_attrs__at(&da, DA_BIT_SIZE) ||
	    member_byte_offset(die_attrs__at(&da, DA_DATA_MEMBER_LOCATION),
			       &off) || off > UINT32_MAX)
		return;
	re->discr_size = rust_enum__member_size(ctx, discr);
	re->discr_off = off;
	re->has_discr = re->discr_size > 0;
}

int rust_enum__read(struct cu_ctx *ctx, Dwarf_Die *die, struct rust_enum *re)
{
	Dwarf_Die vp, discr, m;
	Dwarf_Attribute attr;
	bool all_valued, has_discr;
	size_t cap = 0;
	int ret, err;

	re->m = NULL;
	re->nr = re->nr_union = 0;
	re->has_discr = re->discr_signed = false;
	re->discr_off = 0;
	re->discr_size = 0;
	ret = rust_enum__find_part(ctx, die, &vp);
	if (ret <= 0)
		return ret;
	has_discr = dwarf_attr(&vp, DW_AT_discr, &attr) &&
		    die__formref(&attr, &discr);
	if (has_discr)
		rust_enum__discr(ctx, &discr, re);
	err = rust_enum__variants(ctx, &vp, re, &cap, re->discr_signed,
				  &all_valued);
	/*
	 * The tag is kept only as the variant part's own member that
	 * DW_AT_discr names; one inside a variant is that variant's field.
	 */
	if (!err && has_discr && all_valued) {
		ret = abbrev_cache__child(&ctx->abbrevs, &vp, &m);
		while (ret == 0 && !err) {
			if (abbrev_cache__tag(&ctx->abbrevs, &m) == DW_TAG_member &&
			    dwarf_dieoffset(&m) == dwarf_dieoffset(&discr) &&
			    m.cu == discr.cu) {
				err = rust_enum__niche(ctx, re, &m);
				if (err == 0)
					err = rust_enum__add(re, &cap, &m, true);
				else if (err == 1)
					err = 0;
				break;
			}
			ret = abbrev_cache__sibling(&ctx->abbrevs, &m, &m);
		}
	}
	if (!err && re->nr && re->m[re->nr - 1].discr) {
		/* The tag comes first. */
		struct rust_enum_member d = re->m[re->nr - 1];

		memmove(re->m + 1, re->m, (re->nr - 1) * sizeof(*re->m));
		re->m[0] = d;
	}
	if (!err)
		err = rust_enum__order(ctx, re);
	if (err)
		rust_enum__free(re);
	return err;
}

void rust_enum__free(struct rust_enum *re)
{
	free(re->m);
	re->m = NULL;
	re->nr = re->nr_union = 0;
}
