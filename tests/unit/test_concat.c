// SPDX-License-Identifier: GPL-2.0-only
/*
 * src/merge/btf_concat.c: appending BTFs gives the bytes libbpf's
 * btf__add_btf() gives (the merge took libbpf's before, and the output's
 * string order follows it): every kind that names strings or refers to
 * types, strings the merged BTF has already, a name pointing into the
 * middle of a string, a first BTF with a string twice, an empty BTF; and
 * the types the decisions add after it, as libbpf's btf__add_*() add them,
 * after a copy or after the bytes of a BTF borrowed; the types read by id
 * and their names as libbpf reads them from the same bytes.
 * Split BTF is refused.  Prints "ok" and exits 0, else names the failed
 * check and exits 1.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/btf_ids.h"
#include "merge/btf_concat.h"
#include "check.h"

static struct btf *new_btf(void)
{
	struct btf *b = btf__new_empty();

	btf__set_pointer_size(b, 8);
	return b;
}

/* A "CU" with every kind; @tag varies the names. */
static struct btf *cu(const char *tag)
{
	struct btf *b = new_btf();
	char n[64];
	int i, s, p, e;

	i = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	btf__add_int(b, "long", 8, BTF_INT_SIGNED);
	p = btf__add_ptr(b, 0);
	snprintf(n, sizeof(n), "s_%s", tag);
	s = btf__add_struct(b, n, 16);
	btf__add_field(b, "a", i, 0, 0);
	btf__add_field(b, tag, p, 64, 0);
	btf__add_field(b, "", i, 96, 3);
	btf__add_union(b, "u", 4);
	btf__add_field(b, "x", i, 0, 0);
	btf__add_const(b, s);
	btf__add_volatile(b, s);
	btf__add_restrict(b, p);
	btf__add_typedef(b, "s_t", s);
	btf__add_array(b, i, i, 4);
	e = btf__add_enum(b, "e", 4);
	btf__add_enum_value(b, "E1", 1);
	btf__add_enum_value(b, tag, 2);
	btf__add_enum64(b, "e64", 8, false);
	btf__add_enum64_value(b, "BIG", 1ull << 40);
	btf__add_fwd(b, "fwd", BTF_FWD_STRUCT);
	btf__add_float(b, "double", 8);
	p = btf__add_func_proto(b, i);
	snprintf(n, sizeof(n), "p1_%s", tag);
	btf__add_func_param(b, n, s);
	snprintf(n, sizeof(n), "p2_%s", tag);
	btf__add_func_param(b, n, e);
	btf__add_func(b, "f", BTF_FUNC_GLOBAL, p);
	snprintf(n, sizeof(n), "v_%s", tag);
	i = btf__add_var(b, n, BTF_VAR_GLOBAL_ALLOCATED, i);
	btf__add_datasec(b, ".data", 4);
	btf__add_datasec_var_info(b, i, 0, 4);
	btf__add_decl_tag(b, "tag", s, 1);
	btf__add_type_tag(b, "user", p);
	return b;
}

/* libbpf's merge: the first BTF as it is, the others btf__add_btf()'d. */
static struct btf *by_libbpf(struct btf **in, int n)
{
	uint32_t size;
	const void *raw = btf__raw_data(in[0], &size);
	struct btf *acc = btf__new(raw, size);
	int i;

	for (i = 1; acc && i < n; i++)
		if (btf__add_btf(acc, in[i]) < 0)
			return NULL;
	return acc;
}

static struct btf *by_concat(struct btf **in, int n)
{
	struct btf_concat c = { 0 };
	struct btf *out = NULL;
	uint32_t first;
	int i, err = btf_concat__reset(&c, in[0]);

	for (i = 1; !err && i < n; i++) {
		uint32_t want = c.nr_types + 1;

		err = btf_concat__add(&c, in[i], &first);
		if (!err && first != want)
			err = -EINVAL;
	}
	if (!err)
		err = btf_concat__to_btf(&c, 8, &out);
	btf_concat__free(&c);
	return err ? NULL : out;
}

static int same_bytes(struct btf *a, struct btf *b)
{
	uint32_t na, nb;
	const void *ra = btf__raw_data(a, &na), *rb = btf__raw_data(b, &nb);

	return ra && rb && na == nb && !memcmp(ra, rb, na);
}

/* @b's raw bytes again, with the name of its type @id moved by @delta. */
static struct btf *moved_name(struct btf *b, uint32_t id, int delta)
{
	uint32_t size;
	const struct btf_header *h = btf__raw_data(b, &size);
	unsigned char *raw = malloc(size), *p;
	struct btf *out;
	uint32_t i;

	memcpy(raw, h, size);
	p = raw + h->hdr_len + h->type_off;
	for (i = 1; i < id; i++)
		p += (const unsigned char *)btf__type_by_id(b, i + 1) -
		     (const unsigned char *)btf__type_by_id(b, i);
	((struct btf_type *)p)->name_off += delta;
	out = btf__new(raw, size);
	free(raw);
	return out;
}

static int test_same_as_libbpf(void)
{
	const char *name = "same_as_libbpf";
	struct btf *in[4] = { cu("one"), cu("two"), cu("one"), new_btf() };
	struct btf *want = by_libbpf(in, 4), *got = by_concat(in, 4);
	int i;

	CHECK(want && got);
	CHECK(btf__type_cnt(got) == btf__type_cnt(want));
	CHECK(btf__type_cnt(got) == 3 * (btf__type_cnt(in[0]) - 1) + 1);
	CHECK(same_bytes(want, got));
	btf__free(want);
	btf__free(got);
	for (i = 0; i < 4; i++)
		btf__free(in[i]);
	return 0;
}

static int test_inner_name(void)
{
	const char *name = "inner_name";
	struct btf *b = new_btf(), *in[2];
	struct btf *want, *got;
	int s;

	btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	s = btf__add_struct(b, "foobar", 4);
	btf__add_field(b, "y", 1, 0, 0);
	/* the struct now names "obar": a string of its own in the merge */
	in[0] = cu("zero");
	in[1] = moved_name(b, s, 2);
	CHECK(in[1]);
	want = by_libbpf(in, 2);
	got = by_concat(in, 2);
	CHECK(want && got && same_bytes(want, got));
	CHECK(!strcmp(btf__name_by_offset(got, btf__type_by_id(got,
			btf__type_cnt(in[0]) - 1 + s)->name_off), "obar"));
	btf__free(want);
	btf__free(got);
	btf__free(in[0]);
	btf__free(in[1]);
	btf__free(b);
	return 0;
}

/* A first BTF whose string section has "dup" twice: the first one wins. */
static int test_twice_first(void)
{
	const char *name = "twice_first";
	struct {
		struct btf_header h;
		uint32_t types[8];	/* two INTs: type, then its word */
		char strs[9];
	} raw = {
		.h = { .magic = BTF_MAGIC, .version = BTF_VERSION,
		       .hdr_len = sizeof(struct btf_header),
		       .type_len = sizeof(raw.types),
		       .str_off = sizeof(raw.types), .str_len = 9 },
		.types = { 1, BTF_KIND_INT << 24, 4, 32,	/* "dup" at 1 */
			   5, BTF_KIND_INT << 24, 4, 32 },	/* at 5 */
		.strs = "\0dup\0dup",
	};
	struct btf *in[2], *want, *got;

	in[0] = btf__new(&raw, sizeof(raw.h) + sizeof(raw.types) + 9);
	CHECK(in[0]);
	in[1] = new_btf();
	btf__add_int(in[1], "dup", 8, 0);
	want = by_libbpf(in, 2);
	got = by_concat(in, 2);
	CHECK(want && got && same_bytes(want, got));
	CHECK(btf__type_by_id(got, 3)->name_off == 1);
	btf__free(want);
	btf__free(got);
	btf__free(in[0]);
	btf__free(in[1]);
	return 0;
}

/*
 * The decisions' types added to a merged BTF: the same bytes as libbpf's
 * btf__add_*() on it, strings it has, strings it has not, in one order.
 */
static int test_added_types(bool borrow)
{
	const char *name = borrow ? "added_types_borrowed" : "added_types";
	struct btf *in = cu("one"), *want, *got = NULL;
	struct btf_concat c = { 0 };
	uint32_t size, n = btf__type_cnt(in);
	const void *raw = btf__raw_data(in, &size);
	int id, p, v, tag;

	want = btf__new(raw, size);
	CHECK(want && !(borrow ? btf_concat__borrow(&c, in) :
			btf_concat__reset(&c, in)));
	/* appending a BTF is for a copy of our own */
	CHECK(!borrow || btf_concat__add(&c, want, &(uint32_t){ 0 }) ==
			 -EINVAL);
	/* libbpf's */
	tag = btf__add_type_tag(want, "address_space(1)", 1);
	((struct btf_type *)btf__type_by_id(want, tag))->info |= 1u << 31;
	btf__add_ptr(want, tag);
	p = btf__add_func_proto(want, 1);
	btf__add_func_param(want, "p1_one", 2);	/* a string it has */
	btf__add_func_param(want, "fresh", 3);
	btf__add_func_param(want, NULL, 0);
	id = btf__add_func(want, "f_new", BTF_FUNC_STATIC, p);
	btf__add_decl_tag(want, "bpf_kfunc", id, -1);
	btf__add_decl_tag(want, "tag", id, 1);
	v = btf__add_var(want, "v_new", BTF_VAR_GLOBAL_ALLOCATED, 1);
	btf__add_datasec(want, ".data..percpu", 12);
	btf__add_datasec_var_info(want, v, 0, 4);
	btf__add_datasec_var_info(want, v, 8, 4);
	/* ours */
	tag = btf_concat__add_type_tag(&c, "address_space(1)", 1, true);
	CHECK(tag == (int)n);
	CHECK(btf_concat__add_ptr(&c, tag) == (int)n + 1);
	p = btf_concat__add_func_proto(&c, 1);
	CHECK(!btf_concat__add_func_param(&c, "p1_one", 2) &&
	      !btf_concat__add_func_param(&c, "fresh", 3) &&
	      !btf_concat__add_func_param(&c, NULL, 0));
	id = btf_concat__add_func(&c, "f_new", BTF_FUNC_STATIC, p);
	CHECK(btf_concat__add_decl_tag(&c, "bpf_kfunc", id, -1) > 0 &&
	      btf_concat__add_decl_tag(&c, "tag", id, 1) > 0);
	v = btf_concat__add_var(&c, "v_new", BTF_VAR_GLOBAL_ALLOCATED, 1);
	CHECK(btf_concat__add_datasec(&c, ".data..percpu", 12) > 0);
	CHECK(!btf_concat__add_datasec_var_info(&c, v, 0, 4) &&
	      !btf_concat__add_datasec_var_info(&c, v, 8, 4));
	/* an entry for a type of another kind, a name that is needed */
	CHECK(btf_concat__add_func_param(&c, "x", 1) == -EINVAL);
	CHECK(btf_concat__add_func(&c, "", BTF_FUNC_STATIC, p) == -EINVAL);
	CHECK(!btf_concat__to_btf(&c, 8, &got));
	CHECK(btf__type_cnt(got) == btf__type_cnt(want));
	CHECK(same_bytes(want, got));
	btf_concat__free(&c);
	btf__free(want);
	btf__free(got);
	btf__free(in);
	return 0;
}

/*
 * Every type read by id and every name read by offset is what libbpf
 * reads from the same bytes, borrowed or our own; types added after the
 * index are not found, nor ids and offsets past the end.
 */
static int test_read_by_id(bool borrow)
{
	const char *name = borrow ? "read_by_id_borrowed" : "read_by_id";
	struct btf *in[2] = { cu("one"), cu("two") }, *want = by_libbpf(in, 2);
	struct btf_concat c = { 0 };
	uint32_t first, n, i, off;
	const char *s;

	CHECK(want && !btf_concat__reset(&c, in[0]));
	CHECK(borrow ? !btf_concat__borrow(&c, want) :
		       !btf_concat__add(&c, in[1], &first));
	/* not indexed yet */
	CHECK(!btf_concat__type_by_id(&c, 1));
	CHECK(!btf_concat__index_types(&c));
	n = btf__type_cnt(want);
	CHECK(c.nr_types == n - 1);
	for (i = 1; i < n; i++) {
		const struct btf_type *a = btf__type_by_id(want, i);
		const struct btf_type *b = btf_concat__type_by_id(&c, i);

		CHECK(b && !memcmp(a, b, btf_type__size(a)));
		s = btf_concat__name_by_offset(&c, b->name_off);
		CHECK(s && !strcmp(s, btf__name_by_offset(want, a->name_off)));
	}
	CHECK(!btf_concat__type_by_id(&c, 0) && !btf_concat__type_by_id(&c, n));
	CHECK(btf_concat__add_ptr(&c, 1) == (int)n);
	CHECK(!btf_concat__type_by_id(&c, n));
	off = c.base_strs_len + c.strs_len;
	CHECK(btf_concat__name_by_offset(&c, off - 1) &&
	      !btf_concat__name_by_offset(&c, off));
	btf_concat__free(&c);
	btf__free(want);
	btf__free(in[0]);
	btf__free(in[1]);
	return 0;
}

/*
 * A concatenation of no types at all, as a final dedup may read one
 * (make fuzz): nothing to point at, no pointer formed from NULL.
 */
static int test_no_types(void)
{
	const char *name = "no_types";
	struct btf *empty = new_btf();
	struct btf_concat c = { 0 };

	CHECK(!btf_concat__reset(&c, empty) && c.nr_types == 0);
	CHECK(!btf_concat__type_ptrs(&c, NULL));
	CHECK(!btf_concat__index_types(&c) && !btf_concat__type_by_id(&c, 1));
	CHECK(!btf_concat__borrow(&c, empty));
	CHECK(!btf_concat__type_ptrs(&c, NULL));
	btf_concat__free(&c);
	btf__free(empty);
	return 0;
}

static int test_refused(void)
{
	const char *name = "refused";
	struct btf_concat c = { 0 };
	struct btf *b = cu("one"), *base = cu("base"), *split;
	uint32_t first;

	/* never reset */
	CHECK(btf_concat__add(&c, b, &first) == -EINVAL);
	CHECK(btf_concat__reset(&c, b) == 0);
	/* an empty BTF: nothing appended, the next id */
	split = new_btf();
	CHECK(btf_concat__add(&c, split, &first) == 0);
	CHECK(first == btf__type_cnt(b) && c.nr_types == btf__type_cnt(b) - 1);
	btf__free(split);
	/* ids not there yet (stricter than libbpf), linkages, components */
	CHECK(btf_concat__add_ptr(&c, c.nr_types + 1) == -EINVAL);
	CHECK(btf_concat__add_func(&c, "f", 3, 1) == -EINVAL);
	CHECK(btf_concat__add_var(&c, "v", 3, 1) == -EINVAL);
	CHECK(btf_concat__add_decl_tag(&c, "t", 1, -2) == -EINVAL);
	/* a parameter after an append: the last type is no longer ours */
	CHECK(btf_concat__add_func_proto(&c, 0) > 0);
	CHECK(btf_concat__add(&c, b, &first) == 0);
	CHECK(btf_concat__add_func_param(&c, "x", 1) == -EINVAL);
	/* split BTF: its ids are not its own */
	split = btf__new_empty_split(base);
	CHECK(split && btf__add_int(split, "x", 4, 0) > 0);
	CHECK(btf_concat__add(&c, split, &first) == -EINVAL);
	CHECK(btf_concat__reset(&c, split) == -EINVAL);
	btf_concat__free(&c);
	btf__free(split);
	btf__free(base);
	btf__free(b);
	return 0;
}

int main(void)
{
	if (test_same_as_libbpf() || test_inner_name() ||
	    test_twice_first() || test_added_types(false) ||
	    test_added_types(true) || test_read_by_id(false) ||
	    test_read_by_id(true) || test_no_types() || test_refused())
		return 1;
	printf("ok\n");
	return 0;
}
