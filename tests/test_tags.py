# SPDX-License-Identifier: GPL-2.0-only
"""btf_decl_tag annotations of functions, parameters and variables.

clang emits them as DW_TAG_LLVM_annotation children; each becomes a
DECL_TAG after the FUNC (component -1 for the function, the parameter's
index for a parameter) or the VAR, as upstream pahole encodes them.
Types' tags are covered by tests/fixtures/types_tags.c.
"""

import os

import btfparse
from test_funcs import link

WANT_FUNC = [
    "decl_tag fn_tag on func tagged_fn",
    "decl_tag fn_tag2 on func tagged_fn",
    "decl_tag p0 on func tagged_fn param a",
    "decl_tag p2 on func tagged_fn param c",
]


def _encode(ctx, dwarf, *extra):
    exe = link(ctx, "clang", dwarf, [("tags_funcs", ())], percpu=True)
    out = os.path.join(ctx.tmp, "out.btf")
    p = ctx.run([ctx.bin, *extra, "-o", out, exe])
    if p.returncode != 0:
        raise AssertionError("encoding failed:\n" + p.stderr)
    return btfparse.render(ctx.btf(out))


def _check(ctx, dwarf):
    lines = _encode(ctx, dwarf)
    got = sorted(ln for ln in lines if ln.startswith("decl_tag"))
    want = sorted(WANT_FUNC + ["decl_tag var_tag on var pcpu_tagged"])
    if got != want:
        raise AssertionError("decl tags differ:\nwant %s\ngot  %s"
                             % (want, got))
    if "func tagged_fn static int(int a, int b, int c)" not in lines:
        raise AssertionError("tagged_fn missing: %s"
                             % [ln for ln in lines if "func" in ln])


def test_decl_tags_off(ctx):
    lines = _encode(ctx, 5, "--skip_encoding_btf_decl_tag")
    got = [ln for ln in lines if ln.startswith("decl_tag")]
    if got:
        raise AssertionError("decl tags despite the option: %s" % got)


def test_decl_tags_clang_dwarf4(ctx):
    _check(ctx, 4)


def test_decl_tags_clang_dwarf5(ctx):
    _check(ctx, 5)


def test_type_tags_off(ctx):
    obj = ctx.fixture("types_tags", "clang", 5)
    out = os.path.join(ctx.tmp, "out.btf")
    for extra, want in (((), True), (("--skip_encoding_btf_type_tag",), False)):
        p = ctx.run([ctx.bin, *extra, "-o", out, obj])
        if p.returncode != 0:
            raise AssertionError("encoding failed:\n" + p.stderr)
        has = any("type_tag(" in ln for ln in btfparse.render(ctx.btf(out)))
        if has != want:
            raise AssertionError("%s: type tags %s" % (
                " ".join(extra) or "default", "present" if has else "absent"))
