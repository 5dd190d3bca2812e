/* SPDX-License-Identifier: GPL-2.0-only */
/* Where a parameter arrives, from its DWARF location (cu_funcs.c). */
#ifndef DWARF2BTF_PARAM_LOC_H
#define DWARF2BTF_PARAM_LOC_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "cu/call_abi.h"

#define LOC_UNKNOWN	(-1)

/* What a parameter's location says, read as pahole reads it. */
struct param_loc {
	int reg;		/* the DWARF register it arrives in */
	bool konst;		/* the first entry is a constant */
	bool stack;		/* the first entry is on the stack (fbreg) */
	/*
	 * A struct in pieces: bit N set when a piece starts at byte N of the
	 * first (second) register-sized half.
	 */
	unsigned long first, second;
};

/*
 * Where a parameter arrives, read from its location (list) the way pahole
 * reads it: mostly the first entry counts, but an entry value of a
 * register, in any entry, tells the incoming register, and the pieces of
 * a struct are gathered from every entry.  @pl->reg must be LOC_UNKNOWN
 * on entry; @size is the parameter's.
 */
void param_loc__decode(struct param_loc *pl, Dwarf_Attribute *loc,
		       uint64_t size, const struct call_abi *abi);

#endif /* DWARF2BTF_PARAM_LOC_H */
