# SPDX-License-Identifier: GPL-2.0-only
"""Rust enums with data keep their tag and their variants.

tests/fixtures/rust_enums.so is built by rust_enums.sh from rust_enums.rs
with rustc 1.97.  By default (--rust-enums=variants) an enum with data is
its STRUCT holding one anonymous UNION at offset 0, as big as the enum:
the tag, when it is a member of its own (rustc leaves it unnamed:
"__discr"), and one member per variant, of the variant's struct, whose
fields count from the enum's start.  A tag in a niche (Option<&T>,
Option<NonZeroU32>) is a variant's field, and has no member.  A C-like
enum stays an ENUM.  --rust-enums=pahole, and the name pahole, give
pahole 1.32's struct without members.  The lines below are written by
hand from the DWARF (llvm-dwarfdump), in btfparse.render()'s form.
"""
import os
import re
import shutil
import struct

import btfparse

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
    padding after a variant's bool; one variant, no tag."""
    _want(ctx, _lines(ctx), [
        "struct Shape size=24 { " + _union(24, [
            "__discr u64 off=0;", "Circle struct Circle off=0;",
            "Rect struct Rect off=0;", "Empty struct Empty off=0;"]) + " }",
        "struct Circle size=24 { __0 f64 off=64; }",
        "struct Rect size=24 { w f64 off=64; h f64 off=128; }",
        "struct Empty size=24 { }",
        "struct Packed size=16 { " + _union(16, [
            "__discr u8 off=0;", "Full struct Full off=0;",
            "Nothing struct Nothing off=0;"]) + " }",
        "struct Full size=16 { __1 bool off=8; __0 u64 off=64; }",
        "struct Single size=4 { " + _union(4, [
            "Only struct Only off=0;"]) + " }",
        "func rust_enums_shape static u64(struct Shape *s)",
    ])


def test_rust_enum_repr(ctx):
    """#[repr(u8)] gives a one-byte tag; a C-like enum stays an ENUM."""
    _want(ctx, _lines(ctx), [
        "struct Small size=8 { " + _union(8, [
            "__discr u8 off=0;", "A struct A off=0;", "B struct B off=0;",
            "C struct C off=0;"]) + " }",
        "struct A size=8 { __0 u16 off=16; }",
        "struct B size=8 { x u32 off=32; }",
        "enum Level size=1 unsigned { Low=1 Mid=5 High=9 }",
        "func rust_enums_level static u32(enum Level l)",
    ])


def test_rust_enum_niche(ctx):
    """Option<&T> and Option<NonZeroU32>: the tag is Some's field (null,
    or 0, is None), so no member of its own; both variants at 0."""
    _want(ctx, _lines(ctx), [
        "struct Option<&rust_enums::Node> size=8 { " + _union(8, [
            "None struct None off=0;", "Some struct Some off=0;"]) + " }",
        "struct Some size=8 { __0 struct Node * off=0; }",
        "struct Option<core::num::nonzero::NonZero<u32>> size=4 { " +
        _union(4, ["None struct None off=0;",
                   "Some struct Some off=0;"]) + " }",
        "struct Some size=4 { __0 struct NonZero<u32> off=0; }",
        # core's fmt::rt::ArgumentType: the default variant comes first.
        "struct ArgumentType size=16 { " + _union(16, [
            "Placeholder struct Placeholder off=0;",
            "Count struct Count off=0;"]) + " }",
    ])


def test_rust_enum_generic(ctx):
    """Option<u32> and Result<u32, i16>: a separate tag as wide as the
    data's alignment, named as the generic instance is."""
    _want(ctx, _lines(ctx), [
        "struct Option<u32> size=8 { " + _union(8, [
            "__discr u32 off=0;", "None struct None off=0;",
            "Some struct Some off=0;"]) + " }",
        "struct Some size=8 { __0 u32 off=32; }",
        "struct Result<u32, i16> size=8 { " + _union(8, [
            "__discr u16 off=0;", "Ok struct Ok off=0;",
            "Err struct Err off=0;"]) + " }",
        "struct Ok size=8 { __0 u32 off=32; }",
        "struct Err size=8 { __0 i16 off=16; }",
    ])


def test_rust_enum_nested(ctx):
    """Enums as members of a struct rustc reordered: each at its offset,
    and each its own type with its variants."""
    got = _lines(ctx)
    _want(ctx, got, [
        "struct Holder size=48 { shape struct Shape off=0; "
        "opt struct Option<u32> off=192; "
        "node struct Option<&rust_enums::Node> off=256; id u32 off=320; }",
        "func rust_enums_holder static u64(struct Holder *h)",
    ])
    assert [ln for ln in got if ln.startswith("struct Shape ")] == [
        "struct Shape size=24 { " + _union(24, [
            "__discr u64 off=0;", "Circle struct Circle off=0;",
            "Rect struct Rect off=0;", "Empty struct Empty off=0;"]) + " }"]


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

# C's names for Rust's numbers, by size (BTF_INT_SIGNED or not).
_C_INTS = {1: "char", 2: "short", 4: "int", 8: "long long",
           16: "__int128"}
_C_FLOATS = {2: "_Float16", 4: "float", 8: "double", 16: "long double"}


def _c_names(blob):
    """@blob (raw little-endian BTF, strings last) with a C name for every
    type: numbers as C's of their size, a name C cannot spell ("Option<u32>",
    "&str") made an identifier ending in its type id.  Returns the new
    blob and {old name: new name} for the names met once."""
    hdr_len = struct.unpack_from("<I", blob, 4)[0]
    type_off, type_len, str_off, str_len = struct.unpack_from("<4I", blob,
                                                              8)
    assert hdr_len + str_off + str_len == len(blob)
    strings = bytearray(blob[hdr_len + str_off:])
    body = bytearray(blob[hdr_len:hdr_len + str_off])
    types = memoryview(body)[type_off:type_off + type_len]
    extra = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
             13: (0, 8), 14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}
    renamed, seen = {}, {}
    pos, tid = 0, 1
    while pos < len(types):
        name_off, info, size = struct.unpack_from("<3I", types, pos)
        kind, vlen = (info >> 24) & 0x1F, info & 0xFFFF
        name = strings[name_off:strings.index(b"\0", name_off)].decode()
        new = None
        if kind == 1:
            enc = struct.unpack_from("<I", types, pos + 12)[0] >> 24
            new = "_Bool" if enc & 4 else ("signed " if enc & 1 else
                                           "unsigned ") + _C_INTS[size]
        elif kind == 16:
            new = _C_FLOATS[size]
        elif name and kind in (4, 5, 6, 7, 8, 19):
            new = name
            if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
                new = "%s_%d" % (re.sub(r"\W", "_", name), tid)
            seen[name] = seen.get(name, 0) + 1
            renamed[name] = new
        if new is not None and new != name:
            struct.pack_into("<I", types, pos, len(strings))
            strings += new.encode() + b"\0"
        fixed, per = extra.get(kind, (0, 0))
        pos += 12 + fixed + per * vlen
        tid += 1
    head = bytearray(blob[:hdr_len])
    struct.pack_into("<I", head, 20, len(strings))
    types.release()
    return (bytes(head) + bytes(body) + bytes(strings),
            {k: v for k, v in renamed.items() if seen[k] == 1})


# Where rustc put things (llvm-dwarfdump), as C sees them in the header.
_LAYOUT = [
    ("sizeof(struct Shape)", 24),
    ("sizeof(((struct Shape *)0)->__discr)", 8),
    ("offsetof(struct Shape, __discr)", 0),
    ("offsetof(struct Shape, Circle.__0)", 8),
    ("offsetof(struct Shape, Rect.w)", 8),
    ("offsetof(struct Shape, Rect.h)", 16),
    ("sizeof(struct Small)", 8),
    ("sizeof(((struct Small *)0)->__discr)", 1),
    ("offsetof(struct Small, A.__0)", 2),
    ("offsetof(struct Small, B.x)", 4),
    ("sizeof(struct Packed)", 16),
    ("offsetof(struct Packed, Full.__1)", 1),
    ("offsetof(struct Packed, Full.__0)", 8),
    ("offsetof(struct Single, Only.__0)", 0),
    ("sizeof(struct Holder)", 48),
    ("offsetof(struct Holder, shape.Rect.h)", 16),
    ("offsetof(struct Holder, opt.__discr)", 24),
    ("offsetof(struct Holder, opt.Some.__0)", 28),
    ("offsetof(struct Holder, node.Some.__0)", 32),
    ("offsetof(struct Holder, id)", 40),
    ("sizeof(struct {Option<u32>})", 8),
    ("sizeof(struct {Option<&rust_enums::Node>})", 8),
    ("offsetof(struct {Option<&rust_enums::Node>}, Some.__0)", 0),
    ("sizeof(struct {Option<core::num::nonzero::NonZero<u32>>})", 4),
    ("sizeof(((struct {Result<u32, i16>} *)0)->__discr)", 2),
    ("offsetof(struct {Result<u32, i16>}, Ok.__0)", 4),
    ("offsetof(struct {Result<u32, i16>}, Err.__0)", 2),
]


def test_rust_enum_libbpf_c(ctx):
    """libbpf reads the BTF (bpftool btf dump), and the C header bpftool
    prints from it (names made C's) compiles with clang, each member
    where rustc put it."""
    out = _encode(ctx)
    bpftool, clang = shutil.which("bpftool"), shutil.which("clang")
    if not bpftool or not clang:
        raise ctx.Skip("needs bpftool and clang")
    p = ctx.run([bpftool, "btf", "dump", "file", out])
    assert p.returncode == 0, p.stderr
    assert "STRUCT 'Shape' size=24 vlen=1" in p.stdout, p.stdout[:2000]
    with open(out, "rb") as f:
        blob, names = _c_names(f.read())
    c_btf = os.path.join(ctx.tmp, "c.btf")
    with open(c_btf, "wb") as f:
        f.write(blob)
    p = ctx.run([bpftool, "btf", "dump", "file", c_btf, "format", "c"])
    assert p.returncode == 0, p.stderr
    checks = []
    for i, (expr, value) in enumerate(_LAYOUT):
        expr = re.sub(r"\{([^}]*)\}", lambda m: names[m.group(1)], expr)
        checks.append("_Static_assert(%s == %d, \"%d\");" % (expr, value, i))
    src = os.path.join(ctx.tmp, "rust_enums.c")
    with open(src, "w") as f:
        f.write("#include <stddef.h>\n" + p.stdout + "\n" +
                "\n".join(checks) + "\n")
    # The header asks for BPF's preserve_access_index: x86-64 has none.
    p = ctx.run([clang, "-fsyntax-only", "-Werror",
                 "-Wno-unknown-attributes", src])
    assert p.returncode == 0, p.stderr[:3000]
