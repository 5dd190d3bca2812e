#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Self-contained test runner for dwarf2btf.

    python3 tests/run.py [--bin build/dwarf2btf] [-k SUBSTRING] [-v] [-j N]

Imports every tests/test_*.py and runs each module-level function named
test_* (called with one argument, ``ctx``) in sorted order of their names
("test_types.test_foo"), two at a time, printing results in that order:

    PASS name | FAIL name (+ indented traceback) | SKIP name: why

and, as the very last line, "N passed, N failed[, N skipped]".  Exit status
is 1 if any test failed.  Modules may create test functions dynamically
(assigning test_* names in their globals).

``ctx`` offers:
  ctx.bin      absolute path of the binary under test
  ctx.root     repository root
  ctx.tmp      fresh temporary directory, removed if the test passes
  ctx.Skip     exception to raise to skip: raise ctx.Skip("why")
  ctx.run(args, input=None, timeout=120, cwd=None, env=None)
               subprocess.CompletedProcess, text (utf-8, undecodable bytes
               replaced), stdout/stderr captured, never raises on exit
               code; raises AssertionError on a sanitizer report
  ctx.fixture(name, cc, dwarf, extra=())
               object file compiled from tests/fixtures/<name>.c with
               "<cc> -g -gdwarf-<dwarf> -O2 -c" (cc "gcc" or "clang",
               dwarf 4 or 5); cached in tests/out/ keyed by the source,
               compiler version and flags, so tests share it.  Do not
               modify the returned file: copy it into ctx.tmp first.
  ctx.link(name, cc, dwarf, extra=())
               same, but linked into an executable (no -c)
  ctx.btf(path, base=None)
               btfparse.load(): parsed raw BTF or ELF .BTF section
"""

import argparse
import contextlib
import fcntl
import hashlib
import importlib
import io
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TESTS_DIR)
OUT_DIR = os.path.join(TESTS_DIR, "out")
FIXTURES = os.path.join(TESTS_DIR, "fixtures")
# Cached objects unused for this long are pruned at start.
PRUNE_AGE = 3 * 24 * 3600

sys.path.insert(0, TESTS_DIR)
import btfparse  # noqa: E402
import sanitizer  # noqa: E402


class Skip(Exception):
    """Raised by a test to skip itself."""


_cc_versions = {}


def _cc_version(cc):
    if cc not in _cc_versions:
        try:
            p = subprocess.run([cc, "--version"], capture_output=True,
                               text=True, timeout=60)
            _cc_versions[cc] = p.stdout
        except OSError:
            _cc_versions[cc] = None
    return _cc_versions[cc]


class Ctx:
    Skip = Skip

    def __init__(self, binary, tmp, verbose):
        self.bin = binary
        self.root = ROOT
        self.tmp = tmp
        self.verbose = verbose

    def run(self, args, input=None, timeout=120, cwd=None, env=None):
        args = [str(a) for a in args]
        if self.verbose:
            print("+ " + " ".join(args))
        p = subprocess.run(args, input=input, capture_output=True,
                           encoding="utf-8", errors="replace",
                           timeout=timeout, cwd=cwd, env=env)
        if sanitizer.report(p.stderr):
            raise AssertionError("sanitizer report from %s:\n%s"
                                 % (" ".join(args), p.stderr[-4000:]))
        return p

    def _build(self, name, cc, dwarf, extra, link):
        if cc not in ("gcc", "clang", "g++", "clang++"):
            raise ValueError("cc must be gcc, clang, g++ or clang++, not %r"
                             % cc)
        if dwarf not in (4, 5):
            raise ValueError("dwarf must be 4 or 5, not %r" % dwarf)
        # C++ compilers take NAME.cc
        src = os.path.join(FIXTURES, name +
                           (".cc" if cc.endswith("++") else ".c"))
        with open(src, "rb") as f:
            text = f.read()
        ver = _cc_version(cc)
        if ver is None:
            raise Skip("%s not installed" % cc)
        flags = ["-g", "-gdwarf-%d" % dwarf, "-O2"] + list(extra)
        if not link:
            flags.append("-c")
        key = hashlib.sha256(repr((text, ver, flags)).encode()).hexdigest()
        suffix = ".o" if not link else ""
        out = os.path.join(OUT_DIR, "%s.%s.dwarf%d.%s%s"
                           % (name, cc, dwarf, key[:16], suffix))
        os.makedirs(OUT_DIR, exist_ok=True)
        # Both workers (and other sessions) may want the same file: build
        # under a lock, into a temporary name, then rename.
        with open(out + ".lock", "w") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            if not os.path.exists(out):
                tmp_out = out + ".tmp%d" % os.getpid()
                p = self.run([cc] + flags + ["-o", tmp_out, src])
                if p.returncode != 0:
                    raise AssertionError("%s failed on %s:\n%s"
                                         % (cc, name, p.stderr))
                os.replace(tmp_out, out)
            else:
                os.utime(out)
        return out

    def fixture(self, name, cc, dwarf, extra=()):
        return self._build(name, cc, dwarf, extra, False)

    def link(self, name, cc, dwarf, extra=()):
        return self._build(name, cc, dwarf, extra, True)

    def btf(self, path, base=None):
        return btfparse.load(path, base)

    def unit(self, name, sources, libs=(), env=None):
        """tests/unit/NAME.c with src/SOURCES, under ASan and UBSan, run:
        it must print "ok" and exit 0."""
        exe = os.path.join(self.tmp, name)
        src = os.path.join(self.root, "src")
        p = self.run([os.environ.get("CC", "cc"), "-std=gnu11", "-O1", "-g",
                      "-Wall", "-Wextra", "-Werror", "-I" + src,
                      "-fsanitize=address,undefined",
                      "-fno-sanitize-recover=undefined",
                      os.path.join(self.root, "tests", "unit", name + ".c")] +
                     [os.path.join(src, s) for s in sources] + list(libs) +
                     ["-o", exe])
        assert p.returncode == 0, p.stderr
        p = self.run([exe], env=env)
        assert p.returncode == 0 and p.stdout == "ok\n", p.stdout + p.stderr


def _prune_out():
    now = time.time()
    try:
        names = os.listdir(OUT_DIR)
    except OSError:
        return
    for n in names:
        p = os.path.join(OUT_DIR, n)
        try:
            if now - os.stat(p).st_mtime > PRUNE_AGE and os.path.isfile(p):
                os.unlink(p)
        except OSError:
            pass


def discover():
    """Return (tests, errors): tests is a sorted list of (name, module,
    function name); errors lists (name, traceback) of modules that failed
    to import."""
    tests = []
    errors = []
    for fn in sorted(os.listdir(TESTS_DIR)):
        if not (fn.startswith("test_") and fn.endswith(".py")):
            continue
        modname = fn[:-3]
        try:
            mod = importlib.import_module(modname)
        except Exception:
            errors.append((modname, traceback.format_exc()))
            continue
        for attr in dir(mod):
            if attr.startswith("test_") and callable(getattr(mod, attr)):
                tests.append(("%s.%s" % (modname, attr), modname, attr))
    tests.sort()
    return tests, errors


# Set in the parent before the worker pool forks.
_opts = None


def run_one(item):
    name, modname, attr = item
    fn = getattr(sys.modules[modname], attr)
    tmp = tempfile.mkdtemp(prefix="dwarf2btf-%s-" % attr)
    ctx = Ctx(_opts.bin, tmp, _opts.verbose)
    out = io.StringIO()
    t0 = time.monotonic()
    status, msg = "PASS", ""
    try:
        with contextlib.redirect_stdout(out):
            fn(ctx)
    except Skip as e:
        status, msg = "SKIP", str(e)
    except KeyboardInterrupt:
        raise
    except BaseException:
        status = "FAIL"
        msg = traceback.format_exc()
    dt = time.monotonic() - t0
    if status == "FAIL":
        msg += "(temporary files kept in %s)\n" % tmp
    else:
        shutil.rmtree(tmp, ignore_errors=True)
    return name, status, msg, out.getvalue(), dt


def _indent(text):
    return "".join("    " + ln + "\n" for ln in text.rstrip("\n").split("\n"))


def main():
    global _opts
    ap = argparse.ArgumentParser(description="run the dwarf2btf tests")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "dwarf2btf"),
                    help="binary under test (default build/dwarf2btf)")
    ap.add_argument("-k", dest="filter", default=None,
                    help="only tests whose name contains SUBSTRING")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="show commands, test output and timings")
    ap.add_argument("-j", "--jobs", type=int, default=2,
                    help="tests run in parallel (default 2)")
    _opts = ap.parse_args()
    _opts.bin = os.path.abspath(_opts.bin)
    if not os.path.exists(_opts.bin):
        print("warning: %s does not exist" % _opts.bin, file=sys.stderr)

    _prune_out()
    # The tests' runs share a cache of their own (removed at the end), as
    # the runs of one build do; never the user's.
    cache = tempfile.mkdtemp(prefix="dwarf2btf-cache-")
    os.environ["DWARF2BTF_CACHE_DIR"] = cache
    os.environ.pop("DWARF2BTF_NO_CACHE", None)
    try:
        return _main(cache)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _main(cache):
    tests, errors = discover()
    if _opts.filter:
        tests = [t for t in tests if _opts.filter in t[0]]
        errors = [e for e in errors if _opts.filter in e[0]]

    counts = {"PASS": 0, "FAIL": 0, "SKIP": 0}
    for modname, tb in errors:
        print("FAIL %s (import)" % modname)
        print(_indent(tb), end="")
        counts["FAIL"] += 1

    def report(res):
        name, status, msg, out, dt = res
        counts[status] += 1
        if status == "SKIP":
            print("SKIP %s: %s" % (name, msg))
        elif _opts.verbose:
            print("%s %s (%.2fs)" % (status, name, dt))
        else:
            print("%s %s" % (status, name))
        if out and (status == "FAIL" or _opts.verbose):
            print(_indent(out), end="")
        if status == "FAIL":
            print(_indent(msg), end="")
        sys.stdout.flush()

    t0 = time.monotonic()
    jobs = max(1, _opts.jobs)
    if jobs == 1 or len(tests) <= 1:
        for t in tests:
            report(run_one(t))
    else:
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(jobs) as pool:
            # imap keeps submission order: output is deterministic.
            for res in pool.imap(run_one, tests, chunksize=1):
                report(res)
    if _opts.verbose:
        print("(%.1fs)" % (time.monotonic() - t0))
    if not tests and not errors:
        print("warning: no tests selected", file=sys.stderr)
    line = "%d passed, %d failed" % (counts["PASS"], counts["FAIL"])
    if counts["SKIP"]:
        line += ", %d skipped" % counts["SKIP"]
    print(line)
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
