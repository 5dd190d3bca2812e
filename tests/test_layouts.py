# SPDX-License-Identifier: GPL-2.0-only
"""DWARF layouts not read yet (issue 16): dwz (partial units, a
supplementary file by .gnu_debugaltlink or DWARF 5's .debug_sup), gcc LTO
and split DWARF must be refused with one line, exit 1 and nothing written,
never encoded with types missing.  (Separate debug files are read:
test_debugfile.py.)
"""
import os
import shutil

HEADER = "".join(
    "struct s%d { int a%d; long b%d; char c%d[%d]; struct s%d *next; };\n"
    % (i, i, i, i, i + 1, i) for i in range(40))
U1 = '#include "common.h"\n' + "".join(
    "int f%d(struct s%d *p) { return p->a%d; }\n" % (i, i, i)
    for i in range(40)) + "int main(void) { return 0; }\n"
U2 = '#include "common.h"\n' + "".join(
    "long g%d(struct s%d *p) { return p->b%d; }\n" % (i, i, i)
    for i in range(40))


def _sources(ctx):
    for name, text in (("common.h", HEADER), ("u1.c", U1), ("u2.c", U2)):
        with open(os.path.join(ctx.tmp, name), "w") as f:
            f.write(text)
    return [os.path.join(ctx.tmp, "u1.c"), os.path.join(ctx.tmp, "u2.c")]


def _link(ctx, name, flags):
    out = os.path.join(ctx.tmp, name)
    p = ctx.run(["gcc", "-g", "-O2"] + flags + ["-o", out] + _sources(ctx))
    if p.returncode:
        raise ctx.Skip("gcc %s: %s" % (" ".join(flags), p.stderr[:200]))
    return out


def _need(ctx, tool):
    if not shutil.which(tool):
        raise ctx.Skip("%s not installed" % tool)


def _refused(ctx, path, words):
    out = os.path.join(ctx.tmp, "out.btf")
    before = open(path, "rb").read()
    p = ctx.run([ctx.bin, "-o", out, path])
    assert p.returncode == 1, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dwarf2btf: " + path), \
        p.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not os.path.exists(out)
    p = ctx.run([ctx.bin, path])        # in place: the file stays as it was
    assert p.returncode == 1, p.stderr
    assert open(path, "rb").read() == before


def test_dwz_partial_units(ctx):
    _need(ctx, "dwz")
    prog = _link(ctx, "prog", [])
    p = ctx.run(["dwz", prog])
    assert p.returncode == 0, p.stderr
    _refused(ctx, prog, ["DW_TAG_imported_unit", "DIE 0x"])


def test_dwz_multifile(ctx):
    """dwz -m: a supplementary file named by .gnu_debugaltlink (DWARF 4)
    or by .debug_sup (DWARF 5, dwz -5)."""
    _need(ctx, "dwz")
    for dwarf, sec in ((4, ".gnu_debugaltlink"), (5, ".debug_sup")):
        a = _link(ctx, "a%d" % dwarf, ["-gdwarf-%d" % dwarf])
        b = _link(ctx, "b%d" % dwarf, ["-gdwarf-%d" % dwarf, "-DB"])
        common = os.path.join(ctx.tmp, "common%d.debug" % dwarf)
        cmd = ["dwz"] + (["-5"] if dwarf == 5 else []) + \
            ["-m", common, "-M", common, a, b]
        p = ctx.run(cmd)
        assert p.returncode == 0, p.stderr
        _refused(ctx, a, ["dwz supplementary file", sec])


def test_gcc_lto(ctx):
    prog = _link(ctx, "lto", ["-flto"])
    _refused(ctx, prog, ["another unit (LTO or dwz)", "DIE 0x"])


def test_split_dwarf(ctx):
    prog = _link(ctx, "split", ["-gsplit-dwarf"])
    _refused(ctx, prog, ["no DWARF compilation units"])
