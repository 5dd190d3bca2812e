# SPDX-License-Identifier: GPL-2.0-only
"""src/cu/name_cache.c, a batch's strings and the offsets of DWARF names in
them: by content, by offset in .debug_str and by address
(tests/unit/test_name_cache.c under ASan and UBSan)."""


def test_name_cache(ctx):
    ctx.unit("test_name_cache", ["cu/name_cache.c", "lib/u32_map.c"],
             ["-lbpf", "-lelf"])
