// SPDX-License-Identifier: GPL-2.0-only
/*
 * Function candidates of one CU, with the facts the later decision needs:
 * where each parameter lives, whether the compiler changed the signature.
 *
 * The rules follow upstream pahole's defaults (see docs/functions.md):
 * x86-64 passes the first six integer arguments in rdi, rsi, rdx, rcx, r8,
 * r9; a parameter found elsewhere means the compiler changed the calling
 * convention, and BTF would then describe the function wrongly.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu_internal.h"

#define NR_REG_PARAMS	6
#define LOC_UNKNOWN	(-1)

/* DWARF register numbers of the x86-64 argument registers, in order. */
static const int x86_64_arg_regs[NR_REG_PARAMS] = { 5, 4, 1, 2, 8, 9 };

struct fn_param {
	Dwarf_Off off;
	Dwarf_Off origin_off;	/* 0: no DW_AT_abstract_origin */
	const char *name;
	uint32_t type_id;
	uint64_t byte_size;
	int idx;
	int loc_reg;
	bool has_loc;
	bool has_const;
	bool is_struct;
};

struct fn_info {
	Dwarf_Die die;
	const struct elf_func_key *key;
	size_t first_param, nr_params;
	uint32_t ret_type;
	bool varargs;
	bool reordered;
	bool nocall;
};

struct fn_set {
	struct fn_info *fns;
	size_t nr_fns, cap_fns;
	struct fn_param *params;
	size_t nr_params, cap_params;
	struct fn_param **by_off;	/* params sorted by DIE offset */
};

static bool die_ref(Dwarf_Die *die, int name, Dwarf_Die *out)
{
	Dwarf_Attribute attr;

	return dwarf_attr(die, name, &attr) && dwarf_formref_die(&attr, out);
}

/* Byte size of a parameter's type: pointers are 8, else the first size found. */
static uint64_t param_type_size(Dwarf_Die *param, unsigned int ptr_size)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;
	int i;

	if (!dwarf_attr_integrate(param, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, &t))
		return 0;
	for (i = 0; i < MAX_DEPTH; i++) {
		Dwarf_Word sz;

		if (dwarf_tag(&t) == DW_TAG_pointer_type)
			return ptr_size;
		if (die_udata(&t, DW_AT_byte_size, &sz) && sz)
			return sz;
		if (!die_ref(&t, DW_AT_type, &t))
			return 0;
	}
	return 0;
}

/* A struct passed by value, seen through typedefs and const only. */
static bool param_is_struct(Dwarf_Die *param)
{
	Dwarf_Attribute attr;
	Dwarf_Die t;
	int i;

	if (!dwarf_attr_integrate(param, DW_AT_type, &attr) ||
	    !dwarf_formref_die(&attr, &t))
		return false;
	for (i = 0; i < MAX_DEPTH; i++) {
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

static int op_reg(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return op->atom - DW_OP_reg0;
	if (op->atom == DW_OP_regx)
		return op->number;
	return LOC_UNKNOWN;
}

static int op_breg(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
		return op->atom - DW_OP_breg0;
	if (op->atom == DW_OP_bregx)
		return op->number;
	return LOC_UNKNOWN;
}

static bool op_is_const(const Dwarf_Op *op)
{
	return (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) ||
	       op->atom == DW_OP_constu || op->atom == DW_OP_consts;
}

/*
 * The register a parameter arrives in, read from its location (list) the
 * way pahole reads it: only the first entry counts, except that an
 * entry-value of a register, in any entry, tells the incoming register.
 */
static int param_loc_reg(Dwarf_Attribute *loc, uint64_t size)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t offset = 0;
	Dwarf_Op *ops;
	size_t nops;
	int reg = LOC_UNKNOWN, entry;

	for (entry = 0; reg == LOC_UNKNOWN; entry++) {
		size_t n, i;

		offset = dwarf_getlocations(loc, offset, &base, &start, &end,
					    &ops, &nops);
		if (offset <= 0)
			break;
		n = nops;
		if (n == 2 && ops[1].atom == DW_OP_stack_value)
			n = 1;
		if (n == 1) {
			if (entry == 0 && op_reg(&ops[0]) != LOC_UNKNOWN)
				reg = op_reg(&ops[0]);
			else if (entry == 0 && nops == 2 &&
				 op_breg(&ops[0]) != LOC_UNKNOWN)
				reg = op_breg(&ops[0]);
			else if (ops[0].atom == DW_OP_entry_value ||
				 ops[0].atom == DW_OP_GNU_entry_value) {
				Dwarf_Attribute sub;
				Dwarf_Op *sops;
				size_t nsops;

				if (!dwarf_getlocation_attr(loc, &ops[0], &sub) &&
				    !dwarf_getlocation(&sub, &sops, &nsops) &&
				    nsops == 1)
					reg = op_reg(&sops[0]);
			}
			continue;
		}
		if (!n || op_is_const(&ops[0]))
			continue;
		if (size <= 8) {
			if (entry != 0)
				continue;
			if (op_reg(&ops[0]) != LOC_UNKNOWN) {
				reg = op_reg(&ops[0]);
			} else if (op_breg(&ops[0]) != LOC_UNKNOWN) {
				for (i = 1; i < n; i++)
					if (ops[i].atom == DW_OP_stack_value)
						reg = op_breg(&ops[0]);
			}
		} else {
			/* Aggregates in two registers: the first piece's. */
			for (i = 0; i < n && reg == LOC_UNKNOWN; i++)
				reg = op_reg(&ops[i]);
		}
	}
	return reg;
}

static int fn_set__add_param(struct fn_set *fs, struct cu_ctx *ctx,
			     Dwarf_Die *die, int idx)
{
	Dwarf_Attribute attr;
	struct fn_param *p;
	Dwarf_Die origin;
	int err;

	if (grow((void **)&fs->params, &fs->cap_params, fs->nr_params,
		 sizeof(*p)))
		return -ENOMEM;
	p = &fs->params[fs->nr_params];
	memset(p, 0, sizeof(*p));
	p->off = dwarf_dieoffset(die);
	p->idx = idx;
	p->loc_reg = LOC_UNKNOWN;
	if (die_ref(die, DW_AT_abstract_origin, &origin))
		p->origin_off = dwarf_dieoffset(&origin);
	if (dwarf_attr_integrate(die, DW_AT_name, &attr) &&
	    (p->name = dwarf_formstring(&attr)) &&
	    !(p->name = cu_ctx__keep_name(ctx, &attr, p->name)))
		return -ENOMEM;
	err = cu_ctx__type_ref(ctx, die, &p->type_id);
	if (err)
		return err;
	p->byte_size = param_type_size(die, ctx->env->ef->ptr_size);
	p->is_struct = param_is_struct(die);
	p->has_const = dwarf_hasattr(die, DW_AT_const_value);
	if (dwarf_attr(die, DW_AT_location, &attr)) {
		p->has_loc = true;
		p->loc_reg = param_loc_reg(&attr, p->byte_size);
	}
	fs->nr_params++;
	return 0;
}

static int fn_set__add_fn(struct fn_set *fs, struct cu_ctx *ctx, Dwarf_Die *die)
{
	const struct elf_func_key *key;
	struct fn_info *fn;
	Dwarf_Die child, origin;
	Dwarf_Attribute attr;
	const char *name;
	Dwarf_Word cc;
	int ret, idx = 0, err;

	/*
	 * Declarations (every called extern function has one) and functions
	 * without an ELF symbol can never be candidates, nor abstract
	 * origins of one: leave them before reading their parameters.
	 */
	if (die_flag(die, DW_AT_declaration) ||
	    !dwarf_attr_integrate(die, DW_AT_name, &attr) ||
	    !(name = dwarf_formstring(&attr)) ||
	    !(key = elf_symtab__find_key(ctx->env->syms, name)))
		return 0;
	if (grow((void **)&fs->fns, &fs->cap_fns, fs->nr_fns, sizeof(*fn)))
		return -ENOMEM;
	fn = &fs->fns[fs->nr_fns];
	memset(fn, 0, sizeof(*fn));
	fn->die = *die;
	fn->key = key;
	fn->first_param = fs->nr_params;

	/* The return type: own, else the abstract origin's (not the spec's). */
	if (dwarf_hasattr(die, DW_AT_type)) {
		err = cu_ctx__type_ref(ctx, die, &fn->ret_type);
	} else if (die_ref(die, DW_AT_abstract_origin, &origin)) {
		err = cu_ctx__type_ref(ctx, &origin, &fn->ret_type);
	} else {
		err = 0;
	}
	if (err)
		return err;

	if (!dwarf_hasattr(die, DW_AT_inline)) {
		if (die_udata(die, DW_AT_calling_convention, &cc) && cc == DW_CC_nocall)
			fn->nocall = true;
		else if (die_ref(die, DW_AT_abstract_origin, &origin) &&
			 die_udata(&origin, DW_AT_calling_convention, &cc) &&
			 cc == DW_CC_nocall)
			fn->nocall = true;
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

static int param_ptr__cmp(const void *a, const void *b)
{
	const struct fn_param *x = *(struct fn_param *const *)a;
	const struct fn_param *y = *(struct fn_param *const *)b;

	return x->off < y->off ? -1 : x->off > y->off;
}

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
 * are not at the origin's positions had its signature changed.
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
			if (p->loc_reg != LOC_UNKNOWN)
				o->loc_reg = p->loc_reg;
			if (o->idx != p->idx)
				fn->reordered = true;
		}
	}
	return 0;
}

static uint32_t fn_set__analyze(struct fn_set *fs, struct fn_info *fn,
				bool clang)
{
	bool optimized = false, unexpected = false, has_struct = false;
	int reg_idx = 0;
	size_t j;

	for (j = 0; j < fn->nr_params; j++) {
		struct fn_param *p = &fs->params[fn->first_param + j];
		bool in_memory = p->byte_size > 16;
		int slots = p->byte_size <= 8 ? 1 : (int)((p->byte_size + 7) / 8);

		if (p->is_struct)
			has_struct = true;
		if (!p->has_loc)
			optimized = true;
		if (clang && !fn->nocall) {
			int k;

			if (in_memory || reg_idx >= NR_REG_PARAMS)
				continue;
			if (p->loc_reg != LOC_UNKNOWN) {
				bool found = false;

				for (k = reg_idx; k < reg_idx + slots &&
				     k < NR_REG_PARAMS; k++)
					if (x86_64_arg_regs[k] == p->loc_reg)
						found = true;
				if (!found)
					unexpected = true;
			}
			reg_idx += slots;
			continue;
		}
		if (p->has_loc) {
			if (reg_idx < NR_REG_PARAMS) {
				if (p->loc_reg == LOC_UNKNOWN)
					optimized = true;
				else if (p->loc_reg != x86_64_arg_regs[reg_idx])
					unexpected = true;
			}
		} else if (p->has_const) {
			optimized = true;
		}
		reg_idx += in_memory ? 1 : slots;
	}
	return (optimized ? FUNC_CAND_OPTIMIZED : 0) |
	       (unexpected && !has_struct ? FUNC_CAND_BAD_REG : 0) |
	       (fn->reordered ? FUNC_CAND_REORDERED : 0) |
	       (fn->nocall && clang ? FUNC_CAND_NOCALL : 0);
}

static int fn_set__add_cand(struct fn_set *fs, struct cu_ctx *ctx,
			    struct fn_info *fn, bool clang)
{
	const struct elf_func_key *key;
	struct func_param *fp;
	struct func_cand *fc;
	Dwarf_Addr low;
	size_t j, np;
	int err;

	for (j = 0; j < fn->nr_params; j++)
		if (!fs->params[fn->first_param + j].name)
			return 0;
	key = fn->key;

	np = fn->nr_params + (fn->varargs ? 1 : 0);
	if (grow((void **)&ctx->frag->funcs, &ctx->cap_frag_funcs,
		 ctx->frag->nr_funcs, sizeof(*fc)) ||
	    grow((void **)&ctx->frag->params, &ctx->cap_frag_params,
		 ctx->frag->nr_params + np, sizeof(*fp)))
		return -ENOMEM;
	fc = &ctx->frag->funcs[ctx->frag->nr_funcs++];
	fc->key = key->key;
	fc->addr = dwarf_lowpc(&fn->die, &low) == 0 ? low : 0;
	fc->ret_type = fn->ret_type;
	fc->first_param = ctx->frag->nr_params;
	fc->nr_params = np;
	fc->flags = fn_set__analyze(fs, fn, clang);
	for (j = 0; j < fn->nr_params; j++) {
		struct fn_param *p = &fs->params[fn->first_param + j];

		fp = &ctx->frag->params[ctx->frag->nr_params++];
		fp->name = p->name;
		fp->type_id = p->type_id;
	}
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

		ret = dwarf_child(&fn->die, &child);
		while (ret == 0 && !err) {
			if (dwarf_tag(&child) == DW_TAG_formal_parameter)
				err = cu_ctx__collect_decl_tags(ctx, &child, idx++,
								&fc->nr_tags);
			ret = dwarf_siblingof(&child, &child);
		}
		if (err)
			return err;
	}
	return 0;
}

int cu_ctx__collect_funcs(struct cu_ctx *ctx)
{
	struct fn_set fs = { 0 };
	bool clang;
	size_t i;
	int err = 0;

	if (!ctx->env->syms->nr_keys)
		return 0;
	clang = ctx->clang;

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
