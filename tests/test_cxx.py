# SPDX-License-Identifier: GPL-2.0-only
"""C++ input (g++ and clang++, DWARF 4 and 5).

cxx_refs.cc: lvalue and rvalue references, which BTF has no kind for,
become pointers to what they refer to (const kept).  Before, a reference
stopped the run: "DW_AT_type ... is not a type of this CU".
"""

import os

import btfparse

# Written by hand; clang spells "long int" as "long".
REFS = [
    "int char size=1 signed",
    "int int size=4 signed",
    "int long int size=8 signed",
    "struct Refs size=24 { r int * off=0; rr long int * off=64; "
    "cr char const * off=128; }",
]


def _refs(ctx, cc, dwarf):
    obj = ctx.fixture("cxx_refs", cc, dwarf)
    out = os.path.join(ctx.tmp, "refs.btf")
    p = ctx.run([ctx.bin, "-o", out, obj])
    if p.returncode != 0:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    got = btfparse.render(ctx.btf(out), "all")
    want = [line.replace("long int", "long") if cc == "clang++" else line
            for line in REFS]
    if sorted(got) != sorted(want):
        raise AssertionError("want:\n  %s\ngot:\n  %s"
                             % ("\n  ".join(want), "\n  ".join(got)))


def test_cxx_refs_gxx_dwarf4(ctx):
    _refs(ctx, "g++", 4)


def test_cxx_refs_gxx_dwarf5(ctx):
    _refs(ctx, "g++", 5)


def test_cxx_refs_clangxx_dwarf4(ctx):
    _refs(ctx, "clang++", 4)


def test_cxx_refs_clangxx_dwarf5(ctx):
    _refs(ctx, "clang++", 5)
