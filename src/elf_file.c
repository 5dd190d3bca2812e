// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening the ELF input.  libelf resolves extended section numbering for
 * us through elf_getshdrnum()/elf_getshdrstrndx(); compressed debug
 * sections are decompressed later by libdw when it opens the DWARF.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "elf_file.h"
#include "log.h"

int elf_file__open(struct elf_file *ef, const char *path)
{
	struct stat st;
	int err;

	memset(ef, 0, sizeof(*ef));
	ef->path = path;
	ef->fd = -1;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		pr_err("%s: libelf version mismatch", path);
		return -EINVAL;
	}
	/* O_NONBLOCK: a FIFO given as input must not hang us in open(). */
	ef->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (ef->fd < 0) {
		err = -errno;
		pr_err("%s: %s", path, strerror(errno));
		return err;
	}
	if (fstat(ef->fd, &st) || !S_ISREG(st.st_mode)) {
		pr_err("%s: not a regular file", path);
		err = -EINVAL;
		goto fail;
	}
	ef->elf = elf_begin(ef->fd, ELF_C_READ_MMAP, NULL);
	if (!ef->elf || elf_kind(ef->elf) != ELF_K_ELF) {
		pr_err("%s: not an ELF file", path);
		err = -EINVAL;
		goto fail;
	}
	if (!gelf_getehdr(ef->elf, &ef->ehdr) ||
	    elf_getshdrnum(ef->elf, &ef->shnum) ||
	    elf_getshdrstrndx(ef->elf, &ef->shstrndx)) {
		pr_err("%s: bad ELF header: %s", path, elf_errmsg(-1));
		err = -EINVAL;
		goto fail;
	}
	ef->big_endian = ef->ehdr.e_ident[EI_DATA] == ELFDATA2MSB;
	ef->ptr_size = ef->ehdr.e_ident[EI_CLASS] == ELFCLASS32 ? 4 : 8;
	return 0;
fail:
	elf_file__close(ef);
	return err;
}

void elf_file__close(struct elf_file *ef)
{
	if (ef->elf)
		elf_end(ef->elf);
	if (ef->fd >= 0)
		close(ef->fd);
	ef->elf = NULL;
	ef->fd = -1;
}

const char *elf_file__section_name(const struct elf_file *ef, size_t shndx)
{
	Elf_Scn *scn = elf_getscn(ef->elf, shndx);
	GElf_Shdr shdr;

	if (!scn || !gelf_getshdr(scn, &shdr))
		return NULL;
	return elf_strptr(ef->elf, ef->shstrndx, shdr.sh_name);
}

Elf_Scn *elf_file__find_section(const struct elf_file *ef, const char *name,
				GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(ef->elf, scn)) != NULL) {
		const char *n;

		if (!gelf_getshdr(scn, shdr))
			continue;
		n = elf_strptr(ef->elf, ef->shstrndx, shdr->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}
