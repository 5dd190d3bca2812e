// SPDX-License-Identifier: GPL-2.0-only
/*
 * Decoding a parameter's DWARF location as pahole reads it (param_loc.h):
 * the register it arrives in, a constant, the stack, or the pieces of a
 * struct split over two registers.
 */
#include <dwarf.h>
#include <stdbool.h>
#include <stddef.h>

#include "cu/param_loc.h"

/* Returns the register DW_OP_regN or DW_OP_regx names, or LOC_UNKNOWN. */
static int op_reg(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31)
		return op->atom - DW_OP_reg0;
	if (op->atom == DW_OP_regx)
		return op->number;
	return LOC_UNKNOWN;
}

/*
 * Returns the register a DW_OP_bregN or DW_OP_bregx is relative to, or
 * LOC_UNKNOWN.  Followed by DW_OP_stack_value, such a location is a value
 * computed from that register, which counts as arriving in it.
 */
static int op_breg(const Dwarf_Op *op)
{
	if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31)
		return op->atom - DW_OP_breg0;
	if (op->atom == DW_OP_bregx)
		return op->number;
	return LOC_UNKNOWN;
}

static bool op_is_const(const Dwarf_Op *op)
{
	return (op->atom >= DW_OP_lit0 && op->atom <= DW_OP_lit31) ||
	       op->atom == DW_OP_constu || op->atom == DW_OP_consts;
}

/* Only the first register found counts. */
static void param_loc__set_reg(struct param_loc *pl, int reg)
{
	if (pl->reg == LOC_UNKNOWN && reg != LOC_UNKNOWN)
		pl->reg = reg;
}

/* Marks byte OFF in FIELDS; an offset past the bits of a long is ignored. */
static void param_loc__set_piece(unsigned long *fields, long off)
{
	if (off >= 0 && off < (long)(sizeof(*fields) * 8))
		*fields |= 1UL << off;
}

/* Does an operation after the first one say DW_OP_stack_value? */
static bool ops_have_stack_value(const Dwarf_Op *ops, size_t n)
{
	size_t i;

	for (i = 1; i < n; i++)
		if (ops[i].atom == DW_OP_stack_value)
			return true;
	return false;
}

/*
 * Reads location entry ENTRY, of N operations.  A constant counts in the
 * first entry only.  A value that fits one register takes its register
 * from the first entry only; a larger aggregate records, from every
 * entry, which bytes each DW_OP_piece holds.
 */
static void param_loc__multi(struct param_loc *pl, const Dwarf_Op *ops,
			     size_t n, int entry, uint64_t size,
			     const struct call_abi *abi)
{
	long off = 0;
	size_t i;

	if (op_is_const(&ops[0])) {
		if (entry == 0)
			pl->konst = true;
		return;
	}
	if (call_abi__one_reg(abi, size)) {
		if (entry != 0)
			return;
		if (op_reg(&ops[0]) != LOC_UNKNOWN)
			param_loc__set_reg(pl, op_reg(&ops[0]));
		else if (ops_have_stack_value(ops, n))
			param_loc__set_reg(pl, op_breg(&ops[0]));
		return;
	}
	/* An aggregate in two registers: which bytes each piece holds. */
	for (i = 0; i < n; i++) {
		if (ops[i].atom == DW_OP_piece) {
			/*
			 * A leading piece without a location means its bytes
			 * are not passed; the next piece starts past them.
			 */
			if (i == 0) {
				off = ops[i].number;
				continue;
			}
			if (off < abi->addr_size)
				param_loc__set_piece(&pl->first, off);
			else
				param_loc__set_piece(&pl->second,
						     off - abi->addr_size);
			off += ops[i].number;
		} else {
			param_loc__set_reg(pl, op_reg(&ops[i]));
		}
	}
}

/*
 * param_loc.h has the contract.  The entries of the location list are
 * read in turn; once a value that fits one register has its register,
 * later entries cannot change it, and reading stops.
 */
void param_loc__decode(struct param_loc *pl, Dwarf_Attribute *loc,
			      uint64_t size, const struct call_abi *abi)
{
	Dwarf_Addr base, start, end;
	ptrdiff_t offset = 0;
	Dwarf_Op *ops;
	size_t nops;
	int entry;

	for (entry = 0;; entry++) {
		Dwarf_Attribute sub;
		Dwarf_Op *sops;
		size_t n, nsops;
		bool sv;

		/* Nothing later can change what is known already. */
		if (entry > 0 && pl->reg != LOC_UNKNOWN &&
		    call_abi__one_reg(abi, size))
			break;
		offset = dwarf_getlocations(loc, offset, &base, &start, &end,
					    &ops, &nops);
		if (offset <= 0)
			break;
		if (!nops)
			continue;
		n = nops;
		sv = ops[n - 1].atom == DW_OP_stack_value;
		/* One operation and DW_OP_stack_value are read as one. */
		if (n == 2 && sv)
			n = 1;
		if (n != 1) {
			param_loc__multi(pl, ops, n, entry, size, abi);
			continue;
		}
		switch (ops[0].atom) {
		case DW_OP_fbreg:
			if (entry == 0)
				pl->stack = true;
			break;
		/*
		 * An entry value of a register, in any entry, names the
		 * register the parameter arrived in.
		 */
		case DW_OP_entry_value:
		case DW_OP_GNU_entry_value:

			if (!dwarf_getlocation_attr(loc, &ops[0], &sub) &&
			    !dwarf_getlocation(&sub, &sops, &nsops) && nsops == 1)
				param_loc__set_reg(pl, op_reg(&sops[0]));
			break;
		default:
			if (entry != 0)
				break;
			if (op_is_const(&ops[0]))
				pl->konst = true;
			else if (op_reg(&ops[0]) != LOC_UNKNOWN)
				param_loc__set_reg(pl, op_reg(&ops[0]));
			else if (sv)
				param_loc__set_reg(pl, op_breg(&ops[0]));
			break;
		}
	}
}
