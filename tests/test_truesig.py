# SPDX-License-Identifier: GPL-2.0-only
"""--btf_features=...,true_signature: functions as the optimizer left them.

Upstream pahole 1.31's rules (docs/functions.md, "true_signature"):
  - a clang function marked DW_CC_nocall loses the parameters that are not
    passed (a constant, or no location and the next parameter already in
    this one's register), and a struct of which one member alone arrives
    in a register becomes that member, named "param__member";
  - a candidate at the address of a clone symbol ("foo.isra.0") whose
    parameters are in their ABI registers is emitted under that symbol,
    with the parameters its DWARF lists;
  - functions with optimized-away parameters are no longer left out.

clang 14 here never writes DW_CC_nocall, so the clang case reads
tests/fixtures/funcs_truesig_clang19_dwarf{4,5}.s: funcs_truesig.c
compiled by Debian's clang-19 (funcs_truesig.sh regenerates them).  The
expectations were checked against pahole 1.31's output for the same
programs.  gcc's clones come from funcs_clones.c, compiled here.

Each test encodes twice, without and with true_signature, and asserts
both outputs: what the feature changes, and that it changes nothing else.
"""

import os

import test_funcs as tf

TS = ["--btf_features=default,true_signature"]
DEFAULT = ["--btf_features=default"]

MAIN = tf.MAIN
TS_MAIN = ("ts_main", "func ts_main static long(int argc)",
           "§1.2: global function, nothing changed")
SMALL_Y = ("ts_small_y",
           "func ts_small_y static long(struct ts_small s, long z)",
           "8-byte struct in one register, signature unchanged (no nocall)")

CLANG19_DEFAULT = [
    MAIN, TS_MAIN, SMALL_Y,
    ("ts_use_a", "func ts_use_a static long(struct ts_pair p, long x)",
     "nocall, every parameter has a location: emitted as in the source"),
    ("ts_use_b", None,
     "nocall and 'unused' has no location: optimized, left out"),
    ("ts_use_ab", None, "nocall, 'unused' optimized: left out"),
    ("ts_drop_mid", None, "nocall, 'unused' optimized: left out"),
    ("ts_const", None, "nocall, 'k' is a constant: left out"),
]

CLANG19_TS = [
    MAIN, TS_MAIN, SMALL_Y,
    ("ts_use_a", "func ts_use_a static long(long p__a, long x)",
     "p arrives as p.a alone (DW_OP_reg5, DW_OP_piece 8): p__a"),
    ("ts_use_b", "func ts_use_b static long(long p__b, long x)",
     "p arrives as p.b alone (DW_OP_piece 8, DW_OP_reg5, DW_OP_piece 8): "
     "p__b; 'unused' is not passed"),
    ("ts_use_ab", "func ts_use_ab static long(struct ts_pair p)",
     "both halves of p in registers: p stays; 'unused' is not passed"),
    ("ts_drop_mid", "func ts_drop_mid static long(long a, long c)",
     "'unused' has no location and c is in rsi: dropped"),
    ("ts_const", "func ts_const static long(long a)",
     "'k' is the constant 3: dropped"),
]


def _clang19_prog(ctx, dwarf):
    src = os.path.join(ctx.root, "tests", "fixtures",
                       "funcs_truesig_clang19_dwarf%d.s" % dwarf)
    obj = os.path.join(ctx.tmp, "truesig.o")
    exe = os.path.join(ctx.tmp, "truesig")
    for cmd in (["gcc", "-c", src, "-o", obj], ["gcc", obj, "-o", exe]):
        p = ctx.run(cmd)
        if p.returncode != 0:
            raise AssertionError("%s: %s" % (" ".join(cmd), p.stderr))
    return exe


def _clang19(ctx, dwarf):
    prog = _clang19_prog(ctx, dwarf)
    what = "funcs_truesig clang-19 DWARF %d" % dwarf
    btf, cmd = tf.encode(ctx, prog, os.path.join(ctx.tmp, "d.btf"), DEFAULT)
    tf.check_cases(what + " default", btf, "func", CLANG19_DEFAULT, set(),
                   cmd)
    btf, cmd = tf.encode(ctx, prog, os.path.join(ctx.tmp, "t.btf"), TS)
    tf.check_cases(what + " true_signature", btf, "func", CLANG19_TS, set(),
                   cmd)
    _same_but_funcs(ctx, what, os.path.join(ctx.tmp, "d.btf"),
                    os.path.join(ctx.tmp, "t.btf"))


def _same_but_funcs(ctx, what, a, b):
    """Apart from FUNCs and their prototypes, the outputs are equal."""
    p = ctx.run([ctx.bin, "diff", "--kinds=types,vars,tags", a, b])
    if p.returncode != 0:
        raise AssertionError("%s: true_signature changed more than "
                             "functions:\n%s" % (what, p.stdout + p.stderr))


def test_truesig_clang19_dwarf4(ctx):
    _clang19(ctx, 4)


def test_truesig_clang19_dwarf5(ctx):
    _clang19(ctx, 5)


def test_truesig_strict(ctx):
    # Listed by --supported_btf_features, so strict parsing takes it.
    p = ctx.run([ctx.bin, "--supported_btf_features"])
    if "true_signature" not in p.stdout.strip().split(","):
        raise AssertionError("not in --supported_btf_features: %r"
                             % p.stdout)
    prog = _clang19_prog(ctx, 5)
    out = os.path.join(ctx.tmp, "s.btf")
    p = ctx.run([ctx.bin, "--btf_features_strict=true_signature", "-o",
                 out, prog])
    if p.returncode != 0:
        raise AssertionError("strict true_signature: %s" % p.stderr)
    names = [tf.line_name(ln) for ln in tf.lines_of(ctx.btf(out), "func")]
    if "ts_const" not in names:
        raise AssertionError("strict true_signature: no ts_const in %s"
                             % names)


def _clone_of(elf, n):
    """The clone symbol of static function n ("n.isra.0"), or None when
    the compiler made none or also kept n itself."""
    clones = [s[0] for s in elf.funcs(prefix=n + ".")]
    if len(clones) != 1 or elf.funcs(n):
        return None
    return clones[0]


def _gcc_clones(ctx, cc, dwarf):
    prog = ctx.link("funcs_clones", cc, dwarf)
    what = "funcs_clones true_signature (%s, DWARF %d)" % (cc, dwarf)
    elf = tf.Elf(prog)
    d_out = os.path.join(ctx.tmp, "d.btf")
    t_out = os.path.join(ctx.tmp, "t.btf")
    tf.encode(ctx, prog, d_out, DEFAULT)
    btf, cmd = tf.encode(ctx, prog, t_out, TS)
    _same_but_funcs(ctx, what, d_out, t_out)
    if cc == "clang":
        # No clones and no DW_CC_nocall from clang 14: nothing changes.
        with open(d_out, "rb") as f, open(t_out, "rb") as g:
            if f.read() != g.read():
                raise AssertionError("%s: output changed; reproduce: %s"
                                     % (what, cmd))
        return
    protos = {"clone_dead": "int(int used, int unused)",
              "clone_const": "int(int a, int mode)",
              "clone_keep": "int(int a, int b)"}
    cases, skipped = [MAIN], {}
    for n, proto in sorted(protos.items()):
        clone = _clone_of(elf, n)
        if not clone:
            skipped[n] = "%s made no single clone of %s" % (cc, n)
            continue
        cases.append((clone, "func %s static %s" % (clone, proto),
                      "the clone under its own symbol, with the "
                      "parameters its DWARF lists"))
        cases.append((n, None, "no FUNC under the key when the clone "
                      "has one"))
    clone = _clone_of(elf, "clone_byref")
    cases.append((clone or "clone_byref", None,
                  "y arrives in rsi, not rdi: unexpected register, no "
                  "true signature either"))
    tf.check_cases(what, btf, "func", cases, set(skipped), cmd)
    tf.finish(what, skipped)


def _make(cc, dwarf):
    def test(ctx):
        try:
            _gcc_clones(ctx, cc, dwarf)
        except tf.SkipCases as e:
            raise ctx.Skip(str(e))
    return test


for _cc in tf.CCS:
    for _dw in tf.DWARFS:
        globals()["test_truesig_clones_%s_dwarf%d" % (_cc, _dw)] = \
            _make(_cc, _dw)
