// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the CU digest (cache/cu_digest.c) over DWARF sections
 * as a linked file has them.  An input is eight little-endian 32-bit sizes
 * (.debug_info, _abbrev, _str, _line_str, _str_offsets, _addr, _loc,
 * _loclists), then those sections one after another; each is copied to a
 * buffer of its own size, so that a read past one is a report.  Every
 * unit of .debug_info is digested, as the batch cache does.
 *
 * fuzz/mkseed-digest.py ELF OUT makes a seed from a linked file.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cache/cu_digest.h"

#define NR_SECTS	8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char *buf[NR_SECTS] = { 0 };
	size_t len[NR_SECTS], at = 4 * NR_SECTS, off = 0;
	struct dwarf_sects s = { 0 };
	struct cu_digester *d;
	int i, n = 0;

	if (size < at)
		return 0;
	for (i = 0; i < NR_SECTS; i++) {
		uint32_t v;

		memcpy(&v, data + 4 * i, 4);
		len[i] = v <= size - at ? v : size - at;
		/* a section of its own: ASan sees a read past its end */
		buf[i] = len[i] ? malloc(len[i]) : NULL;
		if (len[i] && !buf[i])
			goto out;
		if (len[i])
			memcpy(buf[i], data + at, len[i]);
		at += len[i];
	}
	s.info = buf[0], s.info_size = len[0];
	s.abbrev = buf[1], s.abbrev_size = len[1];
	s.str = buf[2], s.str_size = len[2];
	s.line_str = buf[3], s.line_str_size = len[3];
	s.str_offsets = buf[4], s.str_offsets_size = len[4];
	s.addr = buf[5], s.addr_size = len[5];
	s.loc = buf[6], s.loc_size = len[6];
	s.loclists = buf[7], s.loclists_size = len[7];
	d = cu_digester__new();
	if (!d)
		goto out;
	while (off + 4 <= s.info_size && n++ < 64) {
		const struct die_addr *a;
		struct cu_digest dg;
		uint32_t ulen;
		uint64_t addr;
		size_t na;

		memcpy(&ulen, s.info + off, 4);
		if (!cu_digester__run(d, &s, NULL, off, &dg, &a, &na) && na)
			(void)cu_digest__addr_of(a, na, a[na - 1].die_off, &addr);
		if (ulen == 0xffffffff || ulen > s.info_size - off - 4)
			break;
		off += 4 + ulen;
	}
	cu_digester__free(d);
out:
	for (i = 0; i < NR_SECTS; i++)
		free(buf[i]);
	return 0;
}
