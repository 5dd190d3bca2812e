# SPDX-License-Identifier: GPL-2.0-only
"""Distilled base (--btf_features=...,distilled_base) and --relocate.

split_mod.c is encoded in place over split_base.c with distilled_base: its
.BTF must then be split over its own .BTF.base, which holds only named
INT/FLOAT/FWD types and named structs, unions and enums without members.
--relocate puts that .BTF over a full base again: over split_base.c it
must mean what plain split BTF does, and over split_base2.c (the same
types at other ids) too; over a base without those types it must fail.
"""

import os
import shutil

import btfparse
import variants


def _dump(ctx, ko, sec):
    out = os.path.join(ctx.tmp, os.path.basename(ko) + sec)
    p = ctx.run(["objcopy", "--dump-section", "%s=%s" % (sec, out), ko,
                 os.path.join(ctx.tmp, "junk.o")])
    if p.returncode != 0:
        raise AssertionError("no %s in %s: %s" % (sec, ko, p.stderr))
    return out


def _setup(ctx, cc, dwarf):
    bases = {}
    for b in ("split_base", "split_base2"):
        bases[b] = os.path.join(ctx.tmp, b + ".btf")
        p = ctx.run([ctx.bin, "-o", bases[b], ctx.fixture(b, cc, dwarf)])
        if p.returncode != 0:
            raise AssertionError(b + ": " + p.stderr)
    ko = os.path.join(ctx.tmp, "split_mod.ko")
    shutil.copy(ctx.fixture("split_mod", cc, dwarf), ko)
    p = ctx.run([ctx.bin, "--base", bases["split_base"],
                 "--btf_features=default,distilled_base", ko])
    if p.returncode != 0:
        raise AssertionError("distilled: " + p.stderr)
    return bases, ko


def _check(ctx, cc, dwarf):
    bases, ko = _setup(ctx, cc, dwarf)
    dist = _dump(ctx, ko, ".BTF.base")
    btf = _dump(ctx, ko, ".BTF")
    d = ctx.btf(dist)
    for t in d.all_types():
        if not t.name or t.kind not in ("int", "float", "fwd", "struct",
                                        "union", "enum"):
            raise AssertionError("distilled base has %s %r" % (t.kind, t.name))
        if t.kind in ("struct", "union", "enum") and t.vlen:
            raise AssertionError("distilled %s %s has members"
                                 % (t.kind, t.name))
    kinds = sorted("%s %s" % (t.kind, t.name) for t in d.all_types())
    # what split_mod uses of split_base: struct same (by name, empty),
    # int and unsigned int; struct opaque is its own
    for want in ("struct same", "int int", "int unsigned int"):
        if want not in kinds:
            raise AssertionError("distilled base lacks %s: %s"
                                 % (want, kinds))
    # libbpf reads the module's .BTF over its .BTF.base
    p = ctx.run(["bpftool", "-B", dist, "btf", "dump", "file", btf])
    if p.returncode != 0 or "'mod_fn'" not in p.stdout:
        raise AssertionError("bpftool: " + p.stderr)

    plain = os.path.join(ctx.tmp, "plain.btf")
    for b in ("split_base", "split_base2"):
        p = ctx.run([ctx.bin, "--base", bases[b], "-o", plain,
                     ctx.fixture("split_mod", cc, dwarf)])
        if p.returncode != 0:
            raise AssertionError(p.stderr)
        rel = os.path.join(ctx.tmp, "rel-%s.btf" % b)
        p = ctx.run([ctx.bin, "--relocate", "--base", bases[b], "-o", rel,
                     ko])
        if p.returncode != 0:
            raise AssertionError("relocate onto %s: %s" % (b, p.stderr))
        p = ctx.run([ctx.bin, "diff", "--base", bases[b], "--no-base-dups",
                     rel, plain])
        if p.returncode != 0:
            raise AssertionError("relocated onto %s differs:\n%s"
                                 % (b, p.stdout + p.stderr))


variants.each_cc_dwarf(globals(), "test_distill_", _check)


def test_distill_relocate_missing_type(ctx):
    # mod_base.c has none of split_mod's base types: one line naming one.
    bases, ko = _setup(ctx, "gcc", 5)
    other = os.path.join(ctx.tmp, "other.btf")
    p = ctx.run([ctx.bin, "-o", other, ctx.fixture("mod_base", "gcc", 5)])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    out = os.path.join(ctx.tmp, "rel.btf")
    p = ctx.run([ctx.bin, "--relocate", "--base", other, "-o", out, ko])
    lines = p.stderr.strip().splitlines()
    if (p.returncode != 1 or len(lines) != 1 or ko not in lines[0] or
            "not in the base" not in lines[0]):
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    if os.path.exists(out):
        raise AssertionError("output written")


def test_distill_relocate_usage(ctx):
    # --relocate needs --base and -o; a file without .BTF.base fails.
    bases, ko = _setup(ctx, "gcc", 5)
    p = ctx.run([ctx.bin, "--relocate", ko])
    if p.returncode != 2:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    plain = ctx.fixture("split_mod", "gcc", 5)
    p = ctx.run([ctx.bin, "--relocate", "--base", bases["split_base"], "-o",
                 os.path.join(ctx.tmp, "x.btf"), plain])
    if p.returncode != 1 or ".BTF.base" not in p.stderr:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))


def _raw_btf(types, strs):
    """Raw little-endian BTF from type bytes and a string table."""
    import struct
    hdr = struct.pack("<HBBIIIII", 0xeb9f, 1, 0, 24, 0, len(types),
                      len(types), len(strs))
    return hdr + types + strs


def test_distill_relocate_loop(ctx):
    # A hostile module: its .BTF.base is one INT, its .BTF a struct whose
    # member is a CONST referring to itself.  --relocate must finish (exit
    # 0 or 1, one line), not hang.
    import struct
    info = lambda kind, vlen=0: (kind << 24) | vlen
    dist = _raw_btf(struct.pack("<IIII", 1, info(1), 4, 32), b"\0int\0")
    # split strings continue the base's: "s" at 5, "m" at 7
    split = _raw_btf(struct.pack("<IIIIII", 5, info(4, 1), 4, 7, 3, 0) +
                     struct.pack("<III", 0, info(10), 3), b"s\0m\0")
    files = {}
    for name, data in (("base", dist), ("btf", split)):
        files[name] = os.path.join(ctx.tmp, name + ".bin")
        open(files[name], "wb").write(data)
    ko = os.path.join(ctx.tmp, "loop.ko")
    p = ctx.run(["objcopy", "--add-section", ".BTF.base=" + files["base"],
                 "--add-section", ".BTF=" + files["btf"],
                 ctx.fixture("split_fwd", "gcc", 5), ko])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    base = os.path.join(ctx.tmp, "base.btf")
    p = ctx.run([ctx.bin, "-o", base, ctx.fixture("split_base", "gcc", 5)])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    p = ctx.run([ctx.bin, "--relocate", "--base", base, "-o",
                 os.path.join(ctx.tmp, "out.btf"), ko], timeout=30)
    if p.returncode not in (0, 1) or \
            len(p.stderr.strip().splitlines()) > 1:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
