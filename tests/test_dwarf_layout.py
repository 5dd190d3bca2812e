# SPDX-License-Identifier: GPL-2.0-only
"""src/input/dwarf_layout.c's scan of one abbreviation table, which tells
the encoder which forms of annotation a unit's DIEs may have, and its
reading of a unit's language, which tells the run whether it has Rust
units before any is encoded (tests/unit/test_dwarf_layout.c under ASan
and UBSan)."""

SOURCES = ["input/dwarf_layout.c", "input/dwarf_form.c", "input/elf_file.c"]


def test_dwarf_layout(ctx):
    ctx.unit("test_dwarf_layout", SOURCES, ["-ldw", "-lelf"])
