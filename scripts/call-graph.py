#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The call graph of dwarf2btf's objects, file by file and folder by
folder, its cycles, the folder graph of the #include lines, and the
folder edges docs/design.md's diagram does not allow.

    call-graph.py [BUILD_DIR [SRC_DIR]] [--allowed DESIGN_MD]
                                            (default: build src)

BUILD_DIR/PATH.o is the object of SRC_DIR/PATH.c (objects without a
source, stale ones, do not count).  An edge a -> b means a.o uses a
symbol b.o defines (from nm: undefined symbol -> defining object;
functions inlined from headers do not count).  Prints one line per
object, "a -> b c ...", then the same per folder ("." for SRC_DIR
itself), then "includes:" and the folders the #include "..." lines of
SRC_DIR's .c and .h files reach ("a/ -> b/ ..."), then "cycles: none"
or each cycle (a strongly connected set of objects or of folders).

With --allowed, the diagram at the top of DESIGN_MD (a code block of
lines "src/FOLDER/   what it does   -> OTHER/ ...", "src/" for SRC_DIR
itself, "every folder below" for all the folders listed after it, no
arrow for none) says which folder may use which.  A folder edge of the
calls or of the includes it does not allow is printed as "not allowed:
a/ -> b/ (...)", a folder of SRC_DIR it does not list as "not in the
diagram: a/".

Exit status: 1 on a cycle or an edge not allowed, 2 without objects.
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


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


def folder_of(path):
    return os.path.dirname(path) or "."


def includes(src):
    """{file: set of files it includes}, paths relative to @src, for the
    .c and .h files below it.  A name is looked for beside the file,
    then below @src (the build's -I); one found in neither place counts
    beside the file when it starts with "..", else below @src."""
    g = {}
    for top, _, files in os.walk(src):
        for f in files:
            if not f.endswith((".c", ".h")):
                continue
            rel = os.path.relpath(os.path.join(top, f), src)
            with open(os.path.join(top, f), errors="replace") as fp:
                names = INCLUDE.findall(fp.read())
            g[rel] = set()
            for n in names:
                beside = os.path.normpath(
                    os.path.join(os.path.dirname(rel), n))
                below = os.path.normpath(n)
                if os.path.exists(os.path.join(src, beside)):
                    g[rel].add(beside)
                elif os.path.exists(os.path.join(src, below)):
                    g[rel].add(below)
                else:
                    g[rel].add(beside if n.startswith("..") else below)
    return g


def include_folders(ig):
    """{folder: {folder its files include from: the first "file ->
    header" that does}}."""
    fg = {}
    for f in sorted(ig):
        d = folder_of(f)
        fg.setdefault(d, {})
        for h in sorted(ig[f]):
            if folder_of(h) != d:
                fg[d].setdefault(folder_of(h), "%s -> %s" % (f, h))
    return fg


def allowed_edges(text):
    """{folder: set of folders it may use}, from the first code block of
    @text that has "src/..." lines (docs/design.md's diagram)."""
    lines = []
    for block in re.findall(r"^```[^\n]*\n(.*?)^```", text, re.M | re.S):
        lines = re.findall(r"^src/(\S*)[ \t]+(.*)$", block, re.M)
        if lines:
            break
    names = [d.rstrip("/") or "." for d, _ in lines]
    allowed = {}
    for i, (_, rest) in enumerate(lines):
        to = rest.split("->", 1)[1] if "->" in rest else ""
        ok = {t.rstrip("/") for t in to.split() if t.endswith("/")}
        if "every folder below" in to:
            ok.update(names[i + 1:])
        allowed[names[i]] = ok
    return allowed


def not_allowed(allowed, calls, incs):
    """What @allowed (allowed_edges()) does not allow of @calls ({folder:
    folders it calls}) and @incs (include_folders()), one line each."""
    bad = ["not in the diagram: %s/" % d
           for d in sorted(set(calls) | set(incs)) if d not in allowed]
    for d in sorted(calls):
        for t in calls[d]:
            if d in allowed and t not in allowed[d]:
                bad.append("not allowed: %s/ -> %s/ (calls)" % (d, t))
    for d in sorted(incs):
        for t, why in sorted(incs[d].items()):
            if d in allowed and t not in allowed[d]:
                bad.append("not allowed: %s/ -> %s/ (includes: %s)" %
                           (d, t, why))
    return bad


def main():
    args = sys.argv[1:]
    design = None
    if "--allowed" in args:
        i = args.index("--allowed")
        if i + 1 == len(args):
            print("call-graph: --allowed needs a file", file=sys.stderr)
            return 2
        design = args[i + 1]
        del args[i:i + 2]
    d = args[0] if len(args) > 0 else "build"
    src = args[1] if len(args) > 1 else "src"
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
    ig = include_folders(includes(src))
    for n in sorted(g):
        print("%s -> %s" % (n, " ".join(g[n])))
    print()
    for n in sorted(fg):
        print("%s/ -> %s" % (n, " ".join(u + "/" for u in fg[n])))
    print()
    print("includes:")
    for n in sorted(ig):
        print("%s/ -> %s" % (n, " ".join(u + "/" for u in sorted(ig[n]))))
    bad = []
    if design:
        with open(design) as f:
            bad = not_allowed(allowed_edges(f.read()), fg, ig)
        for line in bad:
            print(line)
    c = cycles(g) + [[x + "/" for x in comp] for comp in cycles(fg)]
    if not c:
        print("cycles: none")
    for comp in c:
        print("cycle: %s" % " ".join(comp))
    return 1 if c or bad else 0


if __name__ == "__main__":
    sys.exit(main())
