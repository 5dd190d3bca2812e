# SPDX-License-Identifier: GPL-2.0-only
"""src/merge/btf_dedup.c, rule by rule (tests/unit/test_dedup.c, each case
naming the libbpf function it mirrors), under ASan and UBSan."""

SOURCES = ["merge/btf_dedup.c", "merge/fwd_names.c", "lib/key_set.c", "lib/btf_load.c", "lib/btf_view.c", "merge/base_index.c", "merge/id_chains.c", "merge/btf_concat.c",
           "lib/u32_map.c", "lib/btf_ids.c", "lib/grow.c"]


def test_dedup_rules(ctx):
    ctx.unit("test_dedup", SOURCES, ["-lbpf", "-lelf"])
