# SPDX-License-Identifier: GPL-2.0-only
"""Generated malformed inputs: dwarf2btf must fail cleanly, never crash.

The cases are made from tests/fixtures/bad_base.c, compiled with gcc and
clang, -g -O2, DWARF 4 and 5, as an object file and as a linked executable
(eight "variants"), by:

  truncate  cutting the file at ~45 offsets each: inside the ELF and
            program headers, the section header table and the first, a
            middle and the last bytes of .debug_info, .debug_abbrev,
            .debug_str, .debug_line, .symtab, .strtab, .shstrtab;
  flip      seeded (deterministic) random byte changes inside .debug_info,
            .debug_abbrev, .debug_str, .debug_line, .symtab, .strtab (and
            .debug_str_offsets, .debug_line_str where present);
  shdr      ELF and section header fields: sh_offset / sh_size past the
            end of the file, bad sh_type, sh_link, sh_entsize, sh_name,
            SHF_COMPRESSED on plain data, e_shoff, e_shnum, e_shstrndx,
            e_shentsize, e_ident;
  dwarf     precise edits of .debug_info / .debug_abbrev found by parsing
            them here (DIE offsets cross-checked against readelf): a
            DW_AT_type pointing outside the CU, into the CU header, into
            the middle of a DIE or to a non-type DIE; a typedef and a
            pointer referring to themselves; a struct containing itself by
            value (directly and through a typedef); enormous array counts;
            members placed outside their struct; unknown abbrev codes and
            forms; broken unit headers; DW_AT_sibling cycles;
  misc      not ELF, empty file, ELF without DWARF, directory, FIFO,
            nonexistent path; as controls, the unmodified variants and an
            object without functions (tests/fixtures/bad_nofuncs.c).

Every case runs twice, writing raw BTF (-o OUT) and rewriting the input in
place, each with a 20 s timeout.  Each run must end in one of:

  error  exit status 1, exactly one line on stderr that starts with
         "dwarf2btf: " and names the input path, the input byte-identical
         afterwards, nothing else left in its directory (no temp file) and
         no OUT created;
  valid  exit status 0 with BTF that is valid: bpftool (libbpf) dumps it
         ("bpftool btf dump file OUT") and it breaks none of the kernel's
         structural rules checked by _btf_problems() (no type loop through
         typedefs, modifiers or pointers, no type containing itself by
         value, no array over 4 GiB, no member beyond its struct); in
         place, the new .BTF section must equal what -o wrote.

Never acceptable: a signal, another exit status, a sanitizer report, a
timeout.  Each case says which outcomes it accepts: "error" where the file
is broken in a way the encoder must notice (it needs the damaged data, or
BTF cannot express what the DWARF now says), "either" (error or valid)
where the damage may leave a file that still reads as valid DWARF (a
changed byte in a string, a line table nobody reads, a header field libelf
ignores), "ok" (valid only) for the controls.  The comments at each case
say why.

One test function per group (run.py runs two at a time).  Its assertion
names every failing case, grouped by how they fail with one shown in full,
and the failing inputs are kept, as they were before the run, under
failed/ in the test's temporary directory: rerun one with
"build/dwarf2btf [-o OUT] INPUT".  "run.py -v" prints, per group, how many
runs ended which way.
"""

import os
import random
import re
import shutil
import stat
import struct
import subprocess
import zlib

TIMEOUT = 20

VARIANTS = [(cc, dwarf, linked) for cc in ("gcc", "clang")
            for dwarf in (4, 5) for linked in (False, True)]

# --------------------------------------------------------------- ELF

SHT_NULL, SHT_NOBITS = 0, 8
SHF_COMPRESSED = 0x800
# Offsets of the fields of an Elf64_Shdr.
SH_NAME, SH_TYPE, SH_FLAGS, SH_OFFSET, SH_SIZE, SH_LINK, SH_ENTSIZE = \
    0, 4, 8, 24, 32, 40, 56


class Section:
    __slots__ = ("index", "hdr", "name", "type", "flags", "offset", "size",
                 "link", "entsize")


class Elf:
    """Just enough of a 64-bit little-endian ELF file (all fixtures are
    x86-64) to find sections and patch their headers."""

    def __init__(self, data):
        assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, \
            "fixture is not ELF64 little-endian"
        self.data = data
        self.phoff, self.shoff = struct.unpack_from("<QQ", data, 0x20)
        (self.ehsize, self.phentsize, self.phnum, self.shentsize,
         self.shnum, self.shstrndx) = struct.unpack_from("<6H", data, 0x34)
        self.sections = []
        for i in range(self.shnum):
            s = Section()
            s.index = i
            s.hdr = self.shoff + i * self.shentsize
            (name, s.type, s.flags, _addr, s.offset, s.size, s.link, _info,
             _align, s.entsize) = struct.unpack_from("<IIQQQQIIQQ", data,
                                                     s.hdr)
            s.name = name
            self.sections.append(s)
        strs = self.sections[self.shstrndx]
        strtab = data[strs.offset:strs.offset + strs.size]
        for s in self.sections:
            s.name = strtab[s.name:strtab.index(b"\0", s.name)].decode()

    def section(self, name):
        if name == ".shstrtab":
            # LLVM names sections from .strtab: no .shstrtab of its own.
            return self.sections[self.shstrndx]
        for s in self.sections:
            if s.name == name:
                return s
        return None

    def table_end(self):
        return self.shoff + self.shnum * self.shentsize


def _btf_of_elf(data):
    """The .BTF section of a (possibly otherwise damaged) ELF file, found
    as tolerantly as possible, or a string saying why not."""
    try:
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            return "output is not ELF64 little-endian any more"
        shoff = struct.unpack_from("<Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from("<3H", data, 0x3A)
        hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
                for i in range(shnum)]
        strs = hdrs[shstrndx]
        names = data[strs[4]:strs[4] + strs[5]]
        for h in hdrs:
            end = names.find(b"\0", h[0])
            if end >= 0 and names[h[0]:end] == b".BTF":
                if h[4] + h[5] > len(data):
                    return ".BTF section beyond end of file"
                return data[h[4]:h[4] + h[5]]
        return "no .BTF section in the rewritten file"
    except (struct.error, IndexError) as e:
        return "cannot read the rewritten ELF file: %s" % e


# ------------------------------------------------------------- DWARF

DW_TAG = {
    "array_type": 0x01, "enumeration_type": 0x04, "formal_parameter": 0x05,
    "member": 0x0d, "pointer_type": 0x0f, "compile_unit": 0x11,
    "structure_type": 0x13, "typedef": 0x16, "subrange_type": 0x21,
    "base_type": 0x24, "const_type": 0x26, "enumerator": 0x28,
    "subprogram": 0x2e, "variable": 0x34, "union_type": 0x17,
}
DW_TAG_NAME = {v: k for k, v in DW_TAG.items()}
DW_AT_sibling, DW_AT_name, DW_AT_byte_size = 0x01, 0x03, 0x0b
DW_AT_const_value, DW_AT_decl_line, DW_AT_producer = 0x1c, 0x3b, 0x25
DW_AT_upper_bound, DW_AT_count = 0x2f, 0x37
DW_AT_data_member_location, DW_AT_type = 0x38, 0x49
DW_FORM_data1, DW_FORM_data2, DW_FORM_data4, DW_FORM_data8 = \
    0x0b, 0x05, 0x06, 0x07
DW_FORM_ref1, DW_FORM_ref2, DW_FORM_ref4, DW_FORM_ref8 = \
    0x11, 0x12, 0x13, 0x14
DW_FORM_block4, DW_FORM_strp = 0x04, 0x0e
REF_FORMS = {DW_FORM_ref1: 1, DW_FORM_ref2: 2, DW_FORM_ref4: 4,
             DW_FORM_ref8: 8}
DATA_FORMS = {DW_FORM_data1: 1, DW_FORM_data2: 2, DW_FORM_data4: 4,
              DW_FORM_data8: 8}
# Fixed sizes of forms (32-bit DWARF); None: variable, handled below.
FORM_SIZE = {
    0x03: None, 0x04: None, 0x05: 2, 0x06: 4, 0x07: 8, 0x08: None,
    0x09: None, 0x0a: None, 0x0b: 1, 0x0c: 1, 0x0d: None, 0x0e: 4,
    0x0f: None, 0x10: 4, 0x11: 1, 0x12: 2, 0x13: 4, 0x14: 8, 0x15: None,
    0x16: None, 0x17: 4, 0x18: None, 0x19: 0, 0x1a: None, 0x1b: None,
    0x1c: 4, 0x1d: 4, 0x1e: 16, 0x1f: 4, 0x20: 8, 0x21: 0, 0x22: None,
    0x23: None, 0x24: 8, 0x25: 1, 0x26: 2, 0x27: 3, 0x28: 4, 0x29: 1,
    0x2a: 2, 0x2b: 3, 0x2c: 4, 0x1f01: None, 0x1f02: None, 0x1f20: 4,
    0x1f21: 4,
}


def _leb(buf, pos, signed):
    val = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        val |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            if signed and b & 0x40:
                val -= 1 << shift
            return val, pos


def _uleb(buf, pos):
    return _leb(buf, pos, False)


def _sleb(buf, pos):
    return _leb(buf, pos, True)


class Abbrev:
    __slots__ = ("code", "off", "tag", "tag_off", "children_off", "attrs")


def _parse_abbrevs(buf, pos):
    """{code: Abbrev} of the table at @pos; attrs are (at, form,
    implicit_const, form_off, at_off) with the offsets in @buf."""
    table = {}
    while True:
        start = pos
        code, pos = _uleb(buf, pos)
        if code == 0:
            return table
        a = Abbrev()
        a.code, a.off, a.tag_off = code, start, pos
        a.tag, pos = _uleb(buf, pos)
        a.children_off = pos
        pos += 1
        a.attrs = []
        while True:
            at_off = pos
            at, pos = _uleb(buf, pos)
            form_off = pos
            form, pos = _uleb(buf, pos)
            if at == 0 and form == 0:
                break
            implicit = None
            if form == 0x21:
                implicit, pos = _sleb(buf, pos)
            a.attrs.append((at, form, implicit, form_off, at_off))
        table[code] = a


class Attr:
    __slots__ = ("at", "form", "off", "size", "value")


class Die:
    __slots__ = ("off", "code", "code_len", "abbrev", "tag", "attrs",
                 "parent", "depth", "name", "end")

    def attr(self, at):
        for a in self.attrs:
            if a.at == at:
                return a
        return None


class Unit:
    __slots__ = ("off", "end", "version", "unit_type", "addr_size",
                 "abbrev_off", "abbrevs", "dies", "hdr_size")


def _attr_value(buf, pos, form, unit):
    """(value, new position) of an attribute value at @pos."""
    if form == 0x16:                        # DW_FORM_indirect
        form, pos = _uleb(buf, pos)
        return _attr_value(buf, pos, form, unit)
    if form == 0x01:
        n = unit.addr_size
    elif form == 0x10 and unit.version == 2:
        n = unit.addr_size
    else:
        if form not in FORM_SIZE:
            raise AssertionError("form 0x%x not known to the test" % form)
        n = FORM_SIZE[form]
    if n is not None:
        return int.from_bytes(buf[pos:pos + n], "little"), pos + n
    if form == 0x08:                        # string
        end = buf.index(b"\0", pos)
        return buf[pos:end], end + 1
    if form == 0x0d:
        return _sleb(buf, pos)
    if form in (0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02):
        return _uleb(buf, pos)
    if form in (0x09, 0x18):                # block, exprloc
        ln, pos = _uleb(buf, pos)
        return None, pos + ln
    ln_size = {0x0a: 1, 0x03: 2, 0x04: 4}[form]
    ln = int.from_bytes(buf[pos:pos + ln_size], "little")
    return None, pos + ln_size + ln


def _parse_info(info, abbrev):
    """All units of .debug_info with all their DIEs (null entries left
    out).  Values of relocated fields are whatever the file holds."""
    units = []
    pos = 0
    while pos < len(info):
        u = Unit()
        u.off = pos
        length = struct.unpack_from("<I", info, pos)[0]
        assert length < 0xFFFFFFF0, "64-bit DWARF not supported by the test"
        u.end = pos + 4 + length
        u.version = struct.unpack_from("<H", info, pos + 4)[0]
        if u.version >= 5:
            u.unit_type, u.addr_size = info[pos + 6], info[pos + 7]
            u.abbrev_off = struct.unpack_from("<I", info, pos + 8)[0]
            p = pos + 12
            if u.unit_type in (4, 5):       # skeleton, split_compile
                p += 8
            elif u.unit_type in (2, 6):     # type, split_type
                p += 12
        else:
            u.unit_type = 1
            u.abbrev_off = struct.unpack_from("<I", info, pos + 6)[0]
            u.addr_size = info[pos + 10]
            p = pos + 11
        u.hdr_size = p - pos
        u.abbrevs = _parse_abbrevs(abbrev, u.abbrev_off)
        u.dies = []
        stack = []
        while p < u.end:
            start = p
            code, p = _uleb(info, p)
            if code == 0:
                if stack:
                    stack.pop()
                continue
            d = Die()
            d.off, d.code, d.code_len = start, code, p - start
            d.abbrev = u.abbrevs[code]
            d.tag = d.abbrev.tag
            d.parent = stack[-1] if stack else None
            d.depth = len(stack)
            d.name = None
            d.attrs = []
            for at, form, implicit, _, _ in d.abbrev.attrs:
                a = Attr()
                a.at, a.form, a.off = at, form, p
                if form == 0x21:
                    a.value = implicit
                else:
                    a.value, p = _attr_value(info, p, form, u)
                a.size = p - a.off
                d.attrs.append(a)
            d.end = p
            u.dies.append(d)
            if abbrev[d.abbrev.children_off]:
                stack.append(d)
        units.append(u)
        pos = u.end
    return units


_READELF_DIE = re.compile(r"^\s*<(\d+)><([0-9a-f]+)>: Abbrev Number: (\d+)"
                          r"(?: \((DW_TAG_\w+)\))?")
_READELF_NAME = re.compile(r"^\s*<[0-9a-f]+>\s+DW_AT_name\s*:\s*(.*)$")


def _readelf_dies(ctx, path):
    """{DIE offset: (abbrev code, tag name, DW_AT_name)} from readelf,
    which applies the relocations a .o needs to find the names."""
    p = ctx.run(["readelf", "-W", "--debug-dump=info", path], timeout=60)
    assert p.returncode == 0, "readelf failed: " + p.stderr
    dies = {}
    cur = None
    for line in p.stdout.splitlines():
        m = _READELF_DIE.match(line)
        if m:
            cur = int(m.group(2), 16)
            if m.group(3) != "0":
                dies[cur] = [int(m.group(3)), m.group(4), None]
            continue
        m = _READELF_NAME.match(line)
        if m and cur in dies:
            v = re.sub(r"^\([a-z0-9_]+\) ", "", m.group(1))
            m2 = re.match(r"^\((?:offset|indexed string|index)[^)]*\): (.*)$",
                          v)
            dies[cur][2] = (m2.group(1) if m2 else v).strip()
    return dies


class Fixture:
    """One compiled variant, with its ELF and DWARF parsed."""

    def __init__(self, ctx, cc, dwarf, linked, source="bad_base"):
        self.cc, self.dwarf, self.linked = cc, dwarf, linked
        self.name = "%s-%s-dw%d-%s" % (source, cc, dwarf,
                                       "exe" if linked else "o")
        self.ext = "" if linked else ".o"
        path = (ctx.link if linked else ctx.fixture)(source, cc, dwarf)
        with open(path, "rb") as f:
            self.data = f.read()
        self.path = path
        self.elf = Elf(self.data)
        self._ctx = ctx
        self._units = None

    @property
    def units(self):
        if self._units is None:
            info = self.elf.section(".debug_info")
            abbrev = self.elf.section(".debug_abbrev")
            self.info_off = info.offset
            self.abbrev_off = abbrev.offset
            self._units = _parse_info(
                self.data[info.offset:info.offset + info.size],
                self.data[abbrev.offset:abbrev.offset + abbrev.size])
            ref = _readelf_dies(self._ctx, self.path)
            mine = {}
            for u in self._units:
                for d in u.dies:
                    mine[d.off] = d
            assert sorted(mine) == sorted(ref), \
                "%s: DIE offsets differ from readelf's" % self.name
            for off, d in mine.items():
                code, tag, name = ref[off]
                assert code == d.code, "%s: DIE 0x%x: abbrev %d, readelf %d" \
                    % (self.name, off, d.code, code)
                if d.tag in DW_TAG_NAME:
                    assert tag == "DW_TAG_" + DW_TAG_NAME[d.tag], \
                        "%s: DIE 0x%x: tag 0x%x, readelf %s" \
                        % (self.name, off, d.tag, tag)
                d.name = name
        return self._units

    def cu(self):
        """The unit of bad_base.c (an executable may have others)."""
        for u in self.units:
            if any(d.name == "bad_node" for d in u.dies):
                return u
        raise AssertionError("%s: no CU defines struct bad_node" % self.name)

    def die(self, tag, name=None, parent=None, pred=None):
        for d in self.cu().dies:
            if d.tag != DW_TAG[tag] or (name is not None and d.name != name):
                continue
            if parent is not None and d.parent is not parent:
                continue
            if pred is not None and not pred(d):
                continue
            return d
        raise AssertionError("%s: no %s %s" % (self.name, tag, name or ""))


# ----------------------------------------------------------- running

class Case:
    __slots__ = ("name", "data", "expect", "ext", "kind", "rust")

    def __init__(self, name, data, expect, ext=".o", kind="file",
                 rust=False):
        assert expect in ("error", "either", "ok")
        self.name, self.data, self.expect = name, data, expect
        self.ext, self.kind = ext, kind
        # A Rust unit's BTF may hold members that end past their struct
        # (see _btf_problems()).
        self.rust = rust


def _bin(ctx):
    assert os.path.exists(ctx.bin), "binary %s not built" % ctx.bin
    return ctx.bin


def _run(ctx, args, env=None):
    """(returncode, stderr), or (None, why) on a timeout."""
    try:
        p = ctx.run(args, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        return None, "timed out after %d s (hang?)" % TIMEOUT
    return p.returncode, p.stderr


def _btf_problems(blob, rust=False):
    """None if the raw BTF @blob breaks none of the kernel's structural
    rules checked here, else a description.  libbpf (bpftool) checks ids
    and strings but not these; the kernel rejects a whole BTF blob that
    breaks any of them.  With @rust, BTF of Rust units (as pahole encodes
    them): a member that starts inside its struct may end past it (an
    unsized tail, a zero-sized unit)."""
    if len(blob) < 24:
        return "BTF shorter than its header"
    magic, _ver, _flags, hdr_len = struct.unpack_from("<HBBI", blob, 0)
    if magic != 0xEB9F:
        return "bad BTF magic 0x%04x" % magic
    type_off, type_len = struct.unpack_from("<II", blob, 8)
    buf = blob[hdr_len + type_off:hdr_len + type_off + type_len]
    types = [None]
    pos = 0
    extra = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
             13: (0, 8), 14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}
    try:
        while pos < len(buf):
            _name, info, st = struct.unpack_from("<3I", buf, pos)
            kind, vlen, kflag = (info >> 24) & 0x1F, info & 0xFFFF, info >> 31
            pos += 12
            fixed, per = extra.get(kind, (0, 0))
            body = buf[pos:pos + fixed + per * vlen]
            pos += fixed + per * vlen
            t = {"kind": kind, "st": st, "kflag": kflag}
            if kind == 3:
                t["elem"], _idx, t["nelems"] = struct.unpack_from("<3I",
                                                                  body, 0)
            elif kind in (4, 5):
                t["members"] = [struct.unpack_from("<3I", body, 12 * i)[1:]
                                for i in range(vlen)]
            types.append(t)
    except struct.error:
        return "BTF type section truncated"
    n = len(types)
    chain = (2, 8, 9, 10, 11, 18)       # ptr typedef volatile const ...
    for tid in range(1, n):
        seen = set()
        cur = tid
        while 0 < cur < n and types[cur]["kind"] in chain:
            if cur in seen:
                return "type loop through typedef/modifier/pointer at [%d]" \
                    % tid
            seen.add(cur)
            cur = types[cur]["st"]
    sizes = {}

    def size(tid, busy):
        if tid == 0 or tid >= n:
            return 0
        if tid in sizes:
            return sizes[tid]
        t = types[tid]
        k = t["kind"]
        if tid in busy:
            raise ValueError("[%d] contains itself by value" % tid)
        if k == 2:
            return 8
        busy.add(tid)
        try:
            if k in (8, 9, 10, 11, 18):
                s = size(t["st"], busy)
            elif k == 3:
                s = size(t["elem"], busy) * t["nelems"]
                if s > 0xFFFFFFFF:
                    raise ValueError("array [%d] of %d elements is %d bytes,"
                                     " over 4 GiB" % (tid, t["nelems"], s))
            elif k in (4, 5):
                s = t["st"]
                for mtype, off in t["members"]:
                    bits = off >> 24 if t["kflag"] else 0
                    boff = off & 0xFFFFFF if t["kflag"] else off
                    msize = size(mtype, busy)
                    if bits:
                        end = (boff + bits + 7) // 8
                    elif boff % 8 == 0:
                        end = boff // 8 + msize
                    else:
                        continue
                    if end > s and not (rust and boff // 8 <= s):
                        raise ValueError("member of [%d] ends at byte %d, "
                                         "beyond its size %d" % (tid, end, s))
            elif k in (1, 4, 5, 6, 16, 19):
                s = t["st"]
            else:
                s = 0
        finally:
            busy.discard(tid)
        sizes[tid] = s
        return s

    try:
        for tid in range(1, n):
            size(tid, set())
    except ValueError as e:
        return str(e)
    except RecursionError:
        return "types nested too deeply"
    return None


def _check_btf(ctx, blob, where, rust=False):
    """None if @blob is valid BTF, else why not."""
    path = os.path.join(where, "check.btf")
    with open(path, "wb") as f:
        f.write(blob)
    try:
        # Not "format c": it cannot print valid BTF such as an anonymous
        # struct that points to itself (what nameless DWARF gives).
        try:
            p = ctx.run(["bpftool", "btf", "dump", "file", path],
                        timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            return "bpftool btf dump timed out"
        if p.returncode != 0:
            return "bpftool btf dump rejects it: %s" % p.stderr.strip()[:300]
        return _btf_problems(blob, rust)
    finally:
        os.unlink(path)


def _listing(d):
    return sorted(os.listdir(d))


def _check_run(ctx, case, mode, inp, out, before, rc, err):
    """Problems of one run (empty list: fine).  Returns (problems, btf)."""
    name = os.path.basename(inp)
    probs = []
    if rc is None:
        return [err], None
    if rc < 0:
        probs.append("killed by signal %d" % -rc)
    indir = os.path.dirname(inp)
    left = [f for f in _listing(indir) if f != name]
    if left:
        probs.append("left beside the input: %s" % ", ".join(left))
    btf = None
    if rc == 1:
        lines = [ln for ln in err.splitlines() if ln.strip()]
        if len(lines) != 1:
            probs.append("%d lines on stderr, expected 1" % len(lines))
        elif not lines[0].startswith("dwarf2btf: ") or inp not in lines[0]:
            probs.append("message does not start with 'dwarf2btf: ' or "
                         "does not name %s" % inp)
        if case.kind == "file":
            with open(inp, "rb") as f:
                if f.read() != before:
                    probs.append("input modified")
        if mode == "-o" and os.listdir(os.path.dirname(out)):
            probs.append("output directory not empty after an error: %s"
                         % ", ".join(_listing(os.path.dirname(out))))
    elif rc == 0:
        if case.expect == "error":
            probs.append("exit 0, but this input must be rejected")
        if mode == "-o":
            if os.path.exists(out):
                with open(out, "rb") as f:
                    btf = f.read()
            else:
                probs.append("exit 0 without writing OUT")
            if case.kind == "file":
                with open(inp, "rb") as f:
                    if f.read() != before:
                        probs.append("input modified with -o")
        else:
            with open(inp, "rb") as f:
                btf = _btf_of_elf(f.read())
            if isinstance(btf, str):
                probs.append(btf)
                btf = None
        if btf is not None:
            why = _check_btf(ctx, btf, os.path.dirname(indir), case.rust)
            if why:
                probs.append("exit 0 with invalid BTF: " + why)
    elif rc > 0:
        probs.append("exit status %d" % rc)
    if case.expect == "ok" and rc != 0:
        probs.insert(0, "exit %d on a valid input" % rc)
    if probs and rc != 0:
        tail = err.strip().splitlines()[-12:]
        probs.append("stderr:\n        " + "\n        ".join(tail))
    return probs, btf


def _run_case(ctx, case, work, tally):
    """Run @case in both modes; return a list of problem strings."""
    d = os.path.join(work, case.name)
    indir = os.path.join(d, "in")
    outdir = os.path.join(d, "out")
    os.makedirs(indir)
    os.makedirs(outdir)
    inp = os.path.join(indir, "input" + case.ext)
    out = os.path.join(outdir, "out.btf")
    problems = []
    btfs = {}
    for mode in ("-o", "in-place"):
        if case.kind == "file":
            with open(inp, "wb") as f:
                f.write(case.data)
        elif case.kind == "dir" and not os.path.isdir(inp):
            os.mkdir(inp)
        elif case.kind == "fifo" and not os.path.exists(inp):
            os.mkfifo(inp)
        args = ["-o", out, inp] if mode == "-o" else [inp]
        # Rust units under rustc's names make the listing read each
        # unit's language from its bytes (dwarf_units.c): C cases too.
        if not case.rust:
            args = ["--rust-enums=pahole"] + args
        rc, err = _run(ctx, [_bin(ctx)] + args)
        probs, btf = _check_run(ctx, case, mode, inp, out, case.data, rc,
                                err)
        if case.kind == "missing" and os.path.lexists(inp):
            probs.append("nonexistent input was created")
        if case.kind in ("dir", "fifo"):
            st = os.lstat(inp)
            if (case.kind == "dir") != stat.S_ISDIR(st.st_mode) or \
                    (case.kind == "dir" and os.listdir(inp)):
                probs.append("the %s was replaced or filled" % case.kind)
        btfs[mode] = btf
        outcome = {0: "exit 0", 1: "exit 1", None: "timeout"}.get(
            rc, "exit %s" % rc)
        key = ("expect " + case.expect, outcome)
        tally[key] = tally.get(key, 0) + 1
        for p in probs:
            problems.append((mode, p))
        if os.path.exists(out):
            os.unlink(out)
    if btfs["-o"] is not None and btfs["in-place"] is not None and \
            btfs["-o"] != btfs["in-place"]:
        problems.append(("in-place", ".BTF section differs from -o output"))
    if problems and case.kind == "file":
        keep = os.path.join(work, "failed")
        os.makedirs(keep, exist_ok=True)
        with open(os.path.join(keep, case.name + case.ext), "wb") as f:
            f.write(case.data)
    if not problems:
        shutil.rmtree(d)
    return problems


def _run_group(ctx, cases, minimum):
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "duplicate case names"
    assert len(cases) >= minimum, "only %d cases generated" % len(cases)
    work = os.path.join(ctx.tmp, "cases")
    os.makedirs(work)
    failed = []
    tally = {}
    for c in cases:
        for mode, p in _run_case(ctx, c, work, tally):
            failed.append((c, mode, p))
    # What the accepted outcomes were, shown by run.py -v.
    print("%d cases: %s" % (len(cases), ", ".join(
        "%s %s: %d" % (k[0], k[1], v) for k, v in sorted(tally.items()))))
    if not failed:
        return
    keep = os.path.join(work, "failed")
    by_case = {}
    for c, mode, p in failed:
        by_case.setdefault(c.name, (c, []))[1].append((mode, p))
    # Cases failing the same way (numbers and paths aside) are one group,
    # shown once in full.
    groups = {}
    for name, (c, probs) in by_case.items():
        sig = tuple(re.sub(r"/\S*|0x[0-9a-f]+|\d+", "#", "%s: %s" % mp)
                    for mp in probs)
        groups.setdefault(sig, []).append(name)
    lines = []
    for names in sorted(groups.values(), key=lambda n: (-len(n), n)):
        c, probs = by_case[names[0]]
        path = os.path.join(keep, c.name + c.ext) if c.kind == "file" \
            else "(%s)" % c.kind
        lines.append("%d case(s) fail like %s [expect %s], input: %s"
                     % (len(names), c.name, c.expect, path))
        for mode, p in probs:
            lines.append("    %s: %s" % (mode, p))
        if len(names) > 1:
            lines.append("    also: " + " ".join(sorted(names[1:])))
    raise AssertionError(
        "%d of %d cases failed (inputs kept in %s); "
        "reproduce with: %s [-o OUT] INPUT\n%s"
        % (len(by_case), len(cases), keep, ctx.bin, "\n".join(lines)))


def _fixtures(ctx):
    return [Fixture(ctx, *v) for v in VARIANTS]


def _rng(name):
    return random.Random(zlib.crc32(name.encode()))


def _patch(data, off, value, size):
    b = bytearray(data)
    b[off:off + size] = value.to_bytes(size, "little")
    return bytes(b)


# -------------------------------------------------------- truncation

TRUNC_SECTIONS = (".debug_info", ".debug_abbrev", ".debug_str",
                  ".debug_line", ".symtab", ".strtab", ".shstrtab")


def _truncate_cases(fx):
    e = fx.elf
    size = len(fx.data)
    offs = {1, 4, 5, 16, 17, 24, 40, 52, 62, 63, 64, 65}
    if e.phnum:
        offs |= {e.phoff + 1, e.phoff + e.phentsize * e.phnum // 2,
                 e.phoff + e.phentsize * e.phnum - 1}
    tbl = e.table_end()
    offs |= {e.shoff, e.shoff + 1, e.shoff + 64 + 24,
             e.shoff + e.shentsize * (e.shnum // 2) + 5, tbl - 64, tbl - 1}
    for name in TRUNC_SECTIONS:
        s = e.section(name)
        offs |= {s.offset, s.offset + 1, s.offset + s.size // 2,
                 s.offset + s.size - 1}
    offs |= {size - 1, size // 3, 2 * size // 3}
    # Anything that cuts a section or the header table is broken input.
    need = max([tbl] + [s.offset + s.size for s in e.sections
                        if s.type not in (SHT_NULL, SHT_NOBITS)])
    return [Case("trunc-%s-%d" % (fx.name, o), fx.data[:o],
                 "error" if o < need else "either", fx.ext)
            for o in sorted(offs) if 0 < o < size]


def _run_fixture_cases(ctx, make_cases, min_cases):
    """The cases ``make_cases`` makes of every fixture build, as a group."""
    cases = []
    for fx in _fixtures(ctx):
        cases += make_cases(fx)
    _run_group(ctx, cases, min_cases)


def test_badinput_truncate(ctx):
    _run_fixture_cases(ctx, _truncate_cases, 300)


# ------------------------------------------------------------- flips

FLIP_SECTIONS = (".debug_info", ".debug_abbrev", ".debug_str", ".debug_line",
                 ".symtab", ".strtab", ".debug_str_offsets",
                 ".debug_line_str")


def _flip_cases(fx, more=()):
    cases = []
    for sname in FLIP_SECTIONS + tuple(more):
        s = fx.elf.section(sname)
        if s is None or s.size == 0:
            continue
        short = sname.lstrip(".").replace("debug_", "d")
        for kind in ("xor1a", "xor1b", "rand8", "burst16"):
            name = "flip-%s-%s-%s" % (fx.name, short, kind)
            r = _rng(name)
            b = bytearray(fx.data)
            if kind.startswith("xor1"):
                b[s.offset + r.randrange(s.size)] ^= r.randrange(1, 256)
            elif kind == "rand8":
                for _ in range(8):
                    b[s.offset + r.randrange(s.size)] = r.randrange(256)
            else:
                n = min(16, s.size)
                at = s.offset + r.randrange(s.size - n + 1)
                b[at:at + n] = bytes(r.randrange(256) for _ in range(n))
            if bytes(b) == fx.data:
                continue
            # A changed byte may leave valid DWARF or symbols behind.
            cases.append(Case(name, bytes(b), "either", fx.ext))
    return cases


def test_badinput_flip(ctx):
    _run_fixture_cases(ctx, _flip_cases, 200)


# ---------------------------------------------------- section headers

# Sections the encoder must read; damage to their headers must be noticed.
# .debug_line is not needed for BTF, so damage there may pass unnoticed.
SHDR_SECTIONS = {".debug_info": "error", ".debug_abbrev": "error",
                 ".debug_str": "error", ".symtab": "error",
                 ".strtab": "error", ".shstrtab": "error",
                 ".debug_line": "either"}


def _shdr_cases(fx):
    e = fx.elf
    d = fx.data
    size = len(d)
    cases = []

    def add(what, data, expect):
        cases.append(Case("shdr-%s-%s" % (fx.name, what), data, expect,
                          fx.ext))

    for sname, expect in SHDR_SECTIONS.items():
        s = e.section(sname)
        if sname == ".shstrtab" and s.name != sname:
            continue
        short = sname.lstrip(".").replace("debug_", "d")
        add("%s-offset-past-eof" % short,
            _patch(d, s.hdr + SH_OFFSET, size + 0x1000, 8), expect)
        add("%s-offset-huge" % short,
            _patch(d, s.hdr + SH_OFFSET, 0xFFFFFFFFFFFFFF00, 8), expect)
        add("%s-size-past-eof" % short,
            _patch(d, s.hdr + SH_SIZE, size - s.offset + 1, 8), expect)
        add("%s-size-huge" % short,
            _patch(d, s.hdr + SH_SIZE, 0x7FFFFFFFFFFF0000, 8), expect)
    info = e.section(".debug_info")
    abbrev = e.section(".debug_abbrev")
    dstr = e.section(".debug_str")
    symtab = e.section(".symtab")
    # No data, no DWARF: must be noticed.
    add("dinfo-nobits", _patch(d, info.hdr + SH_TYPE, SHT_NOBITS, 4),
        "error")
    add("dinfo-size-0", _patch(d, info.hdr + SH_SIZE, 0, 8), "error")
    add("dinfo-compressed-flag",
        _patch(d, info.hdr + SH_FLAGS, info.flags | SHF_COMPRESSED, 8),
        "error")
    add("dabbrev-compressed-flag",
        _patch(d, abbrev.hdr + SH_FLAGS, abbrev.flags | SHF_COMPRESSED, 8),
        "error")
    # .debug_info reading the abbrevs, the strings read from the ELF
    # header: garbage that may or may not still parse.
    add("dinfo-at-dabbrev", _patch(d, info.hdr + SH_OFFSET, abbrev.offset,
                                   8), "either")
    add("dstr-at-0", _patch(d, dstr.hdr + SH_OFFSET, 0, 8), "either")
    # The last string runs out of the section: names are read up to the
    # last NUL by our reader, past it by libdw, never beyond the section.
    add("dstr-last-nul-gone",
        _patch(d, dstr.offset + dstr.size - 1, 0x41, 1), "either")
    add("dinfo-nameless", _patch(d, info.hdr + SH_NAME, 0, 4), "error")
    # Symbols whose names cannot be read: functions would vanish.
    add("symtab-link-bad", _patch(d, symtab.hdr + SH_LINK, 0xFFF0, 4),
        "error")
    add("symtab-link-self", _patch(d, symtab.hdr + SH_LINK, symtab.index,
                                   4), "error")
    add("symtab-entsize-0", _patch(d, symtab.hdr + SH_ENTSIZE, 0, 8),
        "error")
    add("symtab-entsize-7", _patch(d, symtab.hdr + SH_ENTSIZE, 7, 8),
        "either")
    # ELF header.
    add("e-shoff-past-eof", _patch(d, 0x28, size + 64, 8), "error")
    add("e-shoff-huge", _patch(d, 0x28, 0xFFFFFFFFFFFFFFC0, 8), "error")
    add("e-shoff-1", _patch(d, 0x28, 1, 8), "error")
    add("e-shnum-huge", _patch(d, 0x3C, 0xFEFF, 2), "error")
    add("e-shnum-1", _patch(d, 0x3C, 1, 2), "error")
    add("e-shstrndx-out", _patch(d, 0x3E, e.shnum + 5, 2), "error")
    add("e-shstrndx-0", _patch(d, 0x3E, 0, 2), "error")
    add("e-shstrndx-symtab", _patch(d, 0x3E, symtab.index, 2), "error")
    # libelf takes an ELF64 section header's size from the class, not
    # from e_shentsize: the file may still read correctly.
    add("e-shentsize-32", _patch(d, 0x3A, 32, 2), "either")
    add("e-shentsize-0", _patch(d, 0x3A, 0, 2), "either")
    add("e-class-0", _patch(d, 4, 0, 1), "error")
    add("e-class-9", _patch(d, 4, 9, 1), "error")
    # Read as ELF32 or big-endian, the headers turn to garbage.
    add("e-class-32", _patch(d, 4, 1, 1), "either")
    add("e-data-msb", _patch(d, 5, 2, 1), "either")
    add("e-data-0", _patch(d, 5, 0, 1), "error")
    if e.phnum:
        add("e-phoff-past-eof", _patch(d, 0x20, size + 64, 8), "either")
        add("e-phnum-huge", _patch(d, 0x38, 0xFFFF, 2), "either")
    return cases


def test_badinput_shdr(ctx):
    _run_fixture_cases(ctx, _shdr_cases, 200)


# ------------------------------------------------------------- DWARF

def _dwarf_cases(fx):
    e = fx.elf
    d = fx.data
    cu = fx.cu()
    info = e.section(".debug_info").offset
    abbrev = e.section(".debug_abbrev").offset
    cases = []

    def add(what, data, expect):
        cases.append(Case("dwarf-%s-%s" % (fx.name, what), data, expect,
                          fx.ext))

    def set_attr(data, die, at, value, rel=True):
        """@die's attribute @at := @value (CU-relative for refs)."""
        a = die.attr(at)
        assert a is not None, "%s: DIE 0x%x has no attribute 0x%x" % (
            fx.name, die.off, at)
        n = REF_FORMS.get(a.form) or DATA_FORMS.get(a.form)
        assert n and a.size == n, "%s: DIE 0x%x attr 0x%x has form 0x%x" % (
            fx.name, die.off, at, a.form)
        if a.form in REF_FORMS and not rel:
            value -= cu.off
        assert 0 <= value < 1 << (8 * n), "value does not fit the form"
        return _patch(data, info + a.off, value, n)

    def ref(target):
        return target.off - cu.off

    typedef = fx.die("typedef", "bad_int_t")
    node = fx.die("structure_type", "bad_node")
    mem_a = fx.die("member", "a", parent=node)
    mem_b = fx.die("member", "b", parent=node)
    mem_arr = fx.die("member", "arr", parent=node)
    ptr = fx.die("pointer_type", pred=lambda x: x.attr(DW_AT_type) and
                 x.attr(DW_AT_type).value == ref(node))
    func = fx.die("subprogram", "bad_sum")
    var = fx.die("variable", "bad_head")
    table = fx.die("variable", "bad_table")
    table_arr = [x for x in cu.dies if x.off - cu.off ==
                 table.attr(DW_AT_type).value][0]
    assert table_arr.tag == DW_TAG["array_type"]
    sub = fx.die("subrange_type", parent=table_arr)
    enumerator = fx.die("enumerator", "BAD_GREEN")
    const = fx.die("const_type")
    cu_die = cu.dies[0]
    cu_len = cu.end - cu.off

    # --- references that cannot be followed or lead to no type -----
    # BTF needs the member's type; there is none: reject.
    add("member-type-past-cu", set_attr(d, mem_b, DW_AT_type, cu_len + 0x40),
        "error")
    add("member-type-huge", set_attr(d, mem_b, DW_AT_type, 0xFFFFFFF0),
        "error")
    add("member-type-cu-header", set_attr(d, mem_b, DW_AT_type, 1),
        "error")
    add("member-type-cu-die", set_attr(d, mem_b, DW_AT_type, ref(cu_die)),
        "error")
    add("member-type-subprogram", set_attr(d, mem_b, DW_AT_type, ref(func)),
        "error")
    add("typedef-type-variable", set_attr(d, typedef, DW_AT_type, ref(var)),
        "error")
    add("typedef-type-member", set_attr(d, typedef, DW_AT_type, ref(mem_a)),
        "error")
    add("member-type-mid-die", set_attr(d, mem_b, DW_AT_type,
                                        ref(node) + 1), "error")
    add("pointer-type-past-cu", set_attr(d, ptr, DW_AT_type, cu_len + 4),
        "error")
    add("array-type-subprogram",
        set_attr(d, table_arr, DW_AT_type, ref(func)), "error")
    add("member-type-enumerator", set_attr(d, mem_b, DW_AT_type,
                                           ref(enumerator)), "error")
    add("member-type-subrange", set_attr(d, mem_b, DW_AT_type, ref(sub)),
        "error")
    # --- loops: no C type is its own typedef / pointer / member -----
    add("typedef-self", set_attr(d, typedef, DW_AT_type, ref(typedef)),
        "error")
    add("pointer-self", set_attr(d, ptr, DW_AT_type, ref(ptr)), "error")
    add("struct-member-self", set_attr(d, mem_a, DW_AT_type, ref(node)),
        "error")
    add("struct-member-self-via-typedef",
        set_attr(d, typedef, DW_AT_type, ref(node)), "error")
    add("array-of-itself", set_attr(d, table_arr, DW_AT_type,
                                    ref(table_arr)), "error")
    add("typedef-pointer-cycle", set_attr(set_attr(
        d, typedef, DW_AT_type, ref(ptr)), ptr, DW_AT_type, ref(typedef)),
        "error")
    add("typedef-const-cycle", set_attr(set_attr(
        d, typedef, DW_AT_type, ref(const)), const, DW_AT_type,
        ref(typedef)), "error")
    # An enumerator without a value: the abbreviation's DW_AT_const_value
    # renamed (same form) to DW_AT_decl_line.
    at_off = [o for at, _, _, _, o in enumerator.abbrev.attrs
              if at == DW_AT_const_value][0]
    add("enumerator-without-value", _patch(d, abbrev + at_off,
                                           DW_AT_decl_line, 1), "error")
    # --- sizes BTF cannot hold (the kernel rejects such BTF) --------
    bound = sub.attr(DW_AT_upper_bound) or sub.attr(DW_AT_count)
    assert bound.form == DW_FORM_data4, "%s: bound form 0x%x" % (
        fx.name, bound.form)
    if bound.at == DW_AT_upper_bound:
        # Count 2^32: does not fit BTF's 32-bit nelems at all.
        add("array-count-2^32", set_attr(d, sub, DW_AT_upper_bound,
                                         0xFFFFFFFF), "error")
        add("array-16GiB", set_attr(d, sub, DW_AT_upper_bound, 0xFFFFFFFE),
            "error")
    else:
        add("array-16GiB", set_attr(d, sub, DW_AT_count, 0xFFFFFFFF),
            "error")
    add("array-8GiB", set_attr(d, sub, bound.at, 0x80000000 - (
        1 if bound.at == DW_AT_upper_bound else 0)), "error")
    add("member-offset-past-struct",
        set_attr(d, mem_arr, DW_AT_data_member_location, 0xF0), "error")
    add("struct-size-1", set_attr(d, node, DW_AT_byte_size, 1), "error")
    # An int of 3 bytes is odd but can be encoded (as pahole does).
    base = fx.die("base_type", "int")
    add("int-size-3", set_attr(d, base, DW_AT_byte_size, 3), "either")
    # --- abbreviation codes and the abbreviation table --------------
    assert mem_b.code_len == 1
    unknown = max(cu.abbrevs) + 1
    assert unknown < 0x80
    add("abbrev-code-unknown", _patch(d, info + mem_b.off, unknown, 1),
        "error")
    add("abbrev-code-unknown-cu", _patch(d, info + cu_die.off, unknown, 1),
        "error")
    add("abbrev-code-0x7f", _patch(d, info + typedef.off, 0x7F, 1),
        "error")
    # Another valid code or an early end of the children: the rest of
    # the CU reads as different, possibly valid, DWARF.
    add("abbrev-code-0", _patch(d, info + mem_b.off, 0, 1), "either")
    add("abbrev-code-other", _patch(d, info + mem_b.off, typedef.code, 1),
        "either")
    form_off = [f for at, _, _, f, _ in mem_b.abbrev.attrs
                if at == DW_AT_type][0]
    add("abbrev-form-unknown", _patch(d, abbrev + form_off, 0x7F, 1),
        "error")
    add("abbrev-form-indirect-loop",
        _patch(d, abbrev + form_off, 0x16, 1), "either")
    add("abbrev-tag-changed",
        _patch(d, abbrev + typedef.abbrev.tag_off, DW_TAG["structure_type"],
               1), "either")
    add("abbrev-children-flag", _patch(
        d, abbrev + base.abbrev.children_off, 1, 1), "either")
    # --- unit header -------------------------------------------------
    u = info + cu.off
    add("unit-length-dwarf64-escape", _patch(d, u, 0xFFFFFFFF, 4), "error")
    # Past the section end: every DIE is still there (the tree ends with
    # its null entries) and only finding a next unit needs the length.
    add("unit-length-past-section", _patch(
        d, u, e.section(".debug_info").size + 0x100, 4), "either")
    add("unit-length-2", _patch(d, u, 2, 4), "error")
    add("unit-length-0", _patch(d, u, 0, 4), "error")
    add("unit-version-1", _patch(d, u + 4, 1, 2), "error")
    add("unit-version-6", _patch(d, u + 4, 6, 2), "error")
    add("unit-version-0xffff", _patch(d, u + 4, 0xFFFF, 2), "error")
    if cu.version >= 5:
        ab, asz = u + 8, u + 7
        add("unit-type-0x7f", _patch(d, u + 6, 0x7F, 1), "error")
        add("unit-type-type", _patch(d, u + 6, 2, 1), "error")
    else:
        ab, asz = u + 6, u + 10
    # In an object file the abbrev offset is relocated (RELA: the addend
    # holds it, the bytes are 0); the relocation overwrites a patch.
    if fx.linked:
        add("unit-abbrev-offset-huge", _patch(d, ab, 0xFFFFFF00, 4),
            "error")
        add("unit-abbrev-offset-past", _patch(
            d, ab, e.section(".debug_abbrev").size + 1, 4), "error")
    # The unit DIE's producer made a block of almost 2 GB, in a unit that
    # runs past the section: its language, read from its bytes while the
    # units are listed, must be read within the section or not at all.
    prod = cu_die.attr(DW_AT_producer)
    if fx.linked and prod is not None and prod.form == DW_FORM_strp:
        f_off = [f for at, _, _, f, _ in cu_die.abbrev.attrs
                 if at == DW_AT_producer][0]
        b = _patch(d, abbrev + f_off, DW_FORM_block4, 1)
        b = _patch(b, info + prod.off, 0x7FFF0000, 4)
        add("unit-producer-block-past-section",
            _patch(b, u, 0xFFFFFFE0, 4), "either")
    add("unit-addr-size-3", _patch(d, asz, 3, 1), "either")
    add("unit-addr-size-0", _patch(d, asz, 0, 1), "either")
    add("unit-addr-size-255", _patch(d, asz, 255, 1), "either")
    # --- DW_AT_sibling (gcc): skipping must not loop ----------------
    sib = node.attr(DW_AT_sibling)
    if sib is not None:
        add("sibling-self", set_attr(d, node, DW_AT_sibling, ref(node)),
            "either")
        add("sibling-backwards",
            set_attr(d, node, DW_AT_sibling, ref(cu.dies[1])), "either")
        add("sibling-cu-die",
            set_attr(d, node, DW_AT_sibling, ref(cu_die)), "either")
        add("sibling-past-cu",
            set_attr(d, node, DW_AT_sibling, cu_len + 8), "either")
        add("sibling-mid-die",
            set_attr(d, node, DW_AT_sibling, ref(mem_b) + 1), "either")
    return cases


def test_badinput_dwarf(ctx):
    _run_fixture_cases(ctx, _dwarf_cases, 200)


def _code_cases(fx):
    """abbrev_codes.c, whose rarer DIEs have two-byte abbreviation
    codes (abbrev_cache.h reads those in place), with such a code cut at
    the unit's end, a one-byte code spelt in two, unknown, past what the
    cache takes, swapped for another tag's, or made three bytes long."""
    info = fx.elf.section(".debug_info").offset
    d = fx.data
    cases = []

    def add(what, data, expect):
        cases.append(Case("code-%s-%s" % (fx.name, what), data, expect,
                          fx.ext))

    def code(data, die, value):
        b = bytearray(data)
        b[info + die.off:info + die.off + 2] = bytes(
            (value & 0x7F | 0x80, value >> 7))
        return bytes(b)

    u = fx.units[0]
    two = [x for x in u.dies if x.code_len == 2]
    members = [x for x in two if x.tag == DW_TAG["member"]]
    unions = [x for x in two if x.tag == DW_TAG["union_type"]]
    assert len(members) > 10 and len(unions) > 2, \
        "%s: too few two-byte codes" % fx.name
    for i, m in enumerate((members[0], members[len(members) // 2],
                           unions[0], unions[-1])):
        # The unit ends between the code's two bytes.
        b = bytearray(d)
        struct.pack_into("<I", b, info + u.off, m.off + 1 - (u.off + 4))
        add("cut-%d" % i, bytes(b), "either")
        b = bytearray(d)
        b[info + m.off + 1] = 0
        add("long-zero-%d" % i, bytes(b), "either")
        add("unknown-%d" % i, code(d, m, 1000), "error")
        add("huge-%d" % i, code(d, m, 0x3FFF), "error")
        other = unions[0] if m.tag == DW_TAG["member"] else members[0]
        add("swap-%d" % i, code(d, m, other.code), "either")
        b = bytearray(d)
        b[info + m.off + 1] |= 0x80
        add("three-%d" % i, bytes(b), "either")
    return cases


def _code_fixtures(ctx):
    return [Fixture(ctx, "gcc", dwarf, False, source="abbrev_codes")
            for dwarf in (4, 5)]


def test_badinput_codes(ctx):
    cases = []
    for fx in _code_fixtures(ctx):
        cases += _code_cases(fx)
    _run_group(ctx, cases, 40)


def test_badinput_codes_keys(ctx):
    """The same with --stats=keys, and with the batches' types taken by
    key (DWARF2BTF_BATCH_DEDUP: reused even in so small an input)."""
    cases = []
    for fx in _code_fixtures(ctx):
        cases += _code_cases(fx)
    _run_exits(ctx, cases, ["--stats=keys", "--no-cache"], 40)
    _run_exits(ctx, cases, ["--no-cache"], 40,
               env=dict(os.environ, DWARF2BTF_BATCH_DEDUP="1"))


def _run_exits(ctx, cases, args, minimum, env=None):
    """Runs the binary with @args and each case's input: exit 0 or 1,
    never a signal, a hang or a sanitizer report (ctx.run reports those).
    Only the exit counts, for runs whose stderr is not one error line."""
    assert len(cases) >= minimum, "only %d cases generated" % len(cases)
    work = os.path.join(ctx.tmp, "exits")
    os.makedirs(work, exist_ok=True)
    bad = []
    for case in cases:
        inp = os.path.join(work, "input" + case.ext)
        with open(inp, "wb") as f:
            f.write(case.data)
        rc, err = _run(ctx, [_bin(ctx)] + args +
                       ["-o", os.path.join(work, "out.btf"), inp], env=env)
        if rc not in (0, 1):
            bad.append("%s: %s" % (case.name, rc if rc is not None else err))
    assert not bad, "%d of %d cases:\n%s" % (len(bad), len(cases),
                                             "\n".join(bad[:20]))


def test_badinput_dwarf_keys(ctx):
    """The dwarf and flip cases again with --stats=keys, which keys every
    type from its DWARF (cu/cu_keys.c) before it is built.  The lines of
    --stats are no error message, so only the exit counts."""
    cases = []
    for fx in _fixtures(ctx):
        cases += _dwarf_cases(fx) + _flip_cases(fx)
    _run_exits(ctx, cases, ["--stats=keys", "--no-cache"], 300)


def test_badinput_cxx(ctx):
    """C++ objects (tests/fixtures/cxx_members.cc: base classes, a class
    only declared, pointers to members, member functions), cut and
    flipped: exit 0 or 1, never a signal, a hang or a sanitizer report.
    Their BTF is not what the kernel loads (C++ names, members of declared
    classes), so _run_group()'s checks of a valid output do not apply."""
    cases = []
    for cc in ("g++", "clang++"):
        for dwarf in (4, 5):
            fx = Fixture(ctx, cc, dwarf, False, "cxx_members")
            cases += _truncate_cases(fx) + _flip_cases(fx)
    _run_exits(ctx, cases, [], 200)


# -------------------------------------------------------- type units

class LibFixture:
    """A committed library with type units (fixtures/type_units.sh)."""

    def __init__(self, ctx, dwarf):
        self.name = "type_units-gcc16-dw%d" % dwarf
        self.ext = ".so"
        self.dwarf = dwarf
        self.path = os.path.join(ctx.root, "tests", "fixtures",
                                 "type_units_gcc16_dwarf%d.so" % dwarf)
        with open(self.path, "rb") as f:
            self.data = f.read()
        self.elf = Elf(self.data)


def _type_unit_heads(fx):
    """(signature offset, type offset offset) of each type unit header:
    DWARF 4's in .debug_types, DWARF 5's among .debug_info's units."""
    s = fx.elf.section(".debug_types" if fx.dwarf == 4 else ".debug_info")
    heads, pos = [], s.offset
    while pos + 24 <= s.offset + s.size:
        length, version = struct.unpack_from("<IH", fx.data, pos)
        if version == 4:
            heads.append((pos + 11, pos + 19))
        elif fx.data[pos + 6] == 2:         # DW_UT_type
            heads.append((pos + 12, pos + 20))
        pos += 4 + length
    return heads


def _type_unit_cases(fx):
    """Every type unit's signature changed, so that its stubs find none
    (an error), or its type offset moved to its header, its unit DIE, past
    its end (either)."""
    cases = []
    heads = _type_unit_heads(fx)
    assert heads, "%s: no type unit" % fx.name
    for i, (sig, toff) in enumerate(heads):
        cases.append(Case("tu-sig-%s-%d" % (fx.name, i),
                          _patch(fx.data, sig, int.from_bytes(
                              fx.data[sig:sig + 8], "little") ^ 1, 8),
                          "error", fx.ext))
        # The unit's DIE follows its header: 23 bytes in DWARF 4, 24 in 5.
        for what, v in (("head", 1), ("unitdie", 23 if fx.dwarf == 4 else 24),
                        ("past", 0x7fffffff)):
            cases.append(Case("tu-off-%s-%s-%d" % (what, fx.name, i),
                              _patch(fx.data, toff, v, 4), "either",
                              fx.ext))
    return cases


def test_badinput_type_units(ctx):
    """gcc 16's type units, DWARF 4 and 5 (fixtures/type_units.sh): their
    headers edited, and cut and flipped (.debug_types too)."""
    cases = []
    for dwarf in (4, 5):
        fx = LibFixture(ctx, dwarf)
        cases += _type_unit_cases(fx) + _truncate_cases(fx) + \
            _flip_cases(fx, (".debug_types",))
    _run_group(ctx, cases, 150)


# -------------------------------------------------------------- misc

def test_badinput_misc(ctx):
    cases = []
    r = _rng("misc")
    cases.append(Case("misc-empty", b"", "error"))
    cases.append(Case("misc-text", b"this is not an ELF file\n" * 100,
                      "error", ".txt"))
    cases.append(Case("misc-random", bytes(r.randrange(256)
                                           for _ in range(4096)), "error"))
    cases.append(Case("misc-elf-magic-only", b"\x7fELF", "error"))
    cases.append(Case("misc-elf-magic-zeros", b"\x7fELF" + bytes(4092),
                      "error"))
    cases.append(Case("misc-ar-archive", b"!<arch>\n", "error", ".a"))
    cases.append(Case("misc-directory", b"", "error", "", kind="dir"))
    cases.append(Case("misc-fifo", b"", "error", "", kind="fifo"))
    cases.append(Case("misc-nonexistent", b"", "error", ".o",
                      kind="missing"))
    for fx in _fixtures(ctx):
        # Unmodified input: checks the harness, must encode.
        cases.append(Case("misc-control-%s" % fx.name, fx.data, "ok",
                          fx.ext))
        if fx.cc == "gcc" and fx.dwarf == 5:
            stripped = os.path.join(ctx.tmp, "stripped-" + fx.name)
            p = ctx.run(["objcopy", "--strip-debug", fx.path, stripped])
            assert p.returncode == 0, p.stderr
            with open(stripped, "rb") as f:
                cases.append(Case("misc-nodwarf-%s" % fx.name, f.read(),
                                  "error", fx.ext))
            p = ctx.run(["objcopy", "--strip-all", fx.path, stripped])
            assert p.returncode == 0, p.stderr
            with open(stripped, "rb") as f:
                cases.append(Case("misc-stripped-%s" % fx.name, f.read(),
                                  "error", fx.ext))
            os.unlink(stripped)
    # Valid: an object without any function symbol.
    for cc in ("gcc", "clang"):
        path = ctx.fixture("bad_nofuncs", cc, 5)
        with open(path, "rb") as f:
            cases.append(Case("misc-control-nofuncs-%s" % cc, f.read(), "ok"))
    _run_group(ctx, cases, 15)
