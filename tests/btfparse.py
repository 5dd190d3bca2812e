# SPDX-License-Identifier: GPL-2.0-only
"""Pure-python reader of BTF, plus a canonical text rendering for tests.

Reading
-------
``parse_raw(data, base=None)`` parses a raw BTF blob (what ``dwarf2btf -o``
and ``pahole --btf_encode_detached`` write), in either byte order.  With
``base`` (a parsed ``Btf``) the blob is split BTF: its type ids continue after
the base ones and its string offsets after the base string section.
``elf_section(data, name)`` returns the bytes of an ELF section (32/64-bit,
both byte orders, extended section numbering, SHF_COMPRESSED zlib).
``parse_elf(data, base=None)`` parses an ELF's ``.BTF`` section and
``load(path, base=None)`` accepts either kind of file.  Malformed input
raises ``BtfError``.

Canonical rendering
-------------------
``render(btf, what="all")`` returns a sorted list of lines, one per named
type, function, variable, datasec and decl tag, with type ids replaced by
C-like type strings so that two encodings of the same C types compare equal
whatever their type order.  Identical lines are kept (two distinct
``struct foo`` give two lines).  ``what="types"`` leaves out the ``func``,
``var`` and ``datasec`` lines and the decl tags attached to functions or
variables.  For split BTF only the split part's own types get lines.

Line formats (``NAME`` is ``(anon)`` for an empty name)::

    int NAME size=S [signed] [char] [bool] [bits=N] [bitoff=N]
    float NAME size=S
    struct NAME size=S [kflag=1] { MEMBER; ... }   (same for union)
        MEMBER = NAME TYPE [bits=N] off=BITOFF
        ("bits" is the bitfield size of a kind_flag struct, if not 0)
    enum NAME size=S signed|unsigned { A=0 B=-1 }  (signed = kind_flag)
    enum64 NAME size=S signed|unsigned { A=0 B=18446744073709551615 }
    fwd struct NAME | fwd union NAME
    typedef NAME = TYPE
    func NAME static|global|extern PROTO
    var NAME static|global|extern TYPE
    datasec NAME size=S { VAR off=O size=Z; ... }
    decl_tag VALUE [kflag=1] on TARGET [member M | param P]
        (TARGET is a type string, "typedef NAME", "func NAME" or
         "var NAME"; a component without a name is shown as "#N")

Anonymous struct/union/enum types are written inline, with their full body,
wherever they are referenced; those not referenced from any other type line
get a line of their own (``struct (anon) size=4 { ... }``).

Type strings (TYPE) read left to right from the innermost type, like
"east const" C, so that every BTF chain has exactly one spelling:

    void                            type id 0
    int, u32, struct foo, enum e    named types (FWD renders as struct/union)
    struct size=4 { ... }           anonymous struct/union/enum, inline
    int *, int **                   PTR
    int const, int volatile, int restrict, int type_tag(user),
    int type_attr(address_space(1)) (a type tag with kind_flag)
    int const *                     pointer to const int
    int * const                     const pointer to int
    char[16], int[2][3]             ARRAY (directly nested arrays print in
                                    C order: array of 2 arrays of 3 int)
    int *[4], int[4] *              array of pointers, pointer to array
    int(int a, char *, ...)         FUNC_PROTO (param names when present,
                                    "..." for varargs, "(void)" for none)
    void(int) *                     pointer to function
"""

import struct
import zlib

BTF_MAGIC = 0xEB9F

KIND_NAMES = {
    0: "unkn", 1: "int", 2: "ptr", 3: "array", 4: "struct", 5: "union",
    6: "enum", 7: "fwd", 8: "typedef", 9: "volatile", 10: "const",
    11: "restrict", 12: "func", 13: "func_proto", 14: "var", 15: "datasec",
    16: "float", 17: "decl_tag", 18: "type_tag", 19: "enum64",
}
KINDS = {v: k for k, v in KIND_NAMES.items()}

INT_SIGNED = 1
INT_CHAR = 2
INT_BOOL = 4

FUNC_LINKAGE = {0: "static", 1: "global", 2: "extern"}
VAR_LINKAGE = {0: "static", 1: "global", 2: "extern"}


class BtfError(Exception):
    """Malformed or unsupported BTF or ELF input."""


class BtfType:
    """One BTF type.  Common fields: id, kind (name string), name, kflag,
    vlen, size (size-or-type field as size), type (same field as a type id).
    Kind-specific: int: encoding, bits, bitoff; array: elem, index, nelems;
    struct/union: members [(name, type, offset_field)]; enum/enum64:
    values [(name, int)]; func_proto: params [(name, type)]; var: linkage;
    func: linkage; datasec: vars [(type, offset, size)]; decl_tag:
    component_idx."""

    __slots__ = ("id", "kind", "name", "kflag", "vlen", "size", "type",
                 "encoding", "bits", "bitoff", "elem", "index", "nelems",
                 "members", "values", "params", "linkage", "vars",
                 "component_idx")

    def __init__(self, tid, kind, name, kflag, vlen, size_type):
        self.id = tid
        self.kind = kind
        self.name = name
        self.kflag = kflag
        self.vlen = vlen
        self.size = size_type
        self.type = size_type

    def __repr__(self):
        return "<BtfType [%d] %s %r>" % (self.id, self.kind, self.name)


class Btf:
    """Parsed BTF.  ``types`` holds this blob's own types; ids run from
    ``start_id`` (1, or the base's type count for split BTF)."""

    def __init__(self, endian, base=None):
        self.endian = endian      # "<" or ">"
        self.base = base
        self.start_id = base.type_cnt() if base else 1
        self.start_str_off = base.str_end() if base else 0
        self.types = []
        self.strings = b""
        self.version = 1
        self.flags = 0

    def type_cnt(self):
        """Number of type ids in use including void (libbpf's meaning)."""
        return self.start_id + len(self.types)

    def str_end(self):
        return self.start_str_off + len(self.strings)

    def type_by_id(self, tid):
        if tid == 0:
            return None
        if tid < self.start_id:
            if self.base is None:
                raise BtfError("type id %d out of range" % tid)
            return self.base.type_by_id(tid)
        i = tid - self.start_id
        if i >= len(self.types):
            raise BtfError("type id %d out of range" % tid)
        return self.types[i]

    def str_at(self, off):
        if off < self.start_str_off:
            if self.base is None:
                raise BtfError("string offset %d out of range" % off)
            return self.base.str_at(off)
        o = off - self.start_str_off
        if o >= len(self.strings):
            raise BtfError("string offset %d out of range" % off)
        end = self.strings.find(b"\0", o)
        if end < 0:
            raise BtfError("string at %d not terminated" % off)
        try:
            return self.strings[o:end].decode("utf-8")
        except UnicodeDecodeError as e:
            raise BtfError("string at %d: %s" % (off, e)) from None

    def all_types(self):
        """Own types, in id order."""
        return list(self.types)


def parse_raw(data, base=None):
    """Parse a raw BTF blob (bytes).  ``base`` makes it split BTF."""
    data = bytes(data)
    if len(data) < 24:
        raise BtfError("BTF data too short (%d bytes)" % len(data))
    magic_le = struct.unpack_from("<H", data, 0)[0]
    if magic_le == BTF_MAGIC:
        e = "<"
    elif magic_le == 0x9FEB:
        e = ">"
    else:
        raise BtfError("bad BTF magic 0x%04x" % magic_le)
    _, version, flags, hdr_len = struct.unpack_from(e + "HBBI", data, 0)
    if hdr_len < 24 or hdr_len > len(data):
        raise BtfError("bad BTF header length %d" % hdr_len)
    type_off, type_len, str_off, str_len = struct.unpack_from(e + "4I",
                                                              data, 8)
    body = len(data) - hdr_len
    for what, off, ln in (("type", type_off, type_len),
                          ("string", str_off, str_len)):
        if off + ln > body:
            raise BtfError("BTF %s section [%d, +%d) beyond end of data (%d)"
                           % (what, off, ln, body))
    if type_off % 4:
        raise BtfError("BTF type section not 4-byte aligned")
    btf = Btf(e, base)
    btf.version = version
    btf.flags = flags
    btf.strings = data[hdr_len + str_off:hdr_len + str_off + str_len]
    if base is None and (not btf.strings or btf.strings[0] != 0):
        raise BtfError("BTF string section must start with an empty string")
    if btf.strings and btf.strings[-1] != 0:
        raise BtfError("BTF string section not NUL-terminated")
    _parse_types(btf, data[hdr_len + type_off:hdr_len + type_off + type_len])
    return btf


def _parse_types(btf, buf):
    e = btf.endian
    pos = 0
    tid = btf.start_id
    n = len(buf)

    def need(k):
        if pos + k > n:
            raise BtfError("type [%d] truncated" % tid)

    while pos < n:
        need(12)
        name_off, info, size_type = struct.unpack_from(e + "3I", buf, pos)
        pos += 12
        vlen = info & 0xFFFF
        kind_no = (info >> 24) & 0x1F
        kflag = (info >> 31) & 1
        kind = KIND_NAMES.get(kind_no)
        if kind is None or kind_no == 0:
            raise BtfError("type [%d]: unknown kind %d" % (tid, kind_no))
        t = BtfType(tid, kind, btf.str_at(name_off), kflag, vlen, size_type)
        if kind == "int":
            need(4)
            v = struct.unpack_from(e + "I", buf, pos)[0]
            pos += 4
            t.encoding = (v >> 24) & 0x0F
            t.bitoff = (v >> 16) & 0xFF
            t.bits = v & 0xFF
        elif kind == "array":
            need(12)
            t.elem, t.index, t.nelems = struct.unpack_from(e + "3I", buf, pos)
            pos += 12
        elif kind in ("struct", "union"):
            need(12 * vlen)
            t.members = []
            for _ in range(vlen):
                mn, mt, mo = struct.unpack_from(e + "3I", buf, pos)
                pos += 12
                t.members.append((btf.str_at(mn), mt, mo))
        elif kind == "enum":
            need(8 * vlen)
            t.values = []
            for _ in range(vlen):
                vn, vv = struct.unpack_from(e + "Ii", buf, pos)
                pos += 8
                if not kflag:
                    vv &= 0xFFFFFFFF
                t.values.append((btf.str_at(vn), vv))
        elif kind == "enum64":
            need(12 * vlen)
            t.values = []
            for _ in range(vlen):
                vn, lo, hi = struct.unpack_from(e + "3I", buf, pos)
                pos += 12
                vv = (hi << 32) | lo
                if kflag and vv >= 1 << 63:
                    vv -= 1 << 64
                t.values.append((btf.str_at(vn), vv))
        elif kind == "func_proto":
            need(8 * vlen)
            t.params = []
            for _ in range(vlen):
                pn, pt = struct.unpack_from(e + "2I", buf, pos)
                pos += 8
                t.params.append((btf.str_at(pn), pt))
        elif kind == "var":
            need(4)
            t.linkage = struct.unpack_from(e + "I", buf, pos)[0]
            pos += 4
        elif kind == "datasec":
            need(12 * vlen)
            t.vars = []
            for _ in range(vlen):
                t.vars.append(struct.unpack_from(e + "3I", buf, pos))
                pos += 12
        elif kind == "decl_tag":
            need(4)
            t.component_idx = struct.unpack_from(e + "i", buf, pos)[0]
            pos += 4
        elif kind == "func":
            t.linkage = vlen
        btf.types.append(t)
        tid += 1
    # Every referenced id must exist, so rendering cannot fail later.
    cnt = btf.type_cnt()
    for t in btf.types:
        for r in _refs(t):
            if r >= cnt:
                raise BtfError("type [%d] refers to missing type %d"
                               % (t.id, r))


def _refs(t):
    k = t.kind
    if k in ("ptr", "typedef", "volatile", "const", "restrict", "func",
             "var", "decl_tag", "type_tag"):
        return [t.type]
    if k == "array":
        return [t.elem, t.index]
    if k in ("struct", "union"):
        return [m[1] for m in t.members]
    if k == "func_proto":
        return [t.type] + [p[1] for p in t.params]
    if k == "datasec":
        return [v[0] for v in t.vars]
    return []


# ---------------------------------------------------------------- ELF

SHT_NOBITS = 8
SHF_COMPRESSED = 0x800
SHN_XINDEX = 0xFFFF


def _elf_sections(data):
    """Yield (name, sh_type, sh_flags, bytes) for every section."""
    if len(data) < 16 or data[:4] != b"\x7fELF":
        raise BtfError("not an ELF file")
    cls, enc = data[4], data[5]
    if cls not in (1, 2):
        raise BtfError("bad ELF class %d" % cls)
    if enc not in (1, 2):
        raise BtfError("bad ELF data encoding %d" % enc)
    e = "<" if enc == 1 else ">"
    is64 = cls == 2
    hdr_size = 64 if is64 else 52
    if len(data) < hdr_size:
        raise BtfError("truncated ELF header")
    if is64:
        shoff = struct.unpack_from(e + "Q", data, 0x28)[0]
        shentsize, shnum, shstrndx = struct.unpack_from(e + "3H", data, 0x3A)
        sh_fmt, sh_min = e + "IIQQQQIIQQ", 64
    else:
        shoff = struct.unpack_from(e + "I", data, 0x20)[0]
        shentsize, shnum, shstrndx = struct.unpack_from(e + "3H", data, 0x2E)
        sh_fmt, sh_min = e + "10I", 40
    if shoff == 0:
        return []
    if shentsize < sh_min:
        raise BtfError("bad ELF section header size %d" % shentsize)

    def shdr(i):
        off = shoff + i * shentsize
        if off + sh_min > len(data):
            raise BtfError("ELF section header %d beyond end of file" % i)
        (name, typ, flags, _addr, offset, size, link, _info, _align,
         _entsize) = struct.unpack_from(sh_fmt, data, off)
        return name, typ, flags, offset, size, link

    # Extended numbering: real counts live in section header 0.
    if shnum == 0:
        shnum = shdr(0)[4]
    if shstrndx == SHN_XINDEX:
        shstrndx = shdr(0)[5]
    if shnum > (len(data) - shoff) // shentsize + 1:
        raise BtfError("ELF section count %d too large for file" % shnum)
    hdrs = [shdr(i) for i in range(shnum)]
    if shstrndx >= shnum:
        raise BtfError("bad ELF section name string table index")

    def contents(h):
        _, typ, flags, offset, size, _ = h
        if typ == SHT_NOBITS:
            return b""
        if offset + size > len(data):
            raise BtfError("ELF section beyond end of file")
        raw = data[offset:offset + size]
        if flags & SHF_COMPRESSED:
            chdr = e + ("IIQQ" if is64 else "III")
            ch_len = struct.calcsize(chdr)
            if len(raw) < ch_len:
                raise BtfError("truncated compressed section header")
            ctype = struct.unpack_from(chdr, raw, 0)[0]
            if ctype != 1:
                raise BtfError("unsupported ELF compression type %d" % ctype)
            raw = zlib.decompress(raw[ch_len:])
        return raw

    strtab = contents(hdrs[shstrndx])
    out = []
    for h in hdrs:
        end = strtab.find(b"\0", h[0])
        if h[0] >= len(strtab) or end < 0:
            raise BtfError("bad ELF section name offset %d" % h[0])
        name = strtab[h[0]:end].decode("utf-8", "replace")
        out.append((name, h, contents))
    return out


def elf_section(data, name):
    """Bytes of ELF section ``name``, or None if there is none."""
    for sname, h, contents in _elf_sections(bytes(data)):
        if sname == name:
            return contents(h)
    return None


def parse_elf(data, base=None):
    sec = elf_section(data, ".BTF")
    if sec is None:
        raise BtfError("ELF file has no .BTF section")
    return parse_raw(sec, base)


def load(path, base=None):
    """Parse a raw BTF file or an ELF file's .BTF section.  ``base`` may be
    a Btf or a path."""
    if isinstance(base, str):
        base = load(base)
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x7fELF":
        return parse_elf(data, base)
    return parse_raw(data, base)


# ---------------------------------------------------------- rendering

_COMPOSITE = ("struct", "union", "enum", "enum64")
# Kinds that get a line of their own when named.
_LINE_KINDS = ("int", "float", "struct", "union", "enum", "enum64", "fwd",
               "typedef", "func", "var", "datasec", "decl_tag")


def _nm(name):
    return name if name else "(anon)"


def _decl(tstr, name):
    """``int a``, ``char *p``."""
    return tstr + name if tstr.endswith("*") else "%s %s" % (tstr, name)


class _Renderer:
    def __init__(self, btf):
        self.btf = btf
        self.inlined = set()     # anonymous composite ids written inline
        self.active = set()      # cycle guard

    def t(self, tid):
        """Type string of type id ``tid``."""
        if tid == 0:
            return "void"
        t = self.btf.type_by_id(tid)
        k = t.kind
        if k in ("int", "float", "typedef"):
            return t.name if t.name else "(anon %s)" % k
        if k in ("struct", "union"):
            if t.name:
                return "%s %s" % (k, t.name)
            return self.guard(t, lambda: self.composite_body(t))
        if k in ("enum", "enum64"):
            if t.name:
                return "enum " + t.name
            return self.guard(t, lambda: self.enum_body(t))
        if k == "fwd":
            return "%s %s" % ("union" if t.kflag else "struct", _nm(t.name))
        if k == "ptr":
            inner = self.guard(t, lambda: self.t(t.type))
            return inner + ("*" if inner.endswith("*") else " *")
        if k in ("const", "volatile", "restrict"):
            return "%s %s" % (self.guard(t, lambda: self.t(t.type)), k)
        if k == "type_tag":
            # kind_flag: an attribute (pahole's attributes feature)
            return "%s %s(%s)" % (self.guard(t, lambda: self.t(t.type)),
                                  "type_attr" if t.kflag else "type_tag",
                                  t.name)
        if k == "array":
            dims = []
            a = t
            seen = set()
            while a is not None and a.kind == "array" and a.id not in seen:
                seen.add(a.id)
                dims.append("[%d]" % a.nelems)
                elem = a.elem
                a = self.btf.type_by_id(elem)
            return self.guard(t, lambda: self.t(elem)) + "".join(dims)
        if k == "func_proto":
            return self.guard(t, lambda: self.proto(t))
        if k in ("func", "var", "datasec"):
            return "%s %s" % (k, _nm(t.name))
        if k == "decl_tag":
            return "decl_tag %s" % t.name
        raise BtfError("cannot render kind %s" % k)

    def guard(self, t, fn):
        if t.id in self.active:
            return "<cycle [%d]>" % t.id
        self.active.add(t.id)
        try:
            if t.kind in _COMPOSITE:
                self.inlined.add(t.id)
            return fn()
        finally:
            self.active.discard(t.id)

    def proto(self, t):
        ps = []
        for i, (pn, pt) in enumerate(t.params):
            if pt == 0 and not pn and i == len(t.params) - 1:
                ps.append("...")
            elif pn:
                ps.append(_decl(self.t(pt), pn))
            else:
                ps.append(self.t(pt))
        return "%s(%s)" % (self.t(t.type), ", ".join(ps) if ps else "void")

    def composite_body(self, t, name=None):
        head = t.kind if name is None else "%s %s" % (t.kind, name)
        ms = []
        for mn, mt, mo in t.members:
            if t.kflag:
                bits, off = mo >> 24, mo & 0xFFFFFF
            else:
                bits, off = 0, mo
            s = "%s %s" % (_nm(mn), self.t(mt))
            if bits:
                s += " bits=%d" % bits
            ms.append("%s off=%d;" % (s, off))
        kf = " kflag=1" if t.kflag else ""
        return "%s size=%d%s { %s}" % (head, t.size, kf,
                                       "".join(m + " " for m in ms))

    def enum_body(self, t, name=None):
        head = t.kind if name is None else "%s %s" % (t.kind, name)
        vs = ["%s=%d" % (_nm(n), v) for n, v in t.values]
        return "%s size=%d %s { %s}" % (head, t.size,
                                        "signed" if t.kflag else "unsigned",
                                        "".join(v + " " for v in vs))

    def line_anon(self, t):
        self.active.add(t.id)
        try:
            if t.kind in ("struct", "union"):
                return self.composite_body(t, "(anon)")
            return self.enum_body(t, "(anon)")
        finally:
            self.active.discard(t.id)

    def line(self, t):
        k = t.kind
        n = _nm(t.name)
        if k == "int":
            s = "int %s size=%d" % (n, t.size)
            if t.encoding & INT_SIGNED:
                s += " signed"
            if t.encoding & INT_CHAR:
                s += " char"
            if t.encoding & INT_BOOL:
                s += " bool"
            if t.encoding & ~7:
                s += " enc=0x%x" % t.encoding
            if t.bits != t.size * 8:
                s += " bits=%d" % t.bits
            if t.bitoff:
                s += " bitoff=%d" % t.bitoff
            return s
        if k == "float":
            return "float %s size=%d" % (n, t.size)
        if k in ("struct", "union"):
            self.active.add(t.id)
            try:
                return self.composite_body(t, n)
            finally:
                self.active.discard(t.id)
        if k in ("enum", "enum64"):
            return self.enum_body(t, n)
        if k == "fwd":
            return "fwd %s %s" % ("union" if t.kflag else "struct", n)
        if k == "typedef":
            return "typedef %s = %s" % (n, self.t(t.type))
        if k == "func":
            link = FUNC_LINKAGE.get(t.linkage, "linkage%d" % t.linkage)
            tgt = self.btf.type_by_id(t.type)
            if tgt is not None and tgt.kind == "func_proto":
                proto = self.proto(tgt)
            else:
                proto = "<not a proto: %s>" % self.t(t.type)
            return "func %s %s %s" % (n, link, proto)
        if k == "var":
            link = VAR_LINKAGE.get(t.linkage, "linkage%d" % t.linkage)
            return "var %s %s %s" % (n, link, self.t(t.type))
        if k == "datasec":
            vs = []
            for vt, vo, vsz in t.vars:
                v = self.btf.type_by_id(vt)
                vn = _nm(v.name) if v is not None else "void"
                vs.append("%s off=%d size=%d;" % (vn, vo, vsz))
            return "datasec %s size=%d { %s}" % (n, t.size,
                                                 "".join(v + " " for v in vs))
        if k == "decl_tag":
            tgt = self.btf.type_by_id(t.type)
            where = self.t(t.type)
            if tgt is not None and tgt.kind == "typedef":
                where = "typedef " + where
            ci = t.component_idx
            comps = None
            if tgt is not None and tgt.kind in ("struct", "union"):
                sub, comps = "member", [m[0] for m in tgt.members]
            elif tgt is not None and tgt.kind == "func":
                proto = self.btf.type_by_id(tgt.type)
                if proto is not None and proto.kind == "func_proto":
                    sub, comps = "param", [p[0] for p in proto.params]
            if ci != -1:
                if comps is not None and 0 <= ci < len(comps) and comps[ci]:
                    where += " %s %s" % (sub, comps[ci])
                else:
                    where += " #%d" % ci
            kf = " kflag=1" if t.kflag else ""
            return "decl_tag %s%s on %s" % (t.name, kf, where)
        raise BtfError("no line for kind %s" % k)


def _is_type_kind(btf, t):
    """True for types that belong in the "types" rendering."""
    if t.kind in ("func", "var", "datasec"):
        return False
    if t.kind == "decl_tag":
        tgt = btf.type_by_id(t.type)
        return tgt is None or tgt.kind not in ("func", "var", "datasec")
    return True


def render(btf, what="all"):
    """Sorted canonical lines of ``btf``'s own types (see module doc).
    ``what`` is "all" or "types"."""
    if what not in ("all", "types"):
        raise ValueError("what must be 'all' or 'types'")
    r = _Renderer(btf)
    lines = []
    # Type lines first, so we know which anonymous composites were
    # written inline by them.
    own = btf.all_types()
    named = [t for t in own if t.kind in _LINE_KINDS
             and (t.name or t.kind not in _COMPOSITE)]
    type_named = [t for t in named if _is_type_kind(btf, t)]
    other = [t for t in named if not _is_type_kind(btf, t)]
    for t in type_named:
        lines.append(r.line(t))
    # Anonymous composites not written inline by a type line get a line
    # of their own, unless they are inline in another such one.
    pending = [t for t in own if t.kind in _COMPOSITE and not t.name
               and t.id not in r.inlined]
    nested = set()
    for t in pending:
        probe = _Renderer(btf)
        probe.line_anon(t)
        nested |= probe.inlined - {t.id}
    for t in pending:
        if t.id not in nested:
            lines.append(r.line_anon(t))
    if what == "all":
        for t in other:
            lines.append(r.line(t))
    lines.sort()
    return lines
