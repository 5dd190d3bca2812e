#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Shorten a raw BTF file's header to the 24 bytes libbpf 1.1 knows.

usage: btf_header.py [--no-layout] SRC [DST]

pahole 1.31 (with libbpf 1.7) writes a 32-byte header whose last 8 bytes
are zero.  libbpf 1.1, bpftool's too, reads such a header only in the
host's byte order, so a big-endian (s390x) file of it cannot be read
here.  Without those bytes the file means the same: the offsets in the
header count from its end.  Writes DST (default: SRC in place) and exits
0; exits 1 and writes nothing when the header is not such a one.

--no-layout: also a 32-byte header with a layout section (the layout
feature; kernels before 6.19 refuse it as "Unsupported btf_header"): the
section is left out, types and strings kept.
"""
import struct
import sys


def _no_layout(raw, bo, hdr_len):
    """@raw without its layout section, or None when it has none."""
    if hdr_len != 32 or len(raw) < 32:
        return None
    t_off, t_len, s_off, s_len, l_off, l_len = \
        struct.unpack_from(bo + "6I", raw, 8)
    body = raw[32:]
    if not l_len or max(t_off + t_len, s_off + s_len,
                        l_off + l_len) > len(body):
        return None
    types = body[t_off:t_off + t_len]
    strs = body[s_off:s_off + s_len]
    return (raw[:4] + struct.pack(bo + "5I", 24, 0, t_len, t_len, s_len) +
            types + strs)


def short_header(src, dst=None, no_layout=False):
    """True when @src had such a header and @dst (or @src) now has none."""
    with open(src, "rb") as f:
        raw = f.read()
    if len(raw) < 24 or raw[:2] not in (b"\x9f\xeb", b"\xeb\x9f"):
        return False
    bo = "<" if raw[:2] == b"\x9f\xeb" else ">"
    hdr_len = struct.unpack_from(bo + "I", raw, 4)[0]
    short = _no_layout(raw, bo, hdr_len) if no_layout else None
    if short is not None:
        with open(dst or src, "wb") as f:
            f.write(short)
        return True
    if hdr_len <= 24 or hdr_len > len(raw) or any(raw[24:hdr_len]):
        return False
    with open(dst or src, "wb") as f:
        f.write(raw[:4] + struct.pack(bo + "I", 24) + raw[8:24] +
                raw[hdr_len:])
    return True


if __name__ == "__main__":
    args = sys.argv[1:]
    drop = bool(args) and args[0] == "--no-layout"
    if drop:
        args = args[1:]
    if len(args) not in (1, 2):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    sys.exit(0 if short_header(*args, no_layout=drop) else 1)
