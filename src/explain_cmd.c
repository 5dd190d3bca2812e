// SPDX-License-Identifier: GPL-2.0-only
/*
 * `dwarf2btf explain FILE [FUNC...]` runs the pipeline as an encoding run
 * would, but writes nothing.  It says of each function asked about (or,
 * with --all, of each one left out) whether it is in the BTF and why
 * (explain/explain.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "btf_features.h"
#include "explain/explain.h"
#include "explain_cmd.h"
#include "input/elf_file.h"
#include "lib/btf_load.h"
#include "lib/btf_view.h"
#include "lib/hash.h"
#include "lib/jobs.h"
#include "lib/key_set.h"
#include "lib/log.h"
#include "pipeline.h"
#include "stats.h"

static const char usage[] =
"usage: dwarf2btf explain [options] FILE [FUNC...]\n"
"\n"
"Say whether each function FUNC gets BTF from FILE's DWARF and, if not,\n"
"why: the prototypes that disagree and their CUs, the parameter and where\n"
"the DWARF puts it, the ELF symbols, the packed struct passed by value.\n"
"A FUNC that is a variable: each of its DIEs, a VAR or why not.\n"
"Ends with the number of functions per reason.  Nothing is written.\n"
"\n"
"  --all                 every function left out, and the FUNCs asked about\n"
"  --json                JSON instead of text\n"
"  --base=BASE, --btf_base=BASE\n"
"                        FILE is a module over BASE's BTF (as when encoding)\n"
"  --btf_features=LIST   the features of the encoding run to explain\n"
"                        (default: default, as when encoding)\n"
"  --lang=LANG,...       only CUs of these languages, as when encoding\n"
"  --lang_exclude=LANG,...\n"
"                        all CUs but these languages'\n"
"  -j N, --jobs=N        threads (default: all CPUs)\n"
"  -h, --help            this text\n"
"\n"
"Exit status: 0; 1 when a FUNC is neither a function nor a variable of\n"
"FILE, or FILE cannot be read; 2 on a usage error.\n";

enum { OPT_ALL = 256, OPT_JSON, OPT_BASE, OPT_FEATURES, OPT_LANG,
       OPT_LANG_EXCLUDE };

/*
 * machine_of() returns the e_machine of PATH, which names the registers in
 * the explanations, or 0 when it cannot be read.
 */
static int machine_of(const char *path)
{
	struct elf_file ef;
	int m;

	if (elf_file__open_quiet(&ef, path))
		return 0;
	m = ef.ehdr.e_machine;
	elf_file__close(&ef);
	return m;
}

/* struct explain_args holds what the command line asks for. */
struct explain_args {
	struct pipeline_opts opts;
	struct explain_opts eo;
	const char *base_path;
	struct btf_view base_view;	/* Of opts.base. */
};

/*
 * explain_cmd__parse() reads the command line into @a.  It returns the
 * exit status when the command ends here (help, usage errors), and -1
 * otherwise.  The defaults are those of an encoding run, so that the
 * explanations match what it would encode.
 */
static int explain_cmd__parse(int argc, char **argv, struct explain_args *a)
{
	static const struct option longopts[] = {
		{ "all", no_argument, NULL, OPT_ALL },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "base", required_argument, NULL, OPT_BASE },
		{ "btf_base", required_argument, NULL, OPT_BASE },
		{ "btf_features", required_argument, NULL, OPT_FEATURES },
		{ "lang", required_argument, NULL, OPT_LANG },
		{ "lang_exclude", required_argument, NULL, OPT_LANG_EXCLUDE },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	bool features_seen = false;
	int c;

	a->opts.jobs = ncpu > 0 ? (ncpu > JOBS_MAX ? JOBS_MAX : ncpu) : 1;
	features__set_default(&a->opts.enc);
	optind = 1;
	while ((c = getopt_long(argc, argv, "hj:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_ALL:
			a->eo.all = true;
			break;
		case OPT_JSON:
			a->eo.json = true;
			break;
		case OPT_BASE:
			a->base_path = optarg;
			break;
		case OPT_FEATURES:
			if (features__parse(optarg, false, &features_seen,
					    &a->opts.enc))
				return 2;
			break;
		case OPT_LANG:
		case OPT_LANG_EXCLUDE:
			if (features__parse_languages(optarg,
						      c == OPT_LANG_EXCLUDE,
						      &a->opts.enc))
				return 2;
			break;
		case 'j':
			if (jobs__parse(optarg, &a->opts.jobs)) {
				pr_err("explain: -j takes 1 to 1024, not '%s'", optarg);
				return 2;
			}
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fputs(usage, stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		return 2;
	}
	a->eo.path = argv[optind];
	a->eo.names = argv + optind + 1;
	a->eo.nr_names = argc - optind - 1;
	a->eo.machine = machine_of(a->eo.path);
	return -1;
}

/*
 * explain_cmd__load_base() loads the base's BTF and prepares it as an
 * encoding run over it does.  It returns 0, or the exit status 1.
 */
static int explain_cmd__load_base(struct explain_args *a)
{
	int err;

	a->opts.base = btf_load__file(a->base_path, NULL, &err);
	if (!a->opts.base)
		return 1;
	err = pipeline__prepare_base(a->opts.base) ?:
	      btf_view__from_btf(&a->base_view, a->opts.base);
	if (err) {
		pr_err("%s: %s", a->base_path, strerror(-err));
		btf__free(a->opts.base);
		a->opts.base = NULL;
		return 1;
	}
	a->opts.base_view = &a->base_view;
	return 0;
}

/*
 * explain_cmd__main() runs the explain command and returns its exit
 * status.  The pipeline runs with dry_run set and reports each decision
 * to the explanation (explain__report()), which is printed at the end.
 */
int explain_cmd__main(int argc, char **argv)
{
	struct explain_args a = { 0 };
	struct explain *e;
	struct stats st = { 0 };
	struct key_set names = { 0 };
	size_t i;
	int err, n;

	n = explain_cmd__parse(argc, argv, &a);
	if (n >= 0)
		return n;
	if (a.base_path && explain_cmd__load_base(&a))
		return 1;
	e = explain__new(&a.eo);
	if (!e) {
		pr_err("explain: %s", strerror(ENOMEM));
		btf__free(a.opts.base);
		btf_view__free(&a.base_view);
		return 1;
	}
	/* The encoder notes the fate of each variable DIE of these names. */
	for (i = 0; i < a.eo.nr_names; i++)
		if (key_set__add(&names, hash_str(a.eo.names[i]))) {
			pr_err("explain: %s", strerror(ENOMEM));
			n = 1;
			goto out;
		}
	key_set__sort(&names);
	a.opts.enc.explain_names = &names;
	a.opts.dry_run = true;
	a.opts.report = explain__report(e);
	a.opts.stats_out = &st;
	err = pipeline__run(a.eo.path, &a.opts);
	n = err ? err : explain__print(e, stdout, st.func_verdicts);
	if (n < 0 && !err)
		pr_err("%s: %s", a.eo.path, strerror(-n));
out:
	key_set__free(&names);
	explain__free(e);
	btf__free(a.opts.base);
	btf_view__free(&a.base_view);
	return n ? 1 : 0;
}
