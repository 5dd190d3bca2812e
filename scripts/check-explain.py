#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""`dwarf2btf explain` and `--verbose` on a real vmlinux.

  - `explain --all --json` gives every function left out a verdict and
    its evidence, and its counts are those `--stats` prints;
  - for a sample of each verdict the evidence is checked against the
    DWARF itself (llvm-dwarfdump) and the ELF symbols (nm): the parameter
    really is in that register, has no location or only a constant, the
    two prototypes really differ, the symbols really sit at several
    addresses, the parameter really is another one of its origin;
  - with PAHOLE_REF, our --verbose skip lines name the same functions as
    that pahole's, for the same reasons.

usage: scripts/check-explain.py [BIN [VMLINUX]]
  BIN      default build/dwarf2btf
  VMLINUX  default: the Debian 6.12 one (scripts/fetch-kernel.sh)
env:
  PAHOLE_REF   a pahole (1.32) to compare --verbose with
  SAMPLE=N     functions checked per verdict (default 4)
Prints PASS/FAIL/SKIP lines and "N passed, N failed, N skipped".
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
X86_64_ARGS = [5, 4, 1, 2, 8, 9]
results = {"passed": 0, "failed": 0, "skipped": 0}


def report(kind, msg):
    results[{"PASS": "passed", "FAIL": "failed", "SKIP": "skipped"}[kind]] += 1
    print("%s %s" % (kind, msg), flush=True)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def dwarfdump():
    for n in ("llvm-dwarfdump-19", "llvm-dwarfdump"):
        if shutil.which(n):
            return n
    return None


class Die:
    """A DIE from llvm-dwarfdump -c: its attributes and its children's."""

    def __init__(self, text, off):
        self.attrs = {}
        self.params = []        # [{attr: value}], DW_TAG_formal_parameter
        cur = None
        depth_of = None
        last = None
        for line in text.splitlines():
            m = re.match(r"0x([0-9a-f]+):(\s+)(DW_TAG_\w+|NULL)", line)
            if m:
                depth = len(m.group(2))
                if int(m.group(1), 16) == off:
                    depth_of = depth
                    cur = self.attrs
                elif depth_of is not None and m.group(3) == \
                        "DW_TAG_formal_parameter" and depth == depth_of + 2:
                    cur = {"offset": int(m.group(1), 16)}
                    self.params.append(cur)
                else:
                    cur = None
                continue
            m = re.match(r"\s+(DW_AT_\w+)\s+\((.*)", line)
            if m and cur is not None:
                cur[m.group(1)] = m.group(2)
                last = m.group(1)
            elif cur is not None and line.strip() and last in cur:
                cur[last] += "\n" + line.strip()


def die_at(vmlinux, off):
    p = run([dwarfdump(), "--debug-info=0x%x" % off, "-c", vmlinux])
    return Die(p.stdout, off)


def origin_of(vmlinux, die):
    m = re.match(r"0x([0-9a-f]+)", die.attrs.get("DW_AT_abstract_origin", ""))
    return die_at(vmlinux, int(m.group(1), 16)) if m else None


def first_op(loc):
    """The first operation of a location (or its list's first entry)."""
    for line in loc.splitlines():
        m = re.search(r"(DW_OP_\w+)", line)
        if m:
            return m.group(1), line
    return None, loc


def symbols(vmlinux):
    p = run(["nm", vmlinux])
    syms = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.setdefault(parts[2].split(".")[0], set()).add(
                (parts[2], int(parts[0], 16)))
    return syms


def param_types(vmlinux, die):
    """Type strings of a subprogram's parameters (through its origin)."""
    origin = origin_of(vmlinux, die) if not die.params or \
        "DW_AT_type" not in die.params[0] else None
    src = origin if origin else die
    return [re.sub(r"^0x[0-9a-f]+ ", "", p.get("DW_AT_type", "").rstrip(")"))
            for p in src.params]


def check_sample(vmlinux, f, syms):
    """None if the evidence of function F holds in the DWARF, else why not."""
    v, ev = f["verdict"], f.get("evidence")
    if v == "ambiguous":
        addrs = {a for _, a in syms.get(f["name"], set()) if a}
        return None if len(addrs) > 1 else "nm: addresses %s" % addrs
    if not ev:
        return "no evidence"
    die = die_at(vmlinux, ev["die"])
    if v == "inconsistent":
        other = die_at(vmlinux, ev["first_die"])
        a, b = param_types(vmlinux, other), param_types(vmlinux, die)
        if ev["mismatch"] == 1:
            return None if len(a) != len(b) else "same count %d" % len(a)
        if ev["mismatch"] == 3:
            k = ev["param"] - 1
            return None if a[k] != b[k] else "param %d both %s" % (k + 1,
                                                                   a[k])
        return None if f["candidates"][0]["prototype"] != \
            [c for c in f["candidates"] if c["die"] == ev["die"]][0][
                "prototype"] else "same prototypes"
    if len(die.params) < ev["param"]:
        return "DIE 0x%x has %d parameters" % (ev["die"], len(die.params))
    p = die.params[ev["param"] - 1]
    if v == "unexpected-register":
        op, line = first_op(p.get("DW_AT_location", ""))
        m = re.match(r"DW_OP_b?reg(\d+)", op or "")
        if not m or int(m.group(1)) != ev["reg"]:
            return "location %s, not register %d" % (line, ev["reg"])
        k = ev["param"] - 1
        if k < len(X86_64_ARGS) and ev["want"] != X86_64_ARGS[k]:
            return "want %d for parameter %d" % (ev["want"], k + 1)
        return None
    if v == "optimized":
        loc = p.get("DW_AT_location")
        how = ev["how"]
        if how == 0 and (loc or "DW_AT_const_value" in p):
            return "has a location or value: %s" % loc
        if how == 1 and "DW_AT_const_value" not in p and \
                "DW_OP_lit" not in (loc or "") and \
                "DW_OP_const" not in (loc or ""):
            return "no constant: %s" % p
        if how == 2:
            op, line = first_op(loc or "")
            if not loc or (op or "").startswith("DW_OP_reg"):
                return "location %s" % line
        if not ev["nocall"]:
            names = {n for n, a in syms.get(f["name"], set())
                     if a == f["candidates"][[c["chosen"] for c in
                                              f["candidates"]].index(True)
                                             ]["addr"]} \
                if any(c["chosen"] for c in f["candidates"]) else set()
            if ev["clone"] not in names or "." not in ev["clone"]:
                return "clone %s not at the address (%s)" % (ev["clone"],
                                                             names)
        return None
    if v == "reordered":
        origin = origin_of(vmlinux, die)
        m = re.match(r"0x([0-9a-f]+)", p.get("DW_AT_abstract_origin", ""))
        if not origin or not m:
            return "no abstract origin"
        offs = [q["offset"] for q in origin.params]
        want = int(m.group(1), 16)
        if want not in offs:
            return "origin has no parameter 0x%x" % want
        k = offs.index(want) + 1
        if k != ev["origin_param"] or k == ev["param"]:
            return "origin parameter %d, said %d" % (k, ev["origin_param"])
        return None
    if v == "uncertain-location":
        return None if "DW_AT_type" in p or "DW_AT_abstract_origin" in p \
            else "parameter has no type"
    return "verdict %s" % v


def main():
    binary = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                             os.path.join(ROOT, "build", "dwarf2btf"))
    if len(sys.argv) > 2:
        vmlinux = sys.argv[2]
    else:
        p = run([os.path.join(HERE, "fetch-kernel.sh")])
        if p.returncode:
            print(p.stderr)
            return 1
        vmlinux = p.stdout.strip().splitlines()[-1]
    sample = int(os.environ.get("SAMPLE", "4"))
    tmp = tempfile.mkdtemp()
    try:
        p = run([binary, "--stats", "-o", os.path.join(tmp, "v.btf"),
                 vmlinux])
        m = re.search(r"function names (\d+) encoded.*?, (\d+) left out(.*)",
                      p.stderr)
        if p.returncode or not m:
            report("FAIL", "stats: %s" % p.stderr[-500:])
            return 1
        stats = {"encoded": int(m.group(1)), "left": int(m.group(2))}
        for n, v in re.findall(r"(\d+) ([a-z-]+)", m.group(3)):
            stats[v] = int(n)
        p = run([binary, "explain", "--all", "--json", vmlinux])
        if p.returncode:
            report("FAIL", "explain: %s" % p.stderr[-500:])
            return 1
        d = json.loads(p.stdout)
        funcs, summary = d["functions"], d["summary"]
        bad = [f["name"] for f in funcs if f["encoded"] or not f["why"] or
               "?" in f["why"].split() or f["verdict"] not in summary]
        by = {}
        for f in funcs:
            by[f["verdict"]] = by.get(f["verdict"], 0) + 1
        counts_ok = len(funcs) == stats["left"] and all(
            summary[v] == stats.get(v, 0) == by.get(v, 0)
            for v in summary if v not in ("encoded", "encoded-clone"))
        if bad or not counts_ok:
            report("FAIL", "explain --all: %d without a reason %s; counts "
                   "%s, stats %s" % (len(bad), bad[:5], by, stats))
        else:
            report("PASS", "explain --all: %d functions left out, each "
                   "with a reason and its evidence; per reason %s, as "
                   "--stats counts (%d encoded)" % (
                       len(funcs), by, stats["encoded"]))
        if not dwarfdump():
            report("SKIP", "evidence: no llvm-dwarfdump")
        else:
            syms = symbols(vmlinux)
            for v in sorted(by):
                picked = [f for f in funcs if f["verdict"] == v][:sample]
                wrong = []
                for f in picked:
                    why = check_sample(vmlinux, f, syms)
                    if why:
                        wrong.append("%s: %s" % (f["name"], why))
                if wrong:
                    report("FAIL", "evidence of %s: %s" % (v,
                                                          "; ".join(wrong)))
                else:
                    report("PASS", "evidence of %s, checked against the "
                           "DWARF and nm: %s" % (v, ", ".join(
                               f["name"] for f in picked)))
        ref = os.environ.get("PAHOLE_REF")
        if not ref:
            report("SKIP", "verbose: no PAHOLE_REF")
        else:
            lines = {}
            for who, cmd in (
                    ("pahole", [ref, "-J", "--btf_features=default",
                                "--btf_encode_detached=" +
                                os.path.join(tmp, "p.btf"), "--verbose",
                                vmlinux]),
                    ("ours", [binary, "--btf_features=default", "-o",
                              os.path.join(tmp, "o.btf"), "--verbose",
                              vmlinux])):
                p = run(cmd)
                lines[who] = [ln for ln in p.stdout.splitlines()
                              if "skipping BTF encoding of function" in ln]
            a, b = set(lines["pahole"]), set(lines["ours"])
            if a == b and lines["pahole"]:
                report("PASS", "verbose: the same %d skip lines as %s "
                       "(%d functions)%s" % (
                           len(a), ref, len({ln.split()[0] for ln in a}),
                           ", in the same order" if lines["pahole"] ==
                           lines["ours"] else ""))
            else:
                report("FAIL", "verbose: only pahole's %s; only ours %s" % (
                    sorted(a - b)[:5], sorted(b - a)[:5]))
    finally:
        shutil.rmtree(tmp)
    print("%(passed)d passed, %(failed)d failed, %(skipped)d skipped"
          % results)
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
