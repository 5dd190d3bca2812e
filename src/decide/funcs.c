// SPDX-License-Identifier: GPL-2.0-only
/*
 * Deciding functions across CUs.  Candidates are grouped by ELF key (the
 * symbol name up to its first '.'); within a group the first candidate in
 * CU order is the reference every other one is compared with.  A function
 * is left out when its prototypes disagree, its symbol is ambiguous, or a
 * parameter is not where the ABI says: BTF for it would mislead tracers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/btf_ids.h"
#include "decide/funcs.h"
#include "merge/btf_concat.h"
#include "lib/log.h"

/*
 * types_match() calls types different beyond this depth, which bounds its
 * recursion on hostile input.
 */
#define MATCH_DEPTH	64

/*
 * Candidates by key, then those with code (an address) before those
 * without, then in CU order (the order they came in).  pahole 1.32 compares
 * a key's prototypes in that order, which names the pair that differ in
 * --verbose: the first candidate with code against the first that
 * disagrees with it.
 */
static int cand_ptr__cmp(const void *a, const void *b)
{
	struct func_cand *const *x = a, *const *y = b;
	int c = strcmp((*x)->key, (*y)->key);

	if (c)
		return c;
	if (!(*x)->addr != !(*y)->addr)
		return (*x)->addr ? -1 : 1;
	return *x < *y ? -1 : *x > *y;
}

static int u64__cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/*
 * Puts pointers to @cands into @sorted, in cand_ptr__cmp()'s order.  The
 * symbol index holds the keys in strcmp() order, once each, so a key's
 * place there sorts as its name, and a sort of integers is many times
 * cheaper than one of names that share long prefixes.  Each candidate
 * becomes one integer: its key's index in the high half, bit 31 set when
 * it has no code, and its position in the low 31 bits.  Returns 0 or
 * -ENOMEM.
 */
static int cands__sort(const struct elf_symtab *syms,
		       struct func_cand *cands, size_t nr,
		       struct func_cand **sorted)
{
	uint64_t *ord = malloc((nr ? nr : 1) * sizeof(*ord));
	size_t i;

	if (!ord)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const struct elf_func_key *k =
			elf_symtab__find_key(syms, cands[i].key);

		if (!k || k->key != cands[i].key || nr > INT32_MAX) {
			/*
			 * A key that is not the index's own string, or more
			 * candidates than 31 bits can count, fall back to
			 * sorting with cand_ptr__cmp().
			 */
			free(ord);
			for (i = 0; i < nr; i++)
				sorted[i] = &cands[i];
			qsort(sorted, nr, sizeof(*sorted), cand_ptr__cmp);
			return 0;
		}
		ord[i] = (uint64_t)(k - syms->keys) << 32 |
			 (uint64_t)!cands[i].addr << 31 | i;
	}
	qsort(ord, nr, sizeof(*ord), u64__cmp);
	for (i = 0; i < nr; i++)
		sorted[i] = &cands[(uint32_t)ord[i] & INT32_MAX];
	free(ord);
	return 0;
}

/* A FWD counts as the struct or union it declares (pahole's fwd__kind()). */
static int match_kind(const struct btf_type *t)
{
	if (btf_is_fwd(t))
		return btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT;
	return btf_kind(t);
}

/*
 * Do two types of the merged (not yet deduplicated) BTF describe the same
 * C type?  Named aggregates and typedefs match by name, since their bodies
 * are checked by dedup anyway, and a const on one side only is skipped.
 * This mirrors pahole's types__match() in btf_encoder.c.
 */
static bool types_match(const struct btf_concat *types, uint32_t a, uint32_t b,
			int depth)
{
	const struct btf_type *ta, *tb;
	const char *na, *nb;

	if (a == b)
		return true;
	if (!a || !b || depth > MATCH_DEPTH)
		return false;
	ta = btf_concat__type_by_id(types, a);
	tb = btf_concat__type_by_id(types, b);
	if (!ta || !tb)
		return false;
	if (match_kind(ta) != match_kind(tb)) {
		if (btf_is_const(ta))
			return types_match(types, ta->type, b, depth + 1);
		if (btf_is_const(tb))
			return types_match(types, a, tb->type, depth + 1);
		return false;
	}
	na = btf_concat__name_by_offset(types, ta->name_off);
	nb = btf_concat__name_by_offset(types, tb->name_off);
	if (!na || !nb)
		return false;
	switch (match_kind(ta)) {
	case BTF_KIND_INT:
		return ta->size == tb->size &&
		       *(const uint32_t *)(ta + 1) == *(const uint32_t *)(tb + 1) &&
		       !strcmp(na, nb);
	case BTF_KIND_FLOAT:
		return ta->size == tb->size && !strcmp(na, nb);
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return !strcmp(na, nb);
	case BTF_KIND_PTR:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		return types_match(types, ta->type, tb->type, depth + 1);
	case BTF_KIND_ARRAY:
		return btf_array(ta)->nelems == btf_array(tb)->nelems &&
		       types_match(types, btf_array(ta)->type,
				   btf_array(tb)->type, depth + 1);
	case BTF_KIND_FUNC_PROTO: {
		const struct btf_param *pa = btf_params(ta), *pb = btf_params(tb);
		int i;

		if (btf_vlen(ta) != btf_vlen(tb) ||
		    !types_match(types, ta->type, tb->type, depth + 1))
			return false;
		for (i = 0; i < btf_vlen(ta); i++)
			if (!types_match(types, pa[i].type, pb[i].type, depth + 1))
				return false;
		return true;
	}
	default:
		return false;
	}
}

/*
 * Returns where the prototypes of A and B first differ, checked in the
 * order of pahole's funcs__match(): the parameter count, the result, then
 * each parameter, whose 0-based index then goes to *PARAM.
 */
static enum func_mismatch protos_match(const struct btf_concat *types,
				       const struct func_param *params,
				       const struct func_cand *a,
				       const struct func_cand *b,
				       uint32_t *param)
{
	uint32_t i;

	if (a->nr_params != b->nr_params)
		return FUNC_MISMATCH_NR_PARAMS;
	if (!types_match(types, a->ret_type, b->ret_type, 0))
		return FUNC_MISMATCH_RETURN;
	for (i = 0; i < a->nr_params; i++)
		if (!types_match(types, params[a->first_param + i].type_id,
				 params[b->first_param + i].type_id, 0)) {
			*param = i;
			return FUNC_MISMATCH_PARAM;
		}
	return FUNC_MISMATCH_NONE;
}

/* The longest FUNC name the kernel takes (KSYM_NAME_LEN - 1). */
#define FUNC_NAME_MAX	511

/*
 * Each verdict's one-word name, its text for people, and pahole's words
 * for it, which scripts grep for.
 */
static const struct {
	const char *name, *text, *pahole;
} verdicts[FUNC_VERDICT__MAX] = {
	[FUNC_ENCODED] = { "encoded", "encoded", NULL },
	[FUNC_ENCODED_CLONE] = { "encoded-clone",
		"encoded under a clone's name", NULL },
	[FUNC_SKIP_BAD_REG] = { "unexpected-register",
		"a parameter is not where the calling convention puts it",
		"unexpected register usage for parameter" },
	[FUNC_SKIP_INCONSISTENT] = { "inconsistent", "its prototypes differ",
		"inconsistet prototype" },	/* sic: pahole's spelling */
	[FUNC_SKIP_UNCERTAIN] = { "uncertain-location",
		"a packed struct is passed by value on the stack",
		"uncertain parameter location" },
	[FUNC_SKIP_REORDERED] = { "reordered", "its parameters were reordered",
		"reordered parameters" },
	[FUNC_SKIP_OPTIMIZED] = { "optimized",
		"a parameter was optimized away and the signature changed",
		"optimized parameters" },
	[FUNC_SKIP_AMBIGUOUS] = { "ambiguous", "its name has several addresses",
		"ambiguous address" },
	/* pahole has no such rule: its BTF then fails to load. */
	[FUNC_SKIP_LONG_NAME] = { "long-name",
		"its name is longer than the kernel takes", NULL },
};

const char *func_verdict__pahole(enum func_verdict v)
{
	return v < FUNC_VERDICT__MAX ? verdicts[v].pahole : NULL;
}

const char *func_verdict__name(enum func_verdict v)
{
	return v < FUNC_VERDICT__MAX ? verdicts[v].name : NULL;
}

const char *func_verdict__text(enum func_verdict v)
{
	return v < FUNC_VERDICT__MAX ? verdicts[v].text : NULL;
}

enum sym_kind {
	SYM_ANY,
	SYM_CLONE,		/* a '.' suffix: foo.isra.0 */
	SYM_CHANGED,		/* .isra or .constprop: gcc may have changed it */
};

/*
 * Returns the name of key @k's first symbol at @addr that is of @kind, or
 * NULL.  Without an address (0), only SYM_ANY can match.
 */
static const char *elf_symtab__sym_at(const struct elf_symtab *st,
			  const struct elf_func_key *k, uint64_t addr,
			  enum sym_kind kind)
{
	uint32_t i;

	if (!addr && kind != SYM_ANY)
		return NULL;
	for (i = 0; i < k->nr; i++) {
		const struct elf_sym *s = elf_symtab__key_sym(st, k, i);
		const char *dot = strchr(s->name, '.');

		if (s->addr != addr)
			continue;
		if (kind == SYM_ANY || (dot && (kind == SYM_CLONE ||
		    strstr(dot, ".constprop") || strstr(dot, ".isra"))))
			return s->name;
	}
	return NULL;
}

/*
 * A parameter optimized away in a function whose signature changed: its
 * BTF would say it takes what it does not.  true_signature describes such
 * functions as they are called instead.
 */
static bool elf_symtab__skip_optimized(const struct elf_symtab *st,
			   const struct encode_opts *opts,
			   const struct elf_func_key *k, const struct func_cand *c)
{
	return !opts->true_signature && (c->flags & FUNC_CAND_OPTIMIZED) &&
	       ((c->flags & FUNC_CAND_NOCALL) ||
		elf_symtab__sym_at(st, k, c->addr, SYM_CHANGED));
}

#define FUNC_CAND_VETO (FUNC_CAND_BAD_REG | FUNC_CAND_INCONSISTENT | \
			FUNC_CAND_UNCERTAIN | FUNC_CAND_REORDERED)

/*
 * Decides one group of candidates sharing a key, into @d.  A NULL
 * d->chosen means the function is left out.  d->name is what the FUNC is
 * called: the key, or with true_signature the clone symbol whose code the
 * chosen candidate describes.
 */
static void decide_group(const struct btf_concat *types,
			 const struct elf_symtab *st,
			 const struct encode_opts *opts,
			 const struct func_param *params,
			 struct func_cand **g, size_t n,
			 struct func_decision *d)
{
	const struct elf_func_key *k = elf_symtab__find_key(st, g[0]->key);
	struct func_cand *first = g[0];
	const struct func_cand *canon = first;
	enum func_verdict v = FUNC_ENCODED;
	uint32_t veto;
	size_t i;

	memset(d, 0, sizeof(*d));
	d->name = first->key;
	d->cands = g;
	d->nr = n;
	d->key = k;
	/*
	 * Candidates are made for the index's keys only.  A group whose key
	 * is missing is left out, and funcs__emit() does not report it.
	 */
	if (!k)
		return;
	/*
	 * The first candidate and each other one share their veto flags.  A
	 * pair already vetoed for a bad register, differing prototypes or
	 * reordered parameters is not compared again.
	 */
	for (i = 1; i < n; i++) {
		struct func_cand *b = g[i];
		uint32_t shared = (first->flags | b->flags) & FUNC_CAND_VETO;

		first->flags |= shared;
		b->flags |= shared;
		if (shared & (FUNC_CAND_BAD_REG | FUNC_CAND_INCONSISTENT |
			      FUNC_CAND_REORDERED))
			continue;
		d->mismatch = protos_match(types, params, first, b, &d->param);
		if (d->mismatch) {
			first->flags |= FUNC_CAND_INCONSISTENT;
			d->other = b;
		}
	}
	/*
	 * true_signature: the first candidate (in cand_ptr__cmp() order)
	 * that is the code of a clone symbol, with its parameters where the
	 * ABI puts them, is that clone, whatever the other candidates say.
	 * A candidate's flags include those of the ones before it.
	 */
	for (i = 0; opts->true_signature && i < n; i++) {
		const char *clone = elf_symtab__sym_at(st, k, g[i]->addr, SYM_CLONE);

		if (clone && !(g[i]->flags & (FUNC_CAND_BAD_REG | FUNC_CAND_UNCERTAIN))) {
			d->name = clone;
			d->chosen = g[i];
			d->verdict = FUNC_ENCODED_CLONE;
			return;
		}
	}
	/*
	 * With several candidates, the one encoded is the first whose address
	 * is one of the key's symbols and that is not to be skipped as
	 * optimized; failing that, the first at a symbol's address, and
	 * failing that, the first of all.
	 */
	if (n > 1) {
		const struct func_cand *any = NULL;

		canon = NULL;
		for (i = 0; i < n && !canon; i++) {
			const struct func_cand *c = g[i];

			if (!elf_symtab__sym_at(st, k, c->addr, SYM_ANY))
				continue;
			if (!any)
				any = c;
			if (!elf_symtab__skip_optimized(st, opts, k, c))
				canon = c;
		}
		if (!canon)
			canon = any ? any : first;
	}
	/*
	 * Every reason that holds is checked, and the last one wins, because
	 * pahole names that one (enum func_verdict lists them in order).
	 */
	veto = first->flags;
	/*
	 * Without consistent_func, differing prototypes do not keep a
	 * function out, as in pahole without that feature.
	 */
	if (!opts->consistent_func)
		veto &= ~FUNC_CAND_INCONSISTENT;
	if (veto & FUNC_CAND_BAD_REG)
		v = FUNC_SKIP_BAD_REG;
	if (veto & FUNC_CAND_INCONSISTENT)
		v = FUNC_SKIP_INCONSISTENT;
	if (veto & FUNC_CAND_UNCERTAIN)
		v = FUNC_SKIP_UNCERTAIN;
	if (veto & FUNC_CAND_REORDERED)
		v = FUNC_SKIP_REORDERED;
	if (elf_symtab__skip_optimized(st, opts, k, canon))
		v = FUNC_SKIP_OPTIMIZED;
	if (k->ambiguous)
		v = FUNC_SKIP_AMBIGUOUS;
	/*
	 * The kernel takes names of up to KSYM_NAME_LEN (512) bytes with
	 * the NUL, and refuses the whole BTF for one longer: Rust's v0
	 * mangled names of generic code often are.
	 */
	if (strlen(k->key) > FUNC_NAME_MAX)
		v = FUNC_SKIP_LONG_NAME;
	d->verdict = v;
	d->chosen = v == FUNC_ENCODED || v == FUNC_SKIP_OPTIMIZED ? canon : NULL;
}

/*
 * PTR -> TYPE_TAG "address_space(1)" with kind_flag set (an attribute, not
 * a tag) -> what PTR pointed to: how pahole's attributes feature marks
 * the pointers of kfuncs that work on BPF arena memory.
 */
static int arena_ptr(struct btf_concat *out, uint32_t ptr)
{
	const struct btf_type *t = btf_concat__type_by_id(out, ptr);
	int tag;

	if (!t || !btf_is_ptr(t))
		return -EINVAL;
	tag = btf_concat__add_type_tag(out, "address_space(1)", t->type, true);
	if (tag < 0)
		return tag;
	return btf_concat__add_ptr(out, tag);
}

/*
 * Replaces *RET and ARGS[0..1] by arena pointers where kfunc K's flags
 * (KF_ARENA_RET, KF_ARENA_ARG1, KF_ARENA_ARG2) ask for them.  Returns 0 or
 * a negative errno; -EINVAL if such a type is no pointer or such an
 * argument does not exist.
 */
static int arena_types(struct btf_concat *out,
		       const struct elf_kfunc *k, uint32_t *ret, uint32_t *args,
		       uint32_t nr_args)
{
	static const uint32_t arg_flag[2] = { KF_ARENA_ARG1, KF_ARENA_ARG2 };
	uint32_t i;
	int id;

	if (k->flags & KF_ARENA_RET) {
		id = arena_ptr(out, *ret);
		if (id < 0)
			return id;
		*ret = id;
	}
	for (i = 0; i < 2; i++) {
		if (!(k->flags & arg_flag[i]))
			continue;
		id = i < nr_args ? arena_ptr(out, args[i]) : -EINVAL;
		if (id < 0)
			return id;
		args[i] = id;
	}
	return 0;
}

/*
 * Appends candidate C as a FUNC_PROTO, a FUNC named NAME, and C's decl
 * tags.  With ARENA (a kfunc whose flags name arena pointers), the result
 * and the first two parameters may become arena pointers (arena_types()).
 * Returns the FUNC's id or a negative errno.
 */
static int add_func(struct btf_concat *out,
		    const struct func_param *params,
		    const struct decl_tag *tags, const struct func_cand *c,
		    const char *name, const struct elf_kfunc *arena)
{
	uint32_t i, ret = c->ret_type, args[2] = { 0, 0 };
	int id, func, err;

	for (i = 0; i < 2 && i < c->nr_params; i++)
		args[i] = params[c->first_param + i].type_id;
	if (arena) {
		err = arena_types(out, arena, &ret, args, c->nr_params);
		if (err)
			return err;
	}
	id = btf_concat__add_func_proto(out, ret);
	if (id < 0)
		return id;
	for (i = 0; i < c->nr_params; i++) {
		const struct func_param *p = &params[c->first_param + i];

		err = btf_concat__add_func_param(out, p->name,
						 i < 2 ? args[i] : p->type_id);
		if (err)
			return err;
	}
	/* pahole marks every function static; so do we. */
	func = btf_concat__add_func(out, name, BTF_FUNC_STATIC, id);
	for (i = 0; func >= 0 && i < c->nr_tags; i++) {
		const struct decl_tag *t = &tags[c->first_tag + i];

		err = btf_concat__add_decl_tag(out, t->value, func,
					       t->component);
		if (err < 0)
			return err;
	}
	return func;
}

/*
 * Tags FUNC_ID with the decl tag "bpf_kfunc" if NAME is a kfunc, and also
 * with "bpf_fastcall" if its flags have KF_FASTCALL, because the verifier
 * and bpftool look for these tags.  Returns 0 or a negative errno.
 */
static int add_kfunc_tags(struct btf_concat *out,
			  const struct elf_symtab *syms, const char *name,
			  int func_id)
{
	const struct elf_kfunc *k = elf_symtab__find_kfunc(syms, name);
	int err;

	if (!k)
		return 0;
	err = btf_concat__add_decl_tag(out, "bpf_kfunc", func_id, -1);
	if (err < 0 || !(k->flags & KF_FASTCALL))
		return err < 0 ? err : 0;
	err = btf_concat__add_decl_tag(out, "bpf_fastcall", func_id, -1);
	return err < 0 ? err : 0;
}

/*
 * funcs.h has the contract.  The candidates are sorted so that each key's
 * group is contiguous, and the groups are decided and emitted in the
 * index's key order, which is the order of their names.
 */
int funcs__emit(const struct btf *btf, struct btf_concat *out,
		const struct elf_symtab *syms,
		const struct encode_opts *opts, struct func_cand *cands,
		size_t nr, const struct func_param *params,
		const struct decl_tag *tags, struct func_report *rep)
{
	struct func_cand **sorted;
	size_t i, j;
	int added = 0, err = 0;

	sorted = malloc((nr ? nr : 1) * sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	err = cands__sort(syms, cands, nr, sorted);
	if (err) {
		free(sorted);
		return err;
	}
	for (i = 0; i < nr; i = j) {
		const struct elf_kfunc *k = NULL;
		struct func_decision d;
		const struct func_cand *c;
		const char *name;
		bool kfunc;
		int id;

		for (j = i + 1; j < nr && !strcmp(sorted[j]->key, sorted[i]->key); j++)
			;
		decide_group(out, syms, opts, params, &sorted[i], j - i, &d);
		if (!d.key)
			continue;
		if (rep) {
			rep->counts[d.verdict]++;
			if (rep->decided)
				rep->decided(rep->ctx, btf, syms, params, &d);
		}
		if (d.verdict != FUNC_ENCODED && d.verdict != FUNC_ENCODED_CLONE)
			continue;
		c = d.chosen;
		name = d.name;
		/*
		 * A function encoded under a clone's name is not a kfunc,
		 * and pahole does not tag it either.
		 */
		kfunc = opts->kfunc_tags && !strcmp(name, c->key);
		/* As in pahole, arena attributes need kfunc tags. */

		if (kfunc && opts->attributes)
			k = elf_symtab__find_kfunc(syms, c->key);
		id = add_func(out, params, tags, c, name, k);
		if (id >= 0 && kfunc)
			id = add_kfunc_tags(out, syms, c->key, id);
		if (id < 0) {
			err = id;
			break;
		}
		added++;
	}
	free(sorted);
	return err ? err : added;
}
