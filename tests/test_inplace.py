# SPDX-License-Identifier: GPL-2.0-only
"""In place, as kbuild runs us: the BTF goes into FILE's .BTF section
however the linker left it.  ld.lld keeps the kernel linker script's empty,
allocated .BTF in the first link (.tmp_vmlinux1); kbuild then extracts
that section with objcopy and links it into the final image.
"""

import os
import shutil

from test_output import Elf, _check_elf, _check_readelf

SHF_ALLOC = 2
SHT_PROGBITS = 1
ET_REL = 1


def _link(ctx, cc, dwarf):
    """funcs_basic.c and types_tags.c from @cc, linked by ld.lld with the
    kernel's .BTF output section."""
    lld = shutil.which("ld.lld")
    if not lld:
        raise ctx.Skip("ld.lld not installed")
    objs = [ctx.fixture(n, cc, dwarf) for n in ("funcs_basic", "types_tags")]
    out = os.path.join(ctx.tmp, "vmlinux.%s%d" % (cc, dwarf))
    lds = os.path.join(ctx.root, "tests", "fixtures", "kernel_btf.lds")
    p = ctx.run([lld, "-T", lds, "--build-id=sha1", "-o", out] + objs)
    assert p.returncode == 0, p.stderr
    s = Elf(out).sec(".BTF")
    assert s and s["flags"] & SHF_ALLOC and s["size"] == 0, \
        "ld.lld made no empty allocated .BTF: %r" % s
    return out


def _symbols(ctx, path):
    p = ctx.run(["nm", path])
    assert p.returncode == 0, p.stderr
    return {f[2]: int(f[0], 16) for f in
            (line.split() for line in p.stdout.splitlines()) if len(f) == 3}


def _check(ctx, cc, dwarf):
    linked = _link(ctx, cc, dwarf)
    raw = linked + ".btf"
    p = ctx.run([ctx.bin, "-o", raw, linked])
    assert p.returncode == 0, p.stderr
    want = open(raw, "rb").read()
    assert len(want) > 100, len(want)

    f = shutil.copy(linked, linked + ".inplace")
    p = ctx.run([ctx.bin, f])
    assert p.returncode == 0 and not p.stderr, p.stderr
    # Exactly what -o writes; every other section and segment as it was;
    # the header keeps the linker's flags and address.
    t = _check_elf(linked, f, ".BTF", want, allow_alloc=True)
    s = Elf(linked).sec(".BTF")
    keep = ("name", "flags", "addr", "addralign")
    assert {k: t[k] for k in keep} == {k: s[k] for k in keep}, (t, s)
    assert t["type"] == SHT_PROGBITS and t["size"] == len(want)
    _check_readelf(linked, f)

    # Again on the result: same bytes, the file does not grow.
    size = os.path.getsize(f)
    p = ctx.run([ctx.bin, f])
    assert p.returncode == 0 and not p.stderr, p.stderr
    e = Elf(f)
    assert e.data(e.sec(".BTF")) == want
    assert os.path.getsize(f) == size, (os.path.getsize(f), size)

    # kbuild's gen_btf: the section alone, made allocated, as ET_REL,
    # linked into the final image between __start_BTF and __stop_BTF.
    oc = shutil.which("llvm-objcopy") or "objcopy"
    btf_o = f + ".btf.o"
    p = ctx.run([oc, "--only-section=.BTF",
                 "--set-section-flags", ".BTF=alloc,readonly",
                 "--strip-all", f, btf_o])
    assert p.returncode == 0, p.stderr
    with open(btf_o, "r+b") as fh:
        fh.seek(16)
        fh.write(ET_REL.to_bytes(2, "little"))
    objs = [ctx.fixture(n, cc, dwarf) for n in ("funcs_basic", "types_tags")]
    final = f + ".final"
    lds = os.path.join(ctx.root, "tests", "fixtures", "kernel_btf.lds")
    p = ctx.run(["ld.lld", "-T", lds, "--build-id=sha1", "-o", final] +
                objs + [btf_o])
    assert p.returncode == 0, p.stderr
    e = Elf(final)
    assert e.data(e.sec(".BTF")) == want
    sym = _symbols(ctx, final)
    assert sym["__stop_BTF"] - sym["__start_BTF"] == len(want), sym
    assert sym["__start_BTF"] == e.sec(".BTF")["addr"]
    # The final image's BTF is what the first link's was.
    p = ctx.run([ctx.bin, "-o", final + ".btf", final])
    assert p.returncode == 0, p.stderr
    p = ctx.run([ctx.bin, "diff", final, final + ".btf"])
    assert p.returncode == 0, p.stdout + p.stderr
    return want


def test_lld_gcc_dwarf4(ctx):
    _check(ctx, "gcc", 4)


def test_lld_gcc_dwarf5(ctx):
    _check(ctx, "gcc", 5)


def test_lld_clang_dwarf4(ctx):
    _check(ctx, "clang", 4)


def test_lld_clang_dwarf5(ctx):
    btf = _check(ctx, "clang", 5)
    assert b"user" in btf, "clang's type tags are missing"


def test_lld_unchanged_on_error(ctx):
    """A failure (here: no DWARF) leaves the linked file as it was."""
    linked = _link(ctx, "clang", 5)
    stripped = linked + ".nodebug"
    p = ctx.run(["objcopy", "--strip-debug", linked, stripped])
    assert p.returncode == 0, p.stderr
    before = open(stripped, "rb").read()
    p = ctx.run([ctx.bin, stripped])
    assert p.returncode == 1, (p.returncode, p.stderr)
    assert p.stderr.startswith("dwarf2btf: ") and \
        len(p.stderr.splitlines()) == 1, p.stderr
    assert open(stripped, "rb").read() == before
    assert sorted(os.listdir(ctx.tmp)) == sorted(
        [os.path.basename(linked), os.path.basename(stripped)])
