# SPDX-License-Identifier: GPL-2.0-only
"""src/lib/grow.h, the one array growth helper: doubling and overflow checks
(tests/unit/test_grow.c under ASan and UBSan)."""
import os


def test_grow(ctx):
    exe = os.path.join(ctx.tmp, "test_grow")
    p = ctx.run([os.environ.get("CC", "cc"), "-std=gnu11", "-O1", "-g",
                 "-Wall", "-Wextra", "-Werror",
                 "-I" + os.path.join(ctx.root, "src"),
                 "-fsanitize=address,undefined",
                 "-fno-sanitize-recover=undefined",
                 os.path.join(ctx.root, "tests", "unit", "test_grow.c"),
                 os.path.join(ctx.root, "src", "lib", "grow.c"),
                 "-o", exe])
    assert p.returncode == 0, p.stderr
    p = ctx.run([exe], env=dict(os.environ,
                                ASAN_OPTIONS="allocator_may_return_null=1"))
    assert p.returncode == 0 and p.stdout == "ok\n", p.stdout + p.stderr
