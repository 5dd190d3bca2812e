// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CU digest (cu_digest.h): one pass over the unit's bytes with its
 * abbreviations, no libdw (which would cost as much as the encoding the
 * digest lets us skip).  Every read is bounded by the unit or the section.
 */
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cu_digest.h"
#include "input/dwarf_form.h"
#include "input/symtab.h"
#include "lib/grow.h"
#include "lib/hash.h"
#include "lib/leb128.h"

#define STR_MEMO	(1u << 15)	/* string hashes remembered by offset */
#define MAX_CODE	(1u << 20)
#define FNAME_BITS_MAX	(256u << 20)	/* .debug_str, for fname_bits */

/* How die_read() takes a value without attr_read(): its common forms. */
enum fast_kind {
	FK_SLOW, FK_NONE, FK_1, FK_2, FK_4, FK_8, FK_ULEB, FK_SLEB, FK_STRP,
	FK_STRING,
};

struct abbrev_attr {
	uint32_t name, form;
	int64_t implicit;
	uint8_t fast;		/* enum fast_kind */
};

#define FIXED_MAX	32	/* bytes of a DIE dies_digest() takes at once */
#define FIXED_STRPS	2

struct abbrev_decl {
	uint32_t tag, first, nr;
	uint32_t first_op, nr_ops;
	uint32_t nr_strps;	/* its DOP_STRP ops */
	uint64_t hash;		/* tag, children, attributes, forms */
	/*
	 * A DIE whose values all have a fixed size (FIXED_MAX bytes at
	 * most, FIXED_STRPS string offsets) is fed as one value of its
	 * words, masked where the ops would skip or take a string offset
	 * (those at strp_at[]): no op by op, and no branch on its shape.
	 */
	uint8_t fixed_len;	/* 0: the ops */
	uint8_t strp_at[FIXED_STRPS];
	uint64_t mask[FIXED_MAX / 8];
};

/*
 * What dies_digest() does for a DIE of a declaration: consecutive values
 * of fixed size and no meaning beyond their bytes are fed as one word.
 */
enum dop_kind {
	DOP_SEG, DOP_SKIP, DOP_ULEB, DOP_SLEB, DOP_STRP, DOP_STRING, DOP_SLOW,
};

struct dop {
	uint8_t kind;
	uint8_t n;		/* DOP_SEG: bytes, 1 to 8; DOP_SKIP: bytes */
	uint32_t attr;		/* DOP_SLOW: into attrs */
};

struct str_memo {
	uint64_t hash;
	uint32_t off1;		/* its .debug_str offset + 1; 0: empty */
	uint8_t fname;		/* 0: not looked up; 1: no function; 2: one */
};

struct cu_digester {
	struct abbrev_decl *decls;
	size_t nr_decls, cap_decls;
	struct abbrev_attr *attrs;
	size_t nr_attrs, cap_attrs;
	struct dop *ops;
	size_t nr_ops, cap_ops;
	uint32_t *by_code;	/* code -> decls index + 1 */
	size_t cap_codes;
	uint64_t abbrev_off;	/* of the table held; -1: none */
	uint8_t addr_size, off_size;	/* the unit's it was compiled for */
	struct die_addr *addrs;
	size_t nr_addrs, cap_addrs;
	uint64_t *strps;	/* the unit's DW_FORM_strp offsets, in order */
	/* per .debug_str offset: 0 not known, 1 no function, 2 one */
	uint8_t *fname_bits;
	size_t nr_strps, cap_strps;
	struct str_memo *memo;
};

/* What one unit's walk needs to know. */
struct walk {
	struct cu_digester *d;
	const struct dwarf_sects *s;
	const unsigned char *unit, *end;	/* the unit, header included */
	uint64_t unit_off;
	uint64_t a, b;		/* the digest's two lanes */
	uint8_t version, addr_size, off_size;
	uint64_t str_offsets_base, addr_base, loclists_base;
	bool have_str_base, have_addr_base, have_loc_base;
	const struct elf_symtab *syms;	/* NULL: no function names */
};

/* hash.h's 128-bit mix; on locals in the hot loop */
#define FEED(a, b, v)	hash128_mix(&(a), &(b), (v))

static inline void feed(struct walk *w, uint64_t v)
{
	FEED(w->a, w->b, v);
}

/* Little-endian only: the caller checks (batch_cache.c). */
static bool fixed(const unsigned char **p, const unsigned char *end,
		  unsigned int n, uint64_t *v)
{
	uint64_t r = 0;

	if ((size_t)(end - *p) < n || n > 8)
		return false;
	memcpy(&r, *p, n);
	*p += n;
	*v = r;
	return true;
}

static uint8_t fast_kind(uint64_t form)
{
	switch (form) {
	case DW_FORM_flag_present: case DW_FORM_implicit_const:
		return FK_NONE;
	case DW_FORM_data1: case DW_FORM_ref1: case DW_FORM_flag:
		return FK_1;
	case DW_FORM_data2: case DW_FORM_ref2:
		return FK_2;
	case DW_FORM_data4: case DW_FORM_ref4:
		return FK_4;
	case DW_FORM_data8: case DW_FORM_ref8:
		return FK_8;
	case DW_FORM_udata: case DW_FORM_ref_udata:
		return FK_ULEB;
	case DW_FORM_sdata:
		return FK_SLEB;
	case DW_FORM_strp:
		return FK_STRP;
	case DW_FORM_string:
		return FK_STRING;
	default:
		return FK_SLOW;
	}
}

/*
 * The digest leaves out only what the encoder never reads: every value the
 * encoder's DIE reader (cu/cu_die.c's attribute slots, and libdw's calls
 * in cu/) takes must change the digest, or a cache hit would give the BTF
 * of DWARF that has changed since.  What is left out follows: offsets into
 * sections no encoding reads, a local's location list, and addresses (the
 * ones the encoder reads are kept aside, keep_addr()).
 * tests/test_relink.py changes one attribute of each kind the encoder
 * reads and checks that the key changes with the output.
 *
 * Section offsets whose target no encoding reads (ours: no line info).
 */
static bool offset_unread(unsigned int name)
{
	switch (name) {
	case DW_AT_stmt_list: case DW_AT_ranges: case DW_AT_macro_info:
	case DW_AT_macros: case DW_AT_GNU_macros: case DW_AT_frame_base:
	case DW_AT_GNU_locviews: case DW_AT_str_offsets_base:
	case DW_AT_addr_base: case DW_AT_rnglists_base:
	case DW_AT_loclists_base: case DW_AT_start_scope:
		return true;
	default:
		return false;
	}
}

/*
 * A variable's location list: a local's (a global's is an expression).
 * The encoder takes only an expression's address (cu_vars.c), so what the
 * list says is not read: leaving it out spares a tenth of the digest.
 */
static bool var_list(const struct abbrev_decl *decl,
		     const struct abbrev_attr *at)
{
	return decl->tag == DW_TAG_variable && at->name == DW_AT_location;
}

/*
 * Values of no meaning to any encoding, moved by a relink: skipped (their
 * attribute is in the declaration's hash).  Not a subprogram's low_pc,
 * which is kept aside (attr_read()).
 */
static int skip_size(const struct abbrev_decl *decl,
		     const struct abbrev_attr *at, uint8_t addr_size,
		     uint8_t off_size)
{
	if (at->form == DW_FORM_addr &&
	    !(at->name == DW_AT_low_pc && decl->tag == DW_TAG_subprogram))
		return addr_size;
	if (at->form == DW_FORM_sec_offset &&
	    (offset_unread(at->name) || var_list(decl, at)))
		return off_size;
	return 0;
}

/* Whether DIEs of @decl take the words path (abbrev_decl.fixed_len). */
static void decl__fixed(const struct cu_digester *d, struct abbrev_decl *decl,
			uint8_t off_size)
{
	unsigned char m[FIXED_MAX] = { 0 };
	unsigned int len = 0, nr_strps = 0, i, n;

	decl->fixed_len = 0;
	memset(decl->strp_at, 0, sizeof(decl->strp_at));
	for (i = 0; i < decl->nr_ops; i++) {
		const struct dop *op = &d->ops[decl->first_op + i];

		switch (op->kind) {
		case DOP_SEG:
		case DOP_SKIP:
			n = op->n;
			break;
		case DOP_STRP:
			if (nr_strps == FIXED_STRPS)
				return;
			n = off_size;
			break;
		default:
			return;
		}
		if (len + n > FIXED_MAX)
			return;
		if (op->kind == DOP_SEG)
			memset(m + len, 0xff, n);
		else if (op->kind == DOP_STRP)
			decl->strp_at[nr_strps++] = len;
		len += n;
	}
	if (!len)
		return;
	decl->fixed_len = len;
	memcpy(decl->mask, m, sizeof(decl->mask));
}

static int decl__compile(struct cu_digester *d, struct abbrev_decl *decl,
			 uint8_t addr_size, uint8_t off_size)
{
	static const uint8_t seg[] = {
		[FK_1] = 1, [FK_2] = 2, [FK_4] = 4, [FK_8] = 8,
	};
	uint32_t i;

	decl->first_op = d->nr_ops;
	decl->nr_strps = 0;
	for (i = 0; i < decl->nr; i++) {
		const struct abbrev_attr *at = &d->attrs[decl->first + i];
		struct dop *last = d->nr_ops > decl->first_op ?
				   &d->ops[d->nr_ops - 1] : NULL;
		struct dop op = { .kind = DOP_SLOW, .attr = decl->first + i };

		if (decl->tag == DW_TAG_subprogram && at->name == DW_AT_name)
			goto add;	/* DOP_SLOW: attr_read() looks it up */
		if (skip_size(decl, at, addr_size, off_size)) {
			int n = skip_size(decl, at, addr_size, off_size);

			if (last && last->kind == DOP_SKIP && last->n + n < 256) {
				last->n += n;
				continue;
			}
			op.kind = DOP_SKIP;
			op.n = n;
			goto add;
		}
		switch (at->fast) {
		case FK_NONE:
			continue;
		case FK_1: case FK_2: case FK_4: case FK_8:
			if (last && last->kind == DOP_SEG &&
			    last->n + seg[at->fast] <= 8) {
				last->n += seg[at->fast];
				continue;
			}
			op.kind = DOP_SEG;
			op.n = seg[at->fast];
			break;
		case FK_ULEB:
			op.kind = DOP_ULEB;
			break;
		case FK_SLEB:
			op.kind = DOP_SLEB;
			break;
		case FK_STRP:
			op.kind = DOP_STRP;
			decl->nr_strps++;
			break;
		case FK_STRING:
			op.kind = DOP_STRING;
			break;
		}
add:
		if (grow_array((void **)&d->ops, &d->cap_ops, d->nr_ops + 1,
			       sizeof(*d->ops), 1024))
			return -ENOMEM;
		d->ops[d->nr_ops++] = op;
	}
	decl->nr_ops = d->nr_ops - decl->first_op;
	decl__fixed(d, decl, off_size);
	return 0;
}

static int abbrevs__read(struct cu_digester *d, const struct dwarf_sects *s,
			 uint64_t off, uint8_t addr_size, uint8_t off_size)
{
	const unsigned char *p, *end;
	uint64_t code, tag, name, form;
	size_t i;

	if (d->abbrev_off == off && d->addr_size == addr_size &&
	    d->off_size == off_size)
		return 0;
	d->abbrev_off = (uint64_t)-1;
	d->nr_decls = d->nr_attrs = d->nr_ops = 0;
	for (i = 0; i < d->cap_codes; i++)
		d->by_code[i] = 0;
	if (!s->abbrev || off >= s->abbrev_size)
		return -EINVAL;
	p = s->abbrev + off;
	end = s->abbrev + s->abbrev_size;
	for (;;) {
		struct abbrev_decl *decl;
		uint64_t h;

		if (!uleb_read(&p, end, &code))
			return -EINVAL;
		if (!code)
			break;
		if (code >= MAX_CODE)
			return -EOPNOTSUPP;
		if (!uleb_read(&p, end, &tag) || p >= end)
			return -EINVAL;
		if (grow_array((void **)&d->decls, &d->cap_decls,
			       d->nr_decls + 1, sizeof(*d->decls), 256))
			return -ENOMEM;
		if (code >= d->cap_codes) {
			size_t old = d->cap_codes;

			if (grow_array((void **)&d->by_code, &d->cap_codes,
				       code + 1, sizeof(*d->by_code), 512))
				return -ENOMEM;
			memset(d->by_code + old, 0,
			       (d->cap_codes - old) * sizeof(*d->by_code));
		}
		if (d->by_code[code])
			return -EINVAL;
		decl = &d->decls[d->nr_decls];
		decl->tag = tag;
		decl->first = d->nr_attrs;
		h = hash_int(tag) ^ ((uint64_t)*p << 40);	/* children */
		p++;
		for (;;) {
			struct abbrev_attr *a;
			int64_t ic = 0;

			if (!uleb_read(&p, end, &name) || !uleb_read(&p, end, &form))
				return -EINVAL;
			if (!name && !form)
				break;
			if (form == DW_FORM_implicit_const && !sleb_read(&p, end, &ic))
				return -EINVAL;
			if (grow_array((void **)&d->attrs, &d->cap_attrs,
				       d->nr_attrs + 1, sizeof(*d->attrs), 1024))
				return -ENOMEM;
			a = &d->attrs[d->nr_attrs++];
			a->name = name;
			a->form = form;
			a->implicit = ic;
			a->fast = fast_kind(form);
			h = (h ^ (name << 16 | form)) * 0x100000001b3ull;
			h = (h ^ (uint64_t)ic) * 0x9e3779b97f4a7c15ull;
		}
		decl->nr = d->nr_attrs - decl->first;
		decl->hash = h ^ (h >> 29);
		if (decl__compile(d, decl, addr_size, off_size))
			return -ENOMEM;
		d->by_code[code] = ++d->nr_decls;
	}
	d->abbrev_off = off;
	d->addr_size = addr_size;
	d->off_size = off_size;
	return 0;
}

/*
 * The memo of the string at @off of .debug_str (@line: .debug_line_str,
 * *@tmp then, as for offsets past 4 GiB: few), filled; NULL when the
 * string runs out of its section.
 */
static inline struct str_memo *str_memo_of(struct walk *w, uint64_t off,
					   bool line, struct str_memo *tmp)
{
	const unsigned char *sec = line ? w->s->line_str : w->s->str;
	size_t size = line ? w->s->line_str_size : w->s->str_size;
	bool memo = !line && off < UINT32_MAX - 1;
	struct str_memo *m = memo ?
		&w->d->memo[hash_int(off) & (STR_MEMO - 1)] : tmp;
	const unsigned char *nul;

	if (!memo || m->off1 != off + 1) {
		if (!sec || off >= size)
			return NULL;
		nul = memchr(sec + off, 0, size - off);
		if (!nul)
			return NULL;
		m->off1 = off + 1;
		m->hash = hash_name(sec + off, nul - (sec + off));
		m->fname = 0;
	}
	return m;
}

static inline int str_hash(struct walk *w, uint64_t off, bool line,
			   uint64_t *h)
{
	struct str_memo tmp, *m = str_memo_of(w, off, line, &tmp);

	if (!m)
		return -EINVAL;
	*h = m->hash;
	return 0;
}

static int str_feed(struct walk *w, uint64_t off, bool line)
{
	uint64_t h;
	int err = str_hash(w, off, line, &h);

	if (!err)
		feed(w, h);
	return err;
}

static int strx_feed(struct walk *w, uint64_t idx)
{
	const unsigned char *p;
	uint64_t at, off;

	if (!w->have_str_base || !w->s->str_offsets)
		return -EOPNOTSUPP;
	at = w->str_offsets_base + idx * w->off_size;
	if (at < w->str_offsets_base || at > w->s->str_offsets_size)
		return -EINVAL;
	p = w->s->str_offsets + at;
	if (!fixed(&p, w->s->str_offsets + w->s->str_offsets_size,
		   w->off_size, &off))
		return -EINVAL;
	return str_feed(w, off, false);
}

/* The address at index @idx of the unit's .debug_addr table. */
static int addrx_read(struct walk *w, uint64_t idx, uint64_t *addr)
{
	const unsigned char *p;
	uint64_t at;

	if (!w->have_addr_base || !w->s->addr)
		return -EOPNOTSUPP;
	at = w->addr_base + idx * w->addr_size;
	if (at < w->addr_base || at > w->s->addr_size)
		return -EINVAL;
	p = w->s->addr + at;
	return fixed(&p, w->s->addr + w->s->addr_size, w->addr_size, addr) ?
	       0 : -EINVAL;
}

/* A reference to .debug_info: relative to the unit when inside it. */
static void info_ref_feed(struct walk *w, uint64_t ref)
{
	uint64_t size = w->end - w->unit;

	if (ref >= w->unit_off && ref - w->unit_off < size)
		feed(w, 1ull << 63 | (ref - w->unit_off));
	else
		feed(w, ref);	/* moves with a relink: only a miss */
}

/* DW_OP_entry_value holds an expression. */
static int expr_feed(struct walk *w, const unsigned char *p, size_t len);

#define EXPR_OTHER	1	/* an op the helpers below do not take */

/* The single operand of @op at *@pp, or EXPR_OTHER. */
static inline int expr_operand_feed(struct walk *w, unsigned int op,
				    const unsigned char **pp,
				    const unsigned char *end)
{
	unsigned int n;
	uint64_t u;
	int64_t s;

	switch (op) {
	case DW_OP_addr:
		if ((size_t)(end - *pp) < w->addr_size)
			return -EINVAL;
		*pp += w->addr_size;	/* a relink moves it */
		return 0;
	case DW_OP_const1u: case DW_OP_const1s: case DW_OP_pick:
	case DW_OP_deref_size: case DW_OP_xderef_size:
		n = 1;
		break;
	case DW_OP_const2u: case DW_OP_const2s: case DW_OP_skip:
	case DW_OP_bra: case DW_OP_call2:
		n = 2;
		break;
	case DW_OP_const4u: case DW_OP_const4s: case DW_OP_call4:
	case DW_OP_GNU_parameter_ref:
		n = 4;
		break;
	case DW_OP_const8u: case DW_OP_const8s:
		n = 8;
		break;
	case DW_OP_constu: case DW_OP_plus_uconst: case DW_OP_regx:
	case DW_OP_piece: case DW_OP_convert: case DW_OP_GNU_convert:
	case DW_OP_reinterpret: case DW_OP_GNU_reinterpret:
	case DW_OP_addrx: case DW_OP_GNU_addr_index:
	case DW_OP_constx: case DW_OP_GNU_const_index:
		if (!uleb_read(pp, end, &u))
			return -EINVAL;
		feed(w, u);
		return 0;
	case DW_OP_consts: case DW_OP_fbreg:
	case DW_OP_breg0 ... DW_OP_breg31:
		if (!sleb_read(pp, end, &s))
			return -EINVAL;
		feed(w, s);
		return 0;
	default:
		return EXPR_OTHER;
	}
	if (!fixed(pp, end, n, &u))
		return -EINVAL;
	feed(w, u);
	return 0;
}

/*
 * The operands of @op at *@pp when there are two, or a nested expression
 * or block, or a reference into the unit; or EXPR_OTHER.
 */
static int expr_operands_feed(struct walk *w, unsigned int op,
			      const unsigned char **pp,
			      const unsigned char *end)
{
	const unsigned char *p = *pp;
	uint64_t u, v;
	int64_t s;

	switch (op) {
	case DW_OP_bregx: case DW_OP_bit_piece:
	case DW_OP_regval_type: case DW_OP_GNU_regval_type:
		if (!uleb_read(&p, end, &u) ||
		    (op == DW_OP_bregx ? !sleb_read(&p, end, &s) :
		     !uleb_read(&p, end, (uint64_t *)&s)))
			return -EINVAL;
		feed(w, u);
		feed(w, s);
		break;
	case DW_OP_deref_type: case DW_OP_GNU_deref_type:
	case DW_OP_xderef_type:
		if (!fixed(&p, end, 1, &u) || !uleb_read(&p, end, &v))
			return -EINVAL;
		feed(w, u);
		feed(w, v);
		break;
	case DW_OP_implicit_value:
		if (!uleb_read(&p, end, &u) || u > (uint64_t)(end - p))
			return -EINVAL;
		feed(w, hash_bytes(p, u));
		p += u;
		break;
	case DW_OP_const_type: case DW_OP_GNU_const_type:
		if (!uleb_read(&p, end, &u) || !fixed(&p, end, 1, &v) ||
		    v > (uint64_t)(end - p))
			return -EINVAL;
		feed(w, u);
		feed(w, hash_bytes(p, v));
		p += v;
		break;
	case DW_OP_entry_value: case DW_OP_GNU_entry_value:
		if (!uleb_read(&p, end, &u) || u > (uint64_t)(end - p))
			return -EINVAL;
		if (expr_feed(w, p, u))
			return -EINVAL;
		p += u;
		break;
	case DW_OP_call_ref: case DW_OP_GNU_variable_value:
	case DW_OP_implicit_pointer: case DW_OP_GNU_implicit_pointer:
		if (!fixed(&p, end, w->off_size, &u))
			return -EINVAL;
		info_ref_feed(w, u);
		if (op != DW_OP_call_ref && op != DW_OP_GNU_variable_value) {
			if (!sleb_read(&p, end, &s))
				return -EINVAL;
			feed(w, s);
		}
		break;
	default:
		return EXPR_OTHER;
	}
	*pp = p;
	return 0;
}

/* Whether @op is known to have no operands. */
static inline bool expr_op_bare(unsigned int op)
{
	/* deref, dup ... ne, lit*, reg*: the others are above */
	return (op >= DW_OP_dup && op <= DW_OP_ne) || op == DW_OP_deref ||
	       (op >= DW_OP_lit0 && op <= DW_OP_reg31) ||
	       op == DW_OP_nop || op == DW_OP_push_object_address ||
	       op == DW_OP_form_tls_address ||
	       op == DW_OP_call_frame_cfa || op == DW_OP_stack_value ||
	       op == DW_OP_GNU_push_tls_address || op == DW_OP_GNU_uninit;
}

/*
 * A DWARF expression, op by op, without the operands of DW_OP_addr (a
 * relink moves them; what depends on them is given the new ones) and with
 * references into the unit made relative.  What is not understood is fed
 * as bytes, which only makes the digest change more often.
 */
static int expr_feed(struct walk *w, const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	int err;

	feed(w, len);
	while (p < end) {
		unsigned int op = *p++;

		feed(w, op);
		err = expr_operand_feed(w, op, &p, end);
		if (err == EXPR_OTHER)
			err = expr_operands_feed(w, op, &p, end);
		if (err == EXPR_OTHER && !expr_op_bare(op)) {
			/* not known: the rest as bytes */
			feed(w, hash_bytes(p, end - p));
			return 0;
		}
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * A location list: each entry's expression, and the length of its range
 * (a relink moves the range, not its length); base addresses left out.
 */
static int loclist_feed(struct walk *w, uint64_t off)
{
	const unsigned char *sec, *p, *end;
	uint64_t a, b, len;

	if (w->version < 5) {
		uint64_t all = w->addr_size == 8 ? ~0ull : 0xffffffffull;

		if (!w->s->loc || off >= w->s->loc_size)
			return -EINVAL;
		p = w->s->loc + off;
		end = w->s->loc + w->s->loc_size;
		for (;;) {
			if (!fixed(&p, end, w->addr_size, &a) ||
			    !fixed(&p, end, w->addr_size, &b))
				return -EINVAL;
			if (!a && !b)
				break;
			if (a == all)
				continue;	/* base address */
			if (!fixed(&p, end, 2, &len) || len > (uint64_t)(end - p))
				return -EINVAL;
			feed(w, b - a);
			if (expr_feed(w, p, len))
				return -EINVAL;
			p += len;
		}
		feed(w, 0);
		return 0;
	}
	sec = w->s->loclists;
	if (!sec || off >= w->s->loclists_size)
		return -EINVAL;
	p = sec + off;
	end = sec + w->s->loclists_size;
	for (;;) {
		unsigned int kind;

		if (p >= end)
			return -EINVAL;
		kind = *p++;
		feed(w, kind);
		switch (kind) {
		case DW_LLE_end_of_list:
			return 0;
		case DW_LLE_base_addressx:
			if (!uleb_read(&p, end, &a))
				return -EINVAL;
			continue;
		case DW_LLE_base_address:
			if (!fixed(&p, end, w->addr_size, &a))
				return -EINVAL;
			continue;
		case DW_LLE_startx_endx: case DW_LLE_startx_length:
			if (!uleb_read(&p, end, &a) || !uleb_read(&p, end, &b))
				return -EINVAL;
			feed(w, a);
			feed(w, b);
			break;
		case DW_LLE_offset_pair:
			if (!uleb_read(&p, end, &a) || !uleb_read(&p, end, &b))
				return -EINVAL;
			feed(w, b - a);
			break;
		case DW_LLE_default_location:
			break;
		case DW_LLE_start_end:
			if (!fixed(&p, end, w->addr_size, &a) ||
			    !fixed(&p, end, w->addr_size, &b))
				return -EINVAL;
			feed(w, b - a);
			break;
		case DW_LLE_start_length:
			if (!fixed(&p, end, w->addr_size, &a) ||
			    !uleb_read(&p, end, &b))
				return -EINVAL;
			feed(w, b);
			break;
		case DW_LLE_GNU_view_pair:
			if (!uleb_read(&p, end, &a) || !uleb_read(&p, end, &b))
				return -EINVAL;
			feed(w, a);
			feed(w, b);
			continue;
		default:
			return -EOPNOTSUPP;
		}
		if (!uleb_read(&p, end, &len) || len > (uint64_t)(end - p))
			return -EINVAL;
		if (expr_feed(w, p, len))
			return -EINVAL;
		p += len;
	}
}

static int loclistx_feed(struct walk *w, uint64_t idx)
{
	const unsigned char *p;
	uint64_t at, off;

	if (!w->have_loc_base || !w->s->loclists)
		return -EOPNOTSUPP;
	at = w->loclists_base + idx * w->off_size;
	if (at < w->loclists_base || at > w->s->loclists_size)
		return -EINVAL;
	p = w->s->loclists + at;
	if (!fixed(&p, w->s->loclists + w->s->loclists_size, w->off_size, &off))
		return -EINVAL;
	return loclist_feed(w, w->loclists_base + off);
}

static int keep_addr(struct walk *w, uint64_t die_off, uint64_t addr)
{
	struct cu_digester *d = w->d;

	if (grow_array((void **)&d->addrs, &d->cap_addrs, d->nr_addrs + 1,
		       sizeof(*d->addrs), 1024))
		return -ENOMEM;
	d->addrs[d->nr_addrs].die_off = die_off;
	d->addrs[d->nr_addrs++].addr = addr;
	return 0;
}

/*
 * A variable's DW_AT_location of the shapes whose address the encoder
 * takes (cu_vars.c): DW_OP_addr or DW_OP_addrx, then DW_OP_plus_uconst.
 */
static int var_location(struct walk *w, uint64_t die_off,
			const unsigned char *p, size_t len)
{
	const unsigned char *end = p + len;
	uint64_t addr, u;

	if (!len)
		return 0;
	if (*p == DW_OP_addr) {
		p++;
		if (!fixed(&p, end, w->addr_size, &addr))
			return 0;
	} else if (*p == DW_OP_addrx || *p == DW_OP_GNU_addr_index) {
		p++;
		if (!uleb_read(&p, end, &u) || addrx_read(w, u, &addr))
			return 0;
	} else {
		return 0;
	}
	if (end - p > 0 && *p == DW_OP_plus_uconst) {
		p++;
		if (!uleb_read(&p, end, &u) || p != end)
			return 0;
		addr += u;
	} else if (p != end) {
		return 0;
	}
	return keep_addr(w, die_off, addr);
}

/*
 * A subprogram's name: whether it names an ELF function is what makes it
 * a candidate (cu_funcs.c), so that goes into the digest, not the whole
 * symbol table: a relink that adds or drops a function changes only the
 * batches whose CUs name it.
 */
static int fname_feed(struct walk *w, unsigned int form, uint64_t v,
		      const unsigned char *inline_str)
{
	const unsigned char *sec = w->s->str, *p;
	uint64_t off = v, at;
	struct str_memo tmp, *m;

	switch (form) {
	case DW_FORM_string:
		feed(w, elf_symtab__find_key(w->syms,
					     (const char *)inline_str) ? 2 : 1);
		return 0;
	case DW_FORM_line_strp:
		sec = w->s->line_str;
		break;
	case DW_FORM_strp:
		break;
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2:
	case DW_FORM_strx3: case DW_FORM_strx4:
		at = w->str_offsets_base + v * w->off_size;
		if (!w->have_str_base || !w->s->str_offsets ||
		    at < w->str_offsets_base || at > w->s->str_offsets_size)
			return -EINVAL;
		p = w->s->str_offsets + at;
		if (!fixed(&p, w->s->str_offsets + w->s->str_offsets_size,
			   w->off_size, &off))
			return -EINVAL;
		break;
	default:
		return -EOPNOTSUPP;
	}
	/*
	 * Names repeat from CU to CU: each .debug_str offset's answer is
	 * kept, two bits an offset (direct, unlike the memo, which a unit's
	 * thousand declarations would flush).
	 */
	if (form != DW_FORM_line_strp && off < w->s->str_size &&
	    w->s->str_size <= FNAME_BITS_MAX) {
		struct cu_digester *d = w->d;
		unsigned int shift = (off & 3) * 2, known;

		if (!d->fname_bits &&
		    !(d->fname_bits = calloc(w->s->str_size / 4 + 1, 1)))
			return -ENOMEM;
		known = d->fname_bits[off >> 2] >> shift & 3;
		if (!known) {
			if (!memchr(sec + off, 0, w->s->str_size - off))
				return -EINVAL;
			known = elf_symtab__find_key(w->syms,
						     (const char *)sec + off) ?
				2 : 1;
			d->fname_bits[off >> 2] |= known << shift;
		}
		feed(w, known);
		return 0;
	}
	m = str_memo_of(w, off, form == DW_FORM_line_strp, &tmp);
	if (!m)
		return -EINVAL;
	if (!m->fname)
		m->fname = elf_symtab__find_key(w->syms,
						(const char *)sec + off) ? 2 : 1;
	feed(w, m->fname);
	return 0;
}

/*
 * The value of @form at *@pp, for the unit's layout @l: a word, or the
 * hash of a string or of a block, which is fed here (a block of an
 * expression without its addresses: a call site's value may be a
 * global's address) unless @prescan.
 */
static inline int attr_value_read(struct walk *w,
				  const struct abbrev_decl *decl,
				  const struct abbrev_attr *at,
				  unsigned int form,
				  struct dwarf_form_layout l, uint64_t die_off,
				  const unsigned char **pp, uint64_t *out,
				  bool prescan)
{
	const unsigned char *p = *pp, *end = w->end, *nul;
	uint64_t v = 0, len;
	int64_t s;
	int err = 0;

	switch (l.kind) {
	case DWARF_FORM_FIXED:
		if (l.size > 8) {	/* DW_FORM_data16 */
			if ((size_t)(end - p) < l.size)
				return -EINVAL;
			v = hash_bytes(p, l.size);
			p += l.size;
		} else if (!fixed(&p, end, l.size, &v)) {
			return -EINVAL;
		}
		break;
	case DWARF_FORM_SLEB:
		if (!sleb_read(&p, end, &s))
			return -EINVAL;
		v = s;
		break;
	case DWARF_FORM_ULEB:
		if (!uleb_read(&p, end, &v))
			return -EINVAL;
		break;
	case DWARF_FORM_STRING:
		nul = memchr(p, 0, end - p);
		if (!nul)
			return -EINVAL;
		v = hash_bytes(p, nul - p);
		p = nul + 1;
		break;
	case DWARF_FORM_BLOCK:
		if (l.size ? !fixed(&p, end, l.size, &len) :
		    !uleb_read(&p, end, &len))
			return -EINVAL;
		if (len > (uint64_t)(end - p))
			return -EINVAL;
		if (prescan)
			;
		else if (at->name == DW_AT_location && decl->tag == DW_TAG_variable)
			err = var_location(w, die_off, p, len) ?:
			      expr_feed(w, p, len);
		else if (at->name == DW_AT_location || form == DW_FORM_exprloc)
			err = expr_feed(w, p, len);
		else
			feed(w, hash_bytes(p, len));
		p += len;
		break;
	default:
		return -EINVAL;
	}
	*pp = p;
	*out = v;
	return err;
}

/* A function's address, of its DW_AT_low_pc of @form with value @v. */
static inline int low_pc_keep(struct walk *w, unsigned int form, uint64_t v,
			      uint64_t die_off)
{
	uint64_t addr;
	int err;

	if (form == DW_FORM_addr)
		return keep_addr(w, die_off, v);
	if (form != DW_FORM_addrx && (form < DW_FORM_addrx1 ||
				      form > DW_FORM_addrx4))
		return 0;
	err = addrx_read(w, v, &addr);
	return err ?: keep_addr(w, die_off, addr);
}

/* The unit DIE's bases the other attributes need, from attribute @at. */
static int unit_base_note(struct walk *w, const struct abbrev_attr *at,
			  unsigned int form, uint64_t v)
{
	if (at->name == DW_AT_str_offsets_base && form == DW_FORM_sec_offset) {
		w->str_offsets_base = v;
		w->have_str_base = true;
	} else if (at->name == DW_AT_addr_base && form == DW_FORM_sec_offset) {
		w->addr_base = v;
		w->have_addr_base = true;
	} else if (at->name == DW_AT_loclists_base &&
		   form == DW_FORM_sec_offset) {
		w->loclists_base = v;
		w->have_loc_base = true;
	} else if (at->name == DW_AT_GNU_dwo_name ||
		   at->name == DW_AT_dwo_name || at->name == DW_AT_GNU_dwo_id) {
		return -EOPNOTSUPP;	/* the unit is elsewhere */
	}
	return 0;
}

/*
 * The value @v of @form fed by what it means: strings by content, lists by
 * their entries, offsets the encoder does not read as nothing.
 */
static inline int attr_value_feed(struct walk *w,
				  const struct abbrev_decl *decl,
				  const struct abbrev_attr *at,
				  unsigned int form, uint64_t v)
{
	switch (form) {
	case DW_FORM_ref_addr: case DW_FORM_ref_sig8: case DW_FORM_ref_sup4:
	case DW_FORM_ref_sup8: case DW_FORM_strp_sup:
		return -EOPNOTSUPP;	/* meaning outside the unit */
	case DW_FORM_strp: case DW_FORM_line_strp:
		return str_feed(w, v, form == DW_FORM_line_strp);
	case DW_FORM_strx: case DW_FORM_strx1: case DW_FORM_strx2:
	case DW_FORM_strx3: case DW_FORM_strx4:
		return strx_feed(w, v);
	case DW_FORM_sec_offset:
		if (at->name == DW_AT_location && !var_list(decl, at))
			return loclist_feed(w, v);
		if (!offset_unread(at->name) && !var_list(decl, at))
			return -EOPNOTSUPP;
		feed(w, 0);
		return 0;
	case DW_FORM_loclistx:
		if (at->name == DW_AT_location && !var_list(decl, at))
			return loclistx_feed(w, v);
		if (!offset_unread(at->name) && !var_list(decl, at))
			return -EOPNOTSUPP;
		feed(w, 0);
		return 0;
	case DW_FORM_rnglistx:
		feed(w, 0);
		return 0;
	case DW_FORM_addr: case DW_FORM_block1: case DW_FORM_block2:
	case DW_FORM_block4: case DW_FORM_block: case DW_FORM_exprloc:
		return 0;	/* fed by attr_value_read() */
	default:
		feed(w, v);
		return 0;
	}
}

/*
 * One attribute value: fed to the digest (unless @prescan: the unit DIE is
 * read first for the bases its other attributes need), then skipped.
 * Nothing the encoder reads may be left out (offset_unread(), above).
 */
static int attr_read(struct walk *w, const struct abbrev_decl *decl,
		     const struct abbrev_attr *at, unsigned int form,
		     uint64_t die_off, const unsigned char **pp, bool prescan)
{
	const unsigned char *p = *pp, *start = *pp;
	struct dwarf_form_layout l = dwarf_form__layout(form, w->version,
							w->addr_size,
							w->off_size);
	uint64_t v = 0;
	int err;

	/* type units, supplementary files, split DWARF, vendors */
	if (l.kind == DWARF_FORM_UNKNOWN || form >= DW_FORM_GNU_addr_index)
		return -EOPNOTSUPP;
	if (l.kind == DWARF_FORM_INDIRECT) {
		if (!uleb_read(&p, w->end, &v))
			return -EINVAL;
		if (!prescan)
			feed(w, v);
		if (v == DW_FORM_indirect || v == DW_FORM_implicit_const)
			return -EINVAL;
		*pp = p;
		return attr_read(w, decl, at, v, die_off, pp, prescan);
	}
	err = attr_value_read(w, decl, at, form, l, die_off, &p, &v, prescan);
	if (err)
		return err;
	*pp = p;
	if (prescan)
		return unit_base_note(w, at, form, v);
	if (at->name == DW_AT_low_pc && decl->tag == DW_TAG_subprogram) {
		err = low_pc_keep(w, form, v, die_off);
		if (err)
			return err;
	}
	if (form == DW_FORM_addr)
		v = 0;
	if (w->syms && decl->tag == DW_TAG_subprogram &&
	    at->name == DW_AT_name) {
		err = fname_feed(w, form, form == DW_FORM_string ? 0 : v, start);
		if (err)
			return err;
	}
	return attr_value_feed(w, decl, at, form, v);
}

/* One DIE at *@pp: its abbreviation, or NULL for a null entry. */
/* The unit DIE at *@pp, for the bases its other attributes need. */
static int die_prescan(struct walk *w, const unsigned char **pp)
{
	const unsigned char *p = *pp;
	const struct abbrev_decl *decl;
	uint64_t code;
	uint32_t i;
	int err;

	if (!uleb_read(&p, w->end, &code))
		return -EINVAL;
	if (!code)
		return 0;
	if (code >= w->d->cap_codes || !w->d->by_code[code])
		return -EINVAL;
	decl = &w->d->decls[w->d->by_code[code] - 1];
	for (i = 0; i < decl->nr; i++) {
		const struct abbrev_attr *at = &w->d->attrs[decl->first + i];

		err = attr_read(w, decl, at, at->form, 0, &p, true);
		if (err)
			return err;
	}
	*pp = p;
	return 0;
}

static const uint64_t seg_mask[9] = {
	0, 0xff, 0xffff, 0xffffff, 0xffffffff, 0xffffffffffull,
	0xffffffffffffull, 0xffffffffffffffull, ~0ull,
};

/*
 * Every DIE from @p to the end of the unit; the hot loop.  It stays one
 * function over 120 lines on purpose: split into always-inlined phases
 * (the fixed-size DIE, the ops of the others) the digest of a warm cached
 * run of dwarf2btf's own binary took 176,000 more instructions in
 * callgrind (1.2% of the digest), as the lanes and the string offsets
 * no longer stayed in registers across the phases.
 */
static int dies_digest(struct walk *w, const unsigned char *p)
{
	struct cu_digester *d = w->d;
	const unsigned char *end = w->end, *nul, *t;
	uint64_t a = w->a, b = w->b, code, v;
	const struct abbrev_decl *decl;
	const struct dop *op, *oe;
	/* in registers: stores into strps[] could otherwise be d's fields */
	uint64_t *strps, off_mask = seg_mask[w->off_size];
	size_t nr_strps = 0;
	int64_t sv;
	int err;

	strps = d->strps;

	while (p < end) {
		const unsigned char *die = p;

		if (*p < 0x80)
			code = *p++;
		else if (!uleb_read(&p, end, &code))
			return -EINVAL;
		if (!code) {
			FEED(a, b, 0);
			continue;
		}
		if (code >= d->cap_codes || !d->by_code[code])
			return -EINVAL;
		decl = &d->decls[d->by_code[code] - 1];
		/* room for the DIE's string offsets: no check for each one */
		if (nr_strps + decl->nr_strps + FIXED_STRPS > d->cap_strps) {
			if (grow_array((void **)&d->strps, &d->cap_strps,
				       nr_strps + decl->nr_strps + FIXED_STRPS,
				       sizeof(*strps), 4096))
				return -ENOMEM;
			strps = d->strps;
		}
		if (decl->fixed_len) {
			const unsigned char *at = p;
			/* a string offset is read as a word too */
			unsigned char tmp[FIXED_MAX + 8];
			uint64_t w0, w1, w2, w3, s0, s1, h;

			if (end - p < FIXED_MAX + 8) {
				/* the unit's last bytes: as if zeros followed */
				if (end - p < decl->fixed_len)
					return -EINVAL;
				memset(tmp, 0, sizeof(tmp));
				memcpy(tmp, p, end - p);
				at = tmp;
			}
			/* two words, two offsets, whatever the declaration */
			memcpy(&w0, at, 8);
			memcpy(&w1, at + 8, 8);
			memcpy(&s0, at + decl->strp_at[0], 8);
			memcpy(&s1, at + decl->strp_at[1], 8);
			strps[nr_strps] = s0 & off_mask;
			strps[nr_strps + 1] = s1 & off_mask;
			nr_strps += decl->nr_strps;
			/* two full products: every bit of a word reaches all */
			h = hash_mum((w0 & decl->mask[0]) ^ 0x9e3779b97f4a7c15ull,
				     (w1 & decl->mask[1]) ^ 0xc2b2ae3d27d4eb4full);
			/*
			 * The last two words only past 16 bytes, most DIEs'
			 * length; below, masked to 0, they give the product
			 * of the constants, which is what they give here.
			 */
			if (decl->fixed_len > 16) {
				memcpy(&w2, at + 16, 8);
				memcpy(&w3, at + 24, 8);
				h ^= hash_rotl(hash_mum((w2 & decl->mask[2]) ^
							0x165667b19e3779f9ull,
							(w3 & decl->mask[3]) ^
							0xd6e8feb86659fd93ull),
					       32);
			} else {
				h ^= hash_rotl(hash_mum(0x165667b19e3779f9ull,
							0xd6e8feb86659fd93ull),
					       32);
			}
			FEED(a, b, h ^ decl->hash);
			p += decl->fixed_len;
			continue;
		}
		FEED(a, b, decl->hash);
		if (!decl->nr_ops)
			continue;
		for (op = d->ops + decl->first_op, oe = op + decl->nr_ops;
		     op < oe; op++) {
			switch (op->kind) {
			case DOP_SEG:
				if (end - p >= 8) {
					memcpy(&v, p, 8);
					v &= seg_mask[op->n];
				} else if (end - p >= op->n) {
					v = 0;
					memcpy(&v, p, op->n);
				} else {
					return -EINVAL;
				}
				p += op->n;
				FEED(a, b, v);
				break;
			case DOP_SKIP:
				if (end - p < op->n)
					return -EINVAL;
				p += op->n;
				break;
			case DOP_ULEB:
				if (!uleb_read(&p, end, &v))
					return -EINVAL;
				FEED(a, b, v);
				break;
			case DOP_SLEB:
				if (!sleb_read(&p, end, &sv))
					return -EINVAL;
				FEED(a, b, sv);
				break;
			case DOP_STRP:
				/*
				 * By content, in strps_digest().  A word load
				 * masked like DOP_SEG: fixed()'s copy of a
				 * size known only at run time stalls the load
				 * of its result.
				 */
				if (end - p >= 8) {
					memcpy(&v, p, 8);
					v &= seg_mask[w->off_size];
				} else if (end - p >= w->off_size) {
					v = 0;
					memcpy(&v, p, w->off_size);
				} else {
					return -EINVAL;
				}
				p += w->off_size;
				strps[nr_strps++] = v;
				FEED(a, b, 0x5354);
				break;
			case DOP_STRING:
				nul = memchr(p, 0, end - p);
				if (!nul)
					return -EINVAL;
				FEED(a, b, hash_bytes(p, nul - p));
				p = nul + 1;
				break;
			default:
				w->a = a;
				w->b = b;
				t = p;
				err = attr_read(w, decl, &d->attrs[op->attr],
						d->attrs[op->attr].form,
						die - w->unit, &t, false);
				if (err)
					return err;
				p = t;
				a = w->a;
				b = w->b;
			}
		}
	}
	w->a = a;
	w->b = b;
	d->nr_strps = nr_strps;
	return 0;
}

/*
 * The contents of the strings dies_digest() met, in order, after the
 * DIEs: each is a cache miss (of the memo, or of .debug_str), and here
 * the next ones are fetched while one is hashed.
 */
#define STRP_AHEAD	8

static int strps_digest(struct walk *w)
{
	struct cu_digester *d = w->d;
	uint64_t c = 0x452821e638d01377ull, e = 0xbe5466cf34e90c6cull;
	struct str_memo tmp, *m;
	size_t i;

	for (i = 0; i < d->nr_strps; i++) {
		if (i + STRP_AHEAD < d->nr_strps) {
			uint64_t ahead = d->strps[i + STRP_AHEAD];

			__builtin_prefetch(&d->memo[hash_int(ahead) &
						    (STR_MEMO - 1)]);
			if (ahead < w->s->str_size)
				__builtin_prefetch(w->s->str + ahead);
		}
		m = str_memo_of(w, d->strps[i], false, &tmp);
		if (!m)
			return -EINVAL;
		FEED(c, e, m->hash);
	}
	FEED(w->a, w->b, c);
	FEED(w->a, w->b, e);
	return 0;
}

struct cu_digester *cu_digester__new(void)
{
	struct cu_digester *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->memo = calloc(STR_MEMO, sizeof(*d->memo));
	if (!d->memo) {
		free(d);
		return NULL;
	}
	d->abbrev_off = (uint64_t)-1;
	return d;
}

void cu_digester__free(struct cu_digester *d)
{
	if (!d)
		return;
	free(d->decls);
	free(d->attrs);
	free(d->ops);
	free(d->by_code);
	free(d->addrs);
	free(d->strps);
	free(d->fname_bits);
	free(d->memo);
	free(d);
}

int cu_digester__run(struct cu_digester *d, const struct dwarf_sects *s,
		     const struct elf_symtab *syms, uint64_t cu_off,
		     struct cu_digest *out, const struct die_addr **addrs,
		     size_t *nr_addrs)
{
	struct walk w = { .d = d, .s = s, .unit_off = cu_off, .syms = syms,
			  .a = 0x243f6a8885a308d3ull, .b = 0x13198a2e03707344ull };
	const unsigned char *p, *end, *dies;
	uint64_t len, abbrev_off, type;
	int err;

	d->nr_addrs = 0;
	if (!s->info || cu_off >= s->info_size)
		return -EINVAL;
	p = s->info + cu_off;
	end = s->info + s->info_size;
	w.unit = p;
	if (!fixed(&p, end, 4, &len))
		return -EINVAL;
	w.off_size = 4;
	if (len == 0xffffffff) {
		if (!fixed(&p, end, 8, &len))
			return -EINVAL;
		w.off_size = 8;
	}
	if (len > (uint64_t)(end - p))
		return -EINVAL;
	w.end = p + len;
	if (!fixed(&p, w.end, 2, &type))
		return -EINVAL;
	w.version = type;
	if (w.version < 4 || w.version > 5)
		return -EOPNOTSUPP;
	if (w.version == 5) {
		uint64_t as;

		if (!fixed(&p, w.end, 1, &type) || !fixed(&p, w.end, 1, &as) ||
		    !fixed(&p, w.end, w.off_size, &abbrev_off))
			return -EINVAL;
		if (type != DW_UT_compile && type != DW_UT_partial)
			return -EOPNOTSUPP;
		w.addr_size = as;
	} else {
		uint64_t as;

		type = DW_UT_compile;
		if (!fixed(&p, w.end, w.off_size, &abbrev_off) ||
		    !fixed(&p, w.end, 1, &as))
			return -EINVAL;
		w.addr_size = as;
	}
	if (w.addr_size != 4 && w.addr_size != 8)
		return -EOPNOTSUPP;
	err = abbrevs__read(d, s, abbrev_off, w.addr_size, w.off_size);
	if (err)
		return err;
	feed(&w, w.version);
	feed(&w, type);
	feed(&w, w.addr_size);
	feed(&w, w.off_size);
	dies = p;
	err = die_prescan(&w, &p);
	if (err)
		return err;
	err = dies_digest(&w, dies) ?: strps_digest(&w);
	if (err)
		return err;
	out->h[0] = w.a ^ (w.a >> 29);
	out->h[1] = w.b ^ (w.b >> 31);
	*addrs = d->addrs;
	*nr_addrs = d->nr_addrs;
	return 0;
}

int cu_digest__addr_of(const struct die_addr *addrs, size_t nr,
		       uint64_t die_off, uint64_t *addr)
{
	size_t lo = 0, hi = nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addrs[mid].die_off < die_off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == nr || addrs[lo].die_off != die_off)
		return -ENOENT;
	*addr = addrs[lo].addr;
	return 0;
}
