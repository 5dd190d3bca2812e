# SPDX-License-Identifier: GPL-2.0-only
"""src/lib/grow.h, the one array growth helper: doubling and overflow checks
(tests/unit/test_grow.c under ASan and UBSan)."""
import os


def test_grow(ctx):
    ctx.unit("test_grow", ["lib/grow.c"],
             env=dict(os.environ, ASAN_OPTIONS="allocator_may_return_null=1"))
