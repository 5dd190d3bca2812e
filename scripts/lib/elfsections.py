# SPDX-License-Identifier: GPL-2.0-only
"""The sections of a 64-bit little-endian ELF file, for the scripts that
edit or take apart DWARF (scripts/lib/dwarf-edit.py,
fuzz/mkseed-digest.py)."""
import struct
import sys


def sections(data):
    """{name: (file offset, size, address)}; exits on another ELF."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        sys.exit("not a 64-bit little-endian ELF")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)

    def shdr(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    strtab = shdr(shstrndx)
    out = {}
    for i in range(shnum):
        h = shdr(i)
        at = strtab[4] + h[0]
        out[data[at:data.index(b"\0", at)].decode()] = (h[4], h[5], h[2])
    return out
