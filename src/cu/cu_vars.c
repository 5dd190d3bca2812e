// SPDX-License-Identifier: GPL-2.0-only
/*
 * Variable candidates of one CU: the variables with a name the kernel
 * accepts, an address (or an ELF symbol), in a data section.  Which of
 * them become VARs is decided after all CUs (vars.c).
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/cu_internal.h"
#include "lib/hash.h"
#include "lib/key_set.h"

/* pahole's btf_name_valid(): what the kernel accepts as a VAR name. */
static bool var_name_valid(const char *n)
{
	size_t i;

	if (!((n[0] >= 'a' && n[0] <= 'z') || (n[0] >= 'A' && n[0] <= 'Z') ||
	      n[0] == '_' || n[0] == '.'))
		return false;
	for (i = 1; n[i]; i++) {
		char c = n[i];

		/* A name of 128 characters or more is refused. */
		if (i >= 127 || !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				  (c >= '0' && c <= '9') || c == '_' || c == '.'))
			return false;
	}
	return true;
}

/* Compiler- and macro-made objects pahole leaves out. */
static bool var_name_skipped(const char *n)
{
	static const char *const prefixes[] = {
		"__UNIQUE_ID", "__tpstrtab_", "__exitcall_",
		"__gendwarfksyms_ptr_", "__func_stack_frame_non_standard_",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(n, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/*
 * Sets *ADDR to the static address of a variable located by DW_OP_addr or
 * DW_OP_addrx (an index into .debug_addr that libdw resolves), optionally
 * followed by DW_OP_plus_uconst.  Returns false for any other location.
 */
static bool var_addr(Dwarf_Die *die, uint64_t *addr)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;

	if (!dwarf_attr(die, DW_AT_location, &attr) ||
	    dwarf_getlocation(&attr, &ops, &nops) || nops < 1)
		return false;
	if (ops[0].atom == DW_OP_addr) {
		*addr = ops[0].number;
	} else if (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) {
		Dwarf_Attribute res;
		Dwarf_Addr a;

		if (dwarf_getlocation_attr(&attr, &ops[0], &res) ||
		    dwarf_formaddr(&res, &a))
			return false;
		*addr = a;
	} else {
		return false;
	}
	if (nops == 2 && ops[1].atom == DW_OP_plus_uconst)
		*addr += ops[1].number;
	return true;
}

/* Does an object symbol of this name sit in section @shndx? */
static bool elf_symtab__has_var(const struct elf_symtab *st, const char *name,
			uint32_t shndx)
{
	const struct elf_sym *sym;
	size_t nr, k;

	sym = elf_symtab__find(st->vars, st->nr_vars, name, &nr);
	for (k = 0; k < nr; k++)
		if (sym[k].shndx == shndx)
			return true;
	return false;
}

/*
 * Sections of a relocatable file (a module) have no addresses; libdwfl
 * gave the allocated ones some to relocate the DWARF.  pahole looks such
 * an address up in the same libdwfl view, as for any file: the first
 * PROGBITS or NOBITS section by index whose range holds it, where a
 * section libdwfl did not place (.comment, .debug_info, ...) is still at
 * the address 0 the file gives it.  So a variable lies in .debug_info for
 * pahole when that section comes first and is larger than the variable's
 * address: Linux 7.x modules have their .debug_* sections before
 * .data..percpu, and pahole 1.32 leaves out most of their per-CPU
 * variables that way.  Returns the section pahole finds, with the offset
 * in it in *@off, or NULL; *@unplaced is set for a section libdwfl did not
 * place.
 */
static const struct elf_data_section *
encode_env__var_section(const struct encode_env *env, uint64_t addr,
			uint64_t *off, bool *unplaced)
{
	const struct elf_symtab *st = env->syms;
	size_t i;

	for (i = 0; i < st->nr_secs; i++) {
		const struct elf_data_section *sec = &st->secs[i];
		bool placed = sec->shndx < env->nr_rel_addr &&
			      env->rel_addr[sec->shndx];
		uint64_t base = placed ? env->rel_addr[sec->shndx] : sec->addr;

		if (addr >= base && addr - base < sec->size) {
			*off = addr - base;
			*unplaced = !placed;
			return sec;
		}
	}
	return NULL;
}

/*
 * Returns the name of variable DIE, or NULL if it has none.  A definition
 * of an earlier declaration (DW_AT_specification) is named there: *NAMED
 * then points to that DIE, stored in *SPEC, and otherwise to DIE.
 * *NATTR gets the name's attribute.  In a C++ unit (@cxx) the name is the
 * DW_AT_linkage_name when there is one, the mangled name of the ELF
 * symbol, as for functions: a namespace's variables and static data
 * members have no other name the symbols know, nor one unique in the run.
 */
static const char *var_name(Dwarf_Die *die, bool cxx, Dwarf_Die *spec,
			    Dwarf_Die **named, Dwarf_Attribute *nattr)
{
	Dwarf_Attribute attr;

	*named = die;
	if (dwarf_attr(die, DW_AT_specification, &attr) &&
	    die__formref(&attr, spec))
		*named = spec;
	if (cxx && dwarf_attr_integrate(die, DW_AT_linkage_name, nattr))
		return dwarf_formstring(nattr);
	return dwarf_attr_integrate(*named, DW_AT_name, nattr) ?
	       dwarf_formstring(nattr) : NULL;
}

/*
 * What became of DIE: for `dwarf2btf explain`, when it asked about NAME;
 * for the batch cache (place_notes), when the fate was decided by where
 * the variable is, so that a later run can place it again.  Returns 0 or
 * -ENOMEM.
 */
static int cu_ctx__note_var(struct cu_ctx *ctx, Dwarf_Die *die,
			    const char *name, enum var_fate fate,
			    const struct elf_data_section *sec, uint64_t off)
{
	const struct key_set *ask = ctx->env->opts->explain_names;
	struct cu_fragment *frag = ctx->frag;
	struct var_note *n;
	const char *cu;

	if (ask) {
		if (!name || !key_set__has(ask, hash_str(name)))
			return 0;
	} else if (!ctx->env->opts->place_notes || !var_fate__placed(fate)) {
		return 0;
	}
	if (grow_array((void **)&frag->var_notes, &ctx->cap_frag_notes,
		       frag->nr_var_notes + 1, sizeof(*n), 8))
		return -ENOMEM;
	n = &frag->var_notes[frag->nr_var_notes++];
	/* The notes are read after all CUs (explain, --verbose). */
	cu = dwarf_diename(ctx->cudie);
	n->name = cu_ctx__keep_str(ctx, name);
	n->cu_name = cu_ctx__keep_str(ctx, cu);
	if ((name && !n->name) || (cu && !n->cu_name))
		return -ENOMEM;
	n->die_off = cu_ctx__die_off(ctx, die);
	n->offset = off;
	n->shndx = sec ? sec->shndx : 0;
	n->fate = fate;
	return 0;
}

/*
 * cu_encoder.h has the contract.  In a relocatable file the section is
 * found as pahole finds it (encode_env__var_section()), elsewhere by the
 * sections' own addresses.  At offset 0 a symbol of the variable's name
 * must be in the section, or a section start marker would be taken for a
 * variable.
 */
enum var_fate cu_vars__place(const struct encode_env *env, const char *name,
			     uint64_t addr,
			     const struct elf_data_section **secp,
			     uint64_t *offp)
{
	const struct elf_symtab *st = env->syms;
	const struct elf_data_section *sec;
	bool unplaced = false;
	uint64_t off = 0;

	if (env->rel_addr) {
		sec = encode_env__var_section(env, addr, &off, &unplaced);
	} else {
		sec = elf_symtab__section_of(st, addr);
		off = sec ? addr - sec->addr : 0;
	}
	*secp = sec;
	*offp = off;
	if (!sec)
		return VAR_NO_SECTION;
	if (!env->opts->global_vars && !env->opts->encode_vars)
		return VAR_OFF;
	if (!env->opts->global_vars && sec->shndx != st->percpu_shndx)
		return unplaced ? VAR_UNPLACED_SECTION : VAR_NOT_PERCPU;
	if (off == 0 && !elf_symtab__has_var(st, name, sec->shndx))
		return VAR_SECTION_START;
	return VAR_CANDIDATE;
}

/*
 * Top-level variables with a static address: those in .data..percpu (the
 * var feature), or in any data section (global_var).  As in pahole, the
 * section is the first one holding the address, and the symbol table is
 * only consulted for offset 0, where section start markers would otherwise
 * be taken for variables.
 */
int cu_ctx__collect_vars(struct cu_ctx *ctx)
{
	bool explain = ctx->env->opts->explain_names;
	size_t i;

	if (!ctx->env->opts->encode_vars && !ctx->env->opts->global_vars &&
	    !explain)
		return 0;
	for (i = 0; i < ctx->nr_vars; i++) {
		Dwarf_Die *die = &ctx->vars[i], spec, *named = die;
		Dwarf_Attribute nattr;
		const struct elf_data_section *sec;
		enum var_fate fate;
		struct var_cand *vc;
		uint64_t addr, off;
		const char *name;
		uint32_t type;
		__s64 size;
		int err;

		/*
		 * A declaration, an artificial variable or one without a
		 * static address is no candidate; only `dwarf2btf explain`
		 * hears of it.
		 */
		fate = die_flag(die, DW_AT_declaration) ? VAR_DECLARATION :
		       die_flag(die, DW_AT_artificial) ? VAR_ARTIFICIAL :
		       !var_addr(die, &addr) ? VAR_NO_ADDRESS : VAR_CANDIDATE;
		if (fate != VAR_CANDIDATE) {
			if (!explain)
				continue;
			name = var_name(die, ctx->cxx, &spec, &named, &nattr);
			err = cu_ctx__note_var(ctx, die, name, fate, NULL, 0);
			if (err)
				return err;
			continue;
		}
		/* A definition of an earlier declaration names it there. */
		name = var_name(die, ctx->cxx, &spec, &named, &nattr);
		sec = NULL;
		off = 0;
		if (!name)
			continue;
		if (var_name_skipped(name)) {
			fate = VAR_NAME_MACRO;
		} else if (!var_name_valid(name)) {
			fate = VAR_NAME_INVALID;
		} else {
			fate = cu_vars__place(ctx->env, name, addr, &sec, &off);
		}
		if (fate == VAR_CANDIDATE) {
			err = cu_ctx__type_ref(ctx, named, &type);
			if (err)
				return err;
			size = type ? btf_builder__resolve_size(ctx->btf, type) : 0;
			if (!type)
				fate = VAR_NO_TYPE;
			else if (size <= 0 || size > UINT32_MAX || off > UINT32_MAX)
				fate = VAR_BAD_SIZE;
		}
		err = cu_ctx__note_var(ctx, die, name, fate, sec, off);
		if (err)
			return err;
		if (fate != VAR_CANDIDATE)
			continue;
		if (grow_array((void **)&ctx->frag->vars, &ctx->cap_frag_vars,
			       ctx->frag->nr_vars + 1, sizeof(*vc), 256))
			return -ENOMEM;
		name = cu_ctx__keep_name(ctx, &nattr, name);
		if (ctx->cxx && name)
			name = cu_ctx__cxx_keep_ident(ctx, name);
		if (!name)
			return -ENOMEM;
		vc = &ctx->frag->vars[ctx->frag->nr_vars++];
		vc->name = name;
		vc->shndx = sec->shndx;
		vc->offset = off;
		vc->size = size;
		vc->type_id = type;
		vc->external = die_flag(named, DW_AT_external);
		vc->first_tag = ctx->frag->nr_tags;
		vc->nr_tags = 0;
		/*
		 * Only clang's decl tags of variables are read, because
		 * upstream pahole reads no gcc annotations of variables.
		 */

		err = ctx->clang ? cu_ctx__collect_decl_tags(ctx, die, -1,
							     &vc->nr_tags) : 0;
		if (err)
			return err;
	}
	return 0;
}
