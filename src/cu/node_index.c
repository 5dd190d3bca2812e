// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CU's nodes by DIE: each node's key (its DIE's offset) and the hash
 * from key to node that every type reference is looked up in, by the
 * walk that builds the types (cu_types.c) and by the keys (cu_keys.c).
 */
#include <stdlib.h>

#include "cu/cu_internal.h"
#include "lib/hash.h"
#include "lib/zalloc.h"

/*
 * Returns the key of DIE in node_offs: its offset, marked if foreign or
 * in .debug_types.
 */
uint64_t cu_ctx__die_key(struct cu_ctx *ctx, Dwarf_Die *die)
{
	const struct abbrev_cache *c = &ctx->abbrevs;
	uint64_t key;

	/* The CU's own DIE, as the keys count offsets: no call into libdw. */
	if (die->cu == c->cu && c->cu_start &&
	    (const unsigned char *)die->addr >= c->cu_start &&
	    (const unsigned char *)die->addr < c->cu_end)
		return ctx->cu_start + ((const unsigned char *)die->addr -
					c->cu_start);
	key = dwarf_dieoffset(die);

	if (die->cu != ctx->cudie->cu &&
	    dwarf_cu_getdwarf(die->cu) != ctx->home_dw)
		key |= NODE_KEY_OTHER_FILE;
	if (die->cu != ctx->cudie->cu && ctx->env->type_sigs &&
	    die__in_debug_types(die))
		key |= NODE_KEY_DEBUG_TYPES;
	return key;
}

/*
 * Inserts node I into the open-addressing table; a slot holds the node's
 * index + 1, so that 0 marks a free slot.  The caller keeps the table at
 * most half full, so a free slot is always found.
 */
void cu_ctx__hash_insert(struct cu_ctx *ctx, size_t i)
{
	size_t h = hash_int(ctx->node_offs[i]) & ctx->hash_mask;

	while (ctx->node_hash[h])
		h = (h + 1) & ctx->hash_mask;
	ctx->node_hash[h] = i + 1;
}

/*
 * Builds the hash from DIE key to node, at least four slots a node.
 * Every type reference is looked up, so this is a hash, not a search.
 * The table is not a u32_map: it is made once per CU at the size its
 * nodes need, and a slot holds the node's index (4 bytes, since the key is
 * in node_offs), where a u32_map would grow to size again in every CU, in
 * slots of 16 bytes.  Through u32_map a run took 1.6% more instructions on
 * xfs.ko and 0.5% more on veth.ko over vmlinux (callgrind).  Returns 0 or
 * -ENOMEM.
 */
int cu_ctx__index_nodes(struct cu_ctx *ctx)
{
	size_t size = 64, i;

	while (size < ctx->nr_nodes * 4)
		size *= 2;
	free(ctx->node_hash);
	ctx->node_hash = zalloc(size, sizeof(*ctx->node_hash));
	if (!ctx->node_hash)
		return -ENOMEM;
	ctx->hash_mask = size - 1;
	for (i = 0; i < ctx->nr_nodes; i++)
		cu_ctx__hash_insert(ctx, i);
	return 0;
}

/* Returns the node whose key is OFF, or NULL. */
struct cu_node *cu_ctx__find_node(struct cu_ctx *ctx, Dwarf_Off off)
{
	size_t h = hash_int(off) & ctx->hash_mask;

	for (; ctx->node_hash[h]; h = (h + 1) & ctx->hash_mask)
		if (ctx->node_offs[ctx->node_hash[h] - 1] == off)
			return &ctx->nodes[ctx->node_hash[h] - 1];
	return NULL;
}
