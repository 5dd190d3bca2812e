#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Medians, ratios and a chart from bench/vmlinux.sh and bench/modules.sh.

usage: chart.py VMLINUX_RESULTS MODULES_RESULTS OUT.png

Each results line is "LABEL WALL USER SYS MAXRSS_KB", one per run.  Prints
one table (medians; ours/pahole) and, when matplotlib is there, draws
wall time, CPU time and peak RSS of both for each workload into OUT.png.
"""

import statistics
import sys

WORKLOADS = [("vmlinux -j1", "vm", "-j1"), ("vmlinux -j2", "vm", "-j2"),
             ("1138 modules", "mod", "")]
FIGURES = [("wall s", 0), ("CPU s", 1), ("peak RSS MB", 2)]


def read(path):
    rows = {}
    for line in open(path):
        label, wall, user, sys_, rss = line.split()
        rows.setdefault(label, []).append(
            (float(wall), float(user) + float(sys_), int(rss) / 1024.0))
    return {k: ([statistics.median(r[i] for r in v) for i in range(3)],
                len(v)) for k, v in rows.items()}


def main():
    vm, mod, png = sys.argv[1:4]
    res = {"vm": read(vm), "mod": read(mod)}
    table = []
    print("%-14s %-7s %9s %9s %12s %5s" % ("workload", "", "wall s",
                                           "CPU s", "peak RSS MB", "runs"))
    for name, src, j in WORKLOADS:
        ours, n = res[src].get("ours" + j, (None, 0))
        theirs, m = res[src].get("pahole" + j, (None, 0))
        if not ours or not theirs:
            continue
        ratio = [a / b for a, b in zip(ours, theirs)]
        table.append((name, ours, theirs, ratio))
        print("%-14s %-7s %9.2f %9.2f %12.0f %5d" % ((name, "ours") +
                                                     tuple(ours) + (n,)))
        print("%-14s %-7s %9.2f %9.2f %12.0f %5d" % (("", "pahole") +
                                                     tuple(theirs) + (m,)))
        print("%-14s %-7s %9.3f %9.3f %12.3f" % (("", "ratio") +
                                                 tuple(ratio)))
    ours = {n: o for n, o, _, _ in table}
    if "vmlinux -j1" in ours and "vmlinux -j2" in ours:
        print("vmlinux -j2 vs -j1: %.2fx faster (wall)"
              % (ours["vmlinux -j1"][0] / ours["vmlinux -j2"][0]))
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("no chart: matplotlib missing (Debian: python3-matplotlib)")
        return 0
    fig, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    x = range(len(table))
    for ax, (title, i) in zip(axes, FIGURES):
        o = [t[1][i] for t in table]
        p = [t[2][i] for t in table]
        ax.bar([k - 0.2 for k in x], o, 0.4, label="dwarf2btf")
        ax.bar([k + 0.2 for k in x], p, 0.4, label="pahole")
        for k in x:
            ax.annotate("%.2f" % table[k][3][i], (k - 0.2, o[k]),
                        ha="center", va="bottom", fontsize=8)
        ax.set_xticks(list(x))
        ax.set_xticklabels([t[0] for t in table], fontsize=8)
        ax.set_title(title + " (number: ours/pahole)", fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle("dwarf2btf vs pahole, medians (Debian 6.12 cloud kernel)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    print("chart: " + png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
