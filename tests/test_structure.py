# SPDX-License-Identifier: GPL-2.0-only
"""The shape of src/: no call cycle between files or between folders
(scripts/call-graph.py over the objects the binary under test was built
from), and docs/design.md's table of files matches the tree.
"""
import glob
import os
import re
import subprocess
import sys


def _call_graph(ctx, d, src):
    return subprocess.run([sys.executable, os.path.join(
        ctx.root, "scripts", "call-graph.py"), d, src], capture_output=True,
        text=True, timeout=120)


def test_no_call_cycle(ctx):
    d = os.path.dirname(ctx.bin)
    src = os.path.join(ctx.root, "src")
    srcs = {os.path.relpath(s, src)[:-2] for s in
            glob.glob(os.path.join(src, "**", "*.c"), recursive=True)}
    objs = {os.path.relpath(o, d)[:-2] for o in
            glob.glob(os.path.join(d, "**", "*.o"), recursive=True)}
    # A binary without its objects cannot be checked: that is a failure,
    # or a build that lost its objects would pass unseen.
    assert objs, "no objects beside %s: build it with make" % ctx.bin
    assert srcs <= objs, "objects missing: %s" % sorted(srcs - objs)
    p = _call_graph(ctx, d, src)
    assert p.returncode == 0 and "cycles: none" in p.stdout, \
        "call cycle in src/:\n" + p.stdout + p.stderr
    # Every file but main is used by another one.
    used = set()
    for line in p.stdout.splitlines():
        if " -> " in line and not line.split(" -> ")[0].endswith("/"):
            used.update(line.split(" -> ")[1].split())
    unused = srcs - used - {"main"}
    assert not unused, "used by no other file: %s" % sorted(unused)


def _design_rows(text):
    """The files docs/design.md's table names ("| `cu/cu_types.c` | ...")."""
    return set(re.findall(r"^\| `([^`*]+\.[ch])` \|", text, re.M))


def test_design_table(ctx):
    """Every .c file of src/ has its row in docs/design.md's table, and
    every file a row names exists."""
    src = os.path.join(ctx.root, "src")
    with open(os.path.join(ctx.root, "docs", "design.md")) as f:
        named = _design_rows(f.read())
    srcs = {os.path.relpath(s, src) for s in
            glob.glob(os.path.join(src, "**", "*.c"), recursive=True)}
    assert srcs <= named, "not in docs/design.md's table: %s" % \
        sorted(srcs - named)
    gone = sorted(n for n in named
                  if not os.path.exists(os.path.join(src, n)))
    assert not gone, "docs/design.md names files not in src/: %s" % gone


def test_design_table_check_fails(ctx):
    """The table check sees a missing row and a stale one."""
    rows = _design_rows("| `a.c` | x |\n| `lib/b.h` | y |\n| `lib/*.h` | z |\n"
                        "text `c.c` |\n")
    assert rows == {"a.c", "lib/b.h"}, rows


def _graph_of(ctx, src):
    """Compile {name: C text} into objects under ctx.tmp; their graph."""
    for n, text in src.items():
        os.makedirs(os.path.join(ctx.tmp, os.path.dirname(n)), exist_ok=True)
        c = os.path.join(ctx.tmp, n + ".c")
        with open(c, "w") as f:
            f.write(text + "\n")
        p = ctx.run(["cc", "-c", c, "-o", os.path.join(ctx.tmp, n + ".o")])
        assert p.returncode == 0, p.stderr
    return _call_graph(ctx, ctx.tmp, ctx.tmp)


def test_call_cycle_found(ctx):
    """The check finds a cycle of three files, and names them."""
    src = {"a": "int b(void); int a(void) { return b(); }",
           "b": "int c(void); int b(void) { return c(); }",
           "c": "int a(void); int c(void) { return a(); }",
           "d": "int a(void); int d(void) { return a(); }"}
    p = _graph_of(ctx, src)
    assert p.returncode == 1, p.stdout
    assert "cycle: a b c\n" in p.stdout and "d -> a\n" in p.stdout, p.stdout


def test_folder_cycle_found(ctx):
    """Files calling one way can still make folders call in a circle:
    p/x -> q/y -> p/z."""
    src = {"p/x": "int y(void); int x(void) { return y(); }",
           "q/y": "int z(void); int y(void) { return z(); }",
           "p/z": "int z(void) { return 1; }"}
    p = _graph_of(ctx, src)
    assert p.returncode == 1, p.stdout
    assert "cycle: p/ q/\n" in p.stdout and "cycle: p/x" not in p.stdout, \
        p.stdout
