// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/merge/btf_dedup.c, a whole BTF (no base), then a module over a base:
 * one case per rule of libbpf's btf__dedup() it mirrors, each naming the
 * libbpf function (as of libbpf 1.7 and 1.8.0, lib/bpf/src/btf.c).  Two "CUs" are built one after the
 * other into one BTF, as the batches are, then deduplicated; the checks
 * count what is left.  Prints "ok" and exits 0, else names the failed
 * check and exits 1.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/btf_load.h"
#include "lib/btf_view.h"
#include "merge/base_index.h"
#include "merge/btf_concat.h"
#include "merge/btf_dedup.h"
#include "merge/fwd_names.h"
#include "check.h"

/* Types of @kind named @n (NULL: any name) in @btf. */
static int count(const struct btf *btf, int kind, const char *n)
{
	int id, c = 0;

	for (id = 1; id < (int)btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_kind(t) == kind &&
		    (!n || !strcmp(btf__name_by_offset(btf, t->name_off), n)))
			c++;
	}
	return c;
}

static struct btf *dedup(struct btf *in, uint32_t *const *ids, size_t nr)
{
	struct btf_dedup *d = btf_dedup__new(NULL, false);
	struct btf *out = NULL;

	if (!d || btf_dedup__run(d, in, NULL, ids, nr, &out))
		out = NULL;
	btf_dedup__free(d);
	btf__free(in);
	return out;
}

/* The raw bytes of @a and @b are the same. */
static bool same_raw(const struct btf *a, const struct btf *b)
{
	uint32_t na, nb;
	const void *ra = btf__raw_data(a, &na), *rb = btf__raw_data(b, &nb);

	return ra && rb && na == nb && !memcmp(ra, rb, na);
}

static struct btf *new_btf(void)
{
	struct btf *b = btf__new_empty();

	btf__set_pointer_size(b, 8);
	return b;
}

/* btf_dedup_prim_type(): equal INTs (btf_equal_int_tag) are one. */
static int test_int(void)
{
	const char *name = "int";
	struct btf *b = new_btf();

	btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_int(b, "int", 4, 0);		/* another encoding */
	b = dedup(b, NULL, 0);
	CHECK(b && count(b, BTF_KIND_INT, "int") == 2);
	btf__free(b);
	return 0;
}

/*
 * btf_dedup_prim_type() with btf_compat_enum(): an enum without values
 * (declared only) is the full enum of its name, even an ENUM64, and a
 * canonical declared one is redirected to a full one met later.
 */
static int test_enum_fwd(void)
{
	const char *name = "enum fwd";
	struct btf *b = new_btf();

	btf__add_enum(b, "e", 4);		/* declared only, first */
	btf__add_enum(b, "e", 4);
	btf__add_enum_value(b, "A", 1);
	btf__add_enum64(b, "f", 8, false);
	btf__add_enum64_value(b, "B", 1ull << 40);
	btf__add_enum(b, "f", 4);		/* declared, after the full */
	btf__add_enum(b, "g", 4);
	btf__add_enum_value(b, "C", 1);
	btf__add_enum(b, "g", 4);		/* other values: another enum */
	btf__add_enum_value(b, "C", 2);
	b = dedup(b, NULL, 0);
	CHECK(b);
	CHECK(count(b, BTF_KIND_ENUM, "e") == 1);
	CHECK(btf_vlen(btf__type_by_id(b, btf__find_by_name_kind(b, "e",
						BTF_KIND_ENUM))) == 1);
	CHECK(count(b, BTF_KIND_ENUM64, "f") == 1 &&
	      count(b, BTF_KIND_ENUM, "f") == 0);
	CHECK(count(b, BTF_KIND_ENUM, "g") == 2);
	btf__free(b);
	return 0;
}

/*
 * CU 1: struct b { int x; }; struct a { struct b *p; }
 * CU 2: struct b; struct a { struct b *p; }
 * Returns struct b's id.
 */
static int add_a_b(struct btf *b)
{
	int i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	int sb = btf__add_struct(b, "b", 4), pb;

	btf__add_field(b, "x", i, 0, 0);
	pb = btf__add_ptr(b, sb);
	btf__add_struct(b, "a", 8);
	btf__add_field(b, "p", pb, 0, 0);
	pb = btf__add_ptr(b, btf__add_fwd(b, "b", BTF_FWD_STRUCT));
	btf__add_struct(b, "a", 8);
	btf__add_field(b, "p", pb, 0, 0);
	return sb;
}

/*
 * btf_dedup_is_equiv() and btf_dedup_merge_hypot_map(): struct a { struct
 * b *p; } in a CU that declares b only (FWD) is the same struct a as in
 * a CU that defines b, and that FWD becomes struct b.
 */
static int test_fwd_by_graph(void)
{
	const char *name = "fwd by graph";
	struct btf *b = new_btf();

	add_a_b(b);
	b = dedup(b, NULL, 0);
	CHECK(b);
	CHECK(count(b, BTF_KIND_STRUCT, "a") == 1);
	CHECK(count(b, BTF_KIND_FWD, "b") == 0);
	CHECK(count(b, BTF_KIND_PTR, NULL) == 1);
	btf__free(b);
	return 0;
}

/*
 * btf_dedup_resolve_fwds(): a FWD no graph walk met becomes the struct of
 * its name when there is only one; with two structs of that name, it
 * stays a FWD (btf_dedup_fill_unique_names_map()).
 */
static int test_fwd_by_name(void)
{
	const char *name = "fwd by name";
	struct btf *b = new_btf();
	int i;

	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_struct(b, "c", 4);
	btf__add_field(b, "x", i, 0, 0);
	btf__add_ptr(b, btf__add_fwd(b, "c", BTF_FWD_STRUCT));
	btf__add_struct(b, "d", 4);
	btf__add_field(b, "x", i, 0, 0);
	btf__add_struct(b, "d", 8);		/* another struct d */
	btf__add_field(b, "y", i, 0, 0);
	btf__add_ptr(b, btf__add_fwd(b, "d", BTF_FWD_STRUCT));
	btf__add_fwd(b, "c", BTF_FWD_UNION);	/* a union c: no struct */
	b = dedup(b, NULL, 0);
	CHECK(b);
	CHECK(count(b, BTF_KIND_FWD, "c") == 1);	/* the union's */
	CHECK(count(b, BTF_KIND_FWD, "d") == 1);
	CHECK(count(b, BTF_KIND_STRUCT, "d") == 2);
	btf__free(b);
	return 0;
}

/* btf_dedup_is_equiv() on cycles: the hypothetical map meets itself. */
static int test_cycle(void)
{
	const char *name = "cycle";
	struct btf *b = new_btf();
	int cu, s, p;

	for (cu = 0; cu < 2; cu++) {
		/* struct l { struct l *next; struct m *m; }; struct m { struct l *l; } */
		s = btf__add_struct(b, "l", 16);
		p = btf__add_ptr(b, s);
		btf__add_field(b, "next", p, 0, 0);
		btf__add_field(b, "m", s + 3, 64, 0);
		btf__add_struct(b, "m", 8);
		btf__add_field(b, "l", p, 0, 0);
		btf__add_ptr(b, s + 2);
	}
	b = dedup(b, NULL, 0);
	CHECK(b);
	CHECK(count(b, BTF_KIND_STRUCT, "l") == 1);
	CHECK(count(b, BTF_KIND_STRUCT, "m") == 1);
	CHECK(count(b, BTF_KIND_PTR, NULL) == 2);
	btf__free(b);
	return 0;
}

/*
 * btf_dedup_identical_types(): a CU where the compiler made two copies of
 * one array type, one per member, is still the same struct as a CU with
 * one copy.
 */
static int test_identical_copies(void)
{
	const char *name = "identical copies";
	struct btf *b = new_btf();
	int i, a1, a2;

	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	a1 = btf__add_array(b, i, i, 4);
	btf__add_struct(b, "s", 32);
	btf__add_field(b, "a", a1, 0, 0);
	btf__add_field(b, "b", a1, 128, 0);
	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	a1 = btf__add_array(b, i, i, 4);
	a2 = btf__add_array(b, i, i, 4);
	btf__add_struct(b, "s", 32);
	btf__add_field(b, "a", a1, 0, 0);
	btf__add_field(b, "b", a2, 128, 0);
	b = dedup(b, NULL, 0);
	CHECK(b && count(b, BTF_KIND_STRUCT, "s") == 1);
	CHECK(count(b, BTF_KIND_ARRAY, NULL) == 1);
	btf__free(b);
	return 0;
}

/*
 * btf_shallow_equal_struct(), btf_compat_array(), btf_equal_fnproto():
 * anonymous structs alike are one, unlike ones stay two; arrays of other
 * lengths and prototypes with other parameter names stay apart.
 */
static int test_shapes(void)
{
	const char *name = "shapes";
	struct btf *b = new_btf();
	int i, cu;

	for (cu = 0; cu < 2; cu++) {
		i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
		btf__add_struct(b, NULL, 4);
		btf__add_field(b, "x", i, 0, 0);
		btf__add_struct(b, NULL, 4);
		btf__add_field(b, cu ? "y" : "z", i, 0, 0);
		btf__add_array(b, i, i, cu ? 3 : 5);
		btf__add_func_proto(b, i);
		btf__add_func_param(b, cu ? "a" : "b", i);
	}
	b = dedup(b, NULL, 0);
	CHECK(b);
	CHECK(count(b, BTF_KIND_STRUCT, "") == 3);
	CHECK(count(b, BTF_KIND_ARRAY, NULL) == 2);
	CHECK(count(b, BTF_KIND_FUNC_PROTO, NULL) == 2);
	btf__free(b);
	return 0;
}

/*
 * btf_dedup_struct_type() with typedefs (libbpf 1.7: btf_hash_typedef(),
 * btf_equal_typedef()): typedef t of a struct declared in one CU and
 * defined in the other is one typedef of the struct, and a typedef chain
 * (typedef u of t) follows.
 */
static int test_typedef_graph(void)
{
	const char *name = "typedef graph";
	struct btf *b = new_btf();
	int i, s, t;

	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	s = btf__add_struct(b, "n", 4);
	btf__add_field(b, "x", i, 0, 0);
	t = btf__add_typedef(b, "t", s);
	btf__add_typedef(b, "u", t);
	s = btf__add_fwd(b, "n", BTF_FWD_STRUCT);
	t = btf__add_typedef(b, "t", s);
	btf__add_typedef(b, "u", t);
	b = dedup(b, NULL, 0);
	CHECK(b);
	CHECK(count(b, BTF_KIND_TYPEDEF, "t") == 1);
	CHECK(count(b, BTF_KIND_TYPEDEF, "u") == 1);
	CHECK(count(b, BTF_KIND_FWD, NULL) == 0);
	btf__free(b);
	return 0;
}

/*
 * A module's types deduplicated over BASE (indexed here): split BTF.
 * BASE_TYPEDEFS: libbpf's rule after 1.8.0 (--dedup-base-typedefs).
 */
static struct btf *dedup_split_as(struct btf *in, struct btf *base,
				  bool base_typedefs)
{
	struct base_index *idx = NULL;
	struct btf_dedup *d = NULL;
	struct btf_view view;
	struct btf *out = NULL;

	if (btf_view__from_btf(&view, base))
		return NULL;
	if (base_index__new(&view, &idx) ||
	    !(d = btf_dedup__new(idx, base_typedefs)) ||
	    btf_dedup__run(d, in, base, NULL, 0, &out))
		out = NULL;
	btf_dedup__free(d);
	base_index__free(idx);
	btf_view__free(&view);
	btf__free(in);
	return out;
}

static struct btf *dedup_split(struct btf *in, struct btf *base)
{
	return dedup_split_as(in, base, false);
}

/* Types of @kind named @n (NULL: any) in split @btf's own part. */
static int count_own(const struct btf *btf, const struct btf *base, int kind,
		     const char *n)
{
	int id, c = 0;

	for (id = btf__type_cnt(base); id < (int)btf__type_cnt(btf); id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if ((kind < 0 || btf_kind(t) == kind) &&
		    (!n || !strcmp(btf__name_by_offset(btf, t->name_off), n)))
			c++;
	}
	return c;
}

/*
 * btf_dedup_struct_type() over a base, libbpf 1.7 and 1.8.0: a module's
 * typedefs are compared as graphs with each other, but never meet the
 * base's, which btf_dedup_prep() hashes by btf_hash_common(): typedef t
 * of a struct declared in one CU and defined in another is one typedef,
 * typedef u32 stays the module's though the base has it.
 */
static int test_split_typedefs(void)
{
	const char *name = "split typedefs";
	struct btf *base = new_btf(), *b;
	int i, s, p, f, fixed;

	i = btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	btf__add_typedef(base, "u32", i);
	/*
	 * With libbpf's rule after 1.8.0 (fixed = 1) typedef u32 is the
	 * base's, and only it changes.
	 */
	for (fixed = 0; fixed < 2; fixed++) {
		b = new_btf();
		i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
		btf__add_typedef(b, "u32", i);
		/*
		 * typedef void t(struct n *): n declared, defined,
		 * defined otherwise
		 */
		p = btf__add_ptr(b, btf__add_fwd(b, "n", BTF_FWD_STRUCT));
		f = btf__add_func_proto(b, 0);
		btf__add_func_param(b, NULL, p);
		btf__add_typedef(b, "t", f);
		s = btf__add_struct(b, "n", 4);
		btf__add_field(b, "x", i, 0, 0);
		p = btf__add_ptr(b, s);
		f = btf__add_func_proto(b, 0);
		btf__add_func_param(b, NULL, p);
		btf__add_typedef(b, "t", f);
		s = btf__add_struct(b, "n", 8);
		btf__add_field(b, "y", i, 0, 0);
		p = btf__add_ptr(b, s);
		f = btf__add_func_proto(b, 0);
		btf__add_func_param(b, NULL, p);
		btf__add_typedef(b, "t", f);
		b = dedup_split_as(b, base, fixed);
		CHECK(b);
		CHECK(count_own(b, base, BTF_KIND_INT, NULL) == 0);
		CHECK(count_own(b, base, BTF_KIND_TYPEDEF, "u32") == !fixed);
		CHECK(count_own(b, base, BTF_KIND_TYPEDEF, "t") == 2);
		CHECK(count_own(b, base, BTF_KIND_FWD, NULL) == 0);
		btf__free(b);
	}
	btf__free(base);
	return 0;
}

/*
 * hashmap.c under btf_dedup_prep() and btf_dedup_table_add(): of equal
 * candidates, libbpf takes the first of a bucket's list, which each
 * growth of the map reverses.  Here the base's 4 types grew the map twice
 * (before its 1st and 4th entries): of the two equal prototypes, added
 * after one growth, the first comes first; the pointer to it is then the
 * base's too, and the module keeps nothing.
 */
static int test_split_cand_order(void)
{
	const char *name = "split candidate order";
	struct btf *base = new_btf(), *b = new_btf();
	int p;

	btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	p = btf__add_func_proto(base, 0);
	btf__add_func_proto(base, 0);		/* a copy (resolve_btfids) */
	btf__add_ptr(base, p);
	btf__add_ptr(b, btf__add_func_proto(b, 0));
	b = dedup_split(b, base);
	CHECK(b);
	CHECK(count_own(b, base, -1, NULL) == 0);
	btf__free(b);
	btf__free(base);
	return 0;
}

/*
 * btf_dedup_new(): VAR and DATASEC are never deduplicated; and the type
 * ids we hold follow their types to the output (btf_dedup_remap_types()
 * does the same for .BTF.ext).
 */
static int test_vars_and_ids(void)
{
	const char *name = "vars and ids";
	struct btf *b = new_btf();
	uint32_t i1, i2, p2, v;
	uint32_t *ids[3] = { &i1, &i2, &p2 };

	i1 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	i2 = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	p2 = btf__add_ptr(b, i2);
	v = btf__add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, i2);
	btf__add_var(b, "v", BTF_VAR_GLOBAL_ALLOCATED, i2);
	btf__add_datasec(b, ".data", 8);
	btf__add_datasec_var_info(b, v, 0, 4);
	b = dedup(b, ids, 3);
	CHECK(b);
	CHECK(count(b, BTF_KIND_VAR, "v") == 2);
	CHECK(count(b, BTF_KIND_INT, NULL) == 1);
	CHECK(i1 == i2 && btf_is_int(btf__type_by_id(b, i1)));
	CHECK(btf_is_ptr(btf__type_by_id(b, p2)) &&
	      btf__type_by_id(b, p2)->type == i1);
	btf__free(b);
	return 0;
}

/*
 * Ours, not libbpf's: a batch's dedup (btf_dedup__batch()) leaves FWDs and
 * declared enums of the names it is told to keep, by graph and by name,
 * notes the names it resolves, and fwd_names__conflicts() finds those the
 * final output defines twice.
 */
static int test_batch(void)
{
	const char *name = "batch";
	struct key_set keep = { 0 }, resolved = { 0 }, conflicts = { 0 };
	struct btf_dedup *d = btf_dedup__new(NULL, false);
	struct btf *b = new_btf(), *out = NULL, *two;
	int i, sb, id;

	/* add_a_b(); a FWD c and struct c; enum e declared and defined */
	sb = add_a_b(b);
	i = btf__find_by_name_kind(b, "int", BTF_KIND_INT);
	btf__add_ptr(b, btf__add_fwd(b, "c", BTF_FWD_STRUCT));
	btf__add_struct(b, "c", 4);
	btf__add_field(b, "x", i, 0, 0);
	btf__add_enum(b, "e", 4);
	btf__add_enum(b, "e", 4);
	btf__add_enum_value(b, "A", 1);
	two = btf__new_empty();
	CHECK(d && two);
	/* keep b and e: as if another batch defined them otherwise */
	CHECK(!key_set__add(&keep, fwd_names__key(b, btf__type_by_id(b, sb))));
	id = btf__find_by_name_kind(b, "e", BTF_KIND_ENUM);
	CHECK(!key_set__add(&keep, fwd_names__key(b, btf__type_by_id(b, id))));
	key_set__sort(&keep);
	btf_dedup__batch(d, &keep, &resolved);
	CHECK(!btf_dedup__run(d, b, NULL, NULL, 0, &out));
	CHECK(count(out, BTF_KIND_STRUCT, "a") == 2);
	CHECK(count(out, BTF_KIND_FWD, "b") == 1);
	CHECK(count(out, BTF_KIND_FWD, "c") == 0);
	CHECK(count(out, BTF_KIND_ENUM, "e") == 2);
	/* c was resolved: only its name is noted */
	key_set__sort(&resolved);
	id = btf__find_by_name_kind(out, "c", BTF_KIND_STRUCT);
	CHECK(resolved.nr == 1 &&
	      key_set__has(&resolved, fwd_names__key(out, btf__type_by_id(out, id))));
	/* an output with two struct c conflicts with that guess */
	i = btf__add_int(two, "int", 4, BTF_INT_SIGNED);
	btf__add_struct(two, "c", 4);
	btf__add_field(two, "x", i, 0, 0);
	CHECK(fwd_names__conflicts(&resolved, two, &conflicts) == 0);
	btf__add_struct(two, "c", 8);
	btf__add_field(two, "y", i, 0, 0);
	CHECK(fwd_names__conflicts(&resolved, two, &conflicts) == 1);
	btf__free(two);
	btf__free(out);
	btf__free(b);
	btf_dedup__free(d);
	key_set__free(&keep);
	key_set__free(&resolved);
	key_set__free(&conflicts);
	return 0;
}

/*
 * btf_dedup__run_concat(): the merged types read where the merge left
 * them (a BTF borrowed, types of its own after it; or all of them its
 * own) give the bytes, and the candidates' type ids, that a dedup of the
 * same types flushed into one BTF gives.
 */
static int test_concat_input(void)
{
	const char *name = "concatenation read in place";
	struct btf *one = new_btf(), *two = new_btf(), *merged = NULL;
	struct btf *flushed = NULL, *out = NULL, *in_place = NULL;
	struct btf_concat cat = { 0 }, add = { 0 };
	struct btf_dedup *d = btf_dedup__new(NULL, false);
	unsigned char *raw = NULL;
	uint32_t first, ids[2], flushed_ids[2];
	uint32_t *id_ptrs[2] = { &ids[0], &ids[1] };
	uint32_t *flushed_id_ptrs[2] = { &flushed_ids[0], &flushed_ids[1] };
	int s, p;

	for (p = 0; p < 2; p++) {
		struct btf *b = p ? two : one;

		btf__add_int(b, "int", 4, BTF_INT_SIGNED);
		s = btf__add_struct(b, "s", 8);
		btf__add_field(b, "next", s + 1, 0, 0);
		btf__add_ptr(b, s);
		if (p)
			btf__add_typedef(b, "s_t", s);
	}
	CHECK(d && !btf_concat__reset(&cat, one) &&
	      !btf_concat__add(&cat, two, &first));
	CHECK(!btf_concat__to_btf(&cat, 8, &merged));
	/* What the decisions add after the merged types: new strings too. */
	CHECK(!btf_concat__borrow(&add, merged));
	p = btf_concat__add_func_proto(&add, 1);
	CHECK(p > 0 && btf_concat__add_func_param(&add, "x", 3) == 0);
	CHECK(btf_concat__add_func(&add, "f", BTF_FUNC_GLOBAL, p) > 0);
	CHECK(!btf_concat__to_btf(&add, 8, &flushed));
	/* The two "struct s *" move to the one the output keeps. */
	ids[0] = flushed_ids[0] = 3;
	ids[1] = flushed_ids[1] = first + 2;
	CHECK(!btf_dedup__run(d, flushed, NULL, flushed_id_ptrs, 2, &out));
	btf_concat__drop_index(&add);
	CHECK(!btf_dedup__run_concat(d, &add, id_ptrs, 2, &raw));
	CHECK(!btf_load__raw(raw, 8, &in_place));
	CHECK(same_raw(out, in_place));
	CHECK(count(out, BTF_KIND_STRUCT, "s") == 1 &&
	      count(out, BTF_KIND_FUNC, "f") == 1);
	CHECK(ids[0] == flushed_ids[0] && ids[1] == flushed_ids[1] &&
	      ids[0] == ids[1] && btf_is_ptr(btf__type_by_id(out, ids[0])));
	/* The merged types, not flushed: the bytes of the flushed ones. */
	btf__free(out);
	btf__free(in_place);
	out = in_place = NULL;
	CHECK(!btf_dedup__run(d, merged, NULL, NULL, 0, &out));
	btf_concat__drop_index(&cat);
	CHECK(!btf_dedup__run_concat(d, &cat, NULL, 0, &raw));
	CHECK(!btf_load__raw(raw, 8, &in_place));
	CHECK(same_raw(out, in_place));
	btf__free(one);
	btf__free(two);
	btf__free(merged);
	btf__free(flushed);
	btf__free(out);
	btf__free(in_place);
	btf_concat__free(&cat);
	btf_concat__free(&add);
	btf_dedup__free(d);
	return 0;
}

int main(void)
{
	if (test_int() || test_enum_fwd() || test_fwd_by_graph() ||
	    test_fwd_by_name() || test_cycle() || test_identical_copies() ||
	    test_shapes() || test_typedef_graph() || test_vars_and_ids() ||
	    test_batch() || test_split_typedefs() || test_split_cand_order() ||
	    test_concat_input())
		return 1;
	printf("ok\n");
	return 0;
}
