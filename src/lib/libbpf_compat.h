/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The libbpf functions we use only when the system's libbpf has them: the
 * one place that declares libbpf prototypes by hand.  Debian 12's libbpf
 * 1.1 exports none of them: they are declared here as libbpf's btf.h gives
 * them, with the version its libbpf.map exports them from.  Each is weak:
 * its address is NULL at run time where the library does not export it,
 * and the caller then takes its own path.  Checked
 * against libbpf 1.1 (the build) and libbpf's libbpf.map up to 1.8.
 */
#ifndef DWARF2BTF_LIBBPF_COMPAT_H
#define DWARF2BTF_LIBBPF_COMPAT_H

#include <bpf/btf.h>

/* LIBBPF_1.4.0 */
struct btf *btf__new_split(const void *data, __u32 size, struct btf *base_btf);
#pragma weak btf__new_split

/* LIBBPF_1.5.0 */
int btf__distill_base(const struct btf *src_btf, struct btf **new_base_btf,
		      struct btf **new_split_btf);
int btf__relocate(struct btf *btf, const struct btf *base_btf);
#pragma weak btf__distill_base
#pragma weak btf__relocate

#endif /* DWARF2BTF_LIBBPF_COMPAT_H */
