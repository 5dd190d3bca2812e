// SPDX-License-Identifier: GPL-2.0-only
/*
 * `dwarf2btf diff`: compare two BTF blobs by meaning, not by type ids.
 *
 * Every interesting type becomes an item: a key ("struct foo", "func bar")
 * plus a one-line rendering of its full layout in which references to
 * other types are spelled as C-like type strings.  Items of both sides are
 * sorted by (category, key, rendering) and merged; items sharing a key are
 * compared as multisets of renderings, since several distinct types may
 * share a name.  For an item changed on both sides the renderings are
 * also split into components (members, enumerators, ...) and only the
 * differing components are printed.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf_diff.h"
#include "btf_load.h"

/*
 * Limits against malformed BTF: reference cycles show up as endless
 * modifier chains or endless nesting of anonymous types, and a DAG of
 * anonymous types shared many times could expand exponentially.
 */
#define MAX_DEPTH	128		/* nested anonymous types / protos */
#define MAX_CHAIN	256		/* modifiers in a row */
#define MAX_STR		(16u << 20)	/* bytes in one rendering */

enum cat { CAT_TYPES, CAT_FUNCS, CAT_VARS, CAT_TAGS, CAT_NR };

static const char *const cat_names[CAT_NR] = {
	"types", "funcs", "vars", "tags",
};

struct sbuf {
	char *s;
	size_t len;
	size_t cap;
	int err;	/* sticky: after a failure further appends are dropped */
};

struct item {
	char *key;	/* "struct foo"; for anonymous items the rendering */
	char *disp;	/* the full one-line rendering */
	char *comps;	/* components, one per line, for partial diffs */
	enum cat cat;
};

struct items {
	struct item *v;
	size_t n;
	size_t cap;
};

struct render {
	const struct btf *btf;
	__u32 cnt;
	/* by id: inline text of anonymous types, parameter lists of protos */
	char **memo;
	int err;	/* first error: -ELOOP, -E2BIG, -ENOMEM, -EINVAL */
};


struct side {
	const char *path;
	const char *base_path;
	struct btf *base;
	struct btf *btf;
	struct items items;
};

struct opts {
	bool kinds[CAT_NR];
	bool no_base_dups;
	bool summary;
	bool quiet;
	bool verbose;
};

struct counts {
	size_t only_a[CAT_NR];
	size_t only_b[CAT_NR];
	size_t differ[CAT_NR];
};

/* string buffer */

static void sb_reserve(struct sbuf *b, size_t extra)
{
	size_t need, cap;
	char *s;

	if (b->err)
		return;
	if (extra > MAX_STR || b->len + extra > MAX_STR) {
		b->err = -E2BIG;
		return;
	}
	need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	s = realloc(b->s, cap);
	if (!s) {
		b->err = -ENOMEM;
		return;
	}
	if (!b->s)
		s[0] = '\0';
	b->s = s;
	b->cap = cap;
}

static void sb_addn(struct sbuf *b, const char *s, size_t n)
{
	sb_reserve(b, n);
	if (b->err)
		return;
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void sb_add(struct sbuf *b, const char *s)
{
	sb_addn(b, s, strlen(s));
}

static void sb_addc(struct sbuf *b, char c)
{
	sb_addn(b, &c, 1);
}

static void __attribute__((format(printf, 2, 3)))
sb_addf(struct sbuf *b, const char *fmt, ...)
{
	char tmp[128];	/* only numbers and short words are formatted */
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	sb_addn(b, tmp, n);
}

static void sb_add_sb(struct sbuf *b, const struct sbuf *o)
{
	if (o->err && !b->err)
		b->err = o->err;
	if (o->len)
		sb_addn(b, o->s, o->len);
}

static void sb_prepend(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);

	sb_reserve(b, n);
	if (b->err)
		return;
	memmove(b->s + n, b->s, b->len + 1);
	memcpy(b->s, s, n);
	b->len += n;
}

/* Names come from the file: keep control bytes out of the one-line output. */
static void sb_add_name(struct sbuf *b, const char *name)
{
	const char *p;

	for (p = name; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			break;
	}
	if (!*p) {
		sb_addn(b, name, p - name);
		return;
	}
	for (p = name; *p; p++)
		sb_addc(b, ((unsigned char)*p < 0x20 || *p == 0x7f) ? '?' : *p);
}

static void sb_free(struct sbuf *b)
{
	free(b->s);
	memset(b, 0, sizeof(*b));
}

/* Hand the string over to the caller; NULL (and freed) on error. */
static char *sb_take(struct sbuf *b, int *err)
{
	char *s;

	sb_reserve(b, 0);
	if (b->err) {
		if (!*err)
			*err = b->err;
		sb_free(b);
		return NULL;
	}
	s = b->s;
	memset(b, 0, sizeof(*b));
	return s;
}

/* Keep @b's text as the memo of @id; non-zero (r->err set) on failure. */
static int memo_store(struct render *r, __u32 id, struct sbuf *b)
{
	int err = 0;

	r->memo[id] = sb_take(b, &err);
	if (!r->memo[id])
		r->err = err ? err : -ENOMEM;
	return !r->memo[id];
}

/* rendering */

/*
 * A buffer that failed (too large, no memory) stops the whole rendering:
 * without this a shared sub-graph would still be walked exponentially.
 */
static bool sb_failed(struct render *r, const struct sbuf *b)
{
	if (b->err && !r->err)
		r->err = b->err;
	return r->err;
}

static const char *kind_name(__u16 kind)
{
	static const char *const names[] = {
		[BTF_KIND_UNKN] = "unknown",	[BTF_KIND_INT] = "int",
		[BTF_KIND_PTR] = "ptr",		[BTF_KIND_ARRAY] = "array",
		[BTF_KIND_STRUCT] = "struct",	[BTF_KIND_UNION] = "union",
		[BTF_KIND_ENUM] = "enum",	[BTF_KIND_FWD] = "fwd",
		[BTF_KIND_TYPEDEF] = "typedef",	[BTF_KIND_VOLATILE] = "volatile",
		[BTF_KIND_CONST] = "const",	[BTF_KIND_RESTRICT] = "restrict",
		[BTF_KIND_FUNC] = "func",	[BTF_KIND_FUNC_PROTO] = "func_proto",
		[BTF_KIND_VAR] = "var",		[BTF_KIND_DATASEC] = "datasec",
		[BTF_KIND_FLOAT] = "float",	[BTF_KIND_DECL_TAG] = "decl_tag",
		[BTF_KIND_TYPE_TAG] = "type_tag", [BTF_KIND_ENUM64] = "enum64",
	};

	if (kind < sizeof(names) / sizeof(names[0]) && names[kind])
		return names[kind];
	return "kind?";
}

static const char *linkage_name(unsigned int linkage)
{
	switch (linkage) {
	case 0:
		return "static";
	case 1:
		return "global";
	case 2:
		return "extern";
	default:
		return "linkage?";
	}
}

static const struct btf_type *type_at(struct render *r, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(r->btf, id);

	if (!t && !r->err)
		r->err = -EINVAL;
	return t;
}

static const char *name_at(struct render *r, __u32 off)
{
	const char *s = btf__name_by_offset(r->btf, off);

	return s ? s : "?";
}

/* the word after an INT type: encoding, offset and bits */
static __u32 int_word(const struct btf_type *t)
{
	return *(const __u32 *)(t + 1);
}

static bool is_modifier(__u16 kind)
{
	return kind == BTF_KIND_CONST || kind == BTF_KIND_VOLATILE ||
	       kind == BTF_KIND_RESTRICT || kind == BTF_KIND_TYPE_TAG;
}

/* Types that end a declarator chain and are spelled by name (or inline). */
static bool is_leaf(__u16 kind)
{
	return !is_modifier(kind) && kind != BTF_KIND_PTR &&
	       kind != BTF_KIND_ARRAY && kind != BTF_KIND_FUNC_PROTO;
}

/* Is the first non-modifier type from @id on spelled by name? */
static bool leaf_after_modifiers(struct render *r, __u32 id)
{
	const struct btf_type *t;
	int steps;

	for (steps = 0; steps < MAX_CHAIN && id; steps++) {
		t = type_at(r, id);
		if (!t)
			return true;
		if (!is_modifier(btf_kind(t)))
			return is_leaf(btf_kind(t));
		id = t->type;
	}
	if (id && !r->err)
		r->err = -ELOOP;
	return true;
}

static void render_decl(struct render *r, __u32 id, const char *name,
			struct sbuf *out, int depth);
static void render_composite(struct render *r, const struct btf_type *t,
			     const char *kw, const char *name,
			     struct sbuf *disp, struct sbuf *comps, int depth);
static void render_enum(struct render *r, const struct btf_type *t,
			const char *kw, const char *name,
			struct sbuf *disp, struct sbuf *comps);

/* Anonymous struct/union/enum spelled inline by layout, memoised. */
static void render_anon(struct render *r, __u32 id, const struct btf_type *t,
			struct sbuf *out, int depth)
{
	struct sbuf tmp = {};

	if (!r->memo[id]) {
		if (btf_is_composite(t))
			render_composite(r, t, btf_is_union(t) ? "union" :
					 "struct", "", &tmp, NULL, depth + 1);
		else
			render_enum(r, t, "enum", "", &tmp, NULL);
		if (r->err) {
			sb_free(&tmp);
			return;
		}
		if (memo_store(r, id, &tmp))
			return;
	}
	sb_add(out, r->memo[id]);
}

/* The spelling of a type that ends a declarator chain. */
static void render_leaf(struct render *r, __u32 id, struct sbuf *out,
			int depth)
{
	const struct btf_type *t;
	const char *name;

	if (!id) {
		sb_add(out, "void");
		return;
	}
	t = type_at(r, id);
	if (!t)
		return;
	name = name_at(r, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (!*name) {
			render_anon(r, id, t, out, depth);
			return;
		}
		sb_add(out, btf_is_union(t) ? "union " :
		       btf_is_composite(t) ? "struct " : "enum ");
		break;
	case BTF_KIND_FWD:
		sb_add(out, btf_kflag(t) ? "union " : "struct ");
		break;
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPEDEF:
		break;
	default:
		/* not a type (func, var, ...): malformed, but say what it is */
		sb_addc(out, '<');
		sb_add(out, kind_name(btf_kind(t)));
		sb_add(out, *name ? " " : "");
		sb_add_name(out, name);
		sb_addc(out, '>');
		return;
	}
	sb_add_name(out, *name ? name : "(anon)");
}

/* "(int a, char *b, ...)" of prototype @id, memoised */
static void render_params(struct render *r, __u32 id,
			  const struct btf_type *t, struct sbuf *out,
			  int depth)
{
	const struct btf_param *p = btf_params(t);
	__u16 i, vlen = btf_vlen(t);
	struct sbuf tmp = {};

	if (r->memo[id]) {
		sb_add(out, r->memo[id]);
		return;
	}
	sb_addc(&tmp, '(');
	if (!vlen)
		sb_add(&tmp, "void");
	for (i = 0; i < vlen && !sb_failed(r, &tmp); i++) {
		if (i)
			sb_add(&tmp, ", ");
		if (i == vlen - 1 && !p[i].type && !p[i].name_off)
			sb_add(&tmp, "...");
		else
			render_decl(r, p[i].type, name_at(r, p[i].name_off),
				    &tmp, depth + 1);
	}
	sb_addc(&tmp, ')');
	if (sb_failed(r, &tmp)) {
		sb_free(&tmp);
		return;
	}
	if (memo_store(r, id, &tmp))
		return;
	sb_add(out, r->memo[id]);
}

/*
 * Append the C declaration of @name (may be "") with type @id: the chain of
 * pointers, arrays, prototypes and qualifiers wraps the declarator from the
 * inside out, as C reads it ("char *(*fn)(int)", "struct list_head *").
 */
static void render_decl(struct render *r, __u32 id, const char *name,
			struct sbuf *out, int depth)
{
	struct sbuf inner = {}, prefix = {};
	const struct btf_type *t;
	bool wrap = false;	/* inner starts with a prefix operator */
	const char *q;
	int steps;

	if (depth > MAX_DEPTH) {
		if (!r->err)
			r->err = -ELOOP;
		return;
	}
	sb_add_name(&inner, name);
	for (steps = 0; id && !sb_failed(r, &inner); steps++) {
		if (steps > MAX_CHAIN) {
			r->err = -ELOOP;
			break;
		}
		t = type_at(r, id);
		if (!t || is_leaf(btf_kind(t)))
			break;
		switch (btf_kind(t)) {
		case BTF_KIND_PTR:
			sb_prepend(&inner, "*");
			wrap = true;
			break;
		case BTF_KIND_TYPE_TAG:
			/* like the kernel's "int __user *p" */
			if (inner.len)
				sb_prepend(&inner, " ");
			sb_prepend(&inner, ")");
			if (inner.err)
				break;
			{
				struct sbuf tag = {};

				/* kind_flag: an attribute, not a tag */
				sb_add(&tag, btf_kflag(t) ? "__attribute__(" :
							    "__tag(");
				sb_add_name(&tag, name_at(r, t->name_off));
				sb_add_sb(&tag, &inner);
				sb_free(&inner);
				inner = tag;
			}
			wrap = true;
			break;
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
			q = btf_is_const(t) ? "const" : btf_is_volatile(t) ?
			    "volatile" : "restrict";
			if (leaf_after_modifiers(r, t->type)) {
				/* "const int", not "int const" */
				sb_add(&prefix, q);
				sb_addc(&prefix, ' ');
			} else {
				if (inner.len)
					sb_prepend(&inner, " ");
				sb_prepend(&inner, q);
				wrap = true;
			}
			break;
		case BTF_KIND_ARRAY:
			if (wrap) {
				sb_prepend(&inner, "(");
				sb_addc(&inner, ')');
				wrap = false;
			}
			sb_addf(&inner, "[%u]", btf_array(t)->nelems);
			id = btf_array(t)->type;
			continue;
		case BTF_KIND_FUNC_PROTO:
			if (wrap) {
				sb_prepend(&inner, "(");
				sb_addc(&inner, ')');
				wrap = false;
			}
			render_params(r, id, t, &inner, depth);
			break;
		}
		id = t->type;
	}
	if (!sb_failed(r, &inner) && !sb_failed(r, &prefix)) {
		sb_add_sb(out, &prefix);
		render_leaf(r, id, out, depth);
		if (inner.len && inner.s[0] != '[')
			sb_addc(out, ' ');
		sb_add_sb(out, &inner);
		sb_failed(r, out);
	}
	sb_free(&inner);
	sb_free(&prefix);
}

/*
 * "struct foo (size 16) { struct list_head *next @0; int x:3 @64; }";
 * offsets are in bits.  @comps gets "size 16", then one line per member.
 */
static void render_composite(struct render *r, const struct btf_type *t,
			     const char *kw, const char *name,
			     struct sbuf *disp, struct sbuf *comps, int depth)
{
	const struct btf_member *m = btf_members(t);
	__u16 i, vlen = btf_vlen(t);
	struct sbuf mb = {};
	__u32 bits;

	sb_add(disp, kw);
	if (*name) {
		sb_addc(disp, ' ');
		sb_add_name(disp, name);
	}
	sb_addf(disp, " (size %u) {", t->size);
	if (comps)
		sb_addf(comps, "size %u", t->size);
	for (i = 0; i < vlen && !sb_failed(r, disp); i++) {
		mb.len = 0;
		render_decl(r, m[i].type, name_at(r, m[i].name_off), &mb,
			    depth + 1);
		bits = btf_member_bitfield_size(t, i);
		if (!btf_kflag(t) && m[i].type) {
			/* old style: the bitfield width sits in the int */
			const struct btf_type *mt = type_at(r, m[i].type);

			if (mt && btf_is_int(mt) &&
			    BTF_INT_BITS(int_word(mt)) !=
			    mt->size * 8u)
				bits = BTF_INT_BITS(int_word(mt));
		}
		if (bits)
			sb_addf(&mb, ":%u", bits);
		sb_addf(&mb, " @%u", btf_member_bit_offset(t, i));
		sb_addc(disp, ' ');
		sb_add_sb(disp, &mb);
		sb_addc(disp, ';');
		if (comps) {
			sb_addc(comps, '\n');
			sb_add_sb(comps, &mb);
		}
	}
	sb_add(disp, " }");
	sb_free(&mb);
}

/* "enum foo (size 4, unsigned) { A = 0, B = 1 }" */
static void render_enum(struct render *r, const struct btf_type *t,
			const char *kw, const char *name,
			struct sbuf *disp, struct sbuf *comps)
{
	bool is64 = btf_kind(t) == BTF_KIND_ENUM64, sign = btf_kflag(t);
	__u16 i, vlen = btf_vlen(t);
	const char *sg = sign ? "signed" : "unsigned";
	struct sbuf eb = {};
	__u32 name_off;
	__u64 v;

	sb_add(disp, kw);
	if (*name) {
		sb_addc(disp, ' ');
		sb_add_name(disp, name);
	}
	sb_addf(disp, " (size %u, %s) {", t->size, sg);
	if (comps)
		sb_addf(comps, "size %u\n%s", t->size, sg);
	for (i = 0; i < vlen; i++) {
		if (is64) {
			const __u32 *e = (const __u32 *)btf_enum64(t) + 3 * i;

			name_off = e[0];
			v = btf_enum64_value(btf_enum64(t) + i);
		} else {
			name_off = btf_enum(t)[i].name_off;
			v = (__u32)btf_enum(t)[i].val;
		}
		eb.len = 0;
		sb_add_name(&eb, name_at(r, name_off));
		if (sign && is64)
			sb_addf(&eb, " = %lld", (long long)v);
		else if (sign)
			sb_addf(&eb, " = %d", (__s32)(__u32)v);
		else
			sb_addf(&eb, " = %llu", (unsigned long long)v);
		sb_add(disp, i ? ", " : " ");
		sb_add_sb(disp, &eb);
		if (comps) {
			sb_addc(comps, '\n');
			sb_add_sb(comps, &eb);
		}
	}
	sb_add(disp, " }");
	sb_free(&eb);
}

struct secinfo_ref {
	__u32 offset;
	__u32 size;
	const char *name;
};

static int secinfo_cmp(const void *a, const void *b)
{
	const struct secinfo_ref *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* "datasec .data..percpu (size N) { foo offset 0 size 8; ... }" */
static void render_datasec(struct render *r, const struct btf_type *t,
			   struct sbuf *disp, struct sbuf *comps)
{
	const struct btf_var_secinfo *vs = btf_var_secinfos(t);
	__u16 i, vlen = btf_vlen(t);
	struct secinfo_ref *v;
	struct sbuf eb = {};

	sb_add(disp, "datasec ");
	sb_add_name(disp, name_at(r, t->name_off));
	sb_addf(disp, " (size %u) {", t->size);
	sb_addf(comps, "size %u", t->size);
	v = calloc(vlen ? vlen : 1, sizeof(*v));
	if (!v) {
		r->err = -ENOMEM;
		return;
	}
	for (i = 0; i < vlen; i++) {
		const struct btf_type *vt = type_at(r, vs[i].type);

		v[i].offset = vs[i].offset;
		v[i].size = vs[i].size;
		v[i].name = vt ? name_at(r, vt->name_off) : "?";
	}
	/* the entry order carries no meaning */
	qsort(v, vlen, sizeof(*v), secinfo_cmp);
	for (i = 0; i < vlen; i++) {
		eb.len = 0;
		sb_add_name(&eb, *v[i].name ? v[i].name : "(anon)");
		sb_addf(&eb, " offset %u size %u", v[i].offset, v[i].size);
		sb_addc(disp, ' ');
		sb_add_sb(disp, &eb);
		sb_addc(disp, ';');
		sb_addc(comps, '\n');
		sb_add_sb(comps, &eb);
	}
	sb_add(disp, " }");
	sb_free(&eb);
	free(v);
}

/* What a decl tag is attached to: "func foo param x", "struct s member m" */
static void render_tag_target(struct render *r, const struct btf_type *tag,
			      struct sbuf *out)
{
	int idx = btf_decl_tag(tag)->component_idx;
	const struct btf_type *t, *proto;
	const char *name;

	if (!tag->type) {
		sb_add(out, "void");
		return;
	}
	t = type_at(r, tag->type);
	if (!t)
		return;
	name = name_at(r, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_TYPEDEF:
		sb_add(out, kind_name(btf_kind(t)));
		sb_addc(out, ' ');
		sb_add_name(out, name);
		break;
	default:
		render_decl(r, tag->type, "", out, 0);
		break;
	}
	if (idx < 0)
		return;
	if (btf_is_composite(t) && idx < btf_vlen(t)) {
		name = name_at(r, btf_members(t)[idx].name_off);
		sb_add(out, " member ");
	} else if (btf_is_func(t) && (proto = type_at(r, t->type)) &&
		   btf_is_func_proto(proto) && idx < btf_vlen(proto)) {
		name = name_at(r, btf_params(proto)[idx].name_off);
		sb_add(out, " param ");
	} else {
		sb_addf(out, " component #%d", idx);
		return;
	}
	if (*name)
		sb_add_name(out, name);
	else
		sb_addf(out, "#%d", idx);
}

/* items */

static int items_push(struct items *it, struct item *x)
{
	struct item *v;
	size_t cap;

	if (it->n == it->cap) {
		cap = it->cap ? it->cap * 2 : 1024;
		v = realloc(it->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		it->v = v;
		it->cap = cap;
	}
	it->v[it->n++] = *x;
	return 0;
}

static void items_free(struct items *it)
{
	size_t i;

	for (i = 0; i < it->n; i++) {
		if (it->v[i].key != it->v[i].disp)
			free(it->v[i].key);
		free(it->v[i].disp);
		free(it->v[i].comps);
	}
	free(it->v);
	memset(it, 0, sizeof(*it));
}

/* Mark the types that other (non-tag) types of the split part refer to. */
static void mark_refs(const struct btf *btf, __u32 start, __u32 cnt,
		      unsigned char *refd)
{
	const struct btf_type *t;
	__u32 id, i;

#define MARK(x) do { if ((x) < cnt) refd[x] = 1; } while (0)
	for (id = start; id < cnt; id++) {
		t = btf__type_by_id(btf, id);
		if (!t)
			continue;
		switch (btf_kind(t)) {
		case BTF_KIND_PTR:
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
		case BTF_KIND_FUNC:
		case BTF_KIND_VAR:
		case BTF_KIND_FUNC_PROTO:
			MARK(t->type);
			break;
		case BTF_KIND_ARRAY:
			MARK(btf_array(t)->type);
			break;
		default:
			break;
		}
		if (btf_is_composite(t)) {
			for (i = 0; i < btf_vlen(t); i++)
				MARK(btf_members(t)[i].type);
		} else if (btf_is_func_proto(t)) {
			for (i = 0; i < btf_vlen(t); i++)
				MARK(btf_params(t)[i].type);
		}
	}
#undef MARK
}

/*
 * Make the item of type @id.  Types that are no items of their own (or of
 * a category not compared) get it->cat == CAT_NR.  Returns 0 or -errno.
 */
static int render_item(struct render *r, __u32 id, const unsigned char *refd,
		       const bool *kinds, struct item *it)
{
	const struct btf_type *t = type_at(r, id);
	struct sbuf key = {}, disp = {}, comps = {};
	bool anon_key = false;
	const char *name;
	int err = 0;
	__u16 kind;

	memset(it, 0, sizeof(*it));
	it->cat = CAT_NR;
	if (!t)
		return r->err;
	kind = btf_kind(t);
	name = name_at(r, t->name_off);

	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		/* anonymous ones count only where nothing spells them inline */
		if (!*name && refd[id])
			return 0;
		/* fall through */
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FWD:
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		it->cat = CAT_TYPES;
		break;
	case BTF_KIND_FUNC:
		it->cat = CAT_FUNCS;
		break;
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
		it->cat = CAT_VARS;
		break;
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		it->cat = CAT_TAGS;
		anon_key = true;
		break;
	default:
		return 0;
	}
	if (!kinds[it->cat]) {
		it->cat = CAT_NR;
		return 0;
	}

	if (*name && !anon_key) {
		sb_add(&key, kind_name(kind));
		sb_addc(&key, ' ');
		sb_add_name(&key, name);
	} else {
		anon_key = true;
	}

	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		render_composite(r, t, kind_name(kind), name, &disp, &comps, 0);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		render_enum(r, t, kind_name(kind), name, &disp, &comps);
		break;
	case BTF_KIND_TYPEDEF:
		sb_add(&disp, "typedef ");
		render_decl(r, t->type, name, &disp, 0);
		break;
	case BTF_KIND_FWD:
		sb_add(&disp, btf_kflag(t) ? "fwd union " : "fwd struct ");
		sb_add_name(&disp, name);
		break;
	case BTF_KIND_INT: {
		__u32 enc = int_word(t);
		__u8 e = BTF_INT_ENCODING(enc);

		sb_add(&disp, "int ");
		sb_add_name(&disp, name);
		sb_addf(&disp, " (size %u, bits %u", t->size, BTF_INT_BITS(enc));
		if (BTF_INT_OFFSET(enc))
			sb_addf(&disp, ", offset %u", BTF_INT_OFFSET(enc));
		sb_add(&disp, e & BTF_INT_SIGNED ? ", signed" : ", unsigned");
		if (e & BTF_INT_CHAR)
			sb_add(&disp, ", char");
		if (e & BTF_INT_BOOL)
			sb_add(&disp, ", bool");
		if (e & ~(BTF_INT_SIGNED | BTF_INT_CHAR | BTF_INT_BOOL))
			sb_addf(&disp, ", encoding 0x%x", e);
		sb_addc(&disp, ')');
		break;
	}
	case BTF_KIND_FLOAT:
		sb_add(&disp, "float ");
		sb_add_name(&disp, name);
		sb_addf(&disp, " (size %u)", t->size);
		break;
	case BTF_KIND_FUNC:
		sb_add(&comps, linkage_name(btf_vlen(t)));
		sb_addc(&comps, ' ');
		render_decl(r, t->type, name, &comps, 0);
		sb_add(&disp, "func ");
		sb_add_sb(&disp, &comps);
		break;
	case BTF_KIND_VAR:
		sb_add(&comps, linkage_name(btf_var(t)->linkage));
		sb_addc(&comps, ' ');
		render_decl(r, t->type, name, &comps, 0);
		sb_add(&disp, "var ");
		sb_add_sb(&disp, &comps);
		break;
	case BTF_KIND_DATASEC:
		render_datasec(r, t, &disp, &comps);
		break;
	case BTF_KIND_DECL_TAG:
		sb_add(&disp, btf_kflag(t) ? "decl_tag(attr) " : "decl_tag ");
		sb_add_name(&disp, name);
		sb_add(&disp, " -> ");
		render_tag_target(r, t, &disp);
		break;
	case BTF_KIND_TYPE_TAG:
		sb_add(&disp, "type_tag ");
		sb_add_name(&disp, name);
		sb_add(&disp, " -> ");
		render_decl(r, t->type, "", &disp, 0);
		break;
	}

	err = r->err;
	it->disp = sb_take(&disp, &err);
	it->comps = comps.len ? sb_take(&comps, &err) : NULL;
	it->key = anon_key ? it->disp : sb_take(&key, &err);
	sb_free(&comps);
	sb_free(&key);
	if (err || r->err) {
		if (it->key != it->disp)
			free(it->key);
		free(it->disp);
		free(it->comps);
		memset(it, 0, sizeof(*it));
		it->cat = CAT_NR;
		return err ? err : r->err;
	}
	return 0;
}

static int collect(struct side *s, const bool *kinds)
{
	const struct btf *base = btf__base_btf(s->btf);
	__u32 cnt = btf__type_cnt(s->btf);
	__u32 start = base ? btf__type_cnt(base) : 1, id;
	struct render r = { .btf = s->btf, .cnt = cnt };
	unsigned char *refd;
	struct item it;
	int err = 0;

	refd = calloc(cnt, 1);
	r.memo = calloc(cnt, sizeof(*r.memo));
	if (!refd || !r.memo) {
		err = -ENOMEM;
		goto out;
	}
	mark_refs(s->btf, start, cnt, refd);
	for (id = start; id < cnt; id++) {
		err = render_item(&r, id, refd, kinds, &it);
		if (err) {
			const char *why = err == -ELOOP ?
				"reference loop or nesting too deep" :
				err == -E2BIG ? "rendering too large" :
				strerror(-err);

			fprintf(stderr, "dwarf2btf: %s: type [%u]: %s\n",
				s->path, id, why);
			goto out;
		}
		if (it.cat == CAT_NR)
			continue;
		err = items_push(&s->items, &it);
		if (err) {
			free(it.key != it.disp ? it.key : NULL);
			free(it.disp);
			free(it.comps);
			fprintf(stderr, "dwarf2btf: %s: %s\n", s->path,
				strerror(-err));
			goto out;
		}
	}
out:
	if (r.memo) {
		for (id = 0; id < cnt; id++)
			free(r.memo[id]);
	}
	free(r.memo);
	free(refd);
	return err;
}

/* comparison */

static int item_disp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct item *)a)->disp,
		      ((const struct item *)b)->disp);
}

/* Drop the items of @it that @base (sorted by rendering) has too. */
static void items_drop(struct items *it, const struct items *base)
{
	size_t i, n = 0;

	for (i = 0; i < it->n; i++) {
		struct item *x = &it->v[i];

		if (!bsearch(x, base->v, base->n, sizeof(*x), item_disp_cmp)) {
			it->v[n++] = *x;
			continue;
		}
		if (x->key != x->disp)
			free(x->key);
		free(x->disp);
		free(x->comps);
	}
	it->n = n;
}

/* --no-base-dups: a side's items, less those its base has. */
static int drop_base_dups(struct side *s, const bool *kinds)
{
	struct side b = { .path = s->base_path, .btf = s->base };
	int err;

	if (!s->base)
		return 0;
	err = collect(&b, kinds);
	if (!err) {
		qsort(b.items.v, b.items.n, sizeof(*b.items.v), item_disp_cmp);
		items_drop(&s->items, &b.items);
	}
	items_free(&b.items);
	return err;
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	int c;

	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	c = strcmp(x->key, y->key);
	return c ? c : strcmp(x->disp, y->disp);
}

static int group_cmp(const struct item *x, const struct item *y)
{
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	return strcmp(x->key, y->key);
}

struct line {
	const char *s;
	size_t len;
	size_t idx;
	bool matched;
};

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = *(const struct line *const *)a;
	const struct line *y = *(const struct line *const *)b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static struct line *split_lines(const char *s, size_t *n)
{
	struct line *v;
	size_t i, cnt = 1;
	const char *p;

	for (p = s; *p; p++)
		cnt += *p == '\n';
	v = calloc(cnt, sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < cnt; i++) {
		p = strchr(s, '\n');
		v[i].s = s;
		v[i].len = p ? (size_t)(p - s) : strlen(s);
		v[i].idx = i;
		s = p ? p + 1 : s + v[i].len;
	}
	*n = cnt;
	return v;
}

static struct line **sorted_refs(struct line *v, size_t n)
{
	struct line **p = calloc(n ? n : 1, sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = &v[i];
	qsort(p, n, sizeof(*p), line_cmp);
	return p;
}

static int line_text_cmp(const struct line *x, const struct line *y)
{
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->s, y->s, n);

	if (c)
		return c;
	return x->len < y->len ? -1 : x->len > y->len;
}

/*
 * Print the components of @a missing from @b ("- ") and those of @b missing
 * from @a ("+ "), in their own order.  Returns the number of lines printed,
 * or -ENOMEM.
 */
static int diff_components(FILE *out, const char *a, const char *b)
{
	struct line *va = NULL, *vb = NULL, **pa = NULL, **pb = NULL;
	size_t na = 0, nb = 0, i, j;
	int printed = 0;

	va = split_lines(a, &na);
	vb = split_lines(b, &nb);
	if (!va || !vb)
		goto nomem;
	pa = sorted_refs(va, na);
	pb = sorted_refs(vb, nb);
	if (!pa || !pb)
		goto nomem;
	for (i = j = 0; i < na && j < nb;) {
		int c = line_text_cmp(pa[i], pb[j]);

		if (!c) {
			pa[i++]->matched = true;
			pb[j++]->matched = true;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	for (i = 0; i < na; i++) {
		if (!va[i].matched) {
			fprintf(out, "- %.*s\n", (int)va[i].len, va[i].s);
			printed++;
		}
	}
	for (j = 0; j < nb; j++) {
		if (!vb[j].matched) {
			fprintf(out, "+ %.*s\n", (int)vb[j].len, vb[j].s);
			printed++;
		}
	}
	free(pa);
	free(pb);
	free(va);
	free(vb);
	return printed;
nomem:
	free(pa);
	free(pb);
	free(va);
	free(vb);
	return -ENOMEM;
}

static const char *item_comps(const struct item *it)
{
	return it->comps ? it->comps : it->disp;
}

/*
 * Compare the items of one key: A's [a, a + na) and B's [b, b + nb), each
 * sorted by rendering.  Renderings found on both sides cancel out.
 */
static int diff_group(FILE *out, struct counts *cnt, const struct opts *o,
		      struct item *a, size_t na, struct item *b, size_t nb)
{
	bool *ma = calloc(na + 1, 1), *mb = calloc(nb + 1, 1);
	size_t i, j, ua = na, ub = nb;
	bool show = !o->quiet && !o->summary;
	const struct item *xa = NULL, *xb = NULL;
	enum cat cat = na ? a->cat : b->cat;
	int err = 0;

	if (!ma || !mb) {
		err = -ENOMEM;
		goto out;
	}
	for (i = j = 0; i < na && j < nb;) {
		int c = strcmp(a[i].disp, b[j].disp);

		if (!c) {
			ma[i++] = mb[j++] = true;
			ua--;
			ub--;
		} else if (c < 0) {
			i++;
		} else {
			j++;
		}
	}
	if (!ua && !ub)
		goto out;
	if (!ua || !ub) {
		/* nothing to pair with: plain removals or additions */
		cnt->only_a[cat] += ua;
		cnt->only_b[cat] += ub;
		for (i = 0; show && i < na; i++)
			if (!ma[i])
				fprintf(out, "- %s\n", a[i].disp);
		for (j = 0; show && j < nb; j++)
			if (!mb[j])
				fprintf(out, "+ %s\n", b[j].disp);
		goto out;
	}
	cnt->differ[cat]++;
	if (!show)
		goto out;
	fprintf(out, "~ %s\n", a->key);
	for (i = 0; i < na; i++)
		if (!ma[i])
			xa = &a[i];
	for (j = 0; j < nb; j++)
		if (!mb[j])
			xb = &b[j];
	if (ua == 1 && ub == 1) {
		int n = diff_components(out, item_comps(xa), item_comps(xb));

		if (n < 0) {
			err = n;
			goto out;
		}
		if (n > 0)
			goto out;
		/* same components in another order: show it all */
	}
	for (i = 0; i < na; i++)
		if (!ma[i])
			fprintf(out, "- %s\n", a[i].disp);
	for (j = 0; j < nb; j++)
		if (!mb[j])
			fprintf(out, "+ %s\n", b[j].disp);
out:
	free(ma);
	free(mb);
	return err;
}

static int diff_items(FILE *out, struct items *ia, struct items *ib,
		      const struct opts *o, struct counts *cnt)
{
	size_t i = 0, j = 0, i1, j1;
	int c, err;

	if (ia->n)
		qsort(ia->v, ia->n, sizeof(*ia->v), item_cmp);
	if (ib->n)
		qsort(ib->v, ib->n, sizeof(*ib->v), item_cmp);
	while (i < ia->n || j < ib->n) {
		if (i == ia->n)
			c = 1;
		else if (j == ib->n)
			c = -1;
		else
			c = group_cmp(&ia->v[i], &ib->v[j]);
		i1 = i;
		j1 = j;
		if (c <= 0) {
			for (i1 = i + 1; i1 < ia->n &&
			     !group_cmp(&ia->v[i], &ia->v[i1]); i1++)
				;
		}
		if (c >= 0) {
			for (j1 = j + 1; j1 < ib->n &&
			     !group_cmp(&ib->v[j], &ib->v[j1]); j1++)
				;
		}
		err = diff_group(out, cnt, o, ia->v + i, i1 - i, ib->v + j,
				 j1 - j);
		if (err)
			return err;
		i = i1;
		j = j1;
	}
	return 0;
}

/* command line */

static void usage(FILE *f)
{
	fputs(
"Usage: dwarf2btf diff [options] A B\n"
"Compare two BTF blobs (raw BTF files or ELF files with a .BTF section) by\n"
"meaning: type ids and order are ignored.\n"
"\n"
"  --base BASE        A and B are split BTF over BASE (e.g. modules over\n"
"                     vmlinux); only their own types are compared\n"
"  --base-a BASE, --base-b BASE\n"
"                     bases for A and B separately\n"
"  --kinds=LIST       compare only these, comma separated:\n"
"                     types,funcs,vars,tags (default: all)\n"
"  --ignore-funcs     same as leaving funcs out of --kinds\n"
"  --no-base-dups     leave out items of A or B equal to an item of their\n"
"                     base (split BTF repeating types its base has)\n"
"  --summary          print only the summary line\n"
"  -q, --quiet        print nothing; the exit code tells\n"
"  -v, --verbose      let libbpf print its own warnings\n"
"  -h, --help         this text\n"
"\n"
"Items: named struct/union/enum/enum64/typedef/fwd/int/float (and anonymous\n"
"ones nothing refers to) are 'types', FUNCs 'funcs', VARs and DATASECs\n"
"'vars', decl and type tags 'tags'.  Output: '- ITEM' only in A, '+ ITEM'\n"
"only in B, '~ KIND NAME' then '- old' / '+ new' parts for items in both\n"
"that differ; then a summary line.  Member offsets ('@N') are in bits.\n"
"\n"
"Exit status: 0 same, 1 different, 2 usage or read error.\n", f);
}

static int parse_kinds(struct opts *o, const char *list)
{
	const char *p = list, *e;
	size_t n;
	int k;

	memset(o->kinds, 0, sizeof(o->kinds));
	do {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		for (k = 0; k < CAT_NR; k++) {
			if (strlen(cat_names[k]) == n &&
			    !strncmp(cat_names[k], p, n))
				break;
		}
		if (k == CAT_NR) {
			fprintf(stderr, "dwarf2btf: diff: unknown kind '%.*s' in --kinds (types,funcs,vars,tags)\n",
				(int)n, p);
			return -EINVAL;
		}
		o->kinds[k] = true;
		p += n + 1;
	} while (e);
	return 0;
}

/*
 * "--opt VALUE" or "--opt=VALUE": returns the value (advancing *i) or NULL
 * when argv[*i] is not this option.
 */
static const char *opt_value(int argc, char **argv, int *i, const char *opt,
			     bool *missing)
{
	size_t n = strlen(opt);
	const char *a = argv[*i];

	if (strncmp(a, opt, n))
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n])
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

/* Returns 0 to go on, 1 after --help, -EINVAL after a one-line error. */
static int parse_args(int argc, char **argv, struct opts *o,
		      struct side *sa, struct side *sb)
{
	bool missing = false, ignore_funcs = false, dashdash = false;
	const char *paths[2] = {}, *a, *v;
	int i, k, np = 0;

	for (k = 0; k < CAT_NR; k++)
		o->kinds[k] = true;
	for (i = 1; i < argc; i++) {
		a = argv[i];
		if (dashdash || a[0] != '-' || !a[1]) {
			if (np == 2) {
				fprintf(stderr, "dwarf2btf: diff: too many files: %s (see --help)\n",
					a);
				return -EINVAL;
			}
			paths[np++] = a;
		} else if (!strcmp(a, "--")) {
			dashdash = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			return 1;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			o->quiet = true;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			o->verbose = true;
		} else if (!strcmp(a, "--summary")) {
			o->summary = true;
		} else if (!strcmp(a, "--ignore-funcs")) {
			ignore_funcs = true;
		} else if (!strcmp(a, "--no-base-dups")) {
			o->no_base_dups = true;
		} else if ((v = opt_value(argc, argv, &i, "--kinds",
					  &missing))) {
			if (parse_kinds(o, v))
				return -EINVAL;
		} else if ((v = opt_value(argc, argv, &i, "--base-a",
					  &missing))) {
			sa->base_path = v;
		} else if ((v = opt_value(argc, argv, &i, "--base-b",
					  &missing))) {
			sb->base_path = v;
		} else if ((v = opt_value(argc, argv, &i, "--base",
					  &missing))) {
			sa->base_path = sb->base_path = v;
		} else {
			fprintf(stderr, "dwarf2btf: diff: %s %s (see --help)\n",
				missing ? "no value for" : "unknown option", a);
			return -EINVAL;
		}
	}
	if (np != 2) {
		fprintf(stderr, "dwarf2btf: diff: need two files to compare (see --help)\n");
		return -EINVAL;
	}
	if (ignore_funcs)
		o->kinds[CAT_FUNCS] = false;
	sa->path = paths[0];
	sb->path = paths[1];
	return 0;
}

static void print_summary(FILE *out, const struct opts *o,
			  const struct counts *c)
{
	const char *sep = "";
	int k;

	for (k = 0; k < CAT_NR; k++) {
		if (!o->kinds[k])
			continue;
		fprintf(out, "%s%s: %zu only in A, %zu only in B, %zu differ",
			sep, cat_names[k], c->only_a[k], c->only_b[k],
			c->differ[k]);
		sep = "; ";
	}
	fputc('\n', out);
}

int btf_diff__main(int argc, char **argv)
{
	struct side sa = {}, sb = {};
	libbpf_print_fn_t old_print = NULL;
	struct counts cnt = {};
	struct opts o = {};
	int k, ret = 2, err;
	bool any = false;

	err = parse_args(argc, argv, &o, &sa, &sb);
	if (err) {
		if (err > 0)
			usage(stdout);
		return err > 0 ? 0 : 2;
	}

	/* our own one-line errors say what went wrong */
	if (!o.verbose)
		old_print = libbpf_set_print(NULL);

	if (sa.base_path) {
		sa.base = btf_load__file(sa.base_path, NULL, &err);
		if (!sa.base)
			goto out;
	}
	if (sb.base_path) {
		/* the same base for both sides is read once */
		if (sa.base && !strcmp(sa.base_path, sb.base_path))
			sb.base = sa.base;
		else
			sb.base = btf_load__file(sb.base_path, NULL, &err);
		if (!sb.base)
			goto out;
	}
	sa.btf = btf_load__file(sa.path, sa.base, &err);
	if (!sa.btf)
		goto out;
	sb.btf = btf_load__file(sb.path, sb.base, &err);
	if (!sb.btf)
		goto out;
	if (collect(&sa, o.kinds) || collect(&sb, o.kinds))
		goto out;
	if (o.no_base_dups &&
	    (drop_base_dups(&sa, o.kinds) || drop_base_dups(&sb, o.kinds)))
		goto out;
	if (diff_items(stdout, &sa.items, &sb.items, &o, &cnt)) {
		fprintf(stderr, "dwarf2btf: diff: %s\n", strerror(ENOMEM));
		goto out;
	}
	for (k = 0; k < CAT_NR; k++) {
		if (o.kinds[k] &&
		    (cnt.only_a[k] || cnt.only_b[k] || cnt.differ[k]))
			any = true;
	}
	if (!o.quiet)
		print_summary(stdout, &o, &cnt);
	if (fflush(stdout)) {
		fprintf(stderr, "dwarf2btf: diff: write error: %s\n",
			strerror(errno));
		goto out;
	}
	ret = any ? 1 : 0;
out:
	items_free(&sa.items);
	items_free(&sb.items);
	btf__free(sa.btf);
	btf__free(sb.btf);
	if (sb.base != sa.base)
		btf__free(sb.base);
	btf__free(sa.base);
	if (!o.verbose)
		libbpf_set_print(old_print);
	return ret;
}
