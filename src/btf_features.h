/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * pahole's BTF feature names (--btf_features), mapped onto our options.
 * Without --btf_features we encode pahole's "default" set.
 */
#ifndef DWARF2BTF_BTF_FEATURES_H
#define DWARF2BTF_BTF_FEATURES_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/encode_opts.h"

/* Every default feature on (what `--btf_features=default` asks for). */
void features__set_default(struct encode_opts *o);

/*
 * Apply a --btf_features list: the listed features on.  The first list
 * (*@seen false; it is then set) first turns every feature off, later ones
 * add to it, as pahole's do.  "default" stands for the default set, a
 * leading '+' adds the list to it.  Unknown or unsupported names are
 * ignored (pahole: left for future features), or an error with @strict.
 * Returns 0 or -EINVAL.
 */
int features__parse(const char *list, bool strict, bool *seen,
		    struct encode_opts *o);

/* The names --supported_btf_features prints, comma separated. */
void features__print_supported(FILE *f);

/*
 * --lang=c,... (@exclude false: only these) or --lang_exclude=rust,...
 * (@exclude: all but these): 0, or -EINVAL for an unknown name.
 */
int features__parse_languages(const char *list, bool exclude,
			      struct encode_opts *o);

#endif
