/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One-line diagnostics on stderr, all prefixed with the program name.  A
 * message is one fprintf() call, so lines of different threads do not
 * mix within a line.
 */
#ifndef DWARF2BTF_LOG_H
#define DWARF2BTF_LOG_H

#include <stdio.h>

#define pr_err(fmt, ...) fprintf(stderr, "dwarf2btf: " fmt "\n", ##__VA_ARGS__)
#define pr_warn(fmt, ...) fprintf(stderr, "dwarf2btf: warning: " fmt "\n", ##__VA_ARGS__)

#endif
