# SPDX-License-Identifier: GPL-2.0-only
"""src/merge/btf_dedup.c, rule by rule (tests/unit/test_dedup.c, each case
naming the libbpf function it mirrors), under ASan and UBSan."""
import os

SOURCES = ["merge/btf_dedup.c", "merge/fwd_names.c", "lib/key_set.c", "lib/btf_load.c", "merge/base_index.c", "merge/id_chains.c",
           "lib/u32_map.c", "lib/btf_ids.c", "lib/grow.c"]


def test_dedup_rules(ctx):
    exe = os.path.join(ctx.tmp, "test_dedup")
    src = os.path.join(ctx.root, "src")
    p = ctx.run([os.environ.get("CC", "cc"), "-std=gnu11", "-O1", "-g",
                 "-Wall", "-Wextra", "-Werror", "-I" + src,
                 "-fsanitize=address,undefined",
                 "-fno-sanitize-recover=undefined",
                 os.path.join(ctx.root, "tests", "unit", "test_dedup.c")] +
                [os.path.join(src, s) for s in SOURCES] +
                ["-lbpf", "-lelf", "-o", exe])
    assert p.returncode == 0, p.stderr
    p = ctx.run([exe])
    assert p.returncode == 0 and p.stdout == "ok\n", p.stdout + p.stderr
