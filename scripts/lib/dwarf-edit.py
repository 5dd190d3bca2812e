#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Copy a linked 64-bit little-endian ELF with one CU's DWARF changed, in
place and without changing any size, as a relink after editing one file
would change it: a member's offset (the last member of the CU's last struct
with padding after it moves one byte on) and a type's name (the CU's last
named struct, one of its own file rather than of a header, is named by
its own tail).  bench/relink.sh encodes the copy with the cache
of the original.  With --rename NAME, only the CU's first struct NAME is
named by its tail, nothing else changed: a header's struct that the CU
sees otherwise than all the others (scripts/check-kernel.sh).

usage: scripts/lib/dwarf-edit.py IN OUT [--cu N] [--rename NAME]
  N: the CU (0-based, in .debug_info order; default: the middle one).
Prints what it changed; exit 1 when the CU has no such struct.
"""
import argparse
import os
import shutil
import struct
import sys

from elfsections import sections

DW_TAG_member, DW_TAG_structure_type = 0x0d, 0x13
DW_AT_name, DW_AT_byte_size, DW_AT_type = 0x03, 0x0b, 0x49
DW_AT_data_member_location, DW_AT_declaration = 0x38, 0x3c
DW_AT_bit_size = 0x0d
DW_FORM_strp, DW_FORM_implicit_const, DW_FORM_indirect = 0x0e, 0x21, 0x16


def leb(b, at, signed=False):
    r = shift = 0
    while True:
        c = b[at]
        at += 1
        r |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            if signed and c & 0x40:
                r -= 1 << shift
            return r, at


def uleb(b, at):
    return leb(b, at)


def sleb(b, at):
    return leb(b, at, True)


def abbrevs(b, at):
    table = {}
    while True:
        code, at = uleb(b, at)
        if not code:
            return table
        tag, at = uleb(b, at)
        children = b[at]
        at += 1
        attrs = []
        while True:
            name, at = uleb(b, at)
            form, at = uleb(b, at)
            if not name and not form:
                break
            ic = None
            if form == DW_FORM_implicit_const:
                ic, at = sleb(b, at)
            attrs.append((name, form, ic))
        table[code] = (tag, children, attrs)


def value(b, at, form, asz, osz):
    """(value, where it is, where it ends) of a FORM value at AT."""
    fixed = {0x0b: 1, 0x11: 1, 0x0c: 1, 0x25: 1, 0x29: 1, 0x05: 2, 0x12: 2,
             0x26: 2, 0x2a: 2, 0x27: 3, 0x2b: 3, 0x06: 4, 0x13: 4, 0x28: 4,
             0x2c: 4, 0x1c: 4, 0x07: 8, 0x14: 8, 0x20: 8, 0x24: 8, 0x1e: 16}
    if form in fixed:
        n = fixed[form]
        return int.from_bytes(b[at:at + n], "little"), at, at + n
    if form == 0x01:
        return int.from_bytes(b[at:at + asz], "little"), at, at + asz
    if form in (0x0e, 0x1f, 0x17, 0x10, 0x1d, 0x1f20, 0x1f21):
        return int.from_bytes(b[at:at + osz], "little"), at, at + osz
    if form in (0x0f, 0x15, 0x1a, 0x1b, 0x22, 0x23, 0x1f01, 0x1f02):
        v, end = uleb(b, at)
        return v, at, end
    if form == 0x0d:
        v, end = sleb(b, at)
        return v, at, end
    if form == 0x08:
        end = b.index(b"\0", at) + 1
        return None, at, end
    if form in (0x09, 0x18):
        n, start = uleb(b, at)
        return None, start, start + n
    if form in (0x0a, 0x03, 0x04):
        k = {0x0a: 1, 0x03: 2, 0x04: 4}[form]
        n = int.from_bytes(b[at:at + k], "little")
        return None, at + k, at + k + n
    if form in (0x19, DW_FORM_implicit_const):
        return None, at, at
    if form == DW_FORM_indirect:
        f, at = uleb(b, at)
        return value(b, at, f, asz, osz)
    sys.exit("dwarf-edit: form 0x%x not known" % form)


def dies(info, abbrev_sec, cu):
    """The DIEs of the unit at CU: (offset, tag, {attr: (form, value,
    where)}, depth), offsets from the start of .debug_info."""
    length, = struct.unpack_from("<I", info, cu)
    osz, at = 4, cu + 4
    if length == 0xffffffff:
        length, = struct.unpack_from("<Q", info, at)
        osz, at = 8, at + 8
    end = at + length
    version, = struct.unpack_from("<H", info, at)
    at += 2
    if osz != 4:
        sys.exit("dwarf-edit: 64-bit DWARF not supported")
    if version >= 5:
        asz = info[at + 1]
        aoff = int.from_bytes(info[at + 2:at + 2 + osz], "little")
        at += 2 + osz
    else:
        aoff = int.from_bytes(info[at:at + osz], "little")
        asz = info[at + osz]
        at += osz + 1
    table = abbrevs(abbrev_sec, aoff)
    depth = 0
    while at < end:
        off = at
        code, at = uleb(info, at)
        if not code:
            depth -= 1
            continue
        tag, children, attrs = table[code]
        vals = {}
        for name, form, ic in attrs:
            v, where, at = value(info, at, form, asz, osz)
            vals[name] = (form, ic if form == DW_FORM_implicit_const else v,
                          where)
        yield off, tag, vals, depth
        if children:
            depth += 1


def cu_offsets(info):
    at, out = 0, []
    while at < len(info):
        length, = struct.unpack_from("<I", info, at)
        out.append(at)
        at += 4 + length if length != 0xffffffff else \
            12 + struct.unpack_from("<Q", info, at + 4)[0]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("src")
    ap.add_argument("dst")
    ap.add_argument("--cu", type=int)
    ap.add_argument("--rename")
    a = ap.parse_args()
    with open(a.src, "rb") as f:
        data = bytearray(f.read())
    secs = sections(data)
    io, isz, _ = secs[".debug_info"]
    ao, asz_, _ = secs[".debug_abbrev"]
    so, ssz, _ = secs[".debug_str"]
    info = data[io:io + isz]
    abbrev_sec = data[ao:ao + asz_]
    strs = data[so:so + ssz]
    cus = cu_offsets(info)
    n = a.cu if a.cu is not None else len(cus) // 2
    all_dies = list(dies(info, abbrev_sec, cus[n]))
    by_off = {d[0]: d for d in all_dies}

    def size_of(ref_off, hops=0):
        """A member type's size: arrays (whose size is not their
        element's) and others left out."""
        d = by_off.get(ref_off)
        if not d or hops > 8 or d[1] not in (0x24, 0x0f, 0x16, 0x26, 0x35,
                                             0x13, 0x04):
            return None
        if DW_AT_byte_size in d[2]:
            return d[2][DW_AT_byte_size][1]
        if DW_AT_type in d[2] and d[2][DW_AT_type][0] in (0x11, 0x12, 0x13,
                                                          0x14, 0x15):
            return size_of(cus[n] + d[2][DW_AT_type][1], hops + 1)
        return None

    name_at = member_at = None
    for i, (off, tag, vals, depth) in enumerate(all_dies):
        if a.rename is not None:
            name = vals.get(DW_AT_name)
            if tag == DW_TAG_structure_type and name and \
                    name[0] == DW_FORM_strp and \
                    strs[name[1]:strs.index(b"\0", name[1])] == \
                    a.rename.encode() and len(a.rename) > 1:
                name_at = (off, name[2], name[1], a.rename)
                break
            continue
        if tag != DW_TAG_structure_type or DW_AT_declaration in vals or \
                DW_AT_byte_size not in vals:
            continue
        members = []
        for off2, tag2, vals2, depth2 in all_dies[i + 1:]:
            if depth2 <= depth:
                break
            if depth2 == depth + 1 and tag2 == DW_TAG_member:
                members.append(vals2)
        # the CU's last named struct: its own file's, not a header's that
        # every CU has
        name = vals.get(DW_AT_name)
        if name and name[0] == DW_FORM_strp:
            s = strs[name[1]:strs.index(b"\0", name[1])]
            if len(s) >= 4:
                name_at = (off, name[2], name[1], s.decode())
        last = members[-1] if members else None
        loc = last.get(DW_AT_data_member_location) if last else None
        if loc and loc[0] in (0x0b, 0x05, 0x06) and \
                DW_AT_type in last and last[DW_AT_type][0] == 0x13 and \
                DW_AT_bit_size not in last:
            msize = size_of(cus[n] + last[DW_AT_type][1])
            if msize and loc[1] + msize < vals[DW_AT_byte_size][1]:
                member_at = (off, loc[2], loc[1], {0x0b: 1, 0x05: 2,
                                                   0x06: 4}[loc[0]])
    if not name_at or (not member_at and a.rename is None):
        print("dwarf-edit: CU %d has no struct to change" % n, file=sys.stderr)
        return 1
    if member_at:
        off, where, old, width = member_at
        data[io + where:io + where + width] = \
            (old + 1).to_bytes(width, "little")
        print("CU %d at 0x%x: struct at 0x%x: last member's offset %d -> %d"
              % (n, cus[n], off, old, old + 1))
    off, where, old, s = name_at
    data[io + where:io + where + 4] = (old + 1).to_bytes(4, "little")
    print("CU %d at 0x%x: struct at 0x%x: name %s -> %s"
          % (n, cus[n], off, s, s[1:]))
    tmp = a.dst + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    shutil.copymode(a.src, tmp)
    os.replace(tmp, a.dst)
    return 0


if __name__ == "__main__":
    sys.exit(main())
