// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: `dwarf2btf layout` on one input file, an ELF file
 * with DWARF and a .BTF section: the ELF and DWARF readers of input/, the
 * DWARF walk of layout/dwarf_shapes.c, the BTF reader and the check.  A
 * crash, a sanitizer report or a hang is a finding; an exit status of 1
 * or 2 is not.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "layout_cmd.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY);

	/* The check prints a line per struct: keep libFuzzer's log readable. */
	if (fd >= 0)
		dup2(fd, STDOUT_FILENO);
	snprintf(path, sizeof(path), "/tmp/dwarf2btf-fuzz-%d.o", (int)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "layout", path, NULL };
	FILE *f = fopen(path, "wb");

	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	layout_cmd__main(2, argv);
	return 0;
}
