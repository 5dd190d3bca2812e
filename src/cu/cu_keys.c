// SPDX-License-Identifier: GPL-2.0-only
/*
 * A key for each type of a CU, from its DWARF alone, before any BTF is
 * built: types with equal keys, in one CU or two, are types the dedup
 * would merge, so that a run could build each distinct type once.  For now
 * the keys are only counted (--stats=keys): how many of a run's types
 * repeat one met before is what building each once would save.
 *
 * A type's key covers its DIE and the DIEs below it that are not types of
 * their own (members, enumerators, subranges, parameters), every attribute
 * but where it was declared (file, line, column: a header's type is the
 * same in every CU that includes it) and DW_AT_sibling.  Strings count by
 * content, constants by value.  A reference to another type counts by that
 * type's key, with one exception that keeps keys from depending on all of
 * a CU's types: a pointer to a named struct, union or class (through const
 * and volatile) counts by that name only, as DWARF's type signatures do.
 * Two CUs' pointers to "struct task_struct" then have the same key whether
 * or not the CU defines task_struct, or every struct task_struct reaches;
 * the dedup merges them too, as long as the name has one definition in the
 * run.  A reference the key cannot follow (a DIE that is not a type, nor
 * one of gcc's annotations) leaves the type, and those that reach it,
 * without a key.
 *
 * Types that reach each other (a strongly connected component of the
 * reference graph, found by Tarjan's algorithm) are keyed together: the
 * component is walked breadth-first from the member whose own content is
 * unique in it and smallest, each member numbered in the order met, and
 * each reference inside the component counts by that number.  The walk
 * is the same in every CU whose component is the same, whichever member
 * it was entered from.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cu/cu_internal.h"
#include "lib/grow.h"
#include "lib/hash.h"

/*
 * gcc chains its annotations through DW_AT_GNU_annotation; the chain is
 * followed this deep, as malformed DWARF could make it a loop.
 */
#define KEY_INLINE_DEPTH	8
/*
 * A pointer's target is looked through at most this many const and
 * volatile DIEs for the struct it names, for the same reason.
 */
#define KEY_NAME_HOPS		8

/*
 * What is fed besides DWARF's numbers is tagged above any DWARF tag,
 * attribute or form, so that no sequence of the one reads as the other.
 */
enum key_mark {
	KM_CHILD = 1u << 20,	/* a DIE below the type's */
	KM_END,			/* the end of a DIE's children */
	KM_EDGE,		/* a reference to a type (node) */
	KM_NAME,		/* a pointer's struct, by name */
	KM_INLINE,		/* a gcc annotation, fed in place */
	KM_INDEX,		/* an array's index type */
	KM_INSIDE,		/* a reference inside the component */
	KM_STR_OFF,		/* a string by its .debug_str offset */
	KM_STR_TEXT,		/* a string by its content */
	/* An attribute: KM_ATTR | its name (16 bits) << 4 | key_value. */
	KM_ATTR = 1u << 24,
};

/* How an attribute's value is fed, with its name (KM_ATTR). */
enum key_value {
	KV_REF, KV_STR, KV_FLAG, KV_CONST, KV_BLOCK,
};

struct key128 {
	uint64_t a, b;
};

/* The CU digests' mix (hash.h): two lanes, one multiply each. */
static inline void key__feed(struct key128 *k, uint64_t v)
{
	hash128_mix(&k->a, &k->b, v);
}

/* Marks in an edge: a name (of a pointed-to struct) instead of a node. */
#define EDGE_NAME	(1u << 31)

struct keys {
	struct cu_ctx *ctx;
	size_t n;
	struct key128 *local;	/* a node's own content */
	struct key128 *key;
	uint32_t *first_edge, *nr_edges;
	uint32_t *edges;	/* a node index, or EDGE_NAME | index in names */
	size_t nr_all_edges, cap_edges;
	struct key128 *names;	/* a name edge's content */
	size_t nr_names, cap_names;
	bool *nokey;
	/*
	 * Tarjan's algorithm: each node's visit number and lowest reachable
	 * number, the stack of open nodes, the walk that replaces recursion
	 * (a node and its next edge), and each node's component.  index[]
	 * numbers a component's members again while it is keyed; order[] is
	 * that walk's queue and sorted[] the members' own keys.
	 */
	int32_t *index, *low;
	uint32_t *stack, *walk_node, *walk_edge, *comp, *order;
	struct key128 *sorted;
	bool *on_stack;
	/*
	 * A linked file's .debug_str holds each name once, so there a name
	 * counts by its offset, without reading it (name_cache.h says the
	 * same of its own keys); a name elsewhere counts by content.  If a
	 * name were there twice, its two offsets would only make keys
	 * differ that could have been equal.
	 */
	const char *str;
	size_t str_size;
	/* the node being read, and whether it can have a key */
	size_t cur;
	bool bad;
};

static void keys__feed_str(const struct keys *k, struct key128 *h,
			   const char *s)
{
	if (k->str && s >= k->str && s < k->str + k->str_size) {
		key__feed(h, KM_STR_OFF);
		key__feed(h, s - k->str);
	} else {
		key__feed(h, KM_STR_TEXT);
		key__feed(h, hash_str(s));
	}
}

static int keys__add_edge(struct keys *k, uint32_t e)
{
	/* Bit 31 tells a name from a node. */
	if (k->nr_all_edges >= EDGE_NAME)
		return -E2BIG;
	if (grow_array((void **)&k->edges, &k->cap_edges, k->nr_all_edges + 1,
		       sizeof(*k->edges), 1024))
		return -ENOMEM;
	k->edges[k->nr_all_edges++] = e;
	k->nr_edges[k->cur]++;
	return 0;
}

static int keys__add_name_edge(struct keys *k, struct key128 name)
{
	if (k->nr_names >= EDGE_NAME)
		return -E2BIG;
	if (grow_array((void **)&k->names, &k->cap_names, k->nr_names + 1,
		       sizeof(*k->names), 64))
		return -ENOMEM;
	k->names[k->nr_names] = name;
	return keys__add_edge(k, EDGE_NAME | k->nr_names++);
}

/* The node of the DIE @die (of this CU or another unit), or -1. */
static ssize_t keys__find_node(struct keys *k, Dwarf_Die *die)
{
	struct cu_node *n = cu_ctx__find_node(k->ctx,
					      cu_ctx__die_key(k->ctx, die));

	if (!n || (size_t)(n - k->ctx->nodes) >= k->n)
		return -1;
	return n - k->ctx->nodes;
}

/*
 * For a pointer's DW_AT_type: the name edge of the named struct, union or
 * class it reaches through const and volatile, with those qualifiers.
 * Returns 1 if there is one, 0 if not.
 */
static int keys__pointee_name(struct keys *k, Dwarf_Die *target,
			      struct key128 *out)
{
	struct key128 name = { 0x51, 0x52 };
	Dwarf_Die die = *target;
	Dwarf_Attribute attr;
	const char *s;
	int hops, tag;

	for (hops = 0; hops < KEY_NAME_HOPS; hops++) {
		tag = dwarf_tag(&die);
		if (keys__find_node(k, &die) < 0)
			return 0;
		if (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type) {
			key__feed(&name, tag);
			if (!dwarf_attr(&die, DW_AT_type, &attr) ||
			    !die__formref(&attr, &die))
				return 0;
			continue;
		}
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_class_type)
			return 0;
		s = dwarf_attr(&die, DW_AT_name, &attr) ?
		    dwarf_formstring(&attr) : NULL;
		if (!s)
			return 0;
		/* A class and a struct are both BTF structs. */
		key__feed(&name, tag == DW_TAG_union_type);
		keys__feed_str(k, &name, s);
		*out = name;
		return 1;
	}
	return 0;
}

static int keys__feed_die(struct keys *k, struct key128 *h, Dwarf_Die *die,
			  bool top, int depth);

struct attr_walk {
	struct keys *k;
	struct key128 *h;
	bool pointer;		/* the DIE is a pointer type */
	int depth;
	int err;
};

static int keys__feed_ref(struct attr_walk *w, Dwarf_Attribute *attr)
{
	struct keys *k = w->k;
	struct key128 name;
	Dwarf_Die target;
	ssize_t node;

	if (!die__formref(attr, &target)) {
		k->bad = true;
		return 0;
	}
	if (w->pointer && dwarf_whatattr(attr) == DW_AT_type &&
	    keys__pointee_name(k, &target, &name)) {
		key__feed(w->h, KM_NAME);
		return keys__add_name_edge(k, name);
	}
	node = keys__find_node(k, &target);
	if (node >= 0) {
		key__feed(w->h, KM_EDGE);
		return keys__add_edge(k, node);
	}
	/* gcc's annotations: a chain of DIEs outside the types. */
	if (dwarf_tag(&target) == DW_TAG_GNU_annotation &&
	    w->depth < KEY_INLINE_DEPTH) {
		key__feed(w->h, KM_INLINE);
		return keys__feed_die(k, w->h, &target, false, w->depth + 1);
	}
	k->bad = true;
	return 0;
}

static int keys__feed_attr(Dwarf_Attribute *attr, void *arg)
{
	struct attr_walk *w = arg;
	unsigned int name = dwarf_whatattr(attr);
	Dwarf_Block block;
	const char *s;
	Dwarf_Sword sv;
	Dwarf_Word u;
	bool flag;

	switch (name) {
	case DW_AT_decl_file:
	case DW_AT_decl_line:
	case DW_AT_decl_column:
	case DW_AT_sibling:
		return DWARF_CB_OK;
	default:
		break;
	}
	switch (dwarf_whatform(attr)) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
	case DW_FORM_ref_udata:
	case DW_FORM_ref_addr:
	case DW_FORM_GNU_ref_alt:
	case DW_FORM_ref_sup4:
	case DW_FORM_ref_sup8:
		key__feed(w->h, KM_ATTR | (name & 0xffff) << 4 | KV_REF);
		w->err = keys__feed_ref(w, attr);
		break;
	case DW_FORM_strp:
		/* Read as the encoder reads a name: no call into libdw. */
		s = abbrev_cache__string(&w->k->ctx->abbrevs, attr);
		goto str;
	case DW_FORM_string:
	case DW_FORM_line_strp:
	case DW_FORM_strx:
	case DW_FORM_strx1:
	case DW_FORM_strx2:
	case DW_FORM_strx3:
	case DW_FORM_strx4:
	case DW_FORM_GNU_strp_alt:
	case DW_FORM_strp_sup:
		s = dwarf_formstring(attr);
str:
		key__feed(w->h, KM_ATTR | (name & 0xffff) << 4 | KV_STR);
		if (s)
			keys__feed_str(w->k, w->h, s);
		else
			w->k->bad = true;
		break;
	case DW_FORM_flag:
	case DW_FORM_flag_present:
		key__feed(w->h, KM_ATTR | (name & 0xffff) << 4 | KV_FLAG);
		if (dwarf_formflag(attr, &flag))
			w->k->bad = true;
		else
			key__feed(w->h, flag);
		break;
	case DW_FORM_sdata:
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
	case DW_FORM_udata:
	case DW_FORM_implicit_const:
		/*
		 * A constant counts by what it reads as, signed and
		 * unsigned (what the encoder takes depends on the form:
		 * data1 0xff is -1 signed, data2 0x00ff is 255), not by its
		 * form: gcc gives the same value data1 in one unit and
		 * implicit_const in another.
		 */
		key__feed(w->h, KM_ATTR | (name & 0xffff) << 4 | KV_CONST);
		if (dwarf_formudata(attr, &u) || dwarf_formsdata(attr, &sv)) {
			w->k->bad = true;
		} else {
			key__feed(w->h, u);
			key__feed(w->h, sv);
		}
		break;
	case DW_FORM_block:
	case DW_FORM_block1:
	case DW_FORM_block2:
	case DW_FORM_block4:
	case DW_FORM_exprloc:
	case DW_FORM_data16:
		key__feed(w->h, KM_ATTR | (name & 0xffff) << 4 | KV_BLOCK);
		if (dwarf_formblock(attr, &block)) {
			w->k->bad = true;
		} else {
			key__feed(w->h, block.length);
			key__feed(w->h, hash_bytes(block.data, block.length));
		}
		break;
	default:
		/* Addresses, offsets into other sections: not a type's. */
		w->k->bad = true;
		break;
	}
	return w->err ? DWARF_CB_ABORT : DWARF_CB_OK;
}

/*
 * Feeds @die (a node's when @top) and the DIEs below it that are not
 * nodes of their own into @h.  Returns 0 or -errno; what the key cannot
 * follow sets k->bad.
 */
static int keys__feed_die(struct keys *k, struct key128 *h, Dwarf_Die *die,
			  bool top, int depth)
{
	int tag = abbrev_cache__tag(&k->ctx->abbrevs, die), ret;
	struct attr_walk w = {
		.k = k,
		.h = h,
		.pointer = tag == DW_TAG_pointer_type,
		.depth = depth,
	};
	Dwarf_Die child;

	if (depth > DIE_MAX_DEPTH) {
		k->bad = true;
		return 0;
	}
	key__feed(h, tag);
	if (abbrev_cache__for_each_attr(&k->ctx->abbrevs, die, keys__feed_attr,
					&w) && !w.err)
		k->bad = true;
	if (w.err)
		return w.err;
	/* An annotation's own chain is its attribute, fed above. */
	if (!top && tag == DW_TAG_GNU_annotation)
		return 0;
	ret = abbrev_cache__child(&k->ctx->abbrevs, die, &child);
	while (ret == 0) {
		/* A type nested in a struct is a node of its own. */
		if (keys__find_node(k, &child) < 0) {
			key__feed(h, KM_CHILD);
			w.err = keys__feed_die(k, h, &child, false, depth + 1);
			if (w.err)
				return w.err;
		}
		ret = abbrev_cache__sibling(&k->ctx->abbrevs, &child, &child);
	}
	if (ret < 0)
		k->bad = true;
	key__feed(h, KM_END);
	return 0;
}

/* Reads node @i's own content and its edges. */
static int keys__read_node(struct keys *k, size_t i, struct key128 seed,
			   ssize_t index_node)
{
	struct cu_node *n = &k->ctx->nodes[i];
	struct key128 h = seed;
	int err = 0;

	k->cur = i;
	k->first_edge[i] = k->nr_all_edges;
	k->nr_edges[i] = 0;
	k->bad = false;
	key__feed(&h, n->kind);
	if (n->kind == NODE_INDEX_INT) {
		k->local[i] = h;
		return 0;
	}
	err = keys__feed_die(k, &h, &n->die, true, 0);
	/* An array's BTF names the CU's index type. */
	if (!err && dwarf_tag(&n->die) == DW_TAG_array_type) {
		key__feed(&h, KM_INDEX);
		if (index_node >= 0)
			err = keys__add_edge(k, index_node);
		else
			k->bad = true;
	}
	k->local[i] = h;
	k->nokey[i] = k->bad;
	return err;
}

static int key128_cmp(const void *a, const void *b)
{
	const struct key128 *x = a, *y = b;

	if (x->a != y->a)
		return x->a < y->a ? -1 : 1;
	return (x->b > y->b) - (x->b < y->b);
}

static bool key128_eq(struct key128 x, struct key128 y)
{
	return x.a == y.a && x.b == y.b;
}

/*
 * The root of the component stack[@base, @top): the member whose own
 * content is unique in the component and smallest.  Returns false if no
 * member's content is unique.
 */
static bool keys__pick_root(struct keys *k, size_t base, size_t top,
			    uint32_t *root)
{
	size_t sz = top - base, j;
	struct key128 best;
	bool found = false;

	for (j = 0; j < sz; j++)
		k->sorted[j] = k->local[k->stack[base + j]];
	qsort(k->sorted, sz, sizeof(*k->sorted), key128_cmp);
	for (j = 0; j < sz && !found; j++) {
		if ((j && key128_eq(k->sorted[j - 1], k->sorted[j])) ||
		    (j + 1 < sz && key128_eq(k->sorted[j + 1], k->sorted[j])))
			continue;
		best = k->sorted[j];
		found = true;
	}
	for (j = base; j < top && found; j++)
		if (key128_eq(k->local[k->stack[j]], best))
			*root = k->stack[j];
	return found;
}

/* Keys the component stack[@base, @top), numbered @comp. */
static void keys__key_component(struct keys *k, size_t base, size_t top,
				uint32_t comp)
{
	size_t j, e, qh = 0, qt = 0;
	struct key128 h = { 0xc0, 0xc1 };
	uint32_t root = 0;
	bool bad = false;

	for (j = base; j < top; j++) {
		k->on_stack[k->stack[j]] = false;
		k->comp[k->stack[j]] = comp;
	}
	/* Components are finished leaves first: those it reaches have keys. */
	for (j = base; j < top && !bad; j++) {
		uint32_t v = k->stack[j];

		bad = k->nokey[v];
		for (e = 0; e < k->nr_edges[v] && !bad; e++) {
			uint32_t t = k->edges[k->first_edge[v] + e];

			if (!(t & EDGE_NAME) && k->comp[t] != comp && k->nokey[t])
				bad = true;
		}
	}
	if (bad || !keys__pick_root(k, base, top, &root)) {
		for (j = base; j < top; j++)
			k->nokey[k->stack[j]] = true;
		return;
	}
	/* index[] of the members is free now: it numbers them in the walk. */
	for (j = base; j < top; j++)
		k->index[k->stack[j]] = -1;
	k->order[qt++] = root;
	k->index[root] = 0;
	while (qh < qt) {
		uint32_t v = k->order[qh++];

		key__feed(&h, k->local[v].a);
		key__feed(&h, k->local[v].b);
		for (e = 0; e < k->nr_edges[v]; e++) {
			uint32_t t = k->edges[k->first_edge[v] + e];

			if (t & EDGE_NAME) {
				key__feed(&h, k->names[t & ~EDGE_NAME].a);
				key__feed(&h, k->names[t & ~EDGE_NAME].b);
			} else if (k->comp[t] == comp) {
				if (k->index[t] < 0) {
					k->index[t] = qt;
					k->order[qt++] = t;
				}
				key__feed(&h, KM_INSIDE);
				key__feed(&h, k->index[t]);
			} else {
				key__feed(&h, k->key[t].a);
				key__feed(&h, k->key[t].b);
			}
		}
	}
	/* Every member of a component is reached from any other. */
	key__feed(&h, qt);
	for (j = 0; j < qt; j++) {
		struct key128 m = h;

		key__feed(&m, j);
		k->key[k->order[j]] = m;
	}
}

/* Tarjan's algorithm, without recursion: the components, leaves first. */
static void keys__find_components(struct keys *k)
{
	size_t sp = 0, wp = 0, i;
	int32_t next = 0;
	uint32_t comp = 0;

	for (i = 0; i < k->n; i++) {
		k->index[i] = -1;
		k->comp[i] = UINT32_MAX;
	}
	for (i = 0; i < k->n; i++) {
		if (k->index[i] >= 0)
			continue;
		k->index[i] = k->low[i] = next++;
		k->stack[sp++] = i;
		k->on_stack[i] = true;
		k->walk_node[wp] = i;
		k->walk_edge[wp++] = 0;
		while (wp) {
			uint32_t v = k->walk_node[wp - 1];

			if (k->walk_edge[wp - 1] < k->nr_edges[v]) {
				uint32_t t = k->edges[k->first_edge[v] +
						      k->walk_edge[wp - 1]++];

				if (t & EDGE_NAME)
					continue;
				if (k->index[t] < 0) {
					k->index[t] = k->low[t] = next++;
					k->stack[sp++] = t;
					k->on_stack[t] = true;
					k->walk_node[wp] = t;
					k->walk_edge[wp++] = 0;
				} else if (k->on_stack[t] && k->index[t] < k->low[v]) {
					k->low[v] = k->index[t];
				}
				continue;
			}
			wp--;
			if (wp && k->low[v] < k->low[k->walk_node[wp - 1]])
				k->low[k->walk_node[wp - 1]] = k->low[v];
			if (k->low[v] == k->index[v]) {
				size_t base = sp;

				while (k->stack[--base] != v)
					;
				keys__key_component(k, base, sp, comp++);
				/*
				 * keys__key_component() numbered the members
				 * again; INT32_MAX marks them visited (not
				 * -1) and, being off the stack, they lower
				 * no one's number.
				 */
				for (; sp > base; sp--)
					k->index[k->stack[sp - 1]] = INT32_MAX;
			}
		}
	}
}

static void keys__free(struct keys *k)
{
	free(k->local);
	free(k->key);
	free(k->first_edge);
	free(k->nr_edges);
	free(k->edges);
	free(k->names);
	free(k->nokey);
	free(k->index);
	free(k->low);
	free(k->stack);
	free(k->walk_node);
	free(k->walk_edge);
	free(k->comp);
	free(k->order);
	free(k->sorted);
	free(k->on_stack);
}

static int keys__alloc(struct keys *k)
{
	size_t n = k->n ? k->n : 1;

	k->local = calloc(n, sizeof(*k->local));
	k->key = calloc(n, sizeof(*k->key));
	k->first_edge = calloc(n, sizeof(*k->first_edge));
	k->nr_edges = calloc(n, sizeof(*k->nr_edges));
	k->nokey = calloc(n, sizeof(*k->nokey));
	k->index = calloc(n, sizeof(*k->index));
	k->low = calloc(n, sizeof(*k->low));
	k->stack = calloc(n, sizeof(*k->stack));
	k->walk_node = calloc(n, sizeof(*k->walk_node));
	k->walk_edge = calloc(n, sizeof(*k->walk_edge));
	k->comp = calloc(n, sizeof(*k->comp));
	k->order = calloc(n, sizeof(*k->order));
	k->sorted = calloc(n, sizeof(*k->sorted));
	k->on_stack = calloc(n, sizeof(*k->on_stack));
	if (!k->local || !k->key || !k->first_edge || !k->nr_edges ||
	    !k->nokey || !k->index || !k->low || !k->stack || !k->walk_node ||
	    !k->walk_edge || !k->comp || !k->order || !k->sorted ||
	    !k->on_stack)
		return -ENOMEM;
	return 0;
}

/*
 * Adds the keys of the CU's types to @c.  The sets take 64 bits: enough
 * to count with, as a fraction of a collision is expected over millions
 * of keys; a run that built types by their keys would compare all 128.
 */
static int keys__count(struct keys *k, struct type_key_count *c)
{
	size_t i;

	for (i = 0; i < k->n; i++) {
		struct cu_node *n = &k->ctx->nodes[i];
		Dwarf_Attribute attr;
		const char *name;
		uint64_t def;
		int tag;

		if (n->kind != NODE_TYPE)
			continue;
		c->nr_types++;
		if (k->nokey[i]) {
			c->nr_unkeyed++;
			continue;
		}
		if (key_set__add(&c->keys, (k->key[i].a & ~0xffffull) |
				 (n->nr_members < 0xffff ? n->nr_members : 0xffff)))
			return -ENOMEM;
		c->nr_members += n->nr_members;
		tag = dwarf_tag(&n->die);
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_class_type)
			continue;
		if (die_flag(&n->die, DW_AT_declaration) ||
		    !dwarf_attr(&n->die, DW_AT_name, &attr))
			continue;
		name = dwarf_formstring(&attr);
		if (!name)
			continue;
		def = (hash_str(name) ^ (tag == DW_TAG_union_type)) << 32 |
		      (k->key[i].a & 0xffffffffull);
		if (key_set__add(&c->defs, def))
			return -ENOMEM;
	}
	return 0;
}

int cu_ctx__count_type_keys(struct cu_ctx *ctx, struct type_key_count *out)
{
	struct keys k = { .ctx = ctx, .n = ctx->nr_nodes };
	const struct encode_env *env = ctx->env;
	struct key128 seed = { 0x5eed, 0x5eee };
	ssize_t index_node = -1;
	size_t i;
	int err;

	/*
	 * What the encoder makes of the same DWARF depends on these too:
	 * which annotations it reads, and how it orders Rust's members.
	 */
	key__feed(&seed, ctx->rust);
	key__feed(&seed, ctx->clang);
	key__feed(&seed, ctx->foreign_annots);
	key__feed(&seed, ctx->little_endian);
	key__feed(&seed, ctx->abbrevs.addr_size);
	if (env->ef->ehdr.e_type != ET_REL) {
		k.str = env->str_start;
		k.str_size = env->str_size;
	}
	err = keys__alloc(&k);
	for (i = 0; !err && i < k.n && ctx->index_type_id; i++)
		if ((ctx->nodes[i].kind == NODE_TYPE ||
		     ctx->nodes[i].kind == NODE_INDEX_INT) &&
		    ctx->nodes[i].id == ctx->index_type_id)
			index_node = i;
	for (i = 0; !err && i < k.n; i++)
		err = keys__read_node(&k, i, seed, index_node);
	if (!err) {
		keys__find_components(&k);
		err = keys__count(&k, out);
	}
	keys__free(&k);
	return err;
}
