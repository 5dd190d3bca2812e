# SPDX-License-Identifier: GPL-2.0-only
"""Command line behaviour: help, version, usage errors and bad inputs.

Every error case runs both ways the tool is used - writing a raw BTF file
(-o OUT) and rewriting the input's .BTF section in place - and checks:
exit status 1 (not a signal), exactly one line on stderr naming the input,
no sanitizer report, and the input file byte-identical afterwards.
"""

import os
import shutil


def _bin(ctx):
    assert os.path.exists(ctx.bin), "binary %s not built" % ctx.bin
    return ctx.bin


def _no_sanitizer(p):
    assert p.returncode >= 0, "killed by signal %d" % -p.returncode


def _one_line(text):
    lines = [ln for ln in text.splitlines() if ln.strip()]
    assert len(lines) == 1, "expected one line on stderr, got:\n" + text
    return lines[0]


def _check_error(ctx, path, mention=None):
    """Run on ``path`` in both modes; return the stderr lines."""
    with open(path, "rb") as f:
        before = f.read()
    out = os.path.join(ctx.tmp, "out.btf")
    msgs = []
    for args in (["-o", out, path], [path]):
        p = ctx.run([_bin(ctx)] + args)
        _no_sanitizer(p)
        assert p.returncode == 1, "%s: exit %d, stderr:\n%s" % (
            " ".join(args), p.returncode, p.stderr)
        line = _one_line(p.stderr)
        assert os.path.basename(path) in line, \
            "message does not name %s: %s" % (path, line)
        if mention:
            assert mention in line, "message lacks %r: %s" % (mention, line)
        with open(path, "rb") as f:
            assert f.read() == before, "%s modified by %s" % (path, args)
        msgs.append(line)
    return msgs


def test_help(ctx):
    p = ctx.run([_bin(ctx), "--help"])
    _no_sanitizer(p)
    assert p.returncode == 0, p.returncode
    text = p.stdout + p.stderr
    assert "-o" in text and "-j" in text, "help lacks -o/-j:\n" + text


def test_version(ctx):
    p = ctx.run([_bin(ctx), "--version"])
    _no_sanitizer(p)
    assert p.returncode == 0, p.returncode
    assert (p.stdout + p.stderr).strip(), "--version printed nothing"


def test_no_arguments(ctx):
    p = ctx.run([_bin(ctx)])
    _no_sanitizer(p)
    assert p.returncode != 0, "exit 0 without arguments"
    _one_line(p.stderr)


def test_bad_option(ctx):
    p = ctx.run([_bin(ctx), "--no-such-option", "x.o"])
    _no_sanitizer(p)
    assert p.returncode != 0, "exit 0 with an unknown option"


def test_nonexistent_file(ctx):
    path = os.path.join(ctx.tmp, "does-not-exist.o")
    for args in (["-o", os.path.join(ctx.tmp, "out.btf"), path], [path]):
        p = ctx.run([_bin(ctx)] + args)
        _no_sanitizer(p)
        assert p.returncode == 1, p.returncode
        line = _one_line(p.stderr)
        assert "does-not-exist.o" in line, line
        assert not os.path.exists(path), "input created"


def test_not_elf(ctx):
    path = os.path.join(ctx.tmp, "notelf.txt")
    with open(path, "w") as f:
        f.write("this is not an ELF file\n" * 100)
    _check_error(ctx, path)


def test_empty_file(ctx):
    path = os.path.join(ctx.tmp, "empty.o")
    open(path, "wb").close()
    _check_error(ctx, path)


def test_elf_without_dwarf(ctx):
    src = os.path.join(ctx.tmp, "nodebug.c")
    with open(src, "w") as f:
        f.write("int nodebug_var = 1;\nint nodebug_fn(int x) { return x; }\n")
    path = os.path.join(ctx.tmp, "nodebug.o")
    p = ctx.run(["gcc", "-O2", "-c", "-o", path, src])
    assert p.returncode == 0, p.stderr
    _check_error(ctx, path, mention="DWARF")


def test_truncated_elf(ctx):
    obj = ctx.fixture("types_composite", "gcc", 5)
    with open(obj, "rb") as f:
        data = f.read()
    size = len(data)
    cuts = sorted({4, 16, 40, 64, 100, size // 4, size // 2, size * 3 // 4,
                   size - 64, size - 1})
    for cut in cuts:
        path = os.path.join(ctx.tmp, "cut-%d.o" % cut)
        with open(path, "wb") as f:
            f.write(data[:cut])
        # past the ELF header: said to be truncated, not what is missing
        _check_error(ctx, path, ": truncated: " if cut >= 64 else None)


def test_directory(ctx):
    path = os.path.join(ctx.tmp, "adir")
    os.mkdir(path)
    p = ctx.run([_bin(ctx), "-o", os.path.join(ctx.tmp, "out.btf"), path])
    _no_sanitizer(p)
    assert p.returncode == 1, p.returncode
    assert "adir" in _one_line(p.stderr)


def test_read_only_input_with_output(ctx):
    """-o must not need write access to the input."""
    obj = ctx.fixture("types_base", "gcc", 5)
    path = os.path.join(ctx.tmp, "ro.o")
    shutil.copyfile(obj, path)
    os.chmod(path, 0o444)
    out = os.path.join(ctx.tmp, "out.btf")
    p = ctx.run([_bin(ctx), "-o", out, path])
    _no_sanitizer(p)
    assert p.returncode == 0, p.stderr
    assert os.path.getsize(out) > 24
    with open(path, "rb") as a, open(obj, "rb") as b:
        assert a.read() == b.read(), "input modified"


def test_max_memory(ctx):
    # Over the limit: exit 1, one line naming the CU, no output written.
    obj = ctx.fixture("types_composite", "gcc", 5)
    out = os.path.join(ctx.tmp, "out.btf")
    p = ctx.run([ctx.bin, "--max-memory=1M", "-o", out, obj])
    lines = p.stderr.strip().splitlines()
    if p.returncode != 1 or len(lines) != 1 or "CU 0x" not in lines[0] or \
            "memory limit" not in lines[0] or os.path.exists(out):
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    # a limit under 1 MB is said as it was given, not as "0 MB"
    p = ctx.run([ctx.bin, "--max-memory=1K", "-o", out, obj])
    assert p.returncode == 1 and "limit of 1 KB exceeded" in \
        _one_line(p.stderr), p.stderr
    p = ctx.run([ctx.bin, "--max-memory=4G", "-o", out, obj])
    if p.returncode != 0 or not os.path.exists(out):
        raise AssertionError("under the limit: exit %d: %s"
                             % (p.returncode, p.stderr))
    p = ctx.run([ctx.bin, "--max-memory=lots", "-o", out, obj])
    if p.returncode != 2:
        raise AssertionError("bad size accepted: exit %d" % p.returncode)


def test_sanitizer_report_fails(ctx):
    """ctx.run() fails a test on a sanitizer report, whatever the exit."""
    for text in ("x.c:1:2: runtime error: shift exponent",
                 "==1==ERROR: AddressSanitizer: heap-use-after-free"):
        try:
            ctx.run(["sh", "-c", "echo '%s' >&2" % text])
        except AssertionError as e:
            assert "sanitizer report" in str(e), e
        else:
            raise AssertionError("not caught: %s" % text)


def test_jobs_with_a_space(ctx):
    """`-j N` with a space: a bad N is a usage error, never an input that
    makes the real input one of several (and rewritten in place)."""
    obj = os.path.join(ctx.tmp, "t.o")
    with open(ctx.fixture("types_composite", "gcc", 5), "rb") as a, \
            open(obj, "wb") as b:
        b.write(a.read())
    before = open(obj, "rb").read()
    for bad in ("0", "5000", "abc", "-1x"):
        for out in ([], ["-o", os.path.join(ctx.tmp, "o.btf")]):
            p = ctx.run([_bin(ctx), "-j", bad] + out + [obj])
            if bad == "-1x":        # an option, not a count: unknown
                assert p.returncode == 2, p
                continue
            assert p.returncode == 2, (bad, out, p.returncode, p.stderr)
            assert "invalid job count '%s'" % bad in _one_line(p.stderr)
            assert open(obj, "rb").read() == before
            assert not os.path.exists(os.path.join(ctx.tmp, "o.btf"))
    # a good count, and a bare -j before the file: both encode the file
    for args in (["-j", "2"], ["-j"], ["-j2"], ["--jobs=2"]):
        out = os.path.join(ctx.tmp, "ok.btf")
        p = ctx.run([_bin(ctx)] + args + ["-o", out, obj])
        assert p.returncode == 0 and os.path.getsize(out) > 0, (args, p)
        os.unlink(out)
    out = os.path.join(ctx.tmp, "ok.btf")
    p = ctx.run([_bin(ctx), "-o", out, "-j", obj])
    assert p.returncode == 0 and os.path.getsize(out) > 0, p


def test_in_place_all_checked_first(ctx):
    """Several FILEs are each changed in place, so `dwarf2btf FILE
    OUT.btf` (raw BTF meant for OUT.btf) must not rewrite FILE before it
    finds that OUT.btf is no ELF file: one line naming OUT.btf, exit 1,
    FILE untouched; two ELF files are both encoded."""
    obj = os.path.join(ctx.tmp, "t.o")
    shutil.copy(ctx.fixture("types_composite", "gcc", 5), obj)
    before = open(obj, "rb").read()
    raw = os.path.join(ctx.tmp, "old.btf")
    with open(raw, "wb") as f:
        f.write(b"\x9f\xeb\x01\x00not an ELF file")
    for other, words in ((os.path.join(ctx.tmp, "new.btf"),
                          "No such file or directory"),
                         (raw, "not an ELF file"),
                         (ctx.tmp, "Is a directory")):
        p = ctx.run([_bin(ctx), obj, other])
        _no_sanitizer(p)
        assert p.returncode == 1, (other, p.returncode, p.stderr)
        line = _one_line(p.stderr)
        assert other in line and words in line and "-o OUT" in line, line
        assert open(obj, "rb").read() == before, "FILE changed"
        assert not os.path.exists(os.path.join(ctx.tmp, "new.btf"))
    copy = os.path.join(ctx.tmp, "u.o")
    shutil.copy(obj, copy)
    p = ctx.run([_bin(ctx), obj, copy])
    assert p.returncode == 0, p.stderr
    for f in (obj, copy):
        assert open(f, "rb").read() != before, "%s not encoded" % f


def test_output_once_and_a_file(ctx):
    """-o (or --btf_encode_detached) twice, or '-': usage errors, one line,
    nothing written, the input untouched."""
    obj = os.path.join(ctx.tmp, "t.o")
    shutil.copy(ctx.fixture("types_composite", "gcc", 5), obj)
    before = open(obj, "rb").read()
    a, b = os.path.join(ctx.tmp, "a.btf"), os.path.join(ctx.tmp, "b.btf")
    for args, words in (
            (["-o", a, "-o", b], "output given twice"),
            (["-o", a, "--btf_encode_detached=" + b], "output given twice"),
            (["-o", "-"], "not to standard output"),
            (["--btf_encode_detached=-"], "not to standard output")):
        p = ctx.run([_bin(ctx)] + args + [obj], cwd=ctx.tmp)
        assert p.returncode == 2, (args, p.returncode, p.stderr)
        assert words in _one_line(p.stderr), p.stderr
        for f in (a, b, os.path.join(ctx.tmp, "-")):
            assert not os.path.exists(f), f
        assert open(obj, "rb").read() == before


def test_unknown_btf_feature_warns(ctx):
    """An unknown --btf_features name is ignored as pahole ignores it (so
    kbuild passing a newer name still builds), with one warning line;
    --btf_features_strict refuses it."""
    obj = ctx.fixture("types_composite", "gcc", 5)
    out = os.path.join(ctx.tmp, "out.btf")
    p = ctx.run([_bin(ctx), "--btf_features=defualt", "-o", out, obj])
    assert p.returncode == 0, p.stderr
    assert _one_line(p.stderr) == (
        "dwarf2btf: warning: BTF feature 'defualt' is not known, ignored "
        "(see --supported_btf_features)"), p.stderr
    p = ctx.run([_bin(ctx), "--btf_features=default", "-o", out, obj])
    assert p.returncode == 0 and not p.stderr, p.stderr
    p = ctx.run([_bin(ctx), "--btf_features_strict=defualt", "-o", out, obj])
    assert p.returncode != 0 and "not supported" in p.stderr, p.stderr


def test_base_without_btf_one_line(ctx):
    """--base naming an ELF file without .BTF: our line only (libbpf's
    own message is not printed)."""
    obj = ctx.fixture("types_composite", "gcc", 5)
    out = os.path.join(ctx.tmp, "out.btf")
    p = ctx.run([_bin(ctx), "--base", obj, "-o", out, obj])
    assert p.returncode != 0, p.stderr
    assert _one_line(p.stderr) == "dwarf2btf: %s: no .BTF section" % obj, \
        p.stderr
    assert not os.path.exists(out)



def test_base_elf_bad_btf_one_line(ctx):
    """--base naming an ELF file whose .BTF is cut short or garbage (read
    through a mapping, lib/btf_load.c): exit 1, one line, nothing
    written; the whole section reads as it does from a raw file."""
    obj = ctx.fixture("types_composite", "gcc", 5)
    raw = os.path.join(ctx.tmp, "base.btf")
    p = ctx.run([_bin(ctx), "-o", raw, obj])
    assert p.returncode == 0, p.stderr
    with open(raw, "rb") as f:
        good = f.read()
    out = os.path.join(ctx.tmp, "out.btf")
    for name, data in (("short", good[:40]), ("garbage", b"\x9f\xeb" * 64),
                       ("whole", good)):
        sec = os.path.join(ctx.tmp, name + ".sec")
        elf = os.path.join(ctx.tmp, name + ".o")
        with open(sec, "wb") as f:
            f.write(data)
        p = ctx.run(["objcopy", "--add-section", ".BTF=" + sec, obj, elf])
        assert p.returncode == 0, p.stderr
        p = ctx.run([_bin(ctx), "--base", elf, "-o", out, obj])
        if name == "whole":
            assert p.returncode == 0, p.stderr
            os.unlink(out)
            continue
        assert p.returncode == 1, (name, p.returncode, p.stderr)
        line = _one_line(p.stderr)
        assert line.startswith("dwarf2btf: %s: " % elf), (name, p.stderr)
        assert not os.path.exists(out), name


def _set_section_type(path, name, sh_type, or_flags=0):
    """Rewrites the type of ELF64 little-endian @path's section @name,
    and ORs @or_flags into its flags."""
    import struct
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
        stroff, = struct.unpack_from("<Q", data,
                                     shoff + shstrndx * shentsize + 0x18)
        for i in range(shnum):
            at = shoff + i * shentsize
            noff, = struct.unpack_from("<I", data, at)
            end = data.index(b"\0", stroff + noff)
            if data[stroff + noff:end] == name:
                struct.pack_into("<I", data, at + 4, sh_type)
                flags, = struct.unpack_from("<Q", data, at + 8)
                struct.pack_into("<Q", data, at + 8, flags | or_flags)
                f.seek(0)
                f.write(data)
                return
    raise AssertionError("no section %r in %s" % (name, path))


def test_elf_btf_nobits_one_line(ctx):
    """An ELF file whose .BTF is SHT_NOBITS (found by fuzz_btf: libbpf 1.1
    copies from NULL there), also with SHF_COMPRESSED set (found by
    fuzz_layout), as a base, and to `dwarf2btf diff` and `layout`: one
    line naming the file, exit 1 and 2, never a crash."""
    obj = ctx.fixture("types_composite", "gcc", 5)
    raw = os.path.join(ctx.tmp, "base.btf")
    p = ctx.run([_bin(ctx), "-o", raw, obj])
    assert p.returncode == 0, p.stderr
    for name, flags in (("nobits.o", 0), ("nobits_compressed.o", 0x800)):
        elf = os.path.join(ctx.tmp, name)
        p = ctx.run(["objcopy", "--add-section", ".BTF=" + raw, obj, elf])
        assert p.returncode == 0, p.stderr
        _set_section_type(elf, b".BTF", 8, flags)	# SHT_NOBITS
        out = os.path.join(ctx.tmp, "out.btf")
        p = ctx.run([_bin(ctx), "--base", elf, "-o", out, obj])
        assert p.returncode == 1, (name, p.returncode, p.stderr)
        assert _one_line(p.stderr) == \
            "dwarf2btf: %s: cannot read BTF: No data available" % elf, \
            p.stderr
        assert not os.path.exists(out)
        for args in ([elf, elf], ["--base", raw, elf, elf]):
            p = ctx.run([_bin(ctx), "diff"] + args)
            assert p.returncode == 2, (args, p.returncode, p.stderr)
            assert "%s: cannot read BTF" % elf in p.stderr, p.stderr
        p = ctx.run([_bin(ctx), "layout", elf])
        assert p.returncode < 128 and p.returncode >= 0, \
            (name, p.returncode, p.stderr)

def test_in_place_hard_link(ctx):
    """In place, the input is replaced by a new file under its name (the
    atomic rename): another hard link keeps the old contents, and the
    mode stays (docs: man page, README)."""
    obj = os.path.join(ctx.tmp, "t.o")
    shutil.copy(ctx.fixture("types_composite", "gcc", 5), obj)
    os.chmod(obj, 0o640)
    other = os.path.join(ctx.tmp, "other.o")
    os.link(obj, other)
    before = open(obj, "rb").read()
    p = ctx.run([_bin(ctx), obj])
    assert p.returncode == 0, p.stderr
    assert open(other, "rb").read() == before
    assert open(obj, "rb").read() != before
    assert ctx.btf(obj).all_types()
    st = os.stat(obj)
    assert st.st_nlink == 1 and os.stat(other).st_nlink == 1
    assert st.st_mode & 0o777 == 0o640, oct(st.st_mode)


def test_output_file_or_directory(ctx):
    """One rule for -o: a directory when OUT ends in '/', is one, or with
    --files-from; otherwise a file, for one FILE.  So a glob that matches
    one module or three means the same, and a file OUT with several FILEs
    is a usage error rather than a directory made up."""
    objs = []
    for n in ("a", "b"):
        objs.append(os.path.join(ctx.tmp, n + ".o"))
        shutil.copy(ctx.fixture("types_composite", "gcc", 5), objs[-1])
    d = os.path.join(ctx.tmp, "d")
    for args in (["-o", d + "/", objs[0]], ["-o", d + "/"] + objs):
        shutil.rmtree(d, ignore_errors=True)
        p = ctx.run([_bin(ctx)] + args)
        assert p.returncode == 0, (args, p.stderr)
        assert sorted(os.listdir(d)) == sorted(
            os.path.basename(o)[:-2] + ".btf" for o in args[2:]), args
    os.makedirs(d, exist_ok=True)
    p = ctx.run([_bin(ctx), "-o", d, objs[1]])     # an existing directory
    assert p.returncode == 0 and os.path.exists(os.path.join(d, "b.btf"))
    f = os.path.join(ctx.tmp, "f.btf")
    p = ctx.run([_bin(ctx), "-o", f] + objs)
    assert p.returncode == 2 and "names a file, for one FILE" in \
        _one_line(p.stderr), p.stderr
    assert not os.path.exists(f)
    p = ctx.run([_bin(ctx), "-o", f, objs[0]])
    assert p.returncode == 0 and os.path.isfile(f), p.stderr
    lst = os.path.join(ctx.tmp, "list")
    with open(lst, "w") as fl:
        fl.write(objs[0] + "\n")
    shutil.rmtree(d)
    p = ctx.run([_bin(ctx), "-o", d, "--files-from", lst])
    assert p.returncode == 0 and os.listdir(d) == ["a.btf"], p.stderr


def test_batch_progress_line(ctx):
    """On a terminal, several files show "[done/nr] file" on one line cut
    to the terminal's width (a wrapped line cannot be cleared), then one
    summary line; elsewhere (kbuild, scripts) nothing on success."""
    if not shutil.which("script") or not shutil.which("stty"):
        raise ctx.Skip("script(1) or stty(1) not installed")
    files = []
    for n in ("a" * 70, "b"):
        files.append(os.path.join(ctx.tmp, n + ".o"))
        shutil.copy(ctx.fixture("types_composite", "gcc", 5), files[-1])
    out = os.path.join(ctx.tmp, "out") + "/"
    cmd = "stty cols 40; %s -o %s %s" % (_bin(ctx), out, " ".join(files))
    p = ctx.run(["script", "-qc", cmd, "/dev/null"])
    assert p.returncode == 0, p.stdout + p.stderr
    # text mode reads each "\r" as a new line
    shown = [s.replace("\x1b[K", "") for s in p.stdout.splitlines()
             if s.strip()]
    assert shown[-1].strip() == "dwarf2btf: 2 files encoded into %s" % out, \
        shown
    progress = shown[:-1]
    assert [s.split()[0] for s in progress] == ["[1/2]", "[2/2]"], shown
    for s in progress:
        assert len(s) < 40, shown
    assert any(s.endswith("a.o") and "..." in s for s in progress), shown
    p = ctx.run([_bin(ctx), "-o", out] + files)     # not a terminal
    assert p.returncode == 0 and not p.stderr, p.stderr
