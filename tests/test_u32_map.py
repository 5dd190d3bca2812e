# SPDX-License-Identifier: GPL-2.0-only
"""src/lib/u32_map.c, the hash table every index and cache of ours uses
(tests/unit/test_u32_map.c under ASan and UBSan)."""


def test_u32_map(ctx):
    ctx.unit("test_u32_map", ["lib/u32_map.c"])
