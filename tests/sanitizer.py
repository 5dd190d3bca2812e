# SPDX-License-Identifier: GPL-2.0-only
"""A sanitizer build (make SANITIZE=1 check) must stay silent: what its
reports look like in a process's stderr.  run.py's ctx.run() fails a test
on any of them, so tests need not look themselves."""

MARKERS = ("AddressSanitizer", "LeakSanitizer",
           "UndefinedBehaviorSanitizer", "runtime error:")


def report(stderr):
    """True if @stderr holds a sanitizer report."""
    return any(m in stderr for m in MARKERS)
