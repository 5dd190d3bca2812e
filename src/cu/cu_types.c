// SPDX-License-Identifier: GPL-2.0-only
/*
 * The types of one CU, in two passes over its DIE tree.  The first
 * collects every type DIE in DIE order and gives each the BTF id it will
 * get, so references can point forward (DWARF types refer to each other in
 * any order, and BTF is only appended to); the same walk lists the
 * subprogram and variable DIEs for the later passes.  The second emits the
 * types through the batch's builder (btf_builder.h) and checks that every
 * id came out as predicted.
 * DIEs that BTF has no kind for (_Atomic, unspecified types) get no id and
 * resolve to what they qualify or to void, as pahole does.  C++ adds
 * more that BTF has no kind for: references and std::nullptr_t become
 * pointers, and complex floats structs of two floats.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/cu_internal.h"
#include "cu/rust_enum.h"
#include "input/dwarf_ref.h"
#include "lib/grow.h"

/*
 * Returns the node kind of a DIE with tag TAG and sets *IS_TYPE to whether
 * the tag is a type at all.  BTF has no kind for _Atomic, immutable or
 * shared types, so those are aliases of what they qualify, and an
 * unspecified type is void, as in pahole.
 */
static enum node_kind tag_node_kind(int tag, bool *is_type)
{
	*is_type = true;
	switch (tag) {
	case DW_TAG_base_type:
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
	case DW_TAG_typedef:
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
	case DW_TAG_enumeration_type:
	case DW_TAG_array_type:
	case DW_TAG_subroutine_type:
		return NODE_TYPE;
	case DW_TAG_atomic_type:
	case DW_TAG_immutable_type:
	case DW_TAG_shared_type:
		return NODE_ALIAS;
	case DW_TAG_unspecified_type:
		return NODE_VOID;
	default:
		*is_type = false;
		return NODE_VOID;
	}
}

/*
 * The node kind of type DIE @die (tag @tag) of @ctx, as tag_node_kind()
 * gives it, but for C++'s std::nullptr_t: an unspecified type that is no
 * void but a pointer, and so a type of its own (a pointer to void); and
 * for a struct, union or enum that only names a type unit's type by its
 * DW_AT_signature (gcc's -fdebug-types-section), an alias of that type
 * (cu_ctx__resolve_node()).  Only a file whose units refer to type units
 * is asked about signatures (encode_env.type_sigs).
 */
static enum node_kind die_node_kind(const struct cu_ctx *ctx, Dwarf_Die *die,
				    int tag, bool *is_type)
{
	enum node_kind kind = tag_node_kind(tag, is_type);

	if (tag == DW_TAG_unspecified_type && die__is_nullptr_type(die))
		kind = NODE_TYPE;
	if (ctx->env->type_sigs &&
	    (tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	     tag == DW_TAG_class_type || tag == DW_TAG_enumeration_type) &&
	    dwarf_hasattr(die, DW_AT_signature))
		kind = NODE_ALIAS;
	return kind;
}

/*
 * The size of each half of base type @die when it is a complex float of
 * a C++ unit, which BTF has no kind for: it becomes a struct of two
 * floats (cu_ctx__add_complex()).  0 for any other type, and for a size
 * whose half no BTF FLOAT could hold; in C units complex floats stay
 * INTs, as in pahole without floats.
 */
static Dwarf_Word cu_ctx__complex_half(struct cu_ctx *ctx, Dwarf_Die *die)
{
	Dwarf_Word enc = 0, bytes = 0, half;

	if (!ctx->cxx || !die_udata(die, DW_AT_encoding, &enc) ||
	    enc != DW_ATE_complex_float ||
	    !die_udata(die, DW_AT_byte_size, &bytes) || bytes % 2)
		return 0;
	half = bytes / 2;
	return half == 2 || half == 4 || half == 8 || half == 12 ||
	       half == 16 ? half : 0;
}

/* Says what went wrong reading @die's annotations. */
static void cu_ctx__annotation_err(struct cu_ctx *ctx, Dwarf_Die *die, int err)
{
	if (err == -ELOOP)
		cu_err(ctx, die, "annotation chain longer than %d or looping",
		       GNU_ANNOTATION_MAX);
	else if (err == -EINVAL)
		cu_err(ctx, die, "cannot read annotations");
}

/* Counts one annotation into the int that ARG points at. */
static int count_annotation(void *arg, const char *value)
{
	(*(int *)arg)++;
	return 0;
}

/* The number of dimensions (subranges) of array @die, or -errno. */
static int cu_ctx__array_dims(struct cu_ctx *ctx, Dwarf_Die *die)
{
	Dwarf_Die child;
	int ret, dims = 0;

	ret = abbrev_cache__child(&ctx->abbrevs, die, &child);
	while (ret == 0) {
		if (abbrev_cache__tag(&ctx->abbrevs, &child) == DW_TAG_subrange_type &&
		    ++dims > UINT16_MAX) {
			cu_err(ctx, die, "array of more than %d dimensions",
			       UINT16_MAX);
			return -E2BIG;
		}
		ret = abbrev_cache__sibling(&ctx->abbrevs, &child, &child);
	}
	if (ret < 0) {
		cu_err(ctx, die, "cannot read the array's subranges");
		return -EINVAL;
	}
	return dims;
}

static int cu_ctx__pick_index_type(struct cu_ctx *ctx);

/*
 * Sets *@nr to the number of types a Rust unit's struct DIE @die emits
 * before its STRUCT: 1, the UNION of its variants, when it is an enum whose
 * variant part gives the union a member (cu_ctx__add_struct()), else 0.
 * Returns 0 or -errno.
 */
static int cu_ctx__variant_union_count(struct cu_ctx *ctx, Dwarf_Die *die,
				       int *nr)
{
	struct rust_enum re;
	int err;

	*nr = 0;
	/* A declaration becomes a FWD (cu_ctx__add_composite()). */
	if (die_flag(die, DW_AT_declaration) && *die_name(die))
		return 0;
	err = rust_enum__read(ctx, die, &re);
	if (!err)
		*nr = re.nr_union ? 1 : 0;
	rust_enum__free(&re);
	return err;
}

/*
 * Appends a node of kind KIND for DIE of tag TAG (NULL and 0 for the
 * index int) and, for a type, reserves its BTF id now: the id of every
 * type emitted before it (a tagged pointer's TYPE_TAGs, an array's inner
 * ARRAYs) is counted in next_id first, because pass 2 must add them in
 * exactly this order.
 * Returns 0, -ENOMEM, -E2BIG or the error of reading the annotations or
 * the subranges.
 */
static int cu_ctx__add_node(struct cu_ctx *ctx, Dwarf_Die *die, int tag,
			    enum node_kind kind)
{
	int nr_tags = 0;

	struct cu_node *n;

	if (grow_array((void **)&ctx->nodes, &ctx->cap_nodes, ctx->nr_nodes + 1,
		       sizeof(*ctx->nodes), 256) ||
	    grow_array((void **)&ctx->node_offs, &ctx->cap_offs,
		       ctx->nr_nodes + 1, sizeof(*ctx->node_offs), 256))
		return -ENOMEM;
	ctx->node_offs[ctx->nr_nodes] = die ? cu_ctx__die_key(ctx, die) :
					      NODE_KEY_NONE;
	n = &ctx->nodes[ctx->nr_nodes++];
	n->die = die ? *die : (Dwarf_Die){ 0 };
	n->kind = kind;
	n->state = NODE_UNRESOLVED;
	n->id = 0;
	n->nr_before = 0;
	n->first_member = 0;
	n->nr_members = 0;
	if (ctx->c_names) {
		int err = cu_ctx__cxx_node_scope(ctx, ctx->nr_nodes - 1);

		if (err)
			return err;
	}
	/*
	 * Once the hash exists (after pass 1), a node added was met late: a
	 * DIE of another unit, or the index int that one needs.  It is
	 * hashed at once, and the table is rebuilt bigger when it would be
	 * more than half full.
	 */
	if (ctx->node_hash) {
		if (ctx->nr_nodes * 2 > ctx->hash_mask + 1) {
			int err = cu_ctx__index_nodes(ctx);

			if (err)
				return err;
		} else {
			cu_ctx__hash_insert(ctx, ctx->nr_nodes - 1);
		}
	}
	n->reused = 0;
	if (kind == NODE_INDEX_INT) {
		if (!ctx->defer_ids)
			n->id = ctx->next_id++;
		n->state = NODE_RESOLVED;
		return 0;
	}
	/* A tagged pointer emits its TYPE_TAGs first, and then the PTR. */
	if (kind == NODE_TYPE && tag == DW_TAG_pointer_type &&
	    cu_ctx__annots(ctx, die) && !ctx->env->opts->skip_type_tags) {
		int err = die__for_each_annotation(die, false,
						   cu_ctx__annots(ctx, die),
						   count_annotation, &nr_tags);

		if (err) {
			cu_ctx__annotation_err(ctx, die, err);
			return err;
		}
		if (nr_tags > UINT16_MAX)
			return -E2BIG;
		n->nr_before = nr_tags;
	}
	/*
	 * A C++ pointer to a member function is two words: the PTR to the
	 * function and the INT of the this adjustment come first.
	 */
	if (kind == NODE_TYPE && tag == DW_TAG_ptr_to_member_type &&
	    die__ptr_to_member_fn(die)) {
		n->nr_before = 2;
	}
	/* A C++ complex float emits the FLOAT of its halves first. */
	if (kind == NODE_TYPE && tag == DW_TAG_base_type &&
	    cu_ctx__complex_half(ctx, die)) {
		n->nr_before = 1;
	}
	/* A Rust enum emits the UNION of its variants first. */
	if (kind == NODE_TYPE && cu_ctx__rust_variants(ctx) &&
	    (tag == DW_TAG_structure_type ||
	     tag == DW_TAG_class_type)) {
		int nr, err = cu_ctx__variant_union_count(ctx, die, &nr);

		if (err)
			return err;
		n->nr_before = nr;
	}
	/* An array of N dimensions emits its N - 1 inner ARRAYs first. */
	if (kind == NODE_TYPE && tag == DW_TAG_array_type) {
		int dims = cu_ctx__array_dims(ctx, die);

		if (dims < 0)
			return dims;
		if (dims > 1)
			n->nr_before = dims - 1;
	}
	if (kind == NODE_TYPE) {
		/*
		 * The types it emits first (nr_before) take the ids before
		 * its own; with ids deferred, cu_ctx__assign_ids() counts
		 * them so.
		 */
		if (!ctx->defer_ids) {
			ctx->next_id += n->nr_before;
			n->id = ctx->next_id++;
		}
		n->state = NODE_RESOLVED;
		if (tag == DW_TAG_array_type) {
			ctx->need_index_type = true;
			/*
			 * An array met past the CU's own types needs the
			 * index type now, since the CU's pick is already made.
			 */
			if (ctx->node_hash && !ctx->index_type_id)
				return cu_ctx__pick_index_type(ctx);
		}
	} else if (kind == NODE_VOID) {
		n->state = NODE_RESOLVED;
	}
	return 0;
}

/* Appends a copy of DIE to the array *ARR; 0 or -ENOMEM. */
static int cu_ctx__add_die(Dwarf_Die **arr, size_t *nr, size_t *cap,
			   Dwarf_Die *die)
{
	if (grow_array((void **)arr, cap, *nr + 1, sizeof(**arr), 256))
		return -ENOMEM;
	(*arr)[(*nr)++] = *die;
	return 0;
}

/*
 * Pass 1 collects every type DIE anywhere in the CU (pahole encodes types
 * declared inside functions and lexical blocks too), the subprograms and
 * the top-level variables.  DIE order is pre-order, so the node offsets
 * come out sorted.  OWNER is the node of the composite whose members are
 * being read, or SIZE_MAX.
 */
static int cu_ctx__collect(struct cu_ctx *ctx, Dwarf_Die *parent, int depth,
			   size_t owner);

/*
 * cu_ctx__collect() over the children of @die in a C++ unit, in the scope
 * that @die makes (a namespace, a named class; a function's body none:
 * cu_ctx__cxx_enter()).  C units call cu_ctx__collect() directly, a call
 * less in the hot walk.
 */
static int cu_ctx__enter_type_unit_scope(struct cu_ctx *ctx, Dwarf_Die *from,
					 Dwarf_Die *die, int hops);

static int cu_ctx__collect_scoped(struct cu_ctx *ctx, Dwarf_Die *die,
				  int depth, size_t owner)
{
	uint32_t scope = ctx->cxx_names.cur;
	int err;

	/*
	 * A stub that holds copies of its type's nested types (gcc puts one
	 * at a unit's top) is the scope of its own type, wherever it is.
	 */
	if (ctx->env->type_sigs)
		err = cu_ctx__enter_type_unit_scope(ctx, die, die, 0);
	else
		err = cu_ctx__cxx_enter(ctx, die, &scope);
	if (!err)
		err = cu_ctx__collect(ctx, die, depth, owner);
	ctx->cxx_names.cur = scope;
	return err;
}

/*
 * Collects the children of composite DIE (node NODE) and stores its
 * members in a row in ctx->members, even when nested types interleave
 * with them.  The members are gathered in the scratch array from BASE on;
 * a nested composite moves its own out and gives the scratch back before
 * the walk goes on.  Returns 0, -E2BIG, -ENOMEM or the walk's error.
 */
static int cu_ctx__collect_composite(struct cu_ctx *ctx, Dwarf_Die *die,
				    int depth, size_t node)
{
	size_t base = ctx->nr_scratch, n;
	int err;

	err = ctx->c_names ? cu_ctx__collect_scoped(ctx, die, depth, node) :
			 cu_ctx__collect(ctx, die, depth, node);
	if (err)
		return err;
	n = ctx->nr_scratch - base;
	if (ctx->nr_members + n > UINT32_MAX)
		return -E2BIG;
	if (n && grow_array((void **)&ctx->members, &ctx->cap_members,
			    ctx->nr_members + n + 1, sizeof(*ctx->members), 256))
		return -ENOMEM;
	if (n)
		memcpy(ctx->members + ctx->nr_members, ctx->scratch + base,
		       n * sizeof(*ctx->members));
	ctx->nodes[node].first_member = ctx->nr_members;
	ctx->nodes[node].nr_members = n;
	ctx->nr_members += n;
	ctx->nr_scratch = base;
	return 0;
}

/*
 * Handles a DW_TAG_imported_unit.  With dwz, it imports a partial unit (of
 * this file or of the supplementary one).  What the partial unit holds was
 * this CU's before dwz moved it out (types, and abstract instances of
 * inline functions whose concrete ones stayed), so it is collected as the
 * CU's own, at the CU's level.  gcc's LTO units import compile units,
 * which are encoded as units of their own and so are skipped here.  Each
 * unit is collected once per CU.  Returns 0 or -errno.
 */
static int cu_ctx__import_unit(struct cu_ctx *ctx, Dwarf_Die *die, int depth)
{
	const void *last;
	Dwarf_Attribute attr;
	Dwarf_Die unit;
	uint64_t key;
	size_t i;
	int err;

	if (!dwarf_attr(die, DW_AT_import, &attr) || !die__formref(&attr, &unit)) {
		cu_err(ctx, die, "bad DW_AT_import");
		return -EINVAL;
	}
	if (dwarf_tag(&unit) != DW_TAG_partial_unit &&
	    dwarf_cu_getdwarf(unit.cu) == ctx->home_dw)
		return 0;
	key = cu_ctx__die_key(ctx, &unit);
	/* A unit already collected, maybe through another, is skipped. */
	for (i = 0; i < ctx->nr_imports; i++)
		if (ctx->imports[i] == key)
			return 0;
	if (grow_array((void **)&ctx->imports, &ctx->cap_imports,
		       ctx->nr_imports + 1, sizeof(*ctx->imports), 16))
		return -ENOMEM;
	ctx->imports[ctx->nr_imports++] = key;
	if (ctx->import_depth >= DIE_MAX_DEPTH) {
		cu_err(ctx, die, "units imported more than %d deep",
		       DIE_MAX_DEPTH);
		return -EINVAL;
	}
	/*
	 * The unit is collected at the importer's level, because a variable
	 * there is a variable of this CU.
	 */
	ctx->import_depth++;
	last = ctx->walk_last;
	ctx->walk_last = NULL;	/* a walk of its own, in another place */
	err = cu_ctx__collect(ctx, &unit, depth, SIZE_MAX);
	ctx->walk_last = last;
	ctx->import_depth--;
	return err;
}

/*
 * Adds the members that follow member @child of a struct, union or class
 * to ctx->scratch, as cu_ctx__collect() would one by one, while the fast
 * path reads each whole (abbrev_cache__fixed_leaf()): a struct's members
 * are most of the DIEs the walk meets.  @child is left at the last one
 * added, whose next sibling the walk goes on from.  Returns 0 or
 * -ENOMEM.
 */
static int cu_ctx__member_run(struct cu_ctx *ctx, Dwarf_Die *child)
{
	const struct abbrev_cache *c = &ctx->abbrevs;
	const unsigned char *p, *next;
	Dwarf_Abbrev *abbrev;
	int tag, err;

	if (child->cu != c->cu || !c->cu_end)
		return 0;
	p = abbrev_cache__fixed_leaf(c, child->addr, &abbrev, &tag);
	while (p && (next = abbrev_cache__fixed_leaf(c, p, &abbrev, &tag)) &&
	       (tag == DW_TAG_member || tag == DW_TAG_inheritance)) {
		*child = (Dwarf_Die){ .addr = (void *)p, .cu = c->cu,
				      .abbrev = abbrev };
		err = cu_ctx__add_die(&ctx->scratch, &ctx->nr_scratch,
				      &ctx->cap_scratch, child);
		if (err)
			return err;
		ctx->walk_last = p;
		p = next;
	}
	return 0;
}

/*
 * Walks the children of PARENT at nesting DEPTH (see the declaration
 * above).  Returns 0, or -EINVAL after reporting a DWARF error, or the
 * -errno of a failed step.
 */
static int cu_ctx__collect(struct cu_ctx *ctx, Dwarf_Die *parent, int depth,
			   size_t owner)
{
	Dwarf_Die child;
	int ret, err;
	/*
	 * The variables of a C++ namespace are global ones too (a static
	 * data member is defined there by clang, at the CU's level by gcc).
	 */
	bool var_scope = depth == 0 ||
			 (ctx->cxx && dwarf_tag(parent) == DW_TAG_namespace);

	if (depth > DIE_MAX_DEPTH) {
		cu_err(ctx, parent, "DIE nesting deeper than %d", DIE_MAX_DEPTH);
		return -EINVAL;
	}
	ret = abbrev_cache__child(&ctx->abbrevs, parent, &child);
	if (ret < 0) {
		cu_err(ctx, parent, "cannot read children: %s", dwarf_errmsg(-1));
		return -EINVAL;
	}
	if (ret > 0)
		return 0;
	do {
		int tag = abbrev_cache__tag(&ctx->abbrevs, &child);
		const unsigned char *after = NULL;
		size_t keyed = SIZE_MAX;
		enum node_kind kind;
		bool is_type, descend = false;

		if (ctx->walk_last &&
		    (const char *)child.addr <= (const char *)ctx->walk_last) {
			cu_err(ctx, parent, "a DW_AT_sibling leads back to DIEs read already");
			return -EINVAL;
		}
		ctx->walk_last = child.addr;

		kind = die_node_kind(ctx, &child, tag, &is_type);
		if (tag == DW_TAG_imported_unit) {
			err = cu_ctx__import_unit(ctx, &child, depth);
			if (err)
				return err;
		} else if (ctx->in_foreign && tag != DW_TAG_member &&
			   tag != DW_TAG_inheritance && !is_type) {
			/* In another unit, only the types are ours to read. */
		} else if (tag == DW_TAG_member || tag == DW_TAG_inheritance) {
			if (owner != SIZE_MAX) {
				err = cu_ctx__add_die(&ctx->scratch, &ctx->nr_scratch,
						      &ctx->cap_scratch, &child);
				if (!err && !ctx->in_foreign)
					err = cu_ctx__member_run(ctx, &child);
				if (err)
					return err;
			}
		} else if (is_type) {
			size_t node = ctx->nr_nodes;

			err = cu_ctx__add_node(ctx, &child, tag, kind);
			if (err)
				return err;
			/* Types can be nested in structs (gcc and clang do). */
			if ((tag == DW_TAG_structure_type ||
			     tag == DW_TAG_union_type ||
			     tag == DW_TAG_class_type)) {
				if (dwarf_haschildren(&child))
					err = cu_ctx__collect_composite(ctx,
							&child, depth + 1, node);
				if (err)
					return err;
			}
			/*
			 * g++ puts the type of a member function type's
			 * this among its parameters.
			 */
			if (tag == DW_TAG_subroutine_type && ctx->cxx)
				descend = true;
			keyed = node;
		} else if (tag == DW_TAG_subprogram) {
			/*
			 * Subprograms are collected at any depth, because
			 * pahole considers nested ones too.
			 */
			err = cu_ctx__add_die(&ctx->subprogs, &ctx->nr_subprogs,
					      &ctx->cap_subprogs, &child);
			/* Its scope mangles an internal function's name. */
			if (!err && ctx->cxx)
				err = cu_ctx__cxx_subprog_scope(ctx,
						ctx->nr_subprogs - 1);
			if (err)
				return err;
			descend = true;
		} else if (tag == DW_TAG_namespace) {
			/*
			 * Rust's modules, impls and functions (and C++'s
			 * namespaces) hold types and functions, which
			 * pahole encodes too; their variables are not
			 * top-level ones (depth), as in pahole, but for
			 * those of C++ namespaces (var_scope).
			 */
			descend = true;
		} else if (tag == DW_TAG_lexical_block) {
			/*
			 * The walk does not enter inlined_subroutine or
			 * call_site trees, because local types live in the
			 * abstract instance.
			 */
			descend = true;
		} else if (tag == DW_TAG_variable && var_scope) {
			err = cu_ctx__add_die(&ctx->vars, &ctx->nr_vars,
					      &ctx->cap_vars, &child);
			if (err)
				return err;
		}
		if (descend && dwarf_haschildren(&child)) {
			err = ctx->c_names ?
			      cu_ctx__collect_scoped(ctx, &child, depth + 1,
						     SIZE_MAX) :
			      cu_ctx__collect(ctx, &child, depth + 1, SIZE_MAX);
			if (err)
				return err;
		}
		/*
		 * The keys read a type's DIEs now, once the types nested in
		 * it are nodes, and find where its subtree ends.
		 */
		if (keyed != SIZE_MAX && ctx->walk_keys) {
			err = cu_ctx__key_node(ctx, keyed, &after);
			if (err)
				return err;
		}
		ret = after ? abbrev_cache__sibling_from(&ctx->abbrevs, &child,
							 after, &child) :
		      abbrev_cache__sibling(&ctx->abbrevs, &child, &child);
		if (ret < 0) {
			int e = dwarf_errno();

			/* Our reader and libdw may fail without saying why. */
			cu_err(ctx, parent, "cannot read siblings: %s",
			       e ? dwarf_errmsg(e) : "invalid DWARF");
			return -EINVAL;
		}
	} while (ret == 0);
	return 0;
}

/*
 * Sets *OFF to the key of the DIE that ATTR refers to; returns false if
 * the reference cannot be read.  The CU-local forms are read without
 * building the DIE, because only the offset is needed.
 */
static bool cu_ctx__ref_off(struct cu_ctx *ctx, Dwarf_Attribute *attr,
			    Dwarf_Off *off)
{
	Dwarf_Die ref;

	/*
	 * An attribute read through an abstract origin may belong to
	 * another unit (LTO), so its CU-local offset is not relative to ours.
	 */
	if (attr->cu != ctx->cudie->cu)
		goto generic;
	switch (dwarf_whatform(attr)) {
	case DW_FORM_ref1:
	case DW_FORM_ref2:
	case DW_FORM_ref4:
	case DW_FORM_ref8:
	case DW_FORM_ref_udata:
		/*
		 * dwarf_formref() is deprecated for dwarf_formref_die(),
		 * which builds a whole DIE; we only need the offset.
		 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
		if (dwarf_formref(attr, off))
			return false;
#pragma GCC diagnostic pop
		*off += ctx->cu_start;
		return true;
	default:
		break;
	}
generic:
	if (!die__formref(attr, &ref))
		return false;
	*off = cu_ctx__die_key(ctx, &ref);
	return true;
}

static int cu_ctx__resolve_node(struct cu_ctx *ctx, size_t idx, uint32_t *id,
				int depth);

/* How many classes around a type are followed to their own scopes. */
#define TYPE_UNIT_HOPS	16

/*
 * Sets the C++ scope to the one @die (met from @from) is in within its
 * type unit: gcc repeats there the namespaces and classes around the
 * type (around its declaration, which the definition at the unit's top
 * names by DW_AT_specification), which a plain build names it in.  They
 * are found from the unit's DIE down: among siblings, a DIE whose next
 * sibling comes after the one wanted holds it, so only the path to it is
 * entered.  Each step goes forward, so that a DW_AT_sibling cannot loop.
 * Returns 0, or -EINVAL (reported) if @die is not found in its unit.
 */
static int cu_ctx__type_unit_scope(struct cu_ctx *ctx, Dwarf_Die *from,
				   Dwarf_Die *die, int hops)
{
	Dwarf_Die path[DIE_MAX_DEPTH], unit, spec, cur, sib;
	Dwarf_Off want = dwarf_dieoffset(die);
	Dwarf_Attribute attr;
	int depth = 0, i, err, r;

	if (dwarf_attr(die, DW_AT_specification, &attr) &&
	    die__formref(&attr, &spec) && spec.cu == die->cu)
		want = dwarf_dieoffset(&spec);
	if (!dwarf_diecu(die, &unit, NULL, NULL) || dwarf_child(&unit, &cur))
		goto lost;
	while (dwarf_dieoffset(&cur) != want) {
		if (dwarf_dieoffset(&cur) > want)
			goto lost;
		r = dwarf_siblingof(&cur, &sib);
		if (r < 0)
			goto lost;
		if (!r && dwarf_dieoffset(&sib) <= want) {
			if (dwarf_dieoffset(&sib) <= dwarf_dieoffset(&cur))
				goto lost;
			cur = sib;
			continue;
		}
		/* It is below @cur, or nowhere. */
		if (depth + 1 >= DIE_MAX_DEPTH || !dwarf_haschildren(&cur))
			goto lost;
		path[depth++] = cur;
		if (dwarf_child(&path[depth - 1], &cur))
			goto lost;
	}
	ctx->cxx_names.cur = 0;
	for (i = 0; i < depth; i++) {
		err = cu_ctx__enter_type_unit_scope(ctx, from, &path[i], hops);
		if (err)
			return err;
	}
	return 0;
lost:
	cu_err(ctx, from, "type 0x%llx not found in its type unit",
	       (unsigned long long)want);
	return -EINVAL;
}

/*
 * Enters the C++ scope that @die (met from @from) makes, as
 * cu_ctx__cxx_enter() does, but for what type units change: a stub (gcc's
 * around a type nested in a template, clang's without a name, gcc's at a
 * unit's top holding copies of nested types) is the scope of its own
 * type, and a definition out of its scope (DW_AT_specification) is in its
 * declaration's.  Returns 0 or -errno (reported).
 */
static int cu_ctx__enter_type_unit_scope(struct cu_ctx *ctx, Dwarf_Die *from,
					 Dwarf_Die *die, int hops)
{
	Dwarf_Die t, *in = die;
	uint32_t saved;
	int err;

	if (dwarf_ref__stub(die, &t))
		in = &t;
	else if (!dwarf_hasattr(die, DW_AT_specification) ||
		 !die__in_type_unit(die))
		return cu_ctx__cxx_enter(ctx, die, &saved);
	if (hops >= TYPE_UNIT_HOPS) {
		cu_err(ctx, from, "type units' classes nest too deep");
		return -ELOOP;
	}
	err = cu_ctx__type_unit_scope(ctx, from, in, hops + 1);
	return err ? err : cu_ctx__cxx_enter(ctx, in, &saved);
}

/*
 * Adds a node for DIE, a type DIE of another unit that the CU refers to
 * from FROM (LTO's cross-unit references, dwz's partial units).  That DIE
 * is read, never changed, and encoded in this CU as if it were its own
 * (dedup merges the copies), after the CU's own types.  Sets *IDX to the
 * new node; returns 0 or -errno.
 */
static int cu_ctx__add_foreign(struct cu_ctx *ctx, Dwarf_Die *from,
			       Dwarf_Die *die, size_t *idx)
{
	int tag = dwarf_tag(die), err = 0;
	uint32_t scope = ctx->cxx_names.cur;
	size_t node = ctx->nr_nodes;
	enum node_kind kind;
	bool is_type, was;

	kind = die_node_kind(ctx, die, tag, &is_type);
	if (!is_type) {
		cu_err(ctx, from, "it refers to 0x%llx, in another unit, which is not a type",
		       (unsigned long long)cu_ctx__die_off(ctx, die));
		return -EINVAL;
	}
	/* Only what C++ names by its scopes needs them. */
	if (ctx->c_names && ctx->env->type_sigs &&
	    (tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	     tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type ||
	     tag == DW_TAG_typedef) && die__in_type_unit(die)) {
		err = cu_ctx__type_unit_scope(ctx, from, die, 0);
		if (err)
			return err;
	}
	err = cu_ctx__add_node(ctx, die, tag, kind);
	if (err)
		return err;
	if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type ||
	     tag == DW_TAG_class_type) && dwarf_haschildren(die)) {
		const void *last = ctx->walk_last;

		was = ctx->in_foreign;
		ctx->in_foreign = true;
		ctx->walk_last = NULL;	/* another unit's DIEs */
		err = cu_ctx__collect_composite(ctx, die, 1, node);
		ctx->walk_last = last;
		ctx->in_foreign = was;
	}
	ctx->cxx_names.cur = scope;
	*idx = node;
	return err;
}

/* The name of @attr, a reference by signature, for messages. */
static const char *sig_attr_name(Dwarf_Attribute *attr)
{
	switch (dwarf_whatattr(attr)) {
	case DW_AT_signature:
		return "DW_AT_signature";
	case DW_AT_containing_type:
		return "DW_AT_containing_type";
	default:
		return "DW_AT_type";
	}
}

/*
 * Sets *IDX to the node of the type that ATTR (of DIE) refers to, adding
 * it if it is another unit's.  Returns 0 or -EINVAL (reported).
 */
static int cu_ctx__ref_node(struct cu_ctx *ctx, Dwarf_Die *die,
			    Dwarf_Attribute *attr, size_t *idx)
{
	struct cu_node *n;
	Dwarf_Die ref;
	Dwarf_Off off;

	if (!cu_ctx__ref_off(ctx, attr, &off)) {
		/*
		 * libdw finds a type unit only in the file's one
		 * .debug_info or .debug_types: a relocatable file keeps
		 * each in a section group of its own.
		 */
		if (dwarf_whatform(attr) == DW_FORM_ref_sig8)
			cu_err(ctx, die, "no type unit found for its %s",
			       sig_attr_name(attr));
		else
			cu_err(ctx, die, "bad DW_AT_type reference");
		return -EINVAL;
	}
	n = cu_ctx__find_node(ctx, off);
	if (n) {
		*idx = n - ctx->nodes;
		return 0;
	}
	if (die__formref(attr, &ref) && ref.cu != ctx->cudie->cu)
		return cu_ctx__add_foreign(ctx, die, &ref, idx);
	cu_err(ctx, die, "DW_AT_type 0x%llx is not a type of this CU",
	       (unsigned long long)off);
	return -EINVAL;
}

/* Sets *ID to the BTF id of the type ATTR refers to; 0 (void) if no ATTR. */
int cu_ctx__type_ref_attr(struct cu_ctx *ctx, Dwarf_Die *die,
			  Dwarf_Attribute *attr, uint32_t *id)
{
	size_t idx;
	int err;

	*id = 0;
	if (!attr)
		return 0;
	err = cu_ctx__ref_node(ctx, die, attr, &idx);
	return err ? err : cu_ctx__resolve_node(ctx, idx, id, 0);
}

/*
 * Sets *ID to the BTF id of the type DIE refers to through DW_AT_type (0,
 * void, when it has none); returns 0 or -errno.
 */
int cu_ctx__type_ref(struct cu_ctx *ctx, Dwarf_Die *die, uint32_t *id)
{
	Dwarf_Attribute attr;

	return cu_ctx__type_ref_attr(ctx, die,
				     dwarf_attr_integrate(die, DW_AT_type, &attr),
				     id);
}

/*
 * Sets *ID to the BTF id that node IDX stands for: its own, or for an
 * alias the id of what it refers to, followed and remembered.  Nodes may
 * be added meanwhile (other units' DIEs), which may move the array, so
 * nodes are held by index, not pointer.  Returns 0, -ELOOP for a cycle
 * or a chain deeper than DIE_MAX_DEPTH, or -errno.
 */
static int cu_ctx__resolve_node(struct cu_ctx *ctx, size_t idx, uint32_t *id,
				int depth)
{
	Dwarf_Attribute attr;
	Dwarf_Die die, stub;
	size_t next;
	int err;

	if (ctx->nodes[idx].state == NODE_RESOLVED) {
		*id = ctx->nodes[idx].id;
		return 0;
	}
	die = ctx->nodes[idx].die;
	if (ctx->nodes[idx].state == NODE_RESOLVING || depth > DIE_MAX_DEPTH) {
		cu_err(ctx, &die, "type reference cycle");
		return -ELOOP;
	}
	ctx->nodes[idx].state = NODE_RESOLVING;
	*id = 0;
	/*
	 * An alias names what it stands for by its type, or a type unit's
	 * stub by its signature, before any DW_AT_type (g++ gives a nested
	 * enum's stub its underlying type too).
	 */
	if ((ctx->nodes[idx].kind == NODE_ALIAS &&
	     dwarf_attr(&die, DW_AT_signature, &attr)) ||
	    dwarf_attr(&die, DW_AT_type, &attr)) {
		err = cu_ctx__ref_node(ctx, &die, &attr, &next);
		/* A stub stands for a type of its own kind only. */
		if (!err && dwarf_whatattr(&attr) == DW_AT_signature &&
		    !dwarf_ref__stub(&die, &stub)) {
			cu_err(ctx, &die, "its DW_AT_signature names a type of another kind");
			err = -EINVAL;
		}
		if (!err)
			err = cu_ctx__resolve_node(ctx, next, id, depth + 1);
		if (err)
			return err;
	}
	ctx->nodes[idx].id = *id;
	ctx->nodes[idx].state = NODE_RESOLVED;
	return 0;
}

/*
 * Adds an INT named @name of @bytes and @encoding (BTF_INT_*).  DWARF 5
 * producers emit odd-sized helper types (DW_ATE_unsigned_24) only for
 * location expressions; BTF cannot hold them.  Such types, and nameless
 * ones, become the 4-byte __SANITIZED_FAKE_INT__.  Returns the new id or
 * -errno.
 */
static int cu_ctx__add_int(struct cu_ctx *ctx, const char *name,
			   Dwarf_Word bytes, int encoding)
{
	int off;

	if (!bytes || (bytes & (bytes - 1)) || bytes > 16 || !*name) {
		name = "__SANITIZED_FAKE_INT__";
		bytes = 4;
	}
	off = cu_ctx__name_off(ctx, name);
	if (off < 0)
		return off;
	return btf_builder__add_int(ctx->btf, off, bytes, encoding);
}

/*
 * Adds a floating-point type named @name of @bytes: a FLOAT when floats
 * are wanted and its size is one BTF allows, else an INT without an
 * encoding, as pahole does.  Returns the new id or -errno.
 */
static int cu_ctx__add_float(struct cu_ctx *ctx, const char *name,
			     Dwarf_Word bytes)
{
	int off;

	if (ctx->env->opts->gen_floats && (bytes == 2 || bytes == 4 ||
	    bytes == 8 || bytes == 12 || bytes == 16)) {
		off = cu_ctx__name_off(ctx, name);
		return off < 0 ? off : btf_builder__add_float(ctx->btf, off,
							      bytes);
	}
	return cu_ctx__add_int(ctx, name, bytes, 0);
}

/*
 * Adds C++ complex float DIE (cu_ctx__complex_half()) as a struct of two
 * floats, "real" and "imag", as C lays it out.  BTF has no complex kind,
 * and its INTs are at most 16 bytes.  The names are C identifiers that
 * tell the halves by their size, because clang names every complex type
 * "complex": _Complex_float, _Complex_double, _Complex_long_double (of
 * 12 or 16 bytes) and _Complex_Float16.  The FLOAT comes first (nr_before
 * 1).  Returns the id of the struct or -errno.
 */
static int cu_ctx__add_complex(struct cu_ctx *ctx, Dwarf_Die *die)
{
	Dwarf_Word half = cu_ctx__complex_half(ctx, die);
	const char *elem, *name;
	int fl, id, err, off, real, imag;

	if (half == 2) {
		elem = "_Float16";
		name = "_Complex_Float16";
	} else if (half == 4) {
		elem = "float";
		name = "_Complex_float";
	} else if (half == 8) {
		elem = "double";
		name = "_Complex_double";
	} else {
		elem = "long double";
		name = "_Complex_long_double";
	}
	fl = cu_ctx__add_float(ctx, elem, half);
	if (fl < 0)
		return fl;
	off = cu_ctx__name_off(ctx, name);
	if (off < 0)
		return off;
	id = btf_builder__add_composite(ctx->btf, BTF_KIND_STRUCT, off,
					2 * half);
	if (id < 0)
		return id;
	real = cu_ctx__name_off(ctx, "real");
	err = real < 0 ? real : btf_builder__add_field(ctx->btf, real, fl, 0, 0);
	imag = err ? err : cu_ctx__name_off(ctx, "imag");
	err = imag < 0 ? imag : btf_builder__add_field(ctx->btf, imag, fl,
						      half * 8, 0);
	return err ? err : id;
}

/*
 * Adds base type DIE as an INT, or as a FLOAT when floats are wanted and
 * its size is one BTF allows.  Returns the new id or -errno.
 */
static int cu_ctx__add_base_type(struct cu_ctx *ctx, Dwarf_Die *die)
{
	const char *name = die_name(die);
	Dwarf_Word enc = 0, bytes = 0, bits = 0;
	int encoding = 0;

	die_udata(die, DW_AT_encoding, &enc);
	die_udata(die, DW_AT_byte_size, &bytes);
	if (!die_udata(die, DW_AT_bit_size, &bits))
		bits = bytes * 8;
	bytes = (bits + 7) / 8;

	/*
	 * Rust's unit type () and never type ! have no bytes, which no INT
	 * has: with C names each is an empty struct, so that members of it
	 * take no room (as __SANITIZED_FAKE_INT__ they took four bytes).
	 */
	if (ctx->c_names && ctx->rust && !bytes) {
		int off = cu_ctx__name_off(ctx, !strcmp(name, "!") ? "_Never" :
					   "_Unit");

		if (off < 0)
			return off;
		return btf_builder__add_composite(ctx->btf, BTF_KIND_STRUCT,
						  off, 0);
	}
	switch (enc) {
	case DW_ATE_float:
		if (ctx->c_names)
			name = c_float_name(name, bytes);
		return cu_ctx__add_float(ctx, name, bytes);
	case DW_ATE_signed:
	case DW_ATE_signed_char:
		encoding = BTF_INT_SIGNED;
		break;
	case DW_ATE_boolean:
		encoding = BTF_INT_BOOL;
		break;
	default:
		break;
	}
	if (ctx->c_names)
		name = cxx_int_name(name, bytes, encoding, ctx->rust);
	return cu_ctx__add_int(ctx, name, bytes, encoding);
}

/*
 * Is @m, a struct's DW_TAG_member or DW_TAG_inheritance (@tag), a C++
 * virtual base?  It has no fixed offset (its DW_AT_data_member_location
 * reads the object's vtable), so it is left out of the struct's BTF, as
 * static members are.
 */
static bool member__virtual_base(Dwarf_Die *m, int tag)
{
	Dwarf_Attribute attr;

	return tag == DW_TAG_inheritance &&
	       dwarf_attr(m, DW_AT_virtuality, &attr);
}

/*
 * The BTF string offset of the name of a C++ unit's member, its attributes
 * in @da: @name (a base's), else its DW_AT_name made a C identifier.  A
 * base's name is built in a buffer whose address holds every base's, so
 * it cannot be cached by its address.  Kept out of cu_ctx__add_member(),
 * whose C path stays as short as it was.
 */
static int cu_ctx__cxx_member_name_off(struct cu_ctx *ctx,
				       struct die_attrs *da, const char *name)
{
	if (name)
		return name_cache__add(ctx->names, name);
	name = cu_ctx__attr_name(ctx, da);
	if (name && !(name = cu_ctx__cxx_ident(ctx, name)))
		return -ENOMEM;
	return cu_ctx__name_off(ctx, name);
}

/*
 * Adds member M (its attributes in DA) to the struct or union just added,
 * named @name, or by its DW_AT_name when @name is NULL.
 * The bit offset comes from DW_AT_data_bit_offset (DWARF 4+), or from
 * DW_AT_data_member_location plus, for a DWARF 2-4 bit-field,
 * DW_AT_bit_offset.  Returns 0 or -errno (reported).
 */
static int cu_ctx__add_member(struct cu_ctx *ctx, Dwarf_Die *m,
			      struct die_attrs *da, const char *name)
{
	Dwarf_Word byte_off, bit_size = 0, data_bit_off, storage;
	Dwarf_Attribute *bo;
	Dwarf_Sword dw_bit_off;
	uint64_t bit_off;
	uint32_t type;
	int err, name_off;

	err = cu_ctx__type_ref_attr(ctx, m, die_attrs__at(da, DA_TYPE), &type);
	if (err)
		return err;
	if (member_byte_offset(die_attrs__at(da, DA_DATA_MEMBER_LOCATION),
			       &byte_off)) {
		cu_err(ctx, m, "bad DW_AT_data_member_location");
		return -EINVAL;
	}
	die_attrs__udata(da, DA_BIT_SIZE, &bit_size);
	if (die_attrs__udata(da, DA_DATA_BIT_OFFSET, &data_bit_off)) {
		bit_off = data_bit_off;
	} else {
		bit_off = byte_off * 8;
		bo = die_attrs__at(da, DA_BIT_OFFSET);
		if (bit_size && bo && !dwarf_formsdata(bo, &dw_bit_off)) {
			Dwarf_Die t;

			/*
			 * DWARF 2-4 count from the storage unit's most
			 * significant bit; BTF wants the bit position.  The
			 * storage unit is DW_AT_byte_size, or else the size
			 * of the member's type.
			 */
			if (!die_attrs__udata(da, DA_BYTE_SIZE, &storage)) {
				storage = 0;
				if (die_attrs__at(da, DA_TYPE) &&
				    die__formref(&da->a[DA_TYPE], &t))
					storage = die__type_size(&t,
							ctx->env->ef->ptr_size);
			}
			if (ctx->little_endian)
				bit_off += storage * 8 - dw_bit_off - bit_size;
			else
				bit_off += dw_bit_off;
		}
	}
	if (bit_off > UINT32_MAX) {
		cu_err(ctx, m, "member offset out of range");
		return -EINVAL;
	}
	name_off = ctx->c_names || name ? cu_ctx__cxx_member_name_off(ctx, da, name) :
		   name_cache__off(ctx->names, cu_ctx__attr_name(ctx, da));
	err = name_off < 0 ? name_off :
	      btf_builder__add_field(ctx->btf, name_off, type, bit_off,
				     bit_size);
	if (err)
		cu_err(ctx, m, "cannot encode member (bit offset %llu, size %llu)",
		       (unsigned long long)bit_off, (unsigned long long)bit_size);
	return err;
}

/* Adds a TYPEDEF @name of @ref; one without a name is refused. */
static int cu_ctx__add_typedef(struct cu_ctx *ctx, const char *name,
			       uint32_t ref)
{
	int off = cu_ctx__name_off(ctx, name);

	return off < 0 ? off : btf_builder__add_ref(ctx->btf, BTF_KIND_TYPEDEF,
						    off, ref);
}

struct member_pos {
	uint64_t byte_off;
	uint32_t i;		/* DWARF order, which breaks ties */
};

/*
 * Orders by byte offset, then by DWARF order, so that qsort() gives the
 * order of a stable sort.
 */
static int member_pos_cmp(const void *a, const void *b)
{
	const struct member_pos *x = a, *y = b;

	if (x->byte_off != y->byte_off)
		return x->byte_off < y->byte_off ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * rustc lists a struct's fields in source order, and lays them out in
 * another; pahole puts the members of a Rust unit's types in offset order
 * (a stable sort, by byte offset), so we do too.  @order gets the DWARF
 * indices of the @nr members from @first in that order.
 */
static int cu_ctx__member_order(struct cu_ctx *ctx, uint32_t first,
				uint32_t nr, uint32_t *order)
{
	struct member_pos *pos;
	struct die_attrs da;
	uint32_t i;

	pos = malloc(nr * sizeof(*pos));
	if (!pos)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		Dwarf_Word off = 0, bit_off;

		pos[i].i = i;
		pos[i].byte_off = 0;
		/* A bad offset is reported when the member is added. */
		if (die_attrs__get(ctx, &ctx->members[first + i], &da))
			continue;
		if (die_attrs__udata(&da, DA_DATA_BIT_OFFSET, &bit_off))
			off = bit_off / 8;
		else if (member_byte_offset(die_attrs__at(&da,
					DA_DATA_MEMBER_LOCATION), &off))
			off = 0;
		pos[i].byte_off = off;
	}
	qsort(pos, nr, sizeof(*pos), member_pos_cmp);
	for (i = 0; i < nr; i++)
		order[i] = pos[i].i;
	free(pos);
	return 0;
}

/*
 * Adds members [@from, @to) of a Rust enum's variant part @re (rust_enum.h)
 * to the struct or union just added.  rustc leaves the tag unnamed: it is
 * then RUST_ENUM_DISCR_NAME.  Returns 0 or -errno.
 */
static int cu_ctx__add_variant_members(struct cu_ctx *ctx,
				       const struct rust_enum *re,
				       uint32_t from, uint32_t to)
{
	struct die_attrs da;
	uint32_t i;
	int err = 0;

	for (i = from; i < to && !err; i++) {
		Dwarf_Die m = re->m[i].die;

		if (die_attrs__get(ctx, &m, &da))
			return -EINVAL;
		err = cu_ctx__add_member(ctx, &m, &da, re->m[i].discr &&
					 !cu_ctx__attr_name(ctx, &da) ?
					 RUST_ENUM_DISCR_NAME : NULL);
	}
	return err;
}

/*
 * Adds the anonymous UNION of a Rust enum's variant part @re, of the
 * enum's @size, with the members that go in it: the tag when it is a
 * member of its own, and the variants.  Returns its id or -errno.
 */
static int cu_ctx__add_variant_union(struct cu_ctx *ctx,
				     const struct rust_enum *re, uint64_t size)
{
	int id = btf_builder__add_composite(ctx->btf, BTF_KIND_UNION, 0, size);
	int err;

	if (id < 0)
		return id;
	err = cu_ctx__add_variant_members(ctx, re, 0, re->nr_union);
	return err ? err : id;
}

/*
 * Adds the STRUCT of struct or class DIE @die, of @size, without a name
 * yet.  A Rust enum's gets the UNION of its variants just before it, and
 * that union and what is not in it as its first members (rust_enum.h).
 * Returns the STRUCT's id or -errno.
 */
static int cu_ctx__add_struct(struct cu_ctx *ctx, Dwarf_Die *die,
			      uint64_t size)
{
	struct rust_enum re;
	int id, union_id = 0, err;

	if (!cu_ctx__rust_variants(ctx))
		return btf_builder__add_composite(ctx->btf, BTF_KIND_STRUCT, 0,
						  size);
	err = rust_enum__read(ctx, die, &re);
	if (!err && re.nr_union)
		union_id = cu_ctx__add_variant_union(ctx, &re, size);
	id = err ? err : union_id < 0 ? union_id :
	     btf_builder__add_composite(ctx->btf, BTF_KIND_STRUCT, 0, size);
	if (id > 0 && union_id > 0)
		err = btf_builder__add_field(ctx->btf, 0, union_id, 0, 0);
	if (id > 0 && !err)
		err = cu_ctx__add_variant_members(ctx, &re, re.nr_union, re.nr);
	rust_enum__free(&re);
	return err ? err : id;
}

/*
 * Adds struct, class or union DIE (node IDX, tag TAG) and its members.  A
 * named declaration becomes a FWD.  Static members (DW_AT_external) and
 * member declarations are left out.  Returns the id of the new type or
 * -errno.
 */
static int cu_ctx__add_composite(struct cu_ctx *ctx, Dwarf_Die *die,
				 size_t idx, int tag)
{
	uint32_t first = ctx->nodes[idx].first_member;
	uint32_t nr = ctx->nodes[idx].nr_members;
	uint32_t *order = NULL, nr_bases = 0;
	struct die_attrs da;
	const char *name;
	Dwarf_Word size = 0;
	uint32_t i;
	int id, name_off, err = 0;

	if (die_attrs__get(ctx, die, &da))
		return -EINVAL;
	name = cu_ctx__attr_name(ctx, &da);
	if (ctx->c_names && name && !(name = cu_ctx__cxx_type_name(ctx, idx, name)))
		return -ENOMEM;
	name_off = cu_ctx__name_off(ctx, name);
	if (name_off < 0)
		return name_off;
	if (die_attrs__flag(&da, DA_DECLARATION) && name_off)
		return btf_builder__add_fwd(ctx->btf, name_off,
					    tag == DW_TAG_union_type ?
					    BTF_FWD_UNION : BTF_FWD_STRUCT);
	die_attrs__udata(&da, DA_BYTE_SIZE, &size);
	if (tag == DW_TAG_union_type)
		id = btf_builder__add_composite(ctx->btf, BTF_KIND_UNION, 0,
						size);
	else
		id = cu_ctx__add_struct(ctx, die, size);
	if (id < 0)
		return id;
	/* A Rust enum's struct comes after the union of its variants. */
	btf_builder__type(ctx->btf, id)->name_off = name_off;
	if (ctx->rust && nr > 1) {
		order = malloc(nr * sizeof(*order));
		if (!order)
			return -ENOMEM;
		err = cu_ctx__member_order(ctx, first, nr, order);
	}
	for (i = 0; i < nr && !err; i++) {
		/*
		 * M is a copy, since ctx->members may move when another
		 * unit's types are added while the member is encoded.
		 */
		Dwarf_Die m = ctx->members[first + (order ? order[i] : i)];
		int mtag = abbrev_cache__tag(&ctx->abbrevs, &m);
		char base[32];

		err = die_attrs__get(ctx, &m, &da);
		if (err || die_attrs__flag(&da, DA_EXTERNAL) ||
		    die_attrs__flag(&da, DA_DECLARATION) ||
		    member__virtual_base(&m, mtag))
			continue;
		/* A C++ base class is a member named by its place. */
		if (mtag == DW_TAG_inheritance)
			snprintf(base, sizeof(base), "__base%u", nr_bases++);
		err = cu_ctx__add_member(ctx, &m, &da,
					 mtag == DW_TAG_inheritance ? base : NULL);
	}
	free(order);
	return err ? err : id;
}

/*
 * Adds enumeration DIE and its enumerators: an ENUM64 when it is wider
 * than 4 bytes and ENUM64 is allowed, else an ENUM of at most 4 bytes.
 * Returns the id of the new type or -errno.
 */
static int cu_ctx__add_enum(struct cu_ctx *ctx, Dwarf_Die *die, size_t idx)
{
	const char *name = dwarf_diename(die);
	Dwarf_Word size = 4;
	bool is_signed = false, enum64;
	Dwarf_Attribute attr;
	Dwarf_Die child, base;
	int id, ret;

	if (ctx->c_names && name && !(name = cu_ctx__cxx_type_name(ctx, idx, name)))
		return -ENOMEM;
	die_udata(die, DW_AT_byte_size, &size);
	/*
	 * The signedness comes from the underlying type, followed through
	 * typedefs and qualifiers, when the producer gives one.
	 */
	if (dwarf_attr(die, DW_AT_type, &attr) &&
	    die__formref(&attr, &base)) {
		Dwarf_Word enc = 0;
		int i;

		for (i = 0; i < DIE_MAX_DEPTH && dwarf_tag(&base) != DW_TAG_base_type; i++)
			if (!dwarf_attr(&base, DW_AT_type, &attr) ||
			    !die__formref(&attr, &base))
				break;
		if (die_udata(&base, DW_AT_encoding, &enc))
			is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	}
	enum64 = size > 4 && !ctx->env->opts->skip_enum64;
	if (!enum64 && size > 4)
		size = 4;
	id = cu_ctx__name_off(ctx, name);
	if (id < 0)
		return id;
	if (enum64)
		id = btf_builder__add_enum(ctx->btf, BTF_KIND_ENUM64, id, size,
					   is_signed);
	else
		id = btf_builder__add_enum(ctx->btf, BTF_KIND_ENUM, id, size,
					   false);
	if (id < 0)
		return id;

	ret = abbrev_cache__child(&ctx->abbrevs, die, &child);
	while (ret == 0) {
		if (abbrev_cache__tag(&ctx->abbrevs, &child) == DW_TAG_enumerator) {
			Dwarf_Attribute *cv;
			struct die_attrs da;
			const char *ename;
			int name_off;
			Dwarf_Sword sval = 0;
			Dwarf_Word uval = 0;
			int64_t v = 0;
			int err;

			if (die_attrs__get(ctx, &child, &da) ||
			    !(cv = die_attrs__at(&da, DA_CONST_VALUE))) {
				cu_err(ctx, &child, "enumerator without a value");
				return -EINVAL;
			}
			ename = cu_ctx__attr_name(ctx, &da);
			if (ctx->c_names && ename &&
			    !(ename = cu_ctx__cxx_ident(ctx, ename)))
				return -ENOMEM;
			/*
			 * pahole reads data1..8 and udata zero-extended and
			 * only sdata sign-extended; the builder then sets an
			 * ENUM's kind_flag when a value is negative, as libbpf
			 * does.  So signedness comes out as in pahole's BTF.
			 */
			if (dwarf_whatform(cv) == DW_FORM_sdata) {
				dwarf_formsdata(cv, &sval);
				v = sval;
			} else {
				dwarf_formudata(cv, &uval);
				v = (int64_t)uval;
			}
			/* One without a name is refused. */
			name_off = cu_ctx__name_off(ctx, ename);
			if (name_off < 0)
				err = name_off;
			else if (enum64)
				err = btf_builder__add_enum64_value(ctx->btf,
								    name_off, v);
			else if (ctx->env->opts->skip_enum64)
				/*
				 * This keeps, as pahole does, the low 32
				 * bits of every value, unsigned.
				 */
				err = btf_builder__add_enum_value(ctx->btf,
								  name_off,
								  (uint32_t)v);
			else
				err = btf_builder__add_enum_value(ctx->btf,
								  name_off, v);
			if (err) {
				cu_err(ctx, &child, "cannot encode enumerator");
				return err;
			}
		}
		ret = abbrev_cache__sibling(&ctx->abbrevs, &child, &child);
	}
	return ret < 0 ? -EINVAL : id;
}

/* Adds array DIE as one ARRAY per dimension; returns the outer's id. */
static int cu_ctx__add_array(struct cu_ctx *ctx, Dwarf_Die *die)
{
	uint32_t elem, dims = 0, i;
	Dwarf_Die child;
	int ret, id, err;

	err = cu_ctx__type_ref(ctx, die, &elem);
	if (err)
		return err;
	/*
	 * One ARRAY per dimension, the innermost (the last subrange) first,
	 * as pahole 1.32 does: `int x[2][3]` is an ARRAY of 2 ARRAYs of 3
	 * ints.  pahole up to 1.31 multiplied the counts into one ARRAY.
	 * `x[0]` has an upper bound of -1 or a count of 0, and a flexible
	 * `x[]` has neither, so both get a count of 0.  An array with no
	 * subrange at all is one dimension of 0.
	 */
	ret = abbrev_cache__child(&ctx->abbrevs, die, &child);
	while (ret == 0) {
		if (abbrev_cache__tag(&ctx->abbrevs, &child) == DW_TAG_subrange_type) {
			Dwarf_Word count = 0, upper;

			if (die_udata(&child, DW_AT_upper_bound, &upper))
				count = upper + 1;
			else
				die_udata(&child, DW_AT_count, &count);
			if (count > UINT32_MAX) {
				cu_err(ctx, &child, "array count too large for BTF");
				return -E2BIG;
			}
			if (grow_array((void **)&ctx->dims, &ctx->cap_dims,
				       dims + 1, sizeof(*ctx->dims), 8))
				return -ENOMEM;
			ctx->dims[dims++] = count;
		}
		ret = abbrev_cache__sibling(&ctx->abbrevs, &child, &child);
	}
	if (ret < 0)
		return -EINVAL;
	if (!dims)
		return btf_builder__add_array(ctx->btf, ctx->index_type_id,
					      elem, 0);
	for (i = dims; i-- > 0; elem = id) {
		id = btf_builder__add_array(ctx->btf, ctx->index_type_id, elem,
					    ctx->dims[i]);
		if (id < 0)
			return id;
	}
	return id;
}

/*
 * Adds subroutine type DIE as a FUNC_PROTO with its parameters; a
 * variadic `...` becomes a last parameter of type void, as in BTF.
 * Returns the id of the new type or -errno.
 */
static int cu_ctx__add_func_proto(struct cu_ctx *ctx, Dwarf_Die *die)
{
	uint32_t ret_type;
	Dwarf_Die child;
	int id, ret, err;

	err = cu_ctx__type_ref(ctx, die, &ret_type);
	if (err)
		return err;
	id = btf_builder__add_func_proto(ctx->btf, ret_type);
	if (id < 0)
		return id;
	ret = abbrev_cache__child(&ctx->abbrevs, die, &child);
	while (ret == 0) {
		int tag = abbrev_cache__tag(&ctx->abbrevs, &child);
		uint32_t type = 0;

		if (tag == DW_TAG_formal_parameter) {
			err = cu_ctx__type_ref(ctx, &child, &type);
			if (err)
				return err;
			err = btf_builder__add_func_param(ctx->btf, 0, type);
		} else if (tag == DW_TAG_unspecified_parameters) {
			err = btf_builder__add_func_param(ctx->btf, 0, 0);
		} else {
			err = 0;
		}
		if (err)
			return err;
		ret = abbrev_cache__sibling(&ctx->abbrevs, &child, &child);
	}
	return ret < 0 ? -EINVAL : id;
}

struct tag_chain {
	struct cu_ctx *ctx;
	uint32_t prev;		/* The id the next tag points at. */
};

/*
 * Adds a TYPE_TAG VALUE that points at the previous one in the chain, the
 * value by content (it may be built in a buffer that holds another one
 * next); one without a value is refused.
 */
static int add_type_tag(void *arg, const char *value)
{
	struct tag_chain *tc = arg;
	int off = name_cache__add(tc->ctx->names, value), id;

	id = off < 0 ? off : btf_builder__add_ref(tc->ctx->btf,
						  BTF_KIND_TYPE_TAG, off,
						  tc->prev);
	if (id < 0)
		return id;
	tc->prev = id;
	return 0;
}

/*
 * Adds the TYPE_TAGs of pointer DIE, then the PTR; returns the PTR's id.
 * `int __tag(a) __tag(b) *p` becomes PTR -> TYPE_TAG b -> TYPE_TAG a ->
 * int, the order the kernel expects (and pahole emits) for clang's
 * annotations.
 */
static int cu_ctx__add_tagged_ptr(struct cu_ctx *ctx, Dwarf_Die *die,
				  uint32_t pointee)
{
	struct tag_chain tc = { ctx, pointee };
	int err;

	err = die__for_each_annotation(die, false, cu_ctx__annots(ctx, die),
				       add_type_tag, &tc);
	if (err)
		return err;
	return btf_builder__add_ref(ctx->btf, BTF_KIND_PTR, 0, tc.prev);
}

/*
 * Adds a C++ pointer to member, as the Itanium C++ ABI lays it out: to a
 * data member, the member's offset, a "long int"; to a member function
 * (@nr_before 2), a 16-byte struct of the PTR to the function (@fn, its
 * FUNC_PROTO) and the this adjustment, named as gcc names them inside.
 * Returns the id of the last type added, or -errno.
 */
static int cu_ctx__add_ptr_to_member(struct cu_ctx *ctx, int nr_before,
				     uint32_t fn)
{
	int ptr, adj, id, err, off;

	if (!nr_before)
		return cu_ctx__add_int(ctx, "long int", 8, BTF_INT_SIGNED);
	ptr = btf_builder__add_ref(ctx->btf, BTF_KIND_PTR, 0, fn);
	if (ptr < 0)
		return ptr;
	adj = cu_ctx__add_int(ctx, "long int", 8, BTF_INT_SIGNED);
	if (adj < 0)
		return adj;
	id = btf_builder__add_composite(ctx->btf, BTF_KIND_STRUCT, 0, 16);
	if (id < 0)
		return id;
	off = cu_ctx__name_off(ctx, "__pfn");
	err = off < 0 ? off : btf_builder__add_field(ctx->btf, off, ptr, 0, 0);
	off = err ? err : cu_ctx__name_off(ctx, "__delta");
	err = off < 0 ? off : btf_builder__add_field(ctx->btf, off, adj, 64, 0);
	return err ? err : id;
}

/*
 * Adds the BTF type(s) of node IDX and returns the id of the last one,
 * which must be the id reserved in pass 1.  The node is held by index and
 * its DIE copied, because nodes may be added meanwhile.
 */
static int cu_ctx__emit_node(struct cu_ctx *ctx, size_t idx)
{
	Dwarf_Die copy = ctx->nodes[idx].die, *die = &copy;
	Dwarf_Attribute attr;
	int tag = dwarf_tag(die);
	const char *name;
	uint32_t ref;
	int err;

	switch (tag) {
	case DW_TAG_base_type:
		if (ctx->nodes[idx].nr_before)
			return cu_ctx__add_complex(ctx, die);
		return cu_ctx__add_base_type(ctx, die);
	case DW_TAG_unspecified_type:
		/* Only std::nullptr_t is a type (die_node_kind()). */
		return btf_builder__add_ref(ctx->btf, BTF_KIND_PTR, 0, 0);
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		return cu_ctx__add_composite(ctx, die, idx, tag);
	case DW_TAG_enumeration_type:
		return cu_ctx__add_enum(ctx, die, idx);
	case DW_TAG_array_type:
		return cu_ctx__add_array(ctx, die);
	case DW_TAG_subroutine_type:
		return cu_ctx__add_func_proto(ctx, die);
	default:
		break;
	}
	/*
	 * Types never have an abstract origin, so there is no need for
	 * dwarf_attr_integrate().
	 */
	err = cu_ctx__type_ref_attr(ctx, die, dwarf_attr(die, DW_AT_type, &attr),
				    &ref);
	if (err)
		return err;
	switch (tag) {
	case DW_TAG_pointer_type:
		if (ctx->nodes[idx].nr_before)
			return cu_ctx__add_tagged_ptr(ctx, die, ref);
		return btf_builder__add_ref(ctx->btf, BTF_KIND_PTR, 0, ref);
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		/* BTF has no reference: what it is in memory, a pointer. */
		return btf_builder__add_ref(ctx->btf, BTF_KIND_PTR, 0, ref);
	case DW_TAG_ptr_to_member_type:
		return cu_ctx__add_ptr_to_member(ctx, ctx->nodes[idx].nr_before,
						 ref);
	case DW_TAG_const_type:
		return btf_builder__add_ref(ctx->btf, BTF_KIND_CONST, 0, ref);
	case DW_TAG_volatile_type:
		return btf_builder__add_ref(ctx->btf, BTF_KIND_VOLATILE, 0, ref);
	case DW_TAG_restrict_type:
		return btf_builder__add_ref(ctx->btf, BTF_KIND_RESTRICT, 0, ref);
	case DW_TAG_typedef:
		if (!ctx->c_names)
			return cu_ctx__add_typedef(ctx, die_name(die), ref);
		name = cu_ctx__cxx_type_name(ctx, idx, die_name(die));
		return name ? cu_ctx__add_typedef(ctx, name, ref) : -ENOMEM;
	default:
		cu_err(ctx, die, "unexpected tag 0x%x", tag);
		return -EINVAL;
	}
}

/*
 * Picks the array index type if the CU has an array: the CU's own base
 * type named "int" when it has one (as pahole does), else a signed 32-bit
 * "int" node appended after the CU's types.  Returns 0 or -errno.
 */
static int cu_ctx__pick_index_type(struct cu_ctx *ctx)
{
	size_t i;

	if (!ctx->need_index_type)
		return 0;
	for (i = 0; i < ctx->nr_nodes; i++) {
		struct cu_node *n = &ctx->nodes[i];
		Dwarf_Word enc = 0, size = 0;

		if (n->kind != NODE_TYPE || dwarf_tag(&n->die) != DW_TAG_base_type)
			continue;
		if (strcmp(die_name(&n->die), "int"))
			continue;
		die_udata(&n->die, DW_AT_encoding, &enc);
		die_udata(&n->die, DW_AT_byte_size, &size);
		ctx->index_type_id = n->id;
		ctx->index_node = i;
		return 0;
	}
	ctx->index_type_id = ctx->next_id;
	ctx->index_node = ctx->nr_nodes;
	return cu_ctx__add_node(ctx, NULL, 0, NODE_INDEX_INT);
}

struct decl_tags {
	struct cu_ctx *ctx;
	uint32_t id;
	int component;
};

/* Adds a DECL_TAG VALUE on the type and component in ARG. */
static int add_decl_tag(void *arg, const char *value)
{
	struct decl_tags *dt = arg;
	int id = cu_ctx__add_decl_tag(dt->ctx, value, dt->id, dt->component);

	return id < 0 ? id : 0;
}

/*
 * Adds the DECL_TAGs that tell a Rust enum's variants apart (rust_enum.h:
 * RUST_ENUM_DISCR_TAG, RUST_ENUM_VALUE_TAG) for node @n, whose UNION of
 * variants was emitted just before it: the tag's place on the union, a
 * variant's value on its member, of the union or (past it) the struct.
 * Returns 0 or -errno.
 */
static int cu_ctx__add_variant_tags(struct cu_ctx *ctx, struct cu_node *n)
{
	uint32_t union_id = n->id - 1, i;
	struct rust_enum re;
	char buf[64];
	int id = 0, err = rust_enum__read(ctx, &n->die, &re);

	if (err)
		return err;
	if (re.has_discr) {
		snprintf(buf, sizeof(buf), RUST_ENUM_DISCR_TAG "%" PRIu64 ":%u",
			 re.discr_off, re.discr_size);
		id = cu_ctx__add_decl_tag(ctx, buf, union_id, -1);
	}
	for (i = 0; i < re.nr && id >= 0; i++) {
		if (!re.m[i].has_value)
			continue;
		if (re.discr_signed)
			snprintf(buf, sizeof(buf), RUST_ENUM_VALUE_TAG "%" PRId64,
				 (int64_t)re.m[i].value);
		else
			snprintf(buf, sizeof(buf), RUST_ENUM_VALUE_TAG "%" PRIu64,
				 re.m[i].value);
		/* The union is the struct's first member. */
		id = i < re.nr_union ?
		     cu_ctx__add_decl_tag(ctx, buf, union_id, i) :
		     cu_ctx__add_decl_tag(ctx, buf, n->id, 1 + i - re.nr_union);
	}
	rust_enum__free(&re);
	return id < 0 ? id : 0;
}

/*
 * Adds the DECL_TAGs of node N if it is a struct, union, class or
 * typedef: its own (component -1) and, for a defined composite, those of
 * each member (component = the member's index among those encoded); in
 * a C++ unit, before the annotations, the C++ name where BTF's differs.
 * Returns 0 or the error of reading the annotations (reported).
 */
static int cu_ctx__add_decl_tags(struct cu_ctx *ctx, struct cu_node *n)
{
	struct decl_tags dt = { ctx, n->id, -1 };
	unsigned int kinds = cu_ctx__annots(ctx, &n->die);
	size_t idx = n - ctx->nodes;
	bool decl;
	int tag, err = 0;
	uint32_t i;

	/* Members are children of the DIE: they may have no more. */
	if (!kinds && !ctx->c_names)
		return 0;
	tag = dwarf_tag(&n->die);
	if (tag != DW_TAG_structure_type && tag != DW_TAG_union_type &&
	    tag != DW_TAG_class_type && tag != DW_TAG_typedef)
		return 0;
	decl = die_flag(&n->die, DW_AT_declaration);
	/* The kernel allows a FWD no tag. */
	if (ctx->c_names && !decl)
		err = cu_ctx__cxx_name_tag(ctx, idx, -1, NULL);
	if (!err && kinds) {
		err = die__for_each_annotation(&n->die, true, kinds,
					       add_decl_tag, &dt);
		if (err)
			cu_ctx__annotation_err(ctx, &n->die, err);
	}
	if (err || tag == DW_TAG_typedef || decl)
		return err;
	dt.component = 0;
	for (i = 0; i < n->nr_members && !err; i++) {
		Dwarf_Die *m = &ctx->members[n->first_member + i];

		if (die_flag(m, DW_AT_external) || die_flag(m, DW_AT_declaration) ||
		    member__virtual_base(m, dwarf_tag(m)))
			continue;
		if (ctx->c_names)
			err = cu_ctx__cxx_name_tag(ctx, idx, dt.component, m);
		/*
		 * clang puts annotations in children, gcc in an attribute,
		 * so a clang member without children has none.
		 */
		if (!err && kinds && (dwarf_haschildren(m) || !ctx->clang)) {
			err = die__for_each_annotation(m, true, kinds,
						       add_decl_tag, &dt);
			if (err)
				cu_ctx__annotation_err(ctx, m, err);
		}
		dt.component++;
	}
	if (!err && n->nr_before == 1 && cu_ctx__rust_variants(ctx) &&
	    tag != DW_TAG_union_type)
		err = cu_ctx__add_variant_tags(ctx, n);
	return err;
}

struct tag_pool {
	struct cu_ctx *ctx;
	int component;
	uint32_t *nr;
};

/* Appends decl tag VALUE to the fragment's tag pool; counts it in *tp->nr. */
static int pool_decl_tag(void *arg, const char *value)
{
	struct tag_pool *tp = arg;
	struct cu_fragment *f = tp->ctx->frag;

	/* The functions and variables are decided after all CUs. */
	value = cu_ctx__keep_str(tp->ctx, value);
	if (!value || grow_array((void **)&f->tags, &tp->ctx->cap_frag_tags,
				 f->nr_tags + 1, sizeof(*f->tags), 256))
		return -ENOMEM;
	f->tags[f->nr_tags].value = value;
	f->tags[f->nr_tags].component = tp->component;
	f->nr_tags++;
	(*tp->nr)++;
	return 0;
}

int cu_ctx__collect_decl_tags(struct cu_ctx *ctx, Dwarf_Die *die,
			      int component, uint32_t *nr)
{
	struct tag_pool tp = { ctx, component, nr };

	unsigned int kinds = cu_ctx__annots(ctx, die);
	int err;

	if (ctx->env->opts->skip_decl_tags || !kinds)
		return 0;
	err = die__for_each_annotation(die, true, kinds, pool_decl_tag, &tp);
	if (err)
		cu_ctx__annotation_err(ctx, die, err);
	return err;
}

/* Adds the DECL_TAGs of the type nodes from FROM on; 0 or -errno. */
static int cu_ctx__emit_decl_tags(struct cu_ctx *ctx, size_t from)
{
	size_t i;
	int err;

	/*
	 * The walk is skipped when the CU's producer emits no annotations
	 * (gcc before 15 never emits these tags); each node is then checked
	 * by its unit (cu_ctx__add_decl_tags()).
	 */
	if (ctx->env->opts->skip_decl_tags ||
	    (!ctx->foreign_annots && !ctx->c_names))
		return 0;
	for (i = from; i < ctx->nr_nodes; i++) {
		struct cu_node *n = &ctx->nodes[i];

		/* A reused type's tags came with it. */
		if (n->kind != NODE_TYPE || n->reused)
			continue;
		err = cu_ctx__add_decl_tags(ctx, n);
		if (err) {
			cu_err(ctx, &n->die, "cannot encode decl tag: %s",
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * Pass 2 adds the nodes not in the BTF yet, and those that they bring from
 * other units on the way, and checks each id against the one reserved.
 * Returns 0, -EINVAL when an id drifted, or the builder's -errno.
 */
static int cu_ctx__emit_nodes(struct cu_ctx *ctx)
{
	int id;

	while (ctx->nr_emitted < ctx->nr_nodes) {
		size_t i = ctx->nr_emitted++;

		if (ctx->nodes[i].reused)
			continue;
		if (ctx->nodes[i].kind == NODE_INDEX_INT)
			id = cu_ctx__add_int(ctx, "int", 4, BTF_INT_SIGNED);
		else if (ctx->nodes[i].kind == NODE_TYPE)
			id = cu_ctx__emit_node(ctx, i);
		else
			continue;
		if (id < 0) {
			/* Refused, as libbpf would (bad name, size, offset...). */
			cu_err(ctx, &ctx->nodes[i].die, "cannot encode type: %s",
			       strerror(-id));
			return id;
		}
		if ((uint32_t)id != ctx->nodes[i].id) {
			cu_err(ctx, &ctx->nodes[i].die,
			       "type id drift (%d, expected %u)", id,
			       ctx->nodes[i].id);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Gives the CU's own nodes their ids, after pass 1 when the keys say
 * which ones an earlier CU of the batch built: those take its type's id
 * and are not emitted; the others get the next ids, in node order, and
 * are offered to the CUs after.  Returns 0 or -ENOMEM.
 */
int cu_ctx__assign_ids(struct cu_ctx *ctx)
{
	size_t i;
	int err;

	for (i = 0; i < ctx->nr_nodes; i++) {
		struct cu_node *n = &ctx->nodes[i];
		uint32_t id = 0;

		if (n->kind != NODE_TYPE && n->kind != NODE_INDEX_INT)
			continue;
		id = ctx->reuse_id[i];
		if (id) {
			n->id = id;
			n->reused = 1;
			continue;
		}
		ctx->next_id += n->nr_before;
		n->id = ctx->next_id++;
		if (ctx->reusable[i]) {
			err = type_reuse__add(ctx->reuse, ctx->keys[i], n->id);
			if (err)
				return err;
		}
	}
	if (ctx->need_index_type)
		ctx->index_type_id = ctx->nodes[ctx->index_node].id;
	/* Nodes met from now on (other units') get ids at once. */
	ctx->defer_ids = false;
	return 0;
}

/*
 * The type units a CU reaches by signature, each imported once
 * (cu_ctx__type_unit_refs()): their unit DIEs in the order met, and the
 * units met so far.
 */
struct tu_queue {
	Dwarf_Die *units;
	size_t nr, cap;
	struct u32_map seen;	/* (uintptr_t)Dwarf_CU -> 1 */
};

/*
 * Queues the type unit that signature attribute @attr of @die names, if
 * new.  Returns 0, -EINVAL (reported) when no type unit has it, or
 * -ENOMEM.
 */
static int tu_queue__add(struct cu_ctx *ctx, struct tu_queue *q,
			 Dwarf_Die *die, Dwarf_Attribute *attr)
{
	Dwarf_Die t, unit;
	uint32_t v;

	if (!dwarf_formref_die(attr, &t) || !dwarf_diecu(&t, &unit, NULL, NULL)) {
		cu_err(ctx, die, "no type unit found for its %s",
		       sig_attr_name(attr));
		return -EINVAL;
	}
	if (u32_map__find(&q->seen, (uintptr_t)unit.cu, &v))
		return 0;
	if (u32_map__add(&q->seen, (uintptr_t)unit.cu, 1) ||
	    grow_array((void **)&q->units, &q->cap, q->nr + 1,
		       sizeof(*q->units), 16))
		return -ENOMEM;
	q->units[q->nr++] = unit;
	return 0;
}

/*
 * Reads every DIE below @unit in DIE order: the type units their
 * signatures name are queued, and with @import each type DIE defined
 * there (not a declaration, not a stub) that is no node yet becomes one
 * of another unit.  Each step must go forward, so that a DW_AT_sibling
 * cannot loop.  Returns 0 or -errno (reported).
 */
static int cu_ctx__scan_unit(struct cu_ctx *ctx, struct tu_queue *q,
			     Dwarf_Die *unit, bool import)
{
	static const unsigned int sig_attrs[] = {
		DW_AT_type, DW_AT_containing_type, DW_AT_signature,
	};
	Dwarf_Die stack[DIE_MAX_DEPTH];
	Dwarf_Attribute attr;
	Dwarf_Off last = 0;
	int depth = 0, err, tag;
	enum node_kind kind;
	bool is_type;
	size_t i, idx;

	if (dwarf_child(unit, &stack[0]))
		return 0;
	for (;;) {
		Dwarf_Die *d = &stack[depth];

		if (dwarf_dieoffset(d) <= last) {
			cu_err(ctx, d, "a DW_AT_sibling leads back to DIEs read already");
			return -EINVAL;
		}
		last = dwarf_dieoffset(d);
		for (i = 0; i < sizeof(sig_attrs) / sizeof(*sig_attrs); i++) {
			if (!dwarf_attr(d, sig_attrs[i], &attr) ||
			    dwarf_whatform(&attr) != DW_FORM_ref_sig8)
				continue;
			err = tu_queue__add(ctx, q, d, &attr);
			if (err)
				return err;
		}
		if (import) {
			tag = dwarf_tag(d);
			kind = die_node_kind(ctx, d, tag, &is_type);
			if (is_type && kind == NODE_TYPE &&
			    !die_flag(d, DW_AT_declaration) &&
			    !cu_ctx__find_node(ctx, cu_ctx__die_key(ctx, d))) {
				err = cu_ctx__add_foreign(ctx, d, d, &idx);
				if (err)
					return err;
			}
		}
		if (dwarf_haschildren(d) && depth + 1 < DIE_MAX_DEPTH &&
		    !dwarf_child(d, &stack[depth + 1])) {
			depth++;
			continue;
		}
		while ((err = dwarf_siblingof(&stack[depth], &stack[depth]))) {
			if (err < 0) {
				int e = dwarf_errno();

				/* libdw may fail without saying why. */
				cu_err(ctx, &stack[depth], "cannot read siblings: %s",
				       e ? dwarf_errmsg(e) : "invalid DWARF");
				return -EINVAL;
			}
			if (!depth--)
				return 0;
		}
	}
}

int cu_ctx__type_unit_refs(struct cu_ctx *ctx)
{
	struct tu_queue q = { 0 };
	size_t i;
	int err;

	if (!ctx->env->type_sigs)
		return 0;
	err = cu_ctx__scan_unit(ctx, &q, ctx->cudie, false);
	/* Imports may queue more units: q.nr grows as the loop goes. */
	for (i = 0; !err && i < q.nr; i++)
		err = cu_ctx__scan_unit(ctx, &q, &q.units[i], true);
	free(q.units);
	u32_map__free(&q.seen);
	return err;
}

int cu_ctx__collect_types(struct cu_ctx *ctx)
{
	int err;

	ctx->defer_ids = ctx->reuse != NULL;
	err = ctx->reuse ? cu_ctx__keys_begin(ctx) : 0;
	if (!err)
		err = cu_ctx__collect(ctx, ctx->cudie, 0, SIZE_MAX);
	if (!err)
		err = cu_ctx__pick_index_type(ctx);
	if (!err)
		err = cu_ctx__index_nodes(ctx);
	ctx->nr_own_nodes = ctx->nr_nodes;
	return err;
}

int cu_ctx__emit_types(struct cu_ctx *ctx)
{
	size_t from = ctx->nr_emitted;
	int err = cu_ctx__emit_nodes(ctx);

	if (!err)
		err = cu_ctx__emit_decl_tags(ctx, from);
	/* The types met from now on come after the decl tags. */
	ctx->next_id = btf_builder__type_cnt(ctx->btf);
	return err;
}
