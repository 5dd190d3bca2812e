# SPDX-License-Identifier: GPL-2.0-only
"""Tests of `dwarf2btf layout`: every struct, class and union of the DWARF
is in the BTF at the DWARF's layout.

On the C fixtures (gcc and clang) and the C++ ones (g++ and clang++),
DWARF 4 and 5, and on the Rust fixture, the BTF we write has them all.
A BTF broken by hand (one member's offset, one struct's name changed in
the raw bytes) gives exactly that one struct, its member named, exit 1.
Usage errors exit 2 with one line; input that is not BTF or not DWARF
exits 2 with one line naming the file; DWARF with bytes flipped never
crashes.  tests/unit/test_shape.c checks the comparison itself.
"""
import os
import random
import re
import shutil
import struct

import btfparse
import test_layouts

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")
SUMMARY_RE = re.compile(r"^layout: (\d+) structs/unions checked, "
                        r"(\d+) mismatches, (\d+) not in the BTF$")


def _c_fixtures():
    return sorted(f[:-2] for f in os.listdir(FIXTURES)
                  if f.startswith("types_") and f.endswith(".c"))


def _cxx_fixtures():
    return sorted(f[:-3] for f in os.listdir(FIXTURES)
                  if f.startswith("cxx_") and f.endswith(".cc"))


def _run(ctx, *args):
    return ctx.run([ctx.bin, "layout", *args])


def _summary(p):
    """(checked, mismatches, missing) of the last line of @p's output."""
    lines = p.stdout.splitlines()
    m = SUMMARY_RE.match(lines[-1]) if lines else None
    if not m:
        raise AssertionError("no summary line:\n%s\n%s"
                             % (p.stdout, p.stderr))
    return tuple(int(x) for x in m.groups())


def _encode(ctx, obj, name, base=None):
    """Raw BTF of @obj in ctx.tmp/@name.btf (over @base)."""
    out = os.path.join(ctx.tmp, name + ".btf")
    args = [ctx.bin, "-o", out]
    if base:
        args += ["--base", base]
    p = ctx.run(args + [obj])
    assert p.returncode == 0, p.stderr
    return out


def _all_there(ctx, obj, name, *extra):
    btf = _encode(ctx, obj, name)
    p = _run(ctx, *extra, obj, btf)
    checked, mismatches, missing = _summary(p)
    assert p.returncode == 0 and mismatches == 0 and missing == 0, \
        "%s:\n%s%s" % (name, p.stdout, p.stderr)
    assert checked > 0, p.stdout
    return p


def _make_test(fixtures, cc, dwarf):
    def test(ctx):
        for name in fixtures():
            _all_there(ctx, ctx.fixture(name, cc, dwarf),
                       "%s-%s-%d" % (name, cc, dwarf))
    test.__name__ = "test_layout_%s_%s_dwarf%d" % (
        "cxx" if cc.endswith("++") else "c",
        cc.replace("+", "x"), dwarf)
    return test


for _fixtures, _ccs in ((_c_fixtures, ("gcc", "clang")),
                        (_cxx_fixtures, ("g++", "clang++"))):
    for _cc in _ccs:
        for _dwarf in (4, 5):
            _t = _make_test(_fixtures, _cc, _dwarf)
            globals()[_t.__name__] = _t


def test_layout_rust(ctx):
    """The Rust fixture's enums have variant parts: the BTF's nameless
    union of the variants takes their place (the default encoding), or
    nothing (--rust-enums=pahole, checked with the same option).  Either
    way they are counted on a line of their own; a check that expects the
    other encoding finds mismatches."""
    so = os.path.join(ctx.tmp, "rust_types.so")
    shutil.copy(os.path.join(FIXTURES, "rust_types.so"), so)
    p = _all_there(ctx, so, "rust")
    assert re.search(r"^layout: [1-9]\d* with a Rust variant part, "
                     r"checked as a nameless union", p.stdout, re.M), p.stdout
    old = os.path.join(ctx.tmp, "rust-pahole.btf")
    p = ctx.run([ctx.bin, "--rust-enums=pahole", "-o", old, so])
    assert p.returncode == 0, p.stderr
    p = _run(ctx, "--rust-enums=pahole", so, old)
    assert p.returncode == 0 and _summary(p)[1:] == (0, 0), p.stdout
    assert re.search(r"^layout: [1-9]\d* with a Rust variant part, "
                     r"checked without it", p.stdout, re.M), p.stdout
    p = _run(ctx, so, old)
    assert p.returncode == 1 and _summary(p)[1] > 0, p.stdout
    # Without its Rust units there is nothing left to check.
    btf = os.path.join(ctx.tmp, "rust.btf")
    p = _run(ctx, "--lang_exclude=rust", so, btf)
    assert p.returncode == 0 and _summary(p) == (0, 0, 0), p.stdout
    p = _run(ctx, "--lang=rust", so, btf)
    assert p.returncode == 0 and _summary(p)[0] > 0, p.stdout


def test_layout_elf_btf(ctx):
    """Without BTF, FILE's own .BTF section is read."""
    obj = os.path.join(ctx.tmp, "c.o")
    shutil.copy(ctx.fixture("types_composite", "gcc", 5), obj)
    p = ctx.run([ctx.bin, obj])
    assert p.returncode == 0, p.stderr
    p = _run(ctx, obj)
    assert p.returncode == 0 and _summary(p)[1:] == (0, 0), p.stdout


def test_layout_split(ctx):
    """Split BTF over --base: a module's structs may be its base's."""
    base_obj = ctx.fixture("types_composite", "gcc", 5)
    mod_obj = ctx.fixture("funcs_basic", "gcc", 5)
    base = _encode(ctx, base_obj, "base")
    mod = _encode(ctx, mod_obj, "mod", base)
    p = _run(ctx, "--base", base, mod_obj, mod)
    assert p.returncode == 0 and _summary(p)[1:] == (0, 0), \
        p.stdout + p.stderr
    # Read alone, split BTF is not BTF.
    p = _run(ctx, mod_obj, mod)
    _one_line_error(p, mod)


def test_layout_dwarf_layouts(ctx):
    """The DWARF as the encoder opens it: dwz's partial units in the file
    and in a supplementary file (dwz -m), LTO's references across units,
    split DWARF's .dwo files."""
    tl = test_layouts
    tl._need(ctx, "dwz")
    prog = tl._link(ctx, "dwz-in-place", "gcc", ["-gdwarf-4"])
    p = ctx.run(["dwz", prog])
    assert p.returncode == 0, p.stderr
    progs = [prog, tl._multifile(ctx, 5)[1],
             tl._link(ctx, "lto", "gcc", ["-flto", "-gdwarf-5"],
                      [os.path.join(FIXTURES, "lto_a.c"),
                       os.path.join(FIXTURES, "lto_b.c")]),
             tl._link(ctx, "split", "gcc", ["-gdwarf-5", "-gsplit-dwarf"])]
    for prog in progs:
        _all_there(ctx, prog, os.path.basename(prog))


def _types(data):
    """(header length, [(kind, name offset, offset of its vlen part,
    vlen)]) of little-endian raw BTF @data."""
    hdr_len = struct.unpack_from("<I", data, 4)[0]
    type_off, type_len = struct.unpack_from("<2I", data, 8)
    pos, end = hdr_len + type_off, hdr_len + type_off + type_len
    out = []
    # Bytes after the 12-byte header of each kind, and per vlen item.
    fixed = {1: 4, 3: 12, 14: 4, 17: 4}
    per = {4: 12, 5: 12, 6: 8, 13: 8, 15: 12, 19: 12}
    while pos < end:
        name_off, info = struct.unpack_from("<2I", data, pos)
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        pos += 12
        out.append((kind, name_off, pos + fixed.get(kind, 0), vlen))
        pos += fixed.get(kind, 0) + per.get(kind, 0) * vlen
    return hdr_len, out


def _str(data, off):
    hdr_len = struct.unpack_from("<I", data, 4)[0]
    start = hdr_len + struct.unpack_from("<I", data, 16)[0] + off
    return data[start:data.index(b"\0", start)].decode()


def _member_at(data, sname, mname):
    """The byte offset in @data of member @mname's offset field in struct
    @sname."""
    for kind, name_off, pos, vlen in _types(data)[1]:
        if kind == 4 and _str(data, name_off) == sname:
            for i in range(vlen):
                if _str(data, struct.unpack_from("<I", data,
                                                 pos + 12 * i)[0]) == mname:
                    return pos + 12 * i + 8
    raise AssertionError("no %s.%s in the BTF" % (sname, mname))


def _broken(ctx, change):
    """types_composite.o (gcc, DWARF 5) and its BTF changed by @change,
    a function of the raw bytes."""
    obj = ctx.fixture("types_composite", "gcc", 5)
    with open(_encode(ctx, obj, "good"), "rb") as f:
        data = bytearray(f.read())
    change(data)
    bad = os.path.join(ctx.tmp, "bad.btf")
    with open(bad, "wb") as f:
        f.write(data)
    return obj, bad


def test_layout_flipped_offset(ctx):
    """struct point's y moved from bit 32 to bit 40: one mismatch, naming
    the struct and the member with both offsets."""
    def move_y(data):
        at = _member_at(data, "point", "y")
        assert struct.unpack_from("<I", data, at)[0] == 32
        struct.pack_into("<I", data, at, 40)
    obj, bad = _broken(ctx, move_y)
    p = _run(ctx, obj, bad)
    assert p.returncode == 1, p.stdout + p.stderr
    assert _summary(p)[1:] == (1, 0), p.stdout
    bad_lines = [l for l in p.stdout.splitlines() if "DIE 0x" in l]
    assert len(bad_lines) == 1, p.stdout
    assert re.search(r"^layout: CU .*types_composite\.c: DIE 0x[0-9a-f]+: "
                     r"struct point: member y at bit 32, 32 bits; "
                     r"BTF: member y at bit 40, 32 bits \(BTF \[\d+\] point\)$",
                     bad_lines[0]), bad_lines[0]


def test_layout_renamed(ctx):
    """struct point renamed in the strings: not in the BTF, and nothing
    else (struct outer's member of that type keeps its size)."""
    def rename(data):
        for kind, name_off, _, _ in _types(data)[1]:
            if kind == 4 and _str(data, name_off) == "point":
                hdr_len = struct.unpack_from("<I", data, 4)[0]
                at = hdr_len + struct.unpack_from("<I", data, 16)[0] + \
                    name_off
                data[at:at + 5] = b"pXint"
                return
        raise AssertionError("no struct point")
    obj, bad = _broken(ctx, rename)
    p = _run(ctx, obj, bad)
    assert p.returncode == 1 and _summary(p)[1:] == (0, 1), p.stdout
    assert re.search(r": struct point: not in BTF$", p.stdout, re.M), p.stdout


def _one_line_error(p, name):
    err = p.stderr.strip().splitlines()
    assert p.returncode == 2, "exit %d: %s" % (p.returncode, p.stderr)
    assert len(err) == 1 and name in err[0], \
        "want one error line naming %s:\n%s" % (name, p.stderr)


def test_layout_usage(ctx):
    """Usage errors exit 2 with one line; --help exits 0."""
    for args, what in (([], "need the FILE"),
                       (["a", "b", "c"], "too many files"),
                       (["--bogus", "a"], "unknown option --bogus"),
                       (["-x", "a"], "unknown option -x"),
                       (["a", "--base"], "no value for --base"),
                       (["--lang_exclude=cobol", "a"], "cobol")):
        _one_line_error(_run(ctx, *args), what)
    p = _run(ctx, "--help")
    assert p.returncode == 0 and "dwarf2btf layout" in p.stdout, p.stdout


def test_layout_bad_input(ctx):
    """BTF that is not BTF, FILE that is not ELF, FILE without DWARF:
    exit 2, one line naming the file."""
    obj = ctx.fixture("types_composite", "gcc", 5)
    btf = _encode(ctx, obj, "good")
    junk = os.path.join(ctx.tmp, "junk")
    with open(junk, "wb") as f:
        f.write(bytes(random.Random(1).randrange(256) for _ in range(4096)))
    _one_line_error(_run(ctx, obj, junk), junk)
    _one_line_error(_run(ctx, junk, btf), junk)
    _one_line_error(_run(ctx, os.path.join(ctx.tmp, "none"), btf), "none")
    nodwarf = os.path.join(ctx.tmp, "nodwarf.o")
    p = ctx.run(["objcopy", "--strip-debug", obj, nodwarf])
    assert p.returncode == 0, p.stderr
    _one_line_error(_run(ctx, "--debug-root", ctx.tmp, nodwarf, btf),
                    nodwarf)


def _section(path, name):
    """(file offset, size) of ELF64 little-endian section @name."""
    with open(path, "rb") as f:
        data = f.read()
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<3H", data, 0x3a)
    def sh(i):
        return struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    for i in range(shnum):
        n, _, _, _, off, size = sh(i)
        end = data.index(b"\0", stroff + n)
        if data[stroff + n:end].decode() == name:
            return off, size
    raise AssertionError("no section %s in %s" % (name, path))


def test_layout_flipped_dwarf(ctx):
    """Bytes of .debug_info and .debug_abbrev flipped: whatever it says,
    it does not crash (a sanitizer report fails the run)."""
    for cc, dwarf in (("gcc", 4), ("clang", 5), ("g++", 5)):
        src = ctx.fixture("types_composite" if not cc.endswith("++")
                          else "cxx_bases", cc, dwarf)
        good = os.path.join(ctx.tmp, "good.o")
        shutil.copy(src, good)
        btf = _encode(ctx, good, "flip")
        with open(good, "rb") as f:
            orig = f.read()
        rnd = random.Random(dwarf)
        for sec in (".debug_info", ".debug_abbrev"):
            off, size = _section(good, sec)
            for _ in range(20):
                data = bytearray(orig)
                for _ in range(rnd.randrange(1, 4)):
                    data[off + rnd.randrange(size)] = rnd.randrange(256)
                bad = os.path.join(ctx.tmp, "bad.o")
                with open(bad, "wb") as f:
                    f.write(data)
                p = _run(ctx, bad, btf)
                assert p.returncode in (0, 1, 2), \
                    "exit %d on %s:\n%s" % (p.returncode, sec, p.stderr)
                if p.returncode == 2:
                    assert len(p.stderr.strip().splitlines()) == 1, p.stderr


def test_layout_btfparse_agrees(ctx):
    """The raw walk the broken-BTF tests use finds the types btfparse
    finds."""
    obj = ctx.fixture("types_composite", "gcc", 5)
    with open(_encode(ctx, obj, "walk"), "rb") as f:
        data = f.read()
    names = [_str(data, n) for k, n, _, _ in _types(data)[1]]
    want = [t.name for t in btfparse.parse_raw(data).all_types()]
    assert names == want, (names, want)


def test_layout_shape_unit(ctx):
    """src/layout/shape.c under ASan and UBSan (tests/unit/test_shape.c)."""
    ctx.unit("test_shape", ["layout/shape.c"])
