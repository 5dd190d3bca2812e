// SPDX-License-Identifier: GPL-2.0-only
/*
 * Drives the output stage (src/output/out_file.c, output_elf.c) from
 * tests/test_output.py.
 *
 *   test_output raw OUT DATAFILE
 *   test_output elf ELF SECTION DATAFILE
 *
 * DATAFILE's bytes are written; the exit status is the errno (0 = ok).
 * Build: cc -Isrc tests/unit/test_output.c src/output/out_file.c \
 *            src/output/output_elf.c src/lib/grow.c \
 *            $(pkg-config --cflags --libs libelf)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"

static void *read_all(const char *path, size_t *size)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f || !buf) {
		perror(path);
		exit(100);
	}
	while ((n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			cap *= 2;
			buf = realloc(buf, cap);
			if (!buf)
				exit(100);
		}
	}
	if (ferror(f))
		exit(100);
	fclose(f);
	*size = len;
	return buf;
}

int main(int argc, char **argv)
{
	/* as main.c reads it; garbage or unset: no fault */
	const char *fault = getenv("DWARF2BTF_FAULT_WRITE");
	struct test_hooks hooks = { 0 };
	size_t size;
	void *data;
	int err;

	if (fault && *fault) {
		char *end;

		hooks.fault_write = strtol(fault, &end, 10);
		if (*end || hooks.fault_write < 0)
			hooks.fault_write = 0;
	}

	if (argc == 4 && !strcmp(argv[1], "raw")) {
		data = read_all(argv[3], &size);
		err = output__write_raw(argv[2], data, size, &hooks);
	} else if (argc == 5 && !strcmp(argv[1], "elf")) {
		data = read_all(argv[4], &size);
		err = output__write_elf_section(argv[2], argv[3], data, size,
						&hooks);
	} else {
		fprintf(stderr, "usage: %s raw OUT DATA | elf ELF NAME DATA\n",
			argv[0]);
		return 100;
	}
	free(data);
	return -err;
}
