/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Copies of strings that must outlive the pages they were read from.
 *
 * Names of candidates (parameters, variables) point into the DWARF.  Most
 * are in .debug_str, but short ones are inline in .debug_info
 * (DW_FORM_string), whose pages each finished CU gives back to the kernel:
 * reading those names again when functions are emitted faulted a third of
 * the vmlinux's .debug_info back in, at the very end.  Such names are
 * copied here, into chunks that never move, owned by the fragment and
 * handed on when fragments merge.
 */
#ifndef DWARF2BTF_STR_ARENA_H
#define DWARF2BTF_STR_ARENA_H

#include <stddef.h>

struct str_chunk;

struct str_arena {
	struct str_chunk *head;
};

/* Returns a copy of @s that lives as long as @a; NULL without memory. */
const char *str_arena__dup(struct str_arena *a, const char *s);
/* The same for the first @n bytes of @s, which then end the copy. */
const char *str_arena__dupn(struct str_arena *a, const char *s, size_t n);
/*
 * Returns a copy of @len bytes (strings one after another) that lives as
 * long as @a, or NULL without memory.
 */
const char *str_arena__copy(struct str_arena *a, const char *p, size_t len);
/* Moves every chunk of @from to @to; @from is left empty. */
void str_arena__splice(struct str_arena *to, struct str_arena *from);
/* Frees every chunk: every copy made in @a is gone. */
void str_arena__free(struct str_arena *a);

#endif
