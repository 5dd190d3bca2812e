# SPDX-License-Identifier: GPL-2.0-only
"""One test per compiler and DWARF version, from one checking function."""

COMPILERS = ("gcc", "clang")
DWARF_VERSIONS = (4, 5)


def each_cc_dwarf(namespace, prefix, fn):
    """Define namespace[prefix + "<cc>_dwarf<N>"](ctx) = fn(ctx, cc, N)."""
    for cc in COMPILERS:
        for dw in DWARF_VERSIONS:
            def _t(ctx, cc=cc, dw=dw):
                fn(ctx, cc, dw)
            _t.__name__ = "%s%s_dwarf%d" % (prefix, cc, dw)
            namespace[_t.__name__] = _t
