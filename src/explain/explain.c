// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file writes the explanations of `dwarf2btf explain` (explain.h).
 * Each decision is written out when it is taken, while the candidates'
 * types still exist, into a memory stream that is printed once the run has
 * succeeded.  Text and JSON say the same.
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "explain/explain.h"
#include "input/symtab.h"

/* This many candidates are listed per function; the rest are counted. */
#define MAX_LISTED	8

/*
 * The explanation is called from the pipeline's decisions, on the
 * caller's thread, so it needs no lock.
 */
struct explain {
	struct explain_opts o;
	struct func_report rep;
	bool *found;		/* One flag per name asked about. */
	char *buf;		/* What was written, text or JSON items. */
	size_t len;
	FILE *out;
	size_t nr_items;
	char *vbuf;		/* The same for variables. */
	size_t vlen;
	FILE *vout;
	size_t nr_vitems;
	/* This dumps dump_btf as C, printing to dump_to. */
	struct btf_dump *dump;
	const struct btf *dump_btf;
	FILE *dump_to;
	int err;
};

/* --- rendering as C ---------------------------------------------------- */

/* btf_dump prints through this into the FILE that @ctx points to. */
static void dump_printf(void *ctx, const char *fmt, va_list args)
{
	vfprintf(*(FILE **)ctx, fmt, args);
}

/*
 * btf_dump tells apart types of one name as name___N, and before the final
 * dedup there are many copies of each, so strip_dup_suffixes() drops
 * those suffixes.
 */
static void strip_dup_suffixes(char *s)
{
	char *r = s, *w = s;

	while (s && *r) {
		if (!strncmp(r, "___", 3) && r[3] >= '0' && r[3] <= '9') {
			char *q = r + 3;

			while (*q >= '0' && *q <= '9')
				q++;
			if (!(*q == '_' || (*q >= 'a' && *q <= 'z') ||
			      (*q >= 'A' && *q <= 'Z'))) {
				r = q;
				continue;
			}
		}
		*w++ = *r++;
	}
	if (s)
		*w = 0;
}

/*
 * explain__decl() returns, in a new string, type ID declared as NAME (""
 * for the type alone).
 */
static char *explain__decl(struct explain *e, const struct btf *btf,
			   uint32_t id, const char *name)
{
	LIBBPF_OPTS(btf_dump_emit_type_decl_opts, o, .field_name = name);
	char *s = NULL;
	size_t n;
	FILE *f;

	if (e->dump_btf != btf) {
		btf_dump__free(e->dump);
		e->dump = btf_dump__new(btf, dump_printf, &e->dump_to, NULL);
		e->dump_btf = e->dump ? btf : NULL;
	}
	f = open_memstream(&s, &n);
	if (!f)
		return NULL;
	if (!e->dump) {
		fprintf(f, "type %u", id);
	} else {
		e->dump_to = f;
		if (btf_dump__emit_type_decl(e->dump, id, &o))
			fprintf(f, "type %u", id);
	}
	fclose(f);
	strip_dup_suffixes(s);
	return s;
}

/*
 * explain__proto() returns "int foo(struct a *p, long n)", the prototype
 * that candidate C gives NAME.
 */
static char *explain__proto(struct explain *e, const struct btf *btf,
			    const struct func_param *params,
			    const struct func_cand *c, const char *name)
{
	char *s = NULL, *t;
	size_t n;
	uint32_t i;
	FILE *f = open_memstream(&s, &n);

	if (!f)
		return NULL;
	t = explain__decl(e, btf, c->ret_type, "");
	fprintf(f, "%s%s%s(", t ? t : "?",
		t && t[0] && t[strlen(t) - 1] == '*' ? "" : " ", name);
	free(t);
	for (i = 0; i < c->nr_params; i++) {
		const struct func_param *p = &params[c->first_param + i];

		if (!p->type_id && (!p->name || !p->name[0])) {
			fprintf(f, "%s...", i ? ", " : "");
			continue;
		}
		t = explain__decl(e, btf, p->type_id, p->name ? p->name : "");
		fprintf(f, "%s%s", i ? ", " : "", t ? t : "?");
		free(t);
	}
	fprintf(f, "%s)", c->nr_params ? "" : "void");
	fclose(f);
	return s;
}

static const char *const x86_64_regs[16] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/*
 * reg_name() names DWARF register REG of the input's machine, by name
 * where we know it.
 */
static void reg_name(const struct explain *e, int reg, char *buf, size_t len)
{
	if (reg < 0)
		snprintf(buf, len, "no register");
	else if (e->o.machine == EM_X86_64 && reg < 16)
		snprintf(buf, len, "%s", x86_64_regs[reg]);
	else if (e->o.machine == EM_X86_64 && reg >= 17 && reg <= 32)
		snprintf(buf, len, "xmm%d", reg - 17);
	else if (e->o.machine == EM_AARCH64 && reg < 31)
		snprintf(buf, len, "x%d", reg);
	else if ((e->o.machine == EM_S390 || e->o.machine == EM_ARM ||
		  e->o.machine == EM_PPC64 || e->o.machine == EM_PPC) &&
		 reg < 32)
		snprintf(buf, len, "r%d", reg);
	else
		snprintf(buf, len, "DWARF register %d", reg);
}

/* --- the output, text or JSON ------------------------------------------- */

/* json_str() prints @s as a JSON string, escaped. */
static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static bool left_out(enum func_verdict v);

/*
 * param_name() returns a parameter's name, when the BTF lists the DIE's
 * parameters as they are.
 */
static const char *param_name(const struct func_param *params,
			      const struct func_cand *c, unsigned int i)
{
	if (c->why.nr_params >= FUNC_WHY_NONE - 1 ||
	    c->nr_params < c->why.nr_params || i >= c->why.nr_params ||
	    c->why.reordered != FUNC_WHY_NONE)
		return NULL;
	return params[c->first_param + i].name;
}

/* param_ref() prints "parameter #2 'b'", or "parameter #2". */
static void param_ref(FILE *f, const struct func_param *params,
		      const struct func_cand *c, unsigned int i)
{
	const char *n = param_name(params, c, i);

	fprintf(f, "parameter #%u", i + 1);
	if (n && n[0])
		fprintf(f, " '%s'", n);
}

static const char *const opt_how[] = {
	[FUNC_OPT_NO_LOC] = "has no location (optimized out)",
	[FUNC_OPT_CONST] = "is only a constant value",
	[FUNC_OPT_NO_REG] = "has a location, but in no argument register",
	[FUNC_OPT_NOT_PASSED] = "is not passed",
};

/* clone_at() returns the symbol at C's address with a '.' suffix, or NULL. */
static const char *clone_at(const struct elf_symtab *st,
			    const struct elf_func_key *k,
			    const struct func_cand *c)
{
	uint32_t i;

	for (i = 0; c->addr && i < k->nr; i++) {
		const struct elf_sym *s = elf_symtab__key_sym(st, k, i);

		if (s->addr == c->addr && strchr(s->name, '.'))
			return s->name;
	}
	return NULL;
}

/*
 * evidence_of() returns the candidate whose DWARF shows why D was left
 * out, or NULL.
 */
static const struct func_cand *evidence_of(const struct func_decision *d)
{
	size_t i;
	int pass;

	/*
	 * An out-of-line instance (with an address) is tried first, because
	 * an abstract one knows its parameters' locations from such an
	 * instance.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < d->nr; i++) {
			const struct func_why *w = &d->cands[i]->why;

			if (!pass && !d->cands[i]->addr)
				continue;
			if ((d->verdict == FUNC_SKIP_BAD_REG && w->bad_reg != FUNC_WHY_NONE) ||
			    (d->verdict == FUNC_SKIP_UNCERTAIN && w->uncertain != FUNC_WHY_NONE) ||
			    (d->verdict == FUNC_SKIP_REORDERED && w->reordered != FUNC_WHY_NONE))
				return d->cands[i];
		}
	}
	if (d->verdict == FUNC_SKIP_OPTIMIZED || !left_out(d->verdict))
		return d->chosen;
	if (d->verdict == FUNC_SKIP_INCONSISTENT)
		return d->other;
	return NULL;
}

/*
 * explain__why() writes into F why the function was left out, in a
 * sentence or two, with the evidence from the candidate that carries it.
 */
static void explain__why(struct explain *e, FILE *f, const struct btf *btf,
			 const struct elf_symtab *st,
			 const struct func_param *params,
			 const struct func_decision *d)
{
	char r1[32], r2[32];
	const struct func_cand *c = evidence_of(d);
	char *t1, *t2;

	switch (d->verdict) {
	case FUNC_ENCODED:
		fprintf(f, "encoded with the prototype of the candidate from %s%s",
			d->chosen->cu_name ? d->chosen->cu_name : "a CU without a name",
			d->nr > 1 ? "; the others agree with it" : "");
		break;
	case FUNC_ENCODED_CLONE:
		fprintf(f, "true_signature: encoded as %s, the clone at this candidate's address, with the parameters its DWARF lists",
			d->name);
		break;
	case FUNC_SKIP_BAD_REG:
		if (!c)
			break;
		reg_name(e, c->why.reg, r1, sizeof(r1));
		reg_name(e, c->why.want, r2, sizeof(r2));
		param_ref(f, params, c, c->why.bad_reg);
		fprintf(f, " arrives in %s (DWARF of %s, DIE 0x%llx), where the calling convention puts it in %s: a tracer would read the wrong register",
			r1, c->cu_name ? c->cu_name : "?",
			(unsigned long long)c->die_off, r2);
		break;
	case FUNC_SKIP_INCONSISTENT:
		if (!d->other)
			break;
		fprintf(f, "the prototypes in %s and %s differ: ",
			d->cands[0]->cu_name ? d->cands[0]->cu_name : "?",
			d->other->cu_name ? d->other->cu_name : "?");
		if (d->mismatch == FUNC_MISMATCH_NR_PARAMS) {
			fprintf(f, "%u parameter%s against %u",
				d->cands[0]->nr_params,
				d->cands[0]->nr_params == 1 ? "" : "s",
				d->other->nr_params);
		} else if (d->mismatch == FUNC_MISMATCH_RETURN) {
			t1 = explain__decl(e, btf, d->cands[0]->ret_type, "");
			t2 = explain__decl(e, btf, d->other->ret_type, "");
			fprintf(f, "return type %s against %s", t1 ? t1 : "?",
				t2 ? t2 : "?");
			free(t1);
			free(t2);
		} else {
			const struct func_param *p1, *p2;

			p1 = &params[d->cands[0]->first_param + d->param];
			p2 = &params[d->other->first_param + d->param];
			t1 = explain__decl(e, btf, p1->type_id, p1->name);
			t2 = explain__decl(e, btf, p2->type_id, p2->name);
			fprintf(f, "parameter #%u is %s against %s", d->param + 1,
				t1 ? t1 : "?", t2 ? t2 : "?");
			free(t1);
			free(t2);
		}
		fprintf(f, "; BTF has one prototype per name");
		break;
	case FUNC_SKIP_UNCERTAIN:
		if (!c)
			break;
		param_ref(f, params, c, c->why.uncertain);
		t1 = param_name(params, c, c->why.uncertain) ?
		     explain__decl(e, btf, params[c->first_param +
					  c->why.uncertain].type_id, "") : NULL;
		fprintf(f, "%s%s%s is a packed struct passed by value after the argument registers: where it sits on the stack is uncertain",
			t1 ? " (" : "", t1 ? t1 : "", t1 ? ")" : "");
		free(t1);
		break;
	case FUNC_SKIP_REORDERED:
		if (!c)
			break;
		fprintf(f, "in %s (DIE 0x%llx) parameter #%u is parameter #%u of its abstract origin: the compiler dropped or moved parameters, so callers do not pass what the prototype says",
			c->cu_name ? c->cu_name : "?",
			(unsigned long long)c->die_off, c->why.reordered + 1,
			c->why.reordered_from + 1);
		break;
	case FUNC_SKIP_OPTIMIZED:
		if (!c || c->why.optimized == FUNC_WHY_NONE)
			break;
		param_ref(f, params, c, c->why.optimized);
		fprintf(f, " %s, and ",
			c->why.optimized_how < sizeof(opt_how) / sizeof(*opt_how) ?
			opt_how[c->why.optimized_how] : "is optimized");
		if (c->flags & FUNC_CAND_NOCALL)
			fprintf(f, "its calling convention is DW_CC_nocall (clang changed the signature)");
		else
			fprintf(f, "the symbol at its address is %s, a clone gcc may have changed",
				clone_at(st, d->key, c) ? clone_at(st, d->key, c) : "?");
		fprintf(f, ": callers do not pass what the prototype says (true_signature encodes the function as it is called)");
		break;
	case FUNC_SKIP_AMBIGUOUS:
		fprintf(f, "its ELF symbols sit at different addresses (two functions of that name, or a clone elsewhere): BTF has one prototype per name, and attaching by name could hit either");
		break;
	case FUNC_SKIP_LONG_NAME:
		fprintf(f, "its name has %zu characters: the kernel takes at most 511 (KSYM_NAME_LEN) and would refuse the whole BTF",
			strlen(d->cands[0]->key));
		break;
	default:
		break;
	}
}

/* left_out() tells whether verdict @v leaves the function out of the BTF. */
static bool left_out(enum func_verdict v)
{
	return v != FUNC_ENCODED && v != FUNC_ENCODED_CLONE;
}

/*
 * explain__also() writes the other reasons that hold for a function left
 * out.  pahole names one (the verdict), and fixing it alone would not
 * bring the function back.
 */
static void explain__also(FILE *f, const struct func_decision *d, bool json)
{
	static const struct { uint32_t flag; enum func_verdict v; } r[] = {
		{ FUNC_CAND_BAD_REG, FUNC_SKIP_BAD_REG },
		{ FUNC_CAND_INCONSISTENT, FUNC_SKIP_INCONSISTENT },
		{ FUNC_CAND_UNCERTAIN, FUNC_SKIP_UNCERTAIN },
		{ FUNC_CAND_REORDERED, FUNC_SKIP_REORDERED },
	};
	const char *sep = json ? "" : "\n  also: ";
	size_t i;

	if (!left_out(d->verdict))
		return;
	for (i = 0; i < sizeof(r) / sizeof(*r); i++) {
		if (!(d->cands[0]->flags & r[i].flag) || r[i].v == d->verdict)
			continue;
		if (json) {
			fputs(sep, f);
			json_str(f, func_verdict__name(r[i].v));
		} else {
			fprintf(f, "%s%s", sep, func_verdict__text(r[i].v));
		}
		sep = json ? ", " : "; ";
	}
}

/* cand_flags() writes the flags a candidate carries itself, as words. */
static void cand_flags(FILE *f, const struct func_cand *c, bool json)
{
	static const struct { uint8_t off; const char *name; } w[] = {
		{ offsetof(struct func_why, optimized), "optimized" },
		{ offsetof(struct func_why, bad_reg), "unexpected-register" },
		{ offsetof(struct func_why, uncertain), "uncertain-location" },
		{ offsetof(struct func_why, reordered), "reordered" },
	};
	const char *sep = "";
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(*w); i++) {
		if (((const uint8_t *)&c->why)[w[i].off] == FUNC_WHY_NONE)
			continue;
		if (json) {
			fputs(sep, f);
			json_str(f, w[i].name);
		} else {
			fprintf(f, "%s%s", *sep ? ", " : " [", w[i].name);
		}
		sep = ",";
	}
	if (!json && *sep)
		fputc(']', f);
}

/*
 * explain__text() writes decision @d as text: the verdict, why, the other
 * reasons, up to MAX_LISTED candidates with their prototypes, and the ELF
 * symbols.
 */
static void explain__text(struct explain *e, const struct btf *btf,
			  const struct elf_symtab *st,
			  const struct func_param *params,
			  const struct func_decision *d)
{
	FILE *f = e->out;
	size_t i;

	if (left_out(d->verdict))
		fprintf(f, "%s: left out: %s\n", d->cands[0]->key,
			func_verdict__text(d->verdict));
	else if (d->verdict == FUNC_ENCODED_CLONE)
		fprintf(f, "%s: encoded as %s\n", d->cands[0]->key, d->name);
	else
		fprintf(f, "%s: encoded\n", d->name);
	fprintf(f, "  why: ");
	explain__why(e, f, btf, st, params, d);
	explain__also(f, d, false);
	fprintf(f, "\n  candidates (%zu, those with code first, in CU order):\n",
		d->nr);
	for (i = 0; i < d->nr && i < MAX_LISTED; i++) {
		const struct func_cand *c = d->cands[i];
		char *p = explain__proto(e, btf, params, c, c->key);

		fprintf(f, "    %s, DIE 0x%llx", c->cu_name ? c->cu_name : "?",
			(unsigned long long)c->die_off);
		if (c->addr)
			fprintf(f, ", at 0x%llx", (unsigned long long)c->addr);
		cand_flags(f, c, false);
		fprintf(f, "%s: %s\n", c == d->chosen ? " (chosen)" : "",
			p ? p : "?");
		free(p);
	}
	if (d->nr > MAX_LISTED)
		fprintf(f, "    ... and %zu more\n", d->nr - MAX_LISTED);
	fprintf(f, "  symbols:");
	for (i = 0; i < d->key->nr; i++) {
		const struct elf_sym *s = elf_symtab__key_sym(st, d->key, i);

		fprintf(f, " %s at 0x%llx%s", s->name,
			(unsigned long long)s->addr,
			i + 1 < d->key->nr ? "," : "");
	}
	fputc('\n', f);
}

/*
 * explain__json_evidence() writes the evidence as fields, for tools to
 * check against the DWARF.
 */
static void explain__json_evidence(FILE *f, const struct elf_symtab *st,
				   const struct func_decision *d)
{
	const struct func_cand *c = evidence_of(d);
	const struct func_why *w;

	if (!c)
		return;
	w = &c->why;
	fprintf(f, ",\n     \"evidence\": {\"cu\": ");
	json_str(f, c->cu_name);
	fprintf(f, ", \"die\": %llu", (unsigned long long)c->die_off);
	switch (d->verdict) {
	case FUNC_SKIP_BAD_REG:
		fprintf(f, ", \"param\": %u, \"reg\": %d, \"want\": %d",
			w->bad_reg + 1, w->reg, w->want);
		break;
	case FUNC_SKIP_UNCERTAIN:
		fprintf(f, ", \"param\": %u", w->uncertain + 1);
		break;
	case FUNC_SKIP_REORDERED:
		fprintf(f, ", \"param\": %u, \"origin_param\": %u",
			w->reordered + 1, w->reordered_from + 1);
		break;
	case FUNC_SKIP_OPTIMIZED:
		fprintf(f, ", \"param\": %u, \"how\": %u, \"nocall\": %s, \"clone\": ",
			w->optimized + 1, w->optimized_how,
			c->flags & FUNC_CAND_NOCALL ? "true" : "false");
		json_str(f, clone_at(st, d->key, c));
		break;
	case FUNC_SKIP_INCONSISTENT:
		fprintf(f, ", \"mismatch\": %d, \"param\": %u, \"first_die\": %llu",
			d->mismatch, d->param + 1,
			(unsigned long long)d->cands[0]->die_off);
		break;
	default:
		break;
	}
	fputc('}', f);
}

/*
 * explain__json() writes decision @d as a JSON item that says what the
 * text says.
 */
static void explain__json(struct explain *e, const struct btf *btf,
			  const struct elf_symtab *st,
			  const struct func_param *params,
			  const struct func_decision *d)
{
	FILE *f = e->out;
	char *why = NULL;
	size_t n, i;
	FILE *w;

	fprintf(f, "%s\n    {\"name\": ", e->nr_items ? "," : "");
	json_str(f, d->cands[0]->key);
	fprintf(f, ", \"encoded\": %s, \"verdict\": ",
		left_out(d->verdict) ? "false" : "true");
	json_str(f, func_verdict__name(d->verdict));
	if (left_out(d->verdict)) {
		fprintf(f, ", \"pahole\": ");
		json_str(f, func_verdict__pahole(d->verdict));
	}
	if (d->verdict == FUNC_ENCODED_CLONE) {
		fprintf(f, ", \"as\": ");
		json_str(f, d->name);
	}
	fprintf(f, ", \"also\": [");
	explain__also(f, d, true);
	fputc(']', f);
	w = open_memstream(&why, &n);
	if (w) {
		explain__why(e, w, btf, st, params, d);
		fclose(w);
	}
	fprintf(f, ",\n     \"why\": ");
	json_str(f, why);
	free(why);
	explain__json_evidence(f, st, d);
	fprintf(f, ",\n     \"candidates\": [");
	for (i = 0; i < d->nr && i < MAX_LISTED; i++) {
		const struct func_cand *c = d->cands[i];
		char *p = explain__proto(e, btf, params, c, c->key);

		fprintf(f, "%s\n       {\"cu\": ", i ? "," : "");
		json_str(f, c->cu_name);
		fprintf(f, ", \"die\": %llu, \"addr\": %llu, \"chosen\": %s, \"flags\": [",
			(unsigned long long)c->die_off,
			(unsigned long long)c->addr,
			c == d->chosen ? "true" : "false");
		cand_flags(f, c, true);
		fprintf(f, "], \"prototype\": ");
		json_str(f, p);
		fputc('}', f);
		free(p);
	}
	fprintf(f, "],\n     \"nr_candidates\": %zu, \"symbols\": [", d->nr);
	for (i = 0; i < d->key->nr; i++) {
		const struct elf_sym *s = elf_symtab__key_sym(st, d->key, i);

		fprintf(f, "%s{\"name\": ", i ? ", " : "");
		json_str(f, s->name);
		fprintf(f, ", \"addr\": %llu}", (unsigned long long)s->addr);
	}
	fprintf(f, "]}");
}

/*
 * explain__asked() returns the index of @name among those asked about, or
 * -1.
 */
static int explain__asked(const struct explain *e, const char *name)
{
	size_t i;

	for (i = 0; i < e->o.nr_names; i++)
		if (!strcmp(e->o.names[i], name))
			return i;
	return -1;
}

/*
 * explain__decided() is the func_report callback: it writes the decisions
 * on the names asked about, and with --all those that leave a function
 * out.
 */
static void explain__decided(void *ctx, const struct btf *btf,
			     const struct elf_symtab *st,
			     const struct func_param *params,
			     const struct func_decision *d)
{
	struct explain *e = ctx;
	int i = explain__asked(e, d->cands[0]->key);

	if (e->err || (i < 0 && !(e->o.all && left_out(d->verdict))))
		return;
	if (i >= 0)
		e->found[i] = true;
	if (e->o.json)
		explain__json(e, btf, st, params, d);
	else
		explain__text(e, btf, st, params, d);
	e->nr_items++;
	if (ferror(e->out))
		e->err = -ENOMEM;
}

/* These say why a variable DIE gets no VAR; a candidate needs no reason. */
static const char *const var_fates[] = {
	[VAR_CANDIDATE] = NULL,
	[VAR_DECLARATION] = "a declaration (DW_AT_declaration): another DIE defines it",
	[VAR_ARTIFICIAL] = "made by the compiler (DW_AT_artificial)",
	[VAR_NO_ADDRESS] = "no static address (its location is not DW_OP_addr): a local, or optimized away",
	[VAR_NAME_MACRO] = "a name macros make (__UNIQUE_ID and the like), left out as pahole does",
	[VAR_NAME_INVALID] = "not a name the kernel accepts for a VAR",
	[VAR_NO_SECTION] = "its address is in no data section",
	[VAR_NOT_PERCPU] = "it is not in .data..percpu (the global_var feature encodes the variables of every data section)",
	[VAR_SECTION_START] = "at the start of its section with no symbol of its name there (pahole takes such addresses for section markers)",
	[VAR_NO_TYPE] = "its type is void",
	[VAR_BAD_SIZE] = "its type has no size (or one too large)",
	[VAR_OFF] = "variables are not encoded (--skip_encoding_btf_vars)",
	[VAR_UNPLACED_SECTION] = "as pahole looks its address up, a section that is not loaded holds it first (in a module such sections stay at address 0, and their ranges cover the addresses libdwfl gave the loaded ones)",
};

/* explain__var() writes one variable DIE that is not a declaration into F. */
static void explain__var(struct explain *e, FILE *f,
			 const struct elf_symtab *st, const struct var_note *n)
{
	const char *sec = n->shndx ? elf_symtab__section_name(st, n->shndx) : NULL;
	const char *why = n->fate < sizeof(var_fates) / sizeof(*var_fates) ?
			  var_fates[n->fate] : "?";

	if (e->o.json) {
		fprintf(f, "%s\n    {\"name\": ", e->nr_vitems ? "," : "");
		json_str(f, n->name);
		fprintf(f, ", \"encoded\": %s, \"fate\": %u, \"why\": ",
			why ? "false" : "true", n->fate);
		json_str(f, why ? why : "a VAR");
		fprintf(f, ", \"cu\": ");
		json_str(f, n->cu_name);
		fprintf(f, ", \"die\": %llu, \"section\": ",
			(unsigned long long)n->die_off);
		json_str(f, sec);
		fprintf(f, ", \"offset\": %llu}", (unsigned long long)n->offset);
	} else if (why) {
		fprintf(f, "%s: variable left out: %s\n  %s, DIE 0x%llx%s%s\n",
			n->name, why, n->cu_name ? n->cu_name : "?",
			(unsigned long long)n->die_off, sec ? ", in " : "",
			sec ? sec : "");
	} else {
		fprintf(f, "%s: variable encoded: a VAR in %s at offset 0x%llx\n  %s, DIE 0x%llx\n",
			n->name, sec ? sec : "?", (unsigned long long)n->offset,
			n->cu_name ? n->cu_name : "?",
			(unsigned long long)n->die_off);
	}
	e->nr_vitems++;
}

/*
 * explain__vars() writes the variable DIEs of the names asked about, in
 * CU order: each one that is not a declaration, and how many declarations
 * there are.
 */
static void explain__vars(void *ctx, const struct elf_symtab *st,
			  const struct var_note *notes, size_t nr)
{
	struct explain *e = ctx;
	FILE *f = e->vout;
	size_t i, k, decls, defs;
	const struct var_note *first_decl;

	if (e->err)
		return;
	for (k = 0; k < e->o.nr_names; k++) {
		const char *name = e->o.names[k];

		decls = defs = 0;
		first_decl = NULL;
		for (i = 0; i < nr; i++) {
			const struct var_note *n = &notes[i];

			if (strcmp(n->name, name))
				continue;
			e->found[k] = true;
			if (n->fate != VAR_DECLARATION) {
				explain__var(e, f, st, n);
				defs++;
			} else if (!decls++) {
				first_decl = n;
			}
		}
		if (!decls)
			continue;
		if (e->o.json) {
			fprintf(f, "%s\n    {\"name\": ", e->nr_vitems++ ? "," : "");
			json_str(f, name);
			fprintf(f, ", \"declarations\": %zu, \"first_cu\": ", decls);
			json_str(f, first_decl->cu_name);
			fprintf(f, ", \"first_die\": %llu}",
				(unsigned long long)first_decl->die_off);
		} else if (!defs) {
			fprintf(f, "%s: variable left out: only declared (%zu DW_AT_declaration DIE%s, the first in %s, DIE 0x%llx); no DIE defines it: a symbol of the linker script, or defined in code without debug info\n",
				name, decls, decls == 1 ? "" : "s",
				first_decl->cu_name ? first_decl->cu_name : "?",
				(unsigned long long)first_decl->die_off);
		} else {
			fprintf(f, "  (and %zu declaration%s, the first in %s)\n",
				decls, decls == 1 ? "" : "s",
				first_decl->cu_name ? first_decl->cu_name : "?");
		}
	}
	if (ferror(f))
		e->err = -ENOMEM;
}

/*
 * explain__rerun() starts over when the run is made again (fwd_names.h),
 * because the next run decides everything again.
 */
static void explain__rerun(void *ctx)
{
	struct explain *e = ctx;

	/*
	 * The dumper goes, because the next run's BTF may even have the
	 * freed one's address.
	 */
	btf_dump__free(e->dump);
	e->dump = NULL;
	e->dump_btf = NULL;
	fclose(e->out);
	fclose(e->vout);
	free(e->buf);
	free(e->vbuf);
	e->buf = e->vbuf = NULL;
	e->len = e->vlen = 0;
	e->nr_items = e->nr_vitems = 0;
	memset(e->found, 0, (e->o.nr_names ? e->o.nr_names : 1) * sizeof(bool));
	e->out = open_memstream(&e->buf, &e->len);
	e->vout = open_memstream(&e->vbuf, &e->vlen);
	if (!e->out || !e->vout)
		e->err = -ENOMEM;
}

struct explain *explain__new(const struct explain_opts *opts)
{
	struct explain *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->o = *opts;
	e->found = calloc(opts->nr_names ? opts->nr_names : 1, sizeof(bool));
	e->out = open_memstream(&e->buf, &e->len);
	e->vout = open_memstream(&e->vbuf, &e->vlen);
	if (!e->found || !e->out || !e->vout) {
		explain__free(e);
		return NULL;
	}
	e->rep.decided = explain__decided;
	e->rep.vars_noted = explain__vars;
	e->rep.rerun = explain__rerun;
	e->rep.ctx = e;
	return e;
}

void explain__free(struct explain *e)
{
	if (!e)
		return;
	if (e->out)
		fclose(e->out);
	if (e->vout)
		fclose(e->vout);
	free(e->vbuf);
	btf_dump__free(e->dump);
	free(e->buf);
	free(e->found);
	free(e);
}

const struct func_report *explain__report(struct explain *e)
{
	return &e->rep;
}

/*
 * explain__print() prints what was written, the names not found and the
 * summary; it returns the number of names not found, or a negative errno.
 */
int explain__print(struct explain *e, FILE *f, const size_t *counts)
{
	size_t i, missing = 0, left = 0;
	int v;

	if (e->err)
		return e->err;
	fflush(e->out);
	if (e->o.json) {
		fprintf(f, "{\"file\": ");
		json_str(f, e->o.path);
		fprintf(f, ",\n  \"functions\": [");
	}
	fwrite(e->buf, 1, e->len, f);
	fflush(e->vout);
	if (e->o.json)
		fprintf(f, "],\n  \"variables\": [");
	fwrite(e->vbuf, 1, e->vlen, f);
	if (e->o.json)
		fprintf(f, "],\n  \"not_found\": [");
	for (i = 0; i < e->o.nr_names; i++) {
		if (e->found[i])
			continue;
		if (e->o.json) {
			fputs(missing ? ", " : "", f);
			json_str(f, e->o.names[i]);
		} else {
			fprintf(f, "%s: not found: no DW_TAG_subprogram of that name with an ELF function symbol of that name (and parameters with names), and no top-level DW_TAG_variable\n",
				e->o.names[i]);
		}
		missing++;
	}
	for (v = FUNC_SKIP_BAD_REG; v < FUNC_VERDICT__MAX; v++)
		left += counts[v];
	if (e->o.json) {
		fprintf(f, "],\n  \"summary\": {");
		for (v = 0; v < FUNC_VERDICT__MAX; v++) {
			fprintf(f, "%s", v ? ", " : "");
			json_str(f, func_verdict__name(v));
			fprintf(f, ": %zu", counts[v]);
		}
		fprintf(f, "}}\n");
	} else {
		fprintf(f, "summary: %zu functions encoded (%zu as clones), %zu left out",
			counts[FUNC_ENCODED] + counts[FUNC_ENCODED_CLONE],
			counts[FUNC_ENCODED_CLONE], left);
		for (v = FUNC_SKIP_BAD_REG; v < FUNC_VERDICT__MAX; v++)
			if (counts[v])
				fprintf(f, "; %zu %s", counts[v],
					func_verdict__name(v));
		fputc('\n', f);
	}
	return missing;
}
