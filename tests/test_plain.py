# SPDX-License-Identifier: GPL-2.0-only
"""The fast path against the reference path (--plain-dedup: no dedup until
the end, then one dedup of everything): `dwarf2btf diff` must find
nothing, for every fixture, gcc and clang, DWARF 4 and 5.  Inputs this
small take one dedup anyway; DWARF2BTF_BATCH_DEDUP makes the fast runs
deduplicate their batches as large inputs do.
"""

import os

BATCHES = dict(os.environ, DWARF2BTF_BATCH_DEDUP="1")

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")


def _names():
    return sorted(f[:-2] for f in os.listdir(FIXTURES)
                  if f.endswith(".c") and f.startswith(("types_", "funcs_",
                                                        "tags_", "kfuncs")))


def test_plain_dedup_same_meaning(ctx):
    bad = []
    for name in _names():
        for cc in ("gcc", "clang"):
            for dwarf in (4, 5):
                obj = ctx.fixture(name, cc, dwarf)
                fast = os.path.join(ctx.tmp, "fast.btf")
                plain = os.path.join(ctx.tmp, "plain.btf")
                for out, extra in ((fast, []), (plain, ["--plain-dedup"])):
                    p = ctx.run([ctx.bin] + extra + ["-o", out, obj],
                                env=BATCHES if not extra else None)
                    if p.returncode != 0:
                        raise AssertionError("%s %s: %s" % (name, extra,
                                                            p.stderr))
                p = ctx.run([ctx.bin, "diff", fast, plain])
                if p.returncode != 0:
                    bad.append("%s %s dwarf%d:\n%s" % (name, cc, dwarf,
                                                       p.stdout[-1000:]))
    if bad:
        raise AssertionError("\n".join(bad))
