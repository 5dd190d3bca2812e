# SPDX-License-Identifier: GPL-2.0-only
"""src/input/unit_view.c: views of an executable's units, each read by a
libdw handle of its own, and what cannot be a view (tests/unit/
test_unit_view.c under ASan and UBSan).  The executable is made here of
three CUs by gcc, once with its DWARF as it is and once compressed, and
an object file of one of them; and by clang and ld.lld for i386, whose
views have the 32-bit form of the headers."""

import os
import shutil

SOURCES = ["input/unit_view.c", "input/elf_file.c"]

PARTS = {
    "uv_a.c": "struct uv_a { int a; }; int uv_fa(struct uv_a *p) "
              "{ return p->a; }\n",
    "uv_b.c": "struct uv_b { long b; }; long uv_fb(struct uv_b *p) "
              "{ return p->b; }\n",
    "uv_c.c": "int uv_fa(void *); long uv_fb(void *);\n"
              "int main(void) { return uv_fa(0) + (int)uv_fb(0); }\n",
}


def _exe(ctx, name, extra):
    srcs = []
    for n, text in PARTS.items():
        path = os.path.join(ctx.tmp, n)
        with open(path, "w") as f:
            f.write(text)
        srcs.append(path)
    exe = os.path.join(ctx.tmp, name)
    p = ctx.run(["gcc", "-g", "-gdwarf-5", "-O0"] + extra + srcs +
                ["-o", exe])
    assert p.returncode == 0, p.stderr
    return exe


def test_unit_view(ctx):
    exe = _exe(ctx, "uv", [])
    obj = os.path.join(ctx.tmp, "uv_a.o")
    p = ctx.run(["gcc", "-g", "-c", os.path.join(ctx.tmp, "uv_a.c"), "-o",
                 obj])
    assert p.returncode == 0, p.stderr
    env = dict(os.environ, UNIT_VIEW_FILE=exe,
               UNIT_VIEW_GZ=_exe(ctx, "uv_gz", ["-gz=zlib"]),
               UNIT_VIEW_REL=obj)
    ctx.unit("test_unit_view", SOURCES, ["-ldw", "-lelf"], env=env)


def test_unit_view_32bit(ctx):
    lld = shutil.which("ld.lld")
    if not lld:
        raise ctx.Skip("ld.lld not installed")
    objs = []
    for n, text in PARTS.items():
        path = os.path.join(ctx.tmp, n)
        with open(path, "w") as f:
            f.write(text)
        obj = path[:-2] + ".o"
        p = ctx.run(["clang", "--target=i386-linux-gnu", "-g", "-gdwarf-5",
                     "-c", path, "-o", obj])
        assert p.returncode == 0, p.stderr
        objs.append(obj)
    exe = os.path.join(ctx.tmp, "uv32")
    p = ctx.run([lld, "-e", "main", "-o", exe] + objs)
    assert p.returncode == 0, p.stderr
    with open(exe, "rb") as f:
        assert f.read(5)[4] == 1, "not a 32-bit ELF file"
    ctx.unit("test_unit_view", SOURCES, ["-ldw", "-lelf"],
             env=dict(os.environ, UNIT_VIEW_FILE32=exe))
