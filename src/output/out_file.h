/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * An out_file is one output file written atomically: a temporary file
 * beside the target, written at any offset, fsynced and renamed over the
 * target by out_file__commit(), and otherwise removed by out_file__end().
 * This header is the contract between out_file.c (which also writes raw
 * BTF, alone or as a write set) and output_elf.c (which rewrites an ELF
 * file's section through it).
 *
 * Functions returning int give 0 or a negative errno, having printed one
 * "dwarf2btf: PATH: ..." line.
 */
#ifndef DWARF2BTF_OUT_FILE_H
#define DWARF2BTF_OUT_FILE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <sys/stat.h>

#include "lib/test_hooks.h"

/* Copies go through buffers of 1 MiB, and copy_file_range() of 64 of them. */
#define OUTPUT_CHUNK		(1 << 20)

struct out_file {
	const char *path;	/* The path as the caller named it. */
	char *target;		/* The file the temp file is renamed over. */
	char *tmp;		/* The temp file, or NULL once renamed. */
	int fd;
	bool direct;		/* It is not a regular file: plain write(). */
	bool quiet;		/* Failures are returned, not reported. */
	bool anon;		/* The temp file has no name yet (O_TMPFILE). */
	long fault_at;		/* This write (1-based) fails with ENOSPC. */
	long nwrites;
};

/* This reports a failed system call: "dwarf2btf: PATH: MSG: strerror". */
__attribute__((format(printf, 3, 4)))
int out_file__error(const char *path, int err, const char *fmt, ...);
/* This reports a problem the message fully describes, and returns -@err. */
__attribute__((format(printf, 3, 4)))
int out_file__fail(const char *path, int err, const char *fmt, ...);

void out_file__init(struct out_file *out, const char *path,
		    const struct test_hooks *hooks);
/* This fails early on a file we may not write, rather than replace it. */
int out_file__check_writable(const char *path);
/*
 * out_file__open() creates the temp file next to the path, after following
 * symlinks, so that the link stays a link.  @old is the stat of the
 * existing file, if any, whose mode and owner the new file gets.
 */
int out_file__open(struct out_file *out, const struct stat *old);
/*
 * out_file__open_anon() is out_file__open() without a name (O_TMPFILE),
 * so that nothing is left behind should the process be killed; it
 * returns a negative errno without reporting where the file system has
 * no such files.  out_file__name() links it under a temp name, which
 * out_file__commit() does anyway.
 */
int out_file__open_anon(struct out_file *out, const struct stat *old);
int out_file__name(struct out_file *out);
/* This writes @len bytes at offset @off of the temp file. */
int out_file__write(struct out_file *out, const void *buf, size_t len,
		    uint64_t off);
int out_file__zero(struct out_file *out, uint64_t off, uint64_t len);
/*
 * This copies the first @len bytes of @in_fd to offset 0 of the output;
 * a set *@stop (NULL: none) ends it early with -ECANCELED.
 */
int out_file__copy(struct out_file *out, int in_fd, uint64_t len,
		   const atomic_bool *stop);
/* This fsyncs, renames over the target, and syncs its directory. */
int out_file__commit(struct out_file *out);
/* This releases everything, and removes the temp file unless committed. */
void out_file__end(struct out_file *out);

#endif /* DWARF2BTF_OUT_FILE_H */
