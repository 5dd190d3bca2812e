// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file collects the items of one BTF (btf_items.h): every interesting
 * type as a key ("struct foo", "func bar") and a one-line rendering of its
 * full layout, in which references to other types are spelled as C-like
 * type strings.  Anonymous types are spelled inline where they are used
 * (memoised per id).  Each item also has its components (members,
 * enumerators, ...), one per line, for partial diffs.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "lib/btf_ids.h"
#include "diff/btf_items.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "diff/sbuf.h"

/*
 * These limits guard against malformed BTF: reference cycles show up as
 * endless modifier chains or endless nesting of anonymous types, and a DAG
 * of anonymous types shared many times could expand exponentially
 * (sbuf.h's SBUF_MAX bounds one rendering).
 */
/* This bounds anonymous types and prototypes nested in one another. */
#define RENDER_MAX_DEPTH	128
/* This bounds pointers, arrays and qualifiers in a row. */
#define MAX_CHAIN	256

const char *const btf_item_cat_names[CAT_NR] = {
	"types", "funcs", "vars", "tags",
};

/* The render state covers one BTF; only one thread uses it. */
struct render {
	const struct btf *btf;
	uint32_t cnt;
	/*
	 * By id, the inline text of anonymous types and the parameter lists
	 * of prototypes: each is spelled the same wherever it is used.
	 */
	char **memo;
	/*
	 * The first error (-ELOOP, -E2BIG, -ENOMEM, -EINVAL) stops the whole
	 * rendering.
	 */
	int err;
	bool flat_arrays;
};

/* Keep @b's text as the memo of @id; non-zero (r->err set) on failure. */
static int render__memo(struct render *r, uint32_t id, struct sbuf *b)
{
	int err = 0;

	r->memo[id] = sbuf__take(b, &err);
	if (!r->memo[id])
		r->err = err ? err : -ENOMEM;
	return !r->memo[id];
}


/*
 * A buffer that failed (too large, no memory) stops the whole rendering:
 * without this a shared sub-graph would still be walked exponentially.
 */
static bool render__failed(struct render *r, const struct sbuf *b)
{
	if (b->err && !r->err)
		r->err = b->err;
	return r->err;
}

static const char *kind_name(uint16_t kind)
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

static const struct btf_type *render__type(struct render *r, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(r->btf, id);

	if (!t && !r->err)
		r->err = -EINVAL;
	return t;
}

static const char *render__name(struct render *r, uint32_t off)
{
	const char *s = btf__name_by_offset(r->btf, off);

	return s ? s : "?";
}

/* The word after an INT type holds its encoding, offset and bits. */
static uint32_t int_word(const struct btf_type *t)
{
	return *(const uint32_t *)(t + 1);
}

static bool is_modifier(uint16_t kind)
{
	return kind == BTF_KIND_CONST || kind == BTF_KIND_VOLATILE ||
	       kind == BTF_KIND_RESTRICT || kind == BTF_KIND_TYPE_TAG;
}

/*
 * is_leaf() tells whether a kind ends a declarator chain and is spelled by
 * name (or inline).
 */
static bool is_leaf(uint16_t kind)
{
	return !is_modifier(kind) && kind != BTF_KIND_PTR &&
	       kind != BTF_KIND_ARRAY && kind != BTF_KIND_FUNC_PROTO;
}

/* Is the first non-modifier type from @id on spelled by name? */
static bool render__leaf_after_modifiers(struct render *r, uint32_t id)
{
	const struct btf_type *t;
	int steps;

	for (steps = 0; steps < MAX_CHAIN && id; steps++) {
		t = render__type(r, id);
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

static void render__decl(struct render *r, uint32_t id, const char *name,
			struct sbuf *out, int depth);
static void render__composite(struct render *r, const struct btf_type *t,
			     const char *kw, const char *name,
			     struct sbuf *disp, struct sbuf *comps, int depth);
static void render__enum(struct render *r, const struct btf_type *t,
			const char *kw, const char *name,
			struct sbuf *disp, struct sbuf *comps);

/*
 * render__anon() spells an anonymous struct, union or enum inline by its
 * layout, because it has no name to spell.  The text is memoised, so a
 * type used often is spelled once.
 */
static void render__anon(struct render *r, uint32_t id, const struct btf_type *t,
			struct sbuf *out, int depth)
{
	struct sbuf tmp = {};

	if (!r->memo[id]) {
		if (btf_is_composite(t))
			render__composite(r, t, btf_is_union(t) ? "union" :
					 "struct", "", &tmp, NULL, depth + 1);
		else
			render__enum(r, t, "enum", "", &tmp, NULL);
		if (r->err) {
			sbuf__free(&tmp);
			return;
		}
		if (render__memo(r, id, &tmp))
			return;
	}
	sbuf__add(out, r->memo[id]);
}

/* render__leaf() spells a type that ends a declarator chain. */
static void render__leaf(struct render *r, uint32_t id, struct sbuf *out,
			int depth)
{
	const struct btf_type *t;
	const char *name;

	if (!id) {
		sbuf__add(out, "void");
		return;
	}
	t = render__type(r, id);
	if (!t)
		return;
	name = render__name(r, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (!*name) {
			render__anon(r, id, t, out, depth);
			return;
		}
		sbuf__add(out, btf_is_union(t) ? "union " :
		       btf_is_composite(t) ? "struct " : "enum ");
		break;
	case BTF_KIND_FWD:
		sbuf__add(out, btf_kflag(t) ? "union " : "struct ");
		break;
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
	case BTF_KIND_TYPEDEF:
		break;
	default:
		/*
		 * Not a type (a func, a var, ...): the BTF is malformed,
		 * but the text still says what it found.
		 */
		sbuf__addc(out, '<');
		sbuf__add(out, kind_name(btf_kind(t)));
		sbuf__add(out, *name ? " " : "");
		sbuf__add_name(out, name);
		sbuf__addc(out, '>');
		return;
	}
	sbuf__add_name(out, *name ? name : "(anon)");
}

/*
 * render__params() spells the "(int a, char *b, ...)" of prototype @id,
 * memoised as anonymous types are.
 */
static void render__params(struct render *r, uint32_t id,
			  const struct btf_type *t, struct sbuf *out,
			  int depth)
{
	const struct btf_param *p = btf_params(t);
	uint16_t i, vlen = btf_vlen(t);
	struct sbuf tmp = {};

	if (r->memo[id]) {
		sbuf__add(out, r->memo[id]);
		return;
	}
	sbuf__addc(&tmp, '(');
	if (!vlen)
		sbuf__add(&tmp, "void");
	for (i = 0; i < vlen && !render__failed(r, &tmp); i++) {
		if (i)
			sbuf__add(&tmp, ", ");
		if (i == vlen - 1 && !p[i].type && !p[i].name_off)
			sbuf__add(&tmp, "...");
		else
			render__decl(r, p[i].type, render__name(r, p[i].name_off),
				    &tmp, depth + 1);
	}
	sbuf__addc(&tmp, ')');
	if (render__failed(r, &tmp)) {
		sbuf__free(&tmp);
		return;
	}
	if (render__memo(r, id, &tmp))
		return;
	sbuf__add(out, r->memo[id]);
}

/*
 * A declarator is what render__decl() grows from the name outwards, in the
 * order in which C reads it.
 */
struct declarator {
	struct sbuf inner;	/* The name and the operators around it. */
	struct sbuf prefix;	/* Qualifiers that go before the leaf type. */
	bool wrap;		/* Whether inner starts with a prefix operator. */
};

/*
 * declarator__paren() adds parentheses, because arrays and prototypes bind
 * tighter than prefix operators: "(*p)[3]".
 */
static void declarator__paren(struct declarator *d)
{
	if (d->wrap) {
		sbuf__prepend(&d->inner, "(");
		sbuf__addc(&d->inner, ')');
		d->wrap = false;
	}
}

/*
 * declarator__type_tag() spells a type tag where the kernel puts one:
 * "int __tag(user) *p".
 */
static void declarator__type_tag(struct render *r, struct declarator *d,
				 const struct btf_type *t)
{
	struct sbuf tag = {};

	if (d->inner.len)
		sbuf__prepend(&d->inner, " ");
	sbuf__prepend(&d->inner, ")");
	if (d->inner.err)
		return;
	/* With kind_flag set it is an attribute, not a tag. */
	sbuf__add(&tag, btf_kflag(t) ? "__attribute__(" : "__tag(");
	sbuf__add_name(&tag, render__name(r, t->name_off));
	sbuf__add_sb(&tag, &d->inner);
	sbuf__free(&d->inner);
	d->inner = tag;
	d->wrap = true;
}

/*
 * A qualifier goes before the type it qualifies when that is spelled by
 * name ("const int", as people write it, not "int const"), else after
 * the operator it qualifies ("char *const p").
 */
static void declarator__qualifier(struct render *r, struct declarator *d,
				  const struct btf_type *t)
{
	const char *q = btf_is_const(t) ? "const" :
			btf_is_volatile(t) ? "volatile" : "restrict";

	if (render__leaf_after_modifiers(r, t->type)) {
		sbuf__add(&d->prefix, q);
		sbuf__addc(&d->prefix, ' ');
		return;
	}
	if (d->inner.len)
		sbuf__prepend(&d->inner, " ");
	sbuf__prepend(&d->inner, q);
	d->wrap = true;
}

/*
 * declarator__array() spells the "[N]" of array @t and returns the type of
 * its elements.  With flat_arrays
 * an array of arrays is one array of all their elements, as pahole up to
 * 1.31 wrote int[2][3] (int[6]), so that BTF it made compares equal;
 * each array folded in counts as a step of the chain (*@steps).
 */
static uint32_t declarator__array(struct render *r, struct declarator *d,
				  const struct btf_type *t, int *steps)
{
	unsigned long long n = btf_array(t)->nelems;
	uint32_t id = btf_array(t)->type;

	declarator__paren(d);
	while (r->flat_arrays && (*steps)++ <= MAX_CHAIN &&
	       (t = render__type(r, id)) && btf_is_array(t)) {
		if (__builtin_mul_overflow(n, btf_array(t)->nelems, &n))
			n = ULLONG_MAX;
		id = btf_array(t)->type;
	}
	sbuf__addf(&d->inner, "[%llu]", n);
	return id;
}

/*
 * Append the C declaration of @name (may be "") with type @id: the chain of
 * pointers, arrays, prototypes and qualifiers wraps the declarator from the
 * inside out, as C reads it ("char *(*fn)(int)", "struct list_head *").
 */
static void render__decl(struct render *r, uint32_t id, const char *name,
			struct sbuf *out, int depth)
{
	struct declarator d = {};
	const struct btf_type *t;
	int steps;

	if (depth > RENDER_MAX_DEPTH) {
		if (!r->err)
			r->err = -ELOOP;
		return;
	}
	sbuf__add_name(&d.inner, name);
	for (steps = 0; id && !render__failed(r, &d.inner); steps++) {
		if (steps > MAX_CHAIN) {
			r->err = -ELOOP;
			break;
		}
		t = render__type(r, id);
		if (!t || is_leaf(btf_kind(t)))
			break;
		switch (btf_kind(t)) {
		case BTF_KIND_PTR:
			sbuf__prepend(&d.inner, "*");
			d.wrap = true;
			break;
		case BTF_KIND_TYPE_TAG:
			declarator__type_tag(r, &d, t);
			break;
		case BTF_KIND_CONST:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT:
			declarator__qualifier(r, &d, t);
			break;
		case BTF_KIND_ARRAY:
			id = declarator__array(r, &d, t, &steps);
			continue;
		case BTF_KIND_FUNC_PROTO:
			declarator__paren(&d);
			render__params(r, id, t, &d.inner, depth);
			break;
		}
		id = t->type;
	}
	if (!render__failed(r, &d.inner) && !render__failed(r, &d.prefix)) {
		sbuf__add_sb(out, &d.prefix);
		render__leaf(r, id, out, depth);
		/* No space between a type and its array bounds: "int[4]". */
		if (d.inner.len && d.inner.s[0] != '[')
			sbuf__addc(out, ' ');
		sbuf__add_sb(out, &d.inner);
		render__failed(r, out);
	}
	sbuf__free(&d.inner);
	sbuf__free(&d.prefix);
}

/*
 * render__composite() spells a struct or union as
 * "struct foo (size 16) { struct list_head *next @0; int x:3 @64; }", with
 * offsets in bits.  @comps gets "size 16", then one line per member.
 */
static void render__composite(struct render *r, const struct btf_type *t,
			     const char *kw, const char *name,
			     struct sbuf *disp, struct sbuf *comps, int depth)
{
	const struct btf_member *m = btf_members(t);
	uint16_t i, vlen = btf_vlen(t);
	struct sbuf mb = {};
	uint32_t bits;

	sbuf__add(disp, kw);
	if (*name) {
		sbuf__addc(disp, ' ');
		sbuf__add_name(disp, name);
	}
	sbuf__addf(disp, " (size %u) {", t->size);
	if (comps)
		sbuf__addf(comps, "size %u", t->size);
	for (i = 0; i < vlen && !render__failed(r, disp); i++) {
		mb.len = 0;
		render__decl(r, m[i].type, render__name(r, m[i].name_off), &mb,
			    depth + 1);
		bits = btf_member_bitfield_size(t, i);
		if (!btf_kflag(t) && m[i].type) {
			/* Without kind_flag the int holds the bitfield's width. */
			const struct btf_type *mt = render__type(r, m[i].type);

			if (mt && btf_is_int(mt) &&
			    BTF_INT_BITS(int_word(mt)) !=
			    mt->size * 8u)
				bits = BTF_INT_BITS(int_word(mt));
		}
		if (bits)
			sbuf__addf(&mb, ":%u", bits);
		sbuf__addf(&mb, " @%u", btf_member_bit_offset(t, i));
		sbuf__addc(disp, ' ');
		sbuf__add_sb(disp, &mb);
		sbuf__addc(disp, ';');
		if (comps) {
			sbuf__addc(comps, '\n');
			sbuf__add_sb(comps, &mb);
		}
	}
	sbuf__add(disp, " }");
	sbuf__free(&mb);
}

/* render__enum() spells "enum foo (size 4, unsigned) { A = 0, B = 1 }". */
static void render__enum(struct render *r, const struct btf_type *t,
			const char *kw, const char *name,
			struct sbuf *disp, struct sbuf *comps)
{
	bool is64 = btf_kind(t) == BTF_KIND_ENUM64, sign = btf_kflag(t);
	uint16_t i, vlen = btf_vlen(t);
	const char *sg = sign ? "signed" : "unsigned";
	struct sbuf eb = {};
	uint32_t name_off;
	__u64 v;

	sbuf__add(disp, kw);
	if (*name) {
		sbuf__addc(disp, ' ');
		sbuf__add_name(disp, name);
	}
	sbuf__addf(disp, " (size %u, %s) {", t->size, sg);
	if (comps)
		sbuf__addf(comps, "size %u\n%s", t->size, sg);
	for (i = 0; i < vlen; i++) {
		if (is64) {
			const uint32_t *e = (const uint32_t *)btf_enum64(t) + 3 * i;

			name_off = e[0];
			v = btf_enum64_value(btf_enum64(t) + i);
		} else {
			name_off = btf_enum(t)[i].name_off;
			v = (uint32_t)btf_enum(t)[i].val;
		}
		eb.len = 0;
		sbuf__add_name(&eb, render__name(r, name_off));
		if (sign && is64)
			sbuf__addf(&eb, " = %lld", (long long)v);
		else if (sign)
			sbuf__addf(&eb, " = %d", (__s32)(uint32_t)v);
		else
			sbuf__addf(&eb, " = %llu", (unsigned long long)v);
		sbuf__add(disp, i ? ", " : " ");
		sbuf__add_sb(disp, &eb);
		if (comps) {
			sbuf__addc(comps, '\n');
			sbuf__add_sb(comps, &eb);
		}
	}
	sbuf__add(disp, " }");
	sbuf__free(&eb);
}

struct secinfo_ref {
	uint32_t offset;
	uint32_t size;
	const char *name;
};

/* Data section entries sort by offset, then size, then name. */
static int secinfo_cmp(const void *a, const void *b)
{
	const struct secinfo_ref *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * render__datasec() spells
 * "datasec .data..percpu (size N) { foo offset 0 size 8; ... }".
 */
static void render__datasec(struct render *r, const struct btf_type *t,
			   struct sbuf *disp, struct sbuf *comps)
{
	const struct btf_var_secinfo *vs = btf_var_secinfos(t);
	uint16_t i, vlen = btf_vlen(t);
	struct secinfo_ref *v;
	struct sbuf eb = {};

	sbuf__add(disp, "datasec ");
	sbuf__add_name(disp, render__name(r, t->name_off));
	sbuf__addf(disp, " (size %u) {", t->size);
	sbuf__addf(comps, "size %u", t->size);
	v = calloc(vlen ? vlen : 1, sizeof(*v));
	if (!v) {
		r->err = -ENOMEM;
		return;
	}
	for (i = 0; i < vlen; i++) {
		const struct btf_type *vt = render__type(r, vs[i].type);

		v[i].offset = vs[i].offset;
		v[i].size = vs[i].size;
		v[i].name = vt ? render__name(r, vt->name_off) : "?";
	}
	/* The order of the entries carries no meaning: sort them to compare. */
	qsort(v, vlen, sizeof(*v), secinfo_cmp);
	for (i = 0; i < vlen; i++) {
		eb.len = 0;
		sbuf__add_name(&eb, *v[i].name ? v[i].name : "(anon)");
		sbuf__addf(&eb, " offset %u size %u", v[i].offset, v[i].size);
		sbuf__addc(disp, ' ');
		sbuf__add_sb(disp, &eb);
		sbuf__addc(disp, ';');
		sbuf__addc(comps, '\n');
		sbuf__add_sb(comps, &eb);
	}
	sbuf__add(disp, " }");
	sbuf__free(&eb);
	free(v);
}

/*
 * render__tag_target() spells what a decl tag is attached to:
 * "func foo param x", "struct s member m".
 */
static void render__tag_target(struct render *r, const struct btf_type *tag,
			      struct sbuf *out)
{
	int idx = btf_decl_tag(tag)->component_idx;
	const struct btf_type *t, *proto;
	const char *name;

	if (!tag->type) {
		sbuf__add(out, "void");
		return;
	}
	t = render__type(r, tag->type);
	if (!t)
		return;
	name = render__name(r, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_TYPEDEF:
		sbuf__add(out, kind_name(btf_kind(t)));
		sbuf__addc(out, ' ');
		sbuf__add_name(out, name);
		break;
	default:
		render__decl(r, tag->type, "", out, 0);
		break;
	}
	if (idx < 0)
		return;
	if (btf_is_composite(t) && idx < btf_vlen(t)) {
		name = render__name(r, btf_members(t)[idx].name_off);
		sbuf__add(out, " member ");
	} else if (btf_is_func(t) && (proto = render__type(r, t->type)) &&
		   btf_is_func_proto(proto) && idx < btf_vlen(proto)) {
		name = render__name(r, btf_params(proto)[idx].name_off);
		sbuf__add(out, " param ");
	} else {
		sbuf__addf(out, " component #%d", idx);
		return;
	}
	if (*name)
		sbuf__add_name(out, name);
	else
		sbuf__addf(out, "#%d", idx);
}


static int btf_items__push(struct btf_items *it, struct btf_item *x)
{
	if (grow_array((void **)&it->v, &it->cap, it->n + 1, sizeof(*it->v),
		       1024))
		return -ENOMEM;
	it->v[it->n++] = *x;
	return 0;
}

void btf_items__free(struct btf_items *it)
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

struct refs {
	unsigned char *refd;
	uint32_t cnt;
};

static int refs__mark(uint32_t *id, void *ctx)
{
	struct refs *r = ctx;

	if (*id < r->cnt)
		r->refd[*id] = 1;
	return 0;
}

/*
 * mark_refs() marks the types that other types of the split part spell
 * out.  Tags and data sections name what they point to without spelling
 * it, so they do not mark it.
 */
static void mark_refs(const struct btf *btf, uint32_t start, uint32_t cnt,
		      unsigned char *refd)
{
	struct refs r = { refd, cnt };
	struct btf_type *t;
	uint32_t id;

	for (id = start; id < cnt; id++) {
		t = btf_mut_type(btf, id);
		if (t && !btf_is_decl_tag(t) && !btf_is_datasec(t))
			btf_type__for_each_id(t, refs__mark, &r);
	}
}

/*
 * item_category() returns the category of type @t (@id), or CAT_NR when
 * it is no item of its own:
 * an anonymous struct, union or enum is spelled inline where it is used,
 * so it is an item only when nothing uses it.  *@anon_key: the item is
 * keyed by its rendering, as tags are, whose names need not be unique.
 */
static enum btf_item_cat item_category(const struct btf_type *t, uint32_t id,
				       const char *name,
				       const unsigned char *refd,
				       bool *anon_key)
{
	*anon_key = false;
	switch (btf_kind(t)) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		if (!*name && refd[id])
			return CAT_NR;
		return CAT_TYPES;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_FWD:
	case BTF_KIND_INT:
	case BTF_KIND_FLOAT:
		return CAT_TYPES;
	case BTF_KIND_FUNC:
		return CAT_FUNCS;
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
		return CAT_VARS;
	case BTF_KIND_DECL_TAG:
	case BTF_KIND_TYPE_TAG:
		*anon_key = true;
		return CAT_TAGS;
	default:
		return CAT_NR;
	}
}

/* render__int() spells "int long int (size 8, bits 64, signed)". */
static void render__int(const struct btf_type *t, const char *name,
			struct sbuf *disp)
{
	uint32_t enc = int_word(t);
	uint8_t e = BTF_INT_ENCODING(enc);

	sbuf__add(disp, "int ");
	sbuf__add_name(disp, name);
	sbuf__addf(disp, " (size %u, bits %u", t->size, BTF_INT_BITS(enc));
	if (BTF_INT_OFFSET(enc))
		sbuf__addf(disp, ", offset %u", BTF_INT_OFFSET(enc));
	sbuf__add(disp, e & BTF_INT_SIGNED ? ", signed" : ", unsigned");
	if (e & BTF_INT_CHAR)
		sbuf__add(disp, ", char");
	if (e & BTF_INT_BOOL)
		sbuf__add(disp, ", bool");
	if (e & ~(BTF_INT_SIGNED | BTF_INT_CHAR | BTF_INT_BOOL))
		sbuf__addf(disp, ", encoding 0x%x", e);
	sbuf__addc(disp, ')');
}

/*
 * render__linked() spells "func global int f(int a)" or
 * "var static int x".  The linkage and
 * declaration are also the components, so that a diff of a function
 * whose name stayed shows what changed.
 */
static void render__linked(struct render *r, const struct btf_type *t,
			   const char *kw, unsigned int linkage,
			   const char *name, struct sbuf *disp,
			   struct sbuf *comps)
{
	sbuf__add(comps, linkage_name(linkage));
	sbuf__addc(comps, ' ');
	render__decl(r, t->type, name, comps, 0);
	sbuf__add(disp, kw);
	sbuf__add_sb(disp, comps);
}

/*
 * render__item_text() renders item @t into @disp, and its components into
 * @comps.
 */
static void render__item_text(struct render *r, const struct btf_type *t,
			      const char *name, struct sbuf *disp,
			      struct sbuf *comps)
{
	uint16_t kind = btf_kind(t);

	switch (kind) {
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		render__composite(r, t, kind_name(kind), name, disp, comps, 0);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		render__enum(r, t, kind_name(kind), name, disp, comps);
		break;
	case BTF_KIND_TYPEDEF:
		sbuf__add(disp, "typedef ");
		render__decl(r, t->type, name, disp, 0);
		break;
	case BTF_KIND_FWD:
		sbuf__add(disp, btf_kflag(t) ? "fwd union " : "fwd struct ");
		sbuf__add_name(disp, name);
		break;
	case BTF_KIND_INT:
		render__int(t, name, disp);
		break;
	case BTF_KIND_FLOAT:
		sbuf__add(disp, "float ");
		sbuf__add_name(disp, name);
		sbuf__addf(disp, " (size %u)", t->size);
		break;
	case BTF_KIND_FUNC:
		render__linked(r, t, "func ", btf_vlen(t), name, disp, comps);
		break;
	case BTF_KIND_VAR:
		render__linked(r, t, "var ", btf_var(t)->linkage, name, disp,
			       comps);
		break;
	case BTF_KIND_DATASEC:
		render__datasec(r, t, disp, comps);
		break;
	case BTF_KIND_DECL_TAG:
		sbuf__add(disp, btf_kflag(t) ? "decl_tag(attr) " : "decl_tag ");
		sbuf__add_name(disp, name);
		sbuf__add(disp, " -> ");
		render__tag_target(r, t, disp);
		break;
	case BTF_KIND_TYPE_TAG:
		sbuf__add(disp, "type_tag ");
		sbuf__add_name(disp, name);
		sbuf__add(disp, " -> ");
		render__decl(r, t->type, "", disp, 0);
		break;
	}
}

/*
 * Move the texts of the buffers into @it, which owns them then; an item
 * keyed by its rendering shares that string as its key.  On failure
 * (here or earlier in the rendering) @it is emptied and -errno returned.
 */
static int btf_item__take(struct btf_item *it, struct render *r,
			  bool anon_key, struct sbuf *key, struct sbuf *disp,
			  struct sbuf *comps)
{
	int err = r->err;

	it->disp = sbuf__take(disp, &err);
	it->comps = comps->len ? sbuf__take(comps, &err) : NULL;
	it->key = anon_key ? it->disp : sbuf__take(key, &err);
	sbuf__free(comps);
	sbuf__free(key);
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

/*
 * Make the item of type @id.  Types that are no items of their own (or of
 * a category not compared) get it->cat == CAT_NR.  Returns 0 or -errno.
 */
static int render__item(struct render *r, uint32_t id, const unsigned char *refd,
		       const bool *kinds, struct btf_item *it)
{
	const struct btf_type *t = render__type(r, id);
	struct sbuf key = {}, disp = {}, comps = {};
	bool anon_key;
	const char *name;

	memset(it, 0, sizeof(*it));
	it->cat = CAT_NR;
	if (!t)
		return r->err;
	name = render__name(r, t->name_off);
	it->cat = item_category(t, id, name, refd, &anon_key);
	if (it->cat == CAT_NR)
		return 0;
	if (!kinds[it->cat]) {
		it->cat = CAT_NR;
		return 0;
	}
	if (*name && !anon_key) {
		sbuf__add(&key, kind_name(btf_kind(t)));
		sbuf__addc(&key, ' ');
		sbuf__add_name(&key, name);
	} else {
		anon_key = true;
	}
	render__item_text(r, t, name, &disp, &comps);
	return btf_item__take(it, r, anon_key, &key, &disp, &comps);
}

/*
 * btf_items__collect() renders every type of @btf's own part (after its
 * base) and keeps those that are items of a compared category.  An error
 * is reported once, naming the type, and stops the collection.
 */
int btf_items__collect(struct btf_items *items, const struct btf *btf,
		       const char *path, const bool *kinds, bool flat_arrays)
{
	const struct btf *base = btf__base_btf(btf);
	uint32_t cnt = btf__type_cnt(btf);
	uint32_t start = base ? btf__type_cnt(base) : 1, id;
	struct render r = { .btf = btf, .cnt = cnt,
			    .flat_arrays = flat_arrays };
	unsigned char *refd;
	struct btf_item it;
	int err = 0;

	refd = calloc(cnt, 1);
	r.memo = calloc(cnt, sizeof(*r.memo));
	if (!refd || !r.memo) {
		err = -ENOMEM;
		goto out;
	}
	mark_refs(btf, start, cnt, refd);
	for (id = start; id < cnt; id++) {
		err = render__item(&r, id, refd, kinds, &it);
		if (err) {
			const char *why = err == -ELOOP ?
				"reference loop or nesting too deep" :
				err == -E2BIG ? "rendering too large" :
				strerror(-err);

			pr_err("%s: type [%u]: %s", path, id, why);
			goto out;
		}
		if (it.cat == CAT_NR)
			continue;
		err = btf_items__push(items, &it);
		if (err) {
			free(it.key != it.disp ? it.key : NULL);
			free(it.disp);
			free(it.comps);
			pr_err("%s: %s", path, strerror(-err));
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


/* Items sort by rendering here, for btf_items__drop_sorted(). */
static int item_disp_cmp(const void *a, const void *b)
{
	return strcmp(((const struct btf_item *)a)->disp,
		      ((const struct btf_item *)b)->disp);
}

/* Drop the items of @it that @base (sorted by rendering) has too. */
static void btf_items__drop_sorted(struct btf_items *it,
				   const struct btf_items *base)
{
	size_t i, n = 0;

	for (i = 0; i < it->n; i++) {
		struct btf_item *x = &it->v[i];

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

void btf_items__drop(struct btf_items *items, struct btf_items *base)
{
	if (base->n)
		qsort(base->v, base->n, sizeof(*base->v), item_disp_cmp);
	btf_items__drop_sorted(items, base);
}
