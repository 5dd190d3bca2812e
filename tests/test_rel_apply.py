# SPDX-License-Identifier: GPL-2.0-only
"""A relocatable file's relocations of DWARF applied from the file, a
piece at a time (src/input/rel_apply.c), against the reference: the same
relocation sections read whole and left to libdwfl (the test hook
DWARF2BTF_READ_RELOCS).  tests/fixtures/rel_many.c has a relocation
section of DWARF larger than the 8 KiB below which elf_file.c reads one
whole (.debug_info's, or clang's DWARF 5 .debug_str_offsets'): the same
bytes for gcc and clang, DWARF 4 and 5, and the names and functions it
holds; then copies of it with one relocation made into each kind
rel_apply.c leaves to libdwfl, with its relocation section laid over
another section or marked compressed, and with its target laid over the
ELF header: the same exit status both ways, and the same bytes when it
is 0.
"""

import os
import struct

READ_WHOLE = dict(os.environ, DWARF2BTF_READ_RELOCS="1")
UNREAD_MIN = 8 << 10


def _sections(data):
    """(name, offset of its header, sh_type, sh_offset, sh_size,
    sh_info) of each section of an ELF64 little-endian file."""
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    str_off, = struct.unpack_from("<Q", data, shoff + shstrndx * 64 + 24)
    out = []
    for i in range(shnum):
        h = shoff + i * 64
        name, typ = struct.unpack_from("<II", data, h)
        off, size = struct.unpack_from("<QQ", data, h + 24)
        info, = struct.unpack_from("<I", data, h + 44)
        end = data.index(b"\0", str_off + name)
        out.append((data[str_off + name:end].decode(), h, typ, off, size,
                    info))
    return out


def _largest_rela(data):
    secs = _sections(data)
    relas = [s for s in secs if s[2] == 4 and s[0].startswith(".rela.debug_")]
    return max(relas, key=lambda s: s[4]), secs


def _run_both(ctx, path, tag, flags=()):
    outs = []
    for env, name in ((None, "apply"), (READ_WHOLE, "whole")):
        out = os.path.join(ctx.tmp, "%s.%s.btf" % (tag, name))
        if os.path.exists(out):
            os.unlink(out)
        p = ctx.run([ctx.bin, "--no-cache", "-o", out] + list(flags) +
                    [path], env=env)
        data = open(out, "rb").read() if p.returncode == 0 else None
        outs.append((p.returncode, data, p.stderr))
    return outs


def test_rel_apply_same_bytes(ctx):
    bad = []
    for cc in ("gcc", "clang"):
        for dwarf in (4, 5):
            obj = ctx.fixture("rel_many", cc, dwarf)
            data = open(obj, "rb").read()
            rela, _ = _largest_rela(data)
            # three of rel_apply.c's 64 KiB pieces
            if rela[4] < 2 * (64 << 10):
                bad.append("%s DWARF %d: largest %s only %d bytes"
                           % (cc, dwarf, rela[0], rela[4]))
                continue
            (ra, a, ea), (rb, b, eb) = _run_both(ctx, obj, "%s%d" % (cc,
                                                                   dwarf))
            if ra or rb or a != b:
                bad.append("%s DWARF %d: exit %d/%d, %s\n%s%s"
                           % (cc, dwarf, ra, rb,
                              "same bytes" if a == b else "other bytes",
                              ea, eb))
                continue
            btf = ctx.btf(os.path.join(ctx.tmp, "%s%d.apply.btf"
                                       % (cc, dwarf)))
            structs = {t.name: t for t in btf.all_types()
                       if t.kind == "struct"}
            funcs = {t.name for t in btf.all_types() if t.kind == "func"}
            s = structs.get("many_137")
            want = ["member_%s137_%d" % (p, i) for p in "abcd"
                    for i in range(10)]
            if len(structs) != 200 or not s or \
                    [m[0] for m in s.members] != want or \
                    [m[2] for m in s.members] != [32 * i for i in range(40)]:
                bad.append("%s DWARF %d: %d structs, many_137 %s"
                           % (cc, dwarf, len(structs),
                              s.members if s else None))
            if len([f for f in funcs if f.startswith("fn_")]) != 200:
                bad.append("%s DWARF %d: %d functions"
                           % (cc, dwarf, len(funcs)))
    if bad:
        raise AssertionError("\n".join(bad))


def _broken(data, rela, k, r_offset=None, r_info=None):
    buf = bytearray(data)
    at = rela[3] + k * 24
    off, info = struct.unpack_from("<QQ", buf, at)
    struct.pack_into("<QQ", buf, at,
                     off if r_offset is None else r_offset,
                     info if r_info is None else r_info)
    return bytes(buf)


def test_rel_apply_headers_kept(ctx):
    """clang's DWARF 5 object has two relocation sections of DWARF left
    out of the copy: the first one's target laid over the ELF header, with
    a relocation into e_shoff, must neither be applied (libdwfl refuses
    such a target) nor move the headers the second one is read by."""
    obj = ctx.fixture("rel_many", "clang", 5)
    data = open(obj, "rb").read()
    secs = _sections(data)
    relas = [s for s in secs if s[2] == 4 and s[0].startswith(".rela.debug_")
             and s[4] >= UNREAD_MIN]
    assert len(relas) >= 2, "want two large relocation sections: %s" % relas
    rela = relas[0]
    _, info = struct.unpack_from("<QQ", data, rela[3])
    blob = bytearray(_broken(data, rela, 0, r_offset=0x28,
                             r_info=(info >> 32) << 32 | 1))
    struct.pack_into("<q", blob, rela[3] + 16, 0x40000000)
    struct.pack_into("<QQ", blob, secs[rela[5]][1] + 24, 0, 0x40)
    path = os.path.join(ctx.tmp, "headers.o")
    with open(path, "wb") as f:
        f.write(blob)
    (ra, a, ea), (rb, b, eb) = _run_both(ctx, path, "headers")
    if ra != rb or a != b or ra not in (0, 1):
        raise AssertionError("exit %d/%d, %s\n%s%s"
                             % (ra, rb, "same" if a == b else "other",
                                ea, eb))


def test_rel_apply_left_to_libdwfl(ctx):
    obj = ctx.fixture("rel_many", "gcc", 5)
    data = open(obj, "rb").read()
    rela, secs = _largest_rela(data)
    n = rela[4] // 24
    k = n // 2          # in the second of rel_apply.c's pieces
    _, info = struct.unpack_from("<QQ", data, rela[3] + k * 24)
    sym, typ = info >> 32, info & 0xffffffff
    target = secs[rela[5]]
    cases = {
        "offset past the section": _broken(data, rela, k,
                                           r_offset=target[4] - 2),
        "offset far past it": _broken(data, rela, k, r_offset=1 << 40),
        "symbol past the table": _broken(data, rela, k,
                                         r_info=(0xfffff << 32) | typ),
        "no symbol": _broken(data, rela, k, r_info=typ),
        "a PC-relative type": _broken(data, rela, k, r_info=sym << 32 | 2),
        "an unknown type": _broken(data, rela, k, r_info=sym << 32 | 250),
        "last entry, 64-bit": _broken(data, rela, n - 1,
                                      r_info=sym << 32 | 1),
    }
    # the relocation section laid over another section: read whole
    over = bytearray(data)
    struct.pack_into("<Q", over, rela[1] + 24, target[3])
    cases["laid over its target"] = bytes(over)
    # its target laid over the ELF header, and a relocation into e_shoff:
    # libdwfl refuses such a target, and nothing may write the headers
    hdr = bytearray(_broken(data, rela, k, r_offset=0x28,
                            r_info=sym << 32 | 1))
    struct.pack_into("<q", hdr, rela[3] + k * 24 + 16, 0x40000000)
    struct.pack_into("<QQ", hdr, target[1] + 24, 0, 0x40)
    cases["target over the ELF header"] = bytes(hdr)
    # a compressed relocation section is libdwfl's to decompress
    comp = bytearray(data)
    flags, = struct.unpack_from("<Q", comp, rela[1] + 8)
    struct.pack_into("<Q", comp, rela[1] + 8, flags | 0x800)
    cases["relocations compressed"] = bytes(comp)
    bad = []
    for i, (what, blob) in enumerate(sorted(cases.items())):
        path = os.path.join(ctx.tmp, "broken%d.o" % i)
        with open(path, "wb") as f:
            f.write(blob)
        (ra, a, ea), (rb, b, eb) = _run_both(ctx, path, "broken%d" % i)
        if ra != rb or a != b or ra not in (0, 1) or \
                (ra == 1 and len(ea.strip().splitlines()) != 1):
            bad.append("%s: exit %d/%d, %s\n%s%s"
                       % (what, ra, rb,
                          "same bytes" if a == b else "other bytes",
                          ea, eb))
        if open(path, "rb").read() != blob:
            bad.append("%s: input changed" % what)
    if bad:
        raise AssertionError("\n".join(bad))


def test_rel_apply_section_addresses(ctx):
    """Relocations against loaded sections are applied here only where
    libdwfl relocates against the addresses it wrote into the headers
    without a bias.  The global variables (global_var) are placed by their
    relocated addresses: the same bytes as libdwfl's own relocation, and
    each of the 200 at its offset in .bss, as the file gives them, with a
    later loaded section at an address of its own (kept by libdwfl or laid
    out again) and with the first one at an address of its own (a bias:
    left to libdwfl)."""
    obj = ctx.fixture("rel_many", "gcc", 5)
    data = open(obj, "rb").read()
    secs = _sections(data)
    loaded = []
    for i, s in enumerate(secs):
        flags, = struct.unpack_from("<Q", data, s[1] + 8)
        if flags & 2:           # SHF_ALLOC
            loaded.append(i)
    assert len(loaded) >= 2, "want two loaded sections: %s" % loaded
    cases = {"as it is": data}
    for what, idx, addr in (("first at 0x1000", loaded[0], 0x1000),
                            ("second at 0x18", loaded[1], 0x18),
                            ("last at 0x40000", loaded[-1], 0x40000)):
        blob = bytearray(data)
        struct.pack_into("<Q", blob, secs[idx][1] + 16, addr)
        cases[what] = bytes(blob)
    want = {"var_%d" % n: 160 * (209 - n) for n in range(10, 210)}
    bad = []
    for i, (what, blob) in enumerate(sorted(cases.items())):
        path = os.path.join(ctx.tmp, "addr%d.o" % i)
        with open(path, "wb") as f:
            f.write(blob)
        (ra, a, ea), (rb, b, eb) = _run_both(
            ctx, path, "addr%d" % i, ["--btf_features=default,global_var"])
        if ra or rb or a != b:
            bad.append("%s: exit %d/%d, %s\n%s%s"
                       % (what, ra, rb,
                          "same bytes" if a == b else "other bytes",
                          ea, eb))
            continue
        btf = ctx.btf(os.path.join(ctx.tmp, "addr%d.apply.btf" % i))
        bss = [t for t in btf.all_types()
               if t.kind == "datasec" and t.name == ".bss"]
        got = {}
        for t in bss:
            for v in t.vars:
                got[btf.type_by_id(v[0]).name] = v[1]
        if got != want:
            bad.append("%s: .bss holds %d variables, %d where they are"
                       % (what, len(got),
                          len([k for k in got if got[k] == want.get(k)])))
    if bad:
        raise AssertionError("\n".join(bad))
