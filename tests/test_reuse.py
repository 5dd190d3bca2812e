# SPDX-License-Identifier: GPL-2.0-only
"""A CU takes the types an earlier CU of its batch built (cu/type_reuse.h).

Batches are deduplicated (DWARF2BTF_BATCH_DEDUP: the fixtures are small
inputs, which otherwise take the reference path).  Every output must be
the bytes of the same run with every type built (DWARF2BTF_NO_REUSE),
with fewer types built before the dedup:

- test_epochs' program linked 43 times over (258 CUs in 9 batches), at
  -j1 and -j2;
- reuse_d[123].c: reuse_d2.c's struct user takes reuse_d1.c's, whose
  pointer names struct amb, which reuse_d2.c only declares and reuse_d3.c
  defines another way.  Every type built, the batch's dedup resolves that
  declaration and the run goes again (fwd_names.h); taking the type, the
  run must go again too, or the output keeps a declaration of amb;
- reuse_ns_[ab].cc: the same struct P in namespaces a and b keys alike,
  since keys leave the scope out, but its BTF names differ (a__P, b__P):
  C++ units take no types, or the output loses b__P.
"""

import os
import re

import btfparse
import test_epochs


def _run(ctx, prog, name, reuse, jobs=1):
    out = os.path.join(ctx.tmp, name + ".btf")
    env = dict(os.environ, DWARF2BTF_BATCH_DEDUP="1")
    if not reuse:
        env["DWARF2BTF_NO_REUSE"] = "1"
    p = ctx.run([ctx.bin, "--stats", "--no-cache", "-j%d" % jobs, "-o", out,
                 prog], env=env)
    if p.returncode != 0:
        raise AssertionError("%s failed: %s" % (name, p.stderr))
    m = re.search(r"types (\d+) before dedup", p.stderr)
    if not m:
        raise AssertionError("no type count in:\n" + p.stderr)
    again = re.search(r"runs again (\d+)", p.stderr)
    with open(out, "rb") as f:
        return f.read(), int(m.group(1)), int(again.group(1)) if again else 0


def _many(ctx, cc, dwarf):
    prog, _nr = test_epochs._many(ctx, cc, dwarf)
    built, all_in, _ = _run(ctx, prog, "all", False)
    for jobs in (1, 2):
        got, some_in, again = _run(ctx, prog, "reuse%d" % jobs, True, jobs)
        if got != built:
            raise AssertionError("-j%d: taking types changed the output"
                                 % jobs)
        # 43 copies of each unit: all but about one batch's are taken
        if some_in * 4 > all_in or again:
            raise AssertionError("-j%d: %d types built of %d, %d runs again"
                                 % (jobs, some_in, all_in, again))


def _link(ctx, cc, dwarf, fixtures, name):
    """The shared object of @fixtures built by @cc, in ctx.tmp/@name.so."""
    lib = os.path.join(ctx.tmp, name + ".so")
    p = ctx.run([cc, "-shared", "-nostdlib", "-o", lib] +
                [ctx.fixture(f, cc, dwarf) for f in fixtures])
    if p.returncode != 0:
        raise AssertionError("link failed: " + p.stderr)
    return lib


def _amb(ctx, cc, dwarf):
    lib = _link(ctx, cc, dwarf, ("reuse_d1", "reuse_d2", "reuse_d3"), "amb")
    built, all_in, again0 = _run(ctx, lib, "amb-all", False)
    got, some_in, again = _run(ctx, lib, "amb-reuse", True)
    if got != built:
        raise AssertionError("taking struct user changed the output")
    if again != 1 or some_in >= all_in:
        raise AssertionError("want one run again and fewer types built: "
                             "%d runs again, %d types of %d"
                             % (again, some_in, all_in))


def _ns(ctx, cc, dwarf):
    lib = _link(ctx, cc, dwarf, ("reuse_ns_a", "reuse_ns_b"), "ns")
    built, _, _ = _run(ctx, lib, "ns-all", False)
    got, _, _ = _run(ctx, lib, "ns-reuse", True)
    if got != built:
        raise AssertionError("taking types in C++ units changed the output")
    names = [t.name for t in btfparse.parse_raw(got).types]
    for want in ("a__P", "b__P"):
        if want not in names:
            raise AssertionError("no %s in %r" % (want, names))


def test_reuse_ns_gxx(ctx):
    _ns(ctx, "g++", 5)


def test_reuse_ns_clangxx(ctx):
    _ns(ctx, "clang++", 4)


def test_reuse_many_gcc_dwarf5(ctx):
    _many(ctx, "gcc", 5)


def test_reuse_many_clang_dwarf4(ctx):
    _many(ctx, "clang", 4)


def test_reuse_amb_gcc_dwarf4(ctx):
    _amb(ctx, "gcc", 4)


def test_reuse_amb_clang_dwarf5(ctx):
    _amb(ctx, "clang", 5)
