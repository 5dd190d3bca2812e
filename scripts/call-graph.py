#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The file-level call graph of dwarf2btf's objects, and its cycles.

    call-graph.py [BUILD_DIR [SRC_DIR]]     (default: build src)

Only objects with a source file SRC_DIR/NAME.c count (a build folder may
hold stale ones).  An edge a -> b means a.o uses a symbol b.o defines (from nm: undefined
symbol -> defining object; functions inlined from headers do not count).
Prints one line per object, "a -> b c ...", then "cycles: none" or each
cycle (a strongly connected set of objects); exit 1 when there is one.
"""
import os
import subprocess
import sys


def graph(objs):
    """{object name: sorted names it uses} for the given .o paths."""
    defs, uses = {}, {}
    for o in objs:
        name = os.path.basename(o)[:-2]
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


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "build"
    src = sys.argv[2] if len(sys.argv) > 2 else "src"
    objs = sorted(os.path.join(d, f) for f in os.listdir(d)
                  if f.endswith(".o") and
                  os.path.exists(os.path.join(src, f[:-2] + ".c")))
    if not objs:
        print("call-graph: no objects in %s" % d, file=sys.stderr)
        return 2
    g = graph(objs)
    for n in sorted(g):
        print("%s -> %s" % (n, " ".join(g[n])))
    c = cycles(g)
    if not c:
        print("cycles: none")
        return 0
    for comp in c:
        print("cycle: %s" % " ".join(comp))
    return 1


if __name__ == "__main__":
    sys.exit(main())
