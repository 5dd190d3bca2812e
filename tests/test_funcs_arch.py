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


def _compile(ctx, target, as_gcc):
    src = os.path.join(ctx.root, "tests", "fixtures", "funcs_arch.c")
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


def _check(ctx, target, as_gcc):
    obj = _compile(ctx, target, as_gcc)
    want = TARGETS[target][1 if as_gcc else 0]
    out = os.path.join(ctx.tmp, "fa.btf")
    btf, cmd = tf.encode(ctx, obj, out, ["--btf_features=default"])
    got = sorted(tf.line_name(ln) for ln in tf.lines_of(btf, "func"))
    if got != sorted(want):
        raise AssertionError("%s (%s DWARF): functions %s, want %s; "
                             "reproduce: %s"
                             % (target, "gcc" if as_gcc else "clang", got,
                                sorted(want), cmd))


def _make(target, as_gcc):
    def test(ctx):
        _check(ctx, target, as_gcc)
    name = re.sub(r"[^a-z0-9]+", "_", target.split("-")[0])
    test.__name__ = "test_funcs_arch_%s_%s" % (name,
                                               "gcc" if as_gcc else "clang")
    return test


for _t in TARGETS:
    for _g in (False, True):
        _fn = _make(_t, _g)
        globals()[_fn.__name__] = _fn
