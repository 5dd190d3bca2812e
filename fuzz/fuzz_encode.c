// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the whole encoder (ELF reader, symbol index, DWARF of
 * every CU, function decisions, dedup) on one input file, with the
 * default features and then with true_signature and global_var too, and
 * the types' keys (--stats=keys, cu/cu_keys.c).  A
 * crash, a sanitizer report or a hang is a finding; an error exit is not.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "pipeline.h"
#include "btf_features.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	snprintf(path, sizeof(path), "/tmp/dwarf2btf-fuzz-%d.o", (int)getpid());
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pipeline_opts o = { .jobs = 1, .out_path = "/dev/null" };
	FILE *f = fopen(path, "wb");

	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	features__set_default(&o.enc);
	pipeline__run(path, &o);
	/*
	 * again with what the default leaves off: more of the code reads it
	 * (rustc's names make the listing read each unit's language)
	 */
	o.enc.true_signature = true;
	o.enc.global_vars = true;
	o.enc.type_keys = true;
	o.enc.rust_enums_pahole = true;
	pipeline__run(path, &o);
	return 0;
}
