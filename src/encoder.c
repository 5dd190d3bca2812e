// SPDX-License-Identifier: GPL-2.0-only
#define _GNU_SOURCE	/* strcasestr */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <dwarf.h>
#include <unistd.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include "cu_queue.h"
#include "merge.h"
#include "elf_file.h"
#include "encoder.h"
#include "funcs.h"
#include "log.h"
#include "output.h"
#include "stats.h"
#include "symtab.h"
#include "vars.h"

/* The consumer's side of the queue: batches arrive in CU order. */
struct consumer {
	struct merge_state m;
	const char *path;
};

static int encoder__consume(void *arg, size_t idx, struct cu_fragment *frag)
{
	struct consumer *c = arg;
	int err = merge_state__add(&c->m, frag);

	if (err)
		pr_err("%s: cannot merge BTF: %s", c->path, strerror(-err));
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
		if (n == cap) {
			Dwarf_Die *na;

			cap = cap ? cap * 2 : 1024;
			na = realloc(arr, cap * sizeof(*arr));
			if (!na) {
				free(arr);
				return -ENOMEM;
			}
			arr = na;
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
	int fd, err;

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
		/* e.g. relocations of a machine elfutils does not know */
		const char *msg;

		err = dwfl_errno();
		msg = err ? dwfl_errmsg(err) : NULL;
		if (msg && !strcasestr(msg, "no DWARF")) {
			pr_err("%s: cannot read DWARF: %s", ef->path, msg);
			dwfl_end(dwfl);
			return -ENODATA;
		}
		dwfl_end(dwfl);
		goto no_dwarf;
	}
	*dwflp = dwfl;
	*dwp = dw;
	return 0;
no_dwarf:
	err = dwarf_errno();
	/* libdw's "no DWARF information" says nothing more than we do. */
	if (err && dwarf_errmsg(err) && !strcasestr(dwarf_errmsg(err), "no DWARF"))
		pr_err("%s: cannot read DWARF: %s", ef->path, dwarf_errmsg(err));
	else
		pr_err("%s: no DWARF debug info", ef->path);
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

int encoder__prepare_base(struct btf *base)
{
	/*
	 * libbpf makes a BTF modifiable (builds its string index) the first
	 * time a split BTF's dedup looks a string up in it: do it now, while
	 * one thread owns the base, so that it is only read afterwards.
	 */
	return btf__find_str(base, "") == -ENOMEM ? -ENOMEM : 0;
}

int encoder__run(const char *path, const struct encoder_opts *opts)
{
	struct consumer cons = { .path = path };
	struct merge_state *m = &cons.m;
	struct btf *btf;
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

	/* Batches already come deduplicated: dedup again per 512 Ki new types. */
	err = merge_state__init(m, opts->enc.plain_dedup ? UINT32_MAX : 1u << 19,
				opts->base);
	if (err)
		goto out;
	btf = m->acc.btf;
	btf__set_pointer_size(btf, ef.ptr_size);
	env.ef = &ef;
	env.syms = syms;
	env.opts = &opts->enc;
	debug_info_mapping(dw, &env);
	err = cu_queue__run(&env, cus, nr_cus, opts->jobs,
			    encoder__consume, &cons);
	if (err)
		goto out;
	stats__phase_end(&st, PHASE_ENCODE);

	st.nr_types_in = m->acc.nr_types_in;
	st.nr_func_cands = m->acc.nr_funcs;
	n = funcs__emit(btf, syms, &opts->enc, m->acc.funcs, m->acc.nr_funcs,
			m->acc.params, m->acc.tags);
	if (n < 0) {
		err = n;
		pr_err("%s: cannot encode functions: %s", path, strerror(-err));
		goto out;
	}
	st.nr_funcs = n;
	n = vars__emit(btf, syms, m->acc.vars, m->acc.nr_vars, m->acc.tags);
	if (n < 0) {
		err = n;
		pr_err("%s: cannot encode variables: %s", path, strerror(-err));
		goto out;
	}
	st.nr_vars = n;
	stats__phase_end(&st, PHASE_FUNCS);

	err = btf__dedup(btf, NULL);
	if (err) {
		pr_err("%s: BTF dedup failed: %s", path, strerror(-err));
		goto out;
	}
	st.nr_types = btf__type_cnt(btf) - 1;
	stats__phase_end(&st, PHASE_DEDUP);

	if (ef.big_endian)
		btf__set_endianness(btf, BTF_BIG_ENDIAN);
	err = write_output(path, opts, btf, &st.out_bytes);
	stats__phase_end(&st, PHASE_WRITE);
	if (!err && opts->stats)
		stats__print(&st, stderr);
out:
	merge_state__free(m);
	free(cus);
	if (dwfl)
		dwfl_end(dwfl);
	else if (dw)
		dwarf_end(dw);
	elf_symtab__free(syms);
	elf_file__close(&ef);
	return err;
}
