// SPDX-License-Identifier: GPL-2.0-only
/* Argument registers per machine, as pahole 1.31 has them (call_abi.h). */
#include <elf.h>
#include <string.h>

#include "cu/call_abi.h"

/*
 * Fills ABI for ELF machine MACHINE as pahole 1.31's
 * arch__nr_register_params(), arch__set_register_params() and
 * arch__agg_use_two_regs() do.  The register numbers are DWARF's.  On
 * machines whose register count pahole knows but whose registers it does
 * not name, each register is -1.  An unknown address size (0) counts as 8.
 */
void call_abi__init(struct call_abi *abi, unsigned int machine,
			   unsigned int addr_size)
{

	static const int x86_64[] = { 5, 4, 1, 2, 8, 9 };	/* rdi rsi rdx rcx r8 r9 */
	static const int s390[] = { 2, 3, 4, 5, 6 };		/* r2-r6 */
	static const int arm[] = { 0, 1, 2, 3, 4, 5, 6, 7 };	/* r0-r7, x0-x7 */
	const int *regs = NULL;
	int i;

	memset(abi, 0, sizeof(*abi));
	abi->addr_size = addr_size ? addr_size : 8;
	abi->agg_two_regs = machine != EM_S390;
	switch (machine) {
	case EM_S390:
		abi->nr_regs = 5;
		regs = s390;
		break;
	case EM_X86_64:
		abi->nr_regs = 6;
		regs = x86_64;
		break;
	case EM_SPARC:
	case EM_SPARCV9:
		abi->nr_regs = 6;
		break;
	case EM_ARM:
	case EM_AARCH64:
		abi->nr_regs = 8;
		regs = arm;
		break;
	case EM_ARC:
	case EM_MIPS:
	case EM_PPC:
	case EM_PPC64:
	case EM_RISCV:
		abi->nr_regs = 8;
		break;
	default:
		break;
	}
	for (i = 0; i < MAX_REG_PARAMS; i++)
		abi->regs[i] = regs && i < abi->nr_regs ? regs[i] : -1;
}

bool call_abi__one_reg(const struct call_abi *abi, uint64_t size)
{
	return size <= abi->addr_size || !abi->agg_two_regs;
}

bool call_abi__in_memory(const struct call_abi *abi, uint64_t size)
{
	return size > (abi->agg_two_regs ? 2 : 1) * (uint64_t)abi->addr_size;
}
