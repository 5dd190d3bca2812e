#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Encode every module of a Debian kernel in one dwarf2btf run and compare.

usage: check-modules.py BIN [-j N] [--plain] [--pkg PKG] [--pahole PAHOLE]
                        [--sample N] [--alone-every N] [--max-pct P]
                        [--btf-args ARGS]

Fetches the kernel (scripts/fetch-kernel.sh; --pkg names the package,
default the 6.12 cloud kernel), runs
    BIN ARGS --base VMLINUX -jN -o OUTDIR --files-from LIST
where ARGS are the --btf_features kbuild passes for that kernel (Linux 7.x:
scripts/Makefile.btf's; 6.x: none, the default set; --btf-args replaces
them), and then, per module, with `BIN diff --base VMLINUX`:
  types  our named types against the split .BTF Debian embedded in the .ko
         (both over Debian's vmlinux .BTF): must be equal for every module,
         leaving out types the base already has (`diff --no-base-dups`:
         one side repeating a base type is not a difference); where they
         still differ, equal to upstream pahole's reference is right too
         (all with `diff --flat-arrays` over a base without arrays of
         arrays, as pahole up to 1.31 made them);
         the number of modules with Debian's number of types is printed;
  vars   our VARs and DATASECs (per-CPU variables) against Debian's;
  funcs, tags, ref-vars
         our FUNCs, decl tags and VARs against upstream pahole's reference
         (made with --pahole, ARGS and --btf_base VMLINUX, one run per
         module as kbuild makes them, for every --sample'th module; else
         for 6.12 ../shared/reference/<kernel>/modules/<path>.btf, else
         made with PAHOLE_REF):
         those only in ours plus only in the reference must stay within
         --max-pct (default 1) percent of the reference's, over all
         modules compared;
  loads  libbpf parses every output over the base (bpftool btf dump);
  alone  every --alone-every'th module (default 10) encoded as kbuild does,
         one process each, the base's index from a cache of the run's own
         (7.x, scripts/gen-btf.sh: ARGS --btf_base VMLINUX
         --btf_encode_detached=M.BTF.1 M.ko; 6.x: in place): the bytes of
         the run over all modules;
  plain  with --plain: every module encoded again with --plain-dedup
         (libbpf's split dedup) means the same (`BIN diff` finds nothing).
Prints totals and the modules that differ; ends with 'N passed, N failed'.
env: DWARF2BTF_REFERENCE (folder with vmlinux.btf and modules/),
     DWARF2BTF_CHECK_DIR (work folder, default build/check-modules),
     DWARF2BTF_KERNEL_PKG (Debian package to fetch, as --pkg; the bundled
         reference is then not used),
     PAHOLE_REF (as --pahole, after the bundled reference).
"""

import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
import btf_header  # noqa: E402
import struct  # noqa: E402
REPO = os.path.dirname(HERE)
REF_NAME = "linux-6.12.117-cloud-amd64"
SUMMARY = re.compile(r"(\w+): (\d+) only in A, (\d+) only in B, (\d+) differ")


# The --btf_features Linux 7.x's scripts/Makefile.btf passes pahole (for
# a gcc build: no Rust, and the languages pahole may see filtered).
KBUILD_7 = ["--btf_features=encode_force,var,float,enum64,decl_tag,"
            "type_tag,optimized_func,consistent_func,decl_tag_kfuncs",
            "--btf_features=attributes", "--btf_features=layout",
            "--lang_exclude=rust"]


def fetch(what, pkg):
    env = dict(os.environ, FETCH_KERNEL_PRINT=what)
    p = subprocess.run([os.path.join(HERE, "fetch-kernel.sh")] +
                       ([pkg] if pkg else []), env=env,
                       stdout=subprocess.PIPE, text=True, check=True)
    return p.stdout.strip().splitlines()[-1]


def kernel_major(moddir):
    """The major version of the kernel whose modules are in MODDIR
    (lib/modules/<release>/kernel), 0 when it cannot be told."""
    m = re.match(r"(\d+)\.", os.path.basename(os.path.dirname(moddir)))
    return int(m.group(1)) if m else 0


def kinds_count(vmlinux, path):
    """{FUNC, VAR, DECL_TAG: how many} of split BTF PATH, or None."""
    p = subprocess.run(["bpftool", "-B", vmlinux, "btf", "dump", "file",
                        path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return None
    res = {"FUNC": 0, "VAR": 0, "DECL_TAG": 0}
    for m in re.finditer(r"^\[\d+\] (FUNC|VAR|DECL_TAG) ", p.stdout, re.M):
        res[m.group(1)] += 1
    return res


def type_count(raw):
    """The number of types of raw BTF RAW (bytes), None if unreadable."""
    if len(raw) < 24 or raw[:2] not in (b"\x9f\xeb", b"\xeb\x9f"):
        return None
    bo = "<" if raw[:2] == b"\x9f\xeb" else ">"
    hdr_len, type_off, type_len = struct.unpack_from(bo + "III", raw, 4)
    p, end, n = hdr_len + type_off, hdr_len + type_off + type_len, 0
    # bytes after the 12 of struct btf_type: (fixed, per vlen item)
    extra = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
             13: (0, 8), 14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}
    while p + 12 <= end:
        info = struct.unpack_from(bo + "I", raw, p + 4)[0]
        fixed, item = extra.get((info >> 24) & 0x1f, (0, 0))
        p += 12 + fixed + item * (info & 0xffff)
        n += 1
    return n if p == end else None


def embedded_btf(ko, tmp):
    """The .BTF section of KO (bytes), or None."""
    p = subprocess.run(["objcopy", "--dump-section", ".BTF=" + tmp, ko,
                        tmp + ".ko"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    try:
        return open(tmp, "rb").read() if p.returncode == 0 else None
    finally:
        for f in (tmp, tmp + ".ko"):
            if os.path.exists(f):
                os.unlink(f)


def summary(out):
    res = {}
    for m in SUMMARY.finditer(out):
        res[m.group(1)] = tuple(int(x) for x in m.group(2, 3, 4))
    return res


def diff(bin_, vmlinux, a, b, kinds, extra=()):
    """BIN diff's summary of A against B: {kind: (only A, only B, differ)},
    None when it could not compare."""
    p = subprocess.run([bin_, "diff", "--base", vmlinux, "--kinds=" + kinds,
                        "--summary"] + list(extra) + [a, b],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    return summary(p.stdout) if p.returncode in (0, 1) else None


def check_one(bin_, vmlinux, ko, ours, ref, debian, tmp, flat):
    r = {"ko": ko}
    # Without Debian's .BTF in the module there is nothing to compare.
    d = (diff(bin_, vmlinux, ours, ko, "types,vars", flat) or {}) \
        if debian else {}
    r["types"] = d.get("types")
    r["vars"] = d.get("vars")
    # Not equal: the same once types the base already has are left out
    # (a module repeating a base type)?  Else: equal to pahole's reference
    # (where it and Debian's differ, either is right)?
    r["types_nodup"] = r["types"]
    r["types_ref"] = None
    if debian and r["types"] not in (None, (0, 0, 0)):
        d = diff(bin_, vmlinux, ours, ko, "types",
                 ["--no-base-dups"] + flat)
        r["types_nodup"] = (d or {}).get("types")
        if r["types_nodup"] != (0, 0, 0) and os.path.exists(ref):
            d = diff(bin_, vmlinux, ours, ref, "types",
                     ["--no-base-dups"] + flat)
            r["types_ref"] = (d or {}).get("types")
    # Type counts: equal by meaning may still hold a copy more or less.
    if debian and os.path.exists(ours):
        emb = embedded_btf(ko, tmp)
        r["count_debian"] = type_count(emb) if emb else None
        r["count_ours"] = type_count(open(ours, "rb").read())
    if os.path.exists(ref):
        r["ref"] = diff(bin_, vmlinux, ours, ref, "funcs,vars,tags", flat)
        r["ref_kinds"] = kinds_count(vmlinux, ref)
    r["ours_kinds"] = kinds_count(vmlinux, ours)
    return r


def has_array_of_arrays(path):
    """Does the BTF of PATH hold an array of arrays?  pahole up to 1.31
    wrote int[2][3] as int[6]; modules over such a base are compared with
    `diff --flat-arrays`.  None when it cannot be read."""
    p = subprocess.run(["bpftool", "btf", "dump", "file", path],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    if p.returncode != 0:
        return None
    arrays, elems = set(), set()
    for m in re.finditer(r"^\[(\d+)\] ARRAY '[^']*' type_id=(\d+)",
                         p.stdout, re.M):
        arrays.add(m.group(1))
        elems.add(m.group(2))
    return bool(arrays & elems)


def has_btf(path):
    p = subprocess.run(["readelf", "-SW", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    return " .BTF " in p.stdout


def make_reference(pahole, args, vmlinux, moddir, kos, refdir, jobs):
    """Upstream pahole's BTF of each module of KOS, made as kbuild makes
    it (ARGS), laid out as the bundled reference is; returns how many
    there are.  A reference made before with the same pahole, ARGS and
    base is kept (refdir/stamp says which)."""
    stamp = os.path.join(refdir, "stamp")
    what = "\n".join([pahole, vmlinux] + (args or ["default"])) + "\n"
    keep = os.path.exists(stamp) and open(stamp).read() == what
    if not keep:
        shutil.rmtree(refdir, ignore_errors=True)
    os.makedirs(refdir, exist_ok=True)
    with open(stamp, "w") as f:
        f.write(what)

    # Without --btf_features pahole leaves some of its default set off;
    # we encode that set.
    args = args or ["--btf_features=default"]

    def one(ko):
        dst = os.path.join(refdir, "modules",
                           os.path.relpath(ko, moddir)[:-3] + ".btf")
        if keep and os.path.exists(dst):
            return True
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        p = subprocess.run([pahole, "-J"] + args +
                           ["--btf_base", vmlinux,
                            "--btf_encode_detached=" + dst + ".tmp", ko],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
        if p.returncode or not os.path.exists(dst + ".tmp"):
            return False
        btf_header.short_header(dst + ".tmp")
        os.rename(dst + ".tmp", dst)
        return True

    with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
        return sum(ex.map(one, kos))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bin")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--plain", action="store_true",
                    help="also encode with --plain-dedup and compare")
    ap.add_argument("--pkg", default=os.environ.get("DWARF2BTF_KERNEL_PKG"),
                    help="the Debian kernel package (fetch-kernel.sh)")
    ap.add_argument("--pahole",
                    help="upstream pahole, to make the reference with "
                    "(before the bundled one; PAHOLE_REF: after it)")
    ap.add_argument("--sample", type=int, default=1,
                    help="make the reference of every N-th module only")
    ap.add_argument("--alone-every", type=int, default=10,
                    help="encode every N-th module as kbuild does")
    ap.add_argument("--max-pct", type=float, default=1.0,
                    help="FUNCs, VARs and tags off the reference, in %%")
    ap.add_argument("--btf-args",
                    help="the encoding options (default: kbuild's)")
    a = ap.parse_args()
    bin_ = os.path.abspath(a.bin)
    vmlinux = fetch("vmlinux", a.pkg)
    moddir = os.path.join(fetch("modules", a.pkg), "kernel")
    major = kernel_major(moddir)
    if a.btf_args is not None:
        args = shlex.split(a.btf_args)
    else:
        args = KBUILD_7 if major >= 7 else []
    work = os.environ.get("DWARF2BTF_CHECK_DIR",
                          os.path.join(REPO, "build", "check-modules"))
    out = os.path.join(work, "out")
    os.makedirs(out, exist_ok=True)
    kos = sorted(os.path.join(d, f) for d, _, fs in os.walk(moddir)
                 for f in fs if f.endswith(".ko"))
    print("     %s: %d modules, encoded with %s"
          % (os.path.basename(os.path.dirname(moddir)), len(kos),
             " ".join(args) or "the default features"))
    # A kernel without BTF (Debian 6.1's s390x): the modules go over our
    # vmlinux BTF, ours and the reference's alike, and there is no
    # Debian .BTF to compare types and variables with.
    debian = has_btf(vmlinux)
    if not debian:
        vmlinux_btf = os.path.join(work, "vmlinux.btf")
        p = subprocess.run([bin_, "-j%d" % a.j] + args +
                           ["-o", vmlinux_btf, vmlinux])
        if p.returncode:
            print("FAIL encode: %s (no .BTF of its own) failed" % vmlinux)
            print("0 passed, 1 failed")
            return 1
        print("     %s has no .BTF: modules go over ours, %s"
              % (vmlinux, vmlinux_btf))
        vmlinux = vmlinux_btf
    # The bundled reference is of the default kernel only.
    refdir = os.environ.get("DWARF2BTF_REFERENCE")
    bundled = os.path.join(os.path.dirname(REPO), "shared", "reference",
                           REF_NAME)
    if not refdir and not a.pkg and not a.pahole and os.path.isdir(bundled):
        refdir = bundled
    pahole = a.pahole or os.environ.get("PAHOLE_REF")
    if not refdir and pahole:
        refdir = os.path.join(work, "reference")
        t = time.time()
        n = make_reference(pahole, args, vmlinux, moddir, kos[::a.sample],
                           refdir, a.j)
        print("     reference: %d of %d modules by %s in %.1f s"
              % (n, len(kos[::a.sample]), pahole, time.time() - t))
    refdir = refdir or os.path.join(work, "no-reference")
    flat = ["--flat-arrays"] if has_array_of_arrays(vmlinux) is False \
        else []
    if flat:
        print("     %s holds no array of arrays (pahole up to 1.31): "
              "compared with --flat-arrays" % vmlinux)
    t = time.time()
    lst = os.path.join(work, "modules.list")
    with open(lst, "w") as f:
        f.write("".join(k + "\n" for k in kos))
    p = subprocess.run([bin_] + args + ["--base", vmlinux, "-j%d" % a.j,
                                        "-o", out, "--files-from", lst],
                       stderr=subprocess.PIPE, text=True)
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
        for k, ko in enumerate(kos):
            rel = os.path.relpath(ko, moddir)[:-3]
            name = os.path.basename(rel)
            ours = os.path.join(out, name + ".btf")
            ref = os.path.join(refdir, "modules", rel + ".btf")
            jobs.append(ex.submit(check_one, bin_, vmlinux, ko, ours, ref,
                                  debian, os.path.join(work, "emb%d" % k),
                                  flat))
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
        counted = [r for r in res if r.get("count_debian") is not None]
        other = [r for r in counted if r["count_ours"] != r["count_debian"]]
        print("     type counts: %d of %d modules have as many types as "
              "Debian's .BTF%s" % (len(counted) - len(other), len(counted),
                                   "; not: " + " ".join(
                                       "%s (%s, Debian's %d)" % (
                                           os.path.basename(r["ko"]),
                                           r["count_ours"],
                                           r["count_debian"])
                                       for r in other[:10])
                                   if other else ""))
        bad_vars = [r for r in res if r["vars"] != (0, 0, 0)]
        verdict(not bad_vars, "vars: %d of %d modules have the VARs and "
                "DATASECs of Debian's .BTF%s"
                % (len(res) - len(bad_vars), len(res),
                   "; differ: " + names(bad_vars) if bad_vars else ""))
    with_ref = [r for r in res if "ref" in r]
    if not with_ref:
        skip("funcs: no reference module BTF (DWARF2BTF_REFERENCE, "
             "--pahole)")
    for kind, key, bkind in (("funcs", "FUNC", "funcs"),
                             ("tags", "DECL_TAG", "tags"),
                             ("ref-vars", "VAR", "vars")):
        if not with_ref:
            break
        only_ours = sum((r["ref"] or {}).get(bkind, (0, 0, 0))[0]
                        for r in with_ref)
        only_ref = sum((r["ref"] or {}).get(bkind, (0, 0, 0))[1]
                       for r in with_ref)
        differ = sum((r["ref"] or {}).get(bkind, (0, 0, 0))[2]
                     for r in with_ref)
        ref_total = sum((r["ref_kinds"] or {}).get(key, 0)
                        for r in with_ref)
        ours_total = sum((r["ours_kinds"] or {}).get(key, 0)
                         for r in with_ref)
        pct = 100.0 * (only_ours + only_ref) / max(ref_total, 1)
        off = [r for r in with_ref if (r["ref"] or {}).get(bkind) !=
               (0, 0, 0)]
        ok = pct <= a.max_pct and all(r["ref"] is not None and
                                      r["ref_kinds"] is not None
                                      for r in with_ref)
        verdict(ok, "%s: %d ours, %d reference over %d modules; only ours "
                "%d, only reference %d, differ %d = %.2f%% (max %g%%)%s"
                % (kind, ours_total, ref_total, len(with_ref), only_ours,
                   only_ref, differ, pct, a.max_pct,
                   "; in: " + names(off) if off else ""))
    unparsed = [r["ko"] for r in res if r["ours_kinds"] is None]
    verdict(not unparsed, "parse: libbpf reads all %d outputs over the base%s"
            % (len(res), "; not: " + " ".join(unparsed[:10])
               if unparsed else ""))
    # kbuild's way: one process per module, reading the base's index from
    # the cache (filled by the first): the bytes of the run over all.
    # Linux 7.x's scripts/gen-btf.sh writes detached BTF; 6.x's
    # Makefile.modfinal updated the .ko in place.
    some = kos[::max(a.alone_every, 1)]
    cache = os.path.join(work, "cache")
    shutil.rmtree(cache, ignore_errors=True)
    env = dict(os.environ, DWARF2BTF_CACHE_DIR=cache)
    env.pop("DWARF2BTF_NO_CACHE", None)

    def alone(ko):
        name = os.path.basename(ko)[:-3]
        got = os.path.join(work, "alone-" + name + ".BTF.1")
        if major >= 7:
            q = subprocess.run([bin_, "-J"] + args +
                               ["--btf_base", vmlinux,
                                "--btf_encode_detached=" + got, ko],
                               env=env, stderr=subprocess.PIPE, text=True)
            ok = q.returncode == 0
            copy = None
        else:
            copy = os.path.join(work, "alone-" + name + ".ko")
            shutil.copyfile(ko, copy)
            q = subprocess.run([bin_, "-J"] + args +
                               ["--btf_base", vmlinux, copy],
                               env=env, stderr=subprocess.PIPE, text=True)
            ok = q.returncode == 0 and subprocess.run(
                ["objcopy", "--dump-section", ".BTF=" + got, copy,
                 copy + ".x"], stderr=subprocess.PIPE).returncode == 0
        ok = ok and open(got, "rb").read() == \
            open(os.path.join(out, name + ".btf"), "rb").read()
        for f in (copy, got, (copy or got) + ".x"):
            if f and os.path.exists(f):
                os.unlink(f)
        return ok

    t = time.time()
    with concurrent.futures.ThreadPoolExecutor(a.j) as ex:
        diff = [k for k, ok in zip(some, ex.map(alone, some)) if not ok]
    verdict(not diff, "alone: %d modules (every %d-th) encoded one process "
            "each as kbuild does, the base index from the cache, in %.1f s, "
            "are the bytes of the run over all%s"
            % (len(some), max(a.alone_every, 1), time.time() - t,
               "; not: " + " ".join(os.path.basename(k) for k in diff[:10])
               if diff else ""))
    if a.plain:
        plain_out = os.path.join(work, "out-plain")
        os.makedirs(plain_out, exist_ok=True)
        t = time.time()
        p = subprocess.run([bin_, "--plain-dedup"] + args +
                           ["--base", vmlinux, "-j%d" % a.j, "-o",
                            plain_out, "--files-from", lst],
                           stderr=subprocess.PIPE, text=True)
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
