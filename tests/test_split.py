# SPDX-License-Identifier: GPL-2.0-only
"""Split dedup (split_dedup.c): a module's types against an indexed base.

split_base.c is the fixture "vmlinux"; split_mod.c and split_fwd.c are
modules over it.  By libbpf's rules for split BTF (1.7 and 1.8.0):
  - struct same and const struct same * are the base's and must not be
    repeated;
  - typedef u32_t is repeated: libbpf compares typedefs with structs but
    never meets the base's, which it files under another hash;
  - struct differs has the name of a base struct but another layout: the
    module's own;
  - struct holder: the base only declares struct opaque, which the module
    defines, so they are not the same type graph (the base cannot change):
    the module keeps holder and opaque;
  - struct uses_base is the module's own, referring to base types;
  - split_fwd only declares struct full_in_base, which the base defines
    (and nothing else of that name): the declaration becomes the base's
    struct.
For both the fast path must equal --plain-dedup (libbpf's dedup) by
meaning.
"""

import os

import btfparse
import variants


def _encode(ctx, cc, dwarf):
    base = os.path.join(ctx.tmp, "split_base.btf")
    p = ctx.run([ctx.bin, "-o", base, ctx.fixture("split_base", cc, dwarf)])
    if p.returncode != 0:
        raise AssertionError("base: " + p.stderr)
    out = {}
    for m in ("split_mod", "split_fwd"):
        for mode in ("fast", "plain"):
            path = os.path.join(ctx.tmp, "%s.%s.btf" % (m, mode))
            args = [ctx.bin, "--base", base, "-o", path,
                    ctx.fixture(m, cc, dwarf)]
            if mode == "plain":
                args.insert(1, "--plain-dedup")
            p = ctx.run(args)
            if p.returncode != 0:
                raise AssertionError("%s %s: %s" % (m, mode, p.stderr))
            out[m, mode] = path
    return base, out


def _own(ctx, base, path):
    return btfparse.render(ctx.btf(path, base=ctx.btf(base)), "types")


def _check(ctx, cc, dwarf):
    base, out = _encode(ctx, cc, dwarf)
    own = _own(ctx, base, out["split_mod", "fast"])
    structs = sorted(ln.split(" ")[1] for ln in own
                     if ln.startswith("struct "))
    if structs != ["differs", "holder", "opaque", "uses_base"]:
        raise AssertionError("split_mod: own structs %s, want differs, "
                             "holder, opaque, uses_base:\n%s"
                             % (structs, "\n".join(own)))
    typedefs = [ln for ln in own if ln.startswith("typedef ")]
    if typedefs != ["typedef u32_t = unsigned int"]:
        raise AssertionError("split_mod: typedefs %s, want the base's u32_t "
                             "repeated once:\n%s" % (typedefs, "\n".join(own)))
    for m in ("split_mod", "split_fwd"):
        p = ctx.run([ctx.bin, "diff", "--base", base, out[m, "fast"],
                     out[m, "plain"]])
        if p.returncode != 0:
            raise AssertionError("%s: fast and plain paths differ:\n%s%s"
                                 % (m, p.stdout, p.stderr))
    fwd = [ln for ln in _own(ctx, base, out["split_fwd", "fast"])
           if "full_in_base" in ln]
    if fwd:
        raise AssertionError("split_fwd: declaration not resolved to the "
                             "base's struct: %s" % fwd)
    p = ctx.run(["bpftool", "-B", base, "btf", "dump", "file",
                 out["split_fwd", "fast"]])
    if p.returncode != 0 or "'fwd_fn'" not in p.stdout:
        raise AssertionError("split_fwd: libbpf cannot read it: " + p.stderr)


def test_split_diff_no_base_dups(ctx):
    """diff --no-base-dups leaves out what a side repeats of the base."""
    base, out = _encode(ctx, "gcc", 5)
    args = [ctx.bin, "diff", "--base", base, "--kinds=types",
            out["split_mod", "fast"], out["split_fwd", "fast"]]
    lines = {}
    for opt in ((), ("--no-base-dups",)):
        p = ctx.run(args[:2] + list(opt) + args[2:])
        if p.returncode != 1:
            raise AssertionError("diff %s: exit %d: %s"
                                 % (opt, p.returncode, p.stderr))
        lines[opt] = [ln.split(" (")[0] for ln in p.stdout.splitlines()
                      if ln.startswith("- struct ")]
    if lines[()] != ["- struct differs", "- struct holder", "- struct opaque",
                     "- struct uses_base"]:
        raise AssertionError("without --no-base-dups: %s" % lines[()])
    # struct holder reads as the base's; opaque is only declared there
    if lines[("--no-base-dups",)] != ["- struct differs", "- struct opaque",
                                      "- struct uses_base"]:
        raise AssertionError("with --no-base-dups: %s"
                             % lines[("--no-base-dups",)])


def test_split_dedup_base_typedefs(ctx):
    """--dedup-base-typedefs: split_mod's typedef u32_t becomes the base's
    (libbpf's rule after 1.8.0), nothing else changes, and the BTF means
    what the default's does once its copy of the base's typedef is left
    out."""
    base, out = _encode(ctx, "gcc", 5)
    fixed = os.path.join(ctx.tmp, "split_mod.fixed.btf")
    p = ctx.run([ctx.bin, "--dedup-base-typedefs", "--base", base, "-o",
                 fixed, ctx.fixture("split_mod", "gcc", 5)])
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    own = _own(ctx, base, fixed)
    default = _own(ctx, base, out["split_mod", "fast"])
    if [ln for ln in own if ln.startswith("typedef ")]:
        raise AssertionError("typedef kept:\n" + "\n".join(own))
    if sorted(own) != sorted(ln for ln in default
                             if ln != "typedef u32_t = unsigned int"):
        raise AssertionError("more than the typedef changed:\n%s\n--\n%s"
                             % ("\n".join(default), "\n".join(own)))
    p = ctx.run([ctx.bin, "diff", "--no-base-dups", "--base", base,
                 out["split_mod", "fast"], fixed])
    if p.returncode != 0:
        raise AssertionError("not the same by meaning:\n" + p.stdout)


def test_split_dedup_base_typedefs_needs_base(ctx):
    """--dedup-base-typedefs without --base is misuse: exit 2, one line,
    nothing written."""
    out = os.path.join(ctx.tmp, "nobase.btf")
    p = ctx.run([ctx.bin, "--dedup-base-typedefs", "-o", out,
                 ctx.fixture("split_mod", "gcc", 5)])
    lines = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(lines) != 1 or "--base" not in lines[0]:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    if os.path.exists(out):
        raise AssertionError("output written")


def _stale_base_fwd(ctx, cc, dwarf):
    """A module that points a base FWD at its own struct must not leave it
    so for the next module the same worker encodes (split_stale_*.c):
    split_decl comes out of a -j1 batch after it as it does alone."""
    base = os.path.join(ctx.tmp, "split_base.btf")
    p = ctx.run([ctx.bin, "-o", base, ctx.fixture("split_base", cc, dwarf)])
    if p.returncode != 0:
        raise AssertionError("base: " + p.stderr)
    stale = os.path.join(ctx.tmp, "stale.o")
    p = ctx.run(["ld", "-r", ctx.fixture("split_stale_a", cc, dwarf),
                 ctx.fixture("split_stale_b", cc, dwarf), "-o", stale])
    if p.returncode != 0:
        raise AssertionError("ld -r: " + p.stderr)
    decl = ctx.fixture("split_decl", cc, dwarf)
    alone = os.path.join(ctx.tmp, "decl.btf")
    p = ctx.run([ctx.bin, "--base", base, "-o", alone, decl])
    if p.returncode != 0:
        raise AssertionError("alone: " + p.stderr)
    own = _own(ctx, base, alone)
    if any(ln.startswith("struct ") for ln in own):
        raise AssertionError("split_decl: holder is the base's, got:\n"
                             + "\n".join(own))
    # the larger file goes first in a batch: stale.o, then split_decl
    out = os.path.join(ctx.tmp, "batch")
    p = ctx.run([ctx.bin, "--base", base, "-j1", "-o", out + "/", stale,
                 decl])
    if p.returncode != 0:
        raise AssertionError("batch: " + p.stderr)
    with open(alone, "rb") as a, \
            open(os.path.join(out, os.path.basename(decl)[:-2] + ".btf"),
                 "rb") as b:
        if a.read() != b.read():
            raise AssertionError("split_decl after the stale module differs "
                                 "from split_decl alone")


variants.each_cc_dwarf(globals(), "test_split_", _check)
variants.each_cc_dwarf(globals(), "test_split_stale_base_fwd_", _stale_base_fwd)
