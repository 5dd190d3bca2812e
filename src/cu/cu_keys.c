// SPDX-License-Identifier: GPL-2.0-only
/*
 * A key for each type of a CU, from its DWARF alone, before any BTF is
 * built: types with equal keys, in one CU or two, are types the dedup
 * would merge.  A CU then takes the types an earlier CU of its batch
 * built under the same keys (cu_ctx__reuse_keys(), type_reuse.h) rather
 * than building them again; --stats=keys counts how many repeat.
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
 * A DIE's values are read at the places its abbreviation's plan knows
 * (struct key_plan, below), not attribute by attribute.
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
#include "lib/key_set.h"
#include "lib/leb128.h"

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

/* type_reuse.h's key */
#define key128 type_key

/* The CU digests' mix (hash.h): two lanes, one multiply each. */
static inline void key__feed(struct key128 *k, uint64_t v)
{
	hash128_mix(&k->a, &k->b, v);
}

/*
 * Feeds a key's two halves at once, @a into lane a and @b into lane b
 * (hash128_mix2()): a 128-bit key in one step of the chain, where two
 * steps of key__feed() were its length.  A lane then holds one half of
 * each key fed; two keys' lanes are equal only if both halves are.
 */
static inline void key__feed2(struct key128 *k, uint64_t a, uint64_t b)
{
	hash128_mix2(&k->a, &k->b, a, b);
}

/*
 * A reference inside a component, to the member numbered @index: each
 * lane is given the number, so that lane a alone (the tables' hash, the
 * counts of --stats=keys) tells components wired apart.
 */
static inline uint64_t keys__inside(uint64_t index)
{
	return index << 32 | KM_INSIDE;
}

/*
 * How the keys read the values of a DIE, in one of two ways that give the
 * same key:
 * - by its abbreviation's plan (struct key_plan), made once per CU and
 *   code: the shape (tag, children, the names and forms of the attributes
 *   that count, implicit constants) is hashed once, and a DIE only reads
 *   its values at known places (keys__feed_planned());
 * - attribute by attribute through libdw (a code of more than one byte,
 *   a DIE of another unit), the same shape and values made per DIE
 *   (keys__feed_vals()).
 * A value counts by its bytes as its form gives them, so a constant as
 * data1 in one unit and implicit_const in another keys apart: a key that
 * could have been equal, never two types taken for one.  Where it was
 * declared does not count, nor in what form (a unit with more than 255
 * files numbers them in two bytes).  A DIE with a form neither way reads
 * (a reference outside the CU, a string of a dwz file, a block), or a
 * reference to a DIE that is no node (gcc's annotations), is fed the old
 * way, attribute by attribute (keys__feed_attr()), in both.
 */
#define PLAN_OPS	24
/* The attributes keys__feed_vals() takes of a DIE, at most. */
#define VALS_MAX	64
/* The references either way takes of a DIE, at most. */
#define READ_REFS	8

enum plan_op_kind {
	POP_SKIP,	/* n bytes that do not count */
	POP_CONST,	/* a constant of n bytes (data1 to data8) */
	POP_ULEB,
	POP_SLEB,
	POP_IMPLICIT,	/* one of the plan's implicit constants */
	POP_FLAG,	/* a flag byte */
	POP_TRUE,	/* flag_present */
	POP_STRP,	/* a .debug_str offset of n bytes */
	POP_STRING,	/* an inline string, by content */
	POP_REF,	/* a CU-local reference of n bytes */
};

struct plan_op {
	uint8_t kind;
	/*
	 * The bytes before its value that do not count (where it was
	 * declared, the sibling): stepped over with it, not as ops of
	 * their own, which were half a struct member's ops.
	 */
	uint8_t skip;
	uint8_t n;	/* the bytes it reads, if fixed */
	uint8_t note;	/* PN_NAME, PN_DECL, PN_TYPE or 0 */
	uint8_t implicit;	/* POP_IMPLICIT: which of the plan's */
};

enum { PN_NAME = 1, PN_DECL, PN_TYPE };

#define PLAN_IMPLICIT	4

struct key_plan {
	uint8_t state;		/* PLAN_UNKNOWN, PLAN_READY, PLAN_OLD */
	uint8_t nr_ops;
	uint8_t nr_implicit;
	uint8_t children;
	uint16_t tag;
	uint64_t shape;
	int64_t implicit[PLAN_IMPLICIT];
	struct plan_op ops[PLAN_OPS];
};

enum { PLAN_UNKNOWN, PLAN_READY, PLAN_OLD };

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
	uint64_t *name_ids;	/* a name edge's struct name (keys__name_id()) */
	size_t nr_names, cap_names, cap_name_ids;
	uint64_t *def_name;	/* a named struct's name, 0 if not one */
	uint64_t *decl_name;	/* a declared-only struct's name, or 0 */
	bool *nokey;
	/*
	 * Tarjan's algorithm: each node's visit number and lowest reachable
	 * number, the stack of open nodes, the walk that replaces recursion
	 * (a node and its next edge), and each node's component.  index[]
	 * numbers a component's members again while it is keyed; order[] is
	 * that walk's queue and sorted[] the members' own keys.  A node is
	 * on the stack while its index is below INT32_MAX, which marks the
	 * members of finished components.
	 */
	int32_t *index, *low;
	uint32_t *stack, *walk_node, *walk_edge, *comp, *order;
	struct key128 *sorted;
	/*
	 * A linked file's .debug_str holds each name once, so there a name
	 * counts by its offset, without reading it (name_cache.h says the
	 * same of its own keys); a name elsewhere counts by content.  If a
	 * name were there twice, its two offsets would only make keys
	 * differ that could have been equal.
	 */
	const char *str;
	size_t str_size;
	/*
	 * What the walk notes of each node, so that no DIE is read twice:
	 * its tag, its name, whether it is a declaration, and for const and
	 * volatile the edge of their DW_AT_type (UINT32_MAX if none).
	 */
	uint16_t *tag;
	const char **name;
	bool *decl;
	uint32_t *type_edge;
	/* a pointer's DW_AT_type edge, resolved to a name after the walk */
	uint32_t *ptr_edge;
	/*
	 * The next node that may be nested in the one being read: nested
	 * types follow their node in the nodes, in DIE order.
	 */
	size_t cursor;
	/* the node being read, and whether it can have a key */
	size_t cur;
	/* by one-byte abbreviation code, for this CU */
	struct key_plan plan[ABBREV_CACHE_CODES];
	/*
	 * by a two-byte code's slot (abbrev_spec.slot), ABBREV_CACHE_CHUNK
	 * at a time, allocated when its first DIE is read
	 */
	struct key_plan *hi_plan[(ABBREV_CACHE_SLOTS - ABBREV_CACHE_CODES) /
				 ABBREV_CACHE_CHUNK];
	bool bad;
	/* the walk over the node's bytes gave up: read it through libdw */
	bool restart;
	/*
	 * The collecting walk keys each node as it meets it
	 * (cu_ctx__key_node()), while its DIEs are in the cache.  Nodes are
	 * not all known then, so a reference counts by its CU offset (@raw)
	 * until cu_ctx__reuse_keys() turns it into a node; a node whose
	 * offsets do not all lead to nodes, or that the walk could not read,
	 * is read again then (fused[] false).  @cap is the per-node arrays'
	 * size while the walk grows them.
	 */
	bool raw;
	bool *fused;
	/* where the subtree of a node the walk read ends, or NULL */
	const unsigned char **end;
	size_t cap;
	struct key128 seed;
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

/*
 * The identity of struct or union name @s: the key fwd_names.h gives it
 * (a rerun speaks of them), which stands for a struct and a union of that
 * name alike.  Remembered for the batch, where there is one, for a name in
 * the file's .debug_str, which stays where it is for the run.
 */
static uint64_t keys__name_id(const struct keys *k, const char *s)
{
	if (k->ctx->reuse && k->str && s >= k->str &&
	    s < k->str + k->str_size)
		return type_reuse__name_key(k->ctx->reuse, s);
	return key_set__name_key(s, false);
}

static inline int keys__add_edge(struct keys *k, uint32_t e)
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

/* Adds a name edge's content; returns its index or -errno. */
static int keys__add_name(struct keys *k, struct key128 name, uint64_t name_id)
{
	if (k->nr_names >= EDGE_NAME)
		return -E2BIG;
	if (grow_array((void **)&k->names, &k->cap_names, k->nr_names + 1,
		       sizeof(*k->names), 64) ||
	    grow_array((void **)&k->name_ids, &k->cap_name_ids,
		       k->nr_names + 1, sizeof(*k->name_ids), 64))
		return -ENOMEM;
	k->names[k->nr_names] = name;
	k->name_ids[k->nr_names] = name_id;
	return k->nr_names++;
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
 * Turns the DW_AT_type edge of each pointer to a named struct, union or
 * class (through const and volatile) into an edge to that name, with
 * the qualifiers on the way: a pointer counts by the name it reaches.
 * Read from what the walk noted of the nodes, after it has read them all,
 * since a pointer may come before what it points to.  Returns 0 or
 * -errno.
 */
static int keys__resolve_pointers(struct keys *k)
{
	size_t i;
	int err;

	for (i = 0; i < k->n; i++) {
		struct key128 name = { 0x51, 0x52 };
		uint32_t t, pos = k->ptr_edge[i];
		int hops, tag;

		if (pos == UINT32_MAX)
			continue;
		t = k->edges[pos];
		for (hops = 0; hops < KEY_NAME_HOPS && !(t & EDGE_NAME); hops++) {
			tag = k->tag[t];
			if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
				break;
			key__feed(&name, tag);
			if (k->type_edge[t] == UINT32_MAX)
				break;
			t = k->edges[k->type_edge[t]];
		}
		if (hops == KEY_NAME_HOPS || (t & EDGE_NAME) || !k->name[t])
			continue;
		tag = k->tag[t];
		if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
		    tag != DW_TAG_class_type)
			continue;
		/* A class and a struct are both BTF structs. */
		key__feed(&name, tag == DW_TAG_union_type);
		keys__feed_str(k, &name, k->name[t]);
		err = keys__add_name(k, name, keys__name_id(k, k->name[t]));
		if (err < 0)
			return err;
		k->edges[pos] = EDGE_NAME | (uint32_t)err;
	}
	return 0;
}

static int keys__feed_die(struct keys *k, struct key128 *h, Dwarf_Die *die,
			  bool top, int depth, const unsigned char **after);

struct attr_walk {
	struct keys *k;
	struct key128 *h;
	bool pointer;		/* the DIE is a pointer type */
	/* the DIE was fed the old way, attribute by attribute */
	bool old;
	int tag;
	int depth;
	int err;
};

/*
 * Starts a DIE fed the old way, attribute by attribute: its tag first,
 * and the end of its children (KM_END) after them even if it has none.
 * A DIE read by plan is fed as its values' hash alone, whose shape has
 * the tag and whether it has children; KM_END follows only its
 * children.  A struct member is then two steps of the key (KM_CHILD and
 * its values), where it was four.
 */
static void keys__feed_old(struct attr_walk *w)
{
	key__feed(w->h, w->tag);
	w->old = true;
}

/*
 * Feeds a reference by attribute @name to node @node.  The DW_AT_type of
 * the node's own DIE is noted: a const's or volatile's for the pointers
 * that reach a struct through it, a pointer's to be turned into a name
 * (keys__resolve_pointers()).
 */
static int keys__feed_node_ref(struct attr_walk *w, unsigned int name,
			       size_t node)
{
	struct keys *k = w->k;

	if (w->depth == 0 && name == DW_AT_type) {
		k->type_edge[k->cur] = k->nr_all_edges;
		if (w->pointer)
			k->ptr_edge[k->cur] = k->nr_all_edges;
	}
	key__feed(w->h, KM_EDGE);
	return keys__add_edge(k, node);
}

/* Notes the name or declaration flag of the node's own DIE. */
static void keys__note_attr(struct attr_walk *w, unsigned int name,
			    const char *s, bool flag)
{
	if (w->depth)
		return;
	if (name == DW_AT_name)
		w->k->name[w->k->cur] = s;
	else if (name == DW_AT_declaration)
		w->k->decl[w->k->cur] = flag;
}

static int keys__feed_ref(struct attr_walk *w, Dwarf_Attribute *attr)
{
	struct keys *k = w->k;
	Dwarf_Die target;
	ssize_t node;

	if (!die__formref(attr, &target)) {
		k->bad = true;
		return 0;
	}
	node = keys__find_node(k, &target);
	if (node >= 0)
		return keys__feed_node_ref(w, dwarf_whatattr(attr), node);
	/* gcc's annotations: a chain of DIEs outside the types. */
	if (dwarf_tag(&target) == DW_TAG_GNU_annotation &&
	    w->depth < KEY_INLINE_DEPTH) {
		key__feed(w->h, KM_INLINE);
		return keys__feed_die(k, w->h, &target, false, w->depth + 1,
				      NULL);
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
		keys__note_attr(w, name, s, false);
		if (s)
			keys__feed_str(w->k, w->h, s);
		else
			w->k->bad = true;
		break;
	case DW_FORM_flag:
	case DW_FORM_flag_present:
		key__feed(w->h, KM_ATTR | (name & 0xffff) << 4 | KV_FLAG);
		if (dwarf_formflag(attr, &flag)) {
			w->k->bad = true;
		} else {
			key__feed(w->h, flag);
			keys__note_attr(w, name, NULL, flag);
		}
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

/* A value of @size bytes at @p, in the file's byte order (the host's). */
static uint64_t keys__read(const unsigned char *p, int size)
{
	uint8_t v1;
	uint16_t v2;
	uint32_t v4;
	uint64_t v8;

	switch (size) {
	case 1:
		v1 = *p;
		return v1;
	case 2:
		memcpy(&v2, p, 2);
		return v2;
	case 4:
		memcpy(&v4, p, 4);
		return v4;
	default:
		memcpy(&v8, p, 8);
		return v8;
	}
}

/* Does attribute @name not count in a key (where it was declared)? */
static bool keys__attr_skipped(unsigned int name)
{
	return name == DW_AT_decl_file || name == DW_AT_decl_line ||
	       name == DW_AT_decl_column || name == DW_AT_sibling;
}

/*
 * The plan op of a value of form @form that counts, with its size @size
 * (-1 if it varies), into *@op; its part of the shape into the lanes: the
 * attribute and the class of its form, since a constant or a flag counts
 * by what it reads as, not by its form (gcc gives a struct's alignment
 * as data1 in one unit and as implicit_const in another).  Returns false
 * for a form neither way reads.
 */
static bool keys__plan_form(struct keys *k, unsigned int name,
			    unsigned int form, int size, struct plan_op *op,
			    uint64_t *a, uint64_t *b)
{
	unsigned int class = form;

	op->note = 0;
	op->skip = 0;
	op->n = size > 0 ? size : 0;
	switch (form) {
	case DW_FORM_data1:
	case DW_FORM_data2:
	case DW_FORM_data4:
	case DW_FORM_data8:
		op->kind = POP_CONST;
		class = DW_FORM_udata;
		break;
	case DW_FORM_udata:
		op->kind = POP_ULEB;
		class = DW_FORM_udata;
		break;
	case DW_FORM_sdata:
		op->kind = POP_SLEB;
		class = DW_FORM_udata;
		break;
	case DW_FORM_implicit_const:
		op->kind = POP_IMPLICIT;
		class = DW_FORM_udata;
		break;
	case DW_FORM_flag:
	case DW_FORM_flag_present:
		op->kind = form == DW_FORM_flag ? POP_FLAG : POP_TRUE;
		op->note = name == DW_AT_declaration ? PN_DECL : 0;
		class = DW_FORM_flag;
		break;
	case DW_FORM_strp:
		/* Strings count by their offset, as keys__feed_str() has it. */
		if (!k->str || k->ctx->abbrevs.str != k->str)
			return false;
		op->kind = POP_STRP;
		op->note = name == DW_AT_name ? PN_NAME : 0;
		break;
	case DW_FORM_string:
		op->kind = POP_STRING;
		op->note = name == DW_AT_name ? PN_NAME : 0;
		break;
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
		op->kind = POP_REF;
		op->note = name == DW_AT_type ? PN_TYPE : 0;
		class = DW_FORM_ref4;
		break;
	default:
		return false;
	}
	if ((op->kind == POP_CONST || op->kind == POP_STRP ||
	     op->kind == POP_REF || op->kind == POP_FLAG) && size <= 0)
		return false;
	hash128_mix(a, b, (uint64_t)name << 16 | class);
	return true;
}

/* Adds an op to @pl that steps over @n bytes; false if it has no room. */
static bool keys__plan_skip(struct key_plan *pl, unsigned int n)
{
	if (pl->nr_ops == PLAN_OPS)
		return false;
	pl->ops[pl->nr_ops++] = (struct plan_op){ .kind = POP_SKIP, .n = n };
	return true;
}

/* Makes @pl, for the DIEs of abbreviation @s, of which @die is one. */
static void keys__plan_build(struct keys *k, struct key_plan *pl,
			     Dwarf_Die *die, const struct abbrev_spec *s)
{
	uint64_t a = 0x6b70, b = 0x6b71;
	unsigned int i, skip = 0;

	pl->state = PLAN_OLD;
	pl->tag = abbrev_cache__tag(&k->ctx->abbrevs, die);
	pl->children = s->children;
	hash128_mix(&a, &b, pl->tag);
	hash128_mix(&a, &b, s->children);
	for (i = 0; i < s->nr; i++) {
		struct plan_op *op = &pl->ops[pl->nr_ops];

		/*
		 * What does not count is stepped over, by its size: with the
		 * next op, or as an op of its own at the end or where a byte
		 * cannot hold it.
		 */
		if (keys__attr_skipped(s->a[i].name)) {
			if (s->a[i].size < 0)
				return;
			if (skip + s->a[i].size > UINT8_MAX) {
				if (!keys__plan_skip(pl, skip))
					return;
				skip = 0;
			}
			skip += s->a[i].size;
			continue;
		}
		if (pl->nr_ops == PLAN_OPS)
			return;
		if (!keys__plan_form(k, s->a[i].name, s->a[i].form,
				     s->a[i].size, op, &a, &b)) {
			return;
		} else if (op->kind == POP_IMPLICIT) {
			Dwarf_Attribute attr;
			Dwarf_Sword v;

			/*
			 * The value as libdw reads it from the DIE, as
			 * keys__feed_vals() has it: elfutils 0.188 reads
			 * an abbreviation's values after an implicit
			 * constant from the wrong place.
			 */
			if (pl->nr_implicit == PLAN_IMPLICIT ||
			    !dwarf_attr(die, s->a[i].name, &attr) ||
			    dwarf_formsdata(&attr, &v))
				return;
			op->implicit = pl->nr_implicit;
			pl->implicit[pl->nr_implicit++] = v;
		}
		op->skip = skip;
		skip = 0;
		pl->nr_ops++;
	}
	if (skip && !keys__plan_skip(pl, skip))
		return;
	pl->shape = a ^ hash_rotl(b, 32);
	pl->state = PLAN_READY;
}

/* What keys__feed_planned() and keys__feed_vals() read of a DIE. */
struct die_read {
	uint64_t h;		/* the shape, then each value */
	uint32_t node[READ_REFS];	/* its references' nodes */
	int8_t type_ref;	/* which one is DW_AT_type, or -1 */
	uint8_t nr_refs;
	const char *name;
	bool decl;
};

/* Adds value @v to @r. */
static inline void die_read__value(struct die_read *r, uint64_t v)
{
	r->h = hash_mum(r->h ^ v, 0x9e3779b97f4a7c15ull);
}

/*
 * Adds a constant that reads as @u unsigned and @sv signed to @r: what
 * the encoder takes depends on the form (data1 0xff is -1 signed, data2
 * 0x00ff is 255), so both count, the second only where they differ.
 */
static inline void die_read__const(struct die_read *r, uint64_t u, int64_t sv)
{
	die_read__value(r, u);
	if ((uint64_t)sv != u)
		die_read__value(r, sv ^ 0x5356);
}

/* A data1 to data8 value @v of @n bytes, read signed. */
static inline int64_t keys__signed(uint64_t v, unsigned int n)
{
	return n == 1 ? (int8_t)v : n == 2 ? (int16_t)v :
	       n == 4 ? (int32_t)v : (int64_t)v;
}

/*
 * Adds a reference to CU offset @off to @r (PN_TYPE in @note for
 * DW_AT_type); false if it leads to no node of the CU.
 */
static inline bool die_read__ref(struct keys *k, struct die_read *r,
				 uint64_t off, unsigned int note)
{
	struct cu_node *n = NULL;

	if (r->nr_refs == READ_REFS)
		return false;
	if (k->raw) {
		/* Bit 31 of an edge tells a name from a node. */
		if (off >= EDGE_NAME)
			return false;
	} else {
		n = cu_ctx__find_node(k->ctx, k->ctx->cu_start + off);
		if (!n || (size_t)(n - k->ctx->nodes) >= k->n)
			return false;
		off = n - k->ctx->nodes;
	}
	if (note == PN_TYPE)
		r->type_ref = r->nr_refs;
	r->node[r->nr_refs++] = off;
	return true;
}

/* Feeds what @r read of a DIE into the node's key; 0 or -errno. */
static __always_inline int keys__feed_read(struct attr_walk *w,
					   const struct die_read *r)
{
	struct keys *k = w->k;
	unsigned int i;
	int err;

	key__feed(w->h, r->h);
	for (i = 0; i < r->nr_refs; i++) {
		if (w->depth == 0 && (int)i == r->type_ref) {
			k->type_edge[k->cur] = k->nr_all_edges;
			if (w->pointer)
				k->ptr_edge[k->cur] = k->nr_all_edges;
		}
		err = keys__add_edge(k, r->node[i]);
		if (err) {
			w->err = err;
			return err;
		}
	}
	if (w->depth == 0) {
		k->name[k->cur] = r->name;
		k->decl[k->cur] = r->decl;
	}
	return 0;
}

/*
 * Reads the value of @op at *@pp (before @end; @implicit for an implicit
 * constant) into @r and moves *@pp past it.  Returns 0, or 1 if the old
 * way must read the DIE (a reference to no node, a value past @end).
 * It runs for every value the keys read, so it is inlined into the
 * plan's loop, as is what feeds the values (keys__feed_read()).
 */
static __always_inline int keys__read_op(struct keys *k,
					 struct die_read *r,
					 const struct plan_op *op,
					 const unsigned char **pp,
					 const unsigned char *end,
					 int64_t implicit)
{
	const struct abbrev_cache *c = &k->ctx->abbrevs;
	const unsigned char *p = *pp, *nul;
	uint64_t v;
	int64_t sv;

	if (end - p < op->skip + op->n)
		return 1;
	p += op->skip;
	switch (op->kind) {
	case POP_SKIP:
		p += op->n;
		break;
	case POP_CONST:
		v = keys__read(p, op->n);
		p += op->n;
		die_read__const(r, v, keys__signed(v, op->n));
		break;
	case POP_ULEB:
		if (!uleb_read(&p, end, &v))
			return 1;
		die_read__const(r, v, v);
		break;
	case POP_SLEB:
		if (!sleb_read(&p, end, &sv))
			return 1;
		die_read__const(r, sv, sv);
		break;
	case POP_IMPLICIT:
		die_read__const(r, implicit, implicit);
		break;
	case POP_FLAG:
	case POP_TRUE:
		v = op->kind == POP_TRUE || *p;
		p += op->n;
		die_read__value(r, v);
		if (op->note == PN_DECL)
			r->decl = v;
		break;
	case POP_STRP:
		v = keys__read(p, op->n);
		p += op->n;
		die_read__value(r, v);
		if (op->note == PN_NAME)
			r->name = v < c->str_size ? c->str + v : NULL;
		break;
	case POP_STRING:
		nul = memchr(p, 0, end - p);
		if (!nul)
			return 1;
		die_read__value(r, hash_bytes(p, nul - p));
		if (op->note == PN_NAME)
			r->name = (const char *)p;
		p = nul + 1;
		break;
	default:
		v = keys__read(p, op->n);
		p += op->n;
		if (!die_read__ref(k, r, v, op->note))
			return 1;
		break;
	}
	*pp = p;
	return 0;
}

/*
 * Reads a DIE's values at @p (to @end) by plan @pl and feeds them: 0,
 * -errno, or 1 if the old way must read it (a reference to no node).
 * *@stop is then past the last value: a plan reads them all, in order.
 */
static __always_inline int keys__feed_planned(struct attr_walk *w,
					      const struct key_plan *pl,
					      const unsigned char *p,
					      const unsigned char *end,
					      const unsigned char **stop)
{
	const struct plan_op *op, *oe = pl->ops + pl->nr_ops;
	struct die_read r;

	/* Not an initializer: it would clear node[] for every DIE. */
	r.h = pl->shape;
	r.type_ref = -1;
	r.nr_refs = 0;
	r.name = NULL;
	r.decl = false;

	for (op = pl->ops; op < oe; op++)
		if (keys__read_op(w->k, &r, op, &p, end,
				  op->kind == POP_IMPLICIT ?
				  pl->implicit[op->implicit] : 0))
			return 1;
	*stop = p;
	return keys__feed_read(w, &r);
}

/* The size of a value of @form in the CU, or -1 if it varies. */
static int keys__form_size(const struct abbrev_cache *c, unsigned int form)
{
	struct dwarf_form_layout l = dwarf_form__layout(form, c->version,
							c->addr_size,
							c->offset_size);

	return l.kind == DWARF_FORM_FIXED ? l.size : -1;
}

/* A DIE's attributes as libdw gives them, for keys__feed_vals(). */
struct die_vals {
	unsigned int nr;
	bool overflow;
	Dwarf_Attribute a[VALS_MAX];
	int64_t implicit[VALS_MAX];
};

static int keys__collect_attr(Dwarf_Attribute *attr, void *arg)
{
	struct die_vals *v = arg;
	Dwarf_Sword sv = 0;

	if (v->nr == VALS_MAX) {
		v->overflow = true;
		return DWARF_CB_ABORT;
	}
	if (dwarf_whatform(attr) == DW_FORM_implicit_const &&
	    dwarf_formsdata(attr, &sv)) {
		v->overflow = true;
		return DWARF_CB_ABORT;
	}
	v->implicit[v->nr] = sv;
	v->a[v->nr++] = *attr;
	return DWARF_CB_OK;
}

/*
 * Reads DIE @die (tag @tag) attribute by attribute through libdw as its
 * plan would (keys__plan_build(), keys__feed_planned()) and feeds it:
 * 0, -errno, or 1 if the old way must read it.
 */
static int keys__feed_vals(struct attr_walk *w, Dwarf_Die *die, int tag)
{
	struct keys *k = w->k;
	const struct abbrev_cache *c = &k->ctx->abbrevs;
	struct die_read r = { .type_ref = -1 };
	uint64_t a = 0x6b70, b = 0x6b71;
	struct die_vals vals = { 0 };
	const unsigned char *q, *end = c->cu_end;
	struct plan_op op;
	unsigned int i;

	if (!end || die->cu != c->cu ||
	    abbrev_cache__for_each_attr(&k->ctx->abbrevs, die,
					keys__collect_attr, &vals) ||
	    vals.overflow)
		return 1;
	hash128_mix(&a, &b, tag);
	hash128_mix(&a, &b, dwarf_haschildren(die));
	/* The shape first, as the plan has it before any value. */
	for (i = 0; i < vals.nr; i++) {
		unsigned int name = vals.a[i].code, form = vals.a[i].form;

		if (keys__attr_skipped(name))
			continue;
		if (!keys__plan_form(k, name, form, keys__form_size(c, form),
				     &op, &a, &b))
			return 1;
	}
	r.h = a ^ hash_rotl(b, 32);
	for (i = 0; i < vals.nr; i++) {
		unsigned int name = vals.a[i].code, form = vals.a[i].form;
		uint64_t ua = 0, ub = 0;

		if (keys__attr_skipped(name))
			continue;
		keys__plan_form(k, name, form, keys__form_size(c, form), &op,
				&ua, &ub);
		/* The values of these two are in the abbreviation. */
		q = op.kind == POP_IMPLICIT || op.kind == POP_TRUE ? end :
		    vals.a[i].valp;
		if (!q || q < c->cu_start || q > end)
			return 1;
		if (keys__read_op(k, &r, &op, &q, end, vals.implicit[i]))
			return 1;
	}
	return keys__feed_read(w, &r);
}

/*
 * Feeds the attributes of @die as keys__feed_attr() does, reading the
 * common forms straight from the DIE's bytes (abbrev_cache__values())
 * and handing it the others.  Returns 1 if the fast path cannot read
 * @die (nothing fed then), else 0 or -errno as keys__feed_attr() would.
 */
/*
 * The plan of the abbreviation in slot @slot (abbrev_spec.slot), or NULL
 * if there is no memory for it.
 */
static struct key_plan *keys__plan(struct keys *k, unsigned int slot)
{
	struct key_plan **chunk;

	if (slot < ABBREV_CACHE_CODES)
		return &k->plan[slot];
	slot -= ABBREV_CACHE_CODES;
	chunk = &k->hi_plan[slot / ABBREV_CACHE_CHUNK];
	if (!*chunk)
		*chunk = calloc(ABBREV_CACHE_CHUNK, sizeof(**chunk));
	return *chunk ? &(*chunk)[slot % ABBREV_CACHE_CHUNK] : NULL;
}

static int keys__feed_attrs_fast(struct attr_walk *w, Dwarf_Die *die,
				  const unsigned char **after, bool *children)
{
	struct keys *k = w->k;
	struct abbrev_cache *c = &k->ctx->abbrevs;
	const unsigned char *p, *end, *next, *stop;
	const struct abbrev_spec *s;
	bool planned = false;
	size_t i;

	/*
	 * A DIE of the CU with a one-byte code whose plan is made: the plan
	 * reads every value in order, so it finds where they end too.  Where
	 * it cannot read them, it would not with the values' end either.
	 */
	p = die->addr;
	if (die->cu == c->cu && p && *p && *p < ABBREV_CACHE_CODES &&
	    k->plan[*p].state == PLAN_READY) {
		int ret = keys__feed_planned(w, &k->plan[*p], p + 1, c->cu_end,
					     after);

		*children = k->plan[*p].children;
		if (ret <= 0)
			return ret;
		planned = true;
	}
	s = abbrev_cache__values(c, die, &p, &end);
	if (!s)
		return 1;
	*after = end;
	*children = s->children;
	{
		struct key_plan *pl = keys__plan(k, s->slot);
		int ret;

		if (!pl)
			return 1;
		if (pl->state == PLAN_UNKNOWN)
			keys__plan_build(k, pl, die, s);
		if (pl->state == PLAN_READY) {
			ret = planned ? 1 :
			      keys__feed_planned(w, pl, p, end, &stop);
			if (ret <= 0)
				return ret;
		} else {
			ret = keys__feed_vals(w, die, pl->tag ? pl->tag :
					      abbrev_cache__tag(c, die));
			if (ret <= 0)
				return ret;
		}
	}
	/* What follows finds nodes, which the collecting walk cannot yet. */
	if (k->raw)
		return 1;
	keys__feed_old(w);
	for (i = 0; i < s->nr; i++, p = next) {
		unsigned int name = s->a[i].name, form = s->a[i].form;
		uint64_t v, name_key = KM_ATTR | (name & 0xffff) << 4;
		const unsigned char *q = p;
		Dwarf_Attribute attr;
		struct cu_node *n;
		int64_t sv;

		next = abbrev_cache__value_end(c, s, i, p);
		switch (name) {
		case DW_AT_decl_file:
		case DW_AT_decl_line:
		case DW_AT_decl_column:
		case DW_AT_sibling:
			continue;
		default:
			break;
		}
		switch (form) {
		case DW_FORM_data1:
		case DW_FORM_data2:
		case DW_FORM_data4:
		case DW_FORM_data8:
			/* As dwarf_formudata() and dwarf_formsdata() read it. */
			v = keys__read(p, s->a[i].size);
			sv = s->a[i].size == 1 ? (int8_t)v :
			     s->a[i].size == 2 ? (int16_t)v :
			     s->a[i].size == 4 ? (int32_t)v : (int64_t)v;
			key__feed(w->h, name_key | KV_CONST);
			key__feed(w->h, v);
			key__feed(w->h, sv);
			continue;
		case DW_FORM_implicit_const:
			/* As libdw reads it: the value, signed, as both. */
			sv = s->a[i].implicit;
			key__feed(w->h, name_key | KV_CONST);
			key__feed(w->h, (uint64_t)sv);
			key__feed(w->h, sv);
			continue;
		case DW_FORM_udata:
		case DW_FORM_sdata:
			if (form == DW_FORM_udata ? !uleb_read(&q, end, &v) :
			    !sleb_read(&q, end, &sv))
				break;
			if (form == DW_FORM_udata)
				sv = v;
			else
				v = sv;
			key__feed(w->h, name_key | KV_CONST);
			key__feed(w->h, v);
			key__feed(w->h, sv);
			continue;
		case DW_FORM_flag:
		case DW_FORM_flag_present:
			key__feed(w->h, name_key | KV_FLAG);
			key__feed(w->h, form == DW_FORM_flag_present || *p);
			keys__note_attr(w, name, NULL,
					form == DW_FORM_flag_present || *p);
			continue;
		case DW_FORM_strp:
			v = keys__read(p, c->offset_size);
			if (!c->str || v >= c->str_size)
				break;
			key__feed(w->h, name_key | KV_STR);
			keys__feed_str(k, w->h, c->str + v);
			keys__note_attr(w, name, c->str + v, false);
			continue;
		case DW_FORM_ref1:
		case DW_FORM_ref2:
		case DW_FORM_ref4:
		case DW_FORM_ref8:
			n = cu_ctx__find_node(k->ctx, k->ctx->cu_start +
					      keys__read(p, s->a[i].size));
			/* Other targets (annotations) take the slow path. */
			if (!n || (size_t)(n - k->ctx->nodes) >= k->n)
				break;
			key__feed(w->h, name_key | KV_REF);
			w->err = keys__feed_node_ref(w, name, n - k->ctx->nodes);
			if (w->err)
				return w->err;
			continue;
		default:
			break;
		}
		attr = (Dwarf_Attribute){
			.code = name,
			.form = form,
			.valp = (unsigned char *)p,
			.cu = die->cu,
		};
		keys__feed_attr(&attr, w);
		if (w->err)
			return w->err;
	}
	return 0;
}

/*
 * The DIE at @p of the CU: 0 and *@out, 1 at the end of a list of
 * siblings (*@p moved past it), -1 where the fast path cannot read
 * (a code abbrev_cache.h does not take, the CU's end).
 */
static int keys__die_at(const struct keys *k, const unsigned char **p,
			Dwarf_Die *die, Dwarf_Die *out)
{
	const struct abbrev_cache *c = &k->ctx->abbrevs;

	if (*p >= c->cu_end)
		return -1;
	if (!**p) {
		(*p)++;
		return 1;
	}
	if (!abbrev_cache__code(c, *p))
		return -1;
	*out = (Dwarf_Die){ .addr = (void *)*p, .cu = die->cu };
	return 0;
}

/*
 * The node of the DIE at @p of the CU, or -1.  The walk meets a node's
 * DIEs in DIE order, and the types nested in it are the nodes after it,
 * in the same order (cu_types.c collects them so), so a cursor over the
 * nodes finds them without a lookup.  A node that is not nested has
 * another offset, so it is never taken for one that is.
 */
static ssize_t keys__node_at(struct keys *k, const unsigned char *p)
{
	const struct cu_ctx *ctx = k->ctx;
	uint64_t off = ctx->cu_start + (p - ctx->abbrevs.cu_start);

	while (k->cursor < k->n && ctx->node_offs[k->cursor] < off)
		k->cursor++;
	if (k->cursor < k->n && ctx->node_offs[k->cursor] == off)
		return k->cursor;
	return -1;
}

/*
 * Walks @die's subtree without feeding it (a nested type, a node of its
 * own) and sets *@after past it; returns false where the fast path
 * cannot read it.
 */
static bool keys__skip_die(struct keys *k, Dwarf_Die *die, int depth,
			   const unsigned char **after)
{
	const unsigned char *p, *end;
	const struct abbrev_spec *s;
	Dwarf_Die child;
	int ret;

	if (depth > DIE_MAX_DEPTH)
		return false;
	s = abbrev_cache__values(&k->ctx->abbrevs, die, &p, &end);
	if (!s)
		return false;
	p = end;
	while (s->children && (ret = keys__die_at(k, &p, die, &child)) == 0)
		if (!keys__skip_die(k, &child, depth + 1, &p))
			return false;
	if (s->children && ret < 0)
		return false;
	*after = p;
	return true;
}

/*
 * Feeds @die (a node's when @top) and the DIEs below it that are not
 * nodes of their own into @h.  With @after, the walk goes over the DIEs'
 * bytes, each read once, and sets *@after past the subtree; where it
 * cannot, it sets k->restart and the node is read again through
 * abbrev_cache.c's calls (@after NULL: how the DIE is read then).
 * Returns 0 or -errno; what the key cannot follow sets k->bad.
 */
/* @die's tag: its plan's, once the plan of its code is made. */
static int keys__tag(struct keys *k, Dwarf_Die *die)
{
	const unsigned char *p = die->addr;

	if (p && die->cu == k->ctx->abbrevs.cu && *p && *p < ABBREV_CACHE_CODES &&
	    k->plan[*p].state != PLAN_UNKNOWN)
		return k->plan[*p].tag;
	return abbrev_cache__tag(&k->ctx->abbrevs, die);
}

/*
 * Feeds the child DIE at *@p, at @depth, as keys__feed_die() would, when
 * the plan of its one-byte code reads it whole (no children, not an
 * annotation), and moves *@p past it: 0, -errno, or 1 (nothing fed) to
 * leave it to keys__feed_die().  The members of structs are most of the
 * DIEs the keys read, and this spares each a call and the walk's set-up.
 */
static inline int keys__feed_leaf(struct keys *k, struct key128 *h,
				  const unsigned char **p, int depth)
{
	struct attr_walk w = { .k = k, .h = h, .depth = depth };
	const struct key_plan *pl;
	struct key128 before = *h;
	int ret;

	if (**p >= ABBREV_CACHE_CODES || depth > DIE_MAX_DEPTH)
		return 1;
	pl = &k->plan[**p];
	if (pl->state != PLAN_READY || pl->children ||
	    pl->tag == DW_TAG_GNU_annotation)
		return 1;
	w.tag = pl->tag;
	key__feed(h, KM_CHILD);
	ret = keys__feed_planned(&w, pl, *p + 1, k->ctx->abbrevs.cu_end, p);
	if (ret == 1)
		*h = before;
	return ret;
}

static int keys__feed_die(struct keys *k, struct key128 *h, Dwarf_Die *die,
			  bool top, int depth, const unsigned char **after)
{
	int tag = keys__tag(k, die), ret = 1;
	struct attr_walk w = {
		.k = k,
		.h = h,
		.pointer = tag == DW_TAG_pointer_type,
		.tag = tag,
		.depth = depth,
	};
	const unsigned char *p = NULL;
	bool children = false;
	Dwarf_Die child;

	if (depth > DIE_MAX_DEPTH) {
		k->bad = true;
		return 0;
	}
	if (top)
		k->tag[k->cur] = tag;
	if (after)
		ret = keys__feed_attrs_fast(&w, die, &p, &children);
	if (ret == 1 && after) {
		k->restart = true;
		return 0;
	}
	if (ret == 1 && !after)
		ret = keys__feed_vals(&w, die, tag);
	if (ret == 1) {
		keys__feed_old(&w);
		if (abbrev_cache__for_each_attr(&k->ctx->abbrevs, die,
						keys__feed_attr, &w) && !w.err)
			k->bad = true;
	}
	if (w.err)
		return w.err;
	/*
	 * An annotation's own chain is its attribute, fed above.  The walk
	 * goes on after it: it has no children of its own (or the old way
	 * reads it).
	 */
	if (!top && tag == DW_TAG_GNU_annotation) {
		if (after && children)
			k->restart = true;
		else if (after)
			*after = p;
		return 0;
	}
	if (after) {
		while (children && (ret = keys__die_at(k, &p, die, &child)) == 0) {
			ssize_t nested = keys__node_at(k, p);

			/*
			 * A type nested in a struct is a node of its own.  Its
			 * end must lie past it: in malformed DWARF (siblings
			 * that lead back) it may not, and this walk would go
			 * round for ever; the old way reads such a type.
			 */
			if (nested >= 0 && k->end && k->end[nested] &&
			    k->end[nested] <= p) {
				k->restart = true;
				return 0;
			} else if (nested >= 0 && k->end && k->end[nested]) {
				p = k->end[nested];
			} else if (nested >= 0) {
				if (!keys__skip_die(k, &child, depth + 1, &p))
					ret = -1;
			} else if (!(w.err = keys__feed_leaf(k, h, &p,
							     depth + 1))) {
				continue;
			} else if (w.err < 0) {
				return w.err;
			} else {
				key__feed(h, KM_CHILD);
				w.err = keys__feed_die(k, h, &child, false,
						       depth + 1, &p);
				if (w.err)
					return w.err;
				/* Neither moved p past the child. */
				if (k->restart || k->bad)
					return 0;
			}
			if (ret < 0)
				break;
		}
		if (children && ret < 0) {
			k->restart = true;
			return 0;
		}
		*after = p;
		if (children || w.old)
			key__feed(h, KM_END);
		return 0;
	}
	ret = abbrev_cache__child(&k->ctx->abbrevs, die, &child);
	while (ret == 0) {
		/* A type nested in a struct is a node of its own. */
		if (keys__find_node(k, &child) < 0) {
			key__feed(h, KM_CHILD);
			w.err = keys__feed_die(k, h, &child, false, depth + 1,
					       NULL);
			if (w.err)
				return w.err;
		}
		ret = abbrev_cache__sibling(&k->ctx->abbrevs, &child, &child);
	}
	if (ret < 0)
		k->bad = true;
	if (w.old || dwarf_haschildren(die))
		key__feed(h, KM_END);
	return 0;
}

/* Notes node @i's name if it is a named struct or union defined here. */
static void keys__note_definition(struct keys *k, size_t i)
{
	int tag = k->tag[i];

	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_class_type)
		return;
	if (!k->name[i])
		return;
	if (k->decl[i])
		k->decl_name[i] = keys__name_id(k, k->name[i]);
	else
		k->def_name[i] = keys__name_id(k, k->name[i]);
}

/* Reads node @i's own content and its edges. */
static int keys__read_node(struct keys *k, size_t i, struct key128 seed,
			   ssize_t index_node)
{
	struct cu_node *n = &k->ctx->nodes[i];
	struct key128 h = seed;
	int err = 0;

	k->cur = i;
	k->cursor = i + 1;
	k->first_edge[i] = k->nr_all_edges;
	k->nr_edges[i] = 0;
	k->bad = false;
	k->type_edge[i] = UINT32_MAX;
	k->ptr_edge[i] = UINT32_MAX;
	key__feed(&h, n->kind);
	if (n->kind == NODE_INDEX_INT) {
		k->local[i] = h;
		return 0;
	}
	{
		const unsigned char *after;

		k->restart = false;
		err = keys__feed_die(k, &h, &n->die, true, 0, &after);
		if (!err && k->restart) {
			/* Everything the walk fed goes: the node again. */
			k->nr_all_edges = k->first_edge[i];
			k->nr_edges[i] = 0;
			k->bad = false;
			k->name[i] = NULL;
			k->decl[i] = false;
			k->type_edge[i] = UINT32_MAX;
			k->ptr_edge[i] = UINT32_MAX;
			h = seed;
			key__feed(&h, n->kind);
			err = keys__feed_die(k, &h, &n->die, true, 0, NULL);
		}
	}
	if (!err && n->kind == NODE_TYPE)
		keys__note_definition(k, i);
	/* An array's BTF names the CU's index type. */
	if (!err && k->tag[i] == DW_TAG_array_type) {
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

	for (j = base; j < top; j++)
		k->comp[k->stack[j]] = comp;
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

		key__feed2(&h, k->local[v].a, k->local[v].b);
		for (e = 0; e < k->nr_edges[v]; e++) {
			uint32_t t = k->edges[k->first_edge[v] + e];

			if (t & EDGE_NAME) {
				key__feed2(&h, k->names[t & ~EDGE_NAME].a,
					   k->names[t & ~EDGE_NAME].b);
			} else if (k->comp[t] == comp) {
				if (k->index[t] < 0) {
					k->index[t] = qt;
					k->order[qt++] = t;
				}
				key__feed2(&h, keys__inside(k->index[t]),
					   k->index[t]);
			} else {
				key__feed2(&h, k->key[t].a, k->key[t].b);
			}
		}
	}
	/* Every member of a component is reached from any other. */
	key__feed2(&h, qt, qt);
	for (j = 0; j < qt; j++) {
		struct key128 m = h;

		key__feed2(&m, j, j);
		k->key[k->order[j]] = m;
	}
}

/*
 * keys__key_component() of the component of node @v alone, as most are,
 * with the same key: without numbering its one member or a queue.
 */
static void keys__key_single(struct keys *k, uint32_t v, uint32_t comp)
{
	struct key128 h = { 0xc0, 0xc1 };
	size_t e, nr = k->nr_edges[v];
	/* No pointer arithmetic on a NULL k->edges: a CU may have no edges. */
	uint32_t *edge = nr ? k->edges + k->first_edge[v] : NULL;

	k->comp[v] = comp;
	for (e = 0; e < nr && !k->nokey[v]; e++)
		if (!(edge[e] & EDGE_NAME) && edge[e] != v && k->nokey[edge[e]])
			k->nokey[v] = true;
	if (k->nokey[v])
		return;
	key__feed2(&h, k->local[v].a, k->local[v].b);
	for (e = 0; e < nr; e++) {
		uint32_t t = edge[e];

		if (t & EDGE_NAME)
			key__feed2(&h, k->names[t & ~EDGE_NAME].a,
				   k->names[t & ~EDGE_NAME].b);
		else if (t == v)
			key__feed2(&h, keys__inside(0), 0);
		else
			key__feed2(&h, k->key[t].a, k->key[t].b);
	}
	key__feed2(&h, 1, 1);
	key__feed2(&h, 0, 0);
	k->key[v] = h;
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
					k->walk_node[wp] = t;
					k->walk_edge[wp++] = 0;
				} else if (k->index[t] < k->low[v]) {
					/* on the stack: finished ones are INT32_MAX */
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
				if (sp - base == 1)
					keys__key_single(k, v, comp++);
				else
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
	size_t i;

	for (i = 0; i < sizeof(k->hi_plan) / sizeof(k->hi_plan[0]); i++)
		free(k->hi_plan[i]);
	free(k->tag);
	free(k->name);
	free(k->decl);
	free(k->type_edge);
	free(k->ptr_edge);
	free(k->local);
	free(k->key);
	free(k->first_edge);
	free(k->nr_edges);
	free(k->edges);
	free(k->names);
	free(k->name_ids);
	free(k->def_name);
	free(k->decl_name);
	free(k->nokey);
	free(k->fused);
	free(k->end);
	free(k->index);
	free(k->low);
	free(k->stack);
	free(k->walk_node);
	free(k->walk_edge);
	free(k->comp);
	free(k->order);
	free(k->sorted);
}

/*
 * Makes room for @n nodes in what reading the nodes fills, not zeroed:
 * keys__node_reset() sets a node's part; 0 or -ENOMEM.
 */
static int keys__grow_nodes_to(struct keys *k, size_t n)
{
	struct {
		void **p;
		size_t size;
	} arr[] = {
		{ (void **)&k->local, sizeof(*k->local) },
		{ (void **)&k->first_edge, sizeof(*k->first_edge) },
		{ (void **)&k->nr_edges, sizeof(*k->nr_edges) },
		{ (void **)&k->nokey, sizeof(*k->nokey) },
		{ (void **)&k->fused, sizeof(*k->fused) },
		{ (void **)&k->end, sizeof(*k->end) },
		{ (void **)&k->def_name, sizeof(*k->def_name) },
		{ (void **)&k->decl_name, sizeof(*k->decl_name) },
		{ (void **)&k->tag, sizeof(*k->tag) },
		{ (void **)&k->name, sizeof(*k->name) },
		{ (void **)&k->decl, sizeof(*k->decl) },
		{ (void **)&k->type_edge, sizeof(*k->type_edge) },
		{ (void **)&k->ptr_edge, sizeof(*k->ptr_edge) },
	};
	size_t cap = k->cap, i;

	cap = cap * 2 > n ? cap * 2 : n < 256 ? 256 : n;
	/* Each one that grew keeps its new size: k->cap is the least. */
	for (i = 0; i < sizeof(arr) / sizeof(arr[0]); i++) {
		void *q = realloc(*arr[i].p, cap * arr[i].size);

		if (!q)
			return -ENOMEM;
		*arr[i].p = q;
	}
	k->cap = cap;
	return 0;
}

/* Node @i as no reading has seen it. */
static void keys__node_reset(struct keys *k, size_t i)
{
	k->local[i] = (struct key128){ 0 };
	k->first_edge[i] = k->nr_all_edges;
	k->nr_edges[i] = 0;
	k->nokey[i] = false;
	k->fused[i] = false;
	k->end[i] = NULL;
	k->def_name[i] = 0;
	k->decl_name[i] = 0;
	k->tag[i] = 0;
	k->name[i] = NULL;
	k->decl[i] = false;
	k->type_edge[i] = UINT32_MAX;
	k->ptr_edge[i] = UINT32_MAX;
}

/* The walk calls this for every node: most need no room. */
static inline int keys__grow_nodes(struct keys *k, size_t n)
{
	return n <= k->cap ? 0 : keys__grow_nodes_to(k, n);
}

/* Allocates what keying the components takes, for k->n nodes. */
static int keys__alloc_graph(struct keys *k)
{
	size_t n = k->n ? k->n : 1;

	/* keys__find_components() sets what it reads before it reads it. */
	k->key = calloc(n, sizeof(*k->key));
	k->index = malloc(n * sizeof(*k->index));
	k->low = malloc(n * sizeof(*k->low));
	k->stack = malloc(n * sizeof(*k->stack));
	k->walk_node = malloc(n * sizeof(*k->walk_node));
	k->walk_edge = malloc(n * sizeof(*k->walk_edge));
	k->comp = malloc(n * sizeof(*k->comp));
	k->order = malloc(n * sizeof(*k->order));
	k->sorted = malloc(n * sizeof(*k->sorted));
	if (!k->key || !k->index || !k->low || !k->stack || !k->walk_node ||
	    !k->walk_edge || !k->comp || !k->order || !k->sorted)
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

/* Readies @k for the nodes of @ctx: what every node's key starts with. */
static void keys__init(struct keys *k, struct cu_ctx *ctx)
{
	const struct encode_env *env = ctx->env;
	struct key128 seed = { 0x5eed, 0x5eee };

	k->ctx = ctx;
	/*
	 * What the encoder makes of the same DWARF depends on these too:
	 * which annotations it reads, and how it orders Rust's members.
	 */
	key__feed(&seed, ctx->rust);
	key__feed(&seed, ctx->clang);
	key__feed(&seed, ctx->foreign_annots);
	key__feed(&seed, ctx->little_endian);
	key__feed(&seed, ctx->abbrevs.addr_size);
	k->seed = seed;
	if (env->ef->ehdr.e_type != ET_REL) {
		k->str = env->str_start;
		k->str_size = env->str_size;
	}
}

/*
 * Finishes node @i, which the collecting walk read (cu_ctx__key_node()):
 * its references by CU offset become nodes, and an array's last edge the
 * index type's.  A node that refers to a DIE that is no node is read
 * again, as one the walk did not read.  Returns 0 or -errno.
 */
static int keys__settle(struct keys *k, size_t i, ssize_t index_node)
{
	size_t j, nr = k->nr_edges[i];
	/* No pointer arithmetic on a NULL k->edges: a CU may have no edges. */
	uint32_t *e = nr ? k->edges + k->first_edge[i] : NULL;
	bool array = k->tag[i] == DW_TAG_array_type;

	if (array)
		nr--;
	for (j = 0; j < nr; j++) {
		struct cu_node *n = cu_ctx__find_node(k->ctx,
						      k->ctx->cu_start + e[j]);

		if (!n || (size_t)(n - k->ctx->nodes) >= k->n)
			return keys__read_node(k, i, k->seed, index_node);
		e[j] = n - k->ctx->nodes;
	}
	if (array && index_node >= 0) {
		e[nr] = index_node;
	} else if (array) {
		k->nr_edges[i]--;
		k->nokey[i] = true;
	}
	if (k->ctx->nodes[i].kind == NODE_TYPE)
		keys__note_definition(k, i);
	return 0;
}

/* Keys every node of the CU so far into @k; 0 or -errno. */
static int keys__compute(struct keys *k, struct cu_ctx *ctx)
{
	ssize_t index_node = -1;
	size_t i;
	int err;

	if (!k->ctx)
		keys__init(k, ctx);
	/* The walk has set its nodes' part (cu_ctx__key_node()). */
	i = k->n;
	k->n = ctx->nr_nodes;
	err = keys__grow_nodes(k, k->n);
	for (; !err && i < k->n; i++)
		keys__node_reset(k, i);
	if (!err)
		err = keys__alloc_graph(k);
	if (ctx->need_index_type)
		index_node = ctx->index_node;
	for (i = 0; !err && i < k->n; i++)
		err = k->fused[i] ? keys__settle(k, i, index_node) :
		      keys__read_node(k, i, k->seed, index_node);
	if (!err)
		err = keys__resolve_pointers(k);
	if (!err)
		keys__find_components(k);
	return err;
}

int cu_ctx__keys_begin(struct cu_ctx *ctx)
{
	const struct abbrev_cache *c = &ctx->abbrevs;
	struct keys *k = calloc(1, sizeof(*k));

	if (!k)
		return -ENOMEM;
	keys__init(k, ctx);
	ctx->walk_keys = k;
	/*
	 * Room for the nodes the CU likely has, so that the arrays seldom
	 * grow: the 6.12 vmlinux has a type DIE per 49 bytes of .debug_info.
	 */
	return keys__grow_nodes(k, c->cu_start && c->cu_end > c->cu_start ?
				(size_t)(c->cu_end - c->cu_start) / 40 : 0);
}

void cu_ctx__keys_free(struct cu_ctx *ctx)
{
	if (!ctx->walk_keys)
		return;
	keys__free(ctx->walk_keys);
	free(ctx->walk_keys);
	ctx->walk_keys = NULL;
}

int cu_ctx__key_node(struct cu_ctx *ctx, size_t i, const unsigned char **after)
{
	struct keys *k = ctx->walk_keys;
	struct cu_node *n = &ctx->nodes[i];
	const unsigned char *end = NULL;
	struct key128 h = k->seed;
	int err;

	*after = NULL;
	err = keys__grow_nodes(k, ctx->nr_nodes);
	if (err)
		return err;
	k->n = ctx->nr_nodes;
	keys__node_reset(k, i);
	/* Another unit's DIE is read once the nodes are known. */
	if (n->kind == NODE_INDEX_INT || n->die.cu != ctx->abbrevs.cu)
		return 0;
	k->cur = i;
	k->cursor = i + 1;
	k->bad = false;
	k->restart = false;
	key__feed(&h, n->kind);
	k->raw = true;
	err = keys__feed_die(k, &h, &n->die, true, 0, &end);
	k->raw = false;
	if (err)
		return err;
	if (k->restart) {
		k->nr_all_edges = k->first_edge[i];
		k->nr_edges[i] = 0;
		k->name[i] = NULL;
		k->decl[i] = false;
		return 0;
	}
	/* An array's BTF names the CU's index type, known after the walk. */
	if (k->tag[i] == DW_TAG_array_type) {
		key__feed(&h, KM_INDEX);
		err = keys__add_edge(k, 0);
		if (err)
			return err;
	}
	k->local[i] = h;
	k->nokey[i] = k->bad;
	k->fused[i] = true;
	k->end[i] = end;
	*after = end;
	return 0;
}

int cu_ctx__count_type_keys(struct cu_ctx *ctx, struct type_key_count *out)
{
	struct keys k = { 0 };
	int err = keys__compute(&k, ctx);

	if (!err)
		err = keys__count(&k, out);
	keys__free(&k);
	return err;
}

/*
 * What each name edge's name is in the CU and the batch, found once:
 * the node that defines it here (-1 if none), and whether a type that
 * reaches it by a pointer may be taken from an earlier CU at all (not if
 * the batch has seen it defined two ways, or the run keeps it out).
 */
struct name_facts {
	int32_t *def;
	bool *bad;
	bool *mixed;
};

static void name_facts__free(struct name_facts *f)
{
	free(f->def);
	free(f->bad);
	free(f->mixed);
}

/* Fills @f for the names of @k; 0 or -ENOMEM. */
static int name_facts__find(struct name_facts *f, struct keys *k,
			    const struct type_reuse *r,
			    const struct key_set *keep)
{
	struct u32_map defs = { 0 };
	size_t i, n = k->nr_names ? k->nr_names : 1;
	uint32_t v;
	int err = -ENOMEM;

	f->def = malloc(n * sizeof(*f->def));
	f->bad = malloc(n * sizeof(*f->bad));
	f->mixed = malloc(n * sizeof(*f->mixed));
	if (!f->def || !f->bad || !f->mixed)
		goto out;
	/* The first node of the CU that defines each name. */
	for (i = 0; i < k->n; i++)
		if (k->def_name[i] && !u32_map__find(&defs, k->def_name[i], &v) &&
		    u32_map__add(&defs, k->def_name[i], i + 1))
			goto out;
	for (i = 0; i < k->nr_names; i++) {
		uint64_t name = k->name_ids[i];

		f->def[i] = u32_map__find(&defs, name, &v) ? (int32_t)v - 1 : -1;
		f->bad[i] = type_reuse__contested(r, name) ||
			    (keep && keep->nr && key_set__has(keep, name));
		f->mixed[i] = type_reuse__mixed(r, name);
	}
	err = 0;
out:
	u32_map__free(&defs);
	return err;
}

/* The node edge @t leads to: a name's defining node here, or -1. */
static inline ssize_t keys__edge_node(const struct name_facts *f, uint32_t t)
{
	return t & EDGE_NAME ? f->def[t & ~EDGE_NAME] : (ssize_t)t;
}

/*
 * Which nodes may not be taken from an earlier CU (tainted): those
 * without a key, those whose pointers name a struct the batch has seen
 * defined two ways, and those that reach any of them, through other
 * types or through a named struct's definition in this CU.  A pointer to
 * a struct counts by the name in the key, so two CUs' copies are alike
 * only if the structs of each name they reach are.  Fills @tainted;
 * returns 0 or -ENOMEM.
 */
static int keys__taint(struct keys *k, const struct name_facts *f,
		       bool *tainted)
{
	uint32_t *first = NULL, *nr = NULL, *from = NULL, *queue = NULL;
	size_t i, e, total = 0, qh = 0, qt = 0, nr_tainted = 0;
	int err = -ENOMEM;

	for (i = 0; i < k->n; i++) {
		tainted[i] = k->nokey[i];
		for (e = 0; e < k->nr_edges[i] && !tainted[i]; e++) {
			uint32_t t = k->edges[k->first_edge[i] + e];

			if ((t & EDGE_NAME) && f->bad[t & ~EDGE_NAME])
				tainted[i] = true;
		}
		nr_tainted += tainted[i];
	}
	/* In most CUs none is: then none reaches one. */
	if (!nr_tainted)
		return 0;
	/* The reverse edges: from each node to those that refer to it. */
	first = calloc(k->n + 1, sizeof(*first));
	nr = calloc(k->n + 1, sizeof(*nr));
	queue = calloc(k->n + 1, sizeof(*queue));
	if (!first || !nr || !queue)
		goto out;
	/*
	 * Node by node: a node read again after the collecting walk left
	 * its first edges behind, unresolved.
	 */
	for (i = 0; i < k->n; i++) {
		for (e = 0; e < k->nr_edges[i]; e++) {
			ssize_t d = keys__edge_node(f,
					k->edges[k->first_edge[i] + e]);

			if (d >= 0)
				nr[d]++;
		}
	}
	for (i = 0; i < k->n; i++) {
		first[i] = total;
		total += nr[i];
		nr[i] = 0;
	}
	from = calloc(total + 1, sizeof(*from));
	if (!from)
		goto out;
	for (i = 0; i < k->n; i++) {
		for (e = 0; e < k->nr_edges[i]; e++) {
			ssize_t d = keys__edge_node(f,
					k->edges[k->first_edge[i] + e]);

			if (d >= 0)
				from[first[d] + nr[d]++] = i;
		}
		if (tainted[i])
			queue[qt++] = i;
	}
	while (qh < qt) {
		uint32_t v = queue[qh++];

		for (e = 0; e < nr[v]; e++) {
			uint32_t u = from[first[v] + e];

			if (!tainted[u]) {
				tainted[u] = true;
				queue[qt++] = u;
			}
		}
	}
	err = 0;
out:
	free(first);
	free(nr);
	free(from);
	free(queue);
	return err;
}

/*
 * Adds to @names every struct name that a type taken from an earlier CU
 * (@reuse_id not 0) reaches by a pointer, through other types and this
 * CU's definitions of the names on the way.  The copies are alike only if
 * each of those names has one definition in the run, which only the final
 * dedup knows: a name it finds defined twice makes the run go again with
 * that name kept out (fwd_names.h), as for a declaration a batch resolved.
 * Returns 0 or -ENOMEM.
 */
static int keys__note_reached(struct keys *k, const struct name_facts *f,
			      const uint32_t *reuse_id, struct key_set *names)
{
	uint32_t *queue = calloc(k->n + 1, sizeof(*queue));
	bool *seen = calloc(k->n + 1, sizeof(*seen));
	size_t i, e, qh = 0, qt = 0;
	int err = -ENOMEM;

	if (!queue || !seen)
		goto out;
	for (i = 0; i < k->n; i++)
		if (reuse_id[i]) {
			seen[i] = true;
			queue[qt++] = i;
		}
	while (qh < qt) {
		uint32_t v = queue[qh++];

		for (e = 0; e < k->nr_edges[v]; e++) {
			uint32_t t = k->edges[k->first_edge[v] + e];
			ssize_t d = keys__edge_node(f, t);

			if ((t & EDGE_NAME) && f->mixed[t & ~EDGE_NAME] &&
			    key_set__add(names, k->name_ids[t & ~EDGE_NAME]))
				goto out;
			if (d >= 0 && !seen[d]) {
				seen[d] = true;
				queue[qt++] = d;
			}
		}
	}
	/* Most CUs reach the same names many times over. */
	key_set__sort(names);
	err = 0;
out:
	free(queue);
	free(seen);
	return err;
}

/* cu_ctx__reuse_keys() with the nodes' keys in @k. */
static int keys__reuse(struct keys *k, struct cu_ctx *ctx)
{
	struct name_facts facts = { 0 };
	bool *tainted = NULL;
	size_t i;
	int err = keys__compute(k, ctx);

	/* The CU's definitions count before its own types are decided. */
	for (i = 0; !err && i < k->n; i++) {
		if (k->def_name[i])
			err = type_reuse__define(ctx->reuse, k->def_name[i],
						 k->key[i], !k->nokey[i]);
		else if (k->decl_name[i])
			err = type_reuse__declare(ctx->reuse, k->decl_name[i]);
	}
	if (!err) {
		free(ctx->keys);
		free(ctx->reusable);
		free(ctx->reuse_id);
		ctx->keys = malloc((k->n + 1) * sizeof(*ctx->keys));
		ctx->reusable = calloc(k->n + 1, sizeof(*ctx->reusable));
		ctx->reuse_id = calloc(k->n + 1, sizeof(*ctx->reuse_id));
		tainted = calloc(k->n + 1, sizeof(*tainted));
		if (!ctx->keys || !ctx->reusable || !ctx->reuse_id || !tainted)
			err = -ENOMEM;
	}
	if (!err)
		err = name_facts__find(&facts, k, ctx->reuse,
				       ctx->env->opts->keep_fwds);
	if (!err)
		err = keys__taint(k, &facts, tainted);
	for (i = 0; !err && i < k->n; i++) {
		ctx->keys[i] = k->key[i];
		ctx->reusable[i] = !tainted[i];
		ctx->reuse_id[i] = !tainted[i] ?
				   type_reuse__find(ctx->reuse, k->key[i]) : 0;
	}
	if (!err)
		err = keys__note_reached(k, &facts, ctx->reuse_id,
					 &ctx->frag->fwd_names);
	name_facts__free(&facts);
	free(tainted);
	return err;
}

int cu_ctx__reuse_keys(struct cu_ctx *ctx)
{
	struct keys k = { 0 };
	int err;

	if (ctx->walk_keys) {
		err = keys__reuse(ctx->walk_keys, ctx);
		cu_ctx__keys_free(ctx);
		return err;
	}
	err = keys__reuse(&k, ctx);
	keys__free(&k);
	return err;
}
