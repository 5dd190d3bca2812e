# SPDX-License-Identifier: GPL-2.0-only
"""Separate debug info: a stripped file whose DWARF and .symtab are in a
debug file, found by --debuginfo, by build-id below --debug-root, or by
.gnu_debuglink (its CRC-32 checked), gives the very BTF of the unstripped
file; what cannot be found is one error line, and nothing is written.
"""
import os
import shutil
import struct
import zlib

from test_output import Elf

FIXTURE = "kfuncs"	# functions, a .BTF_ids kfunc set, a main()


def _build_id(path):
    """The build-id note's bytes, as hex, from readelf."""
    e = Elf(path)
    for s in e.secs:
        if s["type"] != 7:          # SHT_NOTE
            continue
        b = e.data(s)
        off = 0
        while off + 12 <= len(b):
            nsz, dsz, typ = struct.unpack_from("<III", b, off)
            name = b[off + 12:off + 12 + nsz]
            doff = off + 12 + ((nsz + 3) & ~3)
            if typ == 3 and name == b"GNU\0":
                return b[doff:doff + dsz].hex()
            off = doff + ((dsz + 3) & ~3)
    return None


class Split:
    """A linked fixture, its BTF, and a stripped copy with its debug file
    moved aside."""

    def __init__(self, ctx, cc, dwarf, strip="--strip-all"):
        prog = ctx.link(FIXTURE, cc, dwarf, ("-Wl,--build-id",))
        self.dir = os.path.join(ctx.tmp, "%s%d" % (cc, dwarf))
        os.makedirs(self.dir)
        self.full = shutil.copy(prog, os.path.join(self.dir, "full"))
        self.want = self.full + ".btf"
        p = ctx.run([ctx.bin, "-o", self.want, self.full])
        assert p.returncode == 0, p.stderr
        self.debug = os.path.join(self.dir, "prog.debug")
        self.prog = os.path.join(self.dir, "prog")
        for cmd in (["objcopy", "--only-keep-debug", self.full, self.debug],
                    ["objcopy", strip, self.full, self.prog]):
            p = ctx.run(cmd)
            assert p.returncode == 0, p.stderr
        assert not Elf(self.prog).sec(".debug_info")
        self.id = _build_id(self.full)
        assert self.id, "no build-id"

    def link(self, ctx):
        """Add a .gnu_debuglink to the debug file as it is now."""
        p = ctx.run(["objcopy", "--add-gnu-debuglink=" + self.debug,
                     self.prog, self.prog + ".l"])
        assert p.returncode == 0, p.stderr
        os.replace(self.prog + ".l", self.prog)


def _same(ctx, s, args, where):
    out = os.path.join(ctx.tmp, "out.btf")
    p = ctx.run([ctx.bin, "--debug-root", os.path.join(ctx.tmp, "none"),
                 "-o", out] + args + [s.prog])
    assert p.returncode == 0 and not p.stderr, (where, p.stderr)
    assert open(out, "rb").read() == open(s.want, "rb").read(), where
    os.unlink(out)


def _fails(ctx, s, args, words):
    """Exit 1, one line naming the input and @words, nothing written."""
    out = os.path.join(ctx.tmp, "out.btf")
    before = open(s.prog, "rb").read()
    p = ctx.run([ctx.bin, "-o", out] + args + [s.prog])
    assert p.returncode == 1, (p.returncode, p.stderr)
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("dwarf2btf: " + s.prog), \
        p.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not os.path.exists(out)
    assert open(s.prog, "rb").read() == before
    return lines[0]


def _layouts(ctx, cc, dwarf):
    s = Split(ctx, cc, dwarf)
    # build-id below the debug root
    root = os.path.join(ctx.tmp, "root")
    bid = os.path.join(root, ".build-id", s.id[:2], s.id[2:] + ".debug")
    os.makedirs(os.path.dirname(bid))
    shutil.copy(s.debug, bid)
    out = os.path.join(ctx.tmp, "bid.btf")
    p = ctx.run([ctx.bin, "--debug-root", root, "-o", out, s.prog])
    assert p.returncode == 0 and not p.stderr, p.stderr
    assert open(out, "rb").read() == open(s.want, "rb").read()
    shutil.rmtree(root)
    # given
    _same(ctx, s, ["--debuginfo", s.debug], "--debuginfo")
    # .gnu_debuglink: beside it, in .debug/, below the root
    s.link(ctx)
    _same(ctx, s, [], "debuglink beside")
    os.makedirs(os.path.join(s.dir, ".debug"))
    moved = os.path.join(s.dir, ".debug", "prog.debug")
    os.replace(s.debug, moved)
    _same(ctx, s, [], "debuglink in .debug/")
    rooted = os.path.join(ctx.tmp, "root2") + os.path.realpath(s.dir)
    os.makedirs(rooted)
    os.replace(moved, os.path.join(rooted, "prog.debug"))
    p = ctx.run([ctx.bin, "--debug-root", os.path.join(ctx.tmp, "root2"),
                 "-o", os.path.join(ctx.tmp, "r.btf"), s.prog])
    assert p.returncode == 0 and not p.stderr, p.stderr
    assert open(os.path.join(ctx.tmp, "r.btf"), "rb").read() == \
        open(s.want, "rb").read()
    os.replace(os.path.join(rooted, "prog.debug"), s.debug)
    # in place: the stripped file gets exactly that .BTF, and still runs
    p = ctx.run([ctx.bin, "--debug-root", os.path.join(ctx.tmp, "none"),
                 s.prog])
    assert p.returncode == 0 and not p.stderr, p.stderr
    e = Elf(s.prog)
    assert e.data(e.sec(".BTF")) == open(s.want, "rb").read()
    assert ctx.run([s.prog]).returncode == ctx.run([s.full]).returncode


def test_debugfile_gcc_dwarf4(ctx):
    _layouts(ctx, "gcc", 4)


def test_debugfile_gcc_dwarf5(ctx):
    _layouts(ctx, "gcc", 5)


def test_debugfile_clang_dwarf4(ctx):
    _layouts(ctx, "clang", 4)


def test_debugfile_clang_dwarf5(ctx):
    _layouts(ctx, "clang", 5)


def test_debugfile_strip_debug(ctx):
    """strip -g keeps .symtab in the input; the debug file's is read."""
    s = Split(ctx, "gcc", 5, strip="--strip-debug")
    s.link(ctx)
    _same(ctx, s, [], "strip -g")


def test_debugfile_errors(ctx):
    s = Split(ctx, "gcc", 5)
    none = os.path.join(ctx.tmp, "none")
    # nothing to find it by: the build-id path tried is named
    _fails(ctx, s, ["--debug-root", none],
           ["no DWARF", "build-id " + s.id, none])
    # a debuglink whose file changed since (another CRC)
    s.link(ctx)
    with open(s.debug, "ab") as f:
        f.write(b"\0")
    _fails(ctx, s, ["--debug-root", none], ["prog.debug", "another CRC"])
    # --debuginfo: missing, not ELF, no DWARF, another build-id
    _fails(ctx, s, ["--debuginfo", none], ["no such file"])
    _fails(ctx, s, ["--debuginfo", s.want], ["not an ELF file"])
    _fails(ctx, s, ["--debuginfo", s.prog], ["no DWARF in it"])
    other = Split(ctx, "clang", 5)
    _fails(ctx, s, ["--debuginfo", other.debug], ["another build-id"])
    # one debug file for several inputs: a usage error
    p = ctx.run([ctx.bin, "--debuginfo", s.debug, "-o", ctx.tmp, s.prog,
                 other.prog])
    assert p.returncode == 2, p.stderr


def _set_debuglink(ctx, s, payload):
    """Replace the .gnu_debuglink section's bytes with @payload."""
    blob = os.path.join(ctx.tmp, "link.bin")
    with open(blob, "wb") as f:
        f.write(payload)
    p = ctx.run(["objcopy", "--remove-section=.gnu_debuglink",
                 "--add-section", ".gnu_debuglink=" + blob, s.prog,
                 s.prog + ".l"])
    assert p.returncode == 0, p.stderr
    os.replace(s.prog + ".l", s.prog)


def test_debugfile_bad_debuglink(ctx):
    """Malformed .gnu_debuglink sections: said so, never read past."""
    s = Split(ctx, "gcc", 5)
    none = os.path.join(ctx.tmp, "none")
    crc = zlib.crc32(open(s.debug, "rb").read())
    for payload in (b"", b"prog.debug",             # no NUL
                    b"prog.debug\0\0",              # no CRC
                    b"\0\0\0\0" + struct.pack("<I", crc),   # no name
                    b"../x/prog.debug\0" + struct.pack("<I", crc),
                    b"a" * 300 + b"\0" * 4 + struct.pack("<I", crc)):
        _set_debuglink(ctx, s, payload)
        _fails(ctx, s, ["--debug-root", none], ["bad .gnu_debuglink"])
    # well formed: found
    _set_debuglink(ctx, s, b"prog.debug\0\0" + struct.pack("<I", crc))
    _same(ctx, s, [], "hand-made debuglink")
