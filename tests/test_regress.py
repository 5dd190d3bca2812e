# SPDX-License-Identifier: GPL-2.0-only
"""Inputs the fuzzers found (fuzz/README.md), kept as regression tests.

tests/regress/encode/*: input files for the encoder; tests/regress/btf/*:
BTF blobs for `dwarf2btf diff`.  Each must end in a clean exit (0, or 1
with one error line; diff: 0, 1 or 2), no signal, no sanitizer report, and
leave the input unchanged.
"""

import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regress")


def _files(kind):
    d = os.path.join(HERE, kind)
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if not f.startswith(".")) \
        if os.path.isdir(d) else []


def _check(ctx, args, path, ok_codes):
    before = open(path, "rb").read()
    p = ctx.run(args, timeout=30)
    bad = []
    if p.returncode not in ok_codes:
        bad.append("exit %d" % p.returncode)
    if "Sanitizer" in p.stderr or "runtime error" in p.stderr:
        bad.append("sanitizer report:\n" + p.stderr[-2000:])
    if open(path, "rb").read() != before:
        bad.append("input changed")
    return ["%s: %s" % (os.path.basename(path), b) for b in bad]


def test_regress_encode(ctx):
    bad = []
    for f in _files("encode"):
        out = os.path.join(ctx.tmp, "out.btf")
        bad += _check(ctx, [ctx.bin, "-o", out, f], f, (0, 1))
    if bad:
        raise AssertionError("\n".join(bad))


def test_regress_btf(ctx):
    bad = []
    for f in _files("btf"):
        bad += _check(ctx, [ctx.bin, "diff", "-q", f, f], f, (0, 1, 2))
    if bad:
        raise AssertionError("\n".join(bad))
