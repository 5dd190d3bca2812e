// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file is the `dwarf2btf layout` subcommand (layout_cmd.h): it reads
 * the options (--lang and --lang_exclude as an encoding run reads them,
 * btf_features.h), the BTF (layout/btf_shapes.h) and the DWARF, opened as
 * an encoding run opens it (input/), walks every compile unit of the
 * languages asked for (layout/dwarf_shapes.h), and prints the verdicts
 * (layout/layout_check.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dwarf.h>

#include "btf_features.h"

#include "input/debug_file.h"
#include "input/debug_sections.h"
#include "input/dwarf_input.h"
#include "input/dwarf_layout.h"
#include "input/dwarf_units.h"
#include "input/elf_file.h"
#include "layout/btf_shapes.h"
#include "layout/dwarf_shapes.h"
#include "layout/layout_check.h"
#include "layout_cmd.h"
#include "lib/btf_load.h"
#include "lib/log.h"

/* usage() prints the --help text, which users read, to @f. */
static void usage(FILE *f)
{
	fputs(
"Usage: dwarf2btf layout [options] FILE [BTF]\n"
"Check that the BTF has every struct, class and union of FILE's DWARF at\n"
"the DWARF's layout: the same kind, size and members (bit offset and\n"
"size of each data member and non-virtual base class).  BTF is FILE's\n"
".BTF section by default, or a raw BTF file or an ELF file with .BTF.\n"
"In C units a struct's BTF twin has its name; in C++ units it is found by\n"
"its layout alone (the BTF name may be the scope-qualified one).\n"
"\n"
"  --base=BASE        BTF is split BTF over BASE (a module over vmlinux);\n"
"                     also --btf_base=BASE\n"
"  --debuginfo=PATH   the DWARF of a stripped FILE is in PATH\n"
"  --debug-root=DIR   where build-id debug files are (default\n"
"                     /usr/lib/debug)\n"
"  --alt-file=PATH    the dwz supplementary file the DWARF refers to\n"
"  --lang=LANG,...    only CUs of these languages (as when encoding)\n"
"  --lang_exclude=LANG,...\n"
"                     all CUs but these languages' (a kernel build's BTF:\n"
"                     --lang_exclude=rust)\n"
"  --rust-enums=MODE  how the BTF holds a Rust enum with data, as when\n"
"                     encoding: 'variants' (the default: a nameless union\n"
"                     at offset 0) or 'pahole' (no members)\n"
"  -h, --help         this text\n"
"\n"
"Output: a line for each struct whose layout the BTF lacks, naming its\n"
"CU, DIE offset and type, then the first member that differs from the\n"
"BTF type of its name ('not in BTF' without one); then a summary line:\n"
"'layout: N structs/unions checked, M mismatches, K not in the BTF'.\n"
"Each distinct layout is checked and counted once.\n"
"\n"
"Exit status: 0 all there, 1 mismatches or missing, 2 usage or read\n"
"error.\n", f);
}

enum { OPT_BASE = 256, OPT_DEBUGINFO, OPT_DEBUG_ROOT, OPT_ALT_FILE, OPT_LANG,
       OPT_LANG_EXCLUDE, OPT_RUST_ENUMS };

/* struct layout_args holds what the command line asks for. */
struct layout_args {
	const char *path;
	const char *btf_path;
	const char *base_path;
	const char *debuginfo;
	const char *debug_root;
	const char *alt_file;
	struct encode_opts langs;	/* only its languages are read */
	bool rust_enums_pahole;
};

/*
 * parse_args() reads the command line into @a.  It returns 0 to go on,
 * 1 after --help, or -EINVAL after a one-line error.
 */
static int parse_args(int argc, char **argv, struct layout_args *a)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, OPT_BASE },
		{ "btf_base", required_argument, NULL, OPT_BASE },
		{ "debuginfo", required_argument, NULL, OPT_DEBUGINFO },
		{ "debug-root", required_argument, NULL, OPT_DEBUG_ROOT },
		{ "alt-file", required_argument, NULL, OPT_ALT_FILE },
		{ "lang", required_argument, NULL, OPT_LANG },
		{ "lang_exclude", required_argument, NULL, OPT_LANG_EXCLUDE },
		{ "rust-enums", required_argument, NULL, OPT_RUST_ENUMS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;	/* In GNU getopt, 0 starts a fresh scan of this argv. */
	opterr = 0;	/* We print our own one-line messages. */
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			return 1;
		case OPT_BASE:
			a->base_path = optarg;
			break;
		case OPT_DEBUGINFO:
			a->debuginfo = optarg;
			break;
		case OPT_DEBUG_ROOT:
			a->debug_root = optarg;
			break;
		case OPT_ALT_FILE:
			a->alt_file = optarg;
			break;
		case OPT_LANG:
		case OPT_LANG_EXCLUDE:
			if (features__parse_languages(optarg,
						      c == OPT_LANG_EXCLUDE,
						      &a->langs))
				return -EINVAL;
			break;
		case OPT_RUST_ENUMS:
			if (strcmp(optarg, "variants") &&
			    strcmp(optarg, "pahole")) {
				pr_err("layout: --rust-enums takes \"variants\" or \"pahole\", not \"%s\"",
				       optarg);
				return -EINVAL;
			}
			a->rust_enums_pahole = !strcmp(optarg, "pahole");
			break;
		case ':':
			pr_err("layout: no value for %s (see --help)",
			       argv[optind - 1]);
			return -EINVAL;
		default:
			if (optopt)
				pr_err("layout: unknown option -%c (see --help)",
				       optopt);
			else
				pr_err("layout: unknown option %s (see --help)",
				       argv[optind - 1]);
			return -EINVAL;
		}
	}
	if (argc - optind > 2) {
		pr_err("layout: too many files: %s (see --help)",
		       argv[optind + 2]);
		return -EINVAL;
	}
	if (argc - optind < 1) {
		pr_err("layout: need the FILE to check (see --help)");
		return -EINVAL;
	}
	a->path = argv[optind];
	a->btf_path = argc - optind == 2 ? argv[optind + 1] : a->path;
	return 0;
}

/* The input's files and DWARF, opened as an encoding run opens them. */
struct layout_input {
	struct elf_file ef, dbg, alt;
	const struct elf_file *src;	/* the file with the DWARF */
	char *dbg_path;
	struct dwarf_input in;
	struct debug_sections secs;
	struct dwarf_layout layout;
	struct dwarf_units units;
};

/*
 * layout_input__open() opens @a->path, its separate debug file when it is
 * stripped, its DWARF and dwz's supplementary file, and lists the compile
 * units.  Returns 0 or a negative errno after one line.
 */
static int layout_input__open(struct layout_input *li,
			      const struct layout_args *a)
{
	int err;

	li->ef.fd = li->dbg.fd = li->alt.fd = -1;
	err = elf_file__open(&li->ef, a->path);
	if (err)
		return err;
	li->src = &li->ef;
	if (!elf_file__has_dwarf(&li->ef)) {
		err = debug_file__find(&li->ef, a->debuginfo, a->debug_root,
				       &li->dbg_path);
		if (!err)
			err = elf_file__open(&li->dbg, li->dbg_path);
		if (err)
			return err;
		li->src = &li->dbg;
	}
	err = dwarf_input__open(&li->in, li->src);
	if (err)
		return err;
	debug_sections__read(&li->secs, li->in.dw, !li->in.in_memory);
	err = dwarf_units__list(&li->units, a->path, li->in.dw, &li->secs,
				&li->layout, false);
	if (err)
		return err;
	if (li->layout.alt_forms)
		return dwarf_input__open_alt(&li->in, li->src, a->alt_file,
					     a->debug_root, &li->alt);
	return 0;
}

static void layout_input__close(struct layout_input *li)
{
	dwarf_units__free(&li->units);
	dwarf_input__close(&li->in);
	if (li->alt.fd >= 0)
		elf_file__close(&li->alt);
	if (li->dbg.fd >= 0)
		elf_file__close(&li->dbg);
	if (li->ef.fd >= 0)
		elf_file__close(&li->ef);
	free(li->dbg_path);
}

/* Is compile unit @cu of a language @o asks for (the encoder's rule)? */
static bool lang_wanted(const struct encode_opts *o, Dwarf_Die *cu)
{
	return encode_opts__lang_wanted(o, dwarf_srclang(cu));
}

/*
 * layout_cmd__check() walks every compile unit of @li of the languages
 * @a asks for, then every type unit, with @c's verdicts.
 * Returns 0 or a negative errno after one line.
 */
static int layout_cmd__check(struct layout_input *li,
			     const struct layout_args *a,
			     struct layout_check *c, uint64_t *nr_dies)
{
	struct dwarf_shapes w = {
		.path = li->src->path,
		.ptr_size = li->src->ptr_size,
		.big_endian = li->src->big_endian,
		.rust_variants = !a->rust_enums_pahole,
		.fn = layout_check__shape,
		.arg = c,
	};
	size_t i;
	int err = 0;

	for (i = 0; i < li->units.nr && !err; i++)
		if (lang_wanted(&a->langs, &li->units.cus[i]))
			err = dwarf_shapes__walk(&w, &li->units.cus[i]);
	/* A compile unit only names its type units' structs by signature. */
	for (i = 0; i < li->units.nr_type_units && !err; i++)
		if (lang_wanted(&a->langs, &li->units.type_units[i]))
			err = dwarf_shapes__walk(&w, &li->units.type_units[i]);
	if (err == -ENOMEM)
		pr_err("%s: %s", li->src->path, strerror(ENOMEM));
	*nr_dies = w.nr_dies;
	dwarf_shapes__free(&w);
	return err;
}

int layout_cmd__main(int argc, char **argv)
{
	struct layout_args a = {};
	struct layout_input li = {};
	struct layout_check c = { .out = stdout };
	struct btf_shapes shapes = {};
	struct btf *base = NULL, *btf = NULL;
	libbpf_print_fn_t old_print;
	uint64_t nr_dies = 0;
	int err, ret = 2;

	err = parse_args(argc, argv, &a);
	if (err) {
		if (err > 0)
			usage(stdout);
		return err > 0 ? 0 : 2;
	}
	c.rust_variants = !a.rust_enums_pahole;
	/* Our own one-line errors say what went wrong. */
	old_print = libbpf_set_print(NULL);
	li.ef.fd = li.dbg.fd = li.alt.fd = -1;
	if (a.base_path) {
		base = btf_load__file(a.base_path, NULL, &err);
		if (!base)
			goto out;
	}
	btf = btf_load__file(a.btf_path, base, &err);
	if (!btf)
		goto out;
	if (btf_shapes__new(&shapes, btf)) {
		pr_err("%s: %s", a.btf_path, strerror(ENOMEM));
		goto out;
	}
	if (layout_input__open(&li, &a))
		goto out;
	c.btf = &shapes;
	if (layout_cmd__check(&li, &a, &c, &nr_dies))
		goto out;
	ret = layout_check__summary(&c, nr_dies);
	if (fflush(stdout)) {
		pr_err("layout: write error: %s", strerror(errno));
		ret = 2;
	}
out:
	layout_check__free(&c);
	layout_input__close(&li);
	btf_shapes__free(&shapes);
	btf__free(btf);
	btf__free(base);
	libbpf_set_print(old_print);
	return ret;
}
