/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Function decisions, taken once every CU has been seen: which candidates
 * become BTF FUNCs.  docs/functions.md states the rules.
 */
#ifndef DWARF2BTF_FUNCS_H
#define DWARF2BTF_FUNCS_H

#include <stddef.h>
#include <stdint.h>

#include "cu/fragment.h"
#include "lib/encode_opts.h"
#include "input/symtab.h"

struct btf;
struct btf_concat;

/*
 * What became of a function (the candidates of one ELF key).  When several
 * reasons hold, the one pahole 1.31 names is the verdict: the later in
 * this list.
 */
enum func_verdict {
	FUNC_ENCODED,
	FUNC_ENCODED_CLONE,	/* under a clone's name (true_signature) */
	FUNC_SKIP_BAD_REG,	/* a parameter not where the ABI puts it */
	FUNC_SKIP_INCONSISTENT,	/* prototypes that differ */
	FUNC_SKIP_UNCERTAIN,	/* a packed struct by value on the stack */
	FUNC_SKIP_REORDERED,	/* parameters the compiler moved */
	FUNC_SKIP_OPTIMIZED,	/* a parameter optimized away, signature changed */
	FUNC_SKIP_AMBIGUOUS,	/* symbols of that name at several addresses */
	FUNC_SKIP_LONG_NAME,	/* a name longer than the kernel takes */
	FUNC_VERDICT__MAX
};

/* The first prototype that differs from the first candidate's. */
enum func_mismatch {
	FUNC_MISMATCH_NONE,
	FUNC_MISMATCH_NR_PARAMS,
	FUNC_MISMATCH_RETURN,
	FUNC_MISMATCH_PARAM,
};

struct func_decision {
	const char *name;		/* the FUNC's name, or the key's */
	enum func_verdict verdict;
	struct func_cand *const *cands;	/* the key's candidates, CU order */
	size_t nr;
	/*
	 * The candidate encoded, or for FUNC_SKIP_OPTIMIZED the one that
	 * would have been; NULL otherwise.
	 */
	const struct func_cand *chosen;
	enum func_mismatch mismatch;
	const struct func_cand *other;	/* differs from cands[0] */
	uint32_t param;			/* FUNC_MISMATCH_PARAM: 0-based */
	const struct elf_func_key *key;	/* its symbols */
};

/*
 * Who wants to hear of each decision (NULL members: nobody).  @btf,
 * @params: what the candidates' type ids and parameters point into, valid
 * during the call only.
 */
struct func_report {
	size_t counts[FUNC_VERDICT__MAX];	/* filled by funcs__emit() */
	void (*decided)(void *ctx, const struct btf *btf,
			const struct elf_symtab *syms,
			const struct func_param *params,
			const struct func_decision *d);
	/*
	 * The run is made again (fwd_names.h), so everything heard so far is
	 * to be forgotten.
	 */
	void (*rerun)(void *ctx);
	/* `dwarf2btf explain` hears of the variable DIEs it asked about. */
	void (*vars_noted)(void *ctx, const struct elf_symtab *syms,
			   const struct var_note *notes, size_t nr);
	void *ctx;
};

/* Returns pahole's words for a verdict ("optimized parameters"), or NULL. */
const char *func_verdict__pahole(enum func_verdict v);
/* Returns our one-word name of a verdict ("optimized"). */
const char *func_verdict__name(enum func_verdict v);
/* Returns our text for people ("a parameter was optimized away and ..."). */
const char *func_verdict__text(enum func_verdict v);

/*
 * Decide and append the BTF FUNCs to @out, sorted by name.  @cands are in
 * CU order and their type ids are ids of the types @out held when it was
 * indexed (btf_concat__index_types()); their flags are updated.  @btf is
 * only passed on to @rep: the same types as a libbpf BTF, or NULL.
 * @rep (may be NULL) hears of every decision.  Returns the number of FUNCs
 * added or -errno.
 */
int funcs__emit(const struct btf *btf, struct btf_concat *out,
		const struct elf_symtab *syms,
		const struct encode_opts *opts, struct func_cand *cands,
		size_t nr, const struct func_param *params,
		const struct decl_tag *tags, struct func_report *rep);

#endif
