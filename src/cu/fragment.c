// SPDX-License-Identifier: GPL-2.0-only
/* A CU's fragment (fragment.h). */
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "cu/fragment.h"

/*
 * Frees everything FRAG owns and zeroes it, so that freeing it again does
 * nothing.
 */
void cu_fragment__free(struct cu_fragment *frag)
{
	btf__free(frag->btf);
	str_arena__free(&frag->strs);
	free(frag->funcs);
	free(frag->params);
	free(frag->tags);
	free(frag->vars);
	free(frag->var_notes);
	key_set__free(&frag->fwd_names);
	memset(frag, 0, sizeof(*frag));
}
