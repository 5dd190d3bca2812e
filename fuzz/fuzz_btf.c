// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: reading BTF (btf_load: libbpf's parser plus our id
 * checks) and rendering all of it, as `dwarf2btf diff` and `--base` do;
 * and the base read in place (btf_load__view()), which must take only
 * what libbpf and our checks take, and see in it what libbpf sees.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <string.h>
#include <bpf/btf.h>

#include "diff/diff_cmd.h"
#include "lib/btf_load.h"
#include "lib/btf_ids.h"
#include "lib/btf_view.h"

static char path[64];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_WRONLY);

	/* diff prints every item: keep libFuzzer's log (stderr) readable */
	if (fd >= 0)
		dup2(fd, STDOUT_FILENO);
	snprintf(path, sizeof(path), "/tmp/dwarf2btf-fuzz-%d.btf", (int)getpid());
	return 0;
}

/*
 * The view of the file, if it takes it, against libbpf's BTF of it: the
 * same types, byte for byte, and the same strings.
 */
static void view_check(void)
{
	struct btf_view v, lv;
	struct btf *btf;
	uint32_t id;

	if (btf_load__view(path, &v))
		return;
	btf = btf_load__file(path, NULL, NULL);
	if (!btf || btf_view__from_btf(&lv, btf))
		abort();
	if (v.nr != lv.nr || v.str_len != lv.str_len ||
	    memcmp(v.strs, lv.strs, v.str_len))
		abort();
	for (id = 1; id < v.nr; id++)
		if (memcmp(btf_view__type(&v, id), btf_view__type(&lv, id),
			   btf_type__size(btf_view__type(&v, id))))
			abort();
	btf_view__free(&lv);
	btf__free(btf);
	btf_view__free(&v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[] = { "diff", path, path, NULL };
	FILE *f = fopen(path, "wb");

	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	diff_cmd__main(3, argv);
	view_check();
	return 0;
}
