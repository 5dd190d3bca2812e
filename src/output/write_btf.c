// SPDX-License-Identifier: GPL-2.0-only
/* This file writes one input's BTF to its place (write_btf.h). */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>

#include "lib/log.h"
#include "output/btf_layout.h"
#include "output/distill.h"
#include "output/output.h"
#include "output/write_btf.h"

/*
 * write_distilled() is used in place, with distilled_base and a base: it
 * writes .BTF split over a distilled base, and the distilled base to
 * .BTF.base, as pahole does.  Raw output stays plain split BTF, as
 * pahole's does too.  *@size gets the bytes of both sections.
 */
static int write_distilled(const char *path, struct btf *btf, size_t *size,
			   struct out_precopy *pre,
			   const struct test_hooks *hooks)
{
	struct output_section secs[2] = {
		{ .name = ".BTF" }, { .name = ".BTF.base" },
	};
	struct btf *dist = NULL, *split = NULL;
	char msg[160];
	__u32 sz[2];
	int err;

	err = btf_distill(btf, hooks && hooks->own_distill, &dist, &split, msg,
			  sizeof(msg));
	if (err) {
		pr_err("%s: cannot distill the base: %s", path,
		       *msg ? msg : strerror(-err));
		return err;
	}
	btf__set_endianness(dist, btf__endianness(btf));
	btf__set_endianness(split, btf__endianness(btf));
	secs[0].data = btf__raw_data(split, &sz[0]);
	secs[1].data = btf__raw_data(dist, &sz[1]);
	if (!secs[0].data || !secs[1].data) {
		pr_err("%s: cannot serialize BTF", path);
		err = -ENOMEM;
	} else {
		secs[0].size = sz[0];
		secs[1].size = sz[1];
		*size = sz[0] + sz[1];
		err = output__write_elf_sections(path, secs, 2, pre, hooks);
	}
	btf__free(split);
	btf__free(dist);
	return err;
}

int output__write_btf_bytes(const char *path, const char *out_path,
			    struct write_set *ws, struct out_precopy *pre,
			    const struct encode_opts *enc, const void *data,
			    size_t sz, size_t *size)
{
	struct output_section sec = { ".BTF", data, sz };

	*size = sz;
	if (out_path)
		return output__write_raw_set(out_path, data, sz, ws,
					     enc->hooks);
	return output__write_elf_sections(path, &sec, 1, pre, enc->hooks);
}

/*
 * output__write_btf() picks the way to write @btf (write_btf.h): a
 * distilled base, a layout section, or neither, then raw or in place.
 */
int output__write_btf(const char *path, const char *out_path,
		      struct write_set *ws, struct out_precopy *pre,
		      const struct encode_opts *enc, struct btf *btf,
		      size_t *size)
{
	void *with_layout = NULL;
	const void *data;
	uint32_t sz;
	int err;

	if (!out_path && enc->distilled_base && btf__base_btf(btf))
		return write_distilled(path, btf, size, pre, enc->hooks);
	data = btf__raw_data(btf, &sz);
	if (!data) {
		pr_err("%s: cannot serialize BTF", path);
		return -ENOMEM;
	}
	*size = sz;
	/*
	 * As in pahole, split BTF shares its base's layout section and has
	 * none itself.
	 */
	if (enc->layout && !btf__base_btf(btf)) {
		err = btf_layout__add(data, sz, &with_layout, size);
		if (err) {
			pr_err("%s: cannot add the layout section: %s", path,
			       strerror(-err));
			return err;
		}
		data = with_layout;
	}
	err = output__write_btf_bytes(path, out_path, ws, pre, enc, data,
				      *size, size);
	free(with_layout);
	return err;
}
