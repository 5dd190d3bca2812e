/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef DWARF2BTF_BTF_LOAD_H
#define DWARF2BTF_BTF_LOAD_H

#include <stddef.h>

struct btf;

/*
 * Read BTF from @path: either a raw BTF file or an ELF file with a .BTF
 * section.  With @base != NULL the file holds split BTF on top of @base.
 * The result is checked beyond what libbpf checks (every type id and name
 * offset in range), so callers may walk it without further bounds checks.
 * On failure prints one line naming @path, stores a negative errno in
 * *@err (when @err != NULL) and returns NULL.  Free with btf__free().
 */
struct btf *btf_load__file(const char *path, struct btf *base, int *err);

struct btf_view;

/*
 * View the standalone BTF of @path (raw, or an ELF file's .BTF) where the
 * file's pages are, without libbpf's copy, with the checks
 * btf_load__file() makes.  Returns 0, or a negative errno and prints
 * nothing: a file the view does not take (another byte order, a
 * compressed section, ...) or a bad one is for btf_load__file() to read
 * and report on.  btf_view__free() unmaps it.  As for an input, which is
 * mapped too, the file must not change while the run reads it.
 */
int btf_load__view(const char *path, struct btf_view *v);

/*
 * Check the types of @btf that are not in its base: referenced type ids
 * and name offsets must be in range.  Returns 0 or -EINVAL after printing
 * one line naming @path and the offending type (@path NULL: none).
 */
int btf_load__validate(const struct btf *btf, const char *path);

/*
 * Standalone BTF from the ELF section @name of @path (a module's
 * .BTF.base); NULL after one line naming @path, as btf_load__file().
 */
struct btf *btf_load__elf_section(const char *path, const char *name,
				  int *err);

/*
 * Split BTF over @base from @raw, which we made (not checked further):
 * btf__new_split() where libbpf has it, else through an anonymous file.
 * NULL with a negative errno in *@err, and no message.
 */
struct btf *btf_load__raw_split(const void *raw, size_t size,
				struct btf *base, int *err);

/*
 * A buffer for raw BTF of @types_len bytes of types and @str_len bytes of
 * strings, its header filled in; the types go at *@types, the strings
 * right after them.  NULL: too large, or no memory.
 */
unsigned char *btf_load__raw_new(size_t types_len, size_t str_len,
				 unsigned char **types);

/* The BTF of a btf_load__raw_new() buffer, which is freed. */
int btf_load__raw(unsigned char *buf, unsigned int ptr_size,
		  struct btf **out);

#endif /* DWARF2BTF_BTF_LOAD_H */
