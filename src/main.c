// SPDX-License-Identifier: GPL-2.0-only
/*
 * dwarf2btf encodes BTF from the DWARF of an ELF file.  This file reads
 * the command line and hands the work to pipeline.c (one file),
 * file_set.c (several files), diff_cmd.c, explain_cmd.c or layout_cmd.c.
 *
 *   dwarf2btf [options] FILE         add/replace FILE's .BTF section
 *   dwarf2btf [options] -o OUT FILE  write raw BTF to OUT
 *   dwarf2btf diff A B [--base B]    compare two BTF blobs semantically
 *   dwarf2btf explain FILE [FUNC...] why a function is (not) in the BTF
 *   dwarf2btf layout FILE [BTF]      does the BTF have the DWARF's layouts
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <sys/stat.h>

#include "file_set.h"
#include "input/elf_file.h"
#include "lib/btf_load.h"
#include "lib/btf_view.h"
#include "diff/diff_cmd.h"
#include "explain_cmd.h"
#include "layout_cmd.h"
#include "cache/cache_dir.h"
#include "output/distill.h"
#include "pipeline.h"
#include "btf_features.h"
#include "lib/jobs.h"
#include "lib/grow.h"
#include "lib/log.h"
#include "output/output.h"

/* usage() prints the --help text, which users read, to @f. */
static void usage(FILE *f)
{
	fprintf(f,
"Usage: dwarf2btf [OPTIONS] FILE\n"
"       dwarf2btf [OPTIONS] [-o DIR/] FILE...\n"
"       dwarf2btf diff A B [--base BASE]\n"
"       dwarf2btf explain [--all] [--json] FILE [FUNC...]\n"
"       dwarf2btf layout FILE [BTF] [--base BASE]\n"
"\n"
"Encode BTF from the DWARF debug info of the ELF FILE (a vmlinux, a module,\n"
"an object file).  Without -o, FILE gets a .BTF section, added or replaced\n"
"atomically; with -o, raw BTF is written to OUT and FILE is left alone.\n"
"-o names a directory when OUT ends in '/', is one already, or with\n"
"--files-from: it gets one NAME.btf per FILE (modules, say, with --base\n"
"vmlinux); files are encoded -j at a time and a file that fails does not\n"
"stop the others.  Otherwise OUT is a file, for one FILE.\n"
"\n"
"Options:\n"
"  -o, --output=OUT     write raw BTF to OUT (a file, or a directory: see\n"
"                       above) instead of updating FILE\n"
"      --base=BASE      split BTF over BASE (raw BTF, or an ELF with .BTF,\n"
"                       e.g. vmlinux for a module); also --btf_base=BASE\n"
"  -j, --jobs[=N]       encode with N worker threads (default: CPUs online)\n"
"      --relocate       FILE (a module with .BTF over its distilled\n"
"                       .BTF.base) becomes split BTF over --base, to -o OUT\n"
"      --files-from=LIST\n"
"                       more FILEs, one per line in LIST ('-': stdin); -o\n"
"                       then names a directory\n"
"      --debuginfo=PATH the DWARF of a stripped FILE is in PATH (else found\n"
"                       by build-id below the debug root, or by its\n"
"                       .gnu_debuglink)\n"
"      --debug-root=DIR where build-id debug files are (default\n"
"                       /usr/lib/debug)\n"
"      --alt-file=PATH  the dwz supplementary file the DWARF refers to\n"
"                       (else found by its .gnu_debugaltlink or .debug_sup)\n"
"      --cache-dir=DIR  where to keep what later runs reuse (the index of a\n"
"                       --base; default $DWARF2BTF_CACHE_DIR, else\n"
"                       $XDG_CACHE_HOME/dwarf2btf, else ~/.cache/dwarf2btf)\n"
"      --no-cache       neither read nor write it (also DWARF2BTF_NO_CACHE=1)\n"
"      --stats          print per-phase times, counts and peak RSS to stderr\n"
"                       (for several FILEs: phase times summed over them)\n"
"      --stats=keys     also count how many types repeat one met before,\n"
"                       by keys from the DWARF (slower; no cache)\n"
"      --plain-dedup    the reference path: no deduplication before the\n"
"                       end, then one dedup of everything (slower,\n"
"                       more memory; the same BTF by meaning)\n"
"      --dedup-base-typedefs\n"
"                       a module's typedefs may become the base's, as\n"
"                       libbpf does after 1.8.0 (smaller modules); by\n"
"                       default each module repeats the base typedefs it\n"
"                       uses, as pahole 1.32 with libbpf 1.7 or 1.8.0 does\n"
"                       (with --base only)\n"
"      --max-memory=SIZE\n"
"                       fail cleanly, naming the CU, once the resident\n"
"                       memory exceeds SIZE (bytes, or with K, M, G);\n"
"                       default: no limit\n"
"      --rust-enums=MODE\n"
"                       Rust units: 'variants' (the default) keeps an\n"
"                       enum's tag and variants, in a union at offset 0,\n"
"                       and makes names C identifiers; 'pahole' makes an\n"
"                       enum with data a struct without members and\n"
"                       keeps rustc's names, as pahole 1.32 does (the\n"
"                       default when run as pahole)\n"
"      --skip_encoding_btf_enum64\n"
"                       encode 64-bit enums as 32-bit ENUM\n"
"      --skip_encoding_btf_vars\n"
"                       no per-CPU variables\n"
"      --skip_encoding_btf_decl_tag\n"
"                       no DECL_TAG from btf_decl_tag attributes\n"
"      --skip_encoding_btf_type_tag\n"
"                       no TYPE_TAG from btf_type_tag attributes\n"
"\n"
"pahole's options are accepted too: -J, --btf_encode_detached=OUT,\n"
"--btf_base=BASE, --btf_features[_strict]=LIST (pahole's feature names;\n"
"the listed ones on, the others off; without it: the default set),\n"
"--supported_btf_features, --btf_gen_floats, --btf_gen_all,\n"
"--btf_gen_optimized, --btf_encode_force, --btf_attributes,\n"
"--skip_encoding_btf_inconsistent_proto, --lang=LANG,... (only CUs of\n"
"these languages), --lang_exclude=LANG,... (all but these; also from\n"
"PAHOLE_LANG_EXCLUDE).\n"
"  -V, --verbose        print pahole's line for each function left out\n"
"                       (\"NAME : skipping BTF encoding of function due to\n"
"                       REASON\") to stdout\n"
"  -h, --help           show this help and exit\n"
"      --version        print the version and exit\n"
"\n"
"The output is the same for any -j.  Exit status: 0 on success, 1 on error,\n"
"2 on a usage error.  'dwarf2btf diff --help' describes the comparison,\n"
"'dwarf2btf explain --help' the reasons a function is left out,\n"
"'dwarf2btf layout --help' the check of struct layouts.\n");
}

enum {
	OPT_STATS = 256,
	OPT_VERSION,
	OPT_SKIP_ENUM64,
	OPT_SKIP_VARS,
	OPT_SKIP_DECL_TAG,
	OPT_SKIP_TYPE_TAG,
	OPT_BASE,
	OPT_DETACHED,
	OPT_FEATURES,
	OPT_FEATURES_STRICT,
	OPT_SUPPORTED,
	OPT_GEN_FLOATS,
	OPT_GEN_ALL,
	OPT_INCONSISTENT,
	OPT_LANG_EXCLUDE,
	OPT_LANG,
	OPT_BTF_ATTRIBUTES,
	OPT_NOOP,
	OPT_MAX_MEMORY,
	OPT_PLAIN_DEDUP,
	OPT_BASE_TYPEDEFS,
	OPT_FILES_FROM,
	OPT_RELOCATE,
	OPT_DEBUGINFO,
	OPT_DEBUG_ROOT,
	OPT_ALT_FILE,
	OPT_CACHE_DIR,
	OPT_NO_CACHE,
	OPT_RUST_ENUMS,
};

/* This is the pahole release whose options and default BTF we match. */
#define PAHOLE_COMPAT_VERSION "1.32"

/*
 * run_as_pahole() tells whether we were started under the name pahole,
 * which is how kbuild runs us through a symlink (PAHOLE=).
 */
static bool run_as_pahole(const char *argv0)
{
	const char *base = strrchr(argv0, '/');

	return !strcmp(base ? base + 1 : argv0, "pahole");
}

/*
 * Under the name pahole, we answer the encoding ourselves (-J,
 * --btf_encode*), and what kbuild asks before it (--version,
 * --supported_btf_features).  Anything else is a real pahole's job: for
 * example, `pahole FILE` prints its types, and `pahole -C struct FILE`
 * prints one of them.  A -J may be combined with other short options.
 */
static bool pahole_args__ours(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];

		if (!strncmp(a, "--btf_encode", 12) || !strcmp(a, "--version") ||
		    !strcmp(a, "--supported_btf_features") ||
		    (a[0] == '-' && a[1] != '-' && strchr(a, 'J')))
			return true;
	}
	return false;
}

/*
 * pahole__find_real() returns the path of a real pahole, to be freed:
 * $DWARF2BTF_PAHOLE, else the first "pahole" on PATH that is not this
 * program (which a symlink named pahole would be).  It returns NULL when
 * there is none.
 */
static char *pahole__find_real(void)
{
	const char *env = getenv("DWARF2BTF_PAHOLE");
	char *self = realpath("/proc/self/exe", NULL), *path, *dir, *save;
	char *found = NULL, cand[PATH_MAX];

	if (env && *env) {
		char *r = realpath(env, NULL);

		if (r && (!self || strcmp(r, self)) && !access(r, X_OK))
			found = strdup(env);
		free(r);
		free(self);
		return found;
	}
	path = strdup(getenv("PATH") ? getenv("PATH") : "");
	for (dir = path ? strtok_r(path, ":", &save) : NULL; dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		char *r;

		if ((size_t)snprintf(cand, sizeof(cand), "%s/pahole",
				     *dir ? dir : ".") >= sizeof(cand) ||
		    access(cand, X_OK))
			continue;
		r = realpath(cand, NULL);
		if (r && (!self || strcmp(r, self)))
			found = strdup(cand);
		free(r);
	}
	free(path);
	free(self);
	return found;
}

/*
 * pahole__forward() hands the whole command to a real pahole with
 * execv(); it returns only on failure, with the exit status 2.
 */
static int pahole__forward(char **argv)
{
	char *real = pahole__find_real();

	if (!real) {
		pr_err("run as pahole without -J: only a real pahole does that (it prints types), and none is on PATH after this one (set DWARF2BTF_PAHOLE)");
		return 2;
	}
	execv(real, argv);
	pr_err("cannot run %s: %s", real, strerror(errno));
	free(real);
	return 2;
}

/*
 * set_output() takes -o OUT (or --btf_encode_detached=OUT), which may be
 * given only once and must name a file, not standard output.
 */
static int set_output(const char **out, const char *arg)
{
	if (*out) {
		pr_err("output given twice ('%s', '%s'): name one (see --help)",
		       *out, arg);
		return -EINVAL;
	}
	if (!strcmp(arg, "-") || !*arg) {
		pr_err("output '%s': BTF is written to a file, not to standard output; name one",
		       arg);
		return -EINVAL;
	}
	*out = arg;
	return 0;
}

/*
 * parse_size() reads a size such as "512M", "2G" or "1048576" (bytes);
 * the suffixes K, M and G are powers of 1024.  Sizes above SIZE_MAX / 2
 * are refused.
 */
static int parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	case '\0': break;
	default: return -EINVAL;
	}
	if (*end || v > SIZE_MAX / 2)
		return -EINVAL;
	*out = v;
	return 0;
}

/*
 * main__cache() sets up the cache directory (cache_dir.h) from
 * --cache-dir, DWARF2BTF_CACHE_DIR, XDG_CACHE_HOME or HOME, in that order.
 * --no-cache, or DWARF2BTF_NO_CACHE set to anything but 0, turns it off,
 * and DWARF2BTF_CACHE_MAX bounds its size.  It returns 0, 1 when out of
 * memory, or 2 after a usage error.
 */
static int main__cache(struct cache_dir *c, const char *dir, bool off)
{
	const char *no = getenv("DWARF2BTF_NO_CACHE");
	const char *max = getenv("DWARF2BTF_CACHE_MAX");
	size_t bytes = 0;

	if (max && *max && parse_size(max, &bytes)) {
		pr_err("invalid DWARF2BTF_CACHE_MAX '%s'", max);
		return 2;
	}
	off |= no && *no && strcmp(no, "0");
	if (cache_dir__init(c, dir, getenv("DWARF2BTF_CACHE_DIR"),
			    getenv("XDG_CACHE_HOME"), getenv("HOME"), off,
			    bytes)) {
		pr_err("%s", strerror(ENOMEM));
		return 1;
	}
	return 0;
}

/*
 * The file list holds the input files, from the command line and
 * --files-from.
 */
struct file_list {
	char **v;
	size_t nr, cap;
};

static int file_list__add(struct file_list *fl, const char *path)
{
	char *p = strdup(path);

	if (!p || grow_array((void **)&fl->v, &fl->cap, fl->nr + 1,
			     sizeof(*fl->v), 64) || fl->nr >= INT_MAX) {
		free(p);
		return -ENOMEM;
	}
	fl->v[fl->nr++] = p;
	return 0;
}

static void file_list__free(struct file_list *fl)
{
	while (fl->nr > 0)
		free(fl->v[--fl->nr]);
	free(fl->v);
	memset(fl, 0, sizeof(*fl));
}

/*
 * read_list() reads --files-from=LIST, which names input paths one per
 * line ("-" reads standard input), for more modules than a command line
 * holds.  Empty lines are skipped, and the paths are appended to @fl.
 */
static int read_list(const char *list, struct file_list *fl)
{
	FILE *f = strcmp(list, "-") ? fopen(list, "re") : stdin;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int err = 0;

	if (!f) {
		err = -errno;
		pr_err("%s: %s", list, strerror(errno));
		return err;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (!n)
			continue;
		err = file_list__add(fl, line);
		if (err)
			break;
	}
	if (!err && ferror(f))
		err = -EIO;
	if (err)
		pr_err("%s: %s", list, strerror(-err));
	free(line);
	if (f != stdin)
		fclose(f);
	return err;
}

/* A test hook's number: 0 if unset, not a number or negative. */
static long test_hooks__number(const char *name)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtol(s, &end, 10);
	return errno || *end || v < 0 ? 0 : v;
}

/*
 * This is the only place the test hooks are read (test_hooks.h), so that
 * no other code depends on the environment.
 */
static void test_hooks__from_env(struct test_hooks *h)
{
	h->libdw_attrs = getenv("DWARF2BTF_LIBDW_ATTRS");
	h->own_distill = getenv("DWARF2BTF_OWN_DISTILL");
	h->batch_dedup = getenv("DWARF2BTF_BATCH_DEDUP");
	h->merge_dedup = getenv("DWARF2BTF_MERGE_DEDUP");
	h->no_reuse = getenv("DWARF2BTF_NO_REUSE");
	h->rerun_outgrown = getenv("DWARF2BTF_RERUN_OUTGROWN");
	h->read_relocs = getenv("DWARF2BTF_READ_RELOCS");
	h->fault_write = test_hooks__number("DWARF2BTF_FAULT_WRITE");
	h->large_batch_from = test_hooks__number("DWARF2BTF_LARGE_BATCH_FROM");
}

/*
 * relocate_file() does --relocate: FILE's .BTF, which is split over its
 * distilled .BTF.base, becomes split BTF over BASE and is written raw to
 * OUT.  It returns 0 or a negative errno.
 */
static int relocate_file(const char *file, const struct btf *base,
			 const char *base_path, const char *out,
			 const struct test_hooks *hooks)
{
	struct btf *dist, *split = NULL, *btf = NULL;
	const void *raw;
	char msg[160];
	__u32 size;
	int err;

	dist = btf_load__elf_section(file, ".BTF.base", &err);
	if (dist)
		split = btf_load__file(file, dist, &err);
	if (split) {
		err = btf_relocate(split, base, hooks->own_distill, &btf, msg,
				   sizeof(msg));
		if (err)
			pr_err("%s: cannot relocate onto %s: %s", file,
			       base_path, *msg ? msg : strerror(-err));
	}
	if (btf) {
		btf__set_endianness(btf, btf__endianness(split));
		raw = btf__raw_data(btf, &size);
		err = raw ? output__write_raw(out, raw, size, hooks) : -ENOMEM;
		if (!raw)
			pr_err("%s: cannot serialize BTF", file);
	}
	btf__free(btf);
	btf__free(split);
	btf__free(dist);
	return err;
}

static const struct option longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "base", required_argument, NULL, OPT_BASE },
	{ "btf_base", required_argument, NULL, OPT_BASE },
	{ "jobs", optional_argument, NULL, 'j' },
	{ "stats", optional_argument, NULL, OPT_STATS },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "skip_encoding_btf_enum64", no_argument, NULL, OPT_SKIP_ENUM64 },
	{ "skip_encoding_btf_vars", no_argument, NULL, OPT_SKIP_VARS },
	{ "skip_encoding_btf_decl_tag", no_argument, NULL, OPT_SKIP_DECL_TAG },
	{ "skip_encoding_btf_type_tag", no_argument, NULL, OPT_SKIP_TYPE_TAG },
	/* These are pahole's spellings, so that kbuild's PAHOLE= works. */
	{ "btf_encode", no_argument, NULL, 'J' },
	{ "btf_encode_detached", required_argument, NULL, OPT_DETACHED },
	{ "btf_features", required_argument, NULL, OPT_FEATURES },
	{ "btf_features_strict", required_argument, NULL, OPT_FEATURES_STRICT },
	{ "supported_btf_features", no_argument, NULL, OPT_SUPPORTED },
	{ "btf_gen_floats", no_argument, NULL, OPT_GEN_FLOATS },
	{ "btf_gen_all", no_argument, NULL, OPT_GEN_ALL },
	{ "btf_gen_optimized", no_argument, NULL, OPT_NOOP },
	{ "btf_encode_force", no_argument, NULL, OPT_NOOP },
	{ "skip_encoding_btf_inconsistent_proto", no_argument, NULL,
	  OPT_INCONSISTENT },
	{ "lang_exclude", required_argument, NULL, OPT_LANG_EXCLUDE },
	{ "lang", required_argument, NULL, OPT_LANG },
	{ "btf_attributes", no_argument, NULL, OPT_BTF_ATTRIBUTES },
	{ "max-memory", required_argument, NULL, OPT_MAX_MEMORY },
	{ "plain-dedup", no_argument, NULL, OPT_PLAIN_DEDUP },
	{ "dedup-base-typedefs", no_argument, NULL, OPT_BASE_TYPEDEFS },
	{ "files-from", required_argument, NULL, OPT_FILES_FROM },
	{ "relocate", no_argument, NULL, OPT_RELOCATE },
	{ "debuginfo", required_argument, NULL, OPT_DEBUGINFO },
	{ "debug-root", required_argument, NULL, OPT_DEBUG_ROOT },
	{ "alt-file", required_argument, NULL, OPT_ALT_FILE },
	{ "cache-dir", required_argument, NULL, OPT_CACHE_DIR },
	{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
	{ "rust-enums", required_argument, NULL, OPT_RUST_ENUMS },
	{ "verbose", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/*
 * struct cli holds what the command line asks for.  Its functions return
 * CLI_GO to go on, or the exit status: 0 (--help, --version), 1 on an
 * error, 2 on a usage error.
 */
#define CLI_GO	(-1)

struct cli {
	struct pipeline_opts opts;
	struct test_hooks hooks;
	struct file_list list;
	struct cache_dir cache;
	const char *base_path;
	struct btf_view base_view;	/* The base (pipeline_opts). */
	const char *cache_path;
	bool batch;		/* With --files-from, -o is a directory. */
	bool out_dir;		/* -o names a directory. */
	bool lang_given, btf_attributes, verbose, no_cache, relocate;
	bool features_seen;
	bool rust_enums_given;
};

/*
 * cli__pahole_option() handles pahole's options, and our
 * --skip_encoding_btf_* spellings of its own.
 */
static int cli__pahole_option(struct cli *c, int opt)
{
	struct encode_opts *enc = &c->opts.enc;

	switch (opt) {
	case OPT_FEATURES:
	case OPT_FEATURES_STRICT:
		if (features__parse(optarg, opt == OPT_FEATURES_STRICT,
				    &c->features_seen, enc))
			return 2;
		break;
	case OPT_SUPPORTED:
		features__print_supported(stdout);
		return 0;
	case OPT_GEN_FLOATS:
		enc->gen_floats = true;
		break;
	case OPT_GEN_ALL: {
		/*
		 * As in pahole, this adds to the features given so far, and
		 * a later --btf_features list still starts over.
		 */
		bool on_top = true;

		features__parse("+reproducible_build", false, &on_top, enc);
		break;
	}
	case OPT_INCONSISTENT:
		enc->consistent_func = true;
		break;
	case OPT_LANG_EXCLUDE:
	case OPT_LANG:
		if (features__parse_languages(optarg, opt == OPT_LANG_EXCLUDE,
					      enc))
			return 2;
		c->lang_given = true;
		break;
	case OPT_BTF_ATTRIBUTES:
		c->btf_attributes = true;
		break;
	case 'V':
		c->verbose = true;
		break;
	case 'J':	/* Encoding BTF is all we do. */
	case OPT_NOOP:
		break;
	case OPT_SKIP_ENUM64:
		enc->skip_enum64 = true;
		break;
	case OPT_SKIP_VARS:
		enc->encode_vars = false;
		break;
	case OPT_SKIP_DECL_TAG:
		enc->skip_decl_tags = true;
		break;
	case OPT_SKIP_TYPE_TAG:
		enc->skip_type_tags = true;
		break;
	default:
		fprintf(stderr, "Try 'dwarf2btf --help'.\n");
		return 2;
	}
	return CLI_GO;
}

/*
 * cli__jobs() reads -j N.  getopt wants an optional argument attached
 * ("-j4"), but we take "-j 4" too, as pahole does.  What follows a bare -j
 * is taken as a file only if it is a number or no such file exists, so
 * that "-j 0" or "-j abc" does not make the real input one of several
 * files that are then rewritten.
 */
static int cli__jobs(struct cli *c, int argc, char **argv)
{
	if (!optarg && optind < argc && argv[optind][0] != '-' &&
	    (strspn(argv[optind], "0123456789") == strlen(argv[optind]) ||
	     access(argv[optind], F_OK)))
		optarg = argv[optind++];
	if (optarg && jobs__parse(optarg, &c->opts.jobs)) {
		pr_err("invalid job count '%s' (1 to 1024)", optarg);
		return 2;
	}
	return CLI_GO;
}

/*
 * cli__version() prints --version.  Run as "pahole" (a symlink), it
 * answers as the pahole release whose BTF features we cover, because the
 * kernel's scripts/pahole-version.sh turns that into the version that
 * decides which flags kbuild passes.
 */
static void cli__version(const char *argv0)
{
	if (run_as_pahole(argv0))
		printf("v%s\n", PAHOLE_COMPAT_VERSION);
	else
		printf("dwarf2btf %s (pahole %s compatible)\n",
		       DWARF2BTF_VERSION, PAHOLE_COMPAT_VERSION);
}

/*
 * cli__option() handles one option of ours; pahole's options go to
 * cli__pahole_option().
 */
static int cli__option(struct cli *c, int opt, int argc, char **argv)
{
	struct pipeline_opts *opts = &c->opts;

	switch (opt) {
	case 'o':
	case OPT_DETACHED:
		return set_output(&opts->out_path, optarg) ? 2 : CLI_GO;
	case 'j':
		return cli__jobs(c, argc, argv);
	case OPT_STATS:
		opts->stats = true;
		if (optarg && !strcmp(optarg, "keys")) {
			opts->enc.type_keys = true;
		} else if (optarg) {
			pr_err("--stats takes no value but \"keys\", not \"%s\"",
				optarg);
			return 2;
		}
		break;
	case OPT_BASE:
		c->base_path = optarg;
		break;
	case OPT_CACHE_DIR:
		c->cache_path = optarg;
		break;
	case OPT_NO_CACHE:
		c->no_cache = true;
		break;
	case OPT_MAX_MEMORY:
		if (parse_size(optarg, &opts->enc.max_memory)) {
			pr_err("invalid --max-memory '%s'", optarg);
			return 2;
		}
		break;
	case OPT_DEBUGINFO:
		opts->debuginfo = optarg;
		break;
	case OPT_DEBUG_ROOT:
		opts->debug_root = optarg;
		break;
	case OPT_ALT_FILE:
		opts->alt_file = optarg;
		break;
	case OPT_RELOCATE:
		c->relocate = true;
		break;
	case OPT_FILES_FROM:
		c->batch = true;
		return read_list(optarg, &c->list) ? 1 : CLI_GO;
	case OPT_PLAIN_DEDUP:
		opts->enc.plain_dedup = true;
		break;
	case OPT_BASE_TYPEDEFS:
		opts->enc.base_typedefs = true;
		break;
	case OPT_RUST_ENUMS:
		if (strcmp(optarg, "variants") && strcmp(optarg, "pahole")) {
			pr_err("--rust-enums takes \"variants\" or \"pahole\", not \"%s\"",
			       optarg);
			return 2;
		}
		opts->enc.rust_enums_pahole = !strcmp(optarg, "pahole");
		c->rust_enums_given = true;
		break;
	case 'h':
		usage(stdout);
		return 0;
	case OPT_VERSION:
		cli__version(argv[0]);
		return 0;
	default:
		return cli__pahole_option(c, opt);
	}
	return CLI_GO;
}

/*
 * cli__parse() reads the options, then what the environment adds, then
 * the input files.
 */
static int cli__parse(struct cli *c, int argc, char **argv)
{
	struct encode_opts *enc = &c->opts.enc;
	const char *lang_exclude = getenv("PAHOLE_LANG_EXCLUDE");
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "o:j::hJV", longopts,
				  NULL)) != -1) {
		ret = cli__option(c, opt, argc, argv);
		if (ret != CLI_GO)
			return ret;
	}
	test_hooks__from_env(&c->hooks);
	enc->hooks = &c->hooks;
	/* PAHOLE_LANG_EXCLUDE is pahole's way to exclude languages. */
	if (!c->lang_given && lang_exclude &&
	    features__parse_languages(lang_exclude, true, enc))
		return 2;
	/*
	 * --btf_attributes turns attributes on, whatever --btf_features
	 * says, as in pahole.
	 */
	if (c->btf_attributes)
		enc->attributes = true;
	/*
	 * Run as pahole (kbuild's PAHOLE=), a Rust enum is what pahole
	 * makes of it, unless --rust-enums says otherwise.
	 */
	if (!c->rust_enums_given && run_as_pahole(argv[0]))
		enc->rust_enums_pahole = true;
	c->opts.verbose = c->verbose;
	for (; optind < argc; optind++) {
		if (file_list__add(&c->list, argv[optind])) {
			pr_err("out of memory");
			return 1;
		}
	}
	return CLI_GO;
}

/*
 * cli__check_in_place() makes sure, before any of them is changed, that
 * each of several FILEs named on the command line to be changed in place
 * is an ELF file: `dwarf2btf vmlinux out.btf` would otherwise rewrite
 * vmlinux and only then fail on out.btf.  Returns CLI_GO or the exit
 * status 1.
 */
static int cli__check_in_place(const struct cli *c)
{
	size_t i;

	for (i = 0; i < c->list.nr; i++) {
		int err = elf_file__probe(c->list.v[i]);

		if (err) {
			pr_err("%s: %s (each FILE is changed in place; -o OUT writes raw BTF)",
			       c->list.v[i], err == -ENOEXEC ?
			       "not an ELF file" : strerror(-err));
			return 1;
		}
	}
	return CLI_GO;
}

/*
 * cli__check() refuses options that do not go together, before anything
 * is read.
 */
static int cli__check(struct cli *c)
{
	const char *out = c->opts.out_path;
	struct stat st;

	if (!c->list.nr) {
		pr_err("missing input FILE (see --help)");
		return 2;
	}
	if (c->relocate && (!c->base_path || !out || c->list.nr != 1 ||
			    c->batch)) {
		pr_err("--relocate takes one FILE, --base and -o (see --help)");
		return 2;
	}
	/*
	 * The meaning of -o depends on OUT, never on how many FILEs there
	 * are.
	 */
	c->out_dir = out && (c->batch || out[strlen(out) - 1] == '/' ||
			     (!stat(out, &st) && S_ISDIR(st.st_mode)));
	if (out && !c->out_dir && c->list.nr > 1) {
		pr_err("-o %s names a file, for one FILE; for several, name a directory (ending in '/')",
		       out);
		return 2;
	}
	if (c->relocate && c->out_dir) {
		pr_err("--relocate writes one file: -o %s is a directory", out);
		return 2;
	}
	/* Without a base there is no split dedup for the option to change. */
	if (c->opts.enc.base_typedefs && !c->base_path) {
		pr_err("--dedup-base-typedefs applies to split BTF: it needs --base (see --help)");
		return 2;
	}
	if (c->opts.debuginfo && (c->list.nr != 1 || c->batch)) {
		pr_err("--debuginfo names the debug file of one FILE (see --help)");
		return 2;
	}
	if (!out && !c->batch && c->list.nr > 1)
		return cli__check_in_place(c);
	return CLI_GO;
}

/*
 * cli__load_base() reads the base: in place (btf_view.h) where that is
 * enough, as it is for one module changed in place or written beside;
 * libbpf's BTF of it where more than that runs over it (a file set, whose
 * threads each copy it, a distilled base, relocating), or where the view
 * does not take the file (libbpf then says what is wrong with it).  It
 * returns 0 or the exit status 1.
 */
static int cli__load_base(struct cli *c)
{
	struct pipeline_opts *opts = &c->opts;
	bool lone = c->list.nr == 1 && !c->out_dir && !c->relocate &&
		    !opts->enc.distilled_base;
	bool viewed = !btf_load__view(c->base_path, &c->base_view);
	int err = 0;

	if (!lone || !viewed) {
		opts->base = btf_load__file(c->base_path, NULL, &err);
		if (!opts->base)
			return 1;
	}
	if (!viewed)
		err = btf_view__from_btf(&c->base_view, opts->base);
	if (err) {
		pr_err("%s: %s", c->base_path, strerror(-err));
		return 1;
	}
	opts->base_view = &c->base_view;
	opts->base_path = c->base_path;
	return 0;
}

/*
 * cli__run() reads the base and sets up the cache, then encodes (or
 * relocates) the files.  It returns the exit status.
 */
static int cli__run(struct cli *c)
{
	struct pipeline_opts *opts = &c->opts;
	int err;

	if (c->base_path) {
		err = cli__load_base(c);
		if (err)
			return err;
	}
	err = main__cache(&c->cache, c->cache_path, c->no_cache);
	if (err)
		return err;
	opts->cache = &c->cache;
	if (c->relocate) {
		err = relocate_file(c->list.v[0], opts->base, c->base_path,
				    opts->out_path, &c->hooks);
	} else if (c->list.nr == 1 && !c->out_dir) {
		err = opts->base ? pipeline__prepare_base(opts->base) : 0;
		if (err)
			pr_err("%s: %s", c->base_path, strerror(-err));
		else
			err = pipeline__run(c->list.v[0], opts);
	} else {
		/* This is -o DIR, or several FILEs changed in place. */
		const char *dir = opts->out_path;

		opts->out_path = NULL;
		err = file_set__run(c->list.v, c->list.nr, opts, dir);
	}
	return err ? 1 : 0;
}

/*
 * main() forwards to a real pahole what only pahole does, picks the
 * subcommand, and otherwise parses, checks and runs the command line.
 */
int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct cli c = { 0 };
	int ret;

	if (run_as_pahole(argv[0]) && !pahole_args__ours(argc, argv))
		return pahole__forward(argv);
	/*
	 * Blocks of 512 KiB and more get mappings of their own, given back
	 * when freed.  glibc would raise that threshold to each larger block
	 * freed (up to 32 MiB), and then the batches' buffers and the
	 * dedups' scratch, freed one after another, stay in the heaps in
	 * pieces: a tenth more peak memory on a vmlinux, for no time saved
	 * (docs/performance.md).
	 */
	mallopt(M_MMAP_THRESHOLD, 512 * 1024);
	c.opts.jobs = ncpu > 0 ? (ncpu > JOBS_MAX ? JOBS_MAX : ncpu) : 1;
	features__set_default(&c.opts.enc);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_cmd__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "explain"))
		return explain_cmd__main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "layout"))
		return layout_cmd__main(argc - 1, argv + 1);
	/*
	 * Every error is ours to report, in one line; libbpf's own messages
	 * would add a second one.
	 */
	libbpf_set_print(NULL);

	ret = cli__parse(&c, argc, argv);
	if (ret == CLI_GO)
		ret = cli__check(&c);
	if (ret == CLI_GO)
		ret = cli__run(&c);
	file_list__free(&c.list);
	btf__free(c.opts.base);
	btf_view__free(&c.base_view);
	cache_dir__free(&c.cache);
	return ret;
}
