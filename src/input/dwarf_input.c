// SPDX-License-Identifier: GPL-2.0-only
/*
 * This file opens the input's DWARF (dwarf_input.h): with libdw alone for
 * a linked file, and with libdwfl for a relocatable one.
 */
#define _GNU_SOURCE	/* This is for strcasestr(). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <gelf.h>

#include "input/debug_file.h"
#include "input/dwarf_input.h"
#include "input/dwarf_layout.h"
#include "input/rel_apply.h"
#include "lib/log.h"

/*
 * Relocatable objects (.o, .ko) carry their DWARF's cross-section
 * references as relocations.  libdwfl applies them (for every architecture
 * elfutils knows), while libdw alone would read zeros.  Other files need
 * no relocation.
 */
static const Dwfl_Callbacks dwfl_offline_callbacks = {
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

/*
 * The addresses of @ef's loaded sections as the headers of its copy give
 * them now, indexed by section number (0 for a section not loaded), into
 * a new array *@addr of *@n.  Returns 0 or -errno.
 */
static int loaded_addrs(const struct elf_file *ef, uint64_t **addr, size_t *n)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (elf_getshdrnum(ef->elf, n))
		return -EINVAL;
	*addr = calloc(*n ? *n : 1, sizeof(**addr));
	if (!*addr)
		return -ENOMEM;
	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		size_t i = elf_ndxscn(scn);

		if (i < *n && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC))
			(*addr)[i] = sh.sh_addr;
	}
	return 0;
}

/*
 * The address the file gives its first loaded section, or 0 if it has
 * none (a header that cannot be read is passed over: laid_out_anew()
 * then leaves the file to libdwfl).
 */
static uint64_t first_loaded_addr(const struct elf_file *ef)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(ef->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC))
			return sh.sh_addr;
	return 0;
}

/*
 * Does libdwfl, having reported @ef, relocate against the addresses the
 * headers of the copy give its loaded sections, without a bias?  It lays
 * out there, in place, every loaded section whose address in the file is
 * 0, and most others, from an address of its own; the module gets a bias
 * only if the first loaded section has an address of its own (@first:
 * the address the file gave it).  A section left at 0 would have libdwfl
 * ask where it goes as it relocates.  Otherwise the addresses are those
 * rel_apply.c relocates against (rel_apply.h), and those that
 * dwfl_module_getelf() gives, which first relocates every section, code
 * and data too, where only the DWARF is read.
 */
static bool laid_out_anew(const struct elf_file *ef, uint64_t first)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	if (first)
		return false;
	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh))
			return false;
		if ((sh.sh_flags & SHF_ALLOC) && !sh.sh_addr)
			return false;
	}
	return true;
}

/*
 * dwarf_input__rel_addrs() records where libdwfl placed each allocated
 * section to relocate the DWARF; offline, libdwfl lays a relocatable file
 * out as it would load it.  in->rel_addr is indexed by section number.
 */
static int dwarf_input__rel_addrs(struct dwarf_input *in, Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	Elf_Scn *scn = NULL;
	size_t n;
	GElf_Shdr sh;

	if (!elf || elf_getshdrnum(elf, &n))
		return -EINVAL;
	in->rel_addr = calloc(n ? n : 1, sizeof(*in->rel_addr));
	if (!in->rel_addr)
		return -ENOMEM;
	in->nr_rel_addr = n;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		size_t i = elf_ndxscn(scn);

		if (i < n && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_ALLOC))
			in->rel_addr[i] = sh.sh_addr + bias;
	}
	return 0;
}

/* Is section @sh, named @name, one of the DWARF sections? */
static bool is_dwarf_section(const GElf_Shdr *sh, const char *name)
{
	return sh->sh_type != SHT_NOBITS && !(sh->sh_flags & SHF_ALLOC) &&
	       (!strncmp(name, ".debug_", 7) || !strncmp(name, ".zdebug_", 8));
}

/*
 * The relocation sections of @ef that apply to its DWARF sections, as
 * file ranges into @off and @size (up to @max of them; the rest are left
 * as they are).  They are found before libdwfl relocates, because it then
 * marks each one it applied as empty.  Returns their number.
 */
static size_t dwarf_relocations(const struct elf_file *ef, uint64_t *off,
				uint64_t *size, size_t max)
{
	Elf_Scn *scn = NULL, *target;
	GElf_Shdr sh, tsh;
	size_t n = 0;
	const char *name;

	while (n < max && (scn = elf_nextscn(ef->elf, scn)) != NULL) {
		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_RELA && sh.sh_type != SHT_REL))
			continue;
		target = elf_getscn(ef->elf, sh.sh_info);
		if (!target || !gelf_getshdr(target, &tsh) ||
		    !(name = elf_strptr(ef->elf, ef->shstrndx, tsh.sh_name)) ||
		    !is_dwarf_section(&tsh, name))
			continue;
		off[n] = sh.sh_offset;
		size[n++] = sh.sh_size;
	}
	return n;
}

/*
 * This many relocation sections of DWARF are given back after libdwfl
 * applied them; a file has about eight (.debug_info, _line, _loclists,
 * _rnglists, _aranges, _frame...).
 */
#define DWARF_RELOCS_MAX	16

/*
 * dwarf_input__open() opens the DWARF of @ef: through libdw for a linked
 * file, and through libdwfl, which relocates it in ef->buf, for a
 * relocatable one.  It returns 0, or a negative errno after printing why;
 * a file without DWARF gives -ENODATA.
 */
int dwarf_input__open(struct dwarf_input *in, const struct elf_file *ef)
{
	uint64_t rel_off[DWARF_RELOCS_MAX], rel_size[DWARF_RELOCS_MAX];
	uint64_t first;
	Dwfl_Module *mod;
	Dwarf_Addr bias;
	size_t nr_rel, i;
	bool laid_out;
	int err;

	memset(in, 0, sizeof(*in));
	if (ef->ehdr.e_type != ET_REL) {
		in->dw = dwarf_begin_elf(ef->elf, DWARF_C_READ, NULL);
		if (!in->dw)
			goto no_dwarf;
		return 0;
	}
	in->dwfl = dwfl_begin(&dwfl_offline_callbacks);
	if (!in->dwfl)
		return -ENOMEM;
	/* elf_file reads relocatable files whole, so buf must be there. */
	if (!ef->buf) {
		dwarf_input__close(in);
		return -EINVAL;
	}
	in->in_memory = true;
	nr_rel = dwarf_relocations(ef, rel_off, rel_size, DWARF_RELOCS_MAX);
	first = first_loaded_addr(ef);
	mod = dwfl_report_offline_memory(in->dwfl, ef->path, ef->path,
					 ef->buf, ef->size);
	dwfl_report_end(in->dwfl, NULL, NULL);
	laid_out = mod && laid_out_anew(ef, first);
	if (laid_out) {
		err = loaded_addrs(ef, &in->rel_addr, &in->nr_rel_addr);
		if (err) {
			dwarf_input__close(in);
			return err;
		}
	}
	/*
	 * The relocations of DWARF left out of the copy are applied from
	 * the file but for those libdwfl must do, or read in for libdwfl
	 * (rel_apply.h), before it relocates.
	 */
	for (i = 0; i < ef->nr_unread; i++) {
		err = mod ? rel_apply__section(ef, ef->unread[i].shndx,
					       laid_out) : 1;
		if (err == 1)
			err = elf_file__fill(ef, ef->unread[i].shndx);
		if (err) {
			pr_err("%s: cannot read its relocations: %s", ef->path,
			       strerror(-err));
			dwarf_input__close(in);
			return err;
		}
	}
	in->dw = mod ? dwfl_module_getdwarf(mod, &bias) : NULL;
	/*
	 * libdwfl has applied the DWARF's relocations and marked their
	 * sections empty; they are most of a module's bytes (36 of xfs.ko's
	 * 95 MB), so they go now.
	 */
	for (i = 0; in->dw && i < nr_rel; i++)
		elf_file__discard(ef, rel_off[i], rel_size[i]);
	if (in->dw && !laid_out) {
		err = dwarf_input__rel_addrs(in, mod);
		if (err) {
			pr_err("%s: cannot read section addresses: %s",
			       ef->path, strerror(-err));
			dwarf_input__close(in);
			return err;
		}
	}
	if (!in->dw) {
		/*
		 * This happens, for example, with relocations of a machine
		 * elfutils does not know.
		 */
		const char *msg;

		err = dwfl_errno();
		msg = err ? dwfl_errmsg(err) : NULL;
		dwarf_input__close(in);
		if (msg && !strcasestr(msg, "no DWARF")) {
			pr_err("%s: cannot read DWARF: %s", ef->path, msg);
			return -ENODATA;
		}
		goto no_dwarf;
	}
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

/*
 * dwarf_input__open_alt() opens dwz's supplementary file into @alt and
 * attaches its DWARF to in->dw.  It is warmed up at once, because CUs on
 * several threads read its DIEs (dwarf_layout__prewarm()).
 */
int dwarf_input__open_alt(struct dwarf_input *in, const struct elf_file *src,
			  const char *alt_file, const char *debug_root,
			  struct elf_file *alt)
{
	char *path = NULL;
	int err;

	err = debug_file__find_alt(src, alt_file, debug_root, &path);
	if (!err)
		err = elf_file__open(alt, path);
	free(path);
	if (err)
		return err;
	in->alt_dw = dwarf_begin_elf(alt->elf, DWARF_C_READ, NULL);
	if (!in->alt_dw) {
		pr_err("%s: cannot read DWARF: %s", alt->path, dwarf_errmsg(-1));
		return -EINVAL;
	}
	dwarf_setalt(in->dw, in->alt_dw);
	dwarf_layout__prewarm(in->alt_dw);
	return 0;
}

size_t dwarf_input__discard_read(const struct dwarf_input *in,
				 const struct elf_file *ef, bool strings)
{
	Elf_Scn *scn = NULL;
	const char *name;
	size_t done = 0;
	GElf_Shdr sh;

	if (!in->in_memory)
		return 0;
	while ((scn = elf_nextscn(ef->elf, scn)) != NULL)
		if (gelf_getshdr(scn, &sh) &&
		    (name = elf_strptr(ef->elf, ef->shstrndx, sh.sh_name)) &&
		    is_dwarf_section(&sh, name) &&
		    (strings || (strcmp(name, ".debug_str") &&
				 strcmp(name, ".debug_line_str"))))
			done += elf_file__discard(ef, sh.sh_offset, sh.sh_size);
	return done;
}

void dwarf_input__close(struct dwarf_input *in)
{
	if (in->dwfl)
		dwfl_end(in->dwfl);	/* The dwfl owns in->dw. */
	else if (in->dw)
		dwarf_end(in->dw);
	if (in->alt_dw)
		dwarf_end(in->alt_dw);
	free(in->rel_addr);
	memset(in, 0, sizeof(*in));
}
