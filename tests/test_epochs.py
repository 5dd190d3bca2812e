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

Each epoch's handle is opened on a unit view (input/unit_view.c): an Elf
whose .debug_info holds the epoch's units only, so that libdw reads no
unit header before them.  --stats says how many were: all of them here,
on x86-64 and on i386 (32-bit), and none where a view cannot be made: the
other byte order (big-endian ppc64), or units that name their types by
signature (gcc's -fdebug-types-section), whose type units may lie outside
the view.  A view's offsets count from its start; an error in the last
epoch still names the CU and DIE by their offsets in the file.
"""

import os
import re
import shutil
import struct

import test_badinput as tb
import test_funcs as tf

COPIES = 43


def _many(ctx, cc, dwarf, extra=()):
    objs = [ctx.fixture(f, cc, dwarf, tuple(more) + tuple(extra))
            for f, more in tf.ALL_PARTS]
    exe = os.path.join(ctx.tmp, "many")
    cmd = [cc, "-Wl,-z,muldefs"] + objs * COPIES + ["-o", exe]
    p = ctx.run(cmd)
    if p.returncode != 0:
        raise AssertionError("link failed: %s" % p.stderr)
    # funcs_nodebug is built without DWARF: no CU
    return exe, sum("-g0" not in more for _f, more in tf.ALL_PARTS) * COPIES


def _arch_many(ctx, target, copies=258):
    """tests/fixtures/funcs_arch.c built by clang for @target (no
    headers) and linked @copies times over by ld.lld, nothing resolved."""
    lld = shutil.which("ld.lld")
    if not lld:
        raise ctx.Skip("ld.lld not installed")
    obj = os.path.join(ctx.tmp, "arch.o")
    p = ctx.run(["clang", "--target=" + target, "-O2", "-g", "-gdwarf-5",
                 "-c", os.path.join(ctx.root, "tests", "fixtures",
                                    "funcs_arch.c"), "-o", obj])
    if p.returncode != 0:
        raise AssertionError("clang --target=%s: %s" % (target, p.stderr))
    exe = os.path.join(ctx.tmp, "many")
    p = ctx.run([lld, "-z", "muldefs", "--unresolved-symbols=ignore-all",
                 "-e", "0", "-o", exe] + [obj] * copies)
    if p.returncode != 0:
        raise AssertionError("ld.lld for %s: %s" % (target, p.stderr))
    return exe, copies


def _env(large):
    # batches deduplicated as a large input's are (test_hooks.h)
    env = dict(os.environ, DWARF2BTF_BATCH_DEDUP="1")
    if large:
        env["DWARF2BTF_LARGE_BATCH_FROM"] = "100"
    return env


def _check(ctx, prog, nr, large=False, views=True, min_funcs=15,
           in_place=True, cache=True):
    """@prog's @nr CUs in epochs, on unit views if @views, else on none,
    and all read in place by our reader if @in_place (the workers read
    the file where the views are), else none (the other byte order): the
    same bytes for -j1, -j2 and -j5, and the reference path's BTF; then
    with the batch cache, the build noted, then every batch stored and
    read back, the same bytes (a candidate's DIE must be its offset in the file for its
    batch to be stored)."""
    outs = {}
    env = _env(large)
    # 258 CUs: 9 batches of 32, in epochs of 8 batches; or 3 batches of
    # 128, each an epoch of its own
    epochs = 3 if large else 2
    want = (nr, epochs, epochs if views else 0)
    for j in (1, 2, 5):
        out = os.path.join(ctx.tmp, "j%d.btf" % j)
        # the batch cache would read back the last run's batches
        p = ctx.run([ctx.bin, "--stats", "--no-cache", "-j%d" % j, "-o",
                     out, prog], env=env)
        if p.returncode != 0:
            raise AssertionError("-j%d failed: %s" % (j, p.stderr))
        m = re.search(r"CUs (\d+), libdw epochs (\d+) \((\d+) on a unit "
                      r"view\)", p.stderr)
        if not m or tuple(int(g) for g in m.groups()) != want:
            raise AssertionError("-j%d: want %d CUs in %d epochs, %d on a "
                                 "view; --stats says %r" %
                                 ((j,) + want + (m and m.group(0),)))
        r = re.search(r"CUs read in place (\d+)", p.stderr)
        if not r or int(r.group(1)) != (nr if in_place else 0):
            raise AssertionError("-j%d: want %d CUs read in place, --stats "
                                 "says %r" % (j, nr if in_place else 0,
                                              r and r.group(0)))
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
    batches = -(-nr // (128 if large else 32))
    for run, want in (("noted", "the build's first run here, noted; "
                       "nothing stored"),
                      ("stored", "0 of %d batches read back, %d stored"),
                      ("read", "%d of %d batches read back, 0 stored")):
        if not cache:
            break
        if "%" in want:
            want = want % (batches, batches)
        out = os.path.join(ctx.tmp, "cached-%s.btf" % run)
        p = ctx.run([ctx.bin, "--stats", "--cache-dir",
                     os.path.join(ctx.tmp, "cache"), "-j2", "-o", out, prog],
                    env=env)
        if p.returncode != 0 or want not in p.stderr:
            raise AssertionError("cache, %s: want %r: %s"
                                 % (run, want, p.stderr))
        with open(out, "rb") as f:
            if f.read() != outs[1]:
                raise AssertionError("cache, %s: output differs" % run)
    plain = os.path.join(ctx.tmp, "plain.btf")
    p = ctx.run([ctx.bin, "--plain-dedup", "-o", plain, prog])
    if p.returncode != 0:
        raise AssertionError("--plain-dedup failed: %s" % p.stderr)
    p = ctx.run([ctx.bin, "diff", os.path.join(ctx.tmp, "j1.btf"), plain])
    if p.returncode != 0:
        raise AssertionError("epochs and the reference path differ:\n%s"
                             % p.stdout)
    funcs = tf.lines_of(ctx.btf(os.path.join(ctx.tmp, "j1.btf")), "func")
    if len(funcs) < min_funcs:
        raise AssertionError("only %d FUNCs: %s" % (len(funcs), funcs))


def _epochs(ctx, cc, dwarf, large=False):
    prog, nr = _many(ctx, cc, dwarf)
    _check(ctx, prog, nr, large)


def test_epochs_gcc_dwarf5(ctx):
    _epochs(ctx, "gcc", 5)


def test_epochs_clang_dwarf4(ctx):
    _epochs(ctx, "clang", 4)


def test_epochs_large_batches_gcc_dwarf5(ctx):
    _epochs(ctx, "gcc", 5, large=True)


def test_epochs_large_batches_clang_dwarf4(ctx):
    _epochs(ctx, "clang", 4, large=True)


def test_epochs_i386(ctx):
    """A 32-bit file's epochs are on views too."""
    prog, nr = _arch_many(ctx, "i386-linux-gnu")
    _check(ctx, prog, nr, large=True, min_funcs=6)


def test_epochs_big_endian_no_views(ctx):
    """A file of the other byte order has its epochs, on no view."""
    prog, nr = _arch_many(ctx, "powerpc64-linux-gnu")
    # the batch cache keeps no file of the other byte order
    _check(ctx, prog, nr, large=True, views=False, min_funcs=1,
           in_place=False, cache=False)


def test_epochs_type_units_no_views(ctx):
    """Units that name types by signature have their epochs, on no view:
    a type unit may lie outside the epoch's units."""
    prog, nr = _many(ctx, "gcc", 5, ("-fdebug-types-section",))
    p = ctx.run(["readelf", "--debug-dump=info", prog])
    if "DW_UT_type" not in p.stdout:
        raise AssertionError("gcc made no type unit")
    # nor one whose units name types by signature
    _check(ctx, prog, nr, large=True, views=False, cache=False)


def test_epochs_messages_name_file_offsets(ctx):
    """A member of a CU of the last epoch refers past its unit: the error
    names that CU and the DIE by their offsets in the file's .debug_info,
    not in the epoch's view."""
    prog, _nr = _many(ctx, "gcc", 5)
    with open(prog, "rb") as f:
        data = bytearray(f.read())
    e = tb.Elf(bytes(data))
    info, abbrev = e.section(".debug_info"), e.section(".debug_abbrev")
    units = tb._parse_info(bytes(data[info.offset:info.offset + info.size]),
                           bytes(data[abbrev.offset:abbrev.offset +
                                      abbrev.size]))
    ref4 = 0x13
    for u in reversed(units):
        mem = [d for d in u.dies if d.tag == tb.DW_TAG["member"] and
               d.attr(tb.DW_AT_type) and
               d.attr(tb.DW_AT_type).form == ref4]
        if mem:
            break
    assert mem, "no member with a DW_FORM_ref4 type"
    # the last epoch (3 batches of 128) holds units 256 on
    assert units.index(u) >= 256, units.index(u)
    a = mem[0].attr(tb.DW_AT_type)
    struct.pack_into("<I", data, info.offset + a.off, u.end - u.off + 0x40)
    bad = os.path.join(ctx.tmp, "bad")
    with open(bad, "wb") as f:
        f.write(data)
    out = os.path.join(ctx.tmp, "bad.btf")
    p = ctx.run([ctx.bin, "--stats", "--no-cache", "-j2", "-o", out, bad],
                env=_env(True))
    if p.returncode != 1 or os.path.exists(out):
        raise AssertionError("bad reference: want exit 1 and no output: "
                             "%d, %s" % (p.returncode, p.stderr))
    errs = [ln for ln in p.stderr.splitlines()
            if not ln.startswith("stats:")]
    if len(errs) != 1 or bad not in errs[0]:
        raise AssertionError("want one line naming the file: %r" % errs)
    m = re.search(r"CU 0x([0-9a-f]+): DIE 0x([0-9a-f]+)", p.stderr)
    if not m:
        raise AssertionError("no CU and DIE named: %s" % p.stderr)
    cu, die = int(m.group(1), 16), int(m.group(2), 16)
    if cu != u.dies[0].off or not u.off <= die < u.end:
        raise AssertionError("want CU 0x%x and a DIE in [0x%x, 0x%x): %s"
                             % (u.dies[0].off, u.off, u.end, p.stderr))
