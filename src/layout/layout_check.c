// SPDX-License-Identifier: GPL-2.0-only
/*
 * The verdicts of `dwarf2btf layout` (layout_check.h).  A vmlinux has
 * four million struct DIEs but some ten thousand distinct shapes: each
 * DIE's shape is hashed, and only a shape not met before is looked up in
 * the BTF.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <dwarf.h>
#include <elfutils/libdw.h>

#include "layout/layout_check.h"
#include "lib/grow.h"

/* A distinct shape met, its members kept in layout_check's array. */
struct layout_seen {
	struct shape s;
	size_t first_m;
	bool by_name;
};

static const char *kind_name(enum shape_kind k)
{
	return k == SHAPE_UNION ? "union" : "struct";
}

/* Prints member @i of @s ("no member" past the last) to @f. */
static void print_member(FILE *f, const struct shape *s, size_t i)
{
	const struct shape_member *m;

	if (i >= s->nr) {
		fputs("no member", f);
		return;
	}
	m = &s->m[i];
	fprintf(f, "member %s at bit %llu, ", m->name ? m->name : "(unnamed)",
		(unsigned long long)m->bit_off);
	if (m->bit_size == SHAPE_SIZE_ANY)
		fputs("size unknown", f);
	else if (m->bit_size == SHAPE_SIZE_BAD)
		fputs("size unresolvable", f);
	else
		fprintf(f, "%llu bits", (unsigned long long)m->bit_size);
}

/*
 * Prints where DWARF shape @d and BTF shape @b part (neither matches the
 * other): the kind, the first member that differs, the member count, or
 * the size.
 */
static void print_diff(FILE *f, const struct shape *d, const struct shape *b)
{
	size_t i = shape__first_diff(d, b);

	if (d->kind != b->kind) {
		fprintf(f, "%s, BTF has %s", kind_name(d->kind),
			kind_name(b->kind));
	} else if (i < d->nr && i < b->nr) {
		print_member(f, d, i);
		fputs("; BTF: ", f);
		print_member(f, b, i);
	} else if (d->nr != b->nr) {
		fprintf(f, "%zu members, BTF %zu: ", d->nr, b->nr);
		print_member(f, d->nr > b->nr ? d : b, i);
		fputs(d->nr > b->nr ? " not in BTF" : " only in BTF", f);
	} else if (d->size != b->size) {
		fprintf(f, "size %llu, BTF %llu", (unsigned long long)d->size,
			(unsigned long long)b->size);
	} else {
		fputs("members of other sizes at one offset", f);
	}
}

/*
 * Reports shape @s, which the BTF has no twin of: against the BTF type
 * of its name (or its C++ name with scopes), a mismatch; else "not in
 * BTF".
 */
static void layout_check__report(struct layout_check *c, const struct shape *s,
				 const struct dwarf_shape_info *info)
{
	const char *cu = dwarf_diename(info->unit);
	long b = -1;

	if (*s->name)
		b = btf_shapes__closest(c->btf, s, s->name);
	if (b < 0 && info->qual_name)
		b = btf_shapes__closest(c->btf, s, info->qual_name);
	fprintf(c->out, "layout: CU %s: DIE 0x%llx: %s %s: ", cu ? cu : "?",
		(unsigned long long)dwarf_dieoffset(info->die),
		kind_name(s->kind),
		info->qual_name ? info->qual_name :
		*s->name ? s->name : "(anon)");
	if (b < 0) {
		c->missing++;
		fputs("not in BTF\n", c->out);
		return;
	}
	c->mismatches++;
	print_diff(c->out, s, &c->btf->shapes[b]);
	fprintf(c->out, " (BTF [%u] %s)\n", c->btf->ids[b],
		*c->btf->shapes[b].name ? c->btf->shapes[b].name : "(anon)");
}

/* Remembers shape @s, met for the first time, under @key. */
static int layout_check__remember(struct layout_check *c,
				  const struct shape *s, bool by_name,
				  uint64_t key)
{
	struct layout_seen *ls;

	if (grow_array((void **)&c->seen, &c->cap_seen, c->nr_seen + 1,
		       sizeof(*c->seen), 1024) ||
	    grow_array((void **)&c->m, &c->cap_m, c->nr_m + s->nr,
		       sizeof(*c->m), 4096) ||
	    u32_map__add(&c->by_hash, key, c->nr_seen))
		return -ENOMEM;
	ls = &c->seen[c->nr_seen++];
	ls->s = *s;
	ls->s.m = NULL;
	ls->first_m = c->nr_m;
	ls->by_name = by_name;
	if (s->nr)
		memcpy(c->m + c->nr_m, s->m, s->nr * sizeof(*s->m));
	c->nr_m += s->nr;
	return 0;
}

/* Was shape @s (compared by name or not, @by_name) met before? */
static bool layout_check__seen(const struct layout_check *c,
			       const struct shape *s, bool by_name,
			       uint64_t key)
{
	const struct u32_map_slot *slot = NULL;

	while ((slot = u32_map__next(&c->by_hash, key, slot))) {
		struct layout_seen *ls = &c->seen[slot->val];
		struct shape old = ls->s;

		old.m = old.nr ? c->m + ls->first_m : NULL;
		if (ls->by_name == by_name && shape__equal(&old, s))
			return true;
	}
	return false;
}

int layout_check__shape(void *arg, const struct shape *s,
			const struct dwarf_shape_info *info)
{
	struct layout_check *c = arg;
	bool by_name = info->lang == LANG_C;
	uint64_t key = shape__hash(s, by_name) | 1;

	if (layout_check__seen(c, s, by_name, key))
		return 0;
	c->checked++;
	if (info->variant_part)
		c->variant_parts++;
	if (btf_shapes__find(c->btf, s, by_name) < 0)
		layout_check__report(c, s, info);
	return layout_check__remember(c, s, by_name, key);
}

int layout_check__summary(const struct layout_check *c, uint64_t nr_dies)
{
	if (c->variant_parts)
		fprintf(c->out, "layout: %llu with a Rust variant part, checked %s\n",
			(unsigned long long)c->variant_parts,
			c->rust_variants ?
			"as a nameless union at offset 0 (its variants are structs checked on their own)" :
			"without it (--rust-enums=pahole: BTF has no variants)");
	fprintf(c->out, "layout: %llu struct/union DIEs, %llu distinct\n",
		(unsigned long long)nr_dies, (unsigned long long)c->checked);
	fprintf(c->out, "layout: %llu structs/unions checked, %llu mismatches, %llu not in the BTF\n",
		(unsigned long long)c->checked,
		(unsigned long long)c->mismatches,
		(unsigned long long)c->missing);
	return c->mismatches || c->missing ? 1 : 0;
}

void layout_check__free(struct layout_check *c)
{
	free(c->seen);
	free(c->m);
	u32_map__free(&c->by_hash);
	memset(c, 0, sizeof(*c));
}
