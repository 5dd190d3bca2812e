#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Shorten a raw BTF file's header to the 24 bytes libbpf 1.1 knows.

usage: btf_header.py SRC [DST]

pahole 1.31 (with libbpf 1.7) writes a 32-byte header whose last 8 bytes
are zero.  libbpf 1.1, bpftool's too, reads such a header only in the
host's byte order, so a big-endian (s390x) file of it cannot be read
here.  Without those bytes the file means the same: the offsets in the
header count from its end.  Writes DST (default: SRC in place) and exits
0; exits 1 and writes nothing when the header is not such a one.
"""
import struct
import sys


def short_header(src, dst=None):
    """True when @src had such a header and @dst (or @src) now has none."""
    with open(src, "rb") as f:
        raw = f.read()
    if len(raw) < 24 or raw[:2] not in (b"\x9f\xeb", b"\xeb\x9f"):
        return False
    bo = "<" if raw[:2] == b"\x9f\xeb" else ">"
    hdr_len = struct.unpack_from(bo + "I", raw, 4)[0]
    if hdr_len <= 24 or hdr_len > len(raw) or any(raw[24:hdr_len]):
        return False
    with open(dst or src, "wb") as f:
        f.write(raw[:4] + struct.pack(bo + "I", 24) + raw[8:24] +
                raw[hdr_len:])
    return True


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    sys.exit(0 if short_header(*sys.argv[1:]) else 1)
