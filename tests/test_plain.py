# SPDX-License-Identifier: GPL-2.0-only
"""The fast path against the reference path (--plain-dedup: no dedup until
the end, then one dedup of everything): `dwarf2btf diff` must find
nothing, for every fixture, gcc and clang, DWARF 4 and 5.  Inputs this
small take one dedup anyway; DWARF2BTF_BATCH_DEDUP makes the fast runs
deduplicate their batches as large inputs do.
"""

import os

BATCHES = dict(os.environ, DWARF2BTF_BATCH_DEDUP="1")
# a run made again given up as if its batches had outgrown the first run's
OUTGROWN = dict(BATCHES, DWARF2BTF_RERUN_OUTGROWN="1")
# the merged types deduplicated after every batch, as a vmlinux's are
# once they have grown enough
MERGED = dict(BATCHES, DWARF2BTF_MERGE_DEDUP="1")

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")


def _names():
    return sorted(f[:-2] for f in os.listdir(FIXTURES)
                  if f.endswith(".c") and f.startswith(("types_", "funcs_",
                                                        "tags_", "kfuncs")))


def test_plain_dedup_same_meaning(ctx):
    bad = []
    for name in _names():
        for cc in ("gcc", "clang"):
            for dwarf in (4, 5):
                obj = ctx.fixture(name, cc, dwarf)
                fast = os.path.join(ctx.tmp, "fast.btf")
                plain = os.path.join(ctx.tmp, "plain.btf")
                for out, extra in ((fast, []), (plain, ["--plain-dedup"])):
                    p = ctx.run([ctx.bin] + extra + ["-o", out, obj],
                                env=BATCHES if not extra else None)
                    if p.returncode != 0:
                        raise AssertionError("%s %s: %s" % (name, extra,
                                                            p.stderr))
                p = ctx.run([ctx.bin, "diff", fast, plain])
                if p.returncode != 0:
                    bad.append("%s %s dwarf%d:\n%s" % (name, cc, dwarf,
                                                       p.stdout[-1000:]))
    if bad:
        raise AssertionError("\n".join(bad))


# (KIND of tests/fixtures/batches.c, how many CUs): with 32 CUs a batch
# (src/cu_queue.h), the second batch holds KIND 2 and 1 but no 3.
BATCH_LAYOUT = [(3, 1), (0, 31), (2, 1), (1, 1), (0, 30), (3, 1), (1, 1),
                (2, 1)]


def test_batches_leave_ambiguous_declarations(ctx):
    """A declaration (struct wide;) whose name has two definitions, the
    only one a batch sees being another than one dedup of everything
    picks: the fast path must come out as --plain-dedup all the same (by
    running again, which --stats reports), at any -j.  A second run whose
    batches outgrow the first run's (forced here by a test hook) gives
    way to a third, --plain-dedup's very bytes."""
    bad = []
    for cc in ("gcc", "clang"):
        for dwarf in (4, 5):
            objs = []
            for kind, n in BATCH_LAYOUT:
                objs += [ctx.fixture("batches", cc, dwarf,
                                     ["-DKIND=%d" % kind])] * n
            lib = os.path.join(ctx.tmp, "batches.%s.%d.o" % (cc, dwarf))
            p = ctx.run(["ld", "-r", "-o", lib] + objs)
            assert p.returncode == 0, p.stderr
            outs = {}
            for name, extra, env in (
                    ("plain", ["--plain-dedup"], None),
                    ("j1", ["-j1", "--stats"], BATCHES),
                    ("j2", ["-j2", "--stats"], BATCHES),
                    ("merged1", ["-j1", "--stats"], MERGED),
                    ("merged2", ["-j2", "--stats"], MERGED),
                    ("outgrown1", ["-j1", "--stats"], OUTGROWN),
                    ("outgrown2", ["-j2", "--stats"], OUTGROWN)):
                outs[name] = os.path.join(ctx.tmp, name + ".btf")
                p = ctx.run([ctx.bin] + extra + ["-o", outs[name], lib],
                            env=env)
                assert p.returncode == 0, p.stderr
                want = "stats: runs again 2 " if env is OUTGROWN else \
                    "stats: runs again 1 "
                if env and want not in p.stderr:
                    bad.append("%s DWARF %d %s: not %r:\n%s"
                               % (cc, dwarf, name, want, p.stderr))
                if env is OUTGROWN and "the last as one dedup" not in \
                        p.stderr:
                    bad.append("%s DWARF %d %s: not said:\n%s"
                               % (cc, dwarf, name, p.stderr))
            # a second run whose batches outgrow the first run's gives
            # way to one dedup of everything: --plain-dedup's bytes
            for name in ("outgrown1", "outgrown2"):
                with open(outs["plain"], "rb") as a, \
                        open(outs[name], "rb") as b:
                    if a.read() != b.read():
                        bad.append("%s DWARF %d: %s is not --plain-dedup"
                                   % (cc, dwarf, name))
            # what was said of the functions is said once, as without
            # the run made again
            said = {}
            for name, env in (("plain", None), ("batches", BATCHES),
                              ("merged", MERGED)):
                v = ctx.run([ctx.bin, "--verbose", "-o",
                             os.path.join(ctx.tmp, "v.btf"), lib], env=env)
                e = ctx.run([ctx.bin, "explain", "--all", lib], env=env)
                said[name] = (v.stdout, e.stdout)
            if said["plain"] != said["batches"] or \
                    said["plain"] != said["merged"] or \
                    "skipping BTF encoding" not in said["plain"][0]:
                bad.append("%s DWARF %d: --verbose or explain differ when "
                           "run again:\n%s\n%s" % (cc, dwarf, said["plain"],
                                                     said["batches"]))
            p = ctx.run([ctx.bin, "diff", outs["plain"], outs["j2"]])
            if p.returncode != 0:
                bad.append("%s DWARF %d:\n%s" % (cc, dwarf, p.stdout[-1500:]))
            for name in ("j2", "merged1", "merged2"):
                with open(outs["j1"], "rb") as a, \
                        open(outs[name], "rb") as b:
                    if a.read() != b.read():
                        bad.append("%s DWARF %d: -j1 and %s differ"
                                   % (cc, dwarf, name))
            # the pattern really is there: two struct wide, one FWD-free
            names = [t.name for t in ctx.btf(outs["plain"]).all_types()
                     if t.kind == "struct"]
            if names.count("wide") != 2 or names.count("file") != 2:
                bad.append("%s DWARF %d: structs %s" % (cc, dwarf,
                                                         sorted(names)))
    if bad:
        raise AssertionError("\n".join(bad))
