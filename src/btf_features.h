/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * This maps pahole's BTF feature names (--btf_features) onto our options.
 * Without --btf_features we encode pahole's "default" set.
 */
#ifndef DWARF2BTF_BTF_FEATURES_H
#define DWARF2BTF_BTF_FEATURES_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/encode_opts.h"

/*
 * features__set_default() turns every default feature on and the others
 * off, which is what `--btf_features=default` asks for.
 */
void features__set_default(struct encode_opts *o);

/*
 * features__parse() applies a --btf_features list: the listed features are
 * turned on.  The first list (when *@seen is false, and it is then set)
 * first turns every feature off, and later ones add to it, as pahole's do.
 * "default" stands for the default set, and a leading '+' adds the list to
 * it.  Unknown or unsupported names are ignored, as pahole leaves them for
 * future features, or are an error with @strict.  It returns 0, -EINVAL or
 * -ENOMEM.
 */
int features__parse(const char *list, bool strict, bool *seen,
		    struct encode_opts *o);

/* This prints the names --supported_btf_features prints, comma separated. */
void features__print_supported(FILE *f);

/*
 * features__parse_languages() reads --lang=c,... (with @exclude false,
 * only these languages are encoded) or --lang_exclude=rust,... (with
 * @exclude, all but these).  It returns 0, -EINVAL for an unknown name, or
 * -ENOMEM.
 */
int features__parse_languages(const char *list, bool exclude,
			      struct encode_opts *o);

#endif
