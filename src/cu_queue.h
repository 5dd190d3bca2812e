/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The CU work queue: workers take CUs in order and encode each into its
 * own fragment; the calling thread consumes the fragments strictly in CU
 * order, so what it builds does not depend on the number of workers.
 */
#ifndef DWARF2BTF_CU_QUEUE_H
#define DWARF2BTF_CU_QUEUE_H

#include <stddef.h>

#include "cu_encoder.h"

/* Called in CU order; takes ownership of @frag. Non-zero stops the run. */
typedef int (*cu_consume_fn)(void *arg, size_t idx, struct cu_fragment *frag);

int cu_queue__run(const struct encode_env *env, Dwarf_Die *cus, size_t nr,
		  int jobs, cu_consume_fn consume, void *arg);

#endif
