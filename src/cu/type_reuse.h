/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The types a batch's CUs have built so far, by key (cu_keys.c), so that a
 * later CU of the batch refers to them rather than building them again;
 * and, per struct or union name, the key of its definition, or whether
 * the batch has seen it defined two ways.  One per worker, emptied when a
 * batch starts: a CU's types depend only on the CUs before it in its
 * batch, whichever worker runs it.
 */
#ifndef DWARF2BTF_TYPE_REUSE_H
#define DWARF2BTF_TYPE_REUSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/u32_map.h"

struct type_key {
	uint64_t a, b;
};

struct type_reuse_type {
	struct type_key key;
	uint32_t id;		/* in the batch's BTF */
};

struct type_reuse_name {
	uint64_t name;		/* the name's identity (cu_keys.c) */
	struct type_key def;	/* its first definition's key */
	bool contested;		/* defined another way too, or unkeyed */
	bool defined;		/* a CU of the batch defined it */
	bool declared;		/* a CU of the batch only declared it */
};

/* A name's key by the name's address (type_reuse__name_key()). */
struct type_reuse_memo {
	const char *s;
	uint64_t id;
};

struct type_reuse {
	struct u32_map by_key;	/* key.a | 1 -> index into types */
	struct type_reuse_type *types;
	size_t nr_types, cap_types;
	struct u32_map by_name;	/* name | 1 -> index into names */
	struct type_reuse_name *names;
	size_t nr_names, cap_names;
	/* TYPE_REUSE_MEMO slots, allocated on first use */
	struct type_reuse_memo *memo;
};

/* Forgets the batch before: its ids are not the next batch's. */
void type_reuse__clear(struct type_reuse *r);

/*
 * The key of struct or union name @s (key_set__name_key()), remembered
 * by the name's address: a batch reads the names of one file, where the
 * keys meet a struct's name (.debug_str's, in a linked file) in CU after
 * CU, and reading it again is a cache miss.  The caller passes only
 * names that stay where they are for the batch.
 */
uint64_t type_reuse__name_key(struct type_reuse *r, const char *s);
void type_reuse__free(struct type_reuse *r);

/* The id of the type of @key built so far, or 0. */
uint32_t type_reuse__find(const struct type_reuse *r, struct type_key key);
/* Notes that the type of @key is @id; 0 or -ENOMEM. */
int type_reuse__add(struct type_reuse *r, struct type_key key, uint32_t id);

/*
 * Notes a definition of struct or union @name with key @def (@keyed
 * false: it has none, and the name is contested from now on); 0 or
 * -ENOMEM.
 */
int type_reuse__define(struct type_reuse *r, uint64_t name,
		       struct type_key def, bool keyed);
/* Notes that a CU only declares struct or union @name; 0 or -ENOMEM. */
int type_reuse__declare(struct type_reuse *r, uint64_t name);
/* Has @name been defined two ways (or once without a key) so far? */
bool type_reuse__contested(const struct type_reuse *r, uint64_t name);
/* Have CUs of the batch both defined @name and only declared it? */
bool type_reuse__mixed(const struct type_reuse *r, uint64_t name);

#endif
