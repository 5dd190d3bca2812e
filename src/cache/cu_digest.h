/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a CU's DWARF means, as a digest that a relink does not move: the
 * key of cached encodings (batch_cache.h).  A relink moves addresses,
 * offsets into .debug_str, .debug_line, .debug_loclists and the like, and
 * the CU itself in .debug_info; none of those are in the digest.  Strings
 * are in it by content, references inside the CU as they are (relative to
 * the CU), location lists by their expressions.  The addresses that an
 * encoding does depend on (functions' DW_AT_low_pc, variables' DW_OP_addr)
 * are kept aside, with the DIE that holds them, so that a cached encoding
 * is given this link's addresses.
 *
 * A CU whose meaning depends on bytes outside it (other units, other files:
 * DW_FORM_ref_addr, type units, supplementary files, split DWARF) or that
 * this reader does not know (DWARF before version 4, vendor forms) gets no
 * digest: -EOPNOTSUPP.  Malformed DWARF gets -EINVAL; the encoder then
 * says what is wrong with it.
 */
#ifndef DWARF2BTF_CU_DIGEST_H
#define DWARF2BTF_CU_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "input/debug_sections.h"

struct cu_digest {
	uint64_t h[2];
};

/* An address the CU gives a DIE (CU-relative offset). */
struct die_addr {
	uint64_t die_off;
	uint64_t addr;
};

struct cu_digester;
struct elf_symtab;

struct cu_digester *cu_digester__new(void);
void cu_digester__free(struct cu_digester *d);

/*
 * The digest of the unit at @cu_off of @s->info; with @syms, it holds for
 * each subprogram name whether @syms has a function of that name.  The
 * addresses kept aside are valid until the next call: *@addrs, sorted by
 * DIE offset.
 */
int cu_digester__run(struct cu_digester *d, const struct dwarf_sects *s,
		     const struct elf_symtab *syms, uint64_t cu_off,
		     struct cu_digest *out, const struct die_addr **addrs,
		     size_t *nr_addrs);

/* The address kept aside for the DIE at CU-relative @die_off, or -ENOENT. */
int cu_digest__addr_of(const struct die_addr *addrs, size_t nr,
		       uint64_t die_off, uint64_t *addr);

#endif
