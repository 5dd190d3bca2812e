# SPDX-License-Identifier: GPL-2.0-only
"""src/merge/btf_concat.c: the bytes of libbpf's btf__add_btf(), case by case
(tests/unit/test_concat.c), under ASan and UBSan."""
import os

SOURCES = ["merge/btf_concat.c", "lib/btf_load.c", "lib/grow.c"]


def test_concat(ctx):
    exe = os.path.join(ctx.tmp, "test_concat")
    src = os.path.join(ctx.root, "src")
    p = ctx.run([os.environ.get("CC", "cc"), "-std=gnu11", "-O1", "-g",
                 "-Wall", "-Wextra", "-Werror", "-I" + src,
                 "-fsanitize=address,undefined",
                 "-fno-sanitize-recover=undefined",
                 os.path.join(ctx.root, "tests", "unit", "test_concat.c")] +
                [os.path.join(src, s) for s in SOURCES] +
                ["-lbpf", "-lelf", "-o", exe])
    assert p.returncode == 0, p.stderr
    p = ctx.run([exe])
    assert p.returncode == 0 and p.stdout == "ok\n", p.stdout + p.stderr
