/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * `dwarf2btf explain FILE [FUNC...]` tells why a function is or is not in
 * the BTF (explain/explain.h).  @argv[0] is "explain".  explain_cmd__main()
 * returns the exit code.
 */
#ifndef DWARF2BTF_EXPLAIN_CMD_H
#define DWARF2BTF_EXPLAIN_CMD_H

int explain_cmd__main(int argc, char **argv);

#endif
