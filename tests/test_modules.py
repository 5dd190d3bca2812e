# SPDX-License-Identifier: GPL-2.0-only
"""Split BTF over a base (--base) and many inputs in one run.

A fixture "vmlinux" (mod_base.c) and three fixture modules (mod_[abc].c)
share mod_common.h.  The modules, relocatable objects as .ko files are,
are encoded over the base's BTF: shared types must be referred to in the
base, not repeated; each module's own types and functions must be there.
"""

import os
import shutil

import btfparse
import variants

MODS = ("mod_a", "mod_b", "mod_c")


def _base(ctx, cc, dwarf):
    obj = ctx.fixture("mod_base", cc, dwarf)
    out = os.path.join(ctx.tmp, "base.btf")
    p = ctx.run([ctx.bin, "-o", out, obj])
    if p.returncode != 0:
        raise AssertionError("base: " + p.stderr)
    return out


def _check_split(ctx, base, path, m):
    b = ctx.btf(base)
    split = ctx.btf(path, base=b)
    own = btfparse.render(split, "types")
    names = [ln.split(" ")[1] for ln in own if ln.startswith("struct ")]
    if names != ["%s_only" % m[4:]]:
        raise AssertionError("%s: own structs %s, want only %s_only "
                             "(struct shared/list_node are in the base)"
                             % (m, names, m[4:]))
    funcs = [ln for ln in btfparse.render(split)
             if ln.startswith("func %s_fn " % m[4:])]
    want = ("func %s_fn static int(struct shared *s, struct %s_only *x)"
            % (m[4:], m[4:]))
    if funcs != [want]:
        raise AssertionError("%s: %s, want %s" % (m, funcs, want))
    p = ctx.run(["bpftool", "-B", base, "btf", "dump", "file", path])
    if p.returncode != 0:
        raise AssertionError("libbpf cannot read %s over the base: %s"
                             % (path, p.stderr))


def _single(ctx, cc, dwarf):
    base = _base(ctx, cc, dwarf)
    outs = {}
    for m in MODS:
        obj = ctx.fixture(m, cc, dwarf)
        out = os.path.join(ctx.tmp, m + ".single.btf")
        p = ctx.run([ctx.bin, "--base", base, "-o", out, obj])
        if p.returncode != 0:
            raise AssertionError("%s: %s" % (m, p.stderr))
        _check_split(ctx, base, out, m)
        outs[m] = open(out, "rb").read()
    return base, outs


def _copies(ctx, cc, dwarf):
    """The fixture modules as ctx.tmp/mod_X.ko files we may change."""
    objs = []
    for m in MODS:
        dst = os.path.join(ctx.tmp, m + ".ko")
        shutil.copy(ctx.fixture(m, cc, dwarf), dst)
        objs.append(dst)
    return objs


def _batch(ctx, cc, dwarf):
    base, single = _single(ctx, cc, dwarf)
    objs = _copies(ctx, cc, dwarf)
    for jobs in ("-j1", "-j3"):
        out = os.path.join(ctx.tmp, "out" + jobs)
        p = ctx.run([ctx.bin, "--base", base, jobs, "-o", out + "/"] + objs)
        if p.returncode != 0:
            raise AssertionError("batch %s: %s" % (jobs, p.stderr))
        for m in MODS:
            got = open(os.path.join(out, m + ".btf"), "rb").read()
            if got != single[m]:
                raise AssertionError("%s %s: batch output differs from the "
                                     "single run" % (m, jobs))
    # The list from a file: one module on the command line, two in it.
    lst = os.path.join(ctx.tmp, "list")
    open(lst, "w").write("%s\n\n%s\n" % (objs[1], objs[2]))
    out = os.path.join(ctx.tmp, "out-list")
    p = ctx.run([ctx.bin, "--base", base, "-o", out, "--files-from", lst,
                 "--stats", objs[0]])
    if p.returncode != 0:
        raise AssertionError("--files-from: " + p.stderr)
    # --stats for a batch: one report, summed over the files
    if (p.stderr.count("stats: 3 files;") != 1 or
            "stats: phase base match" not in p.stderr or
            "stats: functions 6 encoded of 6" not in p.stderr):
        raise AssertionError("--stats of a batch:\n" + p.stderr)
    for m in MODS:
        if open(os.path.join(out, m + ".btf"), "rb").read() != single[m]:
            raise AssertionError("%s: --files-from output differs" % m)
    if [f for f in os.listdir(out) if f.endswith(".tmp")]:
        raise AssertionError("temp files left in " + out)


variants.each_cc_dwarf(globals(), "test_modules_", _batch)


def test_modules_bad_one_in_batch(ctx):
    # A corrupt module fails with its name; the others are written.
    base = _base(ctx, "gcc", 5)
    objs = _copies(ctx, "gcc", 5)
    bad = os.path.join(ctx.tmp, "bad.ko")
    data = bytearray(open(objs[0], "rb").read())
    data[len(data) // 3:] = b"\0" * (len(data) - len(data) // 3)
    open(bad, "wb").write(bytes(data))
    before = open(bad, "rb").read()
    out = os.path.join(ctx.tmp, "out")
    p = ctx.run([ctx.bin, "--base", base, "-j2", "-o", out + "/",
                 objs[0], bad, objs[1], objs[2]])
    if p.returncode != 1:
        raise AssertionError("exit %d, want 1\n%s" % (p.returncode, p.stderr))
    if "bad.ko" not in p.stderr:
        raise AssertionError("stderr does not name bad.ko:\n" + p.stderr)
    for m in MODS:
        if not os.path.exists(os.path.join(out, m + ".btf")):
            raise AssertionError("%s.btf missing after a bad module" % m)
    if os.path.exists(os.path.join(out, "bad.btf")):
        raise AssertionError("bad.btf written")
    if open(bad, "rb").read() != before:
        raise AssertionError("bad.ko was modified")


def test_modules_in_place(ctx):
    # Without -o, each module's .BTF section is written in place.
    base = _base(ctx, "gcc", 5)
    objs = _copies(ctx, "gcc", 5)
    p = ctx.run([ctx.bin, "--base", base, "-j2"] + objs)
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    for m, obj in zip(MODS, objs):
        _check_split(ctx, base, obj, m)


def test_modules_percpu_vars(ctx):
    # A module's per-CPU variables are VARs in its .data..percpu DATASEC,
    # at their offsets in that section (as Debian's module BTF has them).
    for cc in ("gcc", "clang"):
        base = _base(ctx, cc, 5)
        out = os.path.join(ctx.tmp, "mod_b.%s.btf" % cc)
        p = ctx.run([ctx.bin, "--base", base, "-o", out,
                     ctx.fixture("mod_b", cc, 5)])
        if p.returncode != 0:
            raise AssertionError(p.stderr)
        lines = btfparse.render(ctx.btf(out, base=ctx.btf(base)))
        got = [ln for ln in lines if ln.startswith(("var ", "datasec "))]
        # offsets as the symbol table has them (the compiler's layout)
        nm = ctx.run(["nm", ctx.fixture("mod_b", cc, 5)]).stdout.split()
        off = {n: int(nm[i - 2], 16) for i, n in enumerate(nm)
               if n in ("b_pad", "b_percpu")}
        ents = sorted([(off["b_pad"], "b_pad off=%d size=8" % off["b_pad"]),
                       (off["b_percpu"], "b_percpu off=%d size=32"
                        % off["b_percpu"])])
        want = ["datasec .data..percpu size=40 { %s; }"
                % "; ".join(e for _, e in ents),
                "var b_pad global %s" % ("long" if cc == "clang"
                                         else "long int"),
                "var b_percpu global struct b_only"]
        if got != want:
            raise AssertionError("%s: %s, want %s" % (cc, got, want))


def test_modules_list_missing(ctx):
    # An unreadable --files-from list: one line naming it, nothing written.
    lst = os.path.join(ctx.tmp, "no-such-list")
    out = os.path.join(ctx.tmp, "out")
    p = ctx.run([ctx.bin, "-o", out, "--files-from", lst])
    lines = p.stderr.strip().splitlines()
    if p.returncode != 1 or len(lines) != 1 or lst not in lines[0]:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
    if os.path.exists(out):
        raise AssertionError("output directory made")


def test_modules_same_name(ctx):
    # Two inputs that would write the same OUT/NAME.btf: refused.
    base = _base(ctx, "gcc", 5)
    a = os.path.join(ctx.tmp, "x", "mod_a.ko")
    b = os.path.join(ctx.tmp, "y", "mod_a.ko")
    for d in (a, b):
        os.makedirs(os.path.dirname(d))
        shutil.copy(ctx.fixture("mod_a", "gcc", 5), d)
    p = ctx.run([ctx.bin, "--base", base, "-o",
                 os.path.join(ctx.tmp, "out") + "/", a, b])
    if p.returncode == 0 or "mod_a.btf" not in p.stderr:
        raise AssertionError("exit %d: %s" % (p.returncode, p.stderr))
