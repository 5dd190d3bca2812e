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


# gcc >= 15's annotations (tests/fixtures/gnu_annot.s, written by hand).
GNU_WANT = [
    "decl_tag dfn1 on func gfn",
    "decl_tag dfn2 on func gfn",
    "decl_tag dmem on struct s member p",
    "decl_tag dparam on func gfn param x",
    "decl_tag dstruct on struct s",
    "func gfn static int(int x)",
    "int int size=4 signed",
    # PTR -> TYPE_TAG t_inner -> TYPE_TAG t_outer -> int
    "struct s size=8 { p int type_tag(t_outer) type_tag(t_inner) * off=0; }",
]


def _gnu_object(ctx, edit=None):
    src = os.path.join(ctx.root, "tests", "fixtures", "gnu_annot.s")
    with open(src) as f:
        text = f.read()
    if edit:
        if edit[0] not in text:
            raise AssertionError("fixture changed: no %r" % edit[0])
        text = text.replace(edit[0], edit[1])
    asm = os.path.join(ctx.tmp, "gnu_annot.s")
    obj = os.path.join(ctx.tmp, "gnu_annot.o")
    with open(asm, "w") as f:
        f.write(text)
    p = ctx.run(["gcc", "-c", asm, "-o", obj])
    if p.returncode != 0:
        raise AssertionError("as: " + p.stderr)
    return obj


def _gnu_encode(ctx, obj, *extra):
    out = os.path.join(ctx.tmp, "gnu.btf")
    p = ctx.run([ctx.bin, *extra, "-o", out, obj])
    if p.returncode != 0:
        raise AssertionError("encoding failed:\n" + p.stderr)
    return sorted(btfparse.render(ctx.btf(out)))


def test_gnu_annotations(ctx):
    got = _gnu_encode(ctx, _gnu_object(ctx))
    if got != GNU_WANT:
        raise AssertionError("gcc annotations:\nwant %s\ngot  %s"
                             % (GNU_WANT, got))


def test_gnu_annotations_off(ctx):
    obj = _gnu_object(ctx)
    got = _gnu_encode(ctx, obj, "--skip_encoding_btf_type_tag")
    if "type_tag(" in " ".join(got) or \
            "decl_tag dfn1 on func gfn" not in got:
        raise AssertionError("--skip_encoding_btf_type_tag: %s" % got)
    got = _gnu_encode(ctx, obj, "--skip_encoding_btf_decl_tag")
    if any(ln.startswith("decl_tag") for ln in got) or \
            "type_tag(t_inner)" not in " ".join(got):
        raise AssertionError("--skip_encoding_btf_decl_tag: %s" % got)


def test_gnu_annotations_old_gcc(ctx):
    """gcc < 15 emits none: its CUs are not searched (and here give none)."""
    obj = _gnu_object(ctx, ("GNU C17 15.1.0", "GNU C17 12.2.0"))
    got = _gnu_encode(ctx, obj)
    if any("tag" in ln for ln in got):
        raise AssertionError("annotations read from a gcc 12 CU: %s" % got)


def test_gnu_annotation_loop(ctx):
    """A chain that loops is an error naming the DIE, not a hang."""
    for link in (".Lann_t2", ".Lann_df2"):
        first = link.replace("2", "1")
        obj = _gnu_object(ctx, ("\t.long\t%s - .Linfo" % link,
                                "\t.long\t%s - .Linfo" % first))
        out = os.path.join(ctx.tmp, "loop.btf")
        p = ctx.run([ctx.bin, "-o", out, obj])
        if p.returncode == 0 or "annotation chain" not in p.stderr or \
                "DIE 0x" not in p.stderr or os.path.exists(out):
            raise AssertionError("%s loop: exit %d, %s"
                                 % (link, p.returncode, p.stderr))


def test_gnu_annotations_after_dwarf_given_back(ctx):
    """A relocatable file's DWARF is given back once its CUs are encoded:
    decl tags and CU names inline in .debug_info (DW_FORM_string) must be
    kept by then.  gnu_annot.s's DIEs are put on whole pages of
    .debug_info (a long producer before them, another CU after them), so
    that they are given back."""
    obj = _gnu_object(ctx, ("GNU C17 15.1.0", "GNU C17 15.1.0 " + "x" * 10000))
    pad_c = os.path.join(ctx.tmp, "pad.c")
    with open(pad_c, "w") as f:
        f.write("struct big {\n%s};\nstruct big big_var;\n"
                % "".join("\tint member_%d;\n" % i for i in range(1500)))
    pad_o = os.path.join(ctx.tmp, "pad.o")
    both = os.path.join(ctx.tmp, "both.o")
    for cmd in (["gcc", "-g", "-O2", "-c", pad_c, "-o", pad_o],
                ["ld", "-r", obj, pad_o, "-o", both]):
        p = ctx.run(cmd)
        if p.returncode != 0:
            raise AssertionError("%s: %s" % (cmd[0], p.stderr))
    got = _gnu_encode(ctx, both)
    missing = [ln for ln in GNU_WANT if ln not in got]
    if missing:
        raise AssertionError("lost: %s\ngot %s" % (missing, got))
    p = ctx.run([ctx.bin, "explain", both, "gfn"])
    if p.returncode != 0 or "candidate from gnu_annot.c" not in p.stdout:
        raise AssertionError("explain: exit %d\n%s%s"
                             % (p.returncode, p.stdout, p.stderr))
