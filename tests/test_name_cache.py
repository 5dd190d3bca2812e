# SPDX-License-Identifier: GPL-2.0-only
"""src/cu/name_cache.c, a batch's strings and the offsets of DWARF names in
them: by content, by offset in .debug_str and by address, and the batch's
BTF sealed with them (tests/unit/test_name_cache.c under ASan and
UBSan)."""


def test_name_cache(ctx):
    ctx.unit("test_name_cache", ["cu/name_cache.c", "cu/btf_builder.c",
                                 "lib/u32_map.c", "lib/btf_load.c",
                                 "lib/btf_ids.c", "lib/btf_view.c"],
             ["-lbpf", "-lelf"])
