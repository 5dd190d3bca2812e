# SPDX-License-Identifier: GPL-2.0-only
"""Function candidates of other machines than x86-64.

pahole 1.31 checks a parameter's location against the argument registers
of the machine the file is for (arch__set_register_params()): x86-64 six,
s390 five (r2-r6), arm and arm64 eight (r0-r7, x0-x7); on sparc, mips,
ppc, riscv and arc it knows how many there are but not which, and on any
other machine (i386 among them) it checks nothing.  A struct of two words
takes two registers, except on s390.

tests/fixtures/funcs_arch.c is compiled here by clang for each machine
(freestanding: no headers), as an object file.  The expected functions
were checked against pahole 1.31's output for the same objects:
  - clang's DWARF (a parameter in a register none of its own: unexpected):
    on riscv64 and ppc64le pahole expects no particular register, so every
    function whose parameters have registers is left out but the one with
    a struct parameter (structs are exempt);
  - the same DWARF read as gcc's (its producer rewritten in the assembly),
    which takes pahole's other path: the parameters of every machine are
    where its ABI says, so all are kept.
Before the machine was taken into account, x86-64's registers were
expected everywhere: one function of seven was left on arm64, s390x and
arm, six on i386.

pahole's "uncertain parameter location" rule depends on the machine too:
a function with at least as many parameters as argument registers, and
after those a named struct by value that looks packed, is left out (on a
machine without known registers, any such parameter).
tests/fixtures/funcs_packed.c has one of each kind of struct (packed, a
hole, tail bytes, bit-fields, aligned(1), behind a typedef) after six
parameters, one first and one after eight.  PACKED gives what pahole 1.31
keeps for x86-64 (gcc 12 and clang, DWARF 4 and 5), s390x, arm64 and i386.
"""

import os
import re

import test_funcs as tf

ALL = ["fa_call_unused", "fa_f10", "fa_f8", "fa_skip_first",
       "fa_structs", "fa_unused", "fa_use_skip"]

# target: (FUNCs from clang's DWARF, FUNCs from the same as gcc's)
TARGETS = {
    "aarch64-linux-gnu": (ALL, ALL),
    "arm-linux-gnueabi": (ALL, ALL),
    "s390x-linux-gnu": (ALL, ALL),
    "riscv64-linux-gnu": (["fa_structs"], ALL),
    "powerpc64le-linux-gnu": (["fa_structs"], ALL),
    "i386-linux-gnu": (ALL, ALL),
    "x86_64-linux-gnu": (ALL, ALL),
}


PK_KEPT = ["pk7_al1", "pk7_bits", "pk7_hole", "pk7_plain", "pk7_typedef"]
PACKED = {
    # 6 registers: the struct after them is on the stack, pk9's too
    "x86_64-linux-gnu": ["pk1"] + PK_KEPT,
    # 5 registers
    "s390x-linux-gnu": ["pk1"] + PK_KEPT,
    # 8 registers: only pk9's struct comes after them
    "aarch64-linux-gnu": ["pk1", "pk7", "pk7_tail"] + PK_KEPT,
    # no registers known: every packed struct counts, pk1's too
    "i386-linux-gnu": PK_KEPT,
}


def _compile(ctx, target, as_gcc, fixture="funcs_arch"):
    src = os.path.join(ctx.root, "tests", "fixtures", fixture + ".c")
    asm = os.path.join(ctx.tmp, "fa.s")
    obj = os.path.join(ctx.tmp, "fa.o")
    p = ctx.run(["clang", "--target=" + target, "-O2", "-g", "-S", src,
                 "-o", asm])
    if p.returncode != 0:
        raise AssertionError("clang --target=%s: %s" % (target, p.stderr))
    with open(asm) as f:
        text = f.read()
    if as_gcc:
        text, n = re.subn(r'"[^"\n]*clang version[^"\n]*"',
                          '"GNU C17 12.2.0 -O2"', text)
        if n < 1:
            raise AssertionError("%s: %d producer strings" % (target, n))
    with open(asm, "w") as f:
        f.write(text)
    p = ctx.run(["clang", "--target=" + target, "-c", asm, "-o", obj])
    if p.returncode != 0:
        raise AssertionError("assembling for %s: %s" % (target, p.stderr))
    return obj


def _funcs_of(ctx, obj, want, what):
    out = os.path.join(ctx.tmp, "fa.btf")
    btf, cmd = tf.encode(ctx, obj, out, ["--btf_features=default"])
    got = sorted(tf.line_name(ln) for ln in tf.lines_of(btf, "func"))
    if got != sorted(want):
        raise AssertionError("%s: functions %s, want %s; reproduce: %s"
                             % (what, got, sorted(want), cmd))


def _make(fixture, target, as_gcc, want):
    """A test: ``fixture`` built for ``target`` (its DWARF read as gcc's
    with ``as_gcc``) encodes exactly the functions ``want``."""
    mode = "gcc" if as_gcc else "clang"

    def test(ctx):
        obj = _compile(ctx, target, as_gcc, fixture)
        _funcs_of(ctx, obj, want, "%s %s (%s DWARF)"
                  % (fixture, target, mode))
    name = re.sub(r"[^a-z0-9]+", "_", target.split("-")[0])
    test.__name__ = "test_%s_%s_%s" % (fixture, name, mode)
    return test


for _t, (_clang, _gcc) in TARGETS.items():
    for _fn in (_make("funcs_arch", _t, False, _clang),
                _make("funcs_arch", _t, True, _gcc)):
        globals()[_fn.__name__] = _fn
for _t, _want in PACKED.items():
    for _g in (False, True):
        _fn = _make("funcs_packed", _t, _g, _want)
        globals()[_fn.__name__] = _fn


def _native_packed(ctx, cc, dwarf):
    obj = ctx.fixture("funcs_packed", cc, dwarf)
    _funcs_of(ctx, obj, PACKED["x86_64-linux-gnu"],
              "funcs_packed (%s, DWARF %d)" % (cc, dwarf))


def test_funcs_packed_gcc_dwarf4(ctx):
    _native_packed(ctx, "gcc", 4)


def test_funcs_packed_gcc_dwarf5(ctx):
    _native_packed(ctx, "gcc", 5)


def test_funcs_packed_clang_dwarf4(ctx):
    _native_packed(ctx, "clang", 4)


def test_funcs_packed_clang_dwarf5(ctx):
    _native_packed(ctx, "clang", 5)
