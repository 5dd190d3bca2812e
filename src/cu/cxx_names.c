// SPDX-License-Identifier: GPL-2.0-only
/*
 * C++ names as C identifiers.  BTF names must be C identifiers: the
 * kernel refuses any other, and `bpftool btf dump format c` prints them
 * into a header as they are.  In a C++ unit, a struct, class, union, enum
 * or typedef is named by its scope-qualified name, the names of the
 * namespaces and classes around it joined by "__" (an anonymous namespace
 * is "_anon"), and in every name each character outside [A-Za-z0-9_]
 * becomes '_', except '*' and '&', which become 'P' and 'R' so that
 * `Box<int *>` and `Box<int &>` stay apart: `ns::Box<int *>` is
 * ns__Box_int_P_.  A name longer than CXX_NAME_MAX keeps its start and
 * ends in "__" and a hash of all of it.  Where the BTF name is not the
 * DWARF one, a DECL_TAG "cxx:" + the C++ name (`cxx:ns::Box<int *>`)
 * keeps it, on the type or on its member.  docs/design.md has the rule.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/cu_internal.h"
#include "lib/hash.h"

/*
 * The kernel takes identifiers of up to KSYM_NAME_LEN (512) characters,
 * the terminating NUL included, since Linux 6.1.
 */
#define CXX_NAME_MAX	511
/* "__" and 16 hex digits end a name cut to CXX_NAME_MAX. */
#define CXX_HASH_LEN	18
#define CXX_TAG_PREFIX	"cxx:"
#define RUST_TAG_PREFIX	"rust:"
#define CXX_ANON_C	"_anon"
#define CXX_ANON_CXX	"(anonymous namespace)"

/* The character that @c becomes in a C identifier. */
static char c_ident_char(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_')
		return c;
	if (c == '*')
		return 'P';
	if (c == '&')
		return 'R';
	return '_';
}

/* Is @s a C identifier (or empty) that CXX_NAME_MAX does not cut? */
static bool is_c_ident(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (c_ident_char(s[i]) != s[i] || i >= CXX_NAME_MAX)
			return false;
	return true;
}

/* Makes room for @len more bytes (and a NUL) after @at in the buffer. */
static int cxx_names__reserve(struct cxx_names *cn, size_t at, size_t len)
{
	return grow_array((void **)&cn->buf, &cn->cap_buf, at + len + 1, 1, 256);
}

/*
 * Appends @s at *@at, as a C identifier's characters when @c; 0 or
 * -ENOMEM.
 */
static int cxx_names__append(struct cxx_names *cn, size_t *at, const char *s,
			     bool c)
{
	size_t len = strlen(s), i;

	if (cxx_names__reserve(cn, *at, len))
		return -ENOMEM;
	for (i = 0; i < len; i++)
		cn->buf[*at + i] = c ? c_ident_char(s[i]) : s[i];
	*at += len;
	cn->buf[*at] = '\0';
	return 0;
}

/*
 * Builds in cn->buf, after @prefix, the name @name in @scope: as a C
 * identifier when @c, else as C++ spells it.  A C name longer than
 * CXX_NAME_MAX is cut and ends in a hash of all of it.  Returns the buffer,
 * or NULL without memory.
 */
static const char *cxx_names__build(struct cxx_names *cn, uint32_t scope,
				    const char *prefix, const char *name,
				    bool c)
{
	const char *parts[DIE_MAX_DEPTH];
	size_t nr = 0, at = 0;
	int err;

	for (; scope && nr < DIE_MAX_DEPTH; scope = cn->scopes[scope - 1].parent)
		parts[nr++] = cn->scopes[scope - 1].name;
	err = cxx_names__append(cn, &at, prefix, false);
	while (!err && nr--) {
		if (parts[nr])
			err = cxx_names__append(cn, &at, parts[nr], c);
		else
			err = cxx_names__append(cn, &at, c ? CXX_ANON_C :
						CXX_ANON_CXX, false);
		if (!err)
			err = cxx_names__append(cn, &at, c ? "__" : "::", false);
	}
	if (!err)
		err = cxx_names__append(cn, &at, name, c);
	if (err)
		return NULL;
	if (c && at > CXX_NAME_MAX)
		snprintf(cn->buf + CXX_NAME_MAX - CXX_HASH_LEN, CXX_HASH_LEN + 1,
			 "__%016" PRIx64, hash_str(cn->buf));
	return cn->buf;
}

int cu_ctx__cxx_enter(struct cu_ctx *ctx, Dwarf_Die *die, uint32_t *saved)
{
	struct cxx_names *cn = &ctx->cxx_names;
	int tag = dwarf_tag(die);
	const char *name;

	*saved = cn->cur;
	/* A type local to a function is named as in C, by itself. */
	if (tag == DW_TAG_subprogram) {
		cn->cur = 0;
		return 0;
	}
	/* Lexical blocks and function types are no scopes. */
	if (tag != DW_TAG_namespace && tag != DW_TAG_structure_type &&
	    tag != DW_TAG_class_type && tag != DW_TAG_union_type)
		return 0;
	name = dwarf_diename(die);
	/* Nothing is named in an anonymous struct. */
	if (tag != DW_TAG_namespace && (!name || !*name))
		return 0;
	if (cn->nr_scopes >= UINT32_MAX - 1)
		return -E2BIG;
	if (grow_array((void **)&cn->scopes, &cn->cap_scopes, cn->nr_scopes + 1,
		       sizeof(*cn->scopes), 64))
		return -ENOMEM;
	cn->scopes[cn->nr_scopes].name = name && *name ? name : NULL;
	cn->scopes[cn->nr_scopes].parent = cn->cur;
	cn->cur = ++cn->nr_scopes;
	return 0;
}

int cu_ctx__cxx_node_scope(struct cu_ctx *ctx, size_t idx)
{
	struct cxx_names *cn = &ctx->cxx_names;

	if (grow_array((void **)&cn->node_scope, &cn->cap_node_scope, idx + 1,
		       sizeof(*cn->node_scope), 256))
		return -ENOMEM;
	cn->node_scope[idx] = cn->cur;
	return 0;
}

/* The scope node @idx was met in. */
static uint32_t cxx_names__node_scope(const struct cxx_names *cn, size_t idx)
{
	return idx < cn->cap_node_scope ? cn->node_scope[idx] : 0;
}

const char *cu_ctx__cxx_type_name(struct cu_ctx *ctx, size_t idx,
				  const char *name)
{
	uint32_t scope = cxx_names__node_scope(&ctx->cxx_names, idx);

	/* Without a name, a type has no scope either. */
	if (!name || !*name || (!scope && is_c_ident(name)))
		return name;
	return cxx_names__build(&ctx->cxx_names, scope, "", name, true);
}

const char *cu_ctx__cxx_ident(struct cu_ctx *ctx, const char *name)
{
	if (!name || is_c_ident(name))
		return name;
	return cxx_names__build(&ctx->cxx_names, 0, "", name, true);
}

const char *cu_ctx__cxx_keep_ident(struct cu_ctx *ctx, const char *name)
{
	const char *c = cu_ctx__cxx_ident(ctx, name);

	return c == name || !c ? c : str_arena__dup(&ctx->frag->strs, c);
}

int cu_ctx__cxx_name_tag(struct cu_ctx *ctx, size_t idx, int component,
			 Dwarf_Die *m)
{
	struct cxx_names *cn = &ctx->cxx_names;
	const char *name = dwarf_diename(m ? m : &ctx->nodes[idx].die);
	const char *prefix = ctx->rust ? RUST_TAG_PREFIX : CXX_TAG_PREFIX;
	const char *c, *value;
	int id;

	if (!name || !*name)
		return 0;
	if (m) {
		c = cu_ctx__cxx_ident(ctx, name);
		value = c == name || !c ? c :
			cxx_names__build(cn, 0, prefix, name, false);
	} else {
		c = cu_ctx__cxx_type_name(ctx, idx, name);
		value = c == name || !c ? c :
			cxx_names__build(cn, cxx_names__node_scope(cn, idx),
					 prefix, name, false);
	}
	if (!value)
		return -ENOMEM;
	if (value == name)
		return 0;
	id = cu_ctx__add_decl_tag(ctx, value, ctx->nodes[idx].id, component);
	return id < 0 ? id : 0;
}

int cu_ctx__cxx_subprog_scope(struct cu_ctx *ctx, size_t idx)
{
	struct cxx_names *cn = &ctx->cxx_names;

	if (grow_array((void **)&cn->subprog_scope, &cn->cap_subprog_scope,
		       idx + 1, sizeof(*cn->subprog_scope), 256))
		return -ENOMEM;
	cn->subprog_scope[idx] = cn->cur;
	return 0;
}

/* The scope of subprogram DIE @die, or -1 if it is none collected. */
static int64_t cxx_names__subprog_scope(struct cu_ctx *ctx, Dwarf_Die *die)
{
	Dwarf_Off off = dwarf_dieoffset(die);
	size_t lo = 0, hi = ctx->nr_subprogs;

	if (die->cu != ctx->cudie->cu || !ctx->cxx_names.subprog_scope)
		return -1;
	/* The collect walk met them in DIE order. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		Dwarf_Off m = dwarf_dieoffset(&ctx->subprogs[mid]);

		if (m == off)
			return ctx->cxx_names.subprog_scope[mid];
		if (m < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Appends "<length><name>", the Itanium ABI's source name; 0 or -errno. */
static int cxx_names__source_name(struct cxx_names *cn, size_t *at,
				  const char *name)
{
	char len[24];

	if (!is_c_ident(name) || !*name)
		return -EINVAL;
	snprintf(len, sizeof(len), "%zu", strlen(name));
	if (cxx_names__append(cn, at, len, false))
		return -ENOMEM;
	return cxx_names__append(cn, at, name, false);
}

/*
 * The one of the @nr keys from @keys on that has a symbol at @die's
 * DW_AT_low_pc, or NULL: none, more than one, or no address (a function
 * only inlined).
 */
static const struct elf_func_key *cxx_names__key_at(struct cu_ctx *ctx,
						    Dwarf_Die *die,
						    const struct elf_func_key *keys,
						    size_t nr)
{
	const struct elf_symtab *st = ctx->env->syms;
	const struct elf_func_key *found = NULL;
	Dwarf_Addr low;
	size_t i;
	uint32_t j;

	if (!keys || dwarf_lowpc(die, &low) || !low)
		return NULL;
	for (i = 0; i < nr; i++)
		for (j = 0; j < keys[i].nr; j++) {
			if (elf_symtab__key_sym(st, &keys[i], j)->addr != low)
				continue;
			if (found && found != &keys[i])
				return NULL;
			found = &keys[i];
		}
	return found;
}

const struct elf_func_key *cu_ctx__cxx_internal_key(struct cu_ctx *ctx,
						    Dwarf_Die *die)
{
	struct cxx_names *cn = &ctx->cxx_names;
	const char *parts[DIE_MAX_DEPTH], *name;
	const struct elf_func_key *key;
	bool anon = false, nested;
	Dwarf_Die decl = *die, next;
	size_t nr = 0, at = 0, nr_keys;
	int64_t scope;
	int hops, err;

	/*
	 * The name and scope are the declaration's: an out-of-line copy
	 * refers to its abstract instance, which refers to the declaration
	 * in its namespace (DW_AT_specification).
	 */
	for (hops = 0; hops < 4; hops++) {
		Dwarf_Attribute a;

		if ((dwarf_attr(&decl, DW_AT_abstract_origin, &a) ||
		     dwarf_attr(&decl, DW_AT_specification, &a)) &&
		    die__formref(&a, &next))
			decl = next;
		else
			break;
	}
	name = dwarf_diename(&decl);
	scope = cxx_names__subprog_scope(ctx, &decl);
	/* An external function without a mangled name is extern "C". */
	if (!name || scope < 0 || die_flag(&decl, DW_AT_external))
		return NULL;
	for (; scope && nr < DIE_MAX_DEPTH; scope = cn->scopes[scope - 1].parent) {
		parts[nr] = cn->scopes[scope - 1].name;
		anon |= !parts[nr++];
	}
	nested = nr;
	/*
	 * _ZL6hidden at the top, _ZN2nsL6hiddenE in a namespace: "L" marks
	 * internal linkage, which an anonymous namespace (_GLOBAL__N_1 in
	 * g++'s mangling) already gives.
	 */
	err = cxx_names__append(cn, &at, nested ? "_ZN" : "_Z", false);
	while (!err && nr--)
		err = parts[nr] ? cxx_names__source_name(cn, &at, parts[nr]) :
		      cxx_names__append(cn, &at, "12_GLOBAL__N_1", false);
	if (!err && !anon)
		err = cxx_names__append(cn, &at, "L", false);
	if (!err)
		err = cxx_names__source_name(cn, &at, name);
	if (!err && nested)
		err = cxx_names__append(cn, &at, "E", false);
	if (err)
		return NULL;
	key = elf_symtab__find_key_prefix(ctx->env->syms, cn->buf, &nr_keys);
	/*
	 * Overloads share the prefix, and their parameters are mangled in
	 * the rest: the one of them whose symbol is where @die's code is.
	 */
	return nr_keys == 1 ? key : cxx_names__key_at(ctx, die, key, nr_keys);
}

void cu_ctx__cxx_free(struct cu_ctx *ctx)
{
	free(ctx->cxx_names.scopes);
	free(ctx->cxx_names.node_scope);
	free(ctx->cxx_names.subprog_scope);
	free(ctx->cxx_names.buf);
}

const char *cxx_int_name(const char *name, uint64_t bytes, int encoding,
			 bool rust)
{
	static const char *const cxx_ints[] = {
		"bool", "wchar_t", "char8_t", "char16_t", "char32_t",
	};
	/* Rust's char is a 4-byte code point, not C's char. */
	static const char *const rust_ints[] = {
		"bool", "char", "u8", "u16", "u32", "u64", "u128", "usize",
		"i8", "i16", "i32", "i64", "i128", "isize",
	};
	const char *const *renamed = rust ? rust_ints : cxx_ints;
	size_t nr = rust ? sizeof(rust_ints) / sizeof(rust_ints[0]) :
		    sizeof(cxx_ints) / sizeof(cxx_ints[0]);
	bool is_signed = encoding & BTF_INT_SIGNED;
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(name, renamed[i]))
			break;
	if (i == nr)
		return name;
	/*
	 * bool stays a BOOL INT, named as an unsigned char, because C++
	 * allows a bit-field of it wider than C's _Bool's one bit
	 * (libstdc++'s `bool _M_is_balanced : 8`).  gcc's spellings, which
	 * C's BTF holds most.  Rust's char is a 4-byte code point.
	 */
	switch (bytes) {
	case 1:
		return is_signed ? "signed char" : "unsigned char";
	case 2:
		return is_signed ? "short int" : "short unsigned int";
	case 4:
		return is_signed ? "int" : "unsigned int";
	case 8:
		return is_signed ? "long int" : "long unsigned int";
	case 16:
		return is_signed ? "__int128" : "__int128 unsigned";
	default:
		return name;
	}
}

const char *c_float_name(const char *name, uint64_t bytes)
{
	if (strcmp(name, "f16") && strcmp(name, "f32") && strcmp(name, "f64") &&
	    strcmp(name, "f128"))
		return name;
	switch (bytes) {
	case 2:
		return "_Float16";
	case 4:
		return "float";
	case 8:
		return "double";
	default:
		return "long double";
	}
}
