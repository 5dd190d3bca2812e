# SPDX-License-Identifier: GPL-2.0-only
"""The base read in place (lib/btf_view.c, btf_load__view()).

One module over a base, changed in place or written beside, reads the
base where the file's pages are; a file set (and anything else that runs
over the base) has libbpf read it.  Whichever way, and in whichever form
the base comes (raw or an ELF file's .BTF, a 24- or 32-byte header, either
byte order), the output must be the same bytes; a base the view does not
take goes to libbpf, which must say what is wrong with a bad one as
before.
"""

import os
import shutil
import struct

import variants
from test_modules import _base


def _base_forms(ctx, cc, dwarf):
    """The fixture base as raw BTF, and as an ELF file with .BTF."""
    raw = _base(ctx, cc, dwarf)
    elf = os.path.join(ctx.tmp, "base.o")
    shutil.copy(ctx.fixture("mod_base", cc, dwarf), elf)
    p = ctx.run([ctx.bin, elf])
    if p.returncode != 0:
        raise AssertionError("base in place: " + p.stderr)
    return raw, elf


def _encode(ctx, base, tag, obj, place):
    """OBJ over BASE: beside it (raw) or in place, alone (the view) or as
    one of a file set (libbpf's BTF of the base).  Returns the bytes."""
    d = os.path.join(ctx.tmp, tag)
    os.makedirs(d, exist_ok=True)
    mod = os.path.join(d, "mod.ko")
    other = os.path.join(d, "other.ko")
    shutil.copy(obj, mod)
    shutil.copy(obj, other)
    alone = tag.startswith("alone")
    if place:
        args = [mod] if alone else [mod, other]
        out = mod
    elif alone:
        out = os.path.join(d, "mod.btf")
        args = ["-o", out, mod]
    else:
        args = ["-o", d + "/out/", mod, other]
        out = os.path.join(d, "out", "mod.btf")
        os.makedirs(d + "/out", exist_ok=True)
    p = ctx.run([ctx.bin, "--no-cache", "--base", base] + args)
    if p.returncode != 0:
        raise AssertionError("%s: %s" % (tag, p.stderr))
    return open(out, "rb").read()


def _same_bytes(ctx, cc, dwarf):
    raw, elf = _base_forms(ctx, cc, dwarf)
    obj = ctx.fixture("mod_a", cc, dwarf)
    for place in (False, True):
        want = _encode(ctx, raw, "set-raw-%d" % place, obj, place)
        for base, name in ((raw, "raw"), (elf, "elf")):
            got = _encode(ctx, base, "alone-%s-%d" % (name, place), obj,
                          place)
            if got != want:
                raise AssertionError("%s base, %s: output differs from a "
                                     "file set's" % (name, "in place"
                                                     if place else "raw"))


variants.each_cc_dwarf(globals(), "test_base_view_same_", _same_bytes)


def _swapped(data):
    """Raw BTF DATA in the other byte order: after the header, every field
    of a type record is a 32-bit word."""
    magic, ver, flags, hdr_len = struct.unpack_from("<HBBI", data)
    words = struct.unpack_from("<%dI" % ((hdr_len - 8) // 4), data, 8)
    type_off, type_len = words[0], words[1]
    t0 = hdr_len + type_off
    types = struct.unpack_from("<%dI" % (type_len // 4), data, t0)
    out = bytearray(data)
    struct.pack_into(">HBBI", out, 0, magic, ver, flags, hdr_len)
    struct.pack_into(">%dI" % len(words), out, 8, *words)
    struct.pack_into(">%dI" % len(types), out, t0, *types)
    return bytes(out)


def _long_header(data, layout):
    """Raw BTF DATA with the 32-byte header of libbpf 1.7 (two more words:
    zero, or a layout section of LAYOUT bytes put before the strings)."""
    hdr_len = struct.unpack_from("<I", data, 4)[0]
    type_off, type_len, str_off, str_len = struct.unpack_from("<4I", data, 8)
    body = data[hdr_len:]
    types = body[type_off:type_off + type_len]
    strs = body[str_off:str_off + str_len]
    if layout:
        lay = b"\0" * layout
        words = (0, len(types), len(types) + layout, len(strs),
                 len(types), layout)
        body = types + lay + strs
    else:
        words = (0, len(types), len(types), len(strs), 0, 0)
        body = types + strs
    return (struct.pack("<HBBI", 0xeb9f, 1, 0, 32) +
            struct.pack("<6I", *words) + body)


def test_base_view_forms_left_to_libbpf(ctx):
    # Forms the view does not take, or takes only partly, give the same
    # output as the plain raw base.
    raw, _ = _base_forms(ctx, "gcc", 5)
    obj = ctx.fixture("mod_a", "gcc", 5)
    data = open(raw, "rb").read()
    want = _encode(ctx, raw, "alone-plain", obj, False)
    forms = {
        "swapped": _swapped(data),
        "long-header": _long_header(data, 0),
        "layout": _long_header(data, 16),
    }
    for name, blob in forms.items():
        path = os.path.join(ctx.tmp, "base-%s.btf" % name)
        open(path, "wb").write(blob)
        got = _encode(ctx, path, "alone-" + name, obj, False)
        if got != want:
            raise AssertionError("base %s: output differs" % name)


def test_base_view_bad_base(ctx):
    # A base that fails the checks is reported as before, by libbpf's
    # reading or by ours: exit 1, one line naming it, nothing written.
    raw, _ = _base_forms(ctx, "gcc", 5)
    data = bytearray(open(raw, "rb").read())
    hdr_len, type_off, type_len = struct.unpack_from("<III", data, 4)
    cases = {}
    # The first type's "type" field points past the last type.
    bad_ref = bytearray(data)
    t0 = hdr_len + type_off
    kinds = []
    off = t0
    while off < t0 + type_len:
        info = struct.unpack_from("<I", data, off + 4)[0]
        kind, vlen = (info >> 24) & 0x1f, info & 0xffff
        kinds.append((off, kind))
        size = 12 + {1: 4, 3: 12, 4: 12 * vlen, 5: 12 * vlen, 6: 8 * vlen,
                     13: 8 * vlen, 14: 4, 15: 12 * vlen, 17: 4,
                     19: 12 * vlen}.get(kind, 0)
        off += size
    ptr = [o for o, k in kinds if k == 2]
    if not ptr:
        raise AssertionError("the fixture base has no pointer")
    struct.pack_into("<I", bad_ref, ptr[0] + 8, 0x7ffffff0)
    cases["bad type id"] = (bytes(bad_ref), "bad type id")
    # A struct's last member refers past the last type, or is named
    # past the strings: the view checks members in the walk that
    # indexes the types.
    structs = [(o, vlen) for o, k in kinds if k == 4
               for vlen in [struct.unpack_from("<I", data, o + 4)[0]
                            & 0xffff] if vlen]
    if not structs:
        raise AssertionError("the fixture base has no struct with members")
    off, vlen = structs[-1]
    member = off + 12 + 12 * (vlen - 1)
    bad_member = bytearray(data)
    struct.pack_into("<I", bad_member, member + 4, len(kinds) + 1)
    cases["member type"] = (bytes(bad_member), "bad type id")
    bad_name = bytearray(data)
    struct.pack_into("<I", bad_name, member,
                     struct.unpack_from("<I", data, 20)[0])
    cases["member name"] = (bytes(bad_name), "bad name offset")
    # The strings do not end in a NUL.
    no_nul = bytearray(data)
    no_nul[-1] = ord("x")
    cases["strings"] = (bytes(no_nul), "cannot read BTF")
    # Cut in the middle of the types.
    cases["cut"] = (bytes(data[:t0 + type_len // 2]), "cannot read BTF")
    obj = ctx.fixture("mod_a", "gcc", 5)
    for name, (blob, msg) in cases.items():
        path = os.path.join(ctx.tmp, "bad-%s.btf" % name.replace(" ", "-"))
        open(path, "wb").write(blob)
        out = os.path.join(ctx.tmp, "out-%s.btf" % name.replace(" ", "-"))
        p = ctx.run([ctx.bin, "--no-cache", "--base", path, "-o", out, obj])
        lines = p.stderr.strip().splitlines()
        if (p.returncode != 1 or len(lines) != 1 or path not in lines[0] or
                msg not in lines[0]):
            raise AssertionError("%s: exit %d, want 1 and one line with "
                                 "%r:\n%s" % (name, p.returncode, msg,
                                              p.stderr))
        if os.path.exists(out):
            raise AssertionError("%s: output written" % name)


def _alone_and_set(ctx, base, obj, tag):
    """OBJ over BASE in place alone and in a file set: the same bytes."""
    for place in (True, False):
        alone = _encode(ctx, base, "alone-%s-%d" % (tag, place), obj, place)
        in_set = _encode(ctx, base, "set-%s-%d" % (tag, place), obj, place)
        if alone != in_set:
            raise AssertionError("%s, %s: alone and in a file set differ"
                                 % (tag, "in place" if place else "raw"))


def test_base_view_needs_libbpf(ctx):
    # Modules whose output needs libbpf's BTF of the base, which a lone
    # module then reads after all: C++ units (members of classes no unit
    # defines become bytes through it) and a module in the other byte
    # order (an s390x object over a little-endian base).
    raw, _ = _base_forms(ctx, "gcc", 5)
    _alone_and_set(ctx, raw, ctx.fixture("cxx_members", "g++", 5), "cxx")
    fx = os.path.join(ctx.root, "tests", "fixtures")
    obj = os.path.join(ctx.tmp, "s390x.o")
    p = ctx.run(["clang", "--target=s390x-linux-gnu", "-ffreestanding",
                 "-g", "-O2", "-c", "-I", fx, os.path.join(fx, "mod_a.c"),
                 "-o", obj])
    if p.returncode != 0:
        raise ctx.Skip("clang cannot build for s390x: " + p.stderr[:200])
    _alone_and_set(ctx, raw, obj, "s390x")
    out = os.path.join(ctx.tmp, "s390x.btf")
    p = ctx.run([ctx.bin, "--no-cache", "--base", raw, "-o", out, obj])
    if p.returncode != 0 or open(out, "rb").read()[:2] != b"\xeb\x9f":
        raise AssertionError("s390x: not big-endian BTF: " + p.stderr)


def _elf_shdr_at(data, name):
    """The file offset of section NAME's header in ELF64 little-endian
    DATA."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    entsize, num, strndx = struct.unpack_from("<HHH", data, 0x3a)
    stroff, = struct.unpack_from("<Q", data, shoff + strndx * entsize + 24)
    for i in range(num):
        at = shoff + i * entsize
        n, = struct.unpack_from("<I", data, at)
        end = data.index(b"\0", stroff + n)
        if data[stroff + n:end] == name:
            return at
    raise AssertionError("no section %r" % name)


def test_base_view_odd_files(ctx):
    # A FIFO as the base fails at once (it must not block the open), and a
    # .BTF whose section type is not PROGBITS (libelf gives no bytes for
    # it) fails as libbpf's reading says, not taken by the view.
    obj = ctx.fixture("mod_a", "gcc", 5)
    fifo = os.path.join(ctx.tmp, "fifo")
    os.mkfifo(fifo)
    out = os.path.join(ctx.tmp, "out.btf")
    p = ctx.run([ctx.bin, "--no-cache", "--base", fifo, "-o", out, obj],
                timeout=20)
    if p.returncode != 1 or "not a regular file" not in p.stderr:
        raise AssertionError("FIFO base: exit %d\n%s"
                             % (p.returncode, p.stderr))
    _, elf = _base_forms(ctx, "gcc", 5)
    data = bytearray(open(elf, "rb").read())
    struct.pack_into("<I", data, _elf_shdr_at(data, b".BTF") + 4, 2)
    bad = os.path.join(ctx.tmp, "symtab-btf.o")
    open(bad, "wb").write(bytes(data))
    p = ctx.run([ctx.bin, "--no-cache", "--base", bad, "-o", out, obj])
    if p.returncode != 1 or "cannot read BTF" not in p.stderr:
        raise AssertionError(".BTF of type SYMTAB: exit %d\n%s"
                             % (p.returncode, p.stderr))
    if os.path.exists(out):
        raise AssertionError("output written over a bad base")
