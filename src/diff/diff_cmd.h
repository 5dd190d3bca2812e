/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef DWARF2BTF_DIFF_CMD_H
#define DWARF2BTF_DIFF_CMD_H

/*
 * `dwarf2btf diff A B [--base BASE] [options]` compares two BTF blobs (raw
 * BTF files or ELF files with a .BTF section) by meaning, ignoring type
 * ids and order.  @argv[0] is "diff".  diff_cmd__main() returns the exit
 * code: 0 when the same, 1 when different, 2 on a usage or read error.
 */
int diff_cmd__main(int argc, char **argv);

#endif /* DWARF2BTF_DIFF_CMD_H */
