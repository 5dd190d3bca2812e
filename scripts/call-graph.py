#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The call graph of dwarf2btf's objects, file by file and folder by
folder, and its cycles.

    call-graph.py [BUILD_DIR [SRC_DIR]]     (default: build src)

BUILD_DIR/PATH.o is the object of SRC_DIR/PATH.c (objects without a
source, stale ones, do not count).  An edge a -> b means a.o uses a
symbol b.o defines (from nm: undefined symbol -> defining object;
functions inlined from headers do not count).  Prints one line per
object, "a -> b c ...", then the same per folder ("." for SRC_DIR
itself), then "cycles: none" or each cycle (a strongly connected set of
objects or of folders); exit 1 when there is one.
"""
import os
import subprocess
import sys


def graph(objs):
    """{object name: sorted names it uses} for the given {name: .o path}."""
    defs, uses = {}, {}
    for name, o in sorted(objs.items()):
        uses[name] = set()
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDBRVW":
                defs[f[2]] = name
            elif len(f) == 2 and f[0] == "U":
                uses[name].add(f[1])
    return {n: sorted({defs[s] for s in u if s in defs and defs[s] != n})
            for n, u in uses.items()}


def cycles(g):
    """Strongly connected sets of more than one node (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(g):
        if v not in index:
            visit(v)
    return sorted(found)


def folders(g):
    """The graph of the folders the objects are in."""
    fg = {}
    for n, used in g.items():
        d = os.path.dirname(n) or "."
        fg.setdefault(d, set()).update(
            os.path.dirname(u) or "." for u in used)
    return {d: sorted(u - {d}) for d, u in fg.items()}


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "build"
    src = sys.argv[2] if len(sys.argv) > 2 else "src"
    objs = {}
    for top, _, files in os.walk(d):
        for f in files:
            rel = os.path.relpath(os.path.join(top, f), d)[:-2]
            if f.endswith(".o") and \
                    os.path.exists(os.path.join(src, rel + ".c")):
                objs[rel] = os.path.join(top, f)
    if not objs:
        print("call-graph: no objects in %s" % d, file=sys.stderr)
        return 2
    g = graph(objs)
    fg = folders(g)
    for n in sorted(g):
        print("%s -> %s" % (n, " ".join(g[n])))
    print()
    for n in sorted(fg):
        print("%s/ -> %s" % (n, " ".join(u + "/" for u in fg[n])))
    c = cycles(g) + [[x + "/" for x in comp] for comp in cycles(fg)]
    if not c:
        print("cycles: none")
        return 0
    for comp in c:
        print("cycle: %s" % " ".join(comp))
    return 1


if __name__ == "__main__":
    sys.exit(main())
