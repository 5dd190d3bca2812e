# SPDX-License-Identifier: GPL-2.0-only
"""src/cu/btf_builder.c, a batch's types as they are built: the same bytes,
ids, sizes and refusals as libbpf's btf__add_*(), and the libbpf BTF it
is sealed into (tests/unit/test_btf_builder.c under ASan and UBSan)."""


def test_btf_builder(ctx):
    ctx.unit("test_btf_builder", ["cu/btf_builder.c", "lib/btf_load.c",
                                  "lib/btf_ids.c", "lib/btf_view.c"],
             ["-lbpf", "-lelf"])
