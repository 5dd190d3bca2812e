// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file is the `dwarf2btf diff` subcommand (diff_cmd.h): it reads the
 * options and both sides (and their bases), collects their items
 * (btf_items.h), compares them (btf_diff.h), and prints the summary line;
 * the exit code says whether they differ.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "diff/btf_diff.h"
#include "diff/btf_items.h"
#include "lib/btf_load.h"
#include "diff/diff_cmd.h"
#include "lib/log.h"

/* A side is one of the two BTFs compared, with its base and its items. */
struct side {
	const char *path;
	const char *base_path;
	struct btf *base;
	struct btf *btf;
	struct btf_items items;
};

/* struct diff_opts holds what the command line asks for. */
struct diff_opts {
	bool kinds[CAT_NR];
	bool no_base_dups;
	bool flat_arrays;
	bool summary;
	bool quiet;
	bool verbose;
};

/* usage() prints the --help text, which users read, to @f. */
static void usage(FILE *f)
{
	fputs(
"Usage: dwarf2btf diff [options] A B\n"
"Compare two BTF blobs (raw BTF files or ELF files with a .BTF section) by\n"
"meaning: type ids and order are ignored.\n"
"\n"
"  --base BASE        A and B are split BTF over BASE (e.g. modules over\n"
"                     vmlinux); only their own types are compared\n"
"  --base-a BASE, --base-b BASE\n"
"                     bases for A and B separately\n"
"  --kinds=LIST       compare only these, comma separated:\n"
"                     types,funcs,vars,tags (default: all)\n"
"  --ignore-funcs     same as leaving funcs out of --kinds\n"
"  --no-base-dups     leave out items of A or B equal to an item of their\n"
"                     base (split BTF repeating types its base has)\n"
"  --flat-arrays      read an array of arrays as one array of all their\n"
"                     elements, as pahole up to 1.31 wrote int[2][3]\n"
"                     (int[6]): to compare with BTF such a pahole made\n"
"  --summary          print only the summary line\n"
"  -q, --quiet        print nothing; the exit code tells\n"
"  -v, --verbose      let libbpf print its own warnings\n"
"  -h, --help         this text\n"
"\n"
"Items: named struct/union/enum/enum64/typedef/fwd/int/float (and anonymous\n"
"ones nothing refers to) are 'types', FUNCs 'funcs', VARs and DATASECs\n"
"'vars', decl and type tags 'tags'.  Output: '- ITEM' only in A, '+ ITEM'\n"
"only in B, '~ KIND NAME' then '- old' / '+ new' parts for items in both\n"
"that differ; then a summary line.  Member offsets ('@N') are in bits.\n"
"\n"
"Exit status: 0 same, 1 different, 2 usage or read error.\n", f);
}

/*
 * diff_opts__parse_kinds() reads --kinds=LIST: only the categories named
 * in the comma-separated @list are compared.
 */
static int diff_opts__parse_kinds(struct diff_opts *o, const char *list)
{
	const char *p = list, *e;
	size_t n;
	int k;

	memset(o->kinds, 0, sizeof(o->kinds));
	do {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		for (k = 0; k < CAT_NR; k++) {
			if (strlen(btf_item_cat_names[k]) == n &&
			    !strncmp(btf_item_cat_names[k], p, n))
				break;
		}
		if (k == CAT_NR) {
			pr_err("diff: unknown kind '%.*s' in --kinds (types,funcs,vars,tags)",
			       (int)n, p);
			return -EINVAL;
		}
		o->kinds[k] = true;
		p += n + 1;
	} while (e);
	return 0;
}

enum {
	OPT_BASE = 256,
	OPT_BASE_A,
	OPT_BASE_B,
	OPT_KINDS,
	OPT_IGNORE_FUNCS,
	OPT_NO_BASE_DUPS,
	OPT_FLAT_ARRAYS,
	OPT_SUMMARY,
};

/*
 * parse_args() reads the command line into @o and the two sides.  It
 * returns 0 to go on, 1 after --help, or -EINVAL after a one-line error.
 */
static int parse_args(int argc, char **argv, struct diff_opts *o,
		      struct side *sa, struct side *sb)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, OPT_BASE },
		{ "base-a", required_argument, NULL, OPT_BASE_A },
		{ "base-b", required_argument, NULL, OPT_BASE_B },
		{ "kinds", required_argument, NULL, OPT_KINDS },
		{ "ignore-funcs", no_argument, NULL, OPT_IGNORE_FUNCS },
		{ "no-base-dups", no_argument, NULL, OPT_NO_BASE_DUPS },
		{ "flat-arrays", no_argument, NULL, OPT_FLAT_ARRAYS },
		{ "summary", no_argument, NULL, OPT_SUMMARY },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool ignore_funcs = false;
	int c, k;

	for (k = 0; k < CAT_NR; k++)
		o->kinds[k] = true;
	optind = 0;	/* In GNU getopt, 0 starts a fresh scan of this argv. */
	opterr = 0;	/* We print our own one-line messages. */
	while ((c = getopt_long(argc, argv, ":hqv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return 1;
		case 'q':
			o->quiet = true;
			break;
		case 'v':
			o->verbose = true;
			break;
		case OPT_SUMMARY:
			o->summary = true;
			break;
		case OPT_IGNORE_FUNCS:
			ignore_funcs = true;
			break;
		case OPT_NO_BASE_DUPS:
			o->no_base_dups = true;
			break;
		case OPT_FLAT_ARRAYS:
			o->flat_arrays = true;
			break;
		case OPT_KINDS:
			if (diff_opts__parse_kinds(o, optarg))
				return -EINVAL;
			break;
		case OPT_BASE_A:
			sa->base_path = optarg;
			break;
		case OPT_BASE_B:
			sb->base_path = optarg;
			break;
		case OPT_BASE:
			sa->base_path = sb->base_path = optarg;
			break;
		case ':':
			pr_err("diff: no value for %s (see --help)",
			       argv[optind - 1]);
			return -EINVAL;
		default:
			if (optopt)
				pr_err("diff: unknown option -%c (see --help)",
				       optopt);
			else
				pr_err("diff: unknown option %s (see --help)",
				       argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (argc - optind > 2) {
		pr_err("diff: too many files: %s (see --help)",
		       argv[optind + 2]);
		return -EINVAL;
	}
	if (argc - optind != 2) {
		pr_err("diff: need two files to compare (see --help)");
		return -EINVAL;
	}
	if (ignore_funcs)
		o->kinds[CAT_FUNCS] = false;
	sa->path = argv[optind];
	sb->path = argv[optind + 1];
	return 0;
}

/*
 * side__drop_base_dups() does --no-base-dups: it leaves out the side's
 * items that its base has.
 */
static int side__drop_base_dups(struct side *s, const bool *kinds,
				bool flat_arrays)
{
	struct btf_items base = {};
	int err;

	if (!s->base)
		return 0;
	err = btf_items__collect(&base, s->base, s->base_path, kinds,
				 flat_arrays);
	if (!err)
		btf_items__drop(&s->items, &base);
	btf_items__free(&base);
	return err;
}

/* print_summary() prints one line of counts for each category compared. */
static void print_summary(FILE *out, const struct diff_opts *o,
			  const struct btf_diff_counts *c)
{
	const char *sep = "";
	int k;

	for (k = 0; k < CAT_NR; k++) {
		if (!o->kinds[k])
			continue;
		fprintf(out, "%s%s: %zu only in A, %zu only in B, %zu differ",
			sep, btf_item_cat_names[k], c->only_a[k], c->only_b[k],
			c->differ[k]);
		sep = "; ";
	}
	fputc('\n', out);
}

/*
 * diff_cmd__main() runs the diff and returns its exit status: 0 when the
 * sides are the same, 1 when they differ, 2 on a usage or read error.
 */
int diff_cmd__main(int argc, char **argv)
{
	struct side sa = {}, sb = {};
	libbpf_print_fn_t old_print = NULL;
	struct btf_diff_counts cnt = {};
	struct diff_opts o = {};
	int k, ret = 2, err;
	bool any = false;

	err = parse_args(argc, argv, &o, &sa, &sb);
	if (err) {
		if (err > 0)
			usage(stdout);
		return err > 0 ? 0 : 2;
	}

	/*
	 * Our own one-line errors say what went wrong, so libbpf's messages
	 * are silenced unless --verbose asks for them.
	 */
	if (!o.verbose)
		old_print = libbpf_set_print(NULL);

	if (sa.base_path) {
		sa.base = btf_load__file(sa.base_path, NULL, &err);
		if (!sa.base)
			goto out;
	}
	if (sb.base_path) {
		/* The same base for both sides is read once. */
		if (sa.base && !strcmp(sa.base_path, sb.base_path))
			sb.base = sa.base;
		else
			sb.base = btf_load__file(sb.base_path, NULL, &err);
		if (!sb.base)
			goto out;
	}
	sa.btf = btf_load__file(sa.path, sa.base, &err);
	if (!sa.btf)
		goto out;
	sb.btf = btf_load__file(sb.path, sb.base, &err);
	if (!sb.btf)
		goto out;
	if (btf_items__collect(&sa.items, sa.btf, sa.path, o.kinds,
			       o.flat_arrays) ||
	    btf_items__collect(&sb.items, sb.btf, sb.path, o.kinds,
			       o.flat_arrays))
		goto out;
	if (o.no_base_dups &&
	    (side__drop_base_dups(&sa, o.kinds, o.flat_arrays) ||
	     side__drop_base_dups(&sb, o.kinds, o.flat_arrays)))
		goto out;
	if (btf_diff__items(stdout, &sa.items, &sb.items,
			    !o.quiet && !o.summary, &cnt)) {
		pr_err("diff: %s", strerror(ENOMEM));
		goto out;
	}
	for (k = 0; k < CAT_NR; k++) {
		if (o.kinds[k] &&
		    (cnt.only_a[k] || cnt.only_b[k] || cnt.differ[k]))
			any = true;
	}
	if (!o.quiet)
		print_summary(stdout, &o, &cnt);
	if (fflush(stdout)) {
		pr_err("diff: write error: %s", strerror(errno));
		goto out;
	}
	ret = any ? 1 : 0;
out:
	btf_items__free(&sa.items);
	btf_items__free(&sb.items);
	btf__free(sa.btf);
	btf__free(sb.btf);
	if (sb.base != sa.base)
		btf__free(sb.base);
	btf__free(sa.base);
	if (!o.verbose)
		libbpf_set_print(old_print);
	return ret;
}
