// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every defining DIE gives one VAR, in CU order, as in pahole (a variable
 * is defined in one CU only; declarations elsewhere were skipped).  Each
 * section with variables gets a DATASEC, in section order, listing them by
 * offset and ending where the last one ends.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/log.h"
#include "decide/vars.h"
#include "merge/btf_concat.h"

/*
 * One VAR's entry in its section's DATASEC.  ORDER is the variable's
 * place in CU order: it orders variables at one offset, because qsort()
 * is not stable.
 */
struct datasec_ent {
	uint32_t shndx, id, offset, size;
	size_t order;
};

/* Orders entries by section, then offset, then CU order. */
static int datasec_ent__cmp(const void *a, const void *b)
{
	const struct datasec_ent *x = a, *y = b;

	if (x->shndx != y->shndx)
		return x->shndx < y->shndx ? -1 : 1;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/*
 * Appends a VAR, with its decl tags, for each of @vars in CU order, then a
 * DATASEC per section in section index order, whose size ends where its
 * last variable ends.  Returns the number of VARs or a negative errno;
 * -EINVAL for a section without a name.
 */
int vars__emit(struct btf_concat *out, const struct elf_symtab *syms,
	       const struct var_cand *vars, size_t nr,
	       const struct decl_tag *tags)
{
	struct datasec_ent *ents;
	size_t i, j;
	uint32_t k;
	int id, err = 0;

	if (!nr)
		return 0;
	ents = calloc(nr, sizeof(*ents));
	if (!ents)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const struct var_cand *v = &vars[i];

		/* An external variable is global, any other static. */
		id = btf_concat__add_var(out, v->name, v->external ?
					 BTF_VAR_GLOBAL_ALLOCATED :
					 BTF_VAR_STATIC, v->type_id);
		if (id < 0) {
			err = id;
			goto out;
		}
		ents[i] = (struct datasec_ent){ v->shndx, id, v->offset,
						v->size, i };
		for (k = 0; k < v->nr_tags; k++) {
			const struct decl_tag *t = &tags[v->first_tag + k];

			err = btf_concat__add_decl_tag(out, t->value, id,
						       t->component);
			if (err < 0)
				goto out;
			/* The tag's id is no error. */
			err = 0;
		}
	}
	qsort(ents, nr, sizeof(*ents), datasec_ent__cmp);
	for (i = 0; i < nr; i = j) {
		const char *name = elf_symtab__section_name(syms, ents[i].shndx);

		for (j = i + 1; j < nr && ents[j].shndx == ents[i].shndx; j++)
			;
		if (!name) {
			err = -EINVAL;
			goto out;
		}
		/* The section's entries are ents[i..j), sorted by offset. */
		id = btf_concat__add_datasec(out, name, ents[j - 1].offset +

					     ents[j - 1].size);
		if (id < 0) {
			err = id;
			goto out;
		}
		for (k = i; k < j; k++) {
			err = btf_concat__add_datasec_var_info(out, ents[k].id,
							       ents[k].offset,
							       ents[k].size);
			if (err)
				goto out;
		}
	}
out:
	free(ents);
	return err ? err : (int)nr;
}
