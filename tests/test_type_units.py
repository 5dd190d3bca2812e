# SPDX-License-Identifier: GPL-2.0-only
"""Type units (gcc's -fdebug-types-section): a unit names a struct, union
or enum of a type unit only by its DW_AT_signature, through a stub DIE.
Such a stub stands for the type unit's type, so a linked file built with
type units (DWARF 4's .debug_types, DWARF 5's type units in .debug_info)
gives the BTF of the same file built without them, with no anonymous
empty struct in it, for any -j, in batches or not; in C++ each type is
named in the namespaces and classes around it in its type unit (around
its declaration there, which gcc's definition names by
DW_AT_specification); types that only a method's declaration, a template
argument, a pointer to a member or an enum's underlying type names in a
type unit are there too; `dwarf2btf layout` checks as many structs as in
the plain build.  A relocatable file
keeps each type unit in a section group of its own, which libdw does not
read: the run is an error naming the stub, and writes nothing.  The
gcc 16 libraries are committed (fixtures/type_units.sh made them).
"""
import os
import re

import btfparse

SOURCES = ("type_units_a", "type_units_b")
CXX_SOURCES = ("type_units_cxx",)
# What the C and the C++ fixtures must have, as BTF names them.
NAMES = {
    "gcc": ("tu_point", "tu_box", "tu_shape", "tu_color", "tu_opaque",
            "tu_packed", "tu_small"),
    "g++": ("geo__Point", "geo__Box_geo__Point_", "geo__detail__Kind",
            "geo__detail__Shape", "geo__detail__Shape__Extent",
            "geo__detail__Only", "geo__detail__Palette",
            "geo__detail__Palette__Color", "_anon__Hidden", "q__RetOnly",
            "q__ParamOnly", "q__TagOnly", "q__Cont", "q__Decls__Ev",
            "q__Str_char_"),
}


def _lib(ctx, cc, dwarf, units):
    extra = ("-fdebug-types-section",) if units else ()
    sources = CXX_SOURCES if cc == "g++" else SOURCES
    objs = [ctx.fixture(s, cc, dwarf, extra) for s in sources]
    lib = os.path.join(ctx.tmp, "tu-%s-%d-%d.so" % (cc, dwarf, units))
    p = ctx.run([cc, "-shared", "-nostdlib", "-o", lib] + objs)
    if p.returncode != 0:
        raise AssertionError("link failed: " + p.stderr)
    return objs, lib


def _encode(ctx, path, name, jobs=1, env=None):
    out = os.path.join(ctx.tmp, name + ".btf")
    p = ctx.run([ctx.bin, "--no-cache", "-j%d" % jobs, "-o", out, path],
                env=env)
    if p.returncode != 0:
        raise AssertionError("%s: exit %d\n%s" % (path, p.returncode,
                                                  p.stderr))
    with open(out, "rb") as f:
        return f.read(), out


def _has_type_units(ctx, lib, dwarf):
    p = ctx.run(["readelf", "-S", "--wide", lib])
    if dwarf == 4:
        return ".debug_types" in p.stdout
    p = ctx.run(["readelf", "--debug-dump=info", lib])
    return "DW_UT_type" in p.stdout


def _check(ctx, cc, dwarf):
    _, plain = _lib(ctx, cc, dwarf, False)
    objs, lib = _lib(ctx, cc, dwarf, True)
    _compare(ctx, plain, lib, dwarf, NAMES[cc])
    # A relocatable file's type units are out of libdw's reach.
    out = os.path.join(ctx.tmp, "obj.btf")
    p = ctx.run([ctx.bin, "--no-cache", "-o", out, objs[0]])
    err = p.stderr.strip().splitlines()
    if (p.returncode != 1 or os.path.exists(out) or len(err) != 1 or
            "no type unit found for its DW_AT_" not in err[0] or
            objs[0] not in err[0]):
        raise AssertionError("exit %d, %r" % (p.returncode, p.stderr))


def _compare(ctx, plain, lib, dwarf, want_names=NAMES["gcc"]):
    if not _has_type_units(ctx, lib, dwarf):
        raise AssertionError("%s has no type units" % lib)
    _, want_path = _encode(ctx, plain, "plain")
    got, got_path = _encode(ctx, lib, "units")
    want = btfparse.render(btfparse.load(want_path))
    have = btfparse.render(btfparse.load(got_path))
    if have != want:
        raise AssertionError("with type units:\n%s\nwithout:\n%s"
                             % (have, want))
    btf = btfparse.load(got_path)
    names = {t.name for t in btf.all_types()
             if t.kind in ("struct", "union", "enum")}
    for n in want_names:
        if n not in names:
            raise AssertionError("no %s in %s" % (n, sorted(names)))
    for t in btf.all_types():
        if t.kind == "struct" and not t.name and not t.vlen:
            raise AssertionError("an empty anonymous struct: %r" % t)
    # dwarf2btf layout reads the type units too: as many structs checked
    # as in the plain build, all at their place in the BTF.
    checked = []
    for f, btf in ((plain, want_path), (lib, got_path)):
        p = ctx.run([ctx.bin, "layout", f, btf])
        m = re.search(r"layout: (\d+) structs/unions checked, "
                      r"0 mismatches, 0 not in the BTF", p.stderr + p.stdout)
        if p.returncode != 0 or not m or not int(m.group(1)):
            raise AssertionError("layout %s: exit %d\n%s%s"
                                 % (f, p.returncode, p.stdout, p.stderr))
        checked.append(int(m.group(1)))
    if checked[0] != checked[1]:
        raise AssertionError("layout checked %d structs of the plain build, "
                             "%d with type units" % tuple(checked))
    # The same bytes at -j2, and in a batch as a large input's, where a
    # CU takes the types the CU before it built (a stub has no key, so
    # what reaches one is built again).
    env = dict(os.environ, DWARF2BTF_BATCH_DEDUP="1")
    for jobs, e, what in ((2, None, "-j2"), (1, env, "batches"),
                          (2, env, "batches -j2")):
        again, _ = _encode(ctx, lib, "again", jobs, e)
        if again != got:
            raise AssertionError("%s: other bytes" % what)


def test_type_units_gcc_dwarf4(ctx):
    _check(ctx, "gcc", 4)


def test_type_units_gcc_dwarf5(ctx):
    _check(ctx, "gcc", 5)


def test_type_units_gxx_dwarf4(ctx):
    _check(ctx, "g++", 4)


def test_type_units_gxx_dwarf5(ctx):
    _check(ctx, "g++", 5)


def _gcc16(ctx, dwarf):
    base = os.path.join(ctx.root, "tests", "fixtures",
                        "type_units_gcc16_dwarf%d" % dwarf)
    _compare(ctx, base + "_plain.so", base + ".so", dwarf)


def test_type_units_gcc16_dwarf4(ctx):
    _gcc16(ctx, 4)


def test_type_units_gcc16_dwarf5(ctx):
    _gcc16(ctx, 5)
