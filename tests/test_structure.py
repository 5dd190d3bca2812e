# SPDX-License-Identifier: GPL-2.0-only
"""The shape of src/: no call cycle between files or between folders
(scripts/call-graph.py over the objects the binary under test was built
from), no folder calling or including from a folder docs/design.md's
diagram does not let it use, and docs/design.md's table of files matches
the tree.
"""
import glob
import importlib.util
import os
import re
import subprocess
import sys


def _call_graph(ctx, d, src, design=None):
    args = [sys.executable, os.path.join(ctx.root, "scripts",
                                         "call-graph.py"), d, src]
    if design:
        args += ["--allowed", design]
    return subprocess.run(args, capture_output=True, text=True, timeout=120)


def _not_allowed(p):
    return [line for line in p.stdout.splitlines()
            if line.startswith(("not allowed: ", "not in the diagram: "))]


def test_no_call_cycle(ctx):
    """No cycle, every folder edge of the calls and of the includes one
    the diagram allows, every file but main used."""
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
    p = _call_graph(ctx, d, src, os.path.join(ctx.root, "docs", "design.md"))
    assert "cycles: none" in p.stdout, \
        "call cycle in src/:\n" + p.stdout + p.stderr
    bad = _not_allowed(p)
    assert not bad, "folder edges docs/design.md's diagram does not " \
        "allow:\n" + "\n".join(bad)
    assert p.returncode == 0 or _not_allowed(p), p.stdout + p.stderr
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


def _table_check(src, design):
    """(.c files of @src without a row in @design's table, rows naming
    files not in @src)."""
    named = _design_rows(design)
    srcs = {os.path.relpath(s, src) for s in
            glob.glob(os.path.join(src, "**", "*.c"), recursive=True)}
    return sorted(srcs - named), sorted(
        n for n in named if not os.path.exists(os.path.join(src, n)))


def test_design_table(ctx):
    """Every .c file of src/ has its row in docs/design.md's table, and
    every file a row names exists."""
    with open(os.path.join(ctx.root, "docs", "design.md")) as f:
        missing, gone = _table_check(os.path.join(ctx.root, "src"), f.read())
    assert not missing, "not in docs/design.md's table: %s" % missing
    assert not gone, "docs/design.md names files not in src/: %s" % gone


def test_design_table_check_fails(ctx):
    """The table check sees a missing row and a stale one."""
    rows = _design_rows("| `a.c` | x |\n| `lib/b.h` | y |\n| `lib/*.h` | z |\n"
                        "text `c.c` |\n")
    assert rows == {"a.c", "lib/b.h"}, rows
    for n in ("a.c", "lib/b.c", "cu/c.c"):
        os.makedirs(os.path.join(ctx.tmp, os.path.dirname(n)), exist_ok=True)
        open(os.path.join(ctx.tmp, n), "w").close()
    missing, gone = _table_check(ctx.tmp, "| `a.c` | x |\n| `lib/b.c` | y |\n"
                                 "| `lib/gone.c` | z |\n")
    assert missing == ["cu/c.c"] and gone == ["lib/gone.c"], (missing, gone)


def _graph_of(ctx, src, headers=None, design=None):
    """Compile {name: C text} into objects under ctx.tmp, beside
    {name.h: text} and a design.md of text @design; their graph."""
    for n, text in (headers or {}).items():
        os.makedirs(os.path.join(ctx.tmp, os.path.dirname(n)), exist_ok=True)
        with open(os.path.join(ctx.tmp, n), "w") as f:
            f.write(text + "\n")
    for n, text in src.items():
        os.makedirs(os.path.join(ctx.tmp, os.path.dirname(n)), exist_ok=True)
        c = os.path.join(ctx.tmp, n + ".c")
        with open(c, "w") as f:
            f.write(text + "\n")
        p = ctx.run(["cc", "-I", ctx.tmp, "-c", c, "-o",
                     os.path.join(ctx.tmp, n + ".o")])
        assert p.returncode == 0, p.stderr
    if design is None:
        return _call_graph(ctx, ctx.tmp, ctx.tmp)
    path = os.path.join(ctx.tmp, "design.md")
    with open(path, "w") as f:
        f.write(design)
    return _call_graph(ctx, ctx.tmp, ctx.tmp, path)


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


# A diagram in docs/design.md's form: lib/ lowest, cu/ above it.
DIAGRAM = """# design

```
src/                     runs the stages        -> every folder below
src/cu/                  one CU at a time        -> lib/
src/lib/                 shared by all           (calls none)
```
"""


def test_diagram_parsed(ctx):
    """The diagram's lines are the allowed edges: "every folder below"
    is every folder listed after it, a line without an arrow none, and
    a folder added in the same form counts."""
    spec = importlib.util.spec_from_file_location(
        "call_graph", os.path.join(ctx.root, "scripts", "call-graph.py"))
    cg = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cg)
    text = DIAGRAM.replace("src/lib/", "src/cache/               kept"
                           "                    -> lib/\nsrc/lib/")
    assert cg.allowed_edges(text) == {
        ".": {"cu", "cache", "lib"}, "cu": {"lib"}, "cache": {"lib"},
        "lib": set()}, cg.allowed_edges(text)
    with open(os.path.join(ctx.root, "docs", "design.md")) as f:
        real = cg.allowed_edges(f.read())
    assert "lib" in real and real["."] >= set(real) - {"."}, real


def _upward_include(ctx, line):
    """lib/x.c includes cu/y.h by @line: the check fails and names it,
    though no function of lib/ calls cu/."""
    p = _graph_of(ctx, {"lib/x": line + "\nint x(void) { return Y; }",
                        "cu/y": "int x(void); int y(void) { return x(); }",
                        "main": "int y(void); int main(void) { return y(); }"},
                  {"cu/y.h": "#define Y 1"}, DIAGRAM)
    assert p.returncode == 1, p.stdout
    assert "not allowed: lib/ -> cu/ (includes: lib/x.c -> cu/y.h)\n" \
        in p.stdout and "(calls)" not in p.stdout, p.stdout


def test_upward_include_found(ctx):
    """An include up the diagram fails, written from the file's folder."""
    _upward_include(ctx, '#include "../cu/y.h"')


def test_upward_include_found_from_top(ctx):
    """The same, written from src/ (the build's -I)."""
    _upward_include(ctx, '#include "cu/y.h"')


def test_upward_call_found(ctx):
    """A call up the diagram fails; a folder the diagram does not list
    is named; the allowed edges alone pass."""
    src = {"lib/x": "int y(void); int x(void) { return y(); }",
           "cu/y": "int y(void) { return 1; }",
           "main": "int x(void); int main(void) { return x(); }"}
    p = _graph_of(ctx, src, design=DIAGRAM)
    assert p.returncode == 1, p.stdout
    assert "not allowed: lib/ -> cu/ (calls)\n" in p.stdout, p.stdout
    src = {"cu/y": "int x(void); int y(void) { return x(); }",
           "lib/x": "int x(void) { return 1; }",
           "new/z": "int y(void); int z(void) { return y(); }"}
    for f in glob.glob(os.path.join(ctx.tmp, "**", "*.[cho]"),
                       recursive=True):
        os.unlink(f)
    p = _graph_of(ctx, src, design=DIAGRAM)
    assert p.returncode == 1, p.stdout
    assert "not in the diagram: new/\n" in p.stdout and \
        "not allowed" not in p.stdout, p.stdout
    os.unlink(os.path.join(ctx.tmp, "new", "z.c"))
    os.unlink(os.path.join(ctx.tmp, "new", "z.o"))
    p = _graph_of(ctx, {}, design=DIAGRAM)
    assert p.returncode == 0 and not _not_allowed(p), p.stdout


def test_no_objects_fails(ctx):
    """Without a build's objects the graph is an error, not a pass."""
    p = _call_graph(ctx, ctx.tmp, os.path.join(ctx.root, "src"),
                    os.path.join(ctx.root, "docs", "design.md"))
    assert p.returncode == 2 and "no objects" in p.stderr, p.stdout
