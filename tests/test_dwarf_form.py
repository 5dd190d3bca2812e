# SPDX-License-Identifier: GPL-2.0-only
"""src/input/dwarf_form.c, the one table of DW_FORM sizes the readers of
abbreviations share (tests/unit/test_dwarf_form.c under ASan and UBSan)."""


def test_dwarf_form(ctx):
    ctx.unit("test_dwarf_form", ["input/dwarf_form.c"])
