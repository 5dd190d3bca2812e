# SPDX-License-Identifier: GPL-2.0-only
"""--stats=keys: each type's key from its DWARF (src/cu/cu_keys.c).

keys_a.c and keys_b.c hold the same types (keys_common.h) at other
offsets, in another order and under other file numbers; keys_b.c has one
type more.  Their keys must be equal, so that every type of keys_a.c
recurs.  With keys_b.c's struct local changed, that struct and its array
get keys of their own, and its name is counted as defined two ways.
keys_c.c's pointer to a struct it only declares must get the key of
keys_a.c's pointer to the whole struct (a pointer counts by the name it
points to).  The counts are the same for any -j.

keys_forms_a.c and keys_forms_b.c define the same struct, whose member
gcc's DWARF 5 gives an alignment and an offset as two implicit constants
of its abbreviation in one unit and as data1 values in the other: a
constant counts by its value, whatever its form, so the struct keys
alike in both.

abbrev_codes.c has so many abbreviations that gcc gives some of its
types' DIEs two-byte codes; abbrev_codes_b.c has one of those blocks
of types alone, with one-byte codes: every type of it must recur, the
same keys whichever way the DIEs are read (with DWARF2BTF_LIBDW_ATTRS=1
all of them through libdw).
"""

import os
import re

LINES = (r"type keys: (\d+) types, (\d+) without a key; (\d+) distinct",
         r"type keys: (\d+) members of keyed structs and unions, (\d+) "
         r"distinct",
         r"type keys: (\d+) struct and union names defined, (\d+) of them")


def _keys(ctx, cc, objs, jobs=1, name="k", env=None):
    lib = os.path.join(ctx.tmp, name + ".so")
    p = ctx.run([cc, "-shared", "-nostdlib", "-o", lib] + objs)
    if p.returncode != 0:
        raise AssertionError("link failed: " + p.stderr)
    p = ctx.run([ctx.bin, "--stats=keys", "--no-cache", "-j%d" % jobs,
                 "-o", os.path.join(ctx.tmp, name + ".btf"), lib], env=env)
    if p.returncode != 0:
        raise AssertionError("--stats=keys failed: " + p.stderr)
    got = []
    for pat in LINES:
        m = re.search(pat, p.stderr)
        if not m:
            raise AssertionError("no %r in:\n%s" % (pat, p.stderr))
        got.append(tuple(int(g) for g in m.groups()))
    # (types, unkeyed, distinct), (members, distinct), (names, twice)
    return got


def _check(ctx, cc, dwarf):
    a = ctx.fixture("keys_a", cc, dwarf)
    b = ctx.fixture("keys_b", cc, dwarf)
    b3 = ctx.fixture("keys_b", cc, dwarf, ("-DKEYS_LOCAL_LEN=3",))
    c = ctx.fixture("keys_c", cc, dwarf)
    ka = _keys(ctx, cc, [a])
    kb = _keys(ctx, cc, [b])
    kc = _keys(ctx, cc, [c])
    ta, tb = ka[0][0], kb[0][0]
    ma, mb = ka[1][0], kb[1][0]
    for k, what in ((ka, "a"), (kb, "b")):
        if k[0][1] or k[0][2] != k[0][0] or k[2][1]:
            raise AssertionError("%s alone: %r" % (what, k))
    # keys_b.c: keys_a.c's types and its own struct and short
    if tb <= ta or mb != ma + 1 or kb[2][0] != ka[2][0] + 1:
        raise AssertionError("a %r, b %r" % (ka, kb))
    ab = _keys(ctx, cc, [a, b])
    want = [(ta + tb, 0, tb), (ma + mb, mb), (kb[2][0], 0)]
    if ab != want:
        raise AssertionError("a and b: want %r, got %r" % (want, ab))
    ab2 = _keys(ctx, cc, [a, b], jobs=2, name="k2")
    if ab2 != ab:
        raise AssertionError("-j2 %r, -j1 %r" % (ab2, ab))
    ab3 = _keys(ctx, cc, [a, b3])
    want = [(ta + tb, 0, tb + 2), (ma + mb, mb + 1), (kb[2][0], 1)]
    if ab3 != want:
        raise AssertionError("a and changed b: want %r, got %r"
                             % (want, ab3))
    # keys_c.c: a declaration of struct node, and a pointer to it
    if kc[0] != (2, 0, 2):
        raise AssertionError("c alone: %r" % (kc,))
    ac = _keys(ctx, cc, [a, c])
    if ac[0] != (ta + 2, 0, ta + 1):
        raise AssertionError("a and c: want %r, got %r"
                             % ((ta + 2, 0, ta + 1), ac[0]))


def test_keys_gcc_dwarf4(ctx):
    _check(ctx, "gcc", 4)


def test_keys_gcc_dwarf5(ctx):
    _check(ctx, "gcc", 5)


def test_keys_clang_dwarf4(ctx):
    _check(ctx, "clang", 4)


def test_keys_clang_dwarf5(ctx):
    _check(ctx, "clang", 5)


def test_keys_forms(ctx):
    a = ctx.fixture("keys_forms_a", "gcc", 5)
    b = ctx.fixture("keys_forms_b", "gcc", 5)
    p = ctx.run(["readelf", "--debug-dump=abbrev", a])
    if not re.search(r"DW_AT_data_member_location\s+DW_FORM_implicit_const",
                     p.stdout):
        raise AssertionError("gcc gave keys_forms_a.c no implicit constant "
                             "offset: the test needs another input")
    ka = _keys(ctx, "gcc", [a], name="a")
    kb = _keys(ctx, "gcc", [b], name="b")
    ab = _keys(ctx, "gcc", [a, b], name="ab")
    # b's long int and struct fm_shared recur from a, nothing else
    want = [(ka[0][0] + kb[0][0], 0, ka[0][0] + kb[0][0] - 2),
            (ka[1][0] + kb[1][0], ka[1][0] + kb[1][0] - 1),
            (ka[2][0] + kb[2][0] - 1, 0)]
    if ab != want:
        raise AssertionError("want %r, got %r" % (want, ab))


def _two_byte_codes(ctx, obj):
    """How many types' DIEs of @obj have codes of two bytes."""
    p = ctx.run(["readelf", "--debug-dump=info", obj])
    return len(re.findall(r"Abbrev Number: (?:1[2-9][89]|[2-9]\d\d|1[3-9]\d)"
                          r" \(DW_TAG_(?:member|union_type|structure_type)",
                          p.stdout))


def test_keys_two_byte_codes(ctx):
    for dwarf in (4, 5):
        a = ctx.fixture("abbrev_codes", "gcc", dwarf)
        b = ctx.fixture("abbrev_codes_b", "gcc", dwarf)
        if _two_byte_codes(ctx, a) < 20 or _two_byte_codes(ctx, b):
            raise AssertionError("gcc gave abbrev_codes.c too few "
                                 "two-byte codes: the test needs another "
                                 "input")
        ka = _keys(ctx, "gcc", [a], name="mc_a")
        kb = _keys(ctx, "gcc", [b], name="mc_b")
        ab = _keys(ctx, "gcc", [a, b], name="mc_ab")
        want = [(ka[0][0] + kb[0][0], 0, ka[0][2]),
                (ka[1][0] + kb[1][0], ka[1][1]), (ka[2][0], 0)]
        if ab != want:
            raise AssertionError("DWARF %d: want %r, got %r"
                                 % (dwarf, want, ab))
        env = dict(os.environ, DWARF2BTF_LIBDW_ATTRS="1")
        lib = _keys(ctx, "gcc", [a, b], name="mc_libdw", env=env)
        if lib != ab:
            raise AssertionError("DWARF %d: through libdw %r, read in place "
                                 "%r" % (dwarf, lib, ab))


def test_stats_bad_value(ctx):
    """--stats=VALUE other than keys: exit 2, one line, nothing written."""
    out = os.path.join(ctx.tmp, "bad.btf")
    obj = ctx.fixture("keys_a", "gcc", 5)
    p = ctx.run([ctx.bin, "--stats=time", "-o", out, obj])
    lines = p.stderr.strip().splitlines()
    if p.returncode != 2 or len(lines) != 1 or "--stats" not in lines[0]:
        raise AssertionError("want exit 2 and one line, got %d:\n%s"
                             % (p.returncode, p.stderr))
    if os.path.exists(out):
        raise AssertionError("--stats=time wrote %s" % out)
