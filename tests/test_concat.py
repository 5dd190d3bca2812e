# SPDX-License-Identifier: GPL-2.0-only
"""src/merge/btf_concat.c: the bytes of libbpf's btf__add_btf() and
btf__add_*(), case by case (tests/unit/test_concat.c), under ASan and
UBSan."""


def test_concat(ctx):
    ctx.unit("test_concat",
             ["merge/btf_concat.c", "lib/btf_ids.c", "lib/btf_load.c",
              "lib/btf_view.c", "lib/grow.c", "lib/u32_map.c"],
             ["-lbpf", "-lelf"])
