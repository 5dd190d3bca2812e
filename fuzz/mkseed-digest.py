#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""A fuzz_digest seed from a linked ELF file: ELF OUT.  Sizes of eight
DWARF sections (fuzz/fuzz_digest.c says which), then the sections; the
ELF must be 64-bit little-endian."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "scripts", "lib"))
from elfsections import sections  # noqa: E402

NAMES = (".debug_info", ".debug_abbrev", ".debug_str", ".debug_line_str",
         ".debug_str_offsets", ".debug_addr", ".debug_loc",
         ".debug_loclists")


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    secs = sections(data)
    parts = [data[secs[n][0]:secs[n][0] + secs[n][1]] if n in secs else b""
             for n in NAMES]
    with open(sys.argv[2], "wb") as f:
        f.write(struct.pack("<8I", *[len(p) for p in parts]))
        for p in parts:
            f.write(p)


if __name__ == "__main__":
    main()
