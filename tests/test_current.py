# SPDX-License-Identifier: GPL-2.0-only
"""The current toolchains: objects that gcc 16 and clang 21 (Debian
unstable) compiled from tests/fixtures/current_cc.c, committed with the
script that made them (tests/fixtures/current_cc.sh), encoded with Linux
7.x's kbuild flags and compared with what pahole 1.32 encoded of the same
objects (current_cc_<compiler>_dwarf<N>.expect): enums with negative,
beyond-INT_MAX and 64-bit values, arrays of several and of size-1
dimensions, btf_type_tag and btf_decl_tag annotations, per-CPU variables.
"""

import difflib
import os

import btfparse

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")
# scripts/Makefile.btf of Linux 7.2, for a pahole >= 1.31
KBUILD_7 = ["--btf_features=encode_force,var,float,enum64,decl_tag,type_tag,"
            "optimized_func,consistent_func,decl_tag_kfuncs",
            "--btf_features=attributes", "--btf_features=layout",
            "--lang_exclude=rust"]


def _expected(name):
    with open(os.path.join(FIXTURES, name + ".expect")) as f:
        return [ln for ln in f.read().splitlines()
                if ln and not ln.startswith("#")]


def _check(ctx, name):
    obj = os.path.join(FIXTURES, name + ".o")
    out = os.path.join(ctx.tmp, name + ".btf")
    p = ctx.run([ctx.bin, "-j2"] + KBUILD_7 + ["-o", out, obj])
    if p.returncode != 0:
        raise AssertionError("%s: exit %d: %s" % (name, p.returncode,
                                                  p.stderr))
    got = btfparse.render(ctx.btf(out))
    want = _expected(name)
    if got != want:
        raise AssertionError("%s differs from pahole 1.32's:\n%s" % (
            name, "\n".join(difflib.unified_diff(want, got, "pahole 1.32",
                                                 "ours", lineterm=""))))


def _make(name):
    def test(ctx):
        _check(ctx, name)
    test.__name__ = "test_" + name
    return test


for _cc in ("gcc16", "clang21"):
    for _v in (4, 5):
        _t = _make("current_cc_%s_dwarf%d" % (_cc, _v))
        globals()[_t.__name__] = _t
