/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-compilation-unit encoding: one CU's DWARF becomes BTF types, appended
 * to its batch's BTF, plus the functions and variables it offers (a
 * fragment).  What a CU adds depends only on the CU and the CUs before it in
 * its batch, never on which worker ran it or when: that is what makes the
 * output reproducible.
 */
#ifndef DWARF2BTF_CU_ENCODER_H
#define DWARF2BTF_CU_ENCODER_H

#include <stdbool.h>
#include <stdint.h>
#include <elfutils/libdw.h>

#include "cu/fragment.h"
#include "input/debug_sections.h"
#include "input/elf_file.h"
#include "input/symtab.h"
#include "lib/encode_opts.h"

struct btf;
struct name_cache;
struct batch_cache;
struct type_reuse;
struct btf_builder;

/* What every worker shares, read-only. */
#define ENCODE_CU_SIDE_MAX	DEBUG_CU_SIDE_MAX

struct encode_env {
	const struct elf_file *ef;
	const struct elf_symtab *syms;
	const struct encode_opts *opts;
	/*
	 * .debug_info as mapped from the file, or NULL when libelf had to
	 * copy it (compressed): lets workers drop the pages of finished CUs.
	 */
	const unsigned char *debug_info;
	size_t debug_info_size;
	/*
	 * A relocatable file's own copy of .debug_info, at this file offset
	 * in ef's copy, whose finished CUs nothing reads again (no unit
	 * refers to another's DIEs): workers give their bytes back.  0: not
	 * so.
	 */
	uint64_t info_copy_off;
	/*
	 * Mapped sections of which each CU reads only its own part (location
	 * and range lists): given back after each batch.
	 */
	struct debug_span cu_side[ENCODE_CU_SIDE_MAX];
	int nr_cu_side;
	/*
	 * A relocatable file: the address libdwfl gave each section (by
	 * section index) when it applied the relocations, which is what
	 * DWARF addresses are relative to; NULL otherwise.
	 */
	const uint64_t *rel_addr;
	size_t nr_rel_addr;
	/*
	 * libdw may be opened again on ef->elf (cu_queue.c's epochs): the
	 * DWARF is read from the mapping, no section of it compressed.
	 */
	bool dwarf_reopen;
	/*
	 * Some unit names a type unit's type by its signature (gcc's
	 * -fdebug-types-section): a struct may stand for one.
	 */
	bool type_sigs;
	/* The CUs of a batch (lib/cu_batch.h), CU_BATCH_MAX at most. */
	size_t batch_cus;
	/*
	 * The bytes of .debug_info as libdw reads them (its copy when it had
	 * to decompress or relocate): no CU is read past them, whatever its
	 * header says.  NULL: unknown, libdw reads everything.
	 */
	const unsigned char *info_start, *info_end;
	/* .debug_str as libdw reads it, up to its last NUL; NULL: unknown */
	const char *str_start;
	size_t str_size;
	/* .debug_abbrev as libdw reads it; NULL: unknown */
	const unsigned char *abbrev_start;
	size_t abbrev_size;
	/* the raw sections, when mapped and not compressed (cu_digest.h) */
	struct dwarf_sects sects;
	/* encodings of earlier runs (cache/batch_cache.h); NULL: none */
	const struct batch_cache *batch_cache;
};

struct cu_node;

/*
 * The largest arrays a CU's encoding grows (its nodes, their members, its
 * functions and variables), kept from one CU to the next of a batch:
 * grown from nothing for each CU, they were copied as they grew.  Only
 * the room is kept; each CU sets what it reads.  Zeroed at first, freed
 * by cu_arrays__free().
 */
struct cu_arrays {
	struct cu_node *nodes;
	Dwarf_Off *node_offs;
	Dwarf_Die *members, *scratch, *subprogs, *vars;
	size_t cap_nodes, cap_offs, cap_members, cap_scratch, cap_subprogs;
	size_t cap_vars;
};

void cu_arrays__free(struct cu_arrays *a);

/*
 * Encode one CU, appending its types to @btf (the worker's batch, whose
 * names are offsets of @names' strings; nothing else refers to it
 * meanwhile).  @cudie's handle may read a unit view
 * (input/unit_view.h), whose offsets in .debug_info are the input's less
 * @die_base: the offsets the CU's candidates and messages give are the
 * input's.  @names caches @btf's string offsets
 * (name_cache.h) from one CU to the next; @reuse, when not NULL, holds
 * the types the batch's CUs before this one built, which this CU refers
 * to rather than building again (type_reuse.h); @arrays holds the room
 * the CU before left, and gets this CU's (struct cu_arrays).  @out gets the
 * candidates, with type ids of @btf, and out->btf stays NULL.  On failure
 * the one-line message (without "dwarf2btf: ") is in @errbuf, and @btf
 * must be thrown away.
 */
int cu_encoder__encode(const struct encode_env *env, Dwarf_Die *cudie,
		       uint64_t die_base, struct btf_builder *btf,
		       struct name_cache *names,
		       struct type_reuse *reuse, struct cu_arrays *arrays,
		       struct cu_fragment *out, char *errbuf, size_t errlen);

/*
 * Where a variable named @name at @addr goes: its section and offset, and
 * VAR_CANDIDATE or the fate they give it (cu_vars.c).
 */
enum var_fate cu_vars__place(const struct encode_env *env, const char *name,
			     uint64_t addr,
			     const struct elf_data_section **sec,
			     uint64_t *off);

#endif
