// SPDX-License-Identifier: GPL-2.0-only
/*
 * Function candidates of one CU, with the facts the later decision needs:
 * where each parameter lives, whether the compiler changed the signature.
 *
 * The rules follow upstream pahole's defaults (see docs/functions.md):
 * x86-64, for one, passes the first six integer arguments in rdi, rsi, rdx,
 * rcx, r8, r9; a parameter found elsewhere means the compiler changed the
 * calling convention, and BTF would then describe the function wrongly.
 * Each machine has its registers (struct call_abi); on one pahole knows
 * none for, nothing is checked.
 *
 * With true_signature, a clang function marked DW_CC_nocall (its arguments
 * changed by the optimizer) is described as it is really called: what is
 * not passed is dropped, and a struct of which one member alone is passed
 * in a register becomes that member ("p__b").
 */
#include <dwarf.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/call_abi.h"
#include "cu/cu_internal.h"
#include "cu/param_loc.h"

struct fn_param {
	Dwarf_Off off;
	Dwarf_Off origin_off;	/* 0: no DW_AT_abstract_origin */
	const char *name;
	uint32_t type_id;
	uint64_t byte_size;
	int idx;
	struct param_loc loc;
	bool has_loc;
	bool has_const;
	bool is_struct;
	bool packed;		/* a named struct by value that looks packed */
	/* the only member in a register, when the struct is in pieces */
	const char *member;
	uint32_t member_type;
	bool member_is_struct;
	/* fn_set__analyze() sets the fields below. */
	bool optimized;		/* not passed */
	bool unexpected;	/* not where the ABI puts it */
	uint8_t opt_how;	/* enum func_opt_how, when optimized */
	int want_reg;		/* when unexpected: where the ABI puts it */
	bool use_member;	/* passed as member, not as the whole struct */
};

struct fn_info {
	Dwarf_Die die;
	const struct elf_func_key *key;
	size_t first_param, nr_params;
	uint32_t ret_type;
	bool varargs;
	bool reordered;
	bool nocall;
	/* reordered: the first parameter not at its origin's position */
	int reordered_param, reordered_from;
};

struct fn_set {
	struct fn_info *fns;
	size_t nr_fns, cap_fns;
	struct fn_param *params;
	size_t nr_params, cap_params;
	struct fn_param **by_off;	/* params sorted by DIE offset */
	struct call_abi abi;
	/* The CU's name is read once, since every candidate names it. */
	const char *cu_name;
};

/*
 * Follows DIE's reference attribute NAME to *OUT, a type's through a type
 * unit's stub (die__type_ref()); false if that fails.
 */
static bool die_ref(Dwarf_Die *die, int name, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	if (!dwarf_attr(die, name, &attr))
		return false;
	return name == DW_AT_type ? die__type_ref(&attr, out) != NULL :
				    die__formref(&attr, out) != NULL;
}

/* Is T a struct (passed by value), seen through typedefs and const only? */
static bool type_is_struct(Dwarf_Die t)
{
	int i;

	for (i = 0; i < DIE_MAX_DEPTH; i++) {
		int tag = dwarf_tag(&t);

		if (tag == DW_TAG_structure_type)
			return true;
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type)
			return false;
		if (!die_ref(&t, DW_AT_type, &t))
			return false;
	}
	return false;
}

/*
 * Is T a named struct that looks packed (cu_packed.c)?  T is the
 * parameter's own type, because pahole follows no typedef here.  Returns
 * 1 or 0, or -ENOMEM.
 */
static int type_is_packed(Dwarf_Die *t, const struct call_abi *abi,
			  const struct cu_ctx *ctx)
{
	int tag = dwarf_tag(t);

	if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type &&
	     tag != DW_TAG_interface_type) || !dwarf_hasattr(t, DW_AT_name))
		return 0;
	return die__struct_is_packed(t, abi->addr_size, ctx->little_endian,
				     ctx->rust);
}

/*
 * The member a struct parameter in pieces is reduced to: the one piece
 * starting at a member's offset, in one register only.  Only a parameter
 * with its own name and type (no abstract origin) is looked at.  The
 * piece's byte offset comes from the lowest bit of p->loc.first, or of
 * p->loc.second past one register's size.  Returns 0, with p->member
 * left NULL if no member starts there, or a negative errno.
 */
static int fn_param__find_member(struct fn_param *p, struct cu_ctx *ctx,
				 Dwarf_Die *die, const struct call_abi *abi)
{
	unsigned long first = p->loc.first, second = p->loc.second;
	Dwarf_Attribute attr;
	Dwarf_Die t, m;
	Dwarf_Word off, sz;
	int i, ret;

	if ((!first) == (!second) ||
	    __builtin_popcountl(first) > 1 || __builtin_popcountl(second) > 1)
		return 0;
	off = first ? (Dwarf_Word)__builtin_ctzl(first) :
		      abi->addr_size + (Dwarf_Word)__builtin_ctzl(second);
	if (!dwarf_hasattr(die, DW_AT_name) || !die_ref(die, DW_AT_type, &t))
		return 0;
	for (i = 0; i < DIE_MAX_DEPTH && !(die_udata(&t, DW_AT_byte_size, &sz) && sz); i++)
		if (!die_ref(&t, DW_AT_type, &t))
			return 0;
	if (dwarf_tag(&t) != DW_TAG_structure_type)
		return 0;
	for (ret = dwarf_child(&t, &m); ret == 0; ret = dwarf_siblingof(&m, &m)) {
		Dwarf_Word moff, bits;
		const char *name;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		if (die_udata(&m, DW_AT_data_bit_offset, &bits)) {
			if (bits != off * 8)
				continue;
		} else if (!dwarf_attr(&m, DW_AT_data_member_location, &attr) ||
			   member_byte_offset(&attr, &moff) || moff != off) {
			continue;
		}
		if (!dwarf_attr(&m, DW_AT_name, &attr) ||
		    !(name = dwarf_formstring(&attr)) || !dwarf_hasattr(&m, DW_AT_type))
			return 0;
		p->member = cu_ctx__keep_name(ctx, &attr, name);
		if (!p->member)
			return -ENOMEM;
		p->member_is_struct = die_type(&m, &t) && type_is_struct(t);
		return cu_ctx__type_ref(ctx, &m, &p->member_type);
	}
	return 0;
}

/*
 * Appends parameter DIE, the IDX-th of its function, to fs->params with
 * its name, type, size and where it arrives.  Returns 0 or a negative
 * errno.
 */
static int fn_set__add_param(struct fn_set *fs, struct cu_ctx *ctx,
			     Dwarf_Die *die, int idx)
{
	Dwarf_Attribute attr;
	struct fn_param *p;
	Dwarf_Die origin, t;
	int err;

	if (grow_array((void **)&fs->params, &fs->cap_params, fs->nr_params + 1,
		       sizeof(*p), 256))
		return -ENOMEM;
	p = &fs->params[fs->nr_params];
	memset(p, 0, sizeof(*p));
	p->off = dwarf_dieoffset(die);
	p->idx = idx;
	p->loc.reg = LOC_UNKNOWN;
	p->want_reg = -1;
	if (die_ref(die, DW_AT_abstract_origin, &origin))
		p->origin_off = dwarf_dieoffset(&origin);
	if (dwarf_attr_integrate(die, DW_AT_name, &attr) &&
	    (p->name = dwarf_formstring(&attr)) &&
	    !(p->name = cu_ctx__keep_name(ctx, &attr, p->name)))
		return -ENOMEM;
	if (ctx->c_names && p->name &&
	    !(p->name = cu_ctx__cxx_keep_ident(ctx, p->name)))
		return -ENOMEM;
	err = cu_ctx__type_ref(ctx, die, &p->type_id);
	if (err)
		return err;
	if (die_type(die, &t)) {
		p->byte_size = die__type_size(&t, ctx->env->ef->ptr_size);
		p->is_struct = type_is_struct(t);
		/*
		 * Packing only matters for parameters after the argument
		 * registers (fn_params__uncertain()).
		 */
		if (idx >= fs->abi.nr_regs) {
			int packed = type_is_packed(&t, &fs->abi, ctx);

			if (packed < 0)
				return packed;
			p->packed = packed;
		}
	}
	p->has_const = dwarf_hasattr(die, DW_AT_const_value);
	if (dwarf_attr(die, DW_AT_location, &attr)) {
		p->has_loc = true;
		param_loc__decode(&p->loc, &attr, p->byte_size, &fs->abi);
		if (ctx->env->opts->true_signature) {
			err = fn_param__find_member(p, ctx, die, &fs->abi);
			if (err)
				return err;
		}
	}
	fs->nr_params++;
	return 0;
}

/*
 * The ELF function key of @die's function, or NULL: that of its DW_AT_name,
 * or in a C++ unit (and a Rust unit with C names) of its
 * DW_AT_linkage_name (the mangled name, which is the symbol's; functions
 * declared extern "C", or Rust's #[no_mangle], have none).  Both are taken
 * from the specification or abstract origin when the DIE has none.  g++
 * gives a function of internal linkage no mangled name: its key is the
 * one its scope and name mangle to (cu_ctx__cxx_internal_key()).
 */
static const struct elf_func_key *fn_set__elf_key(struct cu_ctx *ctx,
						  Dwarf_Die *die)
{
	const struct elf_func_key *key;
	Dwarf_Attribute attr;
	const char *name;

	/*
	 * Rust's symbols are mangled too (v0 or legacy); with pahole's
	 * encoding a Rust unit goes by DW_AT_name, as pahole does.
	 */
	if ((ctx->cxx || (ctx->rust && ctx->c_names)) &&
	    dwarf_attr_integrate(die, DW_AT_linkage_name, &attr)) {
		name = dwarf_formstring(&attr);
		return name ? elf_symtab__find_key(ctx->env->syms, name) : NULL;
	}
	name = dwarf_attr_integrate(die, DW_AT_name, &attr) ?
	       dwarf_formstring(&attr) : NULL;
	key = name ? elf_symtab__find_key(ctx->env->syms, name) : NULL;
	if (!key && ctx->cxx && name)
		key = cu_ctx__cxx_internal_key(ctx, die);
	return key;
}

/*
 * Adds subprogram DIE and its parameters to FS, unless it is a declaration
 * or its name is no ELF function key.  Returns 0 or a negative errno.
 */
static int fn_set__add_fn(struct fn_set *fs, struct cu_ctx *ctx, Dwarf_Die *die)
{
	const struct elf_func_key *key;
	struct fn_info *fn;
	Dwarf_Die child, origin;
	Dwarf_Word cc;
	int ret, idx = 0, err;

	/*
	 * Declarations (every called extern function has one) and functions
	 * without an ELF symbol can never be candidates, nor abstract
	 * origins of one: leave them before reading their parameters.
	 */
	if (die_flag(die, DW_AT_declaration) ||
	    !(key = fn_set__elf_key(ctx, die)))
		return 0;
	if (grow_array((void **)&fs->fns, &fs->cap_fns, fs->nr_fns + 1,
		       sizeof(*fn), 256))
		return -ENOMEM;
	fn = &fs->fns[fs->nr_fns];
	memset(fn, 0, sizeof(*fn));
	fn->die = *die;
	fn->key = key;
	fn->first_param = fs->nr_params;

	/*
	 * The return type is the DIE's own, else its abstract origin's; that
	 * of a DW_AT_specification is not used, as in pahole, except in C++,
	 * where a member function defined outside its class has it only
	 * there (cu_ctx__type_ref() follows both).
	 */
	if (ctx->cxx) {
		err = cu_ctx__type_ref(ctx, die, &fn->ret_type);
	} else if (dwarf_hasattr(die, DW_AT_type)) {
		err = cu_ctx__type_ref(ctx, die, &fn->ret_type);
	} else if (die_ref(die, DW_AT_abstract_origin, &origin)) {
		err = cu_ctx__type_ref(ctx, &origin, &fn->ret_type);
	} else {
		err = 0;
	}
	if (err)
		return err;

	/*
	 * DW_CC_nocall: the compiler changed how it is called.  A concrete
	 * instance says so on its abstract origin; an abstract (inline) one
	 * has the source signature.
	 */
	if (!die_udata(die, DW_AT_inline, &cc) || cc == DW_INL_not_inlined) {
		Dwarf_Die *from = die;

		if (dwarf_hasattr(die, DW_AT_abstract_origin))
			from = die_ref(die, DW_AT_abstract_origin, &origin) ?
			       &origin : NULL;
		fn->nocall = from &&
			     die_udata(from, DW_AT_calling_convention, &cc) &&
			     cc == DW_CC_nocall;
	}

	ret = abbrev_cache__child(&ctx->abbrevs, die, &child);
	while (ret == 0) {
		int tag = abbrev_cache__tag(&ctx->abbrevs, &child);

		if (tag == DW_TAG_formal_parameter) {
			err = fn_set__add_param(fs, ctx, &child, idx++);
			if (err)
				return err;
		} else if (tag == DW_TAG_unspecified_parameters) {
			fn->varargs = true;
		}
		ret = abbrev_cache__sibling(&ctx->abbrevs, &child, &child);
	}
	if (ret < 0) {
		cu_err(ctx, die, "cannot read parameters");
		return -EINVAL;
	}
	fn->nr_params = fs->nr_params - fn->first_param;
	fs->nr_fns++;
	return 0;
}

/* Orders pointers to parameters by DIE offset. */
static int param_ptr__cmp(const void *a, const void *b)
{
	const struct fn_param *x = *(struct fn_param *const *)a;
	const struct fn_param *y = *(struct fn_param *const *)b;

	return x->off < y->off ? -1 : x->off > y->off;
}

/* Returns the parameter whose DIE is at OFF, or NULL (fs->by_off sorted). */
static struct fn_param *fn_set__find_param(struct fn_set *fs, Dwarf_Off off)
{
	size_t lo = 0, hi = fs->nr_params;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (fs->by_off[mid]->off == off)
			return fs->by_off[mid];
		if (fs->by_off[mid]->off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * An abstract (inline) function learns where its parameters live from the
 * out-of-line instances of this CU; a concrete instance whose parameters
 * are not at the origin's positions had its signature changed.  Returns 0
 * or -ENOMEM.
 */
static int fn_set__link_origins(struct fn_set *fs)
{
	size_t i, j;

	fs->by_off = malloc((fs->nr_params ? fs->nr_params : 1) *
			    sizeof(*fs->by_off));
	if (!fs->by_off)
		return -ENOMEM;
	for (i = 0; i < fs->nr_params; i++)
		fs->by_off[i] = &fs->params[i];
	qsort(fs->by_off, fs->nr_params, sizeof(*fs->by_off), param_ptr__cmp);

	for (i = 0; i < fs->nr_fns; i++) {
		struct fn_info *fn = &fs->fns[i];

		for (j = 0; j < fn->nr_params; j++) {
			struct fn_param *p = &fs->params[fn->first_param + j];
			struct fn_param *o;

			if (!p->origin_off)
				continue;
			o = fn_set__find_param(fs, p->origin_off);
			if (!o)
				continue;
			o->has_loc |= p->has_loc;
			o->has_const |= p->has_const;
			o->loc.konst |= p->loc.konst;
			o->loc.stack |= p->loc.stack;
			if (p->loc.reg != LOC_UNKNOWN)
				o->loc.reg = p->loc.reg;
			if (p->byte_size)
				o->byte_size = p->byte_size;
			o->loc.first |= p->loc.first;
			o->loc.second |= p->loc.second;
			if (p->member && !o->member) {
				o->member = p->member;
				o->member_type = p->member_type;
				o->member_is_struct = p->member_is_struct;
			}
			if (o->idx != p->idx && !fn->reordered) {
				fn->reordered = true;
				fn->reordered_param = j;
				fn->reordered_from = o->idx;
			}
		}
	}
	return 0;
}

/*
 * How many argument registers P takes: one if it fits one register, else
 * one per address-sized part.
 */
static int fn_param__slots(const struct fn_param *p, const struct call_abi *abi)
{
	return call_abi__one_reg(abi, p->byte_size) ? 1 :
	       (int)((p->byte_size + abi->addr_size - 1) / abi->addr_size);
}

/* Is the parameter after @p in the register right after @p's slots? */
static bool fn_param__next_keeps_slots(const struct fn_param *p, const struct fn_param *end,
			     int reg_idx, int slots, const struct call_abi *abi)
{
	const struct fn_param *next = p + 1;

	if (next == end || next->loc.reg == LOC_UNKNOWN)
		return false;
	return reg_idx + slots < abi->nr_regs &&
	       next->loc.reg == abi->regs[reg_idx + slots];
}

/*
 * clang, signature unchanged: each parameter's register must be one of
 * the registers of its own slots.
 */
static void fn_params__match_clang(struct fn_param *ps, size_t n,
				   const struct call_abi *abi)
{
	int reg_idx = 0, k;
	size_t j;

	for (j = 0; j < n && reg_idx < abi->nr_regs; j++) {
		struct fn_param *p = &ps[j];
		int slots = fn_param__slots(p, abi);
		bool found = false;

		if (call_abi__in_memory(abi, p->byte_size))
			continue;
		/*
		 * On a machine whose argument registers pahole does not name
		 * (regs -1), no register matches, so a parameter in any
		 * register counts as unexpected, as in pahole.
		 */
		if (p->loc.reg != LOC_UNKNOWN) {
			for (k = reg_idx; k < reg_idx + slots && k < abi->nr_regs; k++)
				if (abi->regs[k] == p->loc.reg)
					found = true;
			p->unexpected = !found;
			p->want_reg = abi->regs[reg_idx];
		}
		reg_idx += slots;
	}
}

/*
 * Walks the argument registers in order and marks each parameter optimized
 * (not passed) or unexpected (not in its register).  @ts: true_signature
 * for a function whose signature the compiler changed, which finds what
 * is really passed instead of giving up.
 */
static void fn_params__locate(struct fn_param *ps, size_t n, bool clang, bool ts,
			      const struct call_abi *abi)
{
	struct fn_param *end = ps + n;
	int reg_idx = 0;
	size_t j;

	for (j = 0; j < n; j++) {
		struct fn_param *p = &ps[j];
		bool in_memory = call_abi__in_memory(abi, p->byte_size);
		bool regs_left = reg_idx < abi->nr_regs;
		int slots = fn_param__slots(p, abi);
		bool consumes = true;

		if (regs_left)
			p->want_reg = abi->regs[reg_idx];
		if (p->has_loc) {
			if (ts && p->loc.konst) {
				p->optimized = true;
				p->opt_how = FUNC_OPT_CONST;
				consumes = false;
			} else if (!regs_left) {
				consumes = false;
			} else if (ts && p->loc.stack) {
				if (in_memory)
					consumes = false;
				else
					p->unexpected = true;
			} else if (p->loc.reg == LOC_UNKNOWN) {
				if (ts)
					p->unexpected = true;
				else
					p->optimized = true;
				p->opt_how = FUNC_OPT_NO_REG;
			} else if (abi->regs[reg_idx] >= 0 &&
				   p->loc.reg != abi->regs[reg_idx]) {
				p->unexpected = true;
			} else if (ts && (p->loc.first || p->loc.second)) {
				/*
				 * A struct in pieces: with pieces in both
				 * halves it is passed whole and takes all its
				 * slots.
				 */
				if (p->loc.first && p->loc.second) {
					reg_idx += slots;
					continue;
				}
				if (fn_param__next_keeps_slots(p, end, reg_idx, slots, abi)) {
					p->member = NULL;
					reg_idx += slots;
					continue;
				}
				if (p->member) {
					p->use_member = true;
					reg_idx++;
					continue;
				}
			}
		} else if (p->has_const && !clang) {
			p->optimized = true;
			p->opt_how = FUNC_OPT_CONST;
		} else if (ts) {
			if (regs_left &&
			    fn_param__next_keeps_slots(p, end, reg_idx, slots, abi)) {
				reg_idx += slots;
				continue;
			}
			p->optimized = true;
			p->opt_how = FUNC_OPT_NOT_PASSED;
			consumes = false;
		}
		if (consumes)
			reg_idx += in_memory ? 1 : slots;
	}
}

/*
 * pahole's "uncertain parameter location": a function with at least as
 * many parameters as argument registers, one after those a packed struct
 * by value (on a machine without known registers: any parameter).
 */
static bool fn_params__uncertain(const struct fn_param *ps, size_t n,
				 const struct call_abi *abi)
{
	size_t j;

	if (n < (size_t)abi->nr_regs)
		return false;
	for (j = abi->nr_regs; j < n; j++)
		if (ps[j].packed)
			return true;
	return false;
}

/* A parameter's position for struct func_why, kept below FUNC_WHY_NONE. */
static uint8_t why_param(size_t j)
{
	return j < FUNC_WHY_NONE ? j : FUNC_WHY_NONE - 1;
}

/*
 * Finds where each of FN's parameters arrives and returns FN's
 * FUNC_CAND_* flags; *WHY gets the first parameter behind each flag.  A
 * clang function whose signature is unchanged is checked slot by slot
 * (fn_params__match_clang()), any other by walking the registers
 * (fn_params__locate()).  A parameter in an unexpected register only
 * counts when no parameter is a struct by value.
 */
static uint32_t fn_set__analyze(struct fn_set *fs, struct fn_info *fn,
				bool clang, bool ts, struct func_why *why)
{
	bool optimized = false, unexpected = false, has_struct = false;
	struct fn_param *ps = NULL;	/* Only read with parameters. */
	size_t j;

	/*
	 * The batch cache stores the struct as bytes: its padding is
	 * zeroed too, so that two runs write the same entry.
	 */
	memset(why, 0, sizeof(*why));
	/* optimized, bad_reg, uncertain and reordered start as none. */
	memset(why, FUNC_WHY_NONE, 4);
	why->reg = why->want = -1;
	why->nr_params = why_param(fn->nr_params);
	if (fn->reordered) {
		why->reordered = why_param(fn->reordered_param);
		why->reordered_from = why_param(fn->reordered_from);
	}

	/* Without parameters, fs->params may not even exist. */
	if (fn->nr_params) {
		ps = &fs->params[fn->first_param];
		if (clang && !fn->nocall)
			fn_params__match_clang(ps, fn->nr_params, &fs->abi);
		else
			fn_params__locate(ps, fn->nr_params, clang, ts,
					  &fs->abi);
	}
	for (j = 0; j < fn->nr_params; j++) {
		const struct fn_param *p = &ps[j];

		if ((p->optimized || !p->has_loc) && !optimized) {
			optimized = true;
			why->optimized = why_param(j);
			why->optimized_how = p->optimized ? p->opt_how :
					     p->has_const ? FUNC_OPT_CONST :
					     FUNC_OPT_NO_LOC;
		}
		if (p->unexpected && !unexpected) {
			why->bad_reg = why_param(j);
			why->reg = p->loc.reg;
			why->want = p->want_reg;
		}
		unexpected |= p->unexpected;
		has_struct |= p->use_member ? p->member_is_struct : p->is_struct;
	}
	for (j = fs->abi.nr_regs; j < fn->nr_params; j++)
		if (ps[j].packed) {
			why->uncertain = why_param(j);
			break;
		}
	return (optimized ? FUNC_CAND_OPTIMIZED : 0) |
	       (fn->nr_params && fn_params__uncertain(ps, fn->nr_params,
						      &fs->abi) ?
		FUNC_CAND_UNCERTAIN : 0) |
	       (unexpected && !has_struct ? FUNC_CAND_BAD_REG : 0) |
	       (fn->reordered ? FUNC_CAND_REORDERED : 0) |
	       (fn->nocall && clang ? FUNC_CAND_NOCALL : 0);
}

/*
 * The name and type parameter @p gets in BTF.  Returns 1, 0 when it is left
 * out, or -ENOMEM.
 */
static int fn_param__btf(const struct fn_param *p, struct cu_ctx *ctx,
			 const struct fn_info *fn, bool ts,
			 struct func_param *fp)
{
	char *joined;
	size_t len;

	/*
	 * In a reordered function, a parameter without a location or one
	 * optimized away was not passed, so BTF leaves it out.
	 */
	if (fn->reordered && (!p->has_loc || p->optimized))
		return 0;
	fp->name = p->name;
	fp->type_id = p->type_id;
	if (!ts)
		return 1;
	if (p->optimized)
		return 0;
	if (p->use_member)
		fp->type_id = p->member_type;
	if (!p->member)
		return 1;
	/* A struct reduced to one member is named "param__member". */
	len = strlen(p->name) + strlen(p->member) + 3;
	joined = malloc(len);
	if (!joined)
		return -ENOMEM;
	snprintf(joined, len, "%s__%s", p->name, p->member);
	fp->name = str_arena__dup(&ctx->frag->strs, joined);
	free(joined);
	return fp->name ? 1 : -ENOMEM;
}

/*
 * Adds FN to the fragment as a function candidate, with its parameters as
 * BTF will have them, its flags and its decl tags.  A function with an
 * unnamed parameter is no candidate.  Returns 0 or a negative errno.
 */
static int fn_set__add_cand(struct fn_set *fs, struct cu_ctx *ctx,
			    struct fn_info *fn, bool clang)
{
	const struct elf_func_key *key;
	struct func_param *fp;
	struct func_cand *fc;
	Dwarf_Addr low;
	size_t j, np;
	bool ts;
	int err;

	for (j = 0; j < fn->nr_params; j++)
		if (!fs->params[fn->first_param + j].name)
			return 0;
	key = fn->key;

	np = fn->nr_params + (fn->varargs ? 1 : 0);
	if (grow_array((void **)&ctx->frag->funcs, &ctx->cap_frag_funcs,
		       ctx->frag->nr_funcs + 1, sizeof(*fc), 256) ||
	    grow_array((void **)&ctx->frag->params, &ctx->cap_frag_params,
		       ctx->frag->nr_params + np + 1, sizeof(*fp), 256))
		return -ENOMEM;
	fc = &ctx->frag->funcs[ctx->frag->nr_funcs++];
	fc->key = key->key;
	fc->addr = dwarf_lowpc(&fn->die, &low) == 0 ? low : 0;
	fc->ret_type = fn->ret_type;
	fc->first_param = ctx->frag->nr_params;
	fc->nr_params = np;
	/* true_signature only rewrites clang functions marked DW_CC_nocall. */
	ts = ctx->env->opts->true_signature && clang && fn->nocall;
	fc->flags = fn_set__analyze(fs, fn, clang, ts, &fc->why);
	fc->die_off = cu_ctx__die_off(ctx, &fn->die);
	fc->cu_name = fs->cu_name;
	for (j = 0; j < fn->nr_params; j++) {
		fp = &ctx->frag->params[ctx->frag->nr_params];
		err = fn_param__btf(&fs->params[fn->first_param + j], ctx, fn,
				    ts, fp);
		if (err < 0)
			return err;
		/* A parameter left out (0) is not counted. */
		ctx->frag->nr_params += err;
		fc->nr_params -= !err;
	}
	/* Varargs is a last parameter without name or type, as in BTF. */
	if (fn->varargs) {
		fp = &ctx->frag->params[ctx->frag->nr_params++];
		fp->name = "";
		fp->type_id = 0;
	}
	fc->first_tag = ctx->frag->nr_tags;
	fc->nr_tags = 0;
	err = cu_ctx__collect_decl_tags(ctx, &fn->die, -1, &fc->nr_tags);
	if (err)
		return err;
	{
		Dwarf_Die child;
		int ret, idx = 0;

		ret = abbrev_cache__child(&ctx->abbrevs, &fn->die, &child);
		while (ret == 0 && !err) {
			if (abbrev_cache__tag(&ctx->abbrevs, &child) ==
			    DW_TAG_formal_parameter)
				err = cu_ctx__collect_decl_tags(ctx, &child, idx++,
								&fc->nr_tags);
			ret = abbrev_cache__sibling(&ctx->abbrevs, &child,
						    &child);
		}
		if (err)
			return err;
	}
	return 0;
}

/*
 * Collects the function candidates of the CU's subprograms into the
 * fragment, in three steps: read each function, link abstract origins to
 * their instances, then analyze and add each.  An ELF without function
 * keys gives none.  The address size is the CU header's, else the ELF's
 * pointer size.
 */
int cu_ctx__collect_funcs(struct cu_ctx *ctx)
{

	struct fn_set fs = { 0 };
	const char *cu_name;
	uint8_t addr_size = 0;
	bool clang;
	size_t i;
	int err = 0;

	if (!ctx->env->syms->nr_keys)
		return 0;
	clang = ctx->clang;
	if (dwarf_cu_info(ctx->cudie->cu, NULL, NULL, NULL, NULL, NULL,
			  &addr_size, NULL))
		addr_size = ctx->env->ef->ptr_size;
	call_abi__init(&fs.abi, ctx->env->ef->ehdr.e_machine, addr_size);
	/* The candidates are decided, and explained, after all CUs. */
	cu_name = dwarf_diename(ctx->cudie);
	fs.cu_name = cu_ctx__keep_str(ctx, cu_name);
	if (cu_name && !fs.cu_name)
		return -ENOMEM;

	for (i = 0; i < ctx->nr_subprogs && !err; i++)
		err = fn_set__add_fn(&fs, ctx, &ctx->subprogs[i]);
	if (!err)
		err = fn_set__link_origins(&fs);
	for (i = 0; i < fs.nr_fns && !err; i++)
		err = fn_set__add_cand(&fs, ctx, &fs.fns[i], clang);
	free(fs.fns);
	free(fs.params);
	free(fs.by_off);
	return err;
}
