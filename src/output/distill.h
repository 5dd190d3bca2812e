/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * This makes distilled base BTF for modules (.BTF.base) and relocates such
 * a module's BTF onto another base; see distill.c.  Both functions return
 * 0 or a negative errno, with a reason in MSG when there is more to say.
 * They use libbpf's btf__distill_base() and btf__relocate() where the
 * system's libbpf has them, and ours otherwise or with OWN (a test hook).
 */
#ifndef DWARF2BTF_DISTILL_H
#define DWARF2BTF_DISTILL_H

#include <stdbool.h>
#include <stddef.h>

struct btf;

/*
 * btf_distill() turns SPLIT (over a vmlinux) into *BASE_OUT (distilled)
 * and *SPLIT_OUT over it.
 */
int btf_distill(const struct btf *split, bool own, struct btf **base_out,
		struct btf **split_out, char *msg, size_t msg_len);

/*
 * btf_relocate() turns SPLIT (over a distilled base) into *OUT, the same
 * types split over BASE.
 */
int btf_relocate(const struct btf *split, const struct btf *base, bool own,
		 struct btf **out, char *msg, size_t msg_len);

#endif
