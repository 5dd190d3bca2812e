// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/cu/btf_builder.c against libbpf: the same types added both ways give
 * the same bytes (names by the offsets libbpf gave them), the same ids
 * and the same sizes resolved; what libbpf refuses, the builder refuses
 * with the same error, and adds nothing; sealed with its strings, the
 * types are a libbpf BTF.  Prints "ok" and exits 0, else
 * names the failed check and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/btf_builder.h"
#include "check.h"

/* The offset libbpf gave @s in @btf. */
static uint32_t off_of(struct btf *btf, const char *s)
{
	int off = btf__find_str(btf, s);

	return off > 0 ? off : 0;
}

/* The type section of @btf. */
static const unsigned char *types_of(struct btf *btf, uint32_t *len)
{
	uint32_t size;
	const struct btf_header *h = btf__raw_data(btf, &size);

	*len = h->type_len;
	return (const unsigned char *)h + h->hdr_len + h->type_off;
}

/* Both ways must return @want; the same id for a type. */
#define BOTH(want, lib, ours) do {					\
	int l_ = (lib), o_ = (ours);					\
	if (l_ != o_ || l_ != (want)) {					\
		fprintf(stderr, "%s: libbpf %d, builder %d, want %d: %s\n", \
			name, l_, o_, (int)(want), #lib);		\
		return 1;						\
	}								\
} while (0)

static int check_same_types(void)
{
	const char *name = "same types";
	struct btf *btf = btf__new_empty();
	struct btf_builder b;
	const unsigned char *lt;
	uint32_t llen, id;

	btf__set_pointer_size(btf, 8);
	btf_builder__init(&b, 8);
	/* libbpf first, so that its offsets are the names' */
	CHECK(btf__add_int(btf, "int", 4, BTF_INT_SIGNED) == 1);
	CHECK(btf__add_struct(btf, "s", 24) == 2);
	CHECK(!btf__add_field(btf, "a", 1, 0, 0));
	CHECK(!btf__add_field(btf, "bits", 1, 35, 3));
	CHECK(!btf__add_field(btf, NULL, 1, 64, 0));
	CHECK(btf__add_union(btf, NULL, 8) == 3);
	CHECK(!btf__add_field(btf, "u", 2, 0, 0));
	CHECK(btf__add_ptr(btf, 2) == 4);
	CHECK(btf__add_const(btf, 4) == 5);
	CHECK(btf__add_volatile(btf, 5) == 6);
	CHECK(btf__add_restrict(btf, 4) == 7);
	CHECK(btf__add_typedef(btf, "t", 1) == 8);
	CHECK(btf__add_type_tag(btf, "user", 1) == 9);
	CHECK(btf__add_enum(btf, "e", 4) == 10);
	CHECK(!btf__add_enum_value(btf, "ONE", 1));
	CHECK(!btf__add_enum_value(btf, "MINUS", -1));
	CHECK(btf__add_enum64(btf, "e64", 8, false) == 11);
	CHECK(!btf__add_enum64_value(btf, "BIG", 1ull << 40));
	CHECK(btf__add_fwd(btf, "f", BTF_FWD_STRUCT) == 12);
	CHECK(btf__add_fwd(btf, "g", BTF_FWD_UNION) == 13);
	CHECK(btf__add_fwd(btf, "h", BTF_FWD_ENUM) == 14);
	CHECK(btf__add_array(btf, 1, 2, 3) == 15);
	CHECK(btf__add_func_proto(btf, 1) == 16);
	CHECK(!btf__add_func_param(btf, "p", 4));
	CHECK(!btf__add_func_param(btf, NULL, 0));
	CHECK(btf__add_decl_tag(btf, "tag", 2, 1) == 17);
	CHECK(btf__add_float(btf, "double", 8) == 18);

	CHECK(btf_builder__add_int(&b, off_of(btf, "int"), 4,
				   BTF_INT_SIGNED) == 1);
	CHECK(btf_builder__add_composite(&b, BTF_KIND_STRUCT, off_of(btf, "s"),
					 24) == 2);
	CHECK(!btf_builder__add_field(&b, off_of(btf, "a"), 1, 0, 0));
	CHECK(!btf_builder__add_field(&b, off_of(btf, "bits"), 1, 35, 3));
	CHECK(!btf_builder__add_field(&b, 0, 1, 64, 0));
	CHECK(btf_builder__add_composite(&b, BTF_KIND_UNION, 0, 8) == 3);
	CHECK(!btf_builder__add_field(&b, off_of(btf, "u"), 2, 0, 0));
	CHECK(btf_builder__add_ref(&b, BTF_KIND_PTR, 0, 2) == 4);
	CHECK(btf_builder__add_ref(&b, BTF_KIND_CONST, 0, 4) == 5);
	CHECK(btf_builder__add_ref(&b, BTF_KIND_VOLATILE, 0, 5) == 6);
	CHECK(btf_builder__add_ref(&b, BTF_KIND_RESTRICT, 0, 4) == 7);
	CHECK(btf_builder__add_ref(&b, BTF_KIND_TYPEDEF, off_of(btf, "t"),
				   1) == 8);
	CHECK(btf_builder__add_ref(&b, BTF_KIND_TYPE_TAG, off_of(btf, "user"),
				   1) == 9);
	CHECK(btf_builder__add_enum(&b, BTF_KIND_ENUM, off_of(btf, "e"), 4,
				    false) == 10);
	CHECK(!btf_builder__add_enum_value(&b, off_of(btf, "ONE"), 1));
	CHECK(!btf_builder__add_enum_value(&b, off_of(btf, "MINUS"), -1));
	CHECK(btf_builder__add_enum(&b, BTF_KIND_ENUM64, off_of(btf, "e64"), 8,
				    false) == 11);
	CHECK(!btf_builder__add_enum64_value(&b, off_of(btf, "BIG"),
					     1ull << 40));
	CHECK(btf_builder__add_fwd(&b, off_of(btf, "f"), BTF_FWD_STRUCT) == 12);
	CHECK(btf_builder__add_fwd(&b, off_of(btf, "g"), BTF_FWD_UNION) == 13);
	CHECK(btf_builder__add_fwd(&b, off_of(btf, "h"), BTF_FWD_ENUM) == 14);
	CHECK(btf_builder__add_array(&b, 1, 2, 3) == 15);
	CHECK(btf_builder__add_func_proto(&b, 1) == 16);
	CHECK(!btf_builder__add_func_param(&b, off_of(btf, "p"), 4));
	CHECK(!btf_builder__add_func_param(&b, 0, 0));
	CHECK(btf_builder__add_decl_tag(&b, off_of(btf, "tag"), 2, 1) == 17);
	CHECK(btf_builder__add_float(&b, off_of(btf, "double"), 8) == 18);

	CHECK(btf_builder__type_cnt(&b) == btf__type_cnt(btf));
	lt = types_of(btf, &llen);
	CHECK(llen == b.len && !memcmp(lt, b.data, llen));
	for (id = 0; id <= b.nr + 1; id++)
		CHECK(btf_builder__resolve_size(&b, id) ==
		      btf__resolve_size(btf, id));
	btf_builder__free(&b);
	btf__free(btf);
	return 0;
}

static int check_refused(void)
{
	const char *name = "refused";
	struct btf *btf = btf__new_empty();
	struct btf_builder b;
	const unsigned char *lt;
	uint32_t llen, n = 0;

	btf_builder__init(&b, 8);
	/* members, enumerators and parameters with no type to go to */
	BOTH(-EINVAL, btf__add_field(btf, "a", 0, 0, 0),
	     btf_builder__add_field(&b, 1, 0, 0, 0));
	BOTH(-EINVAL, btf__add_enum_value(btf, "a", 0),
	     btf_builder__add_enum_value(&b, 1, 0));
	BOTH(-EINVAL, btf__add_func_param(btf, "a", 0),
	     btf_builder__add_func_param(&b, 1, 0));
	/* names wanted */
	BOTH(-EINVAL, btf__add_int(btf, "", 4, 0),
	     btf_builder__add_int(&b, 0, 4, 0));
	BOTH(-EINVAL, btf__add_float(btf, NULL, 4),
	     btf_builder__add_float(&b, 0, 4));
	BOTH(-EINVAL, btf__add_typedef(btf, "", 0),
	     btf_builder__add_ref(&b, BTF_KIND_TYPEDEF, 0, 0));
	BOTH(-EINVAL, btf__add_type_tag(btf, "", 0),
	     btf_builder__add_ref(&b, BTF_KIND_TYPE_TAG, 0, 0));
	BOTH(-EINVAL, btf__add_fwd(btf, "", BTF_FWD_STRUCT),
	     btf_builder__add_fwd(&b, 0, BTF_FWD_STRUCT));
	BOTH(-EINVAL, btf__add_decl_tag(btf, "", 0, -1),
	     btf_builder__add_decl_tag(&b, 0, 0, -1));
	/* sizes, kinds, ids */
	BOTH(-EINVAL, btf__add_int(btf, "i", 3, 0),
	     btf_builder__add_int(&b, 1, 3, 0));
	BOTH(-EINVAL, btf__add_int(btf, "i", 32, 0),
	     btf_builder__add_int(&b, 1, 32, 0));
	BOTH(-EINVAL, btf__add_int(btf, "i", 4, 8),
	     btf_builder__add_int(&b, 1, 4, 8));
	BOTH(-EINVAL, btf__add_float(btf, "f", 6),
	     btf_builder__add_float(&b, 1, 6));
	BOTH(-EINVAL, btf__add_enum(btf, "e", 3),
	     btf_builder__add_enum(&b, BTF_KIND_ENUM, 1, 3, false));
	BOTH(-EINVAL, btf__add_enum64(btf, "e", 16, false),
	     btf_builder__add_enum(&b, BTF_KIND_ENUM64, 1, 16, false));
	BOTH(-EINVAL, btf__add_fwd(btf, "f", 7),
	     btf_builder__add_fwd(&b, 1, 7));
	BOTH(-EINVAL, btf__add_ptr(btf, -1),
	     btf_builder__add_ref(&b, BTF_KIND_PTR, 0, -1));
	BOTH(-EINVAL, btf__add_array(btf, 1, -2, 1),
	     btf_builder__add_array(&b, 1, -2, 1));
	BOTH(-EINVAL, btf__add_func_proto(btf, -3),
	     btf_builder__add_func_proto(&b, -3));
	BOTH(-EINVAL, btf__add_decl_tag(btf, "t", 1, -2),
	     btf_builder__add_decl_tag(&b, 1, 1, -2));
	/* members of a struct and a union, enumerators, parameters */
	BOTH(1, btf__add_struct(btf, "s", 4),
	     btf_builder__add_composite(&b, BTF_KIND_STRUCT, 1, 4));
	BOTH(-EINVAL, btf__add_field(btf, "a", -1, 0, 0),
	     btf_builder__add_field(&b, 1, -1, 0, 0));
	BOTH(-EINVAL, btf__add_field(btf, "a", 1, 3, 0),
	     btf_builder__add_field(&b, 1, 1, 3, 0));
	BOTH(-EINVAL, btf__add_field(btf, "a", 1, 0, 256),
	     btf_builder__add_field(&b, 1, 1, 0, 256));
	BOTH(-EINVAL, btf__add_field(btf, "a", 1, 1 << 24, 1),
	     btf_builder__add_field(&b, 1, 1, 1 << 24, 1));
	BOTH(-EINVAL, btf__add_enum_value(btf, "a", 0),
	     btf_builder__add_enum_value(&b, 1, 0));
	BOTH(2, btf__add_union(btf, "u", 4),
	     btf_builder__add_composite(&b, BTF_KIND_UNION, 1, 4));
	BOTH(-EINVAL, btf__add_field(btf, "a", 1, 8, 0),
	     btf_builder__add_field(&b, 1, 1, 8, 0));
	BOTH(3, btf__add_enum(btf, "e", 4),
	     btf_builder__add_enum(&b, BTF_KIND_ENUM, 1, 4, false));
	BOTH(-EINVAL, btf__add_enum_value(btf, "", 0),
	     btf_builder__add_enum_value(&b, 0, 0));
	BOTH(-E2BIG, btf__add_enum_value(btf, "a", 1ll << 33),
	     btf_builder__add_enum_value(&b, 1, 1ll << 33));
	BOTH(-E2BIG, btf__add_enum_value(btf, "a", -(1ll << 33)),
	     btf_builder__add_enum_value(&b, 1, -(1ll << 33)));
	BOTH(-EINVAL, btf__add_enum64_value(btf, "a", 0),
	     btf_builder__add_enum64_value(&b, 1, 0));
	BOTH(-EINVAL, btf__add_field(btf, "a", 1, 0, 0),
	     btf_builder__add_field(&b, 1, 1, 0, 0));
	BOTH(4, btf__add_func_proto(btf, 0),
	     btf_builder__add_func_proto(&b, 0));
	BOTH(-EINVAL, btf__add_func_param(btf, "a", -1),
	     btf_builder__add_func_param(&b, 1, -1));
	/* nothing refused was added: three types, no member, no value */
	lt = types_of(btf, &llen);
	CHECK(btf_builder__type_cnt(&b) == 5 && btf__type_cnt(btf) == 5);
	CHECK(llen == b.len);
	for (n = 1; n < 5; n++)
		CHECK(btf_vlen(btf_builder__type(&b, n)) == 0 &&
		      btf_vlen(btf__type_by_id(btf, n)) == 0);
	(void)lt;
	btf_builder__free(&b);
	btf__free(btf);
	return 0;
}

/*
 * Sealed with its strings: a libbpf BTF of the same types, named, which
 * outlives the builder; with no strings, "" alone.
 */
static int check_seal(void)
{
	const char *name = "seal";
	static const char strs[] = "\0sealed\0member";
	struct btf *btf = btf__new_empty(), *before = btf;
	const struct btf_type *t;
	struct btf_builder b;
	int id, ptr;

	btf_builder__init(&b, 8);
	id = btf_builder__add_composite(&b, BTF_KIND_STRUCT, 1, 8);
	CHECK(id == 1 && !btf_builder__add_field(&b, 8, id, 0, 0));
	ptr = btf_builder__add_ref(&b, BTF_KIND_PTR, 0, id);
	CHECK(btf_builder__seal(&b, strs, sizeof(strs), &btf) == 0 &&
	      btf != before);
	btf_builder__free(&b);
	CHECK(btf__type_cnt(btf) == 3 && btf__pointer_size(btf) == 8);
	t = btf__type_by_id(btf, id);
	CHECK(btf_is_struct(t) &&
	      !strcmp(btf__name_by_offset(btf, t->name_off), "sealed"));
	CHECK(!strcmp(btf__name_by_offset(btf, btf_members(t)[0].name_off),
		      "member"));
	CHECK(btf__type_by_id(btf, ptr)->type == (uint32_t)id);
	btf__free(btf);
	btf = btf__new_empty();
	btf_builder__init(&b, 4);
	CHECK(btf_builder__seal(&b, NULL, 0, &btf) == 0 &&
	      btf__type_cnt(btf) == 1);
	CHECK(btf_builder__add_ref(&b, BTF_KIND_PTR, 0, 0) == 1);
	CHECK(btf_builder__seal(&b, NULL, 0, &btf) == 0 &&
	      btf__type_cnt(btf) == 2 && btf__pointer_size(btf) == 4);
	btf_builder__free(&b);
	btf__free(btf);
	return 0;
}

int main(void)
{
	if (check_same_types() || check_refused() || check_seal())
		return 1;
	printf("ok\n");
	return 0;
}
