#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Encode every module of a Debian kernel in one dwarf2btf run and compare.

usage: check-modules.py BIN [-j N] [--plain]

Fetches the kernel (scripts/fetch-kernel.sh), runs
    BIN --base VMLINUX -jN -o OUTDIR --files-from LIST
and then, per module, with `BIN diff --base VMLINUX`:
  types  our named types against the split .BTF Debian embedded in the .ko
         (both over Debian's vmlinux .BTF): must be equal for every module,
         leaving out types the base already has (`diff --no-base-dups`:
         one side repeating a base type is not a difference); where they
         still differ, equal to upstream pahole's reference is right too;
  vars   our VARs and DATASECs (per-CPU variables) against Debian's;
  funcs  our FUNCs against upstream pahole's reference
         (../shared/reference/<kernel>/modules/<path>.btf): functions only
         in ours plus only in the reference must stay within 1% of the
         reference's functions, over all modules;
  loads  libbpf parses every output over the base (bpftool btf dump);
  alone  every 10th module encoded as kbuild does (in place, one process
         each, the base's index from a cache of the run's own): the bytes
         of the batch run;
  plain  with --plain: every module encoded again with --plain-dedup
         (libbpf's split dedup) means the same (`BIN diff` finds nothing).
Prints totals and the modules that differ; ends with 'N passed, N failed'.
env: DWARF2BTF_REFERENCE (folder with vmlinux.btf and modules/),
     DWARF2BTF_CHECK_DIR (work folder, default build/check-modules),
     DWARF2BTF_KERNEL_PKG (Debian package to fetch, see fetch-kernel.sh;
         the bundled reference is then not used),
     PAHOLE_REF (without a reference, an upstream pahole to make one with,
         one run per module as the bundled one was made).
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import btf_header  # noqa: E402
REPO = os.path.dirname(HERE)
REF_NAME = "linux-6.12.117-cloud-amd64"
SUMMARY = re.compile(r"(\w+): (\d+) only in A, (\d+) only in B, (\d+) differ")


def fetch(what):
    env = dict(os.environ, FETCH_KERNEL_PRINT=what)
    pkg = os.environ.get("DWARF2BTF_KERNEL_PKG")
    p = subprocess.run([os.path.join(HERE, "fetch-kernel.sh")] +
                       ([pkg] if pkg else []), env=env,
                       stdout=subprocess.PIPE, text=True, check=True)
    return p.stdout.strip().splitlines()[-1]


def summary(out):
    res = {}
    for m in SUMMARY.finditer(out):
        res[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4))
    return res


def count_funcs(bin_, vmlinux, path):
    p = subprocess.run(["bpftool", "-B", vmlinux, "btf", "dump", "file",
                        path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return None
    return sum(1 for ln in p.stdout.splitlines() if "] FUNC '" in ln)


def diff(bin_, vmlinux, a, b, kinds, extra=()):
    """BIN diff's summary of A against B: {kind: (only A, only B, differ)},
    None when it could not compare."""
    p = subprocess.run([bin_, "diff", "--base", vmlinux, "--kinds=" + kinds,
                        "--summary"] + list(extra) + [a, b],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    return summary(p.stdout) if p.returncode in (0, 1) else None


def check_one(bin_, vmlinux, ko, ours, ref, debian):
    r = {"ko": ko}
    # Without Debian's .BTF in the module there is nothing to compare.
    d = (diff(bin_, vmlinux, ours, ko, "types,vars") or {}) if debian else {}
    r["types"] = d.get("types")
    r["vars"] = d.get("vars")
    # Not equal: the same once types the base already has are left out
    # (a module repeating a base type)?  Else: equal to pahole's reference
    # (where it and Debian's differ, either is right)?
    r["types_nodup"] = r["types"]
    r["types_ref"] = None
    if debian and r["types"] not in (None, (0, 0, 0)):
        d = diff(bin_, vmlinux, ours, ko, "types", ["--no-base-dups"])
        r["types_nodup"] = (d or {}).get("types")
        if r["types_nodup"] != (0, 0, 0) and os.path.exists(ref):
            d = diff(bin_, vmlinux, ours, ref, "types", ["--no-base-dups"])
            r["types_ref"] = (d or {}).get("types")
    if os.path.exists(ref):
        r["funcs"] = (diff(bin_, vmlinux, ours, ref, "funcs") or {}).get(
            "funcs")
        r["ref_funcs"] = count_funcs(bin_, vmlinux, ref)
    r["ours_funcs"] = count_funcs(bin_, vmlinux, ours)
    return r


def has_btf(path):
    p = subprocess.run(["readelf", "-SW", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return " .BTF " in p.stdout


def make_reference(pahole, vmlinux, moddir, kos, refdir, jobs):
    """Upstream pahole's BTF of every module, laid out as the bundled
    reference is; returns how many it made."""
    def one(ko):
        dst = os.path.join(refdir, "modules",
                           os.path.relpath(ko, moddir)[:-3] + ".btf")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        p = subprocess.run([pahole, "-J", "--btf_features=default",
                            "--btf_base", vmlinux,
                            "--btf_encode_detached=" + dst, ko],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if p.returncode or not os.path.exists(dst):
            return False
        btf_header.short_header(dst)
        return True

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        return sum(ex.map(one, kos))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--plain", action="store_true",
                    help="also encode with --plain-dedup and compare")
    a = ap.parse_args()
    bin_ = os.path.abspath(a.bin)
    vmlinux = fetch("vmlinux")
    moddir = os.path.join(fetch("modules"), "kernel")
    work = os.environ.get("DWARF2BTF_CHECK_DIR",
                          os.path.join(REPO, "build", "check-modules"))
    out = os.path.join(work, "out")
    os.makedirs(out, exist_ok=True)
    kos = sorted(os.path.join(d, f) for d, _, fs in os.walk(moddir)
                 for f in fs if f.endswith(".ko"))
    # A kernel without BTF (Debian 6.1's s390x): the modules go over our
    # vmlinux BTF, ours and the reference's alike, and there is no
    # Debian .BTF to compare types and variables with.
    debian = has_btf(vmlinux)
    if not debian:
        vmlinux_btf = os.path.join(work, "vmlinux.btf")
        p = subprocess.run([bin_, "-j%d" % a.j, "-o", vmlinux_btf, vmlinux])
        if p.returncode:
            print("FAIL encode: %s (no .BTF of its own) failed" % vmlinux)
            print("0 passed, 1 failed")
            return 1
        print("     %s has no .BTF: modules go over ours, %s"
              % (vmlinux, vmlinux_btf))
        vmlinux = vmlinux_btf
    # The bundled reference is of the default kernel only.
    refdir = os.environ.get("DWARF2BTF_REFERENCE")
    if not refdir and not os.environ.get("DWARF2BTF_KERNEL_PKG"):
        refdir = os.path.join(os.path.dirname(REPO), "shared", "reference",
                              REF_NAME)
    if not refdir and os.environ.get("PAHOLE_REF"):
        refdir = os.path.join(work, "reference")
        t = time.time()
        n = make_reference(os.environ["PAHOLE_REF"], vmlinux, moddir, kos,
                           refdir, a.j)
        print("     reference: %d of %d modules by %s in %.1f s"
              % (n, len(kos), os.environ["PAHOLE_REF"], time.time() - t))
    refdir = refdir or os.path.join(work, "no-reference")
    t = time.time()
    lst = os.path.join(work, "modules.list")
    with open(lst, "w") as f:
        f.write("".join(k + "\n" for k in kos))
    p = subprocess.run([bin_, "--base", vmlinux, "-j%d" % a.j, "-o", out,
                        "--files-from", lst], stderr=subprocess.PIPE,
                       text=True)
    wall = time.time() - t
    print("     %d modules encoded in %.1f s (exit %d)"
          % (len(kos), wall, p.returncode))
    npass = nfail = nskip = 0

    def verdict(ok, msg):
        nonlocal npass, nfail
        print(("PASS " if ok else "FAIL ") + msg)
        if ok:
            npass += 1
        else:
            nfail += 1

    def skip(msg):
        nonlocal nskip
        print("SKIP " + msg)
        nskip += 1

    verdict(p.returncode == 0, "encode: %s" % (p.stderr.strip()[-300:] or
                                              "all modules"))
    jobs = []
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        for ko in kos:
            rel = os.path.relpath(ko, moddir)[:-3]
            name = os.path.basename(rel)
            ours = os.path.join(out, name + ".btf")
            ref = os.path.join(refdir, "modules", rel + ".btf")
            jobs.append(ex.submit(check_one, bin_, vmlinux, ko, ours, ref,
                                  debian))
        res = [j.result() for j in jobs]

    def names(rs):
        return " ".join(os.path.basename(r["ko"]) for r in rs[:20])

    exact = [r for r in res if r["types"] == (0, 0, 0)]
    dups = [r for r in res if r["types"] != (0, 0, 0)
            and r["types_nodup"] == (0, 0, 0)]
    by_ref = [r for r in res if r["types_nodup"] != (0, 0, 0)
              and r["types_ref"] == (0, 0, 0)]
    bad = [r for r in res if r["types_nodup"] != (0, 0, 0)
           and r["types_ref"] != (0, 0, 0)]
    if not debian:
        skip("types: no Debian .BTF in the modules to compare with")
        skip("vars: no Debian .BTF in the modules to compare with")
    else:
        verdict(not bad, "types: %d of %d modules equal Debian's .BTF; %d "
                "more once types the base already has are left out (%s); "
                "%d equal the reference instead (%s)%s"
                % (len(exact), len(res), len(dups), names(dups),
                   len(by_ref), names(by_ref),
                   "; differ: " + names(bad) if bad else ""))
        bad_vars = [r for r in res if r["vars"] != (0, 0, 0)]
        verdict(not bad_vars, "vars: %d of %d modules have the VARs and "
                "DATASECs of Debian's .BTF%s"
                % (len(res) - len(bad_vars), len(res),
                   "; differ: " + names(bad_vars) if bad_vars else ""))
    with_ref = [r for r in res if "funcs" in r]
    only_ours = sum(r["funcs"][0] for r in with_ref if r["funcs"])
    only_ref = sum(r["funcs"][1] for r in with_ref if r["funcs"])
    differ = sum(r["funcs"][2] for r in with_ref if r["funcs"])
    ref_total = sum(r["ref_funcs"] or 0 for r in with_ref)
    ours_total = sum(r["ours_funcs"] or 0 for r in res)
    pct = 100.0 * (only_ours + only_ref) / max(ref_total, 1)
    if not with_ref:
        skip("funcs: no reference module BTF (DWARF2BTF_REFERENCE, "
             "PAHOLE_REF)")
    else:
        verdict(pct <= 1.0 and all(r["funcs"] is not None
                                   and r["ref_funcs"] is not None
                                   for r in with_ref),
                "funcs: %d ours, %d reference over %d modules; only ours "
                "%d, only reference %d, prototypes differ %d = %.2f%% "
                "(max 1%%)" % (ours_total, ref_total, len(with_ref),
                               only_ours, only_ref, differ, pct))
    unparsed = [r["ko"] for r in res if r["ours_funcs"] is None]
    verdict(not unparsed, "parse: libbpf reads all %d outputs over the base%s"
            % (len(res), "; not: " + " ".join(unparsed[:10])
               if unparsed else ""))
    # kbuild's way: one process per module, in place, reading the base's
    # index from the cache (filled by the first): the batch's bytes
    some = kos[::10]
    cache = os.path.join(work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, DWARF2BTF_CACHE_DIR=cache)
    env.pop("DWARF2BTF_NO_CACHE", None)

    def alone(ko):
        name = os.path.basename(ko)[:-3]
        copy = os.path.join(work, "alone-" + name + ".ko")
        shutil.copyfile(ko, copy)
        q = subprocess.run([bin_, "-J", "--btf_base", vmlinux, copy],
                           env=env, stderr=subprocess.PIPE, text=True)
        got = subprocess.run(["objcopy", "--dump-section",
                              ".BTF=" + copy + ".btf", copy, copy + ".x"],
                             stderr=subprocess.PIPE)
        ok = q.returncode == 0 and got.returncode == 0 and \
            open(copy + ".btf", "rb").read() == \
            open(os.path.join(out, name + ".btf"), "rb").read()
        for f in (copy, copy + ".btf", copy + ".x"):
            if os.path.exists(f):
                os.unlink(f)
        return ok

    with concurrent.futures.ThreadPoolExecutor(2) as ex:
        diff = [k for k, ok in zip(some, ex.map(alone, some)) if not ok]
    verdict(not diff, "alone: every 10th module (%d) encoded in place, one "
            "process each, the base index from the cache, is the batch's "
            "bytes%s" % (len(some), "; not: " + " ".join(
                os.path.basename(k) for k in diff[:10]) if diff else ""))
    if a.plain:
        plain_out = os.path.join(work, "out-plain")
        os.makedirs(plain_out, exist_ok=True)
        t = time.time()
        p = subprocess.run([bin_, "--plain-dedup", "--base", vmlinux,
                            "-j%d" % a.j, "-o", plain_out, "--files-from",
                            lst], stderr=subprocess.PIPE, text=True)
        print("     plain path: %d modules in %.1f s (exit %d)"
              % (len(kos), time.time() - t, p.returncode))

        def same(ko):
            name = os.path.basename(ko)[:-3] + ".btf"
            q = subprocess.run([bin_, "diff", "--base", vmlinux, "-q",
                                os.path.join(out, name),
                                os.path.join(plain_out, name)])
            return q.returncode == 0

        with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
            diff = [k for k, ok in zip(kos, ex.map(same, kos)) if not ok]
        verdict(p.returncode == 0 and not diff,
                "plain: %d of %d modules mean the same with --plain-dedup "
                "(libbpf's split dedup)%s"
                % (len(kos) - len(diff), len(kos),
                   "; differ: " + " ".join(os.path.basename(k)
                                           for k in diff[:20])
                   if diff else ""))
    print("%d passed, %d failed%s" % (npass, nfail,
                                      ", %d skipped" % nskip if nskip else ""))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
