# SPDX-License-Identifier: GPL-2.0-only
"""Type encoding tests, and self-tests of btfparse.

For every tests/fixtures/types_*.c, every compiler (gcc, clang) and DWARF
version (4, 5) there is a test test_<fixture>_<cc>_dwarf<N>: compile the
fixture, run "dwarf2btf -o OUT.btf OBJ", render OUT.btf's types
(btfparse.render(btf, "types")) and compare with the hand-written
expectation.

Expectation files: tests/fixtures/<name>.<cc>.expect if it exists, else
tests/fixtures/<name>.expect.  One canonical line per type (see btfparse);
blank lines and lines starting with "#" are ignored.  A line starting with
"[tag,tag] " only applies when all tags match: tags are gcc, clang,
dwarf4, dwarf5.  Base type names are written as gcc spells them; for clang
they are rewritten (see CLANG_NAMES), since only the spelling differs.

DWARF2BTF_TEST_ENCODER=pahole makes these tests use pahole instead of the
binary under test ("pahole -J --btf_encode_detached=OUT OBJ"; the pahole
binary is $DWARF2BTF_TEST_PAHOLE or "pahole" from PATH), to check the
expectations and the parser independently of our encoder.

Known pahole differences (the expectations describe what we want):
- _Atomic: Debian's pahole 1.24 encodes "_Atomic T" as void (it does not
  know DW_TAG_atomic_type); upstream pahole 1.31 stops with "Unsupported
  DW_TAG_atomic_type" and writes no BTF.  We drop the qualifier.
"""

import difflib
import os
import re
import shutil
import struct

import btfparse

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")

# gcc's DW_AT_name of base types -> clang's.  Longest first: one regex
# pass, so "long long unsigned int" never becomes "long unsigned long".
CLANG_NAMES = [
    ("long long unsigned int", "unsigned long long"),
    ("long long int", "long long"),
    ("long unsigned int", "unsigned long"),
    ("long int", "long"),
    ("short unsigned int", "unsigned short"),
    ("short int", "short"),
    ("__int128 unsigned", "unsigned __int128"),
]
_CLANG_RE = re.compile(r"(?<![\w])(%s)(?![\w])"
                       % "|".join(re.escape(g) for g, _ in CLANG_NAMES))
_CLANG_MAP = dict(CLANG_NAMES)
_TAG_RE = re.compile(r"^\[([a-z0-9,]+)\]\s+(.*)$")


def expected_lines(name, cc, dwarf):
    """The expectation for fixture ``name`` as a sorted list of lines."""
    path = os.path.join(FIXTURES, "%s.%s.expect" % (name, cc))
    if not os.path.exists(path):
        path = os.path.join(FIXTURES, name + ".expect")
    tags = {cc, "dwarf%d" % dwarf}
    out = []
    with open(path) as f:
        for ln in f:
            ln = ln.strip()
            if not ln or ln.startswith("#"):
                continue
            m = _TAG_RE.match(ln)
            if m:
                want = set(m.group(1).split(","))
                unknown = want - {"gcc", "clang", "dwarf4", "dwarf5"}
                if unknown:
                    raise AssertionError("%s: unknown tag %s"
                                         % (path, ",".join(sorted(unknown))))
                if not want <= tags:
                    continue
                ln = m.group(2)
            if cc == "clang":
                ln = _CLANG_RE.sub(lambda m: _CLANG_MAP[m.group(1)], ln)
            out.append(ln)
    return sorted(out)


def _pahole_args(ctx, pahole):
    """Arguments enabling the BTF features we encode, by pahole version."""
    p = ctx.run([pahole, "--version"])
    m = re.match(r"v?(\d+)\.(\d+)", p.stdout.strip())
    if p.returncode != 0 or not m:
        raise ctx.Skip("cannot run %s" % pahole)
    if (int(m.group(1)), int(m.group(2))) >= (1, 26):
        return ["--btf_features=default"]
    return ["--btf_gen_all"]


def encode(ctx, obj, out):
    """Write raw BTF for ``obj`` to ``out`` with the encoder under test."""
    enc = os.environ.get("DWARF2BTF_TEST_ENCODER", "")
    if enc == "pahole":
        pahole = os.environ.get("DWARF2BTF_TEST_PAHOLE", "pahole")
        if shutil.which(pahole) is None:
            raise ctx.Skip("%s not found" % pahole)
        cmd = [pahole, "-J"] + _pahole_args(ctx, pahole) + \
            ["--btf_encode_detached=" + out, obj]
    elif enc in ("", "dwarf2btf"):
        cmd = [ctx.bin, "-o", out, obj]
    else:
        raise AssertionError("unknown DWARF2BTF_TEST_ENCODER=%s" % enc)
    p = ctx.run(cmd)
    # pahole exits 0 even when encoding failed: check the output exists.
    if p.returncode != 0 or not os.path.exists(out):
        raise AssertionError("%s failed (exit %d):\n%s%s"
                             % (" ".join(cmd), p.returncode, p.stdout,
                                p.stderr))


# (fixture, DWARF version) where pahole's output differs from ours on
# purpose: skipped when DWARF2BTF_TEST_ENCODER=pahole (see the module doc).
PAHOLE_DIFFERS = {
    ("types_atomic", 5): "_Atomic (gcc 12 and clang 14 emit "
                         "DW_TAG_atomic_type only for DWARF 5)",
}


# (fixture, compiler) our encoder does not handle yet, with what is missing.
# Remove the entry with the feature: the expectation is final.
NOT_YET = {
}


def check_fixture(ctx, name, cc, dwarf):
    if os.environ.get("DWARF2BTF_TEST_ENCODER") != "pahole" and \
            (name, cc) in NOT_YET:
        raise ctx.Skip("not implemented yet: " + NOT_YET[(name, cc)])
    if os.environ.get("DWARF2BTF_TEST_ENCODER") == "pahole" and \
            (name, dwarf) in PAHOLE_DIFFERS:
        raise ctx.Skip("pahole differs on purpose: "
                       + PAHOLE_DIFFERS[(name, dwarf)])
    obj = ctx.fixture(name, cc, dwarf)
    out = os.path.join(ctx.tmp, "out.btf")
    encode(ctx, obj, out)
    got = btfparse.render(ctx.btf(out), "types")
    want = expected_lines(name, cc, dwarf)
    if got != want:
        diff = difflib.unified_diff(want, got, "expected", "got",
                                    lineterm="")
        raise AssertionError("%s (%s, DWARF %d) BTF differs:\n%s"
                             % (name, cc, dwarf, "\n".join(diff)))


def _fixture_names():
    return sorted(f[:-2] for f in os.listdir(FIXTURES)
                  if f.startswith("types_") and f.endswith(".c"))


def _make_fixture_test(name, cc, dwarf):
    def test(ctx):
        check_fixture(ctx, name, cc, dwarf)
    test.__name__ = "test_%s_%s_dwarf%d" % (name, cc, dwarf)
    return test


for _name in _fixture_names():
    for _cc in ("gcc", "clang"):
        for _dwarf in (4, 5):
            _t = _make_fixture_test(_name, _cc, _dwarf)
            globals()[_t.__name__] = _t


# ------------------------------------------------ btfparse self-tests

class BtfWriter:
    """Builds raw BTF blobs by hand, in either byte order, to test the
    parser on things compilers do not produce."""

    def __init__(self, base=None):
        self.base = base
        self.start_id = base.type_cnt() if base else 1
        self.str_base = base.str_end() if base else 0
        self.strs = b"" if base else b"\0"
        self.types = []          # (name_off, info, size_type, [(fmt, vals)])

    def s(self, text):
        if not text:
            return 0
        off = self.str_base + len(self.strs)
        self.strs += text.encode() + b"\0"
        return off

    def add(self, kind, name="", vlen=0, kflag=0, st=0, extra=()):
        info = (kflag << 31) | (btfparse.KINDS[kind] << 24) | vlen
        self.types.append((self.s(name), info, st, list(extra)))
        return self.start_id + len(self.types) - 1

    def int(self, name, size, enc=0, bits=None, off=0):
        bits = size * 8 if bits is None else bits
        return self.add("int", name, st=size,
                        extra=[("I", (enc << 24) | (off << 16) | bits)])

    def ref(self, kind, tid, name=""):
        return self.add(kind, name, st=tid)

    def array(self, elem, index, n):
        return self.add("array", extra=[("3I", elem, index, n)])

    def struct(self, kind, name, size, members, kflag=0):
        ex = [("3I", self.s(n), t, off) for n, t, off in members]
        return self.add(kind, name, len(members), kflag, size, ex)

    def enum(self, name, size, values, kflag=0):
        ex = [("Ii", self.s(n), v) for n, v in values]
        return self.add("enum", name, len(values), kflag, size, ex)

    def enum64(self, name, size, values, kflag=0):
        ex = [("3I", self.s(n), v & 0xFFFFFFFF, (v >> 32) & 0xFFFFFFFF)
              for n, v in values]
        return self.add("enum64", name, len(values), kflag, size, ex)

    def proto(self, ret, params):
        ex = [("2I", self.s(n), t) for n, t in params]
        return self.add("func_proto", vlen=len(params), st=ret, extra=ex)

    def blob(self, endian="<"):
        tbuf = b""
        for name_off, info, st, extra in self.types:
            tbuf += struct.pack(endian + "3I", name_off, info, st)
            for fmt, *vals in extra:
                tbuf += struct.pack(endian + fmt, *vals)
        hdr = struct.pack(endian + "HBBI4I", 0xEB9F, 1, 0, 24,
                          0, len(tbuf), len(tbuf), len(self.strs))
        return hdr + tbuf + self.strs


def _sample_btf():
    """A hand-made BTF exercising every kind, with its expected render."""
    w = BtfWriter()
    i = w.int("int", 4, btfparse.INT_SIGNED)
    c = w.int("char", 1, btfparse.INT_SIGNED | btfparse.INT_CHAR)
    b = w.int("_Bool", 1, btfparse.INT_BOOL)
    odd = w.int("odd", 4, 0, bits=12, off=4)
    fl = w.add("float", "double", st=8)
    p = w.ref("ptr", i)
    cp = w.ref("const", p)
    pc = w.ref("ptr", w.ref("const", i))
    vol = w.ref("volatile", i)
    rst = w.ref("restrict", p)
    tt = w.ref("ptr", w.ref("type_tag", w.ref("type_tag", i, "a"), "b"))
    a3 = w.array(i, i, 3)
    a23 = w.array(a3, i, 2)
    pa = w.ref("ptr", a3)
    ap = w.array(p, i, 4)
    td = w.ref("typedef", a3, "row_t")
    atd = w.array(td, i, 2)
    e = w.enum("e", 4, [("A", 0), ("B", -1)], kflag=1)
    eu = w.enum("eu", 4, [("U", -1)])
    e64 = w.enum64("big", 8, [("X", -5), ("Y", 1 << 40)], kflag=1)
    e64u = w.enum64("bigu", 8, [("Z", (1 << 64) - 1)])
    fs = w.ref("fwd", 0, "fs")
    fu = w.add("fwd", "fu", kflag=1)
    anon_e = w.enum("", 1, [("Q", 2)])
    inner = w.struct("struct", "", 4, [("x", i, 0)])
    anon_u = w.struct("union", "", 4, [("", inner, 0), ("y", i, 0)])
    s = w.struct("struct", "s", 48, [
        ("a", i, (3 << 24) | 0), ("b", b, (1 << 24) | 3), ("c", c, 8),
        ("", anon_u, 32), ("d", a23, 64), ("pp", cp, 256),
        ("ae", anon_e, 320), ("self", w.ref("ptr", 0), 328)], kflag=1)
    dup = w.struct("struct", "dup", 4, [("x", i, 0)])
    w.struct("struct", "dup", 4, [("x", i, 0)])
    orphan = w.struct("struct", "", 8, [("o", w.struct(
        "struct", "", 4, [("n", i, 0)]), 0), ("v", vol, 32)])
    fp = w.proto(i, [("x", i), ("p", pc), ("", 0)])
    fpp = w.ref("ptr", w.proto(0, [("", rst), ("", tt)]))
    w.ref("typedef", fpp, "cb_t")
    w.ref("typedef", pa, "pa_t")
    w.ref("typedef", ap, "ap_t")
    w.ref("typedef", atd, "atd_t")
    w.ref("typedef", w.proto(0, []), "noargs_t")
    w.ref("typedef", odd, "odd_t")
    w.ref("typedef", fl, "dbl_t")
    w.ref("typedef", e, "e_t")
    w.ref("typedef", eu, "eu_t")
    w.ref("typedef", e64, "e64_t")
    w.ref("typedef", e64u, "e64u_t")
    w.ref("typedef", fs, "fs_t")
    w.ref("typedef", fu, "fu_t")
    f = w.add("func", "f", vlen=1, st=fp)
    w.add("func", "g", vlen=0, st=w.proto(0, []))
    v = w.add("var", "v", st=i, extra=[("I", 1)])
    w.add("var", "sv", st=orphan, extra=[("I", 0)])
    w.add("datasec", ".data", vlen=1, st=16, extra=[("3I", v, 8, 4)])
    w.add("decl_tag", "dt", st=s, extra=[("i", -1)])
    w.add("decl_tag", "mt", st=s, extra=[("i", 2)])
    w.add("decl_tag", "ft", st=f, extra=[("i", 1)])
    w.add("decl_tag", "vt", st=v, extra=[("i", -1)])
    w.add("decl_tag", "tdt", kflag=1, st=dup, extra=[("i", -1)])
    types = [
        "decl_tag dt on struct s",
        "decl_tag mt on struct s member c",
        "decl_tag tdt kflag=1 on struct dup",
        "enum e size=4 signed { A=0 B=-1 }",
        "enum eu size=4 unsigned { U=4294967295 }",
        "enum64 big size=8 signed { X=-5 Y=1099511627776 }",
        "enum64 bigu size=8 unsigned { Z=18446744073709551615 }",
        "float double size=8",
        "fwd struct fs",
        "fwd union fu",
        "int _Bool size=1 bool",
        "int char size=1 signed char",
        "int int size=4 signed",
        "int odd size=4 bits=12 bitoff=4",
        "struct (anon) size=8 { o struct size=4 { n int off=0; } off=0; "
        "v int volatile off=32; }",
        "struct dup size=4 { x int off=0; }",
        "struct dup size=4 { x int off=0; }",
        "struct s size=48 kflag=1 { a int bits=3 off=0; "
        "b _Bool bits=1 off=3; c char off=8; (anon) union size=4 { "
        "(anon) struct size=4 { x int off=0; } off=0; y int off=0; } "
        "off=32; d int[2][3] off=64; pp int * const off=256; "
        "ae enum size=1 unsigned { Q=2 } off=320; self void * off=328; }",
        "typedef ap_t = int *[4]",
        "typedef atd_t = row_t[2]",
        "typedef cb_t = void(int * restrict, int type_tag(a) type_tag(b) *) *",
        "typedef dbl_t = double",
        "typedef e64_t = enum big",
        "typedef e64u_t = enum bigu",
        "typedef e_t = enum e",
        "typedef eu_t = enum eu",
        "typedef fs_t = struct fs",
        "typedef fu_t = union fu",
        "typedef noargs_t = void(void)",
        "typedef odd_t = odd",
        "typedef pa_t = int[3] *",
        "typedef row_t = int[3]",
    ]
    others = [
        "datasec .data size=16 { v off=8 size=4; }",
        "decl_tag ft on func f param p",
        "decl_tag vt on var v",
        "func f global int(int x, int const *p, ...)",
        "func g static void(void)",
        "var sv static struct size=8 { o struct size=4 { n int off=0; } "
        "off=0; v int volatile off=32; }",
        "var v global int",
    ]
    return w, sorted(types), sorted(types + others)


def _diff(want, got):
    return "\n".join(difflib.unified_diff(want, got, "expected", "got",
                                          lineterm=""))


def test_btfparse_render(ctx):
    w, types, alls = _sample_btf()
    for endian in "<>":
        btf = btfparse.parse_raw(w.blob(endian))
        assert btfparse.render(btf, "types") == types, \
            _diff(types, btfparse.render(btf, "types"))
        assert btfparse.render(btf) == alls, _diff(alls, btfparse.render(btf))


def test_btfparse_split(ctx):
    for endian in "<>":
        bw = BtfWriter()
        i = bw.int("int", 4, btfparse.INT_SIGNED)
        bs = bw.struct("struct", "base_s", 4, [("x", i, 0)])
        base = btfparse.parse_raw(bw.blob(endian))
        sw = BtfWriter(base)
        p = sw.ref("ptr", bs)
        sw.struct("struct", "split_s", 16, [("b", p, 0), ("n", i, 64)])
        sw.ref("typedef", i, "x")
        split = btfparse.parse_raw(sw.blob(endian), base)
        assert split.start_id == 3, split.start_id
        assert split.type_by_id(3).kind == "ptr"
        assert split.type_by_id(2).name == "base_s"
        want = ["struct split_s size=16 { b struct base_s * off=0; "
                "n int off=64; }", "typedef x = int"]
        assert btfparse.render(split) == want, btfparse.render(split)


def _elf(sections, is64, endian, extended):
    """A minimal relocatable ELF with the given (name, bytes) sections."""
    e = endian
    names = b"\0"
    offs = []
    for n, _ in sections + [(".shstrtab", b"")]:
        offs.append(len(names))
        names += n.encode() + b"\0"
    secs = sections + [(".shstrtab", names)]
    ehsize, shentsize = (64, 64) if is64 else (52, 40)
    data = b""
    pos = ehsize
    shdrs = []
    for (n, body), noff in zip(secs, offs):
        shdrs.append((noff, 1, pos, len(body)))
        data += body
        pos += len(body)
    pad = (-pos) % 8
    data += b"\0" * pad
    shoff = pos + pad
    shnum = len(secs) + 1
    shstrndx = shnum - 1
    hdr_shnum = 0 if extended else shnum
    hdr_strndx = 0xFFFF if extended else shstrndx
    ident = b"\x7fELF" + bytes([2 if is64 else 1, 1 if e == "<" else 2, 1]) \
        + b"\0" * 9
    if is64:
        eh = ident + struct.pack(e + "HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff,
                                 0, ehsize, 0, 0, shentsize, hdr_shnum,
                                 hdr_strndx)
        fmt = e + "IIQQQQIIQQ"
    else:
        eh = ident + struct.pack(e + "HHIIIIIHHHHHH", 1, 3, 1, 0, 0, shoff,
                                 0, ehsize, 0, 0, shentsize, hdr_shnum,
                                 hdr_strndx)
        fmt = e + "10I"
    sh0 = struct.pack(fmt, 0, 0, 0, 0, 0, shnum if extended else 0,
                      shstrndx if extended else 0, 0, 0, 0)
    out = eh + data + sh0
    for noff, typ, off, size in shdrs:
        out += struct.pack(fmt, noff, typ, 0, 0, off, size, 0, 0, 1, 0)
    return out


def test_btfparse_elf(ctx):
    w, types, _ = _sample_btf()
    for is64 in (False, True):
        for endian in "<>":
            blob = w.blob(endian)
            for extended in (False, True):
                elf = _elf([(".text", b"\x90" * 3), (".BTF", blob),
                            (".data", b"xy")], is64, endian, extended)
                what = "ELF%d %s%s" % (64 if is64 else 32, endian,
                                       " extended" if extended else "")
                assert btfparse.elf_section(elf, ".data") == b"xy", what
                btf = btfparse.parse_elf(elf)
                assert btfparse.render(btf, "types") == types, what
    elf = _elf([(".text", b"")], True, "<", False)
    try:
        btfparse.parse_elf(elf)
    except btfparse.BtfError as e:
        assert ".BTF" in str(e)
    else:
        raise AssertionError("ELF without .BTF accepted")


def test_btfparse_malformed(ctx):
    """Truncations and corruptions raise BtfError, nothing else."""
    w, _, _ = _sample_btf()
    blob = w.blob("<")
    for n in range(0, len(blob), 7):
        try:
            btfparse.parse_raw(blob[:n])
        except btfparse.BtfError:
            pass
    bad = bytearray(blob)
    bad[24 + 7] = 0x1F            # first type: kind 31
    try:
        btfparse.parse_raw(bytes(bad))
    except btfparse.BtfError as e:
        assert "kind" in str(e), e
    else:
        raise AssertionError("unknown kind accepted")
    dangling = BtfWriter()
    dangling.ref("ptr", 2)
    for data in (dangling.blob(), b"\x7fELF\2\1\1" + b"\0" * 40,
                 b"junk" * 10):
        try:
            if data.startswith(b"\x7fELF"):
                btfparse.parse_elf(data)
            else:
                btfparse.parse_raw(data)
        except btfparse.BtfError:
            continue
        raise AssertionError("malformed input accepted: %r" % data[:16])


def _bpftool_dump(ctx, path):
    p = ctx.run(["bpftool", "btf", "dump", "file", path])
    assert p.returncode == 0, p.stderr
    out = []
    for ln in p.stdout.splitlines():
        m = re.match(r"^\[(\d+)\] (\w+) '([^']*)'", ln)
        if m:
            name = "" if m.group(3) == "(anon)" else m.group(3)
            out.append([int(m.group(1)), m.group(2).lower(), name, []])
        elif ln.startswith("\t") and out:
            out[-1][3].append(ln.strip())
    return out


def test_btfparse_vs_bpftool(ctx):
    """clang's BPF backend writes .BTF itself: our reading of it (both
    byte orders) must agree with bpftool's on every type and member."""
    if shutil.which("bpftool") is None or shutil.which("clang") is None:
        raise ctx.Skip("needs clang and bpftool")
    n = 0
    for name in _fixture_names():
        for target in ("bpfel", "bpfeb"):
            obj = ctx.fixture(name, "clang", 5, extra=("--target=" + target,))
            btf = ctx.btf(obj)
            assert btf.endian == ("<" if target == "bpfel" else ">")
            ref = _bpftool_dump(ctx, obj)
            assert len(ref) == len(btf.types), (name, target)
            for (rid, rkind, rname, rsub), t in zip(ref, btf.types):
                assert (rid, rkind, rname) == (t.id, t.kind, t.name), \
                    (name, target, rid, rkind, rname, t)
                if t.kind in ("struct", "union"):
                    mine = []
                    for mn, mt, mo in t.members:
                        bits, off = (mo >> 24, mo & 0xFFFFFF) if t.kflag \
                            else (0, mo)
                        s = "'%s' type_id=%d bits_offset=%d" % (
                            mn or "(anon)", mt, off)
                        if bits:
                            s += " bitfield_size=%d" % bits
                        mine.append(s)
                    assert mine == rsub, (name, target, mine, rsub)
                elif t.kind in ("enum", "enum64"):
                    val_re = r"'([^']*)' val=(-?\d+)(?:U?LL)?$"
                    vals = [re.match(val_re, x).groups() for x in rsub]
                    assert [(a, int(v)) for a, v in vals] == t.values, \
                        (name, target, vals, t.values)
                n += 1
    assert n > 100, n
