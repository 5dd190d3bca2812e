# SPDX-License-Identifier: GPL-2.0-only
"""Our DIE reader (abbrev_cache.c) against libdw: attributes as
dwarf_getattrs() gives them, children and siblings as dwarf_child() and
dwarf_siblingof() find them.

DWARF2BTF_LIBDW_ATTRS=1 makes libdw do all of it:
the BTF must be the same bytes.  The fixtures cover the forms gcc and
clang use for types in DWARF 4 and 5: inline and indirect strings,
implicit constants (gcc 12, DWARF 5, decl_file/decl_line), blocks and
exprlocs (member locations in DWARF 2 style), 1-8 byte data and refs,
and 8-byte section offsets (gcc -gdwarf64), and with abbrev_codes,
abbreviation codes of two bytes.
"""

import os
import variants

FIXTURES = ("types_base", "types_bitfields", "types_composite",
            "types_enums", "types_arrays", "types_funcptr", "types_tags",
            "funcs_basic", "kfuncs", "abbrev_codes")


def _same(ctx, cc, dwarf, extra=()):
    env = dict(os.environ)
    for name in FIXTURES:
        obj = ctx.fixture(name, cc, dwarf, extra)
        out = {}
        for mode in ("fast", "libdw"):
            path = os.path.join(ctx.tmp, "%s.%s.btf" % (name, mode))
            e = dict(env)
            if mode == "libdw":
                e["DWARF2BTF_LIBDW_ATTRS"] = "1"
            p = ctx.run([ctx.bin, "-o", path, obj], env=e)
            if p.returncode != 0:
                raise AssertionError("%s %s: %s" % (name, mode, p.stderr))
            with open(path, "rb") as f:
                out[mode] = f.read()
        if out["fast"] != out["libdw"]:
            raise AssertionError("%s (%s, DWARF %d%s): the attribute reader "
                                 "and libdw give different BTF"
                                 % (name, cc, dwarf, " ".join(extra)))


variants.each_cc_dwarf(globals(), "test_reader_", _same)


def test_reader_gcc_dwarf2_blocks(ctx):
    """-gstrict-dwarf -gdwarf-2: member locations as blocks."""
    _same(ctx, "gcc", 4, ("-gdwarf-2", "-gstrict-dwarf"))


def test_reader_gcc_dwarf64(ctx):
    """-gdwarf64: string offsets (and other section offsets) of 8 bytes."""
    _same(ctx, "gcc", 5, ("-gdwarf64",))
