# SPDX-License-Identifier: GPL-2.0-only
"""C++ input (g++ and clang++, DWARF 4 and 5; and clang++ 21's objects of the
same fixtures, committed in fixtures/clang21 by fixtures/clang21.sh, against
clang++'s expected BTF).

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

cxx_complex.cc: a complex float, which BTF has no kind for, is a struct
_Complex_float, _Complex_double or _Complex_long_double of two floats,
real and imag; std::complex<float> holds one.  Before, a complex float
was an INT "complex float" (clang: "complex"), and a complex long double
(32 bytes, more than an INT holds) a 4-byte __SANITIZED_FAKE_INT__.

cxx_nullptr.cc: decltype(nullptr), an unspecified type of no size, is a
pointer to void, as a member, a typedef's target and a parameter; an enum
class in a namespace is an ENUM of its underlying type's size and
signedness.  Before, the run stopped: "member 0 has no size".

cxx_statics.cc: with global variables on, static data members and a
namespace's variables are VARs under their mangled names, also at offset 0
of their section, where the ELF symbol tells a variable from the section's
start.  Before, clang's (defined in the namespace) were left out, and
gcc's came out under their bare names, but for the one at offset 0.

cxx_types.cc: all of these in one struct, with a template's static data
member.  Before, the run stopped: "member 2 has no size".

cxx_internal.cc: g++ describes functions of internal linkage (static,
or in an anonymous namespace) without a mangled name; each gets the FUNC
of the one symbol that starts with the name its scope and name mangle
to.  Before, g++'s were no FUNCs.

cxx_overloads.cc: two overloads of internal linkage share the start of
their symbols; linked, each gets the FUNC of the symbol at its code's
address.  Before, neither was a FUNC.

cxx_names.cc: names are C identifiers, scope-qualified (geo__Point,
geo__Point__Delta, geo__Box_intP_, _anon__Hidden, _vptr_Shape), with a
DECL_TAG "cxx:" + the C++ name where BTF's differs; bool, char16_t and
wchar_t are C's integers of their size.  Two units of the same types give
each type and tag once.  Before, names were DWARF's (geo::Point missing
its scope, Box<int*>, _vptr.Shape), which no C header and no kernel takes.

Every fixture's BTF loads into the running kernel (skipped where this
process may not load BTF) and its bpftool header compiles as C: a member
whose class no unit defines is an array of unsigned char over its bytes
(cxx_members.cc's L::__base0), also when its batch is read back from the
cache.  Before, both refused most fixtures.

cxx_long.cc: a name past the kernel's 511 characters is cut to 511,
ending in "__" and the FNV-1a hash of all of it.

A linked file's bases were all named __base0: the name cache took the
buffer that names them by its address.
"""

import os
import shutil

import btfparse
import usable

# Written by hand; clang spells "long int" as "long".
REFS = [
    "int char size=1 signed",
    "int int size=4 signed",
    "int long int size=8 signed",
    "struct Refs size=24 { r int * off=0; rr long int * off=64; "
    "cr char const * off=128; }",
    "func _Z9refs_takeR4Refs static int(struct Refs *x)",
]


# clang++ 21 (Debian unstable's, ../shared/tools/sid.sh root) objects of
# the fixtures, built by fixtures/clang21.sh: no clang 21 here.
CLANG21 = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "fixtures", "clang21")


def _object(ctx, name, cc, dwarf):
    """Fixture @name built by @cc, or clang++ 21's committed object when
    the test runs for it (ctx.clang21)."""
    if getattr(ctx, "clang21", False):
        return os.path.join(CLANG21, "%s.dwarf%d.o" % (name, dwarf))
    return ctx.fixture(name, cc, dwarf)


def _check(ctx, name, cc, dwarf, want, keep=lambda line: True, args=(),
           obj=None):
    """Encode fixture @name (or the file @obj made of it) with options
    @args and compare the rendered lines @keep selects with @want."""
    obj = obj or _object(ctx, name, cc, dwarf)
    out = os.path.join(ctx.tmp, name + ".btf")
    p = ctx.run([ctx.bin, "-o", out] + list(args) + [obj])
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
        "struct D size=16 { _vptr_D int(...) ** off=0; d int off=64; }",
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
        "struct D size=16 { _vptr_D int(void) ** off=0; d int off=64; }",
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
        "struct L size=16 { __base0 unsigned char[16] off=0; }",
        "struct S size=16 { a int off=0; b long int off=64; }",
    ],
    "clang++": [
        "func _ZN1LD0Ev static void(struct L *this)",
        "func _ZN1S1fEi static int(struct S *this, int x)",
        "func _ZNK1L4whatEv static char const *(struct L const *this)",
        "fwd struct E",
        MEMBERS_H,
        "struct L size=16 { __base0 unsigned char[16] off=0; }",
        "struct S size=16 { a int off=0; b long off=64; }",
    ],
}


def _members(ctx, cc, dwarf):
    _check(ctx, "cxx_members", cc, dwarf, MEMBERS[cc],
           lambda line: line.startswith(("struct ", "func ", "fwd ")))


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
    want = NESTED + NESTED_THIS[cc]
    # clang 21 describes no typedef Cv: its only use is inside Fn's.
    if getattr(ctx, "clang21", False):
        want.remove("typedef Cv = struct K")
    _check(ctx, "cxx_nested", cc, dwarf, want)


# Written by hand: cxx_complex.cc's complex floats and the structs that
# hold them (not the rest of <complex>), under their C names.
COMPLEX = [
    "struct Cx size=80 { f struct _Complex_float off=0; "
    "d struct _Complex_double off=64; l struct _Complex_long_double off=256; "
    "c struct std__complex_float_ off=512; }",
    "struct _Complex_double size=16 { real double off=0; imag double off=64; }",
    "struct _Complex_float size=8 { real float off=0; imag float off=32; }",
    "struct _Complex_long_double size=32 { real long double off=0; "
    "imag long double off=128; }",
    "struct std__complex_float_ size=8 { "
    "_M_value std__complex_float____ComplexT off=0; }",
    "typedef std__complex_double____ComplexT = struct _Complex_double",
    "typedef std__complex_float____ComplexT = struct _Complex_float",
    "typedef std__complex_long_double____ComplexT = "
    "struct _Complex_long_double",
    "decl_tag cxx:std::complex<float> on struct std__complex_float_",
]


def _complex(ctx, cc, dwarf):
    _check(ctx, "cxx_complex", cc, dwarf, COMPLEX,
           lambda line: line.startswith((
               "struct Cx ", "struct _Complex", "struct std__complex_float_ ",
               "typedef std__complex_", "decl_tag cxx:std::complex<float> ")))


# Written by hand: all of cxx_nullptr.cc's BTF, the same from both.
NULLPTR = [
    "enum ns__in__Color size=1 unsigned { Red=0 Green=5 }",
    "enum ns__in__Sgn size=1 signed { Neg=-1 Pos=1 }",
    "func _Z12nullptr_takePN2ns1NEDn static int(struct ns__N *n, void *p)",
    "int int size=4 signed",
    "int signed char size=1 signed",
    "int unsigned char size=1",
    "struct ns__N size=24 { np void * off=0; col enum ns__in__Color off=64; "
    "sgn enum ns__in__Sgn off=72; np2 ns__np_t off=128; }",
    "typedef ns__np_t = void *",
    "decl_tag cxx:ns::N on struct ns__N",
    "decl_tag cxx:ns::np_t on typedef ns__np_t",
]


def _nullptr(ctx, cc, dwarf):
    _check(ctx, "cxx_nullptr", cc, dwarf, NULLPTR)


# Written by hand: cxx_statics.cc's variables with global variables on.
# Each compiler lays .data out in its own order; gcc's T::m and clang's
# Point<int>::count are at offset 0.
STATICS_VARS = [
    "datasec .bss size=8 { pt off=0 size=8; }",
    "var _ZN1T1mE global char",
    "var _ZN2ns1S1nE global long int",
    "var _ZN2ns1gE global int",
    "var _ZN2ns5PointIiE5countE global int",
    "var pt global struct ns__Point_int_",
]
STATICS_DATA = {
    "g++": "datasec .data size=20 { _ZN1T1mE off=0 size=1; "
           "_ZN2ns1gE off=4 size=4; _ZN2ns1S1nE off=8 size=8; "
           "_ZN2ns5PointIiE5countE off=16 size=4; }",
    "clang++": "datasec .data size=21 { _ZN2ns5PointIiE5countE off=0 size=4; "
               "_ZN2ns1S1nE off=8 size=8; _ZN2ns1gE off=16 size=4; "
               "_ZN1T1mE off=20 size=1; }",
}
# The static members are no members of their structs.
STATICS_STRUCTS = [
    "struct ns__Point_int_ size=8 { x int off=0; y int off=32; }",
    "struct ns__S size=4 { a int off=0; }",
    "struct T size=4 { t int off=0; }",
]


def _statics(ctx, cc, dwarf):
    want = [line.replace("long int", "long") if cc == "clang++" else line
            for line in STATICS_VARS]
    _check(ctx, "cxx_statics", cc, dwarf,
           want + [STATICS_DATA[cc]] + STATICS_STRUCTS,
           lambda line: line.startswith(("var ", "datasec ", "struct ")),
           ["--btf_features=default,global_var"])


# Written by hand: cxx_types.cc's struct S, its enum and the variables.
TYPES = [
    "datasec .bss size=48 { s off=0 size=48; }",
    "datasec .data size=4 { _ZN2ns5PointIiE5countE off=0 size=4; }",
    "enum ns__Color size=1 unsigned { Red=0 Green=5 }",
    "struct ns__Point_int_ size=8 { x int off=0; y int off=32; }",
    "struct ns__S size=48 { z struct _Complex_double off=0; "
    "c struct std__complex_float_ off=128; np void * off=192; "
    "col enum ns__Color off=256; p struct ns__Point_int_ off=288; }",
    "var _ZN2ns5PointIiE5countE global int",
    "var s global struct ns__S",
]


def _types(ctx, cc, dwarf):
    _check(ctx, "cxx_types", cc, dwarf, TYPES,
           lambda line: line.startswith(("var ", "datasec ",
                                         "enum ns__Color ", "struct ns__S ",
                                         "struct ns__Point")),
           ["--btf_features=default,global_var"])


# Written by hand: cxx_internal.cc's functions.  g++ gives the three of
# internal linkage (a static one at the top and one in a namespace, one
# in an anonymous namespace) no mangled name; their symbols are found by
# the names their scopes and names mangle to.
INTERNAL = [
    "func _Z5call2i static int(int a)",
    "func _ZL10top_statici static int(int a)",
    "func _ZN2ns12_GLOBAL__N_17anon_fnEPNS_1PE static int(struct ns__P *p)",
    "func _ZN2ns4callEPNS_1PEi static int(struct ns__P *p, int k)",
    "func _ZN2nsL6hiddenEPNS_1PEi static int(struct ns__P *p, int k)",
]


def _internal(ctx, cc, dwarf):
    _check(ctx, "cxx_internal", cc, dwarf, INTERNAL,
           lambda line: line.startswith("func "))


# Written by hand: cxx_overloads.cc's functions, linked.
OVERLOADS = [
    "func _ZN2ov4callEPNS_1PE static int(struct ov__P *p)",
    "func _ZN2ovL4overEPNS_1PE static int(struct ov__P *p)",
    "func _ZN2ovL4overEPNS_1PEi static int(struct ov__P *p, int k)",
    "func ov_entry static int(struct ov__P *p)",
]


def _overloads(ctx, cc, dwarf):
    _check(ctx, "cxx_overloads", cc, dwarf, OVERLOADS,
           lambda line: line.startswith("func "),
           obj=ctx.link("cxx_overloads", cc, dwarf, ("-shared", "-fPIC")))


def test_cxx_overloads_gxx_dwarf5(ctx):
    _overloads(ctx, "g++", 5)


def test_cxx_overloads_clangxx_dwarf4(ctx):
    _overloads(ctx, "clang++", 4)


ALL = [(cc, dwarf) for cc in ("g++", "clang++", "clang++-21")
       for dwarf in (4, 5)]


def _make(name, check, cc, dwarf):
    def test(ctx):
        # clang++ 21's objects are checked against clang++'s BTF.
        ctx.clang21 = cc == "clang++-21"
        check(ctx, "clang++" if ctx.clang21 else cc, dwarf)
    test.__name__ = "test_cxx_%s_%s_dwarf%d" % (
        name, cc.replace("+", "x").replace("-", ""), dwarf)
    return test


for _name, _fn, _variants in (
        ("refs", _refs, ALL),
        ("bases", _bases, ALL),
        ("members", _members, ALL),
        ("nested", _nested, [v for v in ALL if v != ("clang++", 4)]),
        ("complex", _complex, ALL),
        ("nullptr", _nullptr, ALL),
        ("statics", _statics, ALL),
        ("types", _types, ALL),
        ("internal", _internal, ALL)):
    for _cc, _dwarf in _variants:
        _t = _make(_name, _fn, _cc, _dwarf)
        globals()[_t.__name__] = _t

def test_cxx_refs_clangxx_dwarf5(ctx):
    _refs(ctx, "clang++", 5)


# Written by hand: all of cxx_names.cc's BTF.  g++ spells the template
# argument "int*", clang++ "int *"; the vtable pointer is _vptr.Shape in
# g++, _vptr$Shape in clang++.
NAMES_COMMON = [
    "decl_tag cxx:(anonymous namespace)::Hidden on struct _anon__Hidden",
    "decl_tag cxx:geo::Flags on struct geo__Flags",
    "decl_tag cxx:geo::Point on struct geo__Point",
    "decl_tag cxx:geo::Point::Delta on struct geo__Point__Delta",
    "int char size=1 signed",
    "int int size=4 signed",
    "int short unsigned int size=2",
    "int unsigned char size=1 bool",
    "struct _anon__Hidden size=1 { h char off=0; }",
    "struct geo__Flags size=8 { ok unsigned char off=0; "
    "u short unsigned int off=16; w int off=32; }",
    "struct geo__Point size=16 { x int off=0; y int off=32; "
    "d struct geo__Point__Delta off=64; }",
]
NAMES = {
    "g++": NAMES_COMMON + [
        "decl_tag cxx:_vptr.Shape on struct Shape member _vptr_Shape",
        "decl_tag cxx:geo::Box<int*> on struct geo__Box_intP_",
        "func _GLOBAL__sub_I__ZNK5Shape4areaEv static void(void)",
        "func _Z10names_takePN3geo3BoxIPiEE static "
        "int(struct geo__Box_intP_ *b)",
        "func _ZNK5Shape4areaEv static int(struct Shape const * const this)",
        "int long int size=8 signed",
        "struct Shape size=16 { _vptr_Shape int(...) ** off=0; "
        "sides int off=64; }",
        "struct geo__Box_intP_ size=8 { v int * off=0; }",
        "struct geo__Point__Delta size=8 { dx long int off=0; }",
    ],
    "clang++": NAMES_COMMON + [
        "decl_tag cxx:_vptr$Shape on struct Shape member _vptr_Shape",
        "decl_tag cxx:geo::Box<int *> on struct geo__Box_int_P_",
        "func _Z10names_takePN3geo3BoxIPiEE static "
        "int(struct geo__Box_int_P_ *b)",
        "func _ZNK5Shape4areaEv static int(struct Shape const *this)",
        "int long size=8 signed",
        "struct Shape size=16 { _vptr_Shape int(void) ** off=0; "
        "sides int off=64; }",
        "struct geo__Box_int_P_ size=8 { v int * off=0; }",
        "struct geo__Point__Delta size=8 { dx long off=0; }",
    ],
}
NAMES_SECOND = {
    "g++": "func _Z12names_secondPN3geo5PointEPNS_3BoxIPiEEP5Shape static "
           "int(struct geo__Point *p, struct geo__Box_intP_ *b, "
           "struct Shape *s)",
    "clang++": "func _Z12names_secondPN3geo5PointEPNS_3BoxIPiEEP5Shape "
               "static int(struct geo__Point *p, struct geo__Box_int_P_ *b, "
               "struct Shape *s)",
}


def _names(ctx, cc, dwarf):
    _check(ctx, "cxx_names", cc, dwarf, NAMES[cc])


def _names_two_units(ctx, cc, dwarf):
    """cxx_names.cc twice, the second unit with -DNAMES_SECOND, in one
    `ld -r` object: every type and tag once."""
    objs = [ctx.fixture("cxx_names", cc, dwarf),
            ctx.fixture("cxx_names", cc, dwarf, extra=("-DNAMES_SECOND",))]
    obj = os.path.join(ctx.tmp, "two.o")
    p = ctx.run(["ld", "-r", "-o", obj] + objs)
    assert p.returncode == 0, p.stderr
    out = os.path.join(ctx.tmp, "two.btf")
    p = ctx.run([ctx.bin, "-o", out, obj])
    assert p.returncode == 0, p.stderr
    got = sorted(btfparse.render(ctx.btf(out), "all"))
    want = sorted(NAMES[cc] + [NAMES_SECOND[cc]])
    assert got == want, "want:\n  %s\ngot:\n  %s" % ("\n  ".join(want),
                                                    "\n  ".join(got))


def test_cxx_names_gxx_dwarf4(ctx):
    _names(ctx, "g++", 4)


def test_cxx_names_gxx_dwarf5(ctx):
    _names(ctx, "g++", 5)


def test_cxx_names_clangxx_dwarf4(ctx):
    _names(ctx, "clang++", 4)


def test_cxx_names_clangxx_dwarf5(ctx):
    _names(ctx, "clang++", 5)


def test_cxx_names_clangxx21_dwarf4(ctx):
    ctx.clang21 = True
    _names(ctx, "clang++", 4)


def test_cxx_names_clangxx21_dwarf5(ctx):
    ctx.clang21 = True
    _names(ctx, "clang++", 5)


def test_cxx_names_two_units_gxx(ctx):
    _names_two_units(ctx, "g++", 5)


def test_cxx_names_two_units_clangxx(ctx):
    _names_two_units(ctx, "clang++", 4)


def _bases_linked(ctx, cc):
    """cxx_bases.cc linked (-shared), where the name cache keys names by
    their address: C's bases are __base0 and __base1."""
    lib = ctx.link("cxx_bases", cc, 5, extra=("-shared", "-fPIC"))
    out = os.path.join(ctx.tmp, "bases.btf")
    p = ctx.run([ctx.bin, "-o", out, lib])
    assert p.returncode == 0, p.stderr
    got = [line for line in btfparse.render(ctx.btf(out), "all")
           if line.startswith("struct C ")]
    assert got == [line for line in BASES[cc]
                   if line.startswith("struct C ")], got


def test_cxx_bases_linked_gxx(ctx):
    _bases_linked(ctx, "g++")


def test_cxx_bases_linked_clangxx(ctx):
    _bases_linked(ctx, "clang++")


FIXTURES = ("cxx_bases", "cxx_complex", "cxx_internal", "cxx_long",
            "cxx_members", "cxx_names", "cxx_nested", "cxx_nullptr", "cxx_refs",
            "cxx_statics", "cxx_types")


def _usable(ctx, cc, dwarf, out):
    """Encodes every C++ fixture of @cc and DWARF @dwarf; checks that
    bpftool's header of each compiles with clang as C and that the kernel
    loads each (BPF_BTF_LOAD, scripts/lib/btf-load.py)."""
    for tool in ("bpftool", "clang"):
        if not shutil.which(tool):
            raise ctx.Skip("no " + tool)
    btfs = {}
    for name in FIXTURES:
        obj = ctx.fixture(name, cc, dwarf)
        btfs[name] = btf = os.path.join(out, "%s.btf" % name)
        p = ctx.run([ctx.bin, "-o", btf, obj])
        assert p.returncode == 0, p.stderr
        usable.header_compiles(ctx, btf, name)
    skipped = usable.kernel_loads(ctx, btfs)
    if skipped:
        raise ctx.Skip("headers compile; kernel load " + skipped)


def test_cxx_usable_gxx_dwarf4(ctx):
    _usable(ctx, "g++", 4, ctx.tmp)


def test_cxx_usable_gxx_dwarf5(ctx):
    _usable(ctx, "g++", 5, ctx.tmp)


def test_cxx_usable_clangxx_dwarf4(ctx):
    _usable(ctx, "clang++", 4, ctx.tmp)


def test_cxx_usable_clangxx_dwarf5(ctx):
    _usable(ctx, "clang++", 5, ctx.tmp)


def test_cxx_members_cached(ctx):
    """cxx_members.cc linked: a batch read back from the cache still says
    that its units are C++, so L's base of the undefined class E becomes
    bytes as in the run that stored it."""
    lib = ctx.link("cxx_members", "g++", 5, extra=("-shared", "-fPIC"))
    env = dict(os.environ)
    env.pop("DWARF2BTF_NO_CACHE", None)
    env["DWARF2BTF_CACHE_DIR"] = os.path.join(ctx.tmp, "cache")
    env["DWARF2BTF_BATCH_DEDUP"] = "1"
    want = "struct L size=16 { __base0 unsigned char[16] off=0; }"
    for i, verdict in ((0, "the build's first run here, noted"),
                       (1, "0 of 1 batches read back"),
                       (2, "1 of 1 batches read back")):
        out = os.path.join(ctx.tmp, "run%d.btf" % i)
        p = ctx.run([ctx.bin, "--stats", "-o", out, lib], env=env)
        assert p.returncode == 0, p.stderr
        assert verdict in p.stderr, p.stderr
        got = [line for line in btfparse.render(ctx.btf(out), "all")
               if line.startswith("struct L ")]
        assert got == [want], got


def _c_name(cxx):
    """A C++ name as a C identifier, by the rule of cu/cxx_names.c: each
    character outside [A-Za-z0-9_] mapped, and past 511 characters the
    first 493 and "__" and the FNV-1a hash of all of it."""
    keep = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
            "0123456789_")
    c = "".join(ch if ch in keep else {"*": "P", "&": "R"}.get(ch, "_")
                for ch in cxx)
    if len(c) <= 511:
        return c
    h = 0xcbf29ce484222325
    for b in c.encode():
        h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
    return c[:493] + "__%016x" % h


def _long(ctx, cc, dwarf):
    """cxx_long.cc: each Pair is named by the rule (the longest cut and
    hashed), its tag keeping the whole C++ name, and the kernel takes it."""
    obj = ctx.fixture("cxx_long", cc, dwarf)
    out = os.path.join(ctx.tmp, "long.btf")
    p = ctx.run([ctx.bin, "-o", out, obj])
    assert p.returncode == 0, p.stderr
    tags = {}
    for line in btfparse.render(ctx.btf(out), "all"):
        if line.startswith("decl_tag cxx:"):
            value, _, target = line[len("decl_tag cxx:"):].rpartition(
                " on struct ")
            tags[value] = target
    assert len(tags) == 4, tags
    lengths = sorted(len(v) for v in tags.values())
    assert lengths[-1] == 511 and lengths[-2] < 511, lengths
    for cxx, c in tags.items():
        assert c == _c_name(cxx), (cxx, c)
    res = usable.kernel_load(ctx, out)
    if res.startswith("skip:"):
        raise ctx.Skip("kernel load " + res)
    assert res == "loaded", res


def test_cxx_long_gxx(ctx):
    _long(ctx, "g++", 5)


def test_cxx_long_clangxx(ctx):
    _long(ctx, "clang++", 4)
