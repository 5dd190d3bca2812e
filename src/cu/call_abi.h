/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The registers a machine passes arguments in, by ELF machine (e_machine),
 * for the function rules (cu_funcs.c, docs/functions.md).
 */
#ifndef DWARF2BTF_CALL_ABI_H
#define DWARF2BTF_CALL_ABI_H

#include <stdbool.h>
#include <stdint.h>

#define MAX_REG_PARAMS	8

/*
 * How a machine passes arguments, as far as pahole 1.31 checks it (its
 * arch__nr_register_params(), arch__set_register_params() and
 * arch__agg_use_two_regs()).
 */
struct call_abi {
	int nr_regs;			/* argument registers; 0: none checked */
	int regs[MAX_REG_PARAMS];	/* their DWARF numbers; -1: any */
	unsigned int addr_size;		/* bytes in one */
	bool agg_two_regs;		/* a struct of two words takes two */
};

/* A machine pahole knows no registers for gets none (nr_regs 0). */
void call_abi__init(struct call_abi *abi, unsigned int machine,
		    unsigned int addr_size);
/* A value this size goes in one register (or the machine never splits). */
bool call_abi__one_reg(const struct call_abi *abi, uint64_t size);
/* Passed in memory, not in registers. */
bool call_abi__in_memory(const struct call_abi *abi, uint64_t size);

#endif /* DWARF2BTF_CALL_ABI_H */
