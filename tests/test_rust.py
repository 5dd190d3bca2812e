# SPDX-License-Identifier: GPL-2.0-only
"""Rust units: what rustc's DWARF holds and C's does not.

tests/fixtures/rust_types.so is built by rust_types.sh from rust_types.rs
with rustc 1.97 (the rustc of Linux 7.2's Rust units): types in namespaces
(modules, functions, impls) and nested in structs, enums with a variant
part, trait objects and vtables, generics with template parameters,
closures, slices, unit and zero-sized types, an unsized struct, a
struct rustc laid out in another order than it lists the fields, and
extern "C" functions.  rust_types.expect is what pahole 1.32 encodes from
it with Linux 7.2's --btf_features, without --lang_exclude=rust: the
types (their members in offset order, as pahole sorts a Rust unit's),
and the functions it keeps (not "area", which three prototypes share,
nor rust_types_stack, whose struct on the stack pahole takes for packed
once it sorts the members).  Nothing here needs rustc or pahole.
"""
import os
import shutil

import btfparse
import test_badinput as bad

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")
FIXTURE = os.path.join(FIXTURES, "rust_types.so")
# Linux 7.2's kbuild flags, but for --lang_exclude=rust; and pahole's
# Rust enums (tests/test_rust_enums.py has ours).
FEATURES = ["--btf_features=encode_force,var,float,enum64,decl_tag,"
            "type_tag,optimized_func,consistent_func,decl_tag_kfuncs",
            "--btf_features=attributes", "--btf_features=layout",
            "--rust-enums=pahole"]
# pahole 1.32's -V lines for the functions it leaves out, word for word.
LEFT_OUT = [
    "area : skipping BTF encoding of function due to param type mismatch "
    "for param#1 self != self",
    "area : skipping BTF encoding of function due to inconsistet prototype",
    "rust_types_stack : skipping BTF encoding of function due to uncertain "
    "parameter location",
]


def _expected():
    with open(os.path.join(FIXTURES, "rust_types.expect")) as f:
        return sorted(ln.strip() for ln in f
                      if ln.strip() and not ln.startswith("#"))


def _copy(ctx):
    path = os.path.join(ctx.tmp, "rust_types.so")
    shutil.copyfile(FIXTURE, path)
    return path


def _diff(want, got):
    return "\n".join(["- " + x for x in sorted(set(want) - set(got))] +
                     ["+ " + x for x in sorted(set(got) - set(want))])


def _encode(ctx, path, out, *extra):
    p = ctx.run([ctx.bin] + FEATURES + list(extra) + ["-o", out, path])
    assert p.returncode == 0 and not p.stderr, (p.returncode, p.stderr)
    return p


def test_rust_types(ctx):
    """The fixture's BTF is pahole 1.32's, and libbpf reads it."""
    so = _copy(ctx)
    out = os.path.join(ctx.tmp, "out.btf")
    p = _encode(ctx, so, out, "-V")
    got = btfparse.render(ctx.btf(out), "all")
    want = _expected()
    assert got == want, "BTF differs from pahole 1.32's:\n" + _diff(want,
                                                                      got)
    assert p.stdout.splitlines() == LEFT_OUT, p.stdout
    if shutil.which("bpftool"):
        d = ctx.run(["bpftool", "btf", "dump", "file", out])
        assert d.returncode == 0, d.stderr
        assert "STRUCT 'Option<&rust_types::shapes::Rect>' size=8" \
            in d.stdout, d.stdout[:2000]
    # the same bytes for any -j, and through the reference path
    for extra in (["-j1"], ["-j2"], ["--plain-dedup"], ["--no-cache"]):
        o = out + extra[0]
        _encode(ctx, so, o, *extra)
        with open(o, "rb") as a, open(out, "rb") as b:
            assert a.read() == b.read(), extra
    # in place: the .BTF section holds the same
    p = ctx.run([ctx.bin] + FEATURES + [so])
    assert p.returncode == 0 and not p.stderr, p.stderr
    assert btfparse.render(ctx.btf(so), "all") == want


def test_rust_lang_exclude(ctx):
    """--lang_exclude=rust (kbuild's) leaves the only unit out: no type."""
    so = _copy(ctx)
    out = os.path.join(ctx.tmp, "out.btf")
    _encode(ctx, so, out, "--lang_exclude=rust")
    assert btfparse.render(ctx.btf(out), "all") == []
    _encode(ctx, so, out, "--lang=c")
    assert btfparse.render(ctx.btf(out), "all") == []
    _encode(ctx, so, out, "--lang=rust")
    assert btfparse.render(ctx.btf(out), "all") == _expected()


# ------------------------------------------------------ malformed input

def _dies(data):
    """The unit's DIEs (test_badinput's reader), named from .debug_str."""
    e = bad.Elf(data)
    info = e.section(".debug_info")
    abbrev = e.section(".debug_abbrev")
    dstr = e.section(".debug_str")
    units = bad._parse_info(data[info.offset:info.offset + info.size],
                            data[abbrev.offset:abbrev.offset + abbrev.size])
    assert len(units) == 1
    strs = data[dstr.offset:dstr.offset + dstr.size]
    for d in units[0].dies:
        a = d.attr(bad.DW_AT_name)
        if a is not None and a.form == 0x0e:     # DW_FORM_strp
            d.name = strs[a.value:strs.index(b"\0", a.value)].decode()
        elif a is not None and a.form == 0x08:   # DW_FORM_string
            d.name = a.value.decode()
    return e, info.offset, abbrev.offset, units[0]


def _rust_cases(data):
    e, info, abbrev, cu = _dies(data)
    dies = cu.dies
    cases = []

    def find(tag, name, parent_name=None):
        for d in dies:
            if d.tag == tag and d.name == name and (
                    parent_name is None or
                    (d.parent is not None and d.parent.name == parent_name)):
                return d
        raise AssertionError("no DIE 0x%x %s" % (tag, name))

    def member(struct, name):
        for d in dies:
            if d.parent is struct and d.tag == 0x0d and d.name == name:
                return d
        raise AssertionError("no member %s" % name)

    def set_attr(d, at, value):
        a = d.attr(at)
        assert a is not None and a.size in (1, 2, 4, 8), (d.off, at)
        return bad._patch(data, info + a.off, value, a.size)

    def add(what, new, expect):
        assert new != data, what
        cases.append(bad.Case("rust-" + what, new, expect, ".so",
                              rust=True))

    ns = find(0x39, "shapes")                     # DW_TAG_namespace
    rect = find(0x13, "Rect", "shapes")
    outer = find(0x13, "Outer", "abi")
    blob = find(0x13, "Blob", "data")
    message = find(0x13, "Message", "data")
    variant_part = [d for d in dies if d.parent is message and
                    d.tag == 0x33][0]
    discr = [d for d in dies if d.parent is variant_part and
             d.tag == 0x0d][0]
    variant = [d for d in dies if d.parent is variant_part and
               d.tag == 0x19][1]                  # DW_TAG_variant: Move
    move = [d for d in dies if d.parent is variant and d.tag == 0x0d][0]
    ring = find(0x13, "Ring<u16, 3>", "data")
    tparam = [d for d in dies if d.parent is ring and d.tag == 0x2f][0]
    w, y, tail = member(rect, "w"), member(outer, "y"), member(blob, "bytes")
    ptr = [d for d in dies if d.tag == 0x0f][0]
    loc = bad.DW_AT_data_member_location

    # The control: the fixture itself.
    cases.append(bad.Case("rust-control", data, "ok", ".so", rust=True))
    # A type in a namespace: its members' references and places.
    add("member-type-mid-die", set_attr(w, bad.DW_AT_type,
                                        rect.off - cu.off + 1), "error")
    add("member-type-namespace", set_attr(w, bad.DW_AT_type,
                                          ns.off - cu.off), "error")
    add("member-type-self", set_attr(w, bad.DW_AT_type, rect.off - cu.off),
        "error")
    add("pointer-type-namespace", set_attr(ptr, bad.DW_AT_type,
                                           ns.off - cu.off), "error")
    # Members sorted by offset: a place past the struct is still wrong,
    # in a sized struct as in the unsized one (whose element may end
    # past its size, not start there).
    add("member-past-struct", set_attr(w, loc, 0xF0), "error")
    add("unsized-tail-past-struct", set_attr(tail, loc, 0xF0), "error")
    add("struct-size-1", set_attr(rect, bad.DW_AT_byte_size, 1), "error")
    # Outer, passed on the stack, is judged packed from its members in
    # offset order before the types are checked.
    add("stack-struct-member-past", set_attr(y, loc, 0xF0), "error")
    add("stack-struct-member-at-1", set_attr(y, loc, 1), "either")
    # Template parameters are not read (as pahole); variant parts are,
    # by default (not with --rust-enums=pahole).
    add("variant-discr-type-bad", set_attr(discr, bad.DW_AT_type,
                                           cu.end - cu.off + 4), "error")
    add("variant-discr-mid-die", set_attr(variant_part, 0x15,  # DW_AT_discr
                                          discr.off - cu.off + 1), "either")
    add("variant-member-type-bad", set_attr(move, bad.DW_AT_type,
                                            cu.end - cu.off + 4), "error")
    add("variant-member-past-enum", set_attr(move, loc, 0xF0), "error")
    add("template-param-type-bad", set_attr(tparam, bad.DW_AT_type,
                                            cu.end - cu.off + 4), "either")
    # The namespace's children read as its siblings.
    add("namespace-no-children",
        bad._patch(data, abbrev + ns.abbrev.children_off, 0, 1), "either")
    # Seeded random damage to the DIEs and the abbreviations.
    for sname in (".debug_info", ".debug_abbrev"):
        s = e.section(sname)
        for i in range(12):
            name = "flip-%s-%d" % (sname.lstrip(".").replace("debug_", "d"),
                                   i)
            r = bad._rng("rust-" + name)
            b = bytearray(data)
            for _ in range(1 + i % 4):
                b[s.offset + r.randrange(s.size)] ^= r.randrange(1, 256)
            if bytes(b) != data:
                add(name, bytes(b), "either")
    return cases


def test_rust_badinput(ctx):
    """Damaged Rust DWARF fails cleanly or gives BTF libbpf loads."""
    with open(FIXTURE, "rb") as f:
        data = f.read()
    bad._run_group(ctx, _rust_cases(data), 30)
