# SPDX-License-Identifier: GPL-2.0-only
"""C++ input (g++ and clang++, DWARF 4 and 5).

cxx_refs.cc: lvalue and rvalue references, which BTF has no kind for,
become pointers to what they refer to (const kept).  Before, a reference
stopped the run: "DW_AT_type ... is not a type of this CU".

cxx_bases.cc: base classes are members __base0, __base1... at their
offsets; a virtual base, which has no fixed offset, is left out.  Before,
a derived class had only its own members.

Functions are FUNCs under their mangled names (their ELF symbols'), a
member function with its this and, when defined outside its class, the
return type of its declaration there.  Before, C++ functions got no FUNC.

cxx_members.cc: a pointer to a data member is a long, one to a member
function a struct of __pfn and __delta; a base class only declared in the
unit (gcc describes a class with virtual functions in the unit of its key
function only) is a member of no size there.  Before, both stopped the
run.

cxx_nested.cc: g++ describes the this of a member function type inside a
function template among that type's parameters; the type is found there.
Before, the run stopped: "DW_AT_type ... is not a type of this CU".
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
    "func _Z9refs_takeR4Refs static int(struct Refs *x)",
]


def _check(ctx, name, cc, dwarf, want, keep=lambda line: True):
    """Encode fixture @name and compare the rendered lines @keep selects
    with @want."""
    obj = ctx.fixture(name, cc, dwarf)
    out = os.path.join(ctx.tmp, name + ".btf")
    p = ctx.run([ctx.bin, "-o", out, obj])
    if p.returncode != 0:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    got = sorted(line for line in btfparse.render(ctx.btf(out), "all")
                 if keep(line))
    if got != sorted(want):
        raise AssertionError("want:\n  %s\ngot:\n  %s"
                             % ("\n  ".join(sorted(want)),
                                "\n  ".join(got)))


def _refs(ctx, cc, dwarf):
    _check(ctx, "cxx_refs", cc, dwarf,
           [line.replace("long int", "long") if cc == "clang++" else line
            for line in REFS])


# Written by hand: the structs and functions of cxx_bases.cc.  The vtable
# pointer is named and typed as each compiler has it; gcc's this is a
# const pointer, and gcc adds the initializer of bases_d's vtable pointer.
BASES = {
    "g++": [
        "struct A size=4 { a int off=0; }",
        "struct B size=8 { b long int off=0; }",
        "struct C size=24 { __base0 struct A off=0; __base1 struct B off=64; "
        "c char off=128; }",
        "struct D size=16 { _vptr.D int(...) ** off=0; d int off=64; }",
        "struct V size=4 { v int off=0; }",
        "func _GLOBAL__sub_I__ZNK1C3getEv static void(void)",
        "func _Z10bases_takeR1D static int(struct D *x)",
        "func _ZNK1C3getEv static int(struct C const * const this)",
    ],
    "clang++": [
        "struct A size=4 { a int off=0; }",
        "struct B size=8 { b long off=0; }",
        "struct C size=24 { __base0 struct A off=0; __base1 struct B off=64; "
        "c char off=128; }",
        "struct D size=16 { _vptr$D int(void) ** off=0; d int off=64; }",
        "struct V size=4 { v int off=0; }",
        "func _Z10bases_takeR1D static int(struct D *x)",
        "func _ZNK1C3getEv static int(struct C const *this)",
    ],
}


def _bases(ctx, cc, dwarf):
    _check(ctx, "cxx_bases", cc, dwarf, BASES[cc],
           lambda line: line.startswith(("struct ", "func ")))


# Written by hand: cxx_members.cc's structs, declarations and functions.
MEMBERS_H = ("struct H size=24 { m long int off=0; g struct size=16 { "
             "__pfn int(struct S *, int) * off=0; __delta long int off=64; } "
             "off=64; }")
MEMBERS = {
    "g++": [
        "func _ZN1LD0Ev static void(struct L * const this)",
        "func _ZN1LD2Ev static void(struct L * const this)",
        "func _ZN1S1fEi static int(struct S * const this, int x)",
        "func _ZNK1L4whatEv static char const *(struct L const * const this)",
        "fwd struct E",
        MEMBERS_H,
        "struct L size=16 { __base0 struct E off=0; }",
        "struct S size=16 { a int off=0; b long int off=64; }",
    ],
    "clang++": [
        "func _ZN1LD0Ev static void(struct L *this)",
        "func _ZN1S1fEi static int(struct S *this, int x)",
        "func _ZNK1L4whatEv static char const *(struct L const *this)",
        "fwd struct E",
        MEMBERS_H,
        "struct L size=16 { __base0 struct E off=0; }",
        "struct S size=16 { a int off=0; b long off=64; }",
    ],
}


def _members(ctx, cc, dwarf):
    _check(ctx, "cxx_members", cc, dwarf, MEMBERS[cc],
           lambda line: line.startswith(("struct ", "func ", "fwd ")))


def test_cxx_members_gxx_dwarf4(ctx):
    _members(ctx, "g++", 4)


def test_cxx_members_gxx_dwarf5(ctx):
    _members(ctx, "g++", 5)


def test_cxx_members_clangxx_dwarf4(ctx):
    _members(ctx, "clang++", 4)


def test_cxx_members_clangxx_dwarf5(ctx):
    _members(ctx, "clang++", 5)


# Written by hand: all of cxx_nested.cc's BTF.
NESTED = [
    "func _Z4callI1KEiRKT_ static int(struct K const *c)",
    "int int size=4 signed",
    "int long int size=8 signed",
    "struct K size=4 { v int off=0; }",
    "typedef Cv = struct K",
]
NESTED_THIS = {
    "g++": ["func _ZNK1K1mEi static int(struct K const * const this, int x)",
            "typedef Fn = struct size=16 { __pfn int(Cv const *, int) * "
            "off=0; __delta long int off=64; }"],
    "clang++": ["func _ZNK1K1mEi static int(struct K const *this, int x)",
                "typedef Fn = struct size=16 { __pfn int(struct K const *, "
                "int) * off=0; __delta long int off=64; }"],
}


def _nested(ctx, cc, dwarf):
    _check(ctx, "cxx_nested", cc, dwarf, NESTED + NESTED_THIS[cc])


def test_cxx_nested_gxx_dwarf4(ctx):
    _nested(ctx, "g++", 4)


def test_cxx_nested_gxx_dwarf5(ctx):
    _nested(ctx, "g++", 5)


def test_cxx_nested_clangxx_dwarf5(ctx):
    _nested(ctx, "clang++", 5)


def test_cxx_bases_gxx_dwarf4(ctx):
    _bases(ctx, "g++", 4)


def test_cxx_bases_gxx_dwarf5(ctx):
    _bases(ctx, "g++", 5)


def test_cxx_bases_clangxx_dwarf4(ctx):
    _bases(ctx, "clang++", 4)


def test_cxx_bases_clangxx_dwarf5(ctx):
    _bases(ctx, "clang++", 5)


def test_cxx_refs_gxx_dwarf4(ctx):
    _refs(ctx, "g++", 4)


def test_cxx_refs_gxx_dwarf5(ctx):
    _refs(ctx, "g++", 5)


def test_cxx_refs_clangxx_dwarf4(ctx):
    _refs(ctx, "clang++", 4)


def test_cxx_refs_clangxx_dwarf5(ctx):
    _refs(ctx, "clang++", 5)
