// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file prints pahole's --verbose lines for the functions left out
 * (func_log.h).  The texts are those of pahole's btf_encoder.c, printed
 * by btf_encoder__log_func_skip() from funcs__match().
 */
#include <stdio.h>

#include "explain/func_log.h"

/* Every line starts as pahole's do; its %s is the function's name. */
#define SKIP	"%s : skipping BTF encoding of function due to "

/*
 * func_log__pahole() prints, when the prototypes of a function differ, the
 * line naming the first difference, as funcs__match() does, and then the
 * line with the verdict's reason when pahole has one for it.
 */
void func_log__pahole(void *ctx, const struct btf *btf,
		      const struct elf_symtab *syms,
		      const struct func_param *params,
		      const struct func_decision *d)
{
	const struct func_cand *a = d->cands[0], *b = d->other;
	const char *why = func_verdict__pahole(d->verdict);
	FILE *f = ctx;

	(void)btf;
	(void)syms;
	switch (d->mismatch) {
	case FUNC_MISMATCH_NR_PARAMS:
		fprintf(f, SKIP "param count mismatch; %u params != %u params\n",
			d->cands[0]->key, a->nr_params, b->nr_params);
		break;
	case FUNC_MISMATCH_RETURN:
		fprintf(f, SKIP "return type mismatch\n", a->key);
		break;
	case FUNC_MISMATCH_PARAM: {
		const char *n1 = params[a->first_param + d->param].name;
		const char *n2 = params[b->first_param + d->param].name;

		fprintf(f, SKIP "param type mismatch for param#%u %s %s %s\n",
			a->key, d->param + 1, n1 ? n1 : "",
			n1 && n2 ? "!=" : "", n2 ? n2 : "");
		break;
	}
	case FUNC_MISMATCH_NONE:
		break;
	}
	if (why)
		fprintf(f, SKIP "%s\n", a->key, why);
}
