# SPDX-License-Identifier: GPL-2.0-only
"""DWARF as real builds ship it: LTO (gcc's early-debug units,
clang's DW_FORM_ref_addr across units), dwz (partial units in the file; a
supplementary file named by .gnu_debugaltlink or DWARF 5's .debug_sup) and
split DWARF (.dwo files).

Each layout of a program must give the BTF of its plain build: `dwarf2btf
diff` finds nothing.  LTO changes what the DWARF holds, so the LTO builds
of tests/fixtures/lto_*.c are checked against tests/fixtures/lto.<cc>.expect,
what upstream pahole 1.31 encodes from the same binaries (with
DWARF2BTF_TEST_ENCODER=pahole these tests run a pahole instead, which is
how the expectations were checked).  What is not found (a supplementary
file, a .dwo) is one line, exit 1, nothing written.  Separate debug files:
test_debugfile.py.
"""
import os
import shutil

import btfparse
import test_types

# An inline function of the header, inlined in both units and out of line
# in the first (dwz moves its abstract instance, and the union declared in
# it, out of the units that refer to it).
HEADER = "".join(
    "struct s%d { int a%d; long b%d; char c%d[%d]; struct s%d *next; };\n"
    % (i, i, i, i, i + 1, i) for i in range(40)) + """
static inline long shared_inl(struct s1 *p, long k)
{
	union { long v; char c[1]; } u = { .v = k };
	return p->b1 * u.v + u.c[0];
}
"""
U1 = '#include "common.h"\n' + "".join(
    "int f%d(struct s%d *p) { return p->a%d; }\n" % (i, i, i)
    for i in range(40)) + \
    "long (*u1_ptr)(struct s1 *, long) = shared_inl;\n" \
    "long u1_inl(struct s1 *p) { return shared_inl(p, 3); }\n" \
    "int main(void) { return 0; }\n"
U2 = '#include "common.h"\n' + "".join(
    "long g%d(struct s%d *p) { return p->b%d; }\n" % (i, i, i)
    for i in range(40)) + \
    "long u2_inl(struct s1 *p) { return shared_inl(p, 5); }\n"
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")


def _need(ctx, tool):
    if not shutil.which(tool):
        raise ctx.Skip("%s not installed" % tool)


def _sources(ctx):
    for name, text in (("common.h", HEADER), ("u1.c", U1), ("u2.c", U2)):
        with open(os.path.join(ctx.tmp, name), "w") as f:
            f.write(text)
    return [os.path.join(ctx.tmp, "u1.c"), os.path.join(ctx.tmp, "u2.c")]


def _link(ctx, name, cc, flags, srcs=None, cwd=None):
    _need(ctx, cc)
    out = os.path.join(ctx.tmp, name)
    if cc == "clang" and any(f.startswith("-flto") for f in flags):
        _need(ctx, "ld.lld")
        flags = flags + ["-fuse-ld=lld"]
    p = ctx.run([cc, "-g", "-O2"] + flags + ["-o", out] +
                (srcs or _sources(ctx)), cwd=cwd or ctx.tmp)
    assert p.returncode == 0, (cc, flags, p.stderr[:2000])
    return out


def _encode(ctx, path, out, *extra):
    p = ctx.run([ctx.bin, "--btf_features=default"] + list(extra) +
                ["-o", out, path])
    assert p.returncode == 0 and not p.stderr, (path, p.returncode,
                                                 p.stderr)
    return out


def _same_btf(ctx, plain, other, *extra, only_plain=()):
    """``other`` (a layout of ``plain``) encodes to the same BTF; types
    that only ``plain``'s DWARF has may be named in ``only_plain``."""
    a = _encode(ctx, plain, plain + ".btf")
    b = _encode(ctx, other, other + ".btf", *extra)
    p = ctx.run([ctx.bin, "diff", a, b])
    diff = [ln for ln in p.stdout.splitlines()
            if ln[:2] in ("- ", "+ ") and ln[2:] not in only_plain]
    assert p.returncode in (0, 1) and not diff, \
        "%s vs %s:\n%s" % (plain, other, p.stdout)
    # and not two empty outputs
    lines = btfparse.render(ctx.btf(b), "all")
    assert len(lines) > 40, other
    return lines


def _dies(ctx, path, tag):
    p = ctx.run(["readelf", "--debug-dump=info", path])
    return p.stdout.count(tag)


def _refused(ctx, path, words, *extra):
    out = os.path.join(ctx.tmp, "refused.btf")
    before = open(path, "rb").read()
    p = ctx.run([ctx.bin] + list(extra) + ["-o", out, path])
    assert p.returncode == 1, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dwarf2btf: " + path), \
        p.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not os.path.exists(out)
    p = ctx.run([ctx.bin] + list(extra) + [path])    # in place: unchanged
    assert p.returncode == 1, p.stderr
    assert open(path, "rb").read() == before


# --- LTO ------------------------------------------------------------------

LTO_BUILDS = [("gcc", "plain", []), ("gcc", "lto", ["-flto"]),
              ("clang", "plain", []), ("clang", "lto", ["-flto"]),
              ("clang", "thinlto", ["-flto=thin"])]


def _check_lto(ctx, cc, kind, flags, dwarf):
    srcs = [os.path.join(FIXTURES, "lto_a.c"),
            os.path.join(FIXTURES, "lto_b.c")]
    prog = _link(ctx, "lto", cc, flags + ["-gdwarf-%d" % dwarf], srcs)
    # the case under test: DWARF that refers across units
    abbrevs = ctx.run(["readelf", "--debug-dump=abbrev", prog]).stdout
    assert ("DW_FORM_ref_addr" in abbrevs) == (kind != "plain"), prog
    out = os.path.join(ctx.tmp, "lto.btf")
    os.environ.setdefault("DWARF2BTF_TEST_ENCODER", "")
    if os.environ["DWARF2BTF_TEST_ENCODER"] == "pahole":
        test_types.encode(ctx, prog, out)
    else:
        _encode(ctx, prog, out)
    got = btfparse.render(ctx.btf(out), "all")
    want = test_types.expected_lines("lto", cc, dwarf)
    assert got == want, "%s %s DWARF %d:\n%s" % (
        cc, kind, dwarf, "\n".join(
            ["- " + x for x in sorted(set(want) - set(got))] +
            ["+ " + x for x in sorted(set(got) - set(want))]))
    if kind != "plain" and os.environ["DWARF2BTF_TEST_ENCODER"] != "pahole":
        j1 = _encode(ctx, prog, out + ".j1", "-j1")
        j2 = _encode(ctx, prog, out + ".j2", "-j2")
        assert open(j1, "rb").read() == open(j2, "rb").read()


def _make_lto_test(cc, kind, flags, dwarf):
    def test(ctx):
        _check_lto(ctx, cc, kind, flags, dwarf)
    test.__name__ = "test_lto_%s_%s_dwarf%d" % (cc, kind, dwarf)
    return test


for _cc, _kind, _flags in LTO_BUILDS:
    for _dwarf in (4, 5):
        _t = _make_lto_test(_cc, _kind, _flags, _dwarf)
        globals()[_t.__name__] = _t


# --- dwz ------------------------------------------------------------------

def test_dwz_partial_units(ctx):
    """dwz in place: DW_TAG_partial_unit + DW_TAG_imported_unit.  (dwz
    0.15 cannot rewrite clang's DWARF 5: .debug_addr.)"""
    _need(ctx, "dwz")
    for cc, dwarf in (("gcc", 4), ("gcc", 5), ("clang", 4)):
        plain = _link(ctx, "p-%s%d" % (cc, dwarf), cc, ["-gdwarf-%d" % dwarf])
        prog = _link(ctx, "d-%s%d" % (cc, dwarf), cc,
                     ["-gdwarf-%d" % dwarf])
        p = ctx.run(["dwz", prog])
        assert p.returncode == 0, p.stderr
        assert _dies(ctx, prog, "DW_TAG_partial_unit") >= 1, (cc, dwarf)
        _same_btf(ctx, plain, prog)


def _multifile(ctx, dwarf, cc="gcc", name=None):
    """Two programs after `dwz -m`: (plain a, dwz'd a, plain b, dwz'd b,
    the supplementary file)."""
    _need(ctx, "dwz")
    progs = []
    for x in ("a", "b"):
        flags = ["-gdwarf-%d" % dwarf] + (["-DB"] if x == "b" else [])
        progs.append(_link(ctx, "%s%d-plain" % (x, dwarf), cc, flags))
        progs.append(_link(ctx, "%s%d" % (x, dwarf), cc, flags))
    common = name or os.path.join(ctx.tmp, "common%d.debug" % dwarf)
    p = ctx.run(["dwz"] + (["-5"] if dwarf == 5 else []) +
                ["-m", common, "-M", common, progs[1], progs[3]],
                cwd=ctx.tmp)
    assert p.returncode == 0, p.stderr
    return progs + [os.path.join(ctx.tmp, common)]


def test_dwz_multifile(ctx):
    """dwz -m: .gnu_debugaltlink (DWARF 4) and .debug_sup (DWARF 5, with
    DW_FORM_ref_sup4, which libdw 0.188 looks up in the wrong file)."""
    for dwarf, cc in ((4, "gcc"), (5, "gcc"), (4, "clang")):
        a0, a, b0, b, common = _multifile(ctx, dwarf, cc)
        sec = ".debug_sup" if dwarf == 5 else ".gnu_debugaltlink"
        assert btfparse.elf_section(open(a, "rb").read(), sec), sec
        common_dies = ctx.run(["readelf", "--debug-dump=info",
                               common]).stdout
        if cc == "gcc":     # the case of an abstract instance moved out
            assert "DW_AT_inline" in common_dies, common
        lines = _same_btf(ctx, a0, a)
        assert [ln for ln in lines if ln.startswith("func shared_inl ")]
        _same_btf(ctx, b0, b)
        j1 = _encode(ctx, a, a + ".j1", "-j1")
        j2 = _encode(ctx, a, a + ".j2", "-j2")
        assert open(j1, "rb").read() == open(j2, "rb").read()
        for f in (a, b, common):
            os.unlink(f)


def test_dwz_alt_file_search(ctx):
    """The supplementary file: by the link's relative name (beside the
    input), by build-id below --debug-root, by --alt-file; missing or
    another file: one line saying where it looked."""
    a0, a, b0, b, common = _multifile(ctx, 4, name="common4.debug")
    _same_btf(ctx, a0, a)               # relative name, beside the input
    moved = os.path.join(ctx.tmp, "elsewhere.debug")
    os.rename(common, moved)
    _refused(ctx, a, ["no dwz supplementary file", ".gnu_debugaltlink",
                      "common4.debug: no such file", ".build-id/"])
    _same_btf(ctx, a0, a, "--alt-file", moved)
    # the build-id layout of a debug root
    note = ctx.run(["readelf", "-n", moved]).stdout
    bid = [ln.split()[-1] for ln in note.splitlines()
           if "Build ID" in ln][0]
    root = os.path.join(ctx.tmp, "root")
    os.makedirs(os.path.join(root, ".build-id", bid[:2]))
    shutil.copy(moved, os.path.join(root, ".build-id", bid[:2],
                                    bid[2:] + ".debug"))
    _same_btf(ctx, a0, a, "--debug-root", root)
    # a supplementary file of other programs
    other = _multifile(ctx, 5, name="other5.debug")[4]
    _refused(ctx, a, ["--alt-file " + other, "another build-id"],
             "--alt-file", other)


def test_dwz_altlink_malformed(ctx):
    """A .gnu_debugaltlink without its NUL cannot name anything."""
    _need(ctx, "objcopy")
    a0, a, b0, b, common = _multifile(ctx, 4)
    bad = os.path.join(ctx.tmp, "bad-link")
    with open(bad, "wb") as f:
        f.write(b"x" * 40)
    p = ctx.run(["objcopy", "--update-section",
                 ".gnu_debugaltlink=" + bad, a])
    assert p.returncode == 0, p.stderr
    _refused(ctx, a, ["dwz supplementary file", "malformed"])


# --- split DWARF ----------------------------------------------------------

CLANG5_LOC_TYPES = (
    "int DW_ATE_unsigned_64 (size 8, bits 64, unsigned)",
    "int DW_ATE_unsigned_8 (size 1, bits 8, unsigned)",
    "int __SANITIZED_FAKE_INT__ (size 4, bits 32, unsigned)",
)


def test_split_dwarf(ctx):
    """-gsplit-dwarf: skeleton units, their units in .dwo files (gcc's
    DWARF 4 GNU extension, and DWARF 5)."""
    for cc, dwarf in (("gcc", 4), ("gcc", 5), ("clang", 4), ("clang", 5)):
        plain = _link(ctx, "p-%s%d" % (cc, dwarf), cc,
                      ["-gdwarf-%d" % dwarf])
        prog = _link(ctx, "s-%s%d" % (cc, dwarf), cc,
                     ["-gdwarf-%d" % dwarf, "-gsplit-dwarf"])
        assert [f for f in os.listdir(ctx.tmp) if f.endswith(".dwo")]
        # clang's DWARF 5 location expressions name base types of their
        # own (DW_OP_convert), which its .dwo files do not carry
        _same_btf(ctx, plain, prog, only_plain=CLANG5_LOC_TYPES
                  if (cc, dwarf) == ("clang", 5) else ())
        j1 = _encode(ctx, prog, prog + ".j1", "-j1")
        j2 = _encode(ctx, prog, prog + ".j2", "-j2")
        assert open(j1, "rb").read() == open(j2, "rb").read()
        for f in os.listdir(ctx.tmp):
            if f.endswith(".dwo"):
                os.unlink(os.path.join(ctx.tmp, f))


def test_split_dwarf_missing(ctx):
    """A .dwo not found: the unit, its name and where libdw looked.  A
    DWARF package beside the input is named when libdw cannot read it
    (before 0.191); one that can gives the plain BTF."""
    plain = _link(ctx, "plain", "gcc", ["-gdwarf-5"])
    prog = _link(ctx, "prog", "gcc", ["-gdwarf-5", "-gsplit-dwarf"])
    dwos = sorted(f for f in os.listdir(ctx.tmp) if f.endswith(".dwo"))
    assert dwos
    dwp = shutil.which("llvm-dwp-19") or shutil.which("llvm-dwp")
    if dwp:
        p = ctx.run([dwp, "-e", prog, "-o", prog + ".dwp"], cwd=ctx.tmp)
        assert p.returncode == 0, p.stderr
    for f in dwos:
        os.unlink(os.path.join(ctx.tmp, f))
    if not dwp:
        _refused(ctx, prog, ["prog-u1.dwo not found",
                             ctx.tmp])
        raise ctx.Skip("no llvm-dwp: the .dwp case was not run")
    out = os.path.join(ctx.tmp, "dwp.btf")
    p = ctx.run([ctx.bin, "-o", out, prog])
    if p.returncode == 0:       # a libdw that reads packages
        _same_btf(ctx, plain, prog)
        return
    _refused(ctx, prog, ["prog-u1.dwo not found",
                         "cannot read the DWARF package " + prog + ".dwp",
                         "0.191"])
    os.unlink(prog + ".dwp")
    _refused(ctx, prog, ["prog-u1.dwo not found",
                         ctx.tmp])
