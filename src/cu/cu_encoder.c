// SPDX-License-Identifier: GPL-2.0-only
/*
 * DWARF -> BTF for one compilation unit: the driver of the per-CU passes.
 * Types (cu_types.c), their check (cu_check.c), then the variable
 * (cu_vars.c) and function (cu_funcs.c) candidates, all into the CU's
 * fragment.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/cu_internal.h"

/*
 * Returns gcc's major version from a DW_AT_producer such as
 * "GNU C17 15.1.0 -O2 ...", which gives 15, or 0 for other producers.
 */
static int producer_gcc_major(const char *producer)
{
	const char *p;

	if (!producer || strncmp(producer, "GNU ", 4))
		return 0;
	/* The version follows the language name. */
	p = strchr(producer + 4, ' ');
	return p ? atoi(p + 1) : 0;
}

/*
 * Sets the name that messages about this CU give: the input file, and for
 * a split unit also its .dwo file.
 */
static void cu_ctx__set_where(struct cu_ctx *ctx)
{
	Dwarf_Die skel;
	Dwarf_Attribute attr;
	const char *dwo = NULL;
	uint8_t unit_type;

	ctx->where = ctx->env->ef->path;
	if (dwarf_cu_info(ctx->cudie->cu, NULL, &unit_type, NULL, &skel, NULL,
			  NULL, NULL) || unit_type != DW_UT_split_compile)
		return;
	if (dwarf_attr(&skel, DW_AT_dwo_name, &attr) ||
	    dwarf_attr(&skel, DW_AT_GNU_dwo_name, &attr))
		dwo = dwarf_formstring(&attr);
	snprintf(ctx->where_buf, sizeof(ctx->where_buf), "%s (split unit %s)",
		 ctx->env->ef->path, dwo ? dwo : "?");
	ctx->where = ctx->where_buf;
}

/*
 * The forms of annotation (DIE_ANNOT_*) the DIEs of @cudie's unit may
 * have, by its abbreviation table: a form no abbreviation declares is in
 * no DIE.  A split unit's table is in its .dwo, and a table that cannot be
 * read tells nothing, so their DIEs may have both.
 */
static unsigned int unit_annots(const struct encode_env *env,
				Dwarf_Die *cudie)
{
	Dwarf_Off unit_off = dwarf_dieoffset(cudie) - dwarf_cuoffset(cudie);
	Dwarf_Off abbrev_off, next;
	struct dwarf_layout l;
	uint8_t unit_type;

	if (!env->abbrev_start ||
	    dwarf_cu_info(cudie->cu, NULL, &unit_type, NULL, NULL, NULL, NULL,
			  NULL) || unit_type != DW_UT_compile ||
	    dwarf_next_unit(dwarf_cu_getdwarf(cudie->cu), unit_off, &next,
			    NULL, NULL, &abbrev_off, NULL, NULL, NULL, NULL) ||
	    !dwarf_layout__scan_table(&l, env->abbrev_start, env->abbrev_size,
				      abbrev_off))
		return DIE_ANNOT_ALL;
	return (l.llvm_annotations ? DIE_ANNOT_LLVM : 0) |
	       (l.gnu_annotations ? DIE_ANNOT_GNU : 0);
}

void cu_arrays__free(struct cu_arrays *a)
{
	free(a->nodes);
	free(a->node_offs);
	free(a->members);
	free(a->scratch);
	free(a->subprogs);
	free(a->vars);
	memset(a, 0, sizeof(*a));
}

/* Takes the room @a kept into @ctx (a zeroed struct cu_arrays: none). */
static void cu_arrays__lend(struct cu_arrays *a, struct cu_ctx *ctx)
{
	ctx->nodes = a->nodes;
	ctx->cap_nodes = a->cap_nodes;
	ctx->node_offs = a->node_offs;
	ctx->cap_offs = a->cap_offs;
	ctx->members = a->members;
	ctx->cap_members = a->cap_members;
	ctx->scratch = a->scratch;
	ctx->cap_scratch = a->cap_scratch;
	ctx->subprogs = a->subprogs;
	ctx->cap_subprogs = a->cap_subprogs;
	ctx->vars = a->vars;
	ctx->cap_vars = a->cap_vars;
}

/* Keeps @ctx's arrays in @a for the next CU. */
static void cu_arrays__keep(struct cu_arrays *a, const struct cu_ctx *ctx)
{
	*a = (struct cu_arrays){
		.nodes = ctx->nodes, .cap_nodes = ctx->cap_nodes,
		.node_offs = ctx->node_offs, .cap_offs = ctx->cap_offs,
		.members = ctx->members, .cap_members = ctx->cap_members,
		.scratch = ctx->scratch, .cap_scratch = ctx->cap_scratch,
		.subprogs = ctx->subprogs, .cap_subprogs = ctx->cap_subprogs,
		.vars = ctx->vars, .cap_vars = ctx->cap_vars,
	};
}

/*
 * cu_encoder.h has the contract.  The passes append to @btf in a fixed
 * order, so that the ids depend only on the CU and the CUs before it in
 * the batch: types, then variables and functions, then the types those
 * brought from other units, then the check of everything this CU added.
 */
int cu_encoder__encode(const struct encode_env *env, Dwarf_Die *cudie,
		       uint64_t die_base, struct btf_builder *btf,
		       struct name_cache *names,
		       struct type_reuse *reuse, struct cu_arrays *arrays,
		       struct cu_fragment *out, char *errbuf, size_t errlen)
{
	struct cu_ctx ctx = {
		.env = env,
		.names = names,
		.reuse = reuse,
		.cudie = cudie,
		.cu_off = dwarf_dieoffset(cudie),
		.die_base = die_base,
		.btf = btf,
		.next_id = btf_builder__type_cnt(btf),
		.first_id = btf_builder__type_cnt(btf),
		.little_endian = !env->ef->big_endian,
		.frag = out,
		.errbuf = errbuf,
		.errlen = errlen,
	};
	int err, lang;

	memset(out, 0, sizeof(*out));
	cu_arrays__lend(arrays, &ctx);

	ctx.cu_start = ctx.cu_off - dwarf_cuoffset(cudie);
	ctx.home_dw = dwarf_cu_getdwarf(cudie->cu);
	cu_ctx__set_where(&ctx);
	abbrev_cache__init(&ctx.abbrevs, cudie, env->info_start, env->info_end,
			   die_attr_slot,
			   env->opts->hooks && env->opts->hooks->libdw_attrs);
	abbrev_cache__set_strings(&ctx.abbrevs, env->str_start, env->str_size);
	out->nr_cus_in_place = ctx.abbrevs.cu_start != NULL;
	lang = dwarf_srclang(cudie);
	/*
	 * --lang and --lang_exclude choose CUs by source language; a CU not
	 * chosen adds nothing.
	 */
	if (!encode_opts__lang_wanted(env->opts, lang))
		return 0;
	ctx.rust = lang == DW_LANG_Rust;
	ctx.cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
		  lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
	{
		Dwarf_Attribute attr;
		const char *producer;

		producer = dwarf_attr(cudie, DW_AT_producer, &attr) ?
			   dwarf_formstring(&attr) : NULL;
		ctx.clang = producer && strstr(producer, "clang");
		/*
		 * Only clang and gcc 15 or later emit the btf_type_tag and
		 * btf_decl_tag annotations that cu_die.c reads.
		 */
		if (ctx.clang || producer_gcc_major(producer) >= 15) {
			ctx.foreign_annots = DIE_ANNOT_ALL;
			ctx.annots = unit_annots(env, cudie);
		}
	}
	ctx.c_names = ctx.cxx ||
		      (ctx.rust && !env->opts->rust_enums_pahole);
	/*
	 * A unit whose names are made of its scopes (C++, Rust) neither
	 * takes types nor gives them: its keys do not cover the scopes.
	 */
	if (ctx.c_names)
		ctx.reuse = NULL;
	err = cu_ctx__collect_types(&ctx);
	if (!err && ctx.reuse) {
		err = cu_ctx__reuse_keys(&ctx);
		if (!err)
			err = cu_ctx__assign_ids(&ctx);
	}
	if (!err && env->opts->type_keys)
		err = cu_ctx__count_type_keys(&ctx, &out->type_keys);
	if (!err)
		err = cu_ctx__emit_types(&ctx);
	if (!err)
		err = cu_ctx__collect_vars(&ctx);
	if (!err)
		err = cu_ctx__collect_funcs(&ctx);
	if (!err)
		err = cu_ctx__type_unit_refs(&ctx);
	/*
	 * Variables and functions may refer to types of other units, which
	 * this second round emits.
	 */

	if (!err)
		err = cu_ctx__emit_types(&ctx);
	if (!err)
		err = cu_ctx__check(&ctx);
	if (!err)
		out->nr_types_in = btf_builder__type_cnt(ctx.btf) - ctx.first_id;
	/* Members to fix after the final dedup (fwd_members.h). */
	out->cxx = ctx.c_names;
	if (err && !ctx.reported)
		cu_err(&ctx, cudie, "cannot encode CU: %s", strerror(-err));
	cu_arrays__keep(arrays, &ctx);
	free(ctx.dims);
	free(ctx.node_hash);
	free(ctx.imports);
	cu_ctx__cxx_free(&ctx);
	cu_ctx__keys_free(&ctx);
	free(ctx.keys);
	free(ctx.reusable);
	free(ctx.reuse_id);
	abbrev_cache__free(&ctx.abbrevs);
	if (err)
		cu_fragment__free(out);
	return err;
}
