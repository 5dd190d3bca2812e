// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: reading BTF (btf_load: libbpf's parser plus our id
 * checks) and rendering all of it, as `dwarf2btf diff` and `--base` do.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "diff/diff_cmd.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY);

	/* diff prints every item: keep libFuzzer's log (stderr) readable */
	if (fd >= 0)
		dup2(fd, STDOUT_FILENO);
	snprintf(path, sizeof(path), "/tmp/dwarf2btf-fuzz-%d.btf", (int)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "diff", path, path, NULL };
	FILE *f = fopen(path, "wb");

	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	diff_cmd__main(3, argv);
	return 0;
}
