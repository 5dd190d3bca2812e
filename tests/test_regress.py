# SPDX-License-Identifier: GPL-2.0-only
"""Inputs the fuzzers found (fuzz/README.md), kept as regression tests.

tests/regress/encode/*: input files for the encoder; tests/regress/btf/*:
BTF blobs for `dwarf2btf diff`; tests/regress/layout/*: files with DWARF
and .BTF for `dwarf2btf layout`.  Each must end in a clean exit (0, or 1
with one error line; diff and layout: 0, 1 or 2), no signal, no sanitizer
report, and leave the input unchanged.  The fuzzers' seeds (fuzz/corpus/*) run too, and
must succeed.
"""

import os

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "regress")
SEEDS = os.path.join(os.path.dirname(HERE), "..", "fuzz", "corpus")


def _files(d):
    return sorted(os.path.join(d, f) for f in os.listdir(d)
                  if not f.startswith(".")) \
        if os.path.isdir(d) else []


def _check(ctx, args, path, ok_codes):
    before = open(path, "rb").read()
    p = ctx.run(args, timeout=30)
    bad = []
    if p.returncode not in ok_codes:
        bad.append("exit %d" % p.returncode)
    if ok_codes == (1,) and "no DWARF debug info, nor a debug file" not in \
            p.stderr:
        bad.append("not the missing debug file: %s" % p.stderr)
    if open(path, "rb").read() != before:
        bad.append("input changed")
    return ["%s: %s" % (os.path.basename(path), b) for b in bad]


def _check_all(ctx, kind, args, ok_found):
    """The findings may fail cleanly; the fuzzers' seeds (valid inputs)
    must succeed, but for the stripped ones (*-stripped), whose debug file
    is not there: they must fail, saying so."""
    found = _files(os.path.join(HERE, kind))
    seeds = _files(os.path.join(SEEDS, kind))
    assert seeds, "no fuzz seeds in %s" % os.path.join(SEEDS, kind)
    bad = []
    for f, ok in [(f, ok_found) for f in found] + [(f, (0,)) for f in seeds]:
        if f.endswith("-stripped"):
            ok = (1,)
        bad += _check(ctx, args(f), f, ok)
    if bad:
        raise AssertionError("\n".join(bad))


def test_regress_encode(ctx):
    out = os.path.join(ctx.tmp, "out.btf")
    _check_all(ctx, "encode", lambda f: [ctx.bin, "-o", out, f], (0, 1))


def test_regress_encode_keys(ctx):
    """The same with every type's key read (--stats=keys), which the
    fuzzer's second run does: a small input takes one dedup and reads no
    keys otherwise."""
    out = os.path.join(ctx.tmp, "out.btf")
    _check_all(ctx, "encode",
               lambda f: [ctx.bin, "--stats=keys", "-j1", "-o", out, f],
               (0, 1))


def test_regress_btf(ctx):
    _check_all(ctx, "btf", lambda f: [ctx.bin, "diff", "-q", f, f],
               (0, 1, 2))


def test_regress_layout(ctx):
    _check_all(ctx, "layout", lambda f: [ctx.bin, "layout", f], (0, 1, 2))
