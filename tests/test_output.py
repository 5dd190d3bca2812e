# SPDX-License-Identifier: GPL-2.0-only
"""Tests of the output stage, src/output/out_file.c and output_elf.c (raw BTF
files and .BTF ELF sections).

These build tests/unit/test_output.c with those two files under
ASan+UBSan into ctx.tmp and drive that, to reach every case directly.
Run: python3 tests/run.py -k test_output
"""
import errno
import os
import random
import shutil
import signal
import stat
import struct
import subprocess
import tempfile

import sanitizer

SHT_PROGBITS, SHT_NOBITS, SHT_STRTAB = 1, 8, 3


# ---------------------------------------------------------------- helpers

def _sh(cmd, check=True, **kw):
    """Run @cmd, return CompletedProcess (text mode)."""
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600,
                       **kw)
    if check and p.returncode:
        raise AssertionError("%s failed (%d): %s" % (
            " ".join(map(str, cmd)), p.returncode, p.stderr.strip()))
    return p


def _have(tool):
    return shutil.which(tool) is not None


def _build(ctx):
    """The unit program, built with sanitizers into ctx.tmp."""
    exe = os.path.join(ctx.tmp, "test_output")
    root = str(ctx.root)
    flags = _sh(["pkg-config", "--cflags", "--libs", "libelf"]).stdout.split()
    _sh([os.environ.get("CC", "cc"), "-std=gnu11", "-O1", "-g",
         "-I" + os.path.join(root, "src"),
         "-Wall", "-Wextra", "-Wno-unused-parameter", "-Werror",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=undefined",
         "-fno-omit-frame-pointer",
         os.path.join(root, "tests", "unit", "test_output.c"),
         os.path.join(root, "src", "output", "out_file.c"),
         os.path.join(root, "src", "output", "out_precopy.c"),
         os.path.join(root, "src", "output", "output_elf.c"),
         os.path.join(root, "src", "lib", "grow.c"), "-o", exe] +
        flags + ["-pthread"])
    return exe


def _run(exe, *args, env=None, prefix=(), cwd=None):
    """Run the unit program; return (errno, stderr).  Sanitizer reports
    fail the test, and so does anything but one line on failure."""
    e = dict(os.environ)
    e.pop("DWARF2BTF_FAULT_WRITE", None)
    e.setdefault("ASAN_OPTIONS", "detect_leaks=1")
    e.setdefault("UBSAN_OPTIONS", "print_stacktrace=1")
    if env:
        e.update(env)
    p = _sh(list(prefix) + [exe] + [str(a) for a in args], check=False,
            env=e, cwd=cwd)
    if sanitizer.report(p.stderr):
        raise AssertionError("sanitizer: %s" % p.stderr)
    lines = p.stderr.splitlines()
    if p.returncode == 0 and lines:
        raise AssertionError("output on success: %r" % p.stderr)
    if p.returncode:
        if p.returncode >= 100:
            raise AssertionError("unit program crashed: %d %s"
                                 % (p.returncode, p.stderr))
        if len(lines) != 1 or not lines[0].startswith("dwarf2btf: "):
            raise AssertionError("want one error line, got %r" % p.stderr)
    return p.returncode, p.stderr


def _write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _data(n, seed=1):
    return random.Random(seed).randbytes(n)


def _ls(d):
    return sorted(os.listdir(d))


def _compile(ctx, cc, src, out, args=("-c",)):
    """Compile C source text @src with @cc; Skip when @cc can't."""
    if not _have(cc):
        raise ctx.Skip("%s not installed" % cc)
    cpath = out + ".c"
    _write(cpath, src.encode())
    p = _sh([cc] + list(args) + [cpath, "-o", out], check=False)
    if p.returncode:
        raise ctx.Skip("%s %s cannot compile: %s" % (
            cc, " ".join(args), p.stderr.strip()[:200]))
    return out


PROG = r"""
#include <stdio.h>
struct foo { int a; long b; };
int g(struct foo *f) { return f->a; }
int main(void) { struct foo f = {1, 2}; printf("hi %d\n", g(&f)); return 0; }
"""

# No #include: cross targets have no libc headers here.
FREESTANDING = r"""
struct foo { int a; long b; char c[3]; };
struct foo gv = { 1, 2, "xy" };
static int helper(struct foo *f) { return f->a + (int)f->b; }
int entry(struct foo *f) { return helper(f) + gv.c[0]; }
"""


class Elf:
    """Just enough ELF parsing to check the result independently of
    libelf and binutils (any class, byte order, extended numbering)."""

    def __init__(self, path):
        b = self.b = _read(path)
        assert b[:4] == b"\x7fELF", "%s: not ELF" % path
        self.cls, self.enc = b[4], b[5]
        e = "<" if self.enc == 1 else ">"
        if self.cls == 2:
            h = struct.unpack_from(e + "HHIQQQIHHHHHH", b, 16)
            self.shfmt, self.phfmt = e + "IIQQQQIIQQ", e + "IIQQQQQQ"
        else:
            h = struct.unpack_from(e + "HHIIIIIHHHHHH", b, 16)
            self.shfmt, self.phfmt = e + "IIIIIIIIII", e + "IIIIIIII"
        (self.type, _, _, _, self.phoff, self.shoff, _, self.ehsize,
         self.phentsize, self.e_phnum, self.shentsize, self.e_shnum,
         self.e_shstrndx) = h
        keys = ("name", "type", "flags", "addr", "offset", "size", "link",
                "info", "addralign", "entsize")
        self.secs = []
        if self.shoff:
            assert self.shentsize == struct.calcsize(self.shfmt)
            s0 = dict(zip(keys, struct.unpack_from(self.shfmt, b,
                                                   self.shoff)))
            n = self.e_shnum or s0["size"]
            assert self.shoff + n * self.shentsize <= len(b), "shdrs past EOF"
            for i in range(n):
                self.secs.append(dict(zip(keys, struct.unpack_from(
                    self.shfmt, b, self.shoff + i * self.shentsize))))
            self.shstrndx = (s0["link"] if self.e_shstrndx == 0xffff
                             else self.e_shstrndx)
            st = self.secs[self.shstrndx]
            for s in self.secs:
                o = st["offset"] + s["name"]
                s["sname"] = b[o:b.index(b"\0", o)].decode()
        self.phdrs = []
        for i in range(self.e_phnum):
            o = self.phoff + i * self.phentsize
            v = struct.unpack_from(self.phfmt, b, o)
            if self.cls == 2:
                off, filesz = v[2], v[5]
            else:
                off, filesz = v[1], v[4]
            self.phdrs.append((b[o:o + self.phentsize], off, filesz))

    def sec(self, name):
        got = [s for s in self.secs if s.get("sname") == name]
        return got[0] if got else None

    def data(self, s):
        if s["type"] == SHT_NOBITS:
            return b""
        return self.b[s["offset"]:s["offset"] + s["size"]]

    def check_layout(self):
        """No two things in the file overlap; everything is inside."""
        spans = [(0, self.ehsize, "ehdr")]
        if self.e_phnum:
            spans.append((self.phoff, self.phoff +
                          self.e_phnum * self.phentsize, "phdrs"))
        spans.append((self.shoff, self.shoff + len(self.secs) *
                      self.shentsize, "shdrs"))
        for i, s in enumerate(self.secs[1:], 1):
            if s["type"] not in (0, SHT_NOBITS) and s["size"]:
                spans.append((s["offset"], s["offset"] + s["size"],
                              s["sname"] or str(i)))
        spans.sort()
        for a, b in zip(spans, spans[1:]):
            if a[1] > b[0]:
                raise AssertionError("%s overlaps %s" % (a[2], b[2]))
        if spans[-1][1] > len(self.b):
            raise AssertionError("%s past end of file" % spans[-1][2])
        align = 8 if self.cls == 2 else 4
        assert self.shoff % align == 0, "misaligned section headers"


def _check_elf(orig_path, new_path, name, data, allow_alloc=False):
    """@new_path is @orig_path plus section @name holding @data, with
    nothing else changed.  Returns the section header."""
    o, n = Elf(orig_path), Elf(new_path)
    n.check_layout()
    s = n.sec(name)
    assert s, "%s: no %s section" % (new_path, name)
    assert n.data(s) == data, "%s: wrong %s bytes" % (new_path, name)
    if not allow_alloc:
        assert (s["type"], s["flags"], s["addr"], s["link"], s["info"],
                s["entsize"]) == (SHT_PROGBITS, 0, 0, 0, 0, 0), s
    assert (n.cls, n.enc, n.type) == (o.cls, o.enc, o.type)
    # Program headers and all that segments cover (but the ELF header's
    # section header fields): byte-identical.
    assert [p[0] for p in n.phdrs] == [p[0] for p in o.phdrs], "phdrs"
    nb, ob = bytearray(n.b), bytearray(o.b)
    os_ = o.sec(name)
    if s["flags"] & 2 and os_ and s["offset"] == os_["offset"]:
        # SHF_ALLOC, same size: replaced in place, in a segment
        end = s["offset"] + s["size"]
        nb[s["offset"]:end] = ob[s["offset"]:end]
    for raw, off, filesz in o.phdrs:
        lo = max(off, o.ehsize)
        assert nb[lo:off + filesz] == ob[lo:off + filesz], "segment"
    hdr = 0x28 if o.cls == 2 else 0x20     # e_shoff
    assert n.b[:hdr] == o.b[:hdr], "ELF header changed"
    # Every old section keeps its index, header and bytes (.shstrtab
    # may move and grow, keeping its old strings as a prefix).
    osecs = o.secs[1:] if o.secs else []
    assert len(n.secs) in (len(o.secs), len(o.secs) + 1)
    for i, (a, b) in enumerate(zip(osecs, n.secs[1:]), 1):
        if a.get("sname") == name:
            continue
        if o.secs and i == o.shstrndx:
            assert n.shstrndx == i
            assert n.data(b).startswith(o.data(a)), "shstrtab prefix"
            assert {k: v for k, v in a.items() if k not in
                    ("offset", "size")} == {k: v for k, v in b.items()
                                            if k not in ("offset", "size")}
            continue
        assert a == b, "section %d header changed: %r -> %r" % (i, a, b)
        assert n.data(b) == o.data(a), "section %d bytes changed" % i
    return s


def _readelf_warnings(path):
    p = _sh(["readelf", "-a", "-W", path], check=False)
    assert p.returncode == 0, p.stderr
    return set(l for l in p.stderr.splitlines() if l.strip())


def _check_readelf(orig, new):
    """readelf -a has nothing new to complain about."""
    extra = _readelf_warnings(new) - _readelf_warnings(orig)
    assert not extra, "readelf: %s" % "\n".join(sorted(extra))


def _disasm(path):
    tool = "llvm-objdump" if _have("llvm-objdump") else "objdump"
    p = _sh([tool, "-d", path])
    # The first lines name the file.
    return [l for l in p.stdout.splitlines() if path not in l]


def _pahole_btf(ctx, src_path):
    """Section header and bytes pahole -J gives for a copy of @src_path."""
    if not _have("pahole"):
        raise ctx.Skip("pahole not installed")
    cp = src_path + ".pahole"
    shutil.copy(src_path, cp)
    p = _sh(["pahole", "-J", cp], check=False)
    e = Elf(cp)
    if p.returncode or not e.sec(".BTF"):
        raise ctx.Skip("pahole -J failed: %s" % p.stderr.strip()[:200])
    return e.sec(".BTF"), e.data(e.sec(".BTF")), cp


def _as_pahole(ctx, exe, path, missing):
    """Add pahole's BTF for @path with our code; compare with pahole.
    Checks that cannot run are added to @missing."""
    ref, btf, ref_path = _pahole_btf(ctx, path)
    ours = path + ".ours"
    shutil.copy(path, ours)
    bin_path = _write(path + ".btf", btf)
    rc, err = _run(exe, "elf", ours, ".BTF", bin_path)
    assert rc == 0, err
    s = _check_elf(path, ours, ".BTF", btf)
    keys = ("type", "flags", "addr", "link", "info", "addralign", "entsize")
    assert {k: s[k] for k in keys} == {k: ref[k] for k in keys}, \
        "differs from pahole: %r vs %r" % (s, ref)
    _check_readelf(path, ours)
    if _have("bpftool"):
        a = _sh(["bpftool", "btf", "dump", "file", ours]).stdout
        b = _sh(["bpftool", "btf", "dump", "file", ref_path]).stdout
        assert a == b and a, "bpftool dump differs"
    else:
        missing.append("bpftool dump (no bpftool)")
    return ours, btf


def _skip_missing(ctx, missing):
    """After every other check passed: say what could not be checked."""
    if missing:
        raise ctx.Skip("other checks passed; not checked: " +
                       "; ".join(missing))


def _mount_tmpfs(ctx, d, size):
    os.makedirs(d, exist_ok=True)
    p = _sh(["mount", "-t", "tmpfs", "-o", "size=%s" % size, "tmpfs", d],
            check=False)
    if p.returncode:
        raise ctx.Skip("cannot mount a tmpfs: %s" % p.stderr.strip())


def _umount(d):
    _sh(["umount", d], check=False)


def _as_nobody(ctx):
    """Command prefix running as an unprivileged user, or Skip."""
    if os.geteuid() != 0:
        return ()
    if not _have("setpriv"):
        raise ctx.Skip("running as root without setpriv")
    return ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")


# ------------------------------------------------------------------ tests

def test_output_raw_write(ctx):
    exe = _build(ctx)
    d = os.path.join(ctx.tmp, "raw")
    os.mkdir(d)
    src = _write(os.path.join(ctx.tmp, "data"), _data(10000))
    out = os.path.join(d, "vmlinux.btf")
    old = os.umask(0o022)
    try:
        rc, err = _run(exe, "raw", out, src)
    finally:
        os.umask(old)
    assert rc == 0, err
    assert _read(out) == _read(src)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o644
    assert _ls(d) == ["vmlinux.btf"]
    # Replacing keeps the mode; empty data is fine.
    os.chmod(out, 0o600)
    empty = _write(os.path.join(ctx.tmp, "empty"), b"")
    rc, err = _run(exe, "raw", out, empty)
    assert rc == 0 and _read(out) == b"", err
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600
    # A relative path, in the current directory.
    rc, err = _run(exe, "raw", "rel.btf", src, cwd=d)
    assert rc == 0, err
    assert _read(os.path.join(d, "rel.btf")) == _read(src)
    assert _ls(d) == ["rel.btf", "vmlinux.btf"]
    # Through a symlink: the target changes, the link stays.
    os.symlink("vmlinux.btf", os.path.join(d, "link"))
    rc, err = _run(exe, "raw", os.path.join(d, "link"), src)
    assert rc == 0, err
    assert os.path.islink(os.path.join(d, "link"))
    assert _read(out) == _read(src)
    assert _ls(d) == ["link", "rel.btf", "vmlinux.btf"]


def test_output_raw_errors(ctx):
    exe = _build(ctx)
    src = _write(os.path.join(ctx.tmp, "data"), _data(100))
    rc, err = _run(exe, "raw", os.path.join(ctx.tmp, "no", "dir.btf"), src)
    assert rc == errno.ENOENT, (rc, err)
    rc, err = _run(exe, "raw", ctx.tmp, src)
    assert rc == errno.EISDIR, (rc, err)
    # Devices are written, never renamed over (we may be root).
    rc, err = _run(exe, "raw", "/dev/null", src)
    assert rc == 0, err
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    # /dev/stdout redirected to a file: that very file gets the data.
    out = os.path.join(ctx.tmp, "redir")
    _write(out, b"old contents, longer than the new ones" * 10)
    ino = os.stat(out).st_ino
    with open(out, "r+b") as f:
        p = subprocess.run([exe, "raw", "/dev/stdout", src], stdout=f,
                           stderr=subprocess.PIPE, timeout=60)
    assert p.returncode == 0, p.stderr
    assert _read(out) == _read(src) and os.stat(out).st_ino == ino


def test_output_not_writable(ctx):
    """Read-only file and read-only directory, as an unprivileged user."""
    prefix = _as_nobody(ctx)
    # ctx.tmp may not be reachable by that user: use a world-open dir.
    base = tempfile.mkdtemp(prefix="d2b-output-")
    try:
        os.chmod(base, 0o755)
        exe = shutil.copy(_build(ctx), base)
        owner = (65534, 65534) if os.geteuid() == 0 else None
        ro_dir = os.path.join(base, "ro")
        os.mkdir(ro_dir)
        src = _write(os.path.join(base, "data"), _data(100))
        obj = _compile(ctx, "gcc", PROG, os.path.join(base, "p.o"))
        ref = _read(obj)
        f = shutil.copy(obj, os.path.join(ro_dir, "p.o"))
        rw_dir = os.path.join(base, "rw")
        os.mkdir(rw_dir)
        g = shutil.copy(obj, os.path.join(rw_dir, "p.o"))
        if owner:
            os.chown(rw_dir, *owner)
            os.chown(g, *owner)
        os.chmod(ro_dir, 0o555)
        os.chmod(g, 0o444)
        os.chmod(f, 0o666)
        # Read-only directory: file writable, directory not.
        rc, err = _run(exe, "elf", f, ".BTF", src, prefix=prefix)
        assert rc == errno.EACCES, (rc, err)
        assert _read(f) == ref and _ls(ro_dir) == ["p.o"]
        rc, err = _run(exe, "raw", os.path.join(ro_dir, "x.btf"), src,
                       prefix=prefix)
        assert rc == errno.EACCES, (rc, err)
        assert _ls(ro_dir) == ["p.o"]
        # Read-only file in a writable directory.
        rc, err = _run(exe, "elf", g, ".BTF", src, prefix=prefix)
        assert rc == errno.EACCES and "not writable" in err, (rc, err)
        rc, err = _run(exe, "raw", g, src, prefix=prefix)
        assert rc == errno.EACCES, (rc, err)
        assert _read(g) == ref and _ls(rw_dir) == ["p.o"]
        # The same file made writable works, as that user.
        os.chmod(g, 0o644)
        rc, err = _run(exe, "elf", g, ".BTF", src, prefix=prefix)
        assert rc == 0, err
        if owner:
            assert (os.stat(g).st_uid, os.stat(g).st_gid) == owner
    finally:
        for root, dirs, _ in os.walk(base):
            for x in dirs:
                os.chmod(os.path.join(root, x), 0o755)
        shutil.rmtree(base)


def test_output_read_only_fs(ctx):
    exe = _build(ctx)
    d = os.path.join(ctx.tmp, "mnt")
    _mount_tmpfs(ctx, d, "1m")
    try:
        obj = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "p.o"))
        f = shutil.copy(obj, d)
        src = _write(os.path.join(ctx.tmp, "data"), _data(100))
        _sh(["mount", "-o", "remount,ro", d])
        rc, err = _run(exe, "elf", f, ".BTF", src)
        assert rc == errno.EROFS, (rc, err)
        rc, err = _run(exe, "raw", os.path.join(d, "new.btf"), src)
        assert rc == errno.EROFS, (rc, err)
        assert _read(f) == _read(obj) and _ls(d) == ["p.o"]
    finally:
        _umount(d)


def test_output_elf_bad_input(ctx):
    exe = _build(ctx)
    src = _write(os.path.join(ctx.tmp, "data"), _data(100))
    rc, err = _run(exe, "elf", os.path.join(ctx.tmp, "missing.o"), ".BTF",
                   src)
    assert rc == errno.ENOENT and "missing.o" in err, (rc, err)
    for name, content in (("text.o", b"hello world\n" * 10),
                          ("empty.o", b""),
                          ("short.o", b"\x7fELF\x02\x01\x01")):
        f = _write(os.path.join(ctx.tmp, name), content)
        rc, err = _run(exe, "elf", f, ".BTF", src)
        assert rc == errno.ENOEXEC, (name, rc, err)
        assert _read(f) == content
    rc, err = _run(exe, "elf", ctx.tmp, ".BTF", src)
    assert rc in (errno.EINVAL, errno.EISDIR), (rc, err)
    assert sorted(_ls(ctx.tmp)) == sorted(
        ["data", "test_output", "text.o", "empty.o", "short.o"])


def test_output_elf_gcc_obj(ctx):
    exe = _build(ctx)
    missing = []
    obj = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "p.o"),
                   ("-g", "-O2", "-c"))
    ours, btf = _as_pahole(ctx, exe, obj, missing)
    # Still an object that links, both ways.
    _sh(["ld", "-r", ours, "-o", ours + ".r.o"])
    assert Elf(ours + ".r.o").sec(".BTF")
    _sh(["gcc", ours, "-o", ours + ".exe"])
    assert _sh([ours + ".exe"]).stdout == "hi 1\n"
    assert _disasm(ours) == _disasm(obj)
    _skip_missing(ctx, missing)


def test_output_elf_clang_obj(ctx):
    exe = _build(ctx)
    missing = []
    obj = _compile(ctx, "clang", PROG, os.path.join(ctx.tmp, "p.o"),
                   ("-g", "-O2", "-c"))
    ours, btf = _as_pahole(ctx, exe, obj, missing)
    _sh(["clang", ours, "-o", ours + ".exe"])
    assert _sh([ours + ".exe"]).stdout == "hi 1\n"
    assert _disasm(ours) == _disasm(obj)
    _skip_missing(ctx, missing)


def test_output_elf_executable(ctx):
    exe = _build(ctx)
    missing = []
    prog = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "prog"),
                    ("-g", "-O2"))
    ours, btf = _as_pahole(ctx, exe, prog, missing)
    assert _sh([ours]).stdout == "hi 1\n"
    assert _disasm(ours) == _disasm(prog)
    assert os.access(ours, os.X_OK)
    if _have("gdb"):
        cmd = ["gdb", "-batch", "-nx", "-ex", "info line g", "-ex",
               "ptype struct foo", "-ex", "info functions ^g$"]
        assert _sh(cmd + [ours]).stdout == _sh(cmd + [prog]).stdout
    else:
        missing.append("gdb reads it (no gdb)")
    # And a static non-PIE ET_EXEC, if static libc is there.
    p = _sh(["gcc", "-g", "-static", "-no-pie", prog + ".c", "-o",
             prog + ".static"], check=False)
    if p.returncode == 0:
        s = prog + ".static"
        ours = shutil.copy(s, s + ".ours")
        rc, err = _run(exe, "elf", ours, ".BTF", _write(s + ".b", btf))
        assert rc == 0, err
        _check_elf(s, ours, ".BTF", btf)
        _check_readelf(s, ours)
        assert _sh([ours]).stdout == "hi 1\n"
    else:
        missing.append("a static ET_EXEC (no static libc)")
    _skip_missing(ctx, missing)


def test_output_elf_replace(ctx):
    exe = _build(ctx)
    obj = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "p.o"),
                   ("-g", "-c"))
    prog = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "prog"),
                    ("-g",))
    for orig in (obj, prog):
        f = orig + ".w"
        shutil.copy(orig, f)
        sizes = []
        for i, n in enumerate((1000, 5000, 300, 5000, 5000, 0, 12, 7000)):
            data = _data(n, seed=i)
            rc, err = _run(exe, "elf", f, ".BTF",
                           _write(f + ".data", data))
            assert rc == 0, err
            _check_elf(orig, f, ".BTF", data)
            assert len(Elf(f).secs) == len(Elf(orig).secs) + 1
            sizes.append(os.path.getsize(f))
        _check_readelf(orig, f)
        # Replacing reuses space: no growth beyond the biggest data.
        base = os.path.getsize(orig)
        assert max(sizes) <= base + 7000 + 64 * 2 + 64, (base, sizes)
        assert sizes[3] == sizes[4], sizes
        assert _disasm(f) == _disasm(orig)
    _sh(["gcc", obj + ".w", "-o", obj + ".exe"])
    assert _sh([obj + ".exe"]).stdout == "hi 1\n"
    assert _sh([prog + ".w"]).stdout == "hi 1\n"
    # Another name coexists with .BTF.
    data = _data(64, seed=9)
    rc, err = _run(exe, "elf", obj + ".w", ".BTF.other",
                   _write(obj + ".d2", data))
    assert rc == 0, err
    e = Elf(obj + ".w")
    assert e.data(e.sec(".BTF.other")) == data
    assert e.data(e.sec(".BTF")) == _data(7000, seed=7)


def test_output_elf_name_reuse(ctx):
    """A section name ending in ".BTF" already in .shstrtab is reused,
    as linkers do: .shstrtab then stays where it is."""
    exe = _build(ctx)
    obj = _compile(ctx, "gcc", 'int v __attribute__((section("x.BTF")))'
                   ' = 1;\n', os.path.join(ctx.tmp, "n.o"))
    f = shutil.copy(obj, obj + ".w")
    data = _data(200)
    rc, err = _run(exe, "elf", f, ".BTF", _write(f + ".d", data))
    assert rc == 0, err
    _check_elf(obj, f, ".BTF", data)
    o, n = Elf(obj), Elf(f)
    assert n.secs[n.shstrndx] == o.secs[o.shstrndx]
    assert n.sec(".BTF")["name"] == n.sec("x.BTF")["name"] + 1
    _check_readelf(obj, f)


def test_output_elf_relocated_btf(ctx):
    """A BPF object's .BTF has relocations: refuse, change nothing."""
    exe = _build(ctx)
    obj = _compile(ctx, "clang", FREESTANDING, os.path.join(ctx.tmp, "b.o"),
                   ("-target", "bpf", "-g", "-O2", "-c"))
    e = Elf(obj)
    if not any(s["sname"] == ".rel.BTF" for s in e.secs):
        raise ctx.Skip("this clang emits no .rel.BTF")
    ref = _read(obj)
    rc, err = _run(exe, "elf", obj, ".BTF",
                   _write(obj + ".data", _data(100)))
    assert rc == errno.EINVAL and ".rel.BTF" in err, (rc, err)
    assert _read(obj) == ref


def test_output_elf_alloc_btf(ctx):
    """An allocated .BTF (in a segment) is replaced in place by data of
    the same size, and the program then sees the new bytes.  Data of
    another size goes past the segments: the header keeps its flags and
    address, the segments their bytes (the program still sees the old
    ones)."""
    exe = _build(ctx)
    src = r"""
#include <stdio.h>
__attribute__((section(".BTF"), used))
const unsigned char btf[16] = "0123456789abcde";
int main(void) { puts((const char *)btf); return 0; }
"""
    prog = _compile(ctx, "gcc", src, os.path.join(ctx.tmp, "prog"), ())
    e = Elf(prog)
    s = e.sec(".BTF")
    assert s and s["flags"] & 2, s
    f = shutil.copy(prog, prog + ".w")
    new = b"fedcba987654321\0"
    rc, err = _run(exe, "elf", f, ".BTF", _write(f + ".d", new))
    assert rc == 0, err
    t = _check_elf(prog, f, ".BTF", new, allow_alloc=True)
    assert t == s
    assert _sh([f]).stdout == "fedcba987654321\n"
    sizes = []
    for i, n in enumerate((17, 5000, 3, 5000, 16)):
        g = shutil.copy(f, f + ".%d" % i) if i == 0 else g
        data = _data(n, seed=i)
        rc, err = _run(exe, "elf", g, ".BTF", _write(g + ".d", data))
        assert rc == 0, (n, err)
        t = _check_elf(f, g, ".BTF", data, allow_alloc=True)
        keep = ("name", "flags", "addr", "link", "info", "addralign",
                "entsize")
        assert {k: t[k] for k in keep} == {k: s[k] for k in keep}, t
        assert t["type"] == SHT_PROGBITS and t["size"] == n
        # Past every segment: the first move left them.
        e = Elf(g)
        assert t["offset"] >= max(p[1] + p[2] for p in e.phdrs), t
        _check_readelf(f, g)
        assert _sh([g]).stdout == "fedcba987654321\n"
        sizes.append(os.path.getsize(g))
    # Moving it again reuses the end of the file.
    assert sizes[1] == sizes[3], sizes
    assert max(sizes) <= os.path.getsize(f) + 5000 + 3 * 64 + 64, sizes
    assert not [x for x in _ls(ctx.tmp) if x.endswith(".tmp")]


def test_output_elf_alloc_rel(ctx):
    """An allocated .BTF in a relocatable object (no segments, as a module
    linked by ld.lld -r can have) is replaced like any section: flags
    kept, resized freely, in place when the data fits."""
    exe = _build(ctx)
    src = ('__asm__(".section .BTF,\\"a\\"\\n.balign 4\\n.previous");\n'
           'int v = 1;\n')
    obj = _compile(ctx, "gcc", src, os.path.join(ctx.tmp, "m.o"))
    s = Elf(obj).sec(".BTF")
    assert s and s["flags"] & 2 and s["size"] == 0, s
    f = shutil.copy(obj, obj + ".w")
    for i, n in enumerate((3000, 1000, 3000)):
        data = _data(n, seed=i)
        rc, err = _run(exe, "elf", f, ".BTF", _write(f + ".d", data))
        assert rc == 0, err
        t = _check_elf(obj, f, ".BTF", data, allow_alloc=True)
        assert (t["flags"], t["addr"], t["addralign"]) == (
            s["flags"], 0, 4), t
        assert t["offset"] % 4 == 0, t
        _check_readelf(obj, f)
    _sh(["ld", "-r", f, "-o", f + ".r.o"])
    r = Elf(f + ".r.o")
    assert r.data(r.sec(".BTF")) == _data(3000, seed=2)


def test_output_elf_32bit(ctx):
    exe = _build(ctx)
    obj = _compile(ctx, "clang", FREESTANDING, os.path.join(ctx.tmp, "i.o"),
                   ("--target=i386-linux-gnu", "-g", "-c"))
    e = Elf(obj)
    assert e.cls == 1 and e.enc == 1
    f = shutil.copy(obj, obj + ".w")
    for i, n in enumerate((3000, 9000, 100)):
        data = _data(n, seed=i)
        rc, err = _run(exe, "elf", f, ".BTF", _write(f + ".d", data))
        assert rc == 0, err
        _check_elf(obj, f, ".BTF", data)
    _check_readelf(obj, f)
    assert _disasm(f) == _disasm(obj)
    if not _have("ld.lld"):
        raise ctx.Skip("other checks passed; not checked: ld.lld -r links "
                       "it (no ld.lld)")
    _sh(["ld.lld", "-r", f, "-o", f + ".r"])
    assert Elf(f + ".r").sec(".BTF")


def test_output_elf_big_endian(ctx):
    exe = _build(ctx)
    done = []
    for target in ("powerpc64-linux-gnu", "s390x-linux-gnu",
                   "powerpc-linux-gnu"):
        try:
            obj = _compile(ctx, "clang", FREESTANDING,
                           os.path.join(ctx.tmp, target + ".o"),
                           ("--target=" + target, "-g", "-c"))
        except ctx.Skip:
            continue
        e = Elf(obj)
        assert e.enc == 2, target
        f = shutil.copy(obj, obj + ".w")
        for i, n in enumerate((2000, 6000, 500)):
            data = _data(n, seed=i)
            rc, err = _run(exe, "elf", f, ".BTF", _write(f + ".d", data))
            assert rc == 0, err
            _check_elf(obj, f, ".BTF", data)
        _check_readelf(obj, f)
        assert _disasm(f) == _disasm(obj)
        done.append(target)
    if not done:
        raise ctx.Skip("clang cannot make big-endian objects")


def test_output_elf_many_sections(ctx):
    exe = _build(ctx)
    n = 70000
    src = "".join('int v%d __attribute__((section(".s.%d"))) = %d;\n'
                  % (i, i, i) for i in range(n))
    obj = _compile(ctx, "gcc", src, os.path.join(ctx.tmp, "many.o"))
    o = Elf(obj)
    assert o.e_shnum == 0 and o.e_shstrndx == 0xffff and len(o.secs) > n
    f = shutil.copy(obj, obj + ".w")
    for i, size in enumerate((4000, 8000, 1000)):
        data = _data(size, seed=i)
        rc, err = _run(exe, "elf", f, ".BTF", _write(f + ".d", data))
        assert rc == 0, err
        e = Elf(f)
        assert e.e_shnum == 0 and e.e_shstrndx == 0xffff
        assert e.secs[0]["size"] == len(o.secs) + 1
        assert e.secs[0]["link"] == o.shstrndx
        _check_elf(obj, f, ".BTF", data)
    out = _sh(["readelf", "-S", "-W", f]).stdout
    assert "] .BTF " in out and "] .s.69999 " in out
    _check_readelf(obj, f)
    _sh(["ld", "-r", f, "-o", f + ".r"])
    assert Elf(f + ".r").sec(".BTF")


def test_output_elf_crossing_loreserve(ctx):
    """0xfeff sections + 1 = 0xff00: must switch to extended numbering."""
    exe = _build(ctx)
    probe = _compile(ctx, "gcc", "int x;\n", os.path.join(ctx.tmp, "x.o"))
    n = 0xfeff - len(Elf(probe).secs)   # those plus n .s.N sections
    src = "".join('int v%d __attribute__((section(".s.%d"))) = %d;\n'
                  % (i, i, i) for i in range(n))
    obj = _compile(ctx, "gcc", src, os.path.join(ctx.tmp, "c.o"))
    o = Elf(obj)
    if len(o.secs) != 0xfeff:
        raise ctx.Skip("got %d sections, not 0xfeff" % len(o.secs))
    assert o.e_shnum == 0xfeff
    f = shutil.copy(obj, obj + ".w")
    data = _data(333)
    rc, err = _run(exe, "elf", f, ".BTF", _write(f + ".d", data))
    assert rc == 0, err
    e = Elf(f)
    assert e.e_shnum == 0 and e.secs[0]["size"] == 0xff00
    _check_elf(obj, f, ".BTF", data)
    _check_readelf(obj, f)


def test_output_elf_no_section_headers(ctx):
    """An executable whose section headers were removed gets a null
    section, a .shstrtab and the .BTF section; it still runs."""
    exe = _build(ctx)
    prog = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "prog"), ())
    b = bytearray(_read(prog))
    assert b[4] == 2 and b[5] == 1
    e = Elf(prog)
    end = max(off + sz for _, off, sz in e.phdrs)
    del b[end:]                          # drop non-loaded tail too
    struct.pack_into("<Q", b, 0x28, 0)   # e_shoff
    struct.pack_into("<HHH", b, 0x3a, 0, 0, 0)  # shentsize, shnum, strndx
    f = _write(prog + ".noshdr", bytes(b))
    os.chmod(f, 0o755)
    assert _sh([f]).stdout == "hi 1\n"
    data = _data(500)
    rc, err = _run(exe, "elf", f, ".BTF", _write(f + ".d", data))
    assert rc == 0, err
    n = Elf(f)
    n.check_layout()
    assert [s["sname"] for s in n.secs] == ["", ".shstrtab", ".BTF"]
    assert n.data(n.sec(".BTF")) == data
    assert n.b[:end][64:] == bytes(b)[64:]
    assert _sh([f]).stdout == "hi 1\n"
    p = _sh(["readelf", "-a", "-W", f])
    assert ".BTF" in p.stdout


def test_output_keeps_mode_owner(ctx):
    exe = _build(ctx)
    prog = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "prog"), ())
    f = shutil.copy(prog, prog + ".w")
    os.chmod(f, 0o751)
    if os.geteuid() == 0:
        os.chown(f, 1234, 5678)
        os.chmod(f, 0o4751)     # chown cleared set-id; set it again
    before = os.stat(f)
    link = os.path.join(ctx.tmp, "link")
    os.symlink(os.path.basename(f), link)
    data = _data(100)
    rc, err = _run(exe, "elf", link, ".BTF", _write(f + ".d", data))
    assert rc == 0, err
    assert os.path.islink(link)
    after = os.stat(f)
    assert stat.S_IMODE(after.st_mode) == stat.S_IMODE(before.st_mode)
    assert (after.st_uid, after.st_gid) == (before.st_uid, before.st_gid)
    _check_elf(prog, f, ".BTF", data)
    assert _sh([f]).stdout == "hi 1\n"


def test_output_fault_injection(ctx):
    """Every write failing in turn: original intact, no temp file."""
    exe = _build(ctx)
    obj = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "p.o"),
                   ("-g", "-c"))
    d = os.path.join(ctx.tmp, "w")
    os.mkdir(d)
    data_a = _write(os.path.join(ctx.tmp, "a.bin"), _data(5000, 1))
    data_b = _write(os.path.join(ctx.tmp, "b.bin"), _data(9000, 2))
    data_c = _write(os.path.join(ctx.tmp, "c.bin"), _data(100, 3))
    f = shutil.copy(obj, os.path.join(d, "p.o"))
    cases = [("elf", f, ".BTF", data_a),     # add
             ("elf", f, ".BTF", data_b),     # replace, bigger
             ("elf", f, ".BTF", data_c),     # replace in place
             ("raw", os.path.join(d, "p.o"), data_a),
             ("raw", os.path.join(d, "new.btf"), data_b)]
    for case in cases:
        listing = _ls(d)
        target = case[1]
        ref = _read(target) if os.path.exists(target) else None
        for n in range(1, 100):
            rc, err = _run(exe, *case,
                           env={"DWARF2BTF_FAULT_WRITE": str(n)})
            if rc == 0:
                break
            assert rc == errno.ENOSPC and "No space" in err, (n, rc, err)
            assert _ls(d) == listing, (case, n, _ls(d))
            if ref is None:
                assert not os.path.exists(target)
            else:
                assert _read(target) == ref, (case, n)
        else:
            raise AssertionError("never succeeded: %r" % (case,))
        assert n > 1, "fault hook not effective for %r" % (case,)
    assert _read(f) == _read(data_a)   # the last raw write replaced it
    assert _read(os.path.join(d, "new.btf")) == _read(data_b)
    # Garbage in the variable means no fault.
    g = shutil.copy(obj, os.path.join(d, "g.o"))
    rc, err = _run(exe, "elf", g, ".BTF", data_a,
                   env={"DWARF2BTF_FAULT_WRITE": "x1"})
    assert rc == 0, err


def test_output_elf_precopy(ctx):
    """A pre-copy of the file gives the bytes of a copy made at the end;
    a file changed since (size, or contents and times) is copied again;
    a failing write fails the same way; no temp file is left."""
    exe = _build(ctx)
    obj = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "p.o"),
                   ("-g", "-c"))
    prog = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "prog"),
                    ("-g",))
    d = os.path.join(ctx.tmp, "w")
    os.mkdir(d)
    for orig in (obj, prog):
        comment = Elf(orig).sec(".comment")
        assert comment and comment["size"] > 4, "no .comment to change"
        poke = comment["offset"] + 2
        for i, n in enumerate((3000, 0, 20000)):
            data = _write(os.path.join(ctx.tmp, "d%d" % i), _data(n, i))
            for change in (None, "append", str(poke)):
                a = shutil.copy(orig, os.path.join(d, "a"))
                b = shutil.copy(orig, os.path.join(d, "b"))
                os.chmod(b, 0o640 if i % 2 else 0o751)
                mode = os.stat(b).st_mode
                if change == "append":
                    with open(a, "ab") as f:
                        f.write(bytes(16))
                elif change:
                    ab = bytearray(_read(a))
                    ab[poke] ^= 0xff
                    _write(a, bytes(ab))
                rc, err = _run(exe, "elf", a, ".BTF", data)
                assert rc == 0, err
                args = (change,) if change else ()
                rc, err = _run(exe, "elf-pre", b, ".BTF", data, *args)
                assert rc == 0, err
                assert _read(b) == _read(a), (orig, n, change)
                assert os.stat(b).st_mode == mode, (oct(mode), change)
                assert _ls(d) == ["a", "b"], _ls(d)
                if not change:
                    _check_elf(orig, a, ".BTF", _read(data))
    # Every write failing in turn fails as without a pre-copy, also where
    # the copy of the whole file takes more chunks than that of the bytes
    # kept (a 65 MB file whose .BTF at its end is replaced by a bigger one:
    # 62 MB kept, under one chunk of copy_file_range(), 64 MiB).
    big = _compile(ctx, "gcc", "char big[62 << 20] = { 1 };\n",
                   os.path.join(ctx.tmp, "big.o"))
    with_btf = shutil.copy(big, os.path.join(ctx.tmp, "big-btf.o"))
    rc, err = _run(exe, "elf", with_btf, ".BTF",
                   _write(os.path.join(ctx.tmp, "g"), _data(3 << 20, 8)))
    assert rc == 0, err
    for src, size in ((obj, 5000), (with_btf, 4 << 20)):
        data = _write(os.path.join(ctx.tmp, "f"), _data(size, 7))
        for n in range(1, 100):
            env = {"DWARF2BTF_FAULT_WRITE": str(n)}
            a = shutil.copy(src, os.path.join(d, "a"))
            b = shutil.copy(src, os.path.join(d, "b"))
            rc_a, err_a = _run(exe, "elf", a, ".BTF", data, env=env)
            rc_b, err_b = _run(exe, "elf-pre", b, ".BTF", data, env=env)
            assert (rc_a, err_a.replace(a, b)) == (rc_b, err_b), (
                src, n, err_a, err_b)
            assert _read(b) == _read(a)
            assert _ls(d) == ["a", "b"], (n, _ls(d))
            if rc_a == 0:
                break
        assert n > 2, "fault hook not effective"


def test_output_precopy_killed(ctx):
    """A process killed while its pre-copy is made leaves no file
    behind: the copy has no name until it is taken (O_TMPFILE)."""
    exe = _build(ctx)
    obj = _compile(ctx, "gcc", PROG, os.path.join(ctx.tmp, "p.o"),
                   ("-g", "-c"))
    d = os.path.join(ctx.tmp, "w")
    os.mkdir(d)
    try:
        os.close(os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o600))
    except OSError as e:
        raise ctx.Skip("no O_TMPFILE in %s: %s" % (d, e))
    a = shutil.copy(obj, os.path.join(d, "a"))
    data = _write(os.path.join(ctx.tmp, "d"), _data(3000))
    p = _sh([exe, "elf-pre", a, ".BTF", data, "kill"], check=False)
    assert p.returncode == -signal.SIGKILL, (p.returncode, p.stderr)
    assert _ls(d) == ["a"], _ls(d)
    assert _read(a) == _read(obj)


def test_output_disk_full(ctx):
    exe = _build(ctx)
    d = os.path.join(ctx.tmp, "mnt")
    _mount_tmpfs(ctx, d, "512k")
    try:
        src = "unsigned char big[300000] = { 1, 2, 3 };\nint main(void) " \
              "{ return big[0] - 1; }\n"
        obj = _compile(ctx, "gcc", src, os.path.join(ctx.tmp, "big.o"))
        f = shutil.copy(obj, d)
        ref = _read(f)
        data = _write(os.path.join(ctx.tmp, "btf"), _data(1000))
        rc, err = _run(exe, "elf", f, ".BTF", data)
        assert rc == errno.ENOSPC, (rc, err)
        assert _read(f) == ref and _ls(d) == ["big.o"]
        # Raw: a new file that does not fit, then one replacing big.o.
        bigdata = _write(os.path.join(ctx.tmp, "bigdata"), _data(400000))
        rc, err = _run(exe, "raw", os.path.join(d, "x.btf"), bigdata)
        assert rc == errno.ENOSPC, (rc, err)
        rc, err = _run(exe, "raw", f, bigdata)
        assert rc == errno.ENOSPC, (rc, err)
        assert _read(f) == ref and _ls(d) == ["big.o"]
        # With room again it works.
        _sh(["mount", "-o", "remount,size=2m", d])
        rc, err = _run(exe, "elf", f, ".BTF", data)
        assert rc == 0, err
        _check_elf(obj, f, ".BTF", _read(data))
        assert _ls(d) == ["big.o"]
    finally:
        _umount(d)
