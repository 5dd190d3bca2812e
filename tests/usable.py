# SPDX-License-Identifier: GPL-2.0-only
"""Whether BTF is usable where it goes: the C header bpftool prints from
it compiles with clang, and the running kernel loads it (BPF_BTF_LOAD,
scripts/lib/btf-load.py).  test_cxx.py and test_rust_enums.py use it."""

import os
import sys


def header_compiles(ctx, btf, name):
    """Asserts that `bpftool btf dump file @btf format c` compiles as C
    (@name names it in the failure)."""
    p = ctx.run(["bpftool", "btf", "dump", "file", btf, "format", "c"])
    assert p.returncode == 0, p.stderr
    hdr = os.path.join(ctx.tmp, "%s.h" % name)
    with open(hdr, "w") as f:
        f.write(p.stdout)
    p = ctx.run(["clang", "-fsyntax-only", "-x", "c", hdr])
    assert p.returncode == 0 and "error:" not in p.stderr, \
        "%s: header: %s" % (name, p.stderr[:2000])


def kernel_load(ctx, btf):
    """Loads @btf into the running kernel: "loaded", "skip: ..." where
    this process may not load BTF, else the verifier's last line."""
    p = ctx.run([sys.executable, os.path.join(
        ctx.root, "scripts", "lib", "btf-load.py"), btf])
    res = p.stdout.strip()
    if (res == "loaded" and p.returncode == 0) or res.startswith("skip:"):
        return res
    return (res.splitlines()[-1:] or [p.stderr.strip()])[0]


def kernel_loads(ctx, btfs):
    """Asserts that the kernel loads each of @btfs ({name: path}); returns
    the reason it may not load BTF here ("skip: ..."), or None."""
    skipped = None
    for name, btf in btfs.items():
        res = kernel_load(ctx, btf)
        if res.startswith("skip:"):
            skipped = res
            continue
        assert res == "loaded", "%s: %s" % (name, res)
    return skipped
