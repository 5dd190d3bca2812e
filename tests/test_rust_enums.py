# SPDX-License-Identifier: GPL-2.0-only
"""Rust enums with data keep their tag and their variants.

tests/fixtures/rust_enums.so is built by rust_enums.sh from rust_enums.rs
with rustc 1.97.  By default (--rust-enums=variants) an enum with data is
its STRUCT holding one anonymous UNION at offset 0, as big as the enum:
the tag, when it is a member of its own (rustc leaves it unnamed:
"__discr"), and one member per variant, of the variant's struct, whose
fields count from the enum's start.  A tag in a niche (Option<&T>,
Option<NonZeroU32>) is a variant's field, and has no member.  A C-like
enum stays an ENUM.  Names are C identifiers made of the Rust path, as
C++'s are (core::option::Option<u32> is core__option__Option_u32_, a
variant's struct is named in its enum), with the Rust name in a DECL_TAG
"rust:..."; Rust's numbers are named as C's of their size.
The union carries a DECL_TAG "rust:discr=OFFSET:SIZE" where the tag is
(in a niche too), and each variant's member "rust:discr_value=N", the
value that selects it (signed if the tag is), the default variant none.
--rust-enums=pahole, and the name pahole, give pahole 1.32's struct
without members and rustc's names.  The lines below are written by
hand from the DWARF (llvm-dwarfdump), in btfparse.render()'s form.
"""
import os
import shutil

import btfparse
import usable

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                       "fixtures", "rust_enums.so")
FEATURES = ["--btf_features=encode_force,var,float,enum64,decl_tag,"
            "type_tag,optimized_func,consistent_func,decl_tag_kfuncs"]


def _encode(ctx, *extra, src=FIXTURE, prog=None):
    out = os.path.join(ctx.tmp, "out%d.btf" % len(os.listdir(ctx.tmp)))
    p = ctx.run([prog or ctx.bin] + FEATURES + list(extra) +
                ["-o", out, src])
    assert p.returncode == 0 and not p.stderr, (p.returncode, p.stderr)
    return out


def _lines(ctx, *extra):
    return btfparse.render(ctx.btf(_encode(ctx, *extra)), "all")


def _want(ctx, got, want):
    missing = [w for w in want if w not in got]
    assert not missing, "missing:\n%s\nthose named so:\n%s" % (
        "\n".join(missing), "\n".join(
            g for g in got for w in missing
            if g.split("{")[0] == w.split("{")[0]))


def _union(size, members):
    return "(anon) union size=%d { %s } off=0;" % (size, " ".join(members))


def test_rust_enum_variants(ctx):
    """Tuple, struct and unit variants after a separate tag; a tag in the
    padding after a variant's bool; one variant, no tag.  Names are C
    identifiers made of the Rust path (a variant's struct is named in
    its enum), the Rust name kept in a DECL_TAG; numbers are C's."""
    _want(ctx, _lines(ctx), [
        "struct rust_enums__Shape size=24 { " + _union(24, [
            "__discr long unsigned int off=0;",
            "Circle struct rust_enums__Shape__Circle off=0;",
            "Rect struct rust_enums__Shape__Rect off=0;",
            "Empty struct rust_enums__Shape__Empty off=0;"]) + " }",
        "struct rust_enums__Shape__Circle size=24 { __0 double off=64; }",
        "struct rust_enums__Shape__Rect size=24 { w double off=64; "
        "h double off=128; }",
        "struct rust_enums__Shape__Empty size=24 { }",
        "struct rust_enums__Packed size=16 { " + _union(16, [
            "__discr unsigned char off=0;",
            "Full struct rust_enums__Packed__Full off=0;",
            "Nothing struct rust_enums__Packed__Nothing off=0;"]) + " }",
        "struct rust_enums__Packed__Full size=16 { __1 unsigned char off=8; "
        "__0 long unsigned int off=64; }",
        "struct rust_enums__Single size=4 { " + _union(4, [
            "Only struct rust_enums__Single__Only off=0;"]) + " }",
        "func rust_enums_shape static long unsigned int"
        "(struct rust_enums__Shape *s)",
        "decl_tag rust:rust_enums::Shape on struct rust_enums__Shape",
        "decl_tag rust:rust_enums::Shape::Circle on struct "
        "rust_enums__Shape__Circle",
    ])


def _tags_on(got, union_start):
    """The decl tags on the union whose rendering starts so, by member."""
    out = {}
    for ln in got:
        if not ln.startswith("decl_tag rust:discr"):
            continue
        value, on = ln[len("decl_tag "):].split(" on ", 1)
        if not on.startswith(union_start):
            continue
        member = on.rsplit("} member ", 1)
        out[member[1] if len(member) == 2 else None] = value
    return out


def test_rust_enum_values(ctx):
    """The values that select the variants, and where the tag is: given
    in the source and signed (#[repr(i8)]: -3, 7, 0), the variants'
    indexes, and in a niche (Option<&T>: null is None; Option<bool>: 2
    is None), the default variant without a value."""
    got = _lines(ctx)
    want = {
        "union size=4 { __discr signed char off=0; Neg ":
        {None: "rust:discr=0:1", "Neg": "rust:discr_value=-3",
         "Pos": "rust:discr_value=7", "Zero": "rust:discr_value=0"},
        "union size=24 { __discr long unsigned int off=0; Circle ":
        {None: "rust:discr=0:8", "Circle": "rust:discr_value=0",
         "Rect": "rust:discr_value=1", "Empty": "rust:discr_value=2"},
        "union size=8 { None struct core__option__Option_Rrust_enums__Node":
        {None: "rust:discr=0:8", "None": "rust:discr_value=0"},
        "union size=1 { None struct core__option__Option_bool___None ":
        {None: "rust:discr=0:1", "None": "rust:discr_value=2"},
        "union size=16 { Placeholder ":
        {None: "rust:discr=0:8", "Count": "rust:discr_value=0"},
        "union size=4 { Only ": {},
    }
    for start, tags in want.items():
        have = _tags_on(got, start)
        assert have == tags, "%s...: want %r, got %r" % (start, tags, have)
    # Without decl tags, none.
    out = os.path.join(ctx.tmp, "no-tags.btf")
    p = ctx.run([ctx.bin, "--btf_features=encode_force,var,float,enum64",
                 "-o", out, FIXTURE])
    assert p.returncode == 0 and not p.stderr, p.stderr
    plain = btfparse.render(ctx.btf(out), "all")
    assert "struct rust_enums__Signed size=4 { (anon) union" in \
        "\n".join(plain) and not [ln for ln in plain if "decl_tag" in ln], \
        plain


def test_rust_enum_repr(ctx):
    """#[repr(u8)] gives a one-byte tag; a C-like enum stays an ENUM."""
    _want(ctx, _lines(ctx), [
        "struct rust_enums__Small size=8 { " + _union(8, [
            "__discr unsigned char off=0;",
            "A struct rust_enums__Small__A off=0;",
            "B struct rust_enums__Small__B off=0;",
            "C struct rust_enums__Small__C off=0;"]) + " }",
        "struct rust_enums__Small__A size=8 { __0 short unsigned int "
        "off=16; }",
        "struct rust_enums__Small__B size=8 { x unsigned int off=32; }",
        "enum rust_enums__Level size=1 unsigned { Low=1 Mid=5 High=9 }",
        "func rust_enums_level static unsigned int(enum rust_enums__Level l)",
    ])


def test_rust_enum_niche(ctx):
    """Option<&T> and Option<NonZeroU32>: the tag is Some's field (null,
    or 0, is None), so no member of its own; both variants at 0."""
    _want(ctx, _lines(ctx), [
        "struct core__option__Option_Rrust_enums__Node_ size=8 { " +
        _union(8, [
            "None struct core__option__Option_Rrust_enums__Node___None "
            "off=0;",
            "Some struct core__option__Option_Rrust_enums__Node___Some "
            "off=0;"]) + " }",
        "struct core__option__Option_Rrust_enums__Node___Some size=8 { "
        "__0 struct rust_enums__Node * off=0; }",
        "struct core__option__Option_core__num__nonzero__NonZero_u32__ "
        "size=4 { " + _union(4, [
            "None struct core__option__Option_core__num__nonzero__NonZero_"
            "u32____None off=0;",
            "Some struct core__option__Option_core__num__nonzero__NonZero_"
            "u32____Some off=0;"]) + " }",
        "struct core__option__Option_core__num__nonzero__NonZero_u32____Some "
        "size=4 { __0 struct core__num__nonzero__NonZero_u32_ off=0; }",
        # core's fmt::rt::ArgumentType: the default variant comes first.
        "struct core__fmt__rt__ArgumentType size=16 { " + _union(16, [
            "Placeholder struct core__fmt__rt__ArgumentType__Placeholder "
            "off=0;",
            "Count struct core__fmt__rt__ArgumentType__Count off=0;"]) +
        " }",
    ])


def test_rust_enum_generic(ctx):
    """Option<u32> and Result<u32, i16>: a separate tag as wide as the
    data's alignment, named by the generic instance's path."""
    _want(ctx, _lines(ctx), [
        "struct core__option__Option_u32_ size=8 { " + _union(8, [
            "__discr unsigned int off=0;",
            "None struct core__option__Option_u32___None off=0;",
            "Some struct core__option__Option_u32___Some off=0;"]) + " }",
        "struct core__option__Option_u32___Some size=8 { "
        "__0 unsigned int off=32; }",
        "struct core__result__Result_u32__i16_ size=8 { " + _union(8, [
            "__discr short unsigned int off=0;",
            "Ok struct core__result__Result_u32__i16___Ok off=0;",
            "Err struct core__result__Result_u32__i16___Err off=0;"]) +
        " }",
        "struct core__result__Result_u32__i16___Ok size=8 { "
        "__0 unsigned int off=32; }",
        "struct core__result__Result_u32__i16___Err size=8 { "
        "__0 short int off=16; }",
        "decl_tag rust:core::result::Result<u32, i16> on struct "
        "core__result__Result_u32__i16_",
    ])


def test_rust_enum_nested(ctx):
    """Enums as members of a struct rustc reordered: each at its offset,
    and each its own type with its variants."""
    got = _lines(ctx)
    _want(ctx, got, [
        "struct rust_enums__Holder size=48 { "
        "shape struct rust_enums__Shape off=0; "
        "opt struct core__option__Option_u32_ off=192; "
        "node struct core__option__Option_Rrust_enums__Node_ off=256; "
        "id unsigned int off=320; }",
        "func rust_enums_holder static long unsigned int"
        "(struct rust_enums__Holder *h)",
    ])
    assert len([ln for ln in got
                if ln.startswith("struct rust_enums__Shape ")]) == 1, got


def test_rust_enum_pahole(ctx):
    """--rust-enums=pahole and the name pahole: pahole 1.32's struct
    without members, the same bytes either way; the default's bytes are
    the same for any -j and through the reference path."""
    pahole = _lines(ctx, "--rust-enums=pahole")
    for empty in ("struct Shape size=24 { }", "struct Small size=8 { }",
                  "struct Option<u32> size=8 { }",
                  "struct Option<&rust_enums::Node> size=8 { }",
                  "struct Result<u32, i16> size=8 { }"):
        assert empty in pahole, empty
    assert not [ln for ln in pahole if "union" in ln], pahole
    link = os.path.join(ctx.tmp, "pahole")
    os.symlink(ctx.bin, link)
    as_pahole = os.path.join(ctx.tmp, "as-pahole.btf")
    p = ctx.run([link, "-J"] + FEATURES +
                ["--btf_encode_detached=" + as_pahole, FIXTURE])
    assert p.returncode == 0 and not p.stderr, p.stderr
    with open(as_pahole, "rb") as f:
        want = f.read()
    with open(_encode(ctx, "--rust-enums=pahole"), "rb") as f:
        assert f.read() == want
    # Run as pahole, --rust-enums still decides.
    p = ctx.run([link, "-J"] + FEATURES + ["--rust-enums=variants",
                "--btf_encode_detached=" + as_pahole, FIXTURE])
    assert p.returncode == 0 and not p.stderr, p.stderr
    with open(as_pahole, "rb") as f:
        variants = f.read()
    assert variants != want
    for extra in (["-j1"], ["-j2"], ["--plain-dedup"], ["--no-cache"],
                  ["--rust-enums=variants"]):
        with open(_encode(ctx, *extra), "rb") as f:
            assert f.read() == variants, extra
    p = ctx.run([ctx.bin, "--rust-enums=both", "-o", as_pahole, FIXTURE])
    assert p.returncode == 2 and "--rust-enums" in p.stderr, p.stderr
    p = ctx.run([ctx.bin, "--help"])
    assert "--rust-enums=MODE" in p.stdout, p.stdout


# ------------------------------------------------------- libbpf and C

# Where rustc put things (llvm-dwarfdump), as C sees them in the header.
_LAYOUT = [
    ("sizeof(struct rust_enums__Shape)", 24),
    ("sizeof(((struct rust_enums__Shape *)0)->__discr)", 8),
    ("offsetof(struct rust_enums__Shape, __discr)", 0),
    ("offsetof(struct rust_enums__Shape, Circle.__0)", 8),
    ("offsetof(struct rust_enums__Shape, Rect.w)", 8),
    ("offsetof(struct rust_enums__Shape, Rect.h)", 16),
    ("sizeof(struct rust_enums__Small)", 8),
    ("sizeof(((struct rust_enums__Small *)0)->__discr)", 1),
    ("offsetof(struct rust_enums__Small, A.__0)", 2),
    ("offsetof(struct rust_enums__Small, B.x)", 4),
    ("sizeof(struct rust_enums__Packed)", 16),
    ("offsetof(struct rust_enums__Packed, Full.__1)", 1),
    ("offsetof(struct rust_enums__Packed, Full.__0)", 8),
    ("offsetof(struct rust_enums__Single, Only.__0)", 0),
    ("sizeof(struct rust_enums__Holder)", 48),
    ("offsetof(struct rust_enums__Holder, shape.Rect.h)", 16),
    ("offsetof(struct rust_enums__Holder, opt.__discr)", 24),
    ("offsetof(struct rust_enums__Holder, opt.Some.__0)", 28),
    ("offsetof(struct rust_enums__Holder, node.Some.__0)", 32),
    ("offsetof(struct rust_enums__Holder, id)", 40),
    ("sizeof(struct core__option__Option_u32_)", 8),
    ("sizeof(struct core__option__Option_Rrust_enums__Node_)", 8),
    ("offsetof(struct core__option__Option_Rrust_enums__Node_, Some.__0)",
     0),
    ("sizeof(struct "
     "core__option__Option_core__num__nonzero__NonZero_u32__)", 4),
    ("sizeof(((struct core__result__Result_u32__i16_ *)0)->__discr)", 2),
    ("offsetof(struct core__result__Result_u32__i16_, Ok.__0)", 4),
    ("offsetof(struct core__result__Result_u32__i16_, Err.__0)", 2),
]


def test_rust_enum_libbpf_c(ctx):
    """libbpf reads the BTF (bpftool btf dump), and the C header bpftool
    prints from it compiles with clang as it is (the names are C's), each
    member where rustc put it."""
    out = _encode(ctx)
    bpftool, clang = shutil.which("bpftool"), shutil.which("clang")
    if not bpftool or not clang:
        raise ctx.Skip("needs bpftool and clang")
    p = ctx.run([bpftool, "btf", "dump", "file", out])
    assert p.returncode == 0, p.stderr
    assert "STRUCT 'rust_enums__Shape' size=24 vlen=1" in p.stdout, \
        p.stdout[:2000]
    p = ctx.run([bpftool, "btf", "dump", "file", out, "format", "c"])
    assert p.returncode == 0, p.stderr
    checks = ["_Static_assert(%s == %d, \"%d\");" % (expr, value, i)
              for i, (expr, value) in enumerate(_LAYOUT)]
    src = os.path.join(ctx.tmp, "rust_enums.c")
    with open(src, "w") as f:
        f.write("#include <stddef.h>\n" + p.stdout + "\n" +
                "\n".join(checks) + "\n")
    # The header asks for BPF's preserve_access_index: x86-64 has none.
    p = ctx.run([clang, "-fsyntax-only", "-Werror",
                 "-Wno-unknown-attributes", src])
    assert p.returncode == 0, p.stderr[:3000]


def test_rust_usable(ctx):
    """Both Rust fixtures' BTF, with C names (the default): bpftool's
    header compiles with clang as C, `dwarf2btf layout` finds every
    layout, and the kernel loads it (BPF_BTF_LOAD; skipped where this
    process may not load BTF).  rust_types.so has an unsized struct,
    whose tail becomes unsigned char[0], and closures, generics and
    () that pahole's names and 4-byte INT left unloadable.  With
    --rust-enums=pahole the kernel refuses rust_types.so ("Invalid
    name")."""
    for tool in ("bpftool", "clang"):
        if not shutil.which(tool):
            raise ctx.Skip("no " + tool)
    btfs = {}
    for name in ("rust_types", "rust_enums"):
        so = os.path.join(os.path.dirname(FIXTURE), name + ".so")
        btfs[name] = btf = os.path.join(ctx.tmp, name + ".btf")
        p = ctx.run([ctx.bin, "-o", btf, so])
        assert p.returncode == 0, p.stderr
        usable.header_compiles(ctx, btf, name)
        p = ctx.run([ctx.bin, "layout", so, btf])
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr
    skipped = usable.kernel_loads(ctx, btfs)
    if skipped:
        raise ctx.Skip("headers compile, layouts check; kernel load " +
                       skipped)
    old = os.path.join(ctx.tmp, "pahole.btf")
    p = ctx.run([ctx.bin, "--rust-enums=pahole", "-o", old,
                 os.path.join(os.path.dirname(FIXTURE), "rust_types.so")])
    assert p.returncode == 0, p.stderr
    assert usable.kernel_load(ctx, old) != "loaded"


def test_rust_names_keep_small_batches(ctx):
    """Rust units under rustc's names (--rust-enums=pahole) meet generic
    types of one name in many layouts, which a batch's dedup compares
    with each other: an input with such units keeps batches of 32 CUs
    even where it would take a large input's of 128 (lib/cu_batch.h; a
    test hook makes the fixture a large input), unless its Rust units
    are left out."""
    import re
    env = dict(os.environ, DWARF2BTF_LARGE_BATCH_FROM="1",
               DWARF2BTF_BATCH_DEDUP="1")
    for extra, want in (((), 128), (("--rust-enums=pahole",), 32),
                        (("--rust-enums=pahole", "--lang_exclude=rust"),
                         128)):
        out = os.path.join(ctx.tmp, "batches.btf")
        p = ctx.run([ctx.bin, "--no-cache", "--stats", "-o", out, FIXTURE] +
                    list(extra), env=env)
        assert p.returncode == 0, p.stderr
        m = re.search(r"stats: batches (\d+), of (\d+) CUs at most",
                      p.stderr)
        assert m and (int(m.group(1)), int(m.group(2))) == (1, want), \
            (extra, m and m.group(0))
