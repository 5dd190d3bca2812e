/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * State of one CU being encoded, shared by the per-CU passes: the driver
 * (cu_encoder.c) and what it calls (cu_types.c, cu_vars.c, cu_funcs.c,
 * cu_check.c; cu_die.c, cu_packed.c and rust_enum.c below them).  Private
 * to them.
 */
#ifndef DWARF2BTF_CU_INTERNAL_H
#define DWARF2BTF_CU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <bpf/btf.h>

#include "cu/abbrev_cache.h"
#include "cu/btf_builder.h"
#include "lib/grow.h"
#include "lib/btf_ids.h"
#include "cu/cu_encoder.h"
#include "cu/name_cache.h"
#include "cu/type_reuse.h"
#include "input/dwarf_layout.h"
#include "lib/log.h"

/*
 * DIE nesting and steps along a chain of types stop at this depth; DWARF
 * that goes deeper is taken to be corrupt.
 */
#define DIE_MAX_DEPTH	128

enum node_kind {
	NODE_TYPE,		/* emits exactly one BTF type */
	NODE_ALIAS,		/* resolves to its DW_AT_type (e.g. _Atomic) */
	NODE_VOID,		/* resolves to void (unspecified type) */
	NODE_INDEX_INT,		/* the CU's array index "int", when it has none */
};

enum node_state {
	NODE_UNRESOLVED,
	NODE_RESOLVING,
	NODE_RESOLVED,
};

struct cu_node {
	Dwarf_Die die;
	uint32_t first_member;	/* composites: into cu_ctx.members */
	uint32_t nr_members;
	/*
	 * Some DIEs give several BTF types, the DIE's own last: a pointer's
	 * btf_type_tag annotations come before its PTR, the inner dimensions
	 * of a multi-dimensional array before its outer ARRAY.  id is the
	 * last one's, the one references point to.
	 */
	uint32_t id;
	uint16_t nr_before;	/* the types emitted before id */
	uint8_t kind;
	uint8_t state;
	/* Its id is a type an earlier CU of the batch built (type_reuse.h). */
	uint8_t reused;
};

/* A chain longer than this is corrupt DWARF, or a loop. */
#define GNU_ANNOTATION_MAX	256

/*
 * The forms of annotation a DIE may have (input/dwarf_layout.h has their
 * tags): clang's children, gcc's attribute.
 */
#define DIE_ANNOT_LLVM	1u
#define DIE_ANNOT_GNU	2u
#define DIE_ANNOT_ALL	(DIE_ANNOT_LLVM | DIE_ANNOT_GNU)

/*
 * Calls @fn for each btf_type_tag or btf_decl_tag (per @decl) annotation
 * of @die, looking only for the forms in @kinds (DIE_ANNOT_*); stops at
 * the first non-zero return.  clang's children come in DWARF order.
 * gcc's chain is read as upstream pahole reads it: decl tags in chain
 * order; type tags only without clang ones, up to the first other
 * annotation, and handed over last first, because gcc chains them from
 * the pointer outward where clang lists them from the pointee (both then
 * give the same TYPE_TAG order).
 */
int die__for_each_annotation(Dwarf_Die *die, bool decl, unsigned int kinds,
			     int (*fn)(void *arg, const char *value), void *arg);

/*
 * The attributes of one DIE we may need, read in a single pass over its
 * attribute list (dwarf_attr() rescans the list for every attribute).
 */
enum die_attr_slot {
	DA_NAME,
	DA_TYPE,
	DA_BYTE_SIZE,
	DA_BIT_SIZE,
	DA_DATA_MEMBER_LOCATION,
	DA_DATA_BIT_OFFSET,
	DA_BIT_OFFSET,
	DA_DECLARATION,
	DA_EXTERNAL,
	DA_ENCODING,
	DA_UPPER_BOUND,
	DA_COUNT,
	DA_CONST_VALUE,
	DA__MAX,
};

struct die_attrs {
	uint32_t have;		/* 1 << slot for each attribute present */
	Dwarf_Attribute a[DA__MAX];
};

struct cu_ctx;

/*
 * cu_packed.c: does struct DIE @t look packed, as pahole infers it from
 * the layout (its function rules leave out a function taking one on the
 * stack)?  Returns 1 or 0, or -ENOMEM.  @rust says that @t is a Rust
 * unit's.
 */
int die__struct_is_packed(Dwarf_Die *t, unsigned int addr_size,
			  bool little_endian, bool rust);

/*
 * As dwarf_formref_die(), DWARF 5's DW_FORM_ref_sup4/8 included: DIEs of
 * the supplementary file, which libdw 0.188 looks for in the main file.
 */
Dwarf_Die *die__formref(Dwarf_Attribute *attr, Dwarf_Die *out);

/*
 * A type reference followed as die__formref() does, and then through a
 * stub: a struct, union or enum that only names a type unit's type by its
 * DW_AT_signature (gcc's -fdebug-types-section), so that what reads a
 * parameter's or member's type sees the type itself.
 */
Dwarf_Die *die__type_ref(Dwarf_Attribute *attr, Dwarf_Die *out);

/* Is @die in a type unit (DWARF 4's .debug_types or DWARF 5's)? */
bool die__in_type_unit(Dwarf_Die *die);
/*
 * Is @die in DWARF 4's .debug_types, whose offsets are not .debug_info's?
 * (DWARF 5 puts its type units in .debug_info.)
 */
bool die__in_debug_types(Dwarf_Die *die);

/*
 * Byte size of a type DIE through typedefs and qualifiers: a pointer's
 * (a reference's, std::nullptr_t's) is @ptr_size, else the first nonzero
 * DW_AT_byte_size; 0 if none.
 */
uint64_t die__type_size(Dwarf_Die *die, unsigned int ptr_size);

/*
 * Is @die C++'s std::nullptr_t, the DW_TAG_unspecified_type that gcc and
 * clang name "decltype(nullptr)"?  It is pointer-sized, and is encoded as
 * a pointer to void; other unspecified types stay void.
 */
bool die__is_nullptr_type(Dwarf_Die *die);

/*
 * Is @die, a DW_TAG_ptr_to_member_type, a pointer to a member function
 * (two words in the Itanium C++ ABI) rather than to a data member (one)?
 */
bool die__ptr_to_member_fn(Dwarf_Die *die);

/* DW_AT_data_member_location in bytes: a constant or a DWARF 2 expression. */
int member_byte_offset(Dwarf_Attribute *attr, Dwarf_Word *off);

/*
 * @name, read from @attr, such that it can be kept past this CU: copied
 * into the fragment when it was inline in .debug_info (str_arena.h).
 * NULL without memory.
 */
const char *cu_ctx__keep_name(struct cu_ctx *ctx, const Dwarf_Attribute *attr,
			      const char *name);

/*
 * @s, a string read through libdw without its attribute, such that it can
 * be kept past this CU: itself when it lies in .debug_str, else a copy in
 * the fragment, since it may have been inline in .debug_info, whose pages
 * a relocatable input gives back once its CUs are encoded.  NULL for NULL,
 * or without memory.
 */
const char *cu_ctx__keep_str(struct cu_ctx *ctx, const char *s);

/* The die_attr_slot of DWARF attribute @name, or -1. */
int die_attr_slot(unsigned int name);

static inline Dwarf_Attribute *die_attrs__at(struct die_attrs *da,
					     enum die_attr_slot s)
{
	return da->have & (1u << s) ? &da->a[s] : NULL;
}

static inline bool die_attrs__udata(struct die_attrs *da,
				    enum die_attr_slot s, Dwarf_Word *v)
{
	Dwarf_Attribute *a = die_attrs__at(da, s);

	return a && !dwarf_formudata(a, v);
}

static inline bool die_attrs__flag(struct die_attrs *da, enum die_attr_slot s)
{
	Dwarf_Attribute *a = die_attrs__at(da, s);
	bool f = false;

	if (a)
		dwarf_formflag(a, &f);
	return f;
}


/*
 * cxx_names.c: a C++ unit's scopes, by which its type names are qualified:
 * each namespace, and each named struct, class or union with children,
 * that the collect walk entered.
 */
struct cxx_scope {
	const char *name;	/* DW_AT_name; NULL: an anonymous namespace */
	uint32_t parent;	/* the enclosing scope's index + 1; 0: none */
};

struct cxx_names {
	struct cxx_scope *scopes;
	size_t nr_scopes, cap_scopes;
	uint32_t *node_scope;	/* each node's scope (index + 1, 0: none) */
	size_t cap_node_scope;
	uint32_t *subprog_scope;	/* each subprogram DIE's, likewise */
	size_t cap_subprog_scope;
	uint32_t cur;		/* the scope the collect walk is in */
	char *buf;		/* the name last built */
	size_t cap_buf;
};

struct cu_ctx {
	const struct encode_env *env;
	struct name_cache *names;
	Dwarf_Die *cudie;
	uint64_t cu_off;
	/*
	 * What the offsets of the CU's handle lack in .debug_info (a unit
	 * view's: cu_encoder.h); cu_off and the nodes' keys are the handle's.
	 */
	uint64_t die_base;
	struct btf_builder *btf;	/* the batch's types */
	struct cu_node *nodes;
	Dwarf_Off *node_offs;	/* nodes' DIE offsets */
	size_t nr_nodes, cap_nodes, cap_offs;
	/*
	 * Members, seen once while collecting, are kept (each composite's
	 * together) so that emitting does not walk and decode them again.
	 */
	Dwarf_Die *members, *scratch;
	size_t nr_members, cap_members, nr_scratch, cap_scratch;
	uint32_t *dims;		/* an array's element counts, while emitting it */
	size_t cap_dims;
	uint32_t *node_hash;	/* open addressing: node key -> node + 1 */
	size_t hash_mask;
	/*
	 * Nodes past nr_own_nodes are DIEs of other units that the CU refers
	 * to (LTO, dwz), added as references to them are met; nodes before
	 * nr_emitted are in the BTF.
	 */
	size_t nr_own_nodes, nr_emitted;
	Dwarf *home_dw;		/* the CU's: other files' DIEs key apart */
	bool in_foreign;	/* collecting another unit's type DIE */
	uint64_t *imports;	/* keys of the partial units imported */
	size_t nr_imports, cap_imports;
	int import_depth;
	/*
	 * The DIE the collecting walk met last, in its unit: a walk in DIE
	 * order only goes forward, so a DW_AT_sibling that leads back into
	 * the DIEs read (malformed, and each level read again would take
	 * exponential time) is an error.  NULL at the start of a unit.
	 */
	const void *walk_last;
	Dwarf_Off cu_start;	/* for CU-relative references */
	Dwarf_Die *subprogs;
	size_t nr_subprogs, cap_subprogs;
	Dwarf_Die *vars;
	size_t nr_vars, cap_vars;
	size_t cap_frag_vars, cap_frag_funcs, cap_frag_params, cap_frag_tags;
	size_t cap_frag_notes;
	uint32_t first_id;	/* the CU's first type id in the batch BTF */
	uint32_t next_id;
	uint32_t index_type_id;	/* array index type ("int"), 0 until needed */
	/*
	 * With a batch's types to reuse: ids are given after pass 1, once
	 * the keys say which nodes an earlier CU built (defer_ids), and the
	 * index type is known by node until then.
	 */
	struct type_reuse *reuse;
	bool defer_ids;
	size_t index_node;
	struct type_key *keys;	/* per node, from cu_keys.c */
	struct keys *walk_keys;	/* what pass 1 keyed (cu_ctx__key_node()) */
	bool *reusable;		/* per node: may take or give a key's type */
	uint32_t *reuse_id;	/* per node: the type it takes, or 0 */
	bool need_index_type;
	bool reported;		/* errbuf holds the error */
	bool clang;		/* producer: only clang emits LLVM annotations */
	/*
	 * The forms of annotation (DIE_ANNOT_*) the CU's own DIEs may have:
	 * none unless clang or gcc >= 15 made it, and only those its
	 * abbreviations declare (cu_ctx__annots()); and those DIEs of
	 * other units it reads may have (no abbreviations scanned).
	 */
	unsigned int annots, foreign_annots;
	bool rust;		/* DW_LANG_Rust: members in offset order */
	bool cxx;		/* C++: functions by their linkage names */
	/*
	 * Names made C identifiers (cxx_names.c): in C++ units, and in
	 * Rust units unless pahole's encoding is asked for.
	 */
	bool c_names;
	struct cxx_names cxx_names;	/* C++ only: names as C's */
	char *errbuf;
	size_t errlen;
	/* for messages: the file, and a split unit's .dwo */
	const char *where;
	char where_buf[256];
	bool little_endian;
	struct cu_fragment *frag;
	struct abbrev_cache abbrevs;
};

/* The forms of annotation @die, of the CU or of another unit, may have. */
static inline unsigned int cu_ctx__annots(const struct cu_ctx *ctx,
					  const Dwarf_Die *die)
{
	return die->cu == ctx->cudie->cu ? ctx->annots : ctx->foreign_annots;
}

/*
 * The DIEs of another file (a dwz supplementary file) get this bit in
 * their node key, so that their offsets never collide with ours.
 */
#define NODE_KEY_OTHER_FILE	(1ull << 63)
/* A DIE of .debug_types (a type unit of DWARF 4), another offset space. */
#define NODE_KEY_DEBUG_TYPES	(1ull << 62)
/* The array index int that a CU may need has no DIE, so it has this key. */
#define NODE_KEY_NONE		UINT64_MAX

/*
 * node_index.c: the node key of @die, and the node of a key (or NULL);
 * the hash of every node so far (cu_ctx__index_nodes()), and node @i
 * added to it (cu_ctx__hash_insert(), with room left: at most half full).
 */
uint64_t cu_ctx__die_key(struct cu_ctx *ctx, Dwarf_Die *die);
struct cu_node *cu_ctx__find_node(struct cu_ctx *ctx, Dwarf_Off off);
int cu_ctx__index_nodes(struct cu_ctx *ctx);
void cu_ctx__hash_insert(struct cu_ctx *ctx, size_t i);

/*
 * cu_keys.c: adds the keys of the CU's types (its nodes so far) to @out;
 * 0 or -ENOMEM.
 */
int cu_ctx__count_type_keys(struct cu_ctx *ctx, struct type_key_count *out);

/*
 * cu_keys.c: the key of each node so far (ctx->keys), and which may be
 * taken from or given to ctx->reuse (ctx->reusable); the CU's struct and
 * union definitions are noted there first.  0 or -errno.
 */
int cu_ctx__reuse_keys(struct cu_ctx *ctx);

/*
 * cu_keys.c: with ctx->reuse, the collecting walk keys each node as it
 * meets it (cu_ctx__keys_begin() first): cu_ctx__key_node() reads node
 * @node's DIEs (once the types nested in it are nodes) while they are in
 * the cache, and sets *@after past its subtree, or to NULL if it left
 * the node to cu_ctx__reuse_keys(), which finishes the keys and frees
 * what the walk kept (as cu_ctx__keys_free() does on an error).  0 or
 * -errno.
 */
int cu_ctx__keys_begin(struct cu_ctx *ctx);
int cu_ctx__key_node(struct cu_ctx *ctx, size_t node,
		     const unsigned char **after);
void cu_ctx__keys_free(struct cu_ctx *ctx);

/* DW_AT_name of the attributes @da, as dwarf_formstring() gives it. */
static inline const char *cu_ctx__attr_name(struct cu_ctx *ctx,
					    struct die_attrs *da)
{
	Dwarf_Attribute *a = die_attrs__at(da, DA_NAME);

	return a ? abbrev_cache__string(&ctx->abbrevs, a) : NULL;
}

/* The wanted attributes of @die into @da (the hot path: inline). */
static inline int die_attrs__get(struct cu_ctx *ctx, Dwarf_Die *die,
				 struct die_attrs *da)
{
	return abbrev_cache__attrs(&ctx->abbrevs, die, da->a, &da->have) ?
	       -EINVAL : 0;
}

/*
 * The offset in .debug_info of @die, a DIE of the CU's handle or of
 * another: the CU's own handle may read a unit view (ctx->die_base).
 */
static inline uint64_t cu_ctx__die_off(const struct cu_ctx *ctx,
				       Dwarf_Die *die)
{
	uint64_t off = dwarf_dieoffset(die);

	if (ctx->die_base && die->cu &&
	    dwarf_cu_getdwarf(die->cu) == dwarf_cu_getdwarf(ctx->cudie->cu) &&
	    !die__in_debug_types(die))
		off += ctx->die_base;
	return off;
}

/*
 * The first error found in a CU is kept (not printed: the consumer prints
 * the first failure in CU order, so a run says one line, the same one for
 * any -j).
 */
#define cu_err(ctx, die, fmt, ...) do {					\
	if (!(ctx)->reported)						\
		snprintf((ctx)->errbuf, (ctx)->errlen,			\
			 "%s: CU 0x%llx: DIE 0x%llx%s: " fmt,		\
			 (ctx)->where,					\
			 (unsigned long long)((ctx)->cu_off +		\
					      (ctx)->die_base),		\
			 (unsigned long long)cu_ctx__die_off(ctx, die),	\
			 die__in_debug_types(die) ?			\
			 " of .debug_types" : "",			\
			 ##__VA_ARGS__);				\
	(ctx)->reported = true;						\
} while (0)

static inline bool die_flag(Dwarf_Die *die, int name)
{
	Dwarf_Attribute attr;
	bool flag = false;

	if (dwarf_attr(die, name, &attr))
		dwarf_formflag(&attr, &flag);
	return flag;
}

static inline bool die_udata(Dwarf_Die *die, int name, Dwarf_Word *val)
{
	Dwarf_Attribute attr;

	return dwarf_attr(die, name, &attr) && !dwarf_formudata(&attr, val);
}

/* The DIE's DW_AT_type, through its abstract origin or specification. */
static inline bool die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) &&
	       die__type_ref(&attr, type);
}

static inline const char *die_name(Dwarf_Die *die)
{
	const char *n = dwarf_diename(die);

	return n ? n : "";
}

/*
 * cxx_names.c: C++ names as C identifiers (docs/design.md).  In a C++ unit,
 * the collect walk enters the scope of each namespace and named composite
 * it descends into (cu_ctx__cxx_enter(), which returns the scope to go
 * back to), and leaves every scope for a function's body; each node gets
 * the scope it was met in (cu_ctx__cxx_node_scope()).  0 or -ENOMEM.
 */
int cu_ctx__cxx_enter(struct cu_ctx *ctx, Dwarf_Die *die, uint32_t *saved);
int cu_ctx__cxx_node_scope(struct cu_ctx *ctx, size_t idx);
/* The same for subprogram DIE ctx->subprogs[@idx]; 0 or -ENOMEM. */
int cu_ctx__cxx_subprog_scope(struct cu_ctx *ctx, size_t idx);
/*
 * The ELF function key of subprogram @die, of internal linkage, which g++
 * describes without DW_AT_linkage_name (a static function, one in an
 * anonymous namespace): the one key that starts with the mangled name
 * its scope and name make (its parameters' mangling follows), or NULL.
 */
const struct elf_func_key *cu_ctx__cxx_internal_key(struct cu_ctx *ctx,
						    Dwarf_Die *die);
/*
 * The name BTF gives node @idx, named @name in DWARF: its scopes' names
 * and its own joined by "__", each character outside [A-Za-z0-9_] mapped.
 * @name itself when that is the same, else built in ctx->cxx_names.buf
 * (valid until the next name is built); NULL without memory.
 */
const char *cu_ctx__cxx_type_name(struct cu_ctx *ctx, size_t idx,
				  const char *name);
/*
 * @name, a member's, enumerator's, parameter's or variable's, with each
 * character outside [A-Za-z0-9_] mapped: @name itself when it has none,
 * else built as cu_ctx__cxx_type_name() builds; _keep: kept in the
 * fragment.  NULL without memory.
 */
const char *cu_ctx__cxx_ident(struct cu_ctx *ctx, const char *name);
const char *cu_ctx__cxx_keep_ident(struct cu_ctx *ctx, const char *name);
/*
 * Adds the DECL_TAG "cxx:" + the C++ name of node @idx (@component -1) or
 * of its member @m (@component its index) when BTF names it otherwise.
 * Not on a declaration (FWD) or an enum, which the kernel allows no tag.
 * Returns 0 or -errno.
 */
int cu_ctx__cxx_name_tag(struct cu_ctx *ctx, size_t idx, int component,
			 Dwarf_Die *m);
void cu_ctx__cxx_free(struct cu_ctx *ctx);
/*
 * The name of a base type of @bytes and @encoding (BTF_INT_*) that C has
 * no name for: C++'s bool, wchar_t, char8_t, char16_t, char32_t, or with
 * @rust Rust's bool, char and numbers: C's name of an integer of that
 * size and sign (bool's too: "unsigned char"); else @name.
 */
const char *cxx_int_name(const char *name, uint64_t bytes, int encoding,
			 bool rust);
/* Rust's f16, f32, f64 and f128 as C's float of @bytes; other names as they are. */
const char *c_float_name(const char *name, uint64_t bytes);

/*
 * The offset of @name in the batch's strings (name_cache.h), which may be
 * a name cxx_names.c built: such a name is looked up by content alone,
 * since its address holds another one next.
 */
static inline int cu_ctx__name_off(struct cu_ctx *ctx, const char *name)
{
	if (name && name == ctx->cxx_names.buf)
		return name_cache__add(ctx->names, name);
	return name_cache__off(ctx->names, name);
}

/*
 * Adds a DECL_TAG @value on type @id's @component (-1: the type), the
 * value by content: it may be built in a buffer that holds another one
 * next.  Returns its id or -errno (-EINVAL for "").
 */
static inline int cu_ctx__add_decl_tag(struct cu_ctx *ctx, const char *value,
				       uint32_t id, int component)
{
	int off = name_cache__add(ctx->names, value);

	return off < 0 ? off : btf_builder__add_decl_tag(ctx->btf, off, id,
							 component);
}

/*
 * cu_types.c: collect the CU's type DIEs (and its subprogram and variable
 * DIEs) giving each type its BTF id, then emit them.
 */
/*
 * Pass 1.  With ctx->reuse, the ids are left to cu_ctx__assign_ids(),
 * called once cu_ctx__reuse_keys() has said which nodes take a type an
 * earlier CU of the batch built.
 */
int cu_ctx__collect_types(struct cu_ctx *ctx);
int cu_ctx__assign_ids(struct cu_ctx *ctx);
int cu_ctx__emit_types(struct cu_ctx *ctx);
/* The BTF id of @die's DW_AT_type (0: void). */
int cu_ctx__type_ref(struct cu_ctx *ctx, Dwarf_Die *die, uint32_t *id);
/* The same for an already read DW_AT_type attribute of @die (NULL: void). */
int cu_ctx__type_ref_attr(struct cu_ctx *ctx, Dwarf_Die *die,
			  Dwarf_Attribute *attr, uint32_t *id);
/*
 * With type units (encode_env.type_sigs): a plain build holds in the CU
 * every type its DIEs name, and those types name, and pahole encodes them
 * whatever refers to them.  So every type unit that the CU's DIEs name by
 * signature, and those their DIEs name, is imported: each type it defines
 * is added as another unit's type, to be emitted with those the variables
 * and functions brought.  0 or -errno.
 */
int cu_ctx__type_unit_refs(struct cu_ctx *ctx);
/* cu_vars.c, cu_funcs.c: the CU's variable and function candidates. */
int cu_ctx__collect_vars(struct cu_ctx *ctx);
int cu_ctx__collect_funcs(struct cu_ctx *ctx);
/*
 * cu_check.c: checks that every type this CU emitted is valid BTF.
 * Returns 0 or a negative errno, with the problem reported.
 */

int cu_ctx__check(struct cu_ctx *ctx);
/* Append @die's btf_decl_tag annotations to the fragment's tag pool. */
int cu_ctx__collect_decl_tags(struct cu_ctx *ctx, Dwarf_Die *die,
			      int component, uint32_t *nr);

#endif
