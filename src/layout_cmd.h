/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `dwarf2btf layout FILE [BTF] [--base BASE] [--lang_exclude=LANG,...]`
 * checks that every struct, class and union FILE's DWARF defines (in CUs
 * of the languages asked for) has its layout in the BTF (FILE's .BTF
 * section, or BTF: raw BTF or an ELF file with .BTF).  @argv[0] is
 * "layout".  layout_cmd__main() returns the exit code: 0 when all are
 * there, 1 when some are not, 2 on a usage or read error.
 */
#ifndef DWARF2BTF_LAYOUT_CMD_H
#define DWARF2BTF_LAYOUT_CMD_H

int layout_cmd__main(int argc, char **argv);

#endif /* DWARF2BTF_LAYOUT_CMD_H */
