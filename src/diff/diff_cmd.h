/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef DWARF2BTF_DIFF_CMD_H
#define DWARF2BTF_DIFF_CMD_H

/*
 * `dwarf2btf diff A B [--base BASE] [options]`: semantic comparison of two
 * BTF blobs (raw BTF files or ELF files with a .BTF section), ignoring type
 * ids and order.  @argv[0] is "diff".  Returns the exit code: 0 same,
 * 1 different, 2 usage or read error.
 */
int diff_cmd__main(int argc, char **argv);

#endif /* DWARF2BTF_DIFF_CMD_H */
