// SPDX-License-Identifier: GPL-2.0-only
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <dwarf.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "cu_queue.h"
#include "dedup.h"
#include "elf_file.h"
#include "encoder.h"
#include "funcs.h"
#include "log.h"
#include "output.h"
#include "stats.h"
#include "symtab.h"
#include "vars.h"

struct merge_state {
	struct btf *btf;
	struct func_entry *funcs;
	size_t nr_funcs, cap_funcs;
	struct func_param *params;
	size_t nr_params, cap_params;
	struct var_entry *vars;
	size_t nr_vars, cap_vars;
	uint32_t dedup_at;	/* type count that triggers the next dedup */
	size_t nr_dedups;
};

/*
 * Deduplicating whenever the merged BTF has doubled (and by at least
 * DEDUP_BATCH types) keeps memory near the output's size at a cost linear
 * in the input.  It depends only on type counts, never on timing, so the
 * output stays the same for any number of workers.
 */
#define DEDUP_BATCH	(1u << 19)

static int merge_state__dedup(struct merge_state *m)
{
	uint32_t **ids;
	size_t n = 0, i, cnt;
	int err;

	ids = malloc((m->nr_funcs + m->nr_params + m->nr_vars + 1) * sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < m->nr_funcs; i++)
		ids[n++] = &m->funcs[i].cand.ret_type;
	for (i = 0; i < m->nr_params; i++)
		ids[n++] = &m->params[i].type_id;
	for (i = 0; i < m->nr_vars; i++)
		ids[n++] = &m->vars[i].cand.type_id;
	err = dedup__run(m->btf, ids, n);
	free(ids);
	if (err)
		return err;
	m->nr_dedups++;
	cnt = btf__type_cnt(m->btf);
	m->dedup_at = cnt * 2 > cnt + DEDUP_BATCH ? cnt * 2 : cnt + DEDUP_BATCH;
	return 0;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 256;
	void *n;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	n = realloc(*arr, ncap * elem);
	if (!n)
		return -ENOMEM;
	*arr = n;
	*cap = ncap;
	return 0;
}

/* Append one fragment (in CU order) and remap its candidates' ids. */
static int merge_state__consume(void *arg, size_t idx, struct cu_fragment *frag)
{
	struct merge_state *m = arg;
	uint32_t base;
	int first;
	size_t i;
	int err = 0;

	if (btf__type_cnt(frag->btf) > 1) {
		first = btf__add_btf(m->btf, frag->btf);
		if (first < 0) {
			err = first;
			goto out;
		}
	} else {
		first = btf__type_cnt(m->btf);
	}
	base = first - 1;
	if (grow((void **)&m->funcs, &m->cap_funcs, m->nr_funcs + frag->nr_funcs,
		 sizeof(*m->funcs)) ||
	    grow((void **)&m->params, &m->cap_params,
		 m->nr_params + frag->nr_params, sizeof(*m->params)) ||
	    grow((void **)&m->vars, &m->cap_vars, m->nr_vars + frag->nr_vars,
		 sizeof(*m->vars))) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < frag->nr_funcs; i++) {
		struct func_entry *e = &m->funcs[m->nr_funcs++];

		e->cand = frag->funcs[i];
		if (e->cand.ret_type)
			e->cand.ret_type += base;
		e->cand.first_param += m->nr_params;
		e->seq = m->nr_funcs - 1;
	}
	for (i = 0; i < frag->nr_params; i++) {
		struct func_param *p = &m->params[m->nr_params++];

		*p = frag->params[i];
		if (p->type_id)
			p->type_id += base;
	}
	for (i = 0; i < frag->nr_vars; i++) {
		struct var_entry *v = &m->vars[m->nr_vars++];

		v->cand = frag->vars[i];
		if (v->cand.type_id)
			v->cand.type_id += base;
		v->cu_idx = idx;
	}
	if (btf__type_cnt(m->btf) >= m->dedup_at && dedup__can_track())
		err = merge_state__dedup(m);
out:
	cu_fragment__free(frag);
	return err;
}

static int collect_cus(const char *path, Dwarf *dw, Dwarf_Die **out, size_t *nr)
{
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie, subdie;
	Dwarf_Die *arr = NULL;
	size_t cap = 0, n = 0;
	uint8_t unit_type;
	int ret;

	while ((ret = dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie,
				      &subdie)) == 0) {
		if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
			continue;
		if (grow((void **)&arr, &cap, n + 1, sizeof(*arr))) {
			free(arr);
			return -ENOMEM;
		}
		arr[n++] = cudie;
	}
	if (ret < 0) {
		pr_err("%s: cannot read DWARF units: %s", path, dwarf_errmsg(-1));
		free(arr);
		return -EINVAL;
	}
	*out = arr;
	*nr = n;
	return 0;
}

/*
 * Relocatable objects (.o, .ko) carry their DWARF's cross-section
 * references as relocations; libdwfl applies them (for every architecture
 * elfutils knows), libdw alone would read zeros.  Other files need none.
 */
static const Dwfl_Callbacks dwfl_offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int dwarf_input__open(const struct elf_file *ef, Dwfl **dwflp, Dwarf **dwp)
{
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	Dwarf *dw;
	Dwfl *dwfl;
	int fd;

	*dwflp = NULL;
	*dwp = NULL;
	if (ef->ehdr.e_type != ET_REL) {
		dw = dwarf_begin_elf(ef->elf, DWARF_C_READ, NULL);
		if (!dw)
			goto no_dwarf;
		*dwp = dw;
		return 0;
	}
	dwfl = dwfl_begin(&dwfl_offline_callbacks);
	if (!dwfl)
		return -ENOMEM;
	fd = dup(ef->fd);
	if (fd < 0) {
		dwfl_end(dwfl);
		return -errno;
	}
	/* dwfl owns fd from here on. */
	mod = dwfl_report_offline(dwfl, ef->path, ef->path, fd);
	dwfl_report_end(dwfl, NULL, NULL);
	dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	if (!dw) {
		dwfl_end(dwfl);
		goto no_dwarf;
	}
	*dwflp = dwfl;
	*dwp = dw;
	return 0;
no_dwarf:
	pr_err("%s: no DWARF debug info (%s)", ef->path,
	       dwarf_errmsg(-1) ? dwarf_errmsg(-1) : "no .debug_info");
	return -ENODATA;
}

/* Is .debug_info used straight from the file mapping (not a copy)? */
static void debug_info_mapping(Dwarf *dw, struct encode_env *env)
{
	Elf *elf = dwarf_getelf(dw);
	size_t file_size, shstrndx;
	char *file = elf ? elf_rawfile(elf, &file_size) : NULL;
	Elf_Scn *scn = NULL;
	GElf_Shdr shdr;
	Elf_Data *data;

	env->debug_info = NULL;
	env->debug_info_size = 0;
	if (!file || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			return;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && !strcmp(name, ".debug_info"))
			break;
	}
	if (!scn || (shdr.sh_flags & SHF_COMPRESSED))
		return;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || (char *)data->d_buf < file ||
	    (char *)data->d_buf + data->d_size > file + file_size)
		return;
	env->debug_info = data->d_buf;
	env->debug_info_size = data->d_size;
}

static int write_output(const char *path, const struct encoder_opts *opts,
			struct btf *btf, size_t *size)
{
	const void *data;
	uint32_t sz;

	data = btf__raw_data(btf, &sz);
	if (!data) {
		pr_err("%s: cannot serialize BTF", path);
		return -ENOMEM;
	}
	*size = sz;
	if (opts->out_path)
		return output__write_raw(opts->out_path, data, sz);
	return output__write_elf_section(path, ".BTF", data, sz);
}

int encoder__run(const char *path, const struct encoder_opts *opts)
{
	struct merge_state m = { .dedup_at = DEDUP_BATCH };
	struct elf_symtab *syms = NULL;
	struct encode_env env;
	struct elf_file ef;
	struct stats st;
	Dwarf_Die *cus = NULL;
	Dwarf *dw = NULL;
	Dwfl *dwfl = NULL;
	size_t nr_cus = 0;
	int err, n;

	stats__start(&st);
	st.jobs = opts->jobs;
	err = elf_file__open(&ef, path);
	if (err)
		return err;
	err = elf_symtab__new(&ef, &syms);
	if (err)
		goto out;
	err = dwarf_input__open(&ef, &dwfl, &dw);
	if (err)
		goto out;
	err = collect_cus(path, dw, &cus, &nr_cus);
	if (err)
		goto out;
	if (!nr_cus) {
		pr_err("%s: no DWARF compilation units", path);
		err = -ENODATA;
		goto out;
	}
	st.nr_cus = nr_cus;
	stats__phase_end(&st, PHASE_ELF);

	m.btf = btf__new_empty();
	if (!m.btf) {
		err = -ENOMEM;
		goto out;
	}
	btf__set_pointer_size(m.btf, ef.ptr_size);
	env.ef = &ef;
	env.syms = syms;
	env.opts = &opts->enc;
	debug_info_mapping(dw, &env);
	err = cu_queue__run(&env, cus, nr_cus, opts->jobs,
			    merge_state__consume, &m);
	if (err)
		goto out;
	stats__phase_end(&st, PHASE_ENCODE);

	st.nr_func_cands = m.nr_funcs;
	n = funcs__emit(m.btf, syms, m.funcs, m.nr_funcs, m.params);
	if (n < 0) {
		err = n;
		pr_err("%s: cannot encode functions: %s", path, strerror(-err));
		goto out;
	}
	st.nr_funcs = n;
	n = vars__emit(m.btf, syms, m.vars, m.nr_vars);
	if (n < 0) {
		err = n;
		pr_err("%s: cannot encode variables: %s", path, strerror(-err));
		goto out;
	}
	st.nr_vars = n;
	stats__phase_end(&st, PHASE_FUNCS);

	st.nr_types_in = btf__type_cnt(m.btf) - 1;
	err = btf__dedup(m.btf, NULL);
	if (err) {
		pr_err("%s: BTF dedup failed: %s", path, strerror(-err));
		goto out;
	}
	st.nr_types = btf__type_cnt(m.btf) - 1;
	stats__phase_end(&st, PHASE_DEDUP);

	if (ef.big_endian)
		btf__set_endianness(m.btf, BTF_BIG_ENDIAN);
	err = write_output(path, opts, m.btf, &st.out_bytes);
	stats__phase_end(&st, PHASE_WRITE);
	if (!err && opts->stats)
		stats__print(&st, stderr);
out:
	btf__free(m.btf);
	free(m.funcs);
	free(m.params);
	free(m.vars);
	free(cus);
	if (dwfl)
		dwfl_end(dwfl);
	else if (dw)
		dwarf_end(dw);
	elf_symtab__free(syms);
	elf_file__close(&ef);
	return err;
}
