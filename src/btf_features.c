// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file parses --btf_features with the same names, the same "listed
 * on, the rest off" rule and the same default set as pahole, so that
 * kernel builds and distribution scripts can pass their lists unchanged.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "btf_features.h"
#include "lib/log.h"

/* A feature is one name of --btf_features and what it turns on. */
struct feature {
	const char *name;
	bool is_default;
	void (*enable)(struct encode_opts *o);
};

/* encode_force is always on, because we always skip bad names. */
static void f_force(struct encode_opts *o) { (void)o; }
static void f_var(struct encode_opts *o) { o->encode_vars = true; }
static void f_float(struct encode_opts *o) { o->gen_floats = true; }
static void f_decl_tag(struct encode_opts *o) { o->skip_decl_tags = false; }
static void f_type_tag(struct encode_opts *o) { o->skip_type_tags = false; }
static void f_enum64(struct encode_opts *o) { o->skip_enum64 = false; }
/* optimized_func has no effect in pahole either. */
static void f_optimized(struct encode_opts *o) { (void)o; }
static void f_consistent(struct encode_opts *o) { o->consistent_func = true; }
static void f_kfuncs(struct encode_opts *o) { o->kfunc_tags = true; }
/* Our output is always reproducible, so reproducible_build does nothing. */
static void f_reproducible(struct encode_opts *o) { (void)o; }
static void f_global_var(struct encode_opts *o) { o->global_vars = true; }
static void f_distilled(struct encode_opts *o) { o->distilled_base = true; }
static void f_layout(struct encode_opts *o) { o->layout = true; }
static void f_attributes(struct encode_opts *o) { o->attributes = true; }
static void f_true_sig(struct encode_opts *o) { o->true_signature = true; }
/*
 * With force_cu_merging, pahole 1.32 reads all CUs as one, for DWARF that
 * refers across CUs (Rust's); we resolve such references in any case.
 * Its output means the same with it or without (checked on Linux 7.2), so
 * there is nothing to do.
 */
static void f_cu_merging(struct encode_opts *o) { (void)o; }

static const struct feature features[] = {
	{ "encode_force", true, f_force },
	{ "var", true, f_var },
	{ "float", true, f_float },
	{ "decl_tag", true, f_decl_tag },
	{ "type_tag", true, f_type_tag },
	{ "enum64", true, f_enum64 },
	{ "optimized_func", true, f_optimized },
	{ "consistent_func", true, f_consistent },
	{ "decl_tag_kfuncs", true, f_kfuncs },
	/*
	 * The names are in pahole 1.32's order, so that
	 * --supported_btf_features prints the same.  pahole lists layout only
	 * when its libbpf has btf__new_empty_opts() (Debian's 1.7 has not);
	 * we list it always, because we write the layout section ourselves.
	 */
	{ "reproducible_build", false, f_reproducible },
	{ "distilled_base", false, f_distilled },
	{ "global_var", false, f_global_var },
	{ "attributes", false, f_attributes },
	{ "true_signature", false, f_true_sig },
	{ "layout", false, f_layout },
	{ "force_cu_merging", false, f_cu_merging },
};

#define NR_FEATURES (sizeof(features) / sizeof(features[0]))

/*
 * features__clear() turns every feature off, which is what pahole starts
 * from when --btf_features is given.
 */
static void features__clear(struct encode_opts *o)
{
	o->encode_vars = false;
	o->global_vars = false;
	o->gen_floats = false;
	o->skip_decl_tags = true;
	o->skip_type_tags = true;
	o->skip_enum64 = true;
	o->consistent_func = false;
	o->kfunc_tags = false;
	o->distilled_base = false;
	o->layout = false;
	o->attributes = false;
	o->true_signature = false;
}

/* This turns the default set on, on top of what is on already. */
static void features__enable_default(struct encode_opts *o)
{
	size_t i;

	for (i = 0; i < NR_FEATURES; i++)
		if (features[i].is_default)
			features[i].enable(o);
}

void features__set_default(struct encode_opts *o)
{
	features__clear(o);
	features__enable_default(o);
}

/*
 * features__parse() applies one --btf_features (or, with @strict,
 * --btf_features_strict) list to @o.  A leading '+' and the name
 * "default" add the default set.  Unknown names are an error with
 * @strict, and otherwise only a warning.
 */
int features__parse(const char *list, bool strict, bool *seen,
		    struct encode_opts *o)
{
	char *copy, *tok, *save = NULL;
	size_t i;

	/*
	 * Kernel builds pass several lists (7.x passes the default names,
	 * then "attributes", then "layout").  As in pahole, only the first
	 * list turns everything off, and each list adds its features.
	 */
	if (!*seen)
		features__clear(o);
	*seen = true;
	if (*list == '+') {
		features__enable_default(o);
		list++;
	}
	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (!strcmp(tok, "default")) {
			features__enable_default(o);
			continue;
		}
		for (i = 0; i < NR_FEATURES; i++)
			if (!strcmp(tok, features[i].name))
				break;
		if (i < NR_FEATURES) {
			features[i].enable(o);
			continue;
		}
		if (strict) {
			pr_err("BTF feature '%s' is not supported (see --supported_btf_features)",
			       tok);
			free(copy);
			return -EINVAL;
		}
		/*
		 * The name is ignored, as pahole does, because kbuild passes
		 * names newer than the encoder; but we say so.
		 */
		pr_warn("BTF feature '%s' is not known, ignored (see --supported_btf_features)",
			tok);
	}
	free(copy);
	return 0;
}

void features__print_supported(FILE *f)
{
	const char *sep = "";
	size_t i;

	for (i = 0; i < NR_FEATURES; i++) {
		fprintf(f, "%s%s", sep, features[i].name);
		sep = ",";
	}
	fputc('\n', f);
}

/*
 * These are the language names of --lang and --lang_exclude.  0x2c is
 * DW_LANG_C17, which elfutils' dwarf.h does not name.
 */
static const struct {
	const char *name;
	int lang;
} languages[] = {
	{ "c89", DW_LANG_C89 }, { "c", DW_LANG_C }, { "c99", DW_LANG_C99 },
	{ "c11", DW_LANG_C11 }, { "c17", 0x2c },
	{ "c_plus_plus", DW_LANG_C_plus_plus },
	{ "c_plus_plus_03", DW_LANG_C_plus_plus_03 },
	{ "c_plus_plus_11", DW_LANG_C_plus_plus_11 },
	{ "c_plus_plus_14", DW_LANG_C_plus_plus_14 },
	{ "rust", DW_LANG_Rust }, { "go", DW_LANG_Go },
	{ "ada83", DW_LANG_Ada83 }, { "ada95", DW_LANG_Ada95 },
	{ "fortran77", DW_LANG_Fortran77 }, { "fortran90", DW_LANG_Fortran90 },
	{ "mips_assembler", DW_LANG_Mips_Assembler },
	{ "asm", DW_LANG_Mips_Assembler },
};

/*
 * features__parse_languages() sets the languages of --lang, or with
 * @exclude of --lang_exclude, from a comma-separated @list.  An unknown
 * name, or more than MAX_LANGS names, is an error.
 */
int features__parse_languages(const char *list, bool exclude,
			       struct encode_opts *o)
{
	const char *opt = exclude ? "--lang_exclude" : "--lang";
	char *copy, *tok, *save = NULL;
	size_t i;

	copy = strdup(list);
	if (!copy)
		return -ENOMEM;
	/* The last list given counts, as in pahole. */
	o->nr_langs = 0;
	o->langs_exclude = exclude;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(languages) / sizeof(languages[0]); i++)
			if (!strcmp(tok, languages[i].name))
				break;
		if (i == sizeof(languages) / sizeof(languages[0]) ||
		    o->nr_langs == MAX_LANGS) {
			pr_err("%s: unknown language '%s'", opt, tok);
			free(copy);
			return -EINVAL;
		}
		o->langs[o->nr_langs++] = languages[i].lang;
	}
	free(copy);
	return 0;
}
