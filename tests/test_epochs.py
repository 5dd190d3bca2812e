# SPDX-License-Identifier: GPL-2.0-only
"""Reading a large input through several libdw handles (cu_queue.c epochs).

Past 8 batches of 32 CUs, CUs are read in epochs, each through a libdw
handle of its own that is ended when its last batch is done, so that what
libdw caches per CU does not pile up (docs/design.md).  The fixtures are
small, so these tests link the objects of test_funcs' programs 43 times
over (258 CUs with DWARF, `-z muldefs`) and check that the epochs were used and
change nothing: the same bytes for -j1, -j2 and -j5, and the same BTF by
meaning as the reference path (--plain-dedup, which reads every CU through
one handle).  The same again with a large input's batches (a test hook
makes 258 CUs a large input: 3 batches of 128, each an epoch of its own,
lib/cu_batch.h).
"""

import os
import re

import test_funcs as tf

COPIES = 43


def _many(ctx, cc, dwarf):
    objs = [ctx.fixture(f, cc, dwarf, tuple(extra))
            for f, extra in tf.ALL_PARTS]
    exe = os.path.join(ctx.tmp, "many")
    cmd = [cc, "-Wl,-z,muldefs"] + objs * COPIES + ["-o", exe]
    p = ctx.run(cmd)
    if p.returncode != 0:
        raise AssertionError("link failed: %s" % p.stderr)
    # funcs_nodebug is built without DWARF: no CU
    return exe, sum("-g0" not in extra for _f, extra in tf.ALL_PARTS) * COPIES


def _epochs(ctx, cc, dwarf, large=False):
    prog, nr = _many(ctx, cc, dwarf)
    outs = {}
    # batches deduplicated as a large input's are (test_hooks.h)
    env = dict(os.environ, DWARF2BTF_BATCH_DEDUP="1")
    # 258 CUs: 9 batches of 32, in epochs of 8 batches; or 3 batches of
    # 128, each an epoch of its own
    want = (nr, 2)
    if large:
        env["DWARF2BTF_LARGE_BATCH_FROM"] = "100"
        want = (nr, 3)
    for j in (1, 2, 5):
        out = os.path.join(ctx.tmp, "j%d.btf" % j)
        p = ctx.run([ctx.bin, "--stats", "-j%d" % j, "-o", out, prog],
                    env=env)
        if p.returncode != 0:
            raise AssertionError("-j%d failed: %s" % (j, p.stderr))
        m = re.search(r"CUs (\d+), libdw epochs (\d+)", p.stderr)
        if not m or (int(m.group(1)), int(m.group(2))) != want:
            raise AssertionError("-j%d: want %d CUs in %d epochs, --stats "
                                 "says %r" % (j, nr, want[1],
                                              m and m.group(0)))
        b = re.search(r"batches (\d+), of (\d+) CUs at most", p.stderr)
        size = 128 if large else 32
        if not b or (int(b.group(1)), int(b.group(2))) != \
                (-(-nr // size), size):
            raise AssertionError("-j%d: want batches of %d, --stats says "
                                 "%r" % (j, size, b and b.group(0)))
        with open(out, "rb") as f:
            outs[j] = f.read()
    for j in (2, 5):
        if outs[j] != outs[1]:
            raise AssertionError("-j%d output differs from -j1" % j)
    plain = os.path.join(ctx.tmp, "plain.btf")
    p = ctx.run([ctx.bin, "--plain-dedup", "-o", plain, prog])
    if p.returncode != 0:
        raise AssertionError("--plain-dedup failed: %s" % p.stderr)
    p = ctx.run([ctx.bin, "diff", os.path.join(ctx.tmp, "j1.btf"), plain])
    if p.returncode != 0:
        raise AssertionError("epochs and the reference path differ:\n%s"
                             % p.stdout)
    funcs = tf.lines_of(ctx.btf(os.path.join(ctx.tmp, "j1.btf")), "func")
    if len(funcs) < 15:
        raise AssertionError("only %d FUNCs: %s" % (len(funcs), funcs))


def test_epochs_gcc_dwarf5(ctx):
    _epochs(ctx, "gcc", 5)


def test_epochs_clang_dwarf4(ctx):
    _epochs(ctx, "clang", 4)


def test_epochs_large_batches_gcc_dwarf5(ctx):
    _epochs(ctx, "gcc", 5, large=True)


def test_epochs_large_batches_clang_dwarf4(ctx):
    _epochs(ctx, "clang", 4, large=True)
