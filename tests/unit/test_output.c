// SPDX-License-Identifier: GPL-2.0-only
/*
 * Drives the output stage (src/output/out_file.c, output_elf.c) from
 * tests/test_output.py.
 *
 *   test_output raw OUT DATAFILE
 *   test_output elf ELF SECTION DATAFILE
 *   test_output elf-pre ELF SECTION DATAFILE [append|OFFSET|kill]
 *
 * DATAFILE's bytes are written; the exit status is the errno (0 = ok).
 * elf-pre starts a pre-copy of ELF first (out_precopy.h), waits for it,
 * then changes ELF as asked (append: 16 bytes more; OFFSET: the byte
 * there inverted, the size kept; kill: SIGKILL), then writes the section.
 * Build: cc -Isrc tests/unit/test_output.c src/output/out_file.c \
 *            src/output/out_precopy.c src/output/output_elf.c \
 *            src/lib/grow.c $(pkg-config --cflags --libs libelf) -pthread
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "output/out_precopy.h"
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

/* change() alters @path after its pre-copy as @how says. */
static void change(const char *path, const char *how)
{
	static const char more[16];
	unsigned char c;
	long off;
	FILE *f;
	int fd;

	if (!strcmp(how, "kill"))
		raise(SIGKILL);
	if (!strcmp(how, "append")) {
		f = fopen(path, "ab");
		if (!f || fwrite(more, 1, sizeof(more), f) != sizeof(more) ||
		    fclose(f))
			exit(100);
		return;
	}
	off = strtol(how, NULL, 0);
	fd = open(path, O_RDWR);
	if (fd < 0 || pread(fd, &c, 1, off) != 1)
		exit(100);
	c = ~c;
	/* The same second may pass: the file's times must still differ. */
	usleep(20000);
	if (pwrite(fd, &c, 1, off) != 1 || close(fd))
		exit(100);
}

static int write_pre(char **argv, int argc, const struct test_hooks *hooks)
{
	struct output_section sec = { argv[3], NULL, 0 };
	struct out_precopy *pre = out_precopy__start(argv[2], hooks);
	struct stat st;
	int err;

	sec.data = read_all(argv[4], &sec.size);
	if (argc == 6) {
		/* The copy is whole before the file changes. */
		if (stat(argv[2], &st))
			exit(100);
		out_precopy__take(pre, &st, st.st_size + 1, NULL);
		change(argv[2], argv[5]);
	}
	err = output__write_elf_sections(argv[2], &sec, 1, pre, hooks);
	out_precopy__free(pre);
	free((void *)sec.data);
	return err;
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
	} else if ((argc == 5 || argc == 6) && !strcmp(argv[1], "elf-pre")) {
		data = NULL;
		err = write_pre(argv, argc, &hooks);
	} else {
		fprintf(stderr, "usage: %s raw OUT DATA | elf ELF NAME DATA | "
			"elf-pre ELF NAME DATA [append|OFFSET|kill]\n", argv[0]);
		return 100;
	}
	free(data);
	return -err;
}
